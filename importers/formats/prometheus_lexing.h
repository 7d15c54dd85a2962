#pragma once
// The tokens of the Prometheus text formats, for the parser (prometheus_text.cpp,
// prometheus_metadata.cpp) and its rules (exposition_rules.cpp): character classes, numbers as
// Go's ParseFloat reads them (parseNumber, in exposition_rules.h), timestamps, family names and
// the suffixes their samples add. A function given [p, e) reads nothing beyond it; reading a
// number or a timestamp allocates nothing. Pure functions: reentrant, no Qt.
#include "exposition_rules.h"
#include "prometheus_text.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ft::importers::prom::detail {

// Metric names: [a-zA-Z_:][a-zA-Z0-9_:]*; label names the same without ':'.
enum : std::uint8_t { kNameStart = 1, kNameChar = 2, kDigit = 4, kLabelStart = 8, kLabelChar = 16 };

inline constexpr std::array<std::uint8_t, 256> kCharClass = [] {
    std::array<std::uint8_t, 256> t{};
    constexpr std::uint8_t kLetter = kNameStart | kNameChar | kLabelStart | kLabelChar;
    for (int c = 'a'; c <= 'z'; ++c)
        t[c] = kLetter;
    for (int c = 'A'; c <= 'Z'; ++c)
        t[c] = kLetter;
    t['_'] = kLetter;
    t[':'] = kNameStart | kNameChar;
    for (int c = '0'; c <= '9'; ++c)
        t[c] = kNameChar | kDigit | kLabelChar;
    return t;
}();

inline bool is(char c, std::uint8_t cls) {
    return kCharClass[static_cast<unsigned char>(c)] & cls;
}
inline bool isBlank(char c) {
    return c == ' ' || c == '\t';
}
inline const char* skipBlanks(const char* p, const char* e) {
    while (p < e && isBlank(*p))
        ++p;
    return p;
}
inline const char* tokenEnd(const char* p, const char* e) {
    while (p < e && !isBlank(*p))
        ++p;
    return p;
}

// [s, e) as a quoted excerpt for a message: at most 40 bytes, then "...".
std::string snippet(const char* s, const char* e);

// 0.0.4: an int64 count of milliseconds (Go's ParseInt: optional sign, decimal digits).
// Times past what int64 nanoseconds hold (year 2262) are clamped there.
bool parseMillis(const char* p, const char* e, std::int64_t& ns);
// OpenMetrics: seconds, possibly fractional, any finite double. Plain decimals convert exactly
// (a double would lose the nanoseconds of a present-day time); other spellings go through a
// double. Clamped as parseMillis.
bool parseSeconds(const char* s, const char* e, std::int64_t& ns);
// A hexadecimal float ("0x1p-3"): Go's ParseFloat reads it (0.0.4), OpenMetrics' grammar not.
bool isHexNumber(const char* p, const char* e);

// Whether a family of `type` has samples named <family><suffix> ("" for the family's own name).
bool acceptsSuffix(MetricType type, std::string_view suffix);
inline constexpr std::array<std::string_view, 8> kSuffixes = {
    "_total", "_created", "_bucket", "_sum", "_count", "_gsum", "_gcount", "_info"};

// A name with no metadata, less the suffix a histogram's or summary's samples add: foo_bucket,
// foo_sum and foo_count are one family's lines even when no TYPE says so. (Not _total or
// _info: in 0.0.4 requests_total and requests may be two metrics.)
std::string_view baseName(std::string_view name);
// "counter", "gauge", ... as a TYPE line writes them.
std::optional<MetricType> typeFromName(std::string_view word);
// Where a line holds `# EOF` (OpenMetrics' end marker), allowing blanks around it as the line
// grammar does.
bool hasEofLine(std::string_view text);

} // namespace ft::importers::prom::detail
