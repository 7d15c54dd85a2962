#pragma once
// LabelPattern: the small matcher mapping rules use on metric names, label values and BMS tag
// paths, instead of std::regex (slow to build, slower to run, and far more than rules need).
//
//   literal text   must appear as written
//   {name}         a capture: one or more characters, never '/'
//   *              any characters, possibly none, never '/'
//   **             any characters, possibly none, '/' included
//
// A match covers the whole value. '/' is special so that tag paths ("site1/row3/A03/supply")
// read by segment: "**/{rack}/*" takes the second-to-last segment. Captures and '*' are lazy, so
// "{host}.cluster.local" on "a01-n03.cluster.local" yields "a01-n03". Compiled once when the
// rules load; matching runs only when a mapper meets a series it has not seen. Immutable and
// safe to share between threads.
#include <cstdint>
#include <expected>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ft::importers {

// A Prometheus label name: [a-zA-Z_][a-zA-Z0-9_]*.
bool isLabelName(std::string_view name);

class LabelPattern {
public:
    static constexpr std::size_t kMaxCaptures = 8;

    // Fails on an unclosed or empty '{}', a capture name that is not [A-Za-z_][A-Za-z0-9_]*, the
    // same name twice, two wildcards or captures with nothing between them, or too many captures.
    static std::expected<LabelPattern, std::string> compile(std::string_view text);

    // On a match, captures[i] is the text captured for captureNames()[i] (a view into value);
    // captures must hold at least captureNames().size() entries.
    bool match(std::string_view value, std::span<std::string_view> captures) const;
    bool matches(std::string_view value) const;

    const std::vector<std::string>& captureNames() const { return m_names; }
    int captureIndex(std::string_view name) const;
    bool isLiteral() const { return m_tokens.size() == 1 && m_tokens[0].kind == Token::Literal; }
    bool isEmpty() const { return m_tokens.empty(); }
    const std::string& text() const { return m_text; }

private:
    struct Token {
        enum Kind : std::uint8_t { Literal, Capture, Star, DoubleStar };
        Kind kind = Literal;
        std::uint8_t capture = 0;
        std::string literal;
    };
    bool matchFrom(std::size_t token, std::string_view rest,
                   std::span<std::string_view> captures) const;

    std::vector<Token> m_tokens;
    std::vector<std::string> m_names;
    std::string m_text;
};

} // namespace ft::importers
