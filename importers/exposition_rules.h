#pragma once
// What the Prometheus 0.0.4 text format and OpenMetrics 1.0 say a sample's value, labels and
// exemplar must be, checked on each sample the exposition parser (prometheus_text.cpp) is about
// to deliver, and what they say a histogram or summary must be as a whole, checked when its
// family's samples end. The parser keeps the syntax and the metadata rules; this keeps the
// meaning. A rule whose breach makes the sample unusable (a negative counter would read as a
// reset and a rate spike) refuses it: the parser reports a bad line. One whose breach leaves
// the sample usable as written gives a warning and the sample is delivered.
// Internal to the parser: not part of the prometheus_text.h interface.
#include "prometheus_text.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ft::importers::prom::detail {

// The parser's number reader (Go's ParseFloat spellings, NaN and Inf).
bool parseNumber(const char* s, const char* e, double& out);

// A place in the text: the line's number and first byte, and the byte a finding is about
// (null or outside the line: the line as a whole).
struct Place {
    std::uint64_t line = 0;
    const char* lineStart = nullptr;
    const char* at = nullptr;
};

// Where the rules' warnings go (the parser, which counts them and hands them to the sink).
class Findings {
public:
    virtual void warn(const Place& where, std::string message) = 0;

protected:
    ~Findings() = default;
};

struct Refusal {
    const char* at = nullptr; // in the current line
    std::string message;
};

class ExpositionRules {
public:
    // dump: a file of scrapes whose boundaries may not show; there a series repeats unnoticed
    // unless it repeats a timestamp too.
    ExpositionRules(Findings& findings, bool openMetrics, bool dump)
        : m_findings(findings), m_om(openMetrics), m_dump(dump) {}

    // Before sample s of the line at `where` is delivered; valueAt and exemplarAt point at its
    // value and its exemplar's '#'. s.exemplar is cleared when the exemplar may not be kept.
    std::optional<Refusal> check(Sample& s, const Place& where, const char* valueAt,
                                 const char* exemplarAt);
    // The current family's samples have ended (another family's began, or the scrape ended):
    // the rules that need all of a histogram's or summary's samples.
    void endFamily();
    // The scrape has ended: its series may come again in the next one.
    void endScrape();

private:
    // One histogram's or summary's samples that share their labels other than le/quantile.
    struct Group {
        Place first;           // its first bucket or quantile
        Place count, sum, inf; // where _count/_gcount, _sum/_gsum and le="+Inf" are
        double bound = 0;      // the last le or quantile
        double bucket = 0;     // the last bucket's count
        double countValue = 0, sumValue = 0, infValue = 0;
        bool anyBound = false, negativeBound = false;
        bool hasCount = false, hasSum = false, hasInf = false;
    };

    std::optional<Refusal> counter(const Sample& s, std::string_view suffix, const char* valueAt);
    std::optional<Refusal> histogram(const Sample& s, std::string_view suffix, const Place& where,
                                     const char* valueAt);
    std::optional<Refusal> summary(const Sample& s, std::string_view suffix, const Place& where,
                                   const char* valueAt);
    void exemplar(Sample& s, std::string_view suffix, const Place& where, const char* at);
    Group& group(const Sample& s, std::string_view except);
    void onceForFamily(const Place& where, std::string message);
    void warn(const Place& where, const char* at, std::string message);

    Findings& m_findings;
    bool m_om;
    bool m_dump;
    std::string m_family; // the family whose samples come now, for the messages of endFamily()
    MetricType m_type = MetricType::Unknown;
    bool m_familyWarned = false;
    std::unordered_map<std::uint64_t, Group> m_groups;

    // The series of the family's block (as written: name and label set; and the timestamp) by a
    // 64-bit key, with the line each was first on: open addressing over arrays reused block
    // after block (a slot counts only if its generation is the block's), so nothing is
    // allocated per sample once grown. Two different series with one key (odds 2^-64 a pair)
    // would read as a repeat.
    std::uint64_t firstLineOf(const Sample& s, const Place& where,
                              const char* valueAt); // 0: the series is new
    struct SeriesSlot {
        std::uint64_t key = 0;
        std::uint32_t line = 0; // clamped (a line past 4 G says 4 G)
        std::uint32_t generation = 0;
    };
    std::vector<SeriesSlot> m_series; // one cache line holds four: one miss a probe
    std::uint32_t m_generation = 1;
    std::size_t m_seriesCount = 0;
    std::uint32_t m_countedGeneration = 0; // the generation m_seriesCount counts
};

} // namespace ft::importers::prom::detail
