#include "label_pattern.h"

#include <algorithm>
#include <array>

namespace ft::importers {
bool isLabelName(std::string_view name) {
    if (name.empty()) return false;
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
    }
    return true;
}

std::expected<LabelPattern, std::string> LabelPattern::compile(std::string_view text) {
    LabelPattern p;
    p.m_text = std::string(text);
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (c == '{') {
            const std::size_t close = text.find('}', i);
            if (close == std::string_view::npos)
                return std::unexpected("'{' at offset " + std::to_string(i) + " is not closed");
            const std::string_view name = text.substr(i + 1, close - i - 1);
            if (!isLabelName(name))
                return std::unexpected("'{" + std::string(name) +
                                       "}' is not a capture name (letters, digits, '_')");
            if (p.captureIndex(name) >= 0)
                return std::unexpected("capture '{" + std::string(name) + "}' appears twice");
            if (p.m_names.size() >= kMaxCaptures)
                return std::unexpected("more than " + std::to_string(kMaxCaptures) + " captures");
            p.m_names.emplace_back(name);
            p.m_tokens.push_back(
                {Token::Capture, static_cast<std::uint8_t>(p.m_names.size() - 1), {}});
            i = close + 1;
        } else if (c == '*') {
            const bool twice = i + 1 < text.size() && text[i + 1] == '*';
            p.m_tokens.push_back({twice ? Token::DoubleStar : Token::Star, 0, {}});
            i += twice ? 2 : 1;
        } else if (c == '}') {
            return std::unexpected("'}' at offset " + std::to_string(i) + " without '{'");
        } else {
            if (p.m_tokens.empty() || p.m_tokens.back().kind != Token::Literal)
                p.m_tokens.push_back({Token::Literal, 0, {}});
            p.m_tokens.back().literal += c;
            ++i;
        }
    }
    // Two variable-width tokens side by side could split their text any way at all; a rule
    // written like that would capture by accident, so it is refused.
    for (std::size_t t = 1; t < p.m_tokens.size(); ++t)
        if (p.m_tokens[t].kind != Token::Literal && p.m_tokens[t - 1].kind != Token::Literal)
            return std::unexpected("two wildcards or captures with no text between them in \"" +
                                   p.m_text + "\"");
    return p;
}

int LabelPattern::captureIndex(std::string_view name) const {
    for (std::size_t i = 0; i < m_names.size(); ++i)
        if (m_names[i] == name) return static_cast<int>(i);
    return -1;
}

bool LabelPattern::matches(std::string_view value) const {
    std::array<std::string_view, kMaxCaptures> scratch;
    return match(value, scratch);
}

bool LabelPattern::match(std::string_view value, std::span<std::string_view> captures) const {
    if (isLiteral()) return value == m_tokens[0].literal;
    return matchFrom(0, value, captures);
}

bool LabelPattern::matchFrom(std::size_t token, std::string_view rest,
                             std::span<std::string_view> captures) const {
    if (token == m_tokens.size()) return rest.empty();
    const Token& t = m_tokens[token];
    if (t.kind == Token::Literal) {
        if (!rest.starts_with(t.literal)) return false;
        return matchFrom(token + 1, rest.substr(t.literal.size()), captures);
    }
    // Variable width: try the shortest span first. Captures need one character; only '**' may
    // cross '/'. The next token is a literal (compile() guarantees it), so only spans followed
    // by that literal's first character are worth recursing into.
    const std::size_t minLen = t.kind == Token::Capture ? 1 : 0;
    const bool crossSlash = t.kind == Token::DoubleStar;
    const bool last = token + 1 == m_tokens.size();
    for (std::size_t len = minLen; len <= rest.size(); ++len) {
        if (len > 0 && !crossSlash && rest[len - 1] == '/') return false;
        if (last) {
            if (len != rest.size()) continue;
        } else if (len == rest.size() || rest[len] != m_tokens[token + 1].literal[0]) {
            continue;
        }
        if (t.kind == Token::Capture) captures[t.capture] = rest.substr(0, len);
        if (matchFrom(token + 1, rest.substr(len), captures)) return true;
    }
    return false;
}

} // namespace ft::importers
