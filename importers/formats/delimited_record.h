#pragma once
// One record of a delimited text file (CSV by RFC 4180 quoting, or TSV): the fields and the
// column each starts at, for errors that point at the place. Blanks around unquoted fields are
// trimmed. Pure function; any thread.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ft::importers {

struct RecordProblem {
    int column = 0;
    std::string message;
};

// Splits `text` (one line, no line break) at `delimiter` into `fields`, with the 1-based column
// of each in `columns`. Returns what was wrong when the quoting is broken.
std::optional<RecordProblem> splitDelimited(std::string_view text, char delimiter,
                                            std::vector<std::string>& fields,
                                            std::vector<int>& columns);

} // namespace ft::importers
