#pragma once
// The Prometheus text parser behind prom::parse(): one pass over the text, a line at a time.
// prometheus_text.cpp reads the sample lines (names, label sets, values, timestamps,
// exemplars); prometheus_metadata.cpp the comment lines (HELP, TYPE, UNIT, EOF), which family
// each sample belongs to, and how findings are reported. The rules both formats set on what the
// lines say are in exposition_rules.cpp. One Parser per parse() call, on the caller's thread;
// nothing is allocated per sample (views into the text or into reused buffers).
#include "exposition_rules.h"
#include "prometheus_lexing.h"
#include "prometheus_text.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace ft::importers::prom::detail {

enum class Meta : std::uint8_t { Help, Type, Unit };

struct Family {
    MetricType type = MetricType::Unknown;
    // Scrape numbers (from 1) in which the family last had a HELP, a TYPE, a UNIT, a sample;
    // 0 = never. Then the lines of those in that scrape.
    std::uint64_t helpScrape = 0, typeScrape = 0, unitScrape = 0, sampleScrape = 0;
    std::uint64_t helpLine = 0, typeLine = 0, unitLine = 0, sampleLine = 0;
    // The scrape in which its group of samples ended: another family's samples came after.
    std::uint64_t closedScrape = 0;
    bool hasUnit = false; // its last UNIT line named one (OpenMetrics)

    bool inScrape(std::uint64_t scrape) const {
        return helpScrape == scrape || typeScrape == scrape || unitScrape == scrape ||
               sampleScrape == scrape;
    }

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
    void openMetricsLine(const char* begin, const char* end, const char* p, const char* e);
    void sampleLine(const char* p, const char* e);
    void commentLine(const char* p, const char* e);
    bool labelSet(const char*& p, const char* e, std::vector<Label>& out,
                  std::string_view* quotedName);
    template <bool kOpenMetrics>
    bool labelSetOf(const char*& p, const char* e, std::vector<Label>& out,
                    std::string_view* quotedName);
    bool quotedString(const char*& p, const char* e, std::string_view& out);
    bool exemplar(const char* p, const char* e);
    bool timestamp(const char* s, const char* e, std::int64_t& ns) const;
    std::string_view unescapeHelp(const char* p, const char* e);
    char* scratch();

    FamilyEntry* resolve(std::string_view name);
    FamilyEntry* declare(std::string_view name, Meta meta);
    void typeLine(FamilyEntry& family, MetricType type, const char* at);
    void unitLine(FamilyEntry& family, std::string_view name, const char* u, const char* end);
    void newFamilyName(std::string_view name);
    void clashWithSamples(const FamilyEntry& family);
    bool nameInScrape(std::string_view name) const;
    void switchFamily(FamilyEntry* family, std::string_view name);
    // One text that is one exposition a scrape: an exposition, or OpenMetrics (whose scrapes
    // end with `# EOF`). Only a 0.0.4 dump starts a new scrape at a repeated HELP or TYPE.
    bool oneExposition() const { return m_scope == Scope::Exposition || m_om; }
    // OpenMetrics' layout (one space between tokens, none elsewhere, no trailing comma, ...):
    // the line's first breach, reported as a warning once the line is read.
    void note(const char* at, const char* what) {
        if (!m_noteAt) {
            m_noteAt = at;
            m_note = what;
        }
    }
    // [from, to) separates two tokens: OpenMetrics wants exactly one space.
    void separator(const char* from, const char* to) {
        if (m_om && (to - from != 1 || *from != ' '))
            note(from, "expected exactly one space here (OpenMetrics)");
    }
    // [from, to) lies where OpenMetrics allows no blank.
    void adjacent(const char* from, const char* to) {
        if (m_om && to != from) note(from, "a blank where OpenMetrics allows none");
    }
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
    const char* m_rawEnd = nullptr; // the line's end before its blanks are trimmed (less a CR)
    std::uint64_t m_lineNo = 0;
    const char* m_noteAt = nullptr; // see note()
    const char* m_note = nullptr;
    bool m_crSaid = false;
    std::string m_nameBuffer; // a family's name and a suffix, for clashWithSamples()

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
    // Names with no metadata whose samples ended in this scrape (oneExposition() only).
    std::unordered_set<std::string, NameHash, std::equal_to<>> m_closedNames;

    // Scope::Exposition after `# EOF`: the lines that came after, and where the first was;
    // the blank ones apart.
    bool m_afterEof = false;
    std::uint64_t m_linesAfterEof = 0, m_blanksAfterEof = 0;
    detail::Place m_firstAfterEof, m_firstBlankAfterEof;
};

} // namespace ft::importers::prom::detail
