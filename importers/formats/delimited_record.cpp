#include "delimited_record.h"

#include <algorithm>

namespace ft::importers {

namespace {

bool blank(char c) {
    return c == ' ' || c == '\t';
}

std::string_view trimmed(std::string_view s, char delimiter) {
    auto isBlank = [delimiter](char c) { return c != delimiter && blank(c); };
    while (!s.empty() && isBlank(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && (isBlank(s.back()) || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

} // namespace

std::optional<RecordProblem> splitDelimited(std::string_view text, char delimiter,
                                            std::vector<std::string>& fields,
                                            std::vector<int>& columns) {
    fields.clear();
    columns.clear();
    std::size_t i = 0;
    while (true) {
        std::string field;
        while (i < text.size() && text[i] != delimiter && blank(text[i]))
            ++i;
        columns.push_back(static_cast<int>(i + 1));
        if (i < text.size() && text[i] == '"') {
            ++i;
            while (true) {
                if (i >= text.size())
                    return RecordProblem{columns.back(), "unterminated quoted field"};
                if (text[i] == '"') {
                    if (i + 1 < text.size() && text[i + 1] == '"') {
                        field += '"';
                        i += 2;
                        continue;
                    }
                    ++i;
                    break;
                }
                field += text[i++];
            }
            while (i < text.size() && text[i] != delimiter && (blank(text[i]) || text[i] == '\r'))
                ++i;
            if (i < text.size() && text[i] != delimiter)
                return RecordProblem{static_cast<int>(i + 1),
                                     std::string("expected '") +
                                         (delimiter == '\t' ? "\\t" : std::string(1, delimiter)) +
                                         "' after a quoted field"};
        } else {
            const std::size_t end = std::min(text.find(delimiter, i), text.size());
            field = std::string(trimmed(text.substr(i, end - i), delimiter));
            i = end;
        }
        fields.push_back(std::move(field));
        if (i >= text.size()) return std::nullopt;
        ++i; // the delimiter
    }
}

} // namespace ft::importers
