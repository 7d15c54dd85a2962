// The comment lines of a Prometheus or OpenMetrics text (HELP, TYPE, UNIT, EOF), which family
// each sample belongs to and when a family's group of lines ends, and how the parser's findings
// reach the sink (with their line, column and the line's text).
#include "prometheus_parser.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <string>
#include <utility>

namespace ft::importers::prom::detail {
namespace {

constexpr std::size_t kErrorTextLimit = 200;

} // namespace

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
            separator(hash + 1, w);
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
    separator(hash + 1, w);

    const char* gap = p;
    p = skipBlanks(p, e);
    separator(gap, p);
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
    if (m_om && !type && p == e) {
        // `# HELP name ` and `# UNIT name ` (one space) say "none"; with no space the line
        // lacks its last token.
        if (m_rawEnd - p == 1 && *p == ' ')
            m_rawEnd = e;
        else if (m_rawEnd == e)
            note(e, help ? "expected ' ' and the help text after the name (OpenMetrics writes "
                           "an empty one '# HELP name ')"
                         : "expected ' ' and the unit after the name (OpenMetrics writes an "
                           "empty one '# UNIT name ')");
    }
    if (help && m_om) {
        // The text is everything after one space, blanks included.
        if (p < e && *p != ' ') separator(p, p + 1);
        m_rawEnd = e;
    }
    gap = p;
    p = skipBlanks(p, e);
    if (type || (unit && p < e)) separator(gap, p);

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
        if (FamilyEntry* f = declare(name, Meta::Type)) typeLine(*f, *parsed, t);
    } else {
        const char* u = p;
        p = tokenEnd(p, e);
        if (skipBlanks(p, e) != e)
            return fail(skipBlanks(p, e), "expected end of line after the unit");
        if (FamilyEntry* f = declare(name, Meta::Unit)) unitLine(*f, name, u, p);
    }
}

void Parser::typeLine(FamilyEntry& family, MetricType type, const char* at) {
    Family& f = family.second;
    f.type = type;
    const std::string_view word = metricTypeName(type);
    if (m_om && type == MetricType::Untyped)
        warn({m_lineNo, m_lineStart, at},
             "type 'untyped' is 0.0.4's: OpenMetrics calls it 'unknown'");
    // Auto that settled on 0.0.4 takes OpenMetrics' forms on purpose (a cut OpenMetrics text).
    if (m_format == Format::Text004 &&
        (type == MetricType::Unknown || type == MetricType::GaugeHistogram ||
         type == MetricType::Info || type == MetricType::StateSet))
        warn({m_lineNo, m_lineStart, at},
             "type '" + std::string(word) +
                 "' is OpenMetrics'; 0.0.4 has counter, gauge, histogram, summary and untyped");
    if (!m_om) return;
    if ((type == MetricType::Info || type == MetricType::StateSet) && f.unitScrape == m_scrapeNo &&
        f.hasUnit)
        warn({m_lineNo, m_lineStart, at},
             "an " + std::string(word) + " family has no unit, but UNIT line " +
                 std::to_string(f.unitLine) + " gives one (OpenMetrics)");
    clashWithSamples(family);
}

// OpenMetrics: a family with a unit is named for it (foo_seconds has unit seconds).
void Parser::unitLine(FamilyEntry& family, std::string_view name, const char* u, const char* end) {
    const std::string_view unitName(u, static_cast<std::size_t>(end - u));
    Family& f = family.second;
    f.hasUnit = !unitName.empty();
    if (unitName.empty()) return;
    if (std::find_if(u, end, [](char c) { return !is(c, kNameChar); }) != end)
        warn({m_lineNo, m_lineStart, u},
             "unit '" + snippet(u, end) +
                 "' has characters a metric name has not; OpenMetrics allows only those");
    if (!(name.size() > unitName.size() && name.ends_with(unitName) &&
          name[name.size() - unitName.size() - 1] == '_'))
        warn({m_lineNo, m_lineStart, u},
             "unit '" + snippet(u, end) + "' does not end the family's name '" +
                 snippet(name.data(), name.data() + name.size()) +
                 "'; OpenMetrics names a family with a unit <name>_<unit>");
    if (f.typeScrape == m_scrapeNo &&
        (f.type == MetricType::Info || f.type == MetricType::StateSet))
        warn({m_lineNo, m_lineStart, u},
             "an " + std::string(metricTypeName(f.type)) +
                 " family has no unit (OpenMetrics); this one is given '" + snippet(u, end) + "'");
}

// OpenMetrics, for a family's name the first time the scrape has it: names beginning with '_'
// are reserved, and no family may be named like another's samples (foo_total beside counter
// foo, foo_created beside it, ...).
void Parser::newFamilyName(std::string_view name) {
    if (!m_om) return;
    const std::string quoted = "'" + snippet(name.data(), name.data() + name.size()) + "'";
    if (name.starts_with('_'))
        warn({m_lineNo, m_lineStart, nullptr},
             "family name " + quoted + " begins with '_': OpenMetrics reserves such names");
    for (std::string_view suffix : kSuffixes) {
        if (name.size() <= suffix.size() || !name.ends_with(suffix)) continue;
        const std::string_view base = name.substr(0, name.size() - suffix.size());
        const auto it = m_families.find(base);
        if (it != m_families.end() && it->second.inScrape(m_scrapeNo) &&
            acceptsSuffix(it->second.type, suffix)) {
            warn({m_lineNo, m_lineStart, nullptr},
                 "family name " + quoted + " clashes with the samples of " +
                     std::string(metricTypeName(it->second.type)) + " '" +
                     snippet(base.data(), base.data() + base.size()) +
                     "'; OpenMetrics wants no name one family's samples could take");
            return;
        }
    }
}

// OpenMetrics, once a family's type is known: none of the names its samples take may be
// another family's in this scrape.
void Parser::clashWithSamples(const FamilyEntry& family) {
    for (std::string_view suffix : kSuffixes) {
        if (!acceptsSuffix(family.second.type, suffix)) continue;
        m_nameBuffer.assign(family.first).append(suffix);
        if (!nameInScrape(m_nameBuffer)) continue;
        warn({m_lineNo, m_lineStart, nullptr},
             std::string(metricTypeName(family.second.type)) + " '" +
                 snippet(family.first.data(), family.first.data() + family.first.size()) +
                 "' has samples named '" +
                 snippet(m_nameBuffer.data(), m_nameBuffer.data() + m_nameBuffer.size()) +
                 "', the name of another family in this scrape; OpenMetrics wants no such clash");
        return;
    }
}

// Whether a family of that name (declared, or with samples and no metadata) is in this scrape.
bool Parser::nameInScrape(std::string_view name) const {
    const auto it = m_families.find(name);
    if (it != m_families.end() && it->second.inScrape(m_scrapeNo)) return true;
    return m_closedNames.contains(name) || (m_anyCurrent && !m_current && m_currentName == name);
}

Parser::FamilyEntry* Parser::declare(std::string_view name, Meta meta) {
    auto it = m_families.find(name);
    if (it == m_families.end()) {
        // Samples of that name came before, with no metadata: in one exposition, too late.
        if (oneExposition() && (m_closedNames.contains(name) ||
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
            if (oneExposition()) {
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
    if (!it->second.inScrape(m_scrapeNo)) newFamilyName(name);
    // The new family, or its new type, may claim names seen before (a_total, once a family
    // named so is declared, is no longer counter a's).
    m_lastUnknown = {};
    m_last = nullptr;
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
        else if (oneExposition())
            m_closedNames.emplace(m_currentName);
    }
    const std::string_view base = family ? std::string_view{} : baseName(name);
    const bool resumes = family ? family->second.closedScrape == m_scrapeNo
                                : oneExposition() && m_closedNames.contains(base);
    if (!family && !resumes && m_om && base.starts_with('_'))
        warn({m_lineNo, m_lineStart, name.data()},
             "family name '" + snippet(base.data(), base.data() + base.size()) +
                 "' begins with '_': OpenMetrics reserves such names");
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

} // namespace ft::importers::prom::detail
