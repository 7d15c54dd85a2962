// The tokens of a Prometheus or OpenMetrics text line: numbers as Go's ParseFloat reads them,
// timestamps in milliseconds or seconds, metric family names and their suffixes, `# EOF`.
#include "prometheus_lexing.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>

namespace ft::importers::prom::detail {
namespace {

constexpr std::size_t kSnippetLimit = 40;
// Beyond these, times no longer fit int64 nanoseconds (some 292 years from 1970) and are
// clamped: the text is valid, only our representation ends there.
constexpr std::int64_t kMaxMillis = INT64_MAX / 1'000'000;
constexpr std::int64_t kMaxSeconds = INT64_MAX / 1'000'000'000;

constexpr std::array<double, 23> kPow10 = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                           1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                           1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// Plain decimals ("8.969000", "1.458255915e9") without from_chars: with at most 19 digits, a
// mantissa up to 2^53 and a power of ten up to 22 both operands are exact doubles and the one
// multiply or divide rounds correctly (Clinger's fast path), so the result equals from_chars'.
bool fastDecimal(const char* p, const char* e, double& out) {
    bool negative = false;
    if (p < e && (*p == '-' || *p == '+')) negative = *p++ == '-';
    std::uint64_t mantissa = 0;
    int digits = 0, scale = 0;
    for (; p < e && is(*p, kDigit); ++p, ++digits)
        mantissa = mantissa * 10 + static_cast<unsigned>(*p - '0');
    if (p < e && *p == '.')
        for (++p; p < e && is(*p, kDigit); ++p, ++digits, --scale)
            mantissa = mantissa * 10 + static_cast<unsigned>(*p - '0');
    if (digits == 0 || digits > 19) return false;
    if (p < e && (*p == 'e' || *p == 'E')) {
        ++p;
        bool negativeExp = false;
        if (p < e && (*p == '-' || *p == '+')) negativeExp = *p++ == '-';
        int exp = 0, expDigits = 0;
        for (; p < e && is(*p, kDigit) && expDigits < 4; ++p, ++expDigits)
            exp = exp * 10 + (*p - '0');
        if (expDigits == 0) return false;
        scale += negativeExp ? -exp : exp;
    }
    if (p != e || mantissa > (std::uint64_t{1} << 53) || scale < -22 || scale > 22) return false;
    auto v = static_cast<double>(mantissa);
    v = scale < 0 ? v / kPow10[static_cast<std::size_t>(-scale)]
                  : v * kPow10[static_cast<std::size_t>(scale)];
    out = negative ? -v : v;
    return true;
}

// Everything Go's ParseFloat takes that the fast path does not: long mantissas, big exponents,
// NaN/Inf in any case, hex floats. Out-of-range values saturate (to +-Inf or +-0) instead of
// failing the line: a reading of 1e999 is still a reading.
bool slowNumber(const char* p, const char* e, double& out) {
    bool negative = false;
    if (p < e && (*p == '+' || *p == '-')) negative = *p++ == '-';
    if (p == e || *p == '+' || *p == '-') return false;
    double v = 0;
    std::from_chars_result r{};
    const bool hex = e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    if (hex)
        r = std::from_chars(p + 2, e, v, std::chars_format::hex);
    else
        r = std::from_chars(p, e, v);
    if (r.ptr != e) return false;
    if (r.ec == std::errc::result_out_of_range) {
        const char* exp = std::find_if(
            p, e, [hex](char c) { return hex ? (c == 'p' || c == 'P') : (c == 'e' || c == 'E'); });
        const bool tiny =
            (exp != e && exp + 1 < e && exp[1] == '-') || (exp == e && *p == '0') || *p == '.';
        v = tiny ? 0.0 : HUGE_VAL;
    } else if (r.ec != std::errc()) {
        return false;
    }
    out = negative ? -v : v;
    return true;
}

} // namespace

std::string snippet(const char* s, const char* e) {
    const auto n = static_cast<std::size_t>(e - s);
    return n <= kSnippetLimit ? std::string(s, n) : std::string(s, kSnippetLimit) + "...";
}

bool parseNumber(const char* s, const char* e, double& out) {
    return fastDecimal(s, e, out) || slowNumber(s, e, out);
}

// 0.0.4: an int64 count of milliseconds (Go's ParseInt: optional sign, decimal digits).
bool parseMillis(const char* p, const char* e, std::int64_t& ns) {
    if (p < e && *p == '+') {
        ++p;
        if (p < e && *p == '-') return false;
    }
    std::int64_t ms = 0;
    const auto r = std::from_chars(p, e, ms);
    if (r.ec != std::errc() || r.ptr != e || p == e) return false;
    ns = ms > kMaxMillis ? INT64_MAX : ms < -kMaxMillis ? INT64_MIN : ms * 1'000'000;
    return true;
}

// OpenMetrics: seconds, possibly fractional. Plain decimals convert exactly (a double would
// lose the nanoseconds of a present-day time); other spellings go through a double.
bool parseSeconds(const char* s, const char* e, std::int64_t& ns) {
    const char* p = s;
    bool negative = false;
    if (p < e && (*p == '-' || *p == '+')) negative = *p++ == '-';
    std::int64_t seconds = 0, fraction = 0;
    int intDigits = 0, fracDigits = 0;
    bool exact = true;
    for (; p < e && is(*p, kDigit); ++p, ++intDigits) {
        seconds = seconds * 10 + (*p - '0');
        if (seconds > kMaxSeconds) {
            exact = false;
            break;
        }
    }
    if (exact && p < e && *p == '.')
        for (++p; p < e && is(*p, kDigit); ++p, ++fracDigits)
            if (fracDigits < 9) fraction = fraction * 10 + (*p - '0');
    if (exact && p == e && intDigits + fracDigits > 0) {
        for (int i = fracDigits; i < 9; ++i)
            fraction *= 10;
        if (seconds == kMaxSeconds && fraction > INT64_MAX - kMaxSeconds * 1'000'000'000)
            fraction = INT64_MAX - kMaxSeconds * 1'000'000'000;
        ns = seconds * 1'000'000'000 + fraction;
        if (negative) ns = -ns;
        return true;
    }
    // Any finite double is a valid OpenMetrics timestamp (1e300 too); NaN and Inf are not.
    double v = 0;
    if (!parseNumber(s, e, v) || !std::isfinite(v)) return false;
    if (std::fabs(v) >= static_cast<double>(kMaxSeconds))
        ns = v > 0 ? INT64_MAX : INT64_MIN;
    else
        ns = std::llround(v * 1e9);
    return true;
}

bool isHexNumber(const char* p, const char* e) {
    if (p < e && (*p == '+' || *p == '-')) ++p;
    return e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
}

bool acceptsSuffix(MetricType type, std::string_view suffix) {
    switch (type) {
    case MetricType::Counter:
        return suffix.empty() || suffix == "_total" || suffix == "_created";
    case MetricType::Histogram:
        return suffix == "_bucket" || suffix == "_sum" || suffix == "_count" ||
               suffix == "_created";
    case MetricType::GaugeHistogram:
        return suffix == "_bucket" || suffix == "_gsum" || suffix == "_gcount";
    case MetricType::Summary:
        return suffix.empty() || suffix == "_sum" || suffix == "_count" || suffix == "_created";
    case MetricType::Info:
        return suffix.empty() || suffix == "_info";
    default:
        return suffix.empty();
    }
}

// A name with no metadata, less the suffix a histogram's or summary's samples add: foo_bucket,
// foo_sum and foo_count are one family's lines even when no TYPE says so. (Not _total or
// _info: in 0.0.4 requests_total and requests may be two metrics.)
std::string_view baseName(std::string_view name) {
    constexpr std::array<std::string_view, 5> kGroupSuffixes = {"_bucket", "_sum", "_count",
                                                                "_gsum", "_gcount"};
    for (std::string_view suffix : kGroupSuffixes)
        if (name.size() > suffix.size() && name.ends_with(suffix))
            return name.substr(0, name.size() - suffix.size());
    return name;
}

std::optional<MetricType> typeFromName(std::string_view word) {
    for (int i = 0; i <= static_cast<int>(MetricType::Untyped); ++i)
        if (metricTypeName(static_cast<MetricType>(i)) == word) return static_cast<MetricType>(i);
    return std::nullopt;
}

// Where a line holds `# EOF` (OpenMetrics' end marker), allowing blanks around it as the line
// grammar does. The tail is the usual place, so it is looked at first.
bool hasEofLine(std::string_view text) {
    auto isEofAt = [&](std::size_t pos) {
        std::size_t before = pos;
        while (before > 0 && isBlank(text[before - 1]))
            --before;
        if (before > 0 && text[before - 1] != '\n') return false;
        std::size_t after = pos + 5;
        while (after < text.size() && (isBlank(text[after]) || text[after] == '\r'))
            ++after;
        return after == text.size() || text[after] == '\n';
    };
    std::size_t last = text.size();
    while (last > 0 &&
           (isBlank(text[last - 1]) || text[last - 1] == '\r' || text[last - 1] == '\n'))
        --last;
    if (last >= 5 && text.substr(last - 5, 5) == "# EOF" && isEofAt(last - 5)) return true;
    for (std::size_t pos = text.find("# EOF"); pos != std::string_view::npos;
         pos = text.find("# EOF", pos + 5))
        if (isEofAt(pos)) return true;
    return false;
}

} // namespace ft::importers::prom::detail
