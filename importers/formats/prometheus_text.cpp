// The sample lines of a Prometheus or OpenMetrics text (name, label set, value, timestamp,
// exemplar), the parser's pass over the text a line at a time, and prom::parse() around it.
#include "prometheus_text.h"

#include "prometheus_parser.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <exception>
#include <string>
#include <utility>

namespace ft::importers::prom {
namespace detail {
namespace {

constexpr const char* kHexNumber = "a hexadecimal number: OpenMetrics numbers are decimal";

} // namespace

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
    } else if (m_blanksAfterEof > 0) {
        warn(m_firstBlankAfterEof, "a blank line after '# EOF': an OpenMetrics exposition ends "
                                   "there");
    }
    // An OpenMetrics text ends with `# EOF`, an empty one too ("# EOF" without a line feed is
    // fine). In a dump, blank lines after the last scrape's are no scrape of their own.
    if (m_om && (m_content || !m_stats.sawEof))
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
        if (p != e) {
            if (m_linesAfterEof++ == 0) m_firstAfterEof = {m_lineNo, begin, p};
        } else if (m_blanksAfterEof++ == 0) {
            m_firstBlankAfterEof = {m_lineNo, begin, begin};
        }
        return;
    }
    if (p == e) {
        // Between one scrape's `# EOF` and the next, a dump may have them.
        if (m_om && (m_content || m_scope == Scope::Exposition || !m_stats.sawEof))
            warn({m_lineNo, begin, begin}, "blank line: OpenMetrics allows none");
        return;
    }
    m_lineStart = begin;
    m_lineEnd = e;
    m_content = true;
    m_scratchReady = false;
    if (m_om) return openMetricsLine(begin, end, p, e);
    if (*p == '#')
        commentLine(p, e);
    else
        sampleLine(p, e);
}

// A line of OpenMetrics text: [begin, end) as it came, [p, e) without the blanks around it.
// Its layout's first breach is noted while it is read and said once it is.
void Parser::openMetricsLine(const char* begin, const char* end, const char* p, const char* e) {
    m_noteAt = nullptr;
    m_rawEnd = end;
    if (end > begin && end[-1] == '\r') {
        --m_rawEnd;
        if (!std::exchange(m_crSaid, true))
            warn({m_lineNo, begin, end - 1},
                 "a carriage return ends the line: OpenMetrics lines end with a line feed alone "
                 "(said once for the text)");
    }
    if (p != begin) note(begin, "a blank at the start of the line: OpenMetrics allows none");
    const std::uint64_t errors = m_stats.errors;
    if (*p == '#')
        commentLine(p, e);
    else
        sampleLine(p, e);
    // commentLine() moves m_rawEnd to e where the blanks are part of the line (an empty HELP).
    if (e < m_rawEnd) note(e, "a blank at the end of the line: OpenMetrics allows none");
    if (m_noteAt && m_stats.errors == errors) warn({m_lineNo, begin, m_noteAt}, m_note);
}

void Parser::sampleLine(const char* p, const char* e) {
    m_labels.clear();
    const char* const seriesBegin = p;
    std::string_view name;
    if (is(*p, kNameStart)) {
        const char* s = p++;
        while (p < e && is(*p, kNameChar))
            ++p;
        name = {s, static_cast<std::size_t>(p - s)};
    } else if (*p != '{') {
        return fail(p, "expected a metric name, got '" + snippet(p, tokenEnd(p, e)) + "'");
    }
    const char* gap = p;
    p = skipBlanks(p, e);
    const bool braces = p < e && *p == '{';
    if (braces) {
        adjacent(gap, p);
        const char* open = p;
        if (!labelSet(p, e, m_labels, name.empty() ? &name : nullptr)) return;
        if (name.empty())
            return fail(open, "expected a metric name before '{' or quoted first inside it");
        gap = p;
        p = skipBlanks(p, e);
    }
    if (p == e)
        return fail(p, braces ? "expected a sample value after the label set"
                              : "expected a sample value after the metric name");
    separator(gap, p);
    const std::string_view series(seriesBegin, static_cast<std::size_t>(gap - seriesBegin));
    const char* valueStart = p;
    p = tokenEnd(p, e);
    double value = 0;
    if (!parseNumber(valueStart, p, value))
        return fail(valueStart, "expected a sample value (a number, NaN, +Inf or -Inf), got '" +
                                    snippet(valueStart, p) + "'");
    if (m_om && isHexNumber(valueStart, p)) note(valueStart, kHexNumber);
    gap = p;
    p = skipBlanks(p, e);

    std::optional<std::int64_t> ts;
    if (p < e && *p != '#') {
        separator(gap, p);
        const char* t = p;
        p = tokenEnd(p, e);
        std::int64_t ns = 0;
        if (!timestamp(t, p, ns)) {
            return fail(t, std::string(m_om ? "expected a timestamp in seconds"
                                            : "expected a timestamp in integer milliseconds") +
                               " or end of line, got '" + snippet(t, p) + "'");
        }
        if (m_om && isHexNumber(t, p)) note(t, kHexNumber);
        ts = ns;
        gap = p;
        p = skipBlanks(p, e);
    }
    bool hasExemplar = false;
    const char* exemplarAt = p;
    if (p < e) {
        if (*p != '#' || !(m_om || m_lenient))
            return fail(p, std::string("expected end of line after the ") +
                               (ts ? "timestamp" : "value") + ", got '" +
                               snippet(p, tokenEnd(p, e)) + "'");
        separator(gap, p);
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
    s.series = series;
    s.value = value;
    s.timestampNs = ts;
    s.line = static_cast<int>(std::min<std::uint64_t>(m_lineNo, INT_MAX));
    s.exemplar = hasExemplar ? &m_exemplar : nullptr;
    if (auto refusal = m_rules->check(s, {m_lineNo, m_lineStart, nullptr}, valueStart, exemplarAt))
        return fail(refusal->at, std::move(refusal->message));
    ++m_stats.samples;
    m_sink.sample(s);
}

// ` # {labels} value [timestamp]`, p at the '#'.
bool Parser::exemplar(const char* p, const char* e) {
    const char* gap = p + 1;
    p = skipBlanks(gap, e);
    if (p == e || *p != '{') return reject(p, "expected '{' to start the exemplar's label set");
    separator(gap, p);
    m_exemplarLabels.clear();
    if (!labelSet(p, e, m_exemplarLabels, nullptr)) return false;
    gap = p;
    p = skipBlanks(p, e);
    if (p == e) return reject(p, "expected the exemplar's value after its label set");
    separator(gap, p);
    const char* v = p;
    p = tokenEnd(p, e);
    if (!parseNumber(v, p, m_exemplar.value))
        return reject(v, "expected the exemplar's value (a number), got '" + snippet(v, p) + "'");
    if (m_om && isHexNumber(v, p)) note(v, kHexNumber);
    gap = p;
    p = skipBlanks(p, e);
    m_exemplar.timestampNs.reset();
    if (p < e) {
        separator(gap, p);
        const char* t = p;
        p = tokenEnd(p, e);
        std::int64_t ns = 0;
        if (!parseSeconds(t, p, ns))
            return reject(t, "expected the exemplar's timestamp in seconds, got '" + snippet(t, p) +
                                 "'");
        if (m_om && isHexNumber(t, p)) note(t, kHexNumber);
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

// `{` name="value", ... `}` with an optional trailing comma (0.0.4; OpenMetrics allows none,
// nor blanks). When quotedName is given, a quoted string first in the braces that is not
// followed by `=` is the (UTF-8) metric name.
bool Parser::labelSet(const char*& p, const char* e, std::vector<Label>& out,
                      std::string_view* quotedName) {
    return m_om ? labelSetOf<true>(p, e, out, quotedName)
                : labelSetOf<false>(p, e, out, quotedName);
}

// The OpenMetrics checks compiled in or out: 0.0.4 text pays nothing for them.
template <bool kOpenMetrics>
bool Parser::labelSetOf(const char*& p, const char* e, std::vector<Label>& out,
                        std::string_view* quotedName) {
    // Past blanks; OpenMetrics has none inside a label set, so there they are noted.
    const auto blanks = [&](const char* q) {
        if constexpr (kOpenMetrics)
            if (q < e && isBlank(*q)) note(q, "a blank where OpenMetrics allows none");
        return skipBlanks(q, e);
    };
    const char* comma = nullptr; // the last one
    ++p;
    for (bool first = true;; first = false) {
        p = blanks(p);
        if (p == e) return reject(p, "expected a label name or '}'");
        if (*p == '}') {
            if (kOpenMetrics && !first) note(comma, "a comma before '}': OpenMetrics allows none");
            ++p;
            return true;
        }
        std::string_view name;
        const bool quoted = *p == '"';
        if (quoted) {
            if (!quotedString(p, e, name)) return false;
        } else if (is(*p, kLabelStart)) {
            const char* s = p++;
            while (p < e && is(*p, kLabelChar))
                ++p;
            name = {s, static_cast<std::size_t>(p - s)};
            if (kOpenMetrics && *s == '_')
                note(s, "a label name beginning with '_': OpenMetrics reserves those");
        } else {
            return reject(p,
                          "expected a label name or '}', got '" + snippet(p, tokenEnd(p, e)) + "'");
        }
        p = blanks(p);
        if (p < e && *p == '=') {
            p = blanks(p + 1);
            if (p == e || *p != '"')
                return reject(p, "expected '\"' to start the value of label '" +
                                     snippet(name.data(), name.data() + name.size()) + "'");
            std::string_view value;
            if (!quotedString(p, e, value)) return false;
            out.push_back({name, value});
        } else if (quotedName && first && quoted) {
            *quotedName = name;
        } else if (p < e && *p == ':' && !quoted) {
            return reject(p, "a label name has no ':' (only a metric name may)");
        } else {
            return reject(p, "expected '=' after label name '" +
                                 snippet(name.data(), name.data() + name.size()) + "'");
        }
        p = blanks(p);
        if (p < e && *p == ',') {
            comma = p++;
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

} // namespace detail

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
ParseStats parse(std::string_view text, SampleSink& sink, Format format, Scope scope) {
    detail::Parser parser(text, sink, format, scope);
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
