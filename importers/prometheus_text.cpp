#include "prometheus_text.h"

#include "exposition_rules.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace ft::importers::prom {
namespace {

constexpr std::size_t kErrorTextLimit = 200;
constexpr std::size_t kSnippetLimit = 40;
// 0.0.4 timestamps are int64 milliseconds; beyond this they no longer fit int64 nanoseconds.
constexpr std::int64_t kMaxMillis = INT64_MAX / 1'000'000;
constexpr std::int64_t kMaxSeconds = INT64_MAX / 1'000'000'000;

enum : std::uint8_t { kNameStart = 1, kNameChar = 2, kDigit = 4 };

constexpr std::array<std::uint8_t, 256> kCharClass = [] {
    std::array<std::uint8_t, 256> t{};
    for (int c = 'a'; c <= 'z'; ++c)
        t[c] = kNameStart | kNameChar;
    for (int c = 'A'; c <= 'Z'; ++c)
        t[c] = kNameStart | kNameChar;
    t['_'] = t[':'] = kNameStart | kNameChar;
    for (int c = '0'; c <= '9'; ++c)
        t[c] = kNameChar | kDigit;
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

std::string snippet(const char* s, const char* e) {
    const auto n = static_cast<std::size_t>(e - s);
    return n <= kSnippetLimit ? std::string(s, n) : std::string(s, kSnippetLimit) + "...";
}

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

bool readNumber(const char* s, const char* e, double& out) {
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
    if (r.ec != std::errc() || r.ptr != e || p == e || ms > kMaxMillis || ms < -kMaxMillis)
        return false;
    ns = ms * 1'000'000;
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
            return false;
        ns = seconds * 1'000'000'000 + fraction;
        if (negative) ns = -ns;
        return true;
    }
    double v = 0;
    if (!readNumber(s, e, v) || !std::isfinite(v) ||
        std::fabs(v) >= static_cast<double>(kMaxSeconds))
        return false;
    ns = std::llround(v * 1e9);
    return true;
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

constexpr std::array<std::string_view, 8> kSuffixes = {"_total", "_created", "_bucket", "_sum",
                                                       "_count", "_gsum",    "_gcount", "_info"};

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

enum class Meta : std::uint8_t { Help, Type, Unit };

struct Family {
    MetricType type = MetricType::Unknown;
    // Scrape numbers (from 1) in which the family last had a HELP, a TYPE, a UNIT, a sample;
    // 0 = never. Then the lines of those in that scrape.
    std::uint64_t helpScrape = 0, typeScrape = 0, unitScrape = 0, sampleScrape = 0;
    std::uint64_t helpLine = 0, typeLine = 0, unitLine = 0, sampleLine = 0;
    // The scrape in which its group of samples ended: another family's samples came after.
    std::uint64_t closedScrape = 0;

    std::uint64_t& scrapeOf(Meta m) {
        return m == Meta::Help ? helpScrape : m == Meta::Type ? typeScrape : unitScrape;
    }
    std::uint64_t& lineOf(Meta m) {
        return m == Meta::Help ? helpLine : m == Meta::Type ? typeLine : unitLine;
    }
};

constexpr std::string_view metaName(Meta m) {
    return m == Meta::Help ? "HELP" : m == Meta::Type ? "TYPE" : "UNIT";
}

struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

class Parser final : public detail::Findings {
public:
    Parser(std::string_view text, SampleSink& sink, Format format, Scope scope)
        : m_text(text), m_sink(sink), m_format(format), m_scope(scope) {}
    Parser(const Parser&) = delete;
    Parser& operator=(const Parser&) = delete;
    ~Parser() = default;

    ParseStats run();
    // After an exception: say so through the sink if it still listens; never throws.
    void abort(const char* what) noexcept;
    const ParseStats& stats() const { return m_stats; }

private:
    using FamilyEntry = std::pair<const std::string, Family>;

    void line(const char* begin, const char* end);
    void sampleLine(const char* p, const char* e);
    void commentLine(const char* p, const char* e);
    bool labelSet(const char*& p, const char* e, std::vector<Label>& out,
                  std::string_view* quotedName);
    bool quotedString(const char*& p, const char* e, std::string_view& out);
    bool exemplar(const char* p, const char* e);
    bool timestamp(const char* s, const char* e, std::int64_t& ns) const;
    std::string_view unescapeHelp(const char* p, const char* e);
    char* scratch();

    FamilyEntry* resolve(std::string_view name);
    FamilyEntry* declare(std::string_view name, Meta meta);
    void switchFamily(FamilyEntry* family, std::string_view name);
    void flushPending();
    void endScrape();
    void warn(const detail::Place& where, std::string message) override;
    std::string_view lineText(const char* start) const;
    int columnOf(const char* lineStart, const char* at) const;
    ParseError finding(std::uint64_t line, int column, std::string message,
                       std::string_view text) const;
    void fail(const char* at, std::string message);
    bool reject(const char* at, std::string message) {
        fail(at, std::move(message));
        return false;
    }
    void report(std::uint64_t line, int column, std::string message, std::string_view text);

    std::string_view m_text;
    SampleSink& m_sink;
    Format m_format;
    Scope m_scope;
    ParseStats m_stats;
    std::optional<detail::ExpositionRules> m_rules; // made once the format is known
    bool m_om = false;
    bool m_lenient = false; // Auto that settled on 0.0.4: still takes OpenMetrics-only forms

    const char* m_lineStart = nullptr;
    const char* m_lineEnd = nullptr;
    std::uint64_t m_lineNo = 0;

    std::vector<Label> m_labels;
    std::vector<Label> m_exemplarLabels;
    Exemplar m_exemplar;
    // Unescaped strings of the current line; see scratch().
    std::vector<char> m_scratch;
    std::size_t m_scratchUsed = 0;
    bool m_scratchReady = false;
    std::string m_help;

    std::unordered_map<std::string, Family, NameHash, std::equal_to<>> m_families;
    FamilyEntry* m_last = nullptr;    // the family the previous sample belonged to
    std::string_view m_lastUnknown;   // a name (in m_text) known to have no family
    FamilyEntry* m_pending = nullptr; // declared, not yet reported through family()
    std::string_view m_pendingHelp;
    std::uint64_t m_scrapeNo = 1;
    bool m_content = false; // the current scrape has a non-blank line

    // The family whose samples come now: its entry, or for a name with no metadata, its
    // baseName().
    FamilyEntry* m_current = nullptr;
    std::string m_currentName;
    bool m_anyCurrent = false;
    // Names with no metadata whose samples ended in this scrape (Scope::Exposition only).
    std::unordered_set<std::string, NameHash, std::equal_to<>> m_closedNames;

    // Scope::Exposition after `# EOF`: the lines that came after, and where the first was.
    bool m_afterEof = false;
    std::uint64_t m_linesAfterEof = 0;
    detail::Place m_firstAfterEof;
};

ParseStats Parser::run() {
    m_stats.bytes = m_text.size();
    m_om = m_format == Format::OpenMetrics || (m_format == Format::Auto && hasEofLine(m_text));
    m_lenient = m_format == Format::Auto && !m_om;
    m_stats.openMetrics = m_om;
    m_rules.emplace(*this, m_om, m_scope == Scope::Dump);

    const char* p = m_text.data();
    const char* const end = p + m_text.size();
    const char* lastLine = p;
    while (p < end) {
        const auto* nl =
            static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
        const char* lineEnd = nl ? nl : end;
        ++m_lineNo;
        lastLine = p;
        line(p, lineEnd);
        p = nl ? nl + 1 : end;
    }
    m_stats.lines = m_lineNo;
    if (m_linesAfterEof > 0) {
        const std::string_view first = lineText(m_firstAfterEof.lineStart);
        ++m_stats.errors;
        m_sink.error(finding(m_firstAfterEof.line, 1,
                             std::to_string(m_linesAfterEof) +
                                 (m_linesAfterEof == 1 ? " line" : " lines") +
                                 " after '# EOF' ignored: an OpenMetrics exposition ends there",
                             first));
    }
    if (m_om && m_content)
        warn({m_lineNo + 1, nullptr, nullptr},
             "expected '# EOF' at the end of the OpenMetrics text (truncated?)");
    else if (!m_om && !m_text.empty() && m_text.back() != '\n')
        warn({m_lineNo, lastLine, end},
             "the last line must end with a line feed (0.0.4); the text may be cut short");
    endScrape();
    return m_stats;
}

void Parser::abort(const char* what) noexcept {
    try {
        report(m_lineNo, 1, std::string("parsing stopped: ") + what, {});
    } catch (...) {
    }
}

void Parser::line(const char* begin, const char* end) {
    const char* e = end;
    while (e > begin && (isBlank(e[-1]) || e[-1] == '\r'))
        --e;
    const char* p = skipBlanks(begin, e);
    if (m_afterEof) {
        if (p != e && m_linesAfterEof++ == 0) m_firstAfterEof = {m_lineNo, begin, p};
        return;
    }
    if (p == e) {
        if (m_om && m_content)
            warn({m_lineNo, begin, begin}, "blank line: OpenMetrics allows none");
        return;
    }
    m_lineStart = begin;
    m_lineEnd = e;
    m_content = true;
    m_scratchReady = false;
    if (*p == '#')
        commentLine(p, e);
    else
        sampleLine(p, e);
}

void Parser::sampleLine(const char* p, const char* e) {
    m_labels.clear();
    std::string_view name;
    if (is(*p, kNameStart)) {
        const char* s = p++;
        while (p < e && is(*p, kNameChar))
            ++p;
        name = {s, static_cast<std::size_t>(p - s)};
    } else if (*p != '{') {
        return fail(p, "expected a metric name, got '" + snippet(p, tokenEnd(p, e)) + "'");
    }
    p = skipBlanks(p, e);
    const bool braces = p < e && *p == '{';
    if (braces) {
        const char* open = p;
        if (!labelSet(p, e, m_labels, name.empty() ? &name : nullptr)) return;
        if (name.empty())
            return fail(open, "expected a metric name before '{' or quoted first inside it");
        p = skipBlanks(p, e);
    }
    if (p == e)
        return fail(p, braces ? "expected a sample value after the label set"
                              : "expected a sample value after the metric name");
    const char* valueStart = p;
    p = tokenEnd(p, e);
    double value = 0;
    if (!readNumber(valueStart, p, value))
        return fail(valueStart, "expected a sample value (a number, NaN, +Inf or -Inf), got '" +
                                    snippet(valueStart, p) + "'");
    p = skipBlanks(p, e);

    std::optional<std::int64_t> ts;
    if (p < e && *p != '#') {
        const char* t = p;
        p = tokenEnd(p, e);
        std::int64_t ns = 0;
        if (!timestamp(t, p, ns)) {
            return fail(t, std::string(m_om ? "expected a timestamp in seconds"
                                            : "expected a timestamp in integer milliseconds") +
                               " or end of line, got '" + snippet(t, p) + "'");
        }
        ts = ns;
        p = skipBlanks(p, e);
    }
    bool hasExemplar = false;
    const char* exemplarAt = p;
    if (p < e) {
        if (*p != '#' || !(m_om || m_lenient))
            return fail(p, std::string("expected end of line after the ") +
                               (ts ? "timestamp" : "value") + ", got '" +
                               snippet(p, tokenEnd(p, e)) + "'");
        if (!exemplar(p, e)) return;
        hasExemplar = true;
    }

    FamilyEntry* family = resolve(name);
    if (m_pending) flushPending();
    if (!m_anyCurrent ||
        (family ? family != m_current : m_current || baseName(name) != m_currentName))
        switchFamily(family, name);
    Sample s;
    s.name = name;
    if (family) {
        Family& f = family->second;
        if (f.sampleScrape != m_scrapeNo) {
            f.sampleScrape = m_scrapeNo;
            f.sampleLine = m_lineNo;
        }
        s.family = family->first;
        s.type = f.type;
    } else {
        s.family = name;
    }
    s.labels = m_labels;
    s.value = value;
    s.timestampNs = ts;
    s.line = static_cast<int>(std::min<std::uint64_t>(m_lineNo, INT_MAX));
    s.exemplar = hasExemplar ? &m_exemplar : nullptr;
    if (auto refusal = m_rules->check(s, {m_lineNo, m_lineStart, nullptr}, valueStart, exemplarAt))
        return fail(refusal->at, std::move(refusal->message));
    ++m_stats.samples;
    m_sink.sample(s);
}

bool Parser::exemplar(const char* p, const char* e) {
    p = skipBlanks(p + 1, e);
    if (p == e || *p != '{') return reject(p, "expected '{' to start the exemplar's label set");
    m_exemplarLabels.clear();
    if (!labelSet(p, e, m_exemplarLabels, nullptr)) return false;
    p = skipBlanks(p, e);
    if (p == e) return reject(p, "expected the exemplar's value after its label set");
    const char* v = p;
    p = tokenEnd(p, e);
    if (!readNumber(v, p, m_exemplar.value))
        return reject(v, "expected the exemplar's value (a number), got '" + snippet(v, p) + "'");
    p = skipBlanks(p, e);
    m_exemplar.timestampNs.reset();
    if (p < e) {
        const char* t = p;
        p = tokenEnd(p, e);
        std::int64_t ns = 0;
        if (!parseSeconds(t, p, ns))
            return reject(t, "expected the exemplar's timestamp in seconds, got '" + snippet(t, p) +
                                 "'");
        m_exemplar.timestampNs = ns;
        p = skipBlanks(p, e);
        if (p < e) return reject(p, "expected end of line after the exemplar");
    }
    m_exemplar.labels = m_exemplarLabels;
    return true;
}

bool Parser::timestamp(const char* s, const char* e, std::int64_t& ns) const {
    if (m_om) return parseSeconds(s, e, ns);
    if (parseMillis(s, e, ns)) return true;
    // A fractional timestamp cannot be milliseconds: in Auto it is a truncated OpenMetrics scrape.
    return m_lenient &&
           std::find_if(s, e, [](char c) { return c == '.' || c == 'e' || c == 'E'; }) != e &&
           parseSeconds(s, e, ns);
}

// `{` name="value", ... `}` with an optional trailing comma. When quotedName is given, a quoted
// string first in the braces that is not followed by `=` is the (UTF-8) metric name.
bool Parser::labelSet(const char*& p, const char* e, std::vector<Label>& out,
                      std::string_view* quotedName) {
    ++p;
    for (bool first = true;; first = false) {
        p = skipBlanks(p, e);
        if (p == e) return reject(p, "expected a label name or '}'");
        if (*p == '}') {
            ++p;
            return true;
        }
        std::string_view name;
        const bool quoted = *p == '"';
        if (quoted) {
            if (!quotedString(p, e, name)) return false;
        } else if (is(*p, kNameStart)) {
            const char* s = p++;
            while (p < e && is(*p, kNameChar))
                ++p;
            name = {s, static_cast<std::size_t>(p - s)};
        } else {
            return reject(p,
                          "expected a label name or '}', got '" + snippet(p, tokenEnd(p, e)) + "'");
        }
        p = skipBlanks(p, e);
        if (p < e && *p == '=') {
            p = skipBlanks(p + 1, e);
            if (p == e || *p != '"')
                return reject(p, "expected '\"' to start the value of label '" +
                                     snippet(name.data(), name.data() + name.size()) + "'");
            std::string_view value;
            if (!quotedString(p, e, value)) return false;
            out.push_back({name, value});
        } else if (quotedName && first && quoted) {
            *quotedName = name;
        } else {
            return reject(p, "expected '=' after label name '" +
                                 snippet(name.data(), name.data() + name.size()) + "'");
        }
        p = skipBlanks(p, e);
        if (p < e && *p == ',') {
            ++p;
            continue;
        }
        if (p < e && *p == '}') {
            ++p;
            return true;
        }
        return reject(p, "expected ',' or '}' after label '" +
                             snippet(name.data(), name.data() + name.size()) + "'");
    }
}

// Room for the rest of the current line. Grown (only) at the first escaped string of a line,
// when no view into it is alive yet; the unescaped strings of one line never outgrow the line.
char* Parser::scratch() {
    if (!m_scratchReady) {
        const auto need = static_cast<std::size_t>(m_lineEnd - m_lineStart);
        if (m_scratch.size() < need) m_scratch.resize(std::max(need, m_scratch.size() * 2));
        m_scratchUsed = 0;
        m_scratchReady = true;
    }
    return m_scratch.data() + m_scratchUsed;
}

// p at the opening quote; on success p is past the closing one. Escapes are \\, \" and \n;
// any other backslash pair is kept as written, as Prometheus does.
bool Parser::quotedString(const char*& p, const char* e, std::string_view& out) {
    const char* s = ++p;
    const auto n = static_cast<std::size_t>(e - s);
    const auto* quote = static_cast<const char*>(std::memchr(s, '"', n));
    const auto* slash = static_cast<const char*>(
        std::memchr(s, '\\', quote ? static_cast<std::size_t>(quote - s) : n));
    if (!slash) {
        if (!quote) return reject(e, "expected '\"' to end the quoted string (unterminated)");
        out = {s, static_cast<std::size_t>(quote - s)};
        p = quote + 1;
        return true;
    }
    char* const begin = scratch();
    char* d = begin;
    d = std::copy(s, slash, d);
    for (p = slash; p < e; ++p) {
        if (*p == '"') {
            out = {begin, static_cast<std::size_t>(d - begin)};
            m_scratchUsed += out.size();
            ++p;
            return true;
        }
        if (*p == '\\' && p + 1 < e) {
            const char c = *++p;
            if (c == 'n')
                *d++ = '\n';
            else if (c == '\\' || c == '"')
                *d++ = c;
            else {
                *d++ = '\\';
                *d++ = c;
            }
        } else {
            *d++ = *p;
        }
    }
    return reject(e, "expected '\"' to end the quoted string (unterminated)");
}

std::string_view Parser::unescapeHelp(const char* p, const char* e) {
    if (!std::memchr(p, '\\', static_cast<std::size_t>(e - p)))
        return {p, static_cast<std::size_t>(e - p)};
    m_help.clear();
    for (; p < e; ++p) {
        if (*p == '\\' && p + 1 < e) {
            const char c = p[1];
            if (c == 'n')
                m_help += '\n', ++p;
            else if (c == '\\' || (c == '"' && m_om))
                m_help += c, ++p;
            else
                m_help += '\\';
        } else {
            m_help += *p;
        }
    }
    return m_help;
}

void Parser::commentLine(const char* p, const char* e) {
    const char* const hash = p;
    p = skipBlanks(p + 1, e);
    const char* w = p;
    p = tokenEnd(p, e);
    const std::string_view word(w, static_cast<std::size_t>(p - w));
    if (word == "EOF" && p == e) {
        if (m_om) {
            m_stats.sawEof = true;
            endScrape();
            m_afterEof = m_scope == Scope::Exposition;
        }
        return;
    }
    const bool help = word == "HELP", type = word == "TYPE";
    const bool unit = word == "UNIT" && (m_om || m_lenient);
    if (!help && !type && !unit) { // a plain comment
        if (m_om)
            warn({m_lineNo, m_lineStart, hash},
                 "a comment other than HELP, TYPE, UNIT or EOF: OpenMetrics allows none");
        return;
    }

    p = skipBlanks(p, e);
    std::string_view name;
    if (p < e && *p == '"') {
        if (!quotedString(p, e, name)) return;
    } else if (p < e && is(*p, kNameStart)) {
        const char* s = p++;
        while (p < e && is(*p, kNameChar))
            ++p;
        name = {s, static_cast<std::size_t>(p - s)};
    } else {
        return fail(p, "expected a metric name after " + std::string(word));
    }
    if (p < e && !isBlank(*p))
        return fail(p, "expected a blank after the metric name, got '" +
                           snippet(p, tokenEnd(p, e)) + "'");
    p = skipBlanks(p, e);

    if (help) {
        // After declare(): it may report the previous family's help.
        if (declare(name, Meta::Help)) m_pendingHelp = unescapeHelp(p, e);
    } else if (type) {
        const char* t = p;
        p = tokenEnd(p, e);
        const auto parsed = typeFromName({t, static_cast<std::size_t>(p - t)});
        if (!parsed)
            return fail(t, "expected a metric type (counter, gauge, histogram, summary, untyped, "
                           "unknown, gaugehistogram, "
                           "info or stateset), got '" +
                               snippet(t, p) + "'");
        if (skipBlanks(p, e) != e)
            return fail(skipBlanks(p, e), "expected end of line after the metric type");
        if (FamilyEntry* f = declare(name, Meta::Type)) f->second.type = *parsed;
    } else {
        // OpenMetrics: a family with a unit is named for it (foo_seconds has unit seconds).
        const char* u = p;
        p = tokenEnd(p, e);
        if (skipBlanks(p, e) != e)
            return fail(skipBlanks(p, e), "expected end of line after the unit");
        const std::string_view unitName(u, static_cast<std::size_t>(p - u));
        if (declare(name, Meta::Unit) && !unitName.empty() &&
            !(name.size() > unitName.size() && name.ends_with(unitName) &&
              name[name.size() - unitName.size() - 1] == '_'))
            warn({m_lineNo, m_lineStart, u},
                 "unit '" + snippet(u, p) + "' does not end the family's name '" +
                     snippet(name.data(), name.data() + name.size()) +
                     "'; OpenMetrics names a family with a unit <name>_<unit>");
    }
}

Parser::FamilyEntry* Parser::declare(std::string_view name, Meta meta) {
    auto it = m_families.find(name);
    if (it == m_families.end()) {
        // Samples of that name came before, with no metadata: in one exposition, too late.
        if (m_scope == Scope::Exposition &&
            (m_closedNames.contains(name) ||
             (m_anyCurrent && !m_current && m_currentName == name))) {
            warn({m_lineNo, m_lineStart, nullptr},
                 std::string(metaName(meta)) + " line for '" +
                     snippet(name.data(), name.data() + name.size()) +
                     "' after its samples; metadata must come first; ignored");
            return nullptr;
        }
        it = m_families.emplace(std::string(name), Family{}).first;
    } else {
        Family& f = it->second;
        const bool repeated = f.scrapeOf(meta) == m_scrapeNo;
        if (repeated || f.sampleScrape == m_scrapeNo) {
            // A second HELP/TYPE/UNIT for a family, or one after its samples: in a dump, the
            // next scrape; in one exposition, a breach of the format, and ignored.
            if (m_scope == Scope::Exposition) {
                const std::string what = std::string(metaName(meta)) + " line for '" +
                                         snippet(name.data(), name.data() + name.size()) + "'";
                warn({m_lineNo, m_lineStart, nullptr},
                     repeated
                         ? "a second " + what + " (the first is line " +
                               std::to_string(f.lineOf(meta)) + "); ignored"
                         : what + " after its samples (from line " + std::to_string(f.sampleLine) +
                               "); metadata must come first; ignored");
                return nullptr;
            }
            endScrape();
            m_content = true;
        }
    }
    m_lastUnknown = {}; // the new family, or its new type, may claim names seen before
    if (m_pending != &*it) {
        flushPending();
        m_pending = &*it;
        m_pendingHelp = {};
    }
    it->second.scrapeOf(meta) = m_scrapeNo;
    it->second.lineOf(meta) = m_lineNo;
    return &*it;
}

// The previous sample's family has ended: check what needs all of it, and say so when this
// family had samples before another's in this scrape.
void Parser::switchFamily(FamilyEntry* family, std::string_view name) {
    if (m_anyCurrent) {
        m_rules->endFamily();
        if (m_current)
            m_current->second.closedScrape = m_scrapeNo;
        else if (m_scope == Scope::Exposition)
            m_closedNames.emplace(m_currentName);
    }
    const std::string_view base = family ? std::string_view{} : baseName(name);
    const bool resumes = family ? family->second.closedScrape == m_scrapeNo
                                : m_scope == Scope::Exposition && m_closedNames.contains(base);
    if (resumes)
        warn({m_lineNo, m_lineStart, name.data()},
             "samples of '" + snippet(name.data(), name.data() + name.size()) +
                 "' resume here after another family's; a family's lines must be one group");
    m_current = family;
    m_currentName = base;
    m_anyCurrent = true;
}

Parser::FamilyEntry* Parser::resolve(std::string_view name) {
    auto matches = [name](const FamilyEntry& f) {
        return name.starts_with(f.first) &&
               acceptsSuffix(f.second.type, name.substr(f.first.size()));
    };
    if (m_last && matches(*m_last)) return m_last;
    if (!m_lastUnknown.empty() && name == m_lastUnknown) return nullptr;

    const auto exact = m_families.find(name);
    if (exact != m_families.end() && acceptsSuffix(exact->second.type, {})) return m_last = &*exact;
    for (std::string_view suffix : kSuffixes) {
        if (name.size() <= suffix.size() || !name.ends_with(suffix)) continue;
        const auto it = m_families.find(name.substr(0, name.size() - suffix.size()));
        if (it != m_families.end() && acceptsSuffix(it->second.type, suffix)) return m_last = &*it;
    }
    if (exact != m_families.end()) return m_last = &*exact;
    // Only names that live in the text: a view into the scratch buffer changes under us.
    const std::less<> before;
    if (!before(name.data(), m_text.data()) && before(name.data(), m_text.data() + m_text.size()))
        m_lastUnknown = name;
    return nullptr;
}

void Parser::flushPending() {
    if (!m_pending) return;
    FamilyEntry* f = std::exchange(m_pending, nullptr);
    ++m_stats.families;
    m_sink.family(f->first, f->second.type, std::exchange(m_pendingHelp, {}));
}

void Parser::endScrape() {
    flushPending();
    if (m_anyCurrent) m_rules->endFamily();
    m_rules->endScrape();
    m_current = nullptr;
    m_currentName.clear();
    m_anyCurrent = false;
    m_closedNames.clear();
    if (m_content) {
        ++m_stats.scrapes;
        m_sink.endScrape();
    }
    ++m_scrapeNo;
    m_content = false;
}

void Parser::fail(const char* at, std::string message) {
    std::string_view text(m_lineStart, static_cast<std::size_t>(m_lineEnd - m_lineStart));
    report(m_lineNo, columnOf(m_lineStart, at), std::move(message), text);
}

void Parser::warn(const detail::Place& where, std::string message) {
    ++m_stats.warnings;
    m_sink.warning(finding(where.line, columnOf(where.lineStart, where.at), std::move(message),
                           lineText(where.lineStart)));
}

// The line that starts at `start` (in the text), without its line end and trailing blanks.
std::string_view Parser::lineText(const char* start) const {
    if (!start) return {};
    const char* const end = m_text.data() + m_text.size();
    const auto* nl =
        static_cast<const char*>(std::memchr(start, '\n', static_cast<std::size_t>(end - start)));
    const char* e = nl ? nl : end;
    while (e > start && (isBlank(e[-1]) || e[-1] == '\r'))
        --e;
    return {start, static_cast<std::size_t>(e - start)};
}

// 1-based byte column of `at` in the line that starts at lineStart; 1 when `at` is not in the
// text (an unescaped string lives in the scratch buffer).
int Parser::columnOf(const char* lineStart, const char* at) const {
    const std::less<> before;
    if (!lineStart || !at || before(at, lineStart) || before(m_text.data() + m_text.size(), at))
        return 1;
    return static_cast<int>(std::min<std::ptrdiff_t>(at - lineStart + 1, INT_MAX));
}

ParseError Parser::finding(std::uint64_t line, int column, std::string message,
                           std::string_view text) const {
    if (text.size() > kErrorTextLimit) {
        std::size_t cut = kErrorTextLimit;
        // Do not split a UTF-8 sequence: back up over continuation bytes.
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
            --cut;
        text = text.substr(0, cut);
    }
    return ParseError{static_cast<int>(std::min<std::uint64_t>(line, INT_MAX)), column,
                      std::move(message), std::string(text)};
}

void Parser::report(std::uint64_t line, int column, std::string message, std::string_view text) {
    ++m_stats.errors;
    m_sink.error(finding(line, column, std::move(message), text));
}

} // namespace

std::string_view metricTypeName(MetricType type) {
    switch (type) {
    case MetricType::Unknown:
        return "unknown";
    case MetricType::Counter:
        return "counter";
    case MetricType::Gauge:
        return "gauge";
    case MetricType::Histogram:
        return "histogram";
    case MetricType::Summary:
        return "summary";
    case MetricType::GaugeHistogram:
        return "gaugehistogram";
    case MetricType::Info:
        return "info";
    case MetricType::StateSet:
        return "stateset";
    case MetricType::Untyped:
        return "untyped";
    }
    return "unknown";
}

namespace detail {
bool parseNumber(const char* s, const char* e, double& out) {
    return readNumber(s, e, out);
}
} // namespace detail

ParseStats parse(std::string_view text, SampleSink& sink, Format format, Scope scope) {
    Parser parser(text, sink, format, scope);
    try {
        return parser.run();
    } catch (const std::exception& ex) {
        parser.abort(ex.what());
    } catch (...) {
        parser.abort("unknown exception");
    }
    return parser.stats();
}

} // namespace ft::importers::prom
