#pragma once
// What the Prometheus 0.0.4 text format and OpenMetrics 1.0 say a sample's value, labels and
// exemplar must be, checked on each sample the exposition parser (prometheus_text.cpp) is about
// to deliver, and what they say a histogram or summary must be as a whole, checked when its
// MetricPoint or its family's samples end; in OpenMetrics, also that a family's Metrics come
// one after the other and their timestamps do not go back. The parser keeps the syntax and the
// metadata rules; this keeps the meaning. A rule whose breach makes the sample unusable (a negative
// counter would read as a reset and a rate spike) refuses it: the parser reports a bad line. One
// whose breach leaves the sample usable as written gives a warning and the sample is delivered.
// Internal to the parser: not part of the prometheus_text.h interface.
#include "prometheus_text.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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

// uint64 key -> uint32 value by open addressing over arrays reused from one block to the next
// (a slot counts only if its generation is the table's), so clear() is O(1) and nothing is
// allocated once the table has grown to the largest block.
class KeyTable {
public:
    // The value stored for key; when there was none, `fresh` is set and the value is 0.
    std::uint32_t& at(std::uint64_t key, bool& fresh);
    void clear();

private:
    struct Slot {
        std::uint64_t key = 0;
        std::uint32_t value = 0;
        std::uint32_t generation = 0;
    };
    std::vector<Slot> m_slots; // one cache line holds four: one miss a probe
    std::uint32_t m_generation = 1;
    std::size_t m_count = 0;
};

class ExpositionRules {
public:
    // dump: a file of scrapes. In 0.0.4 their boundaries may not show, so a series repeats
    // unnoticed unless it repeats a timestamp too. Read for its data, a dump skips the
    // family-wide tables that catch a series or an OpenMetrics Metric coming back after
    // others (a cache miss a sample on a whole floor); what one Metric shows is still checked.
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
    // What one histogram's or summary's Metric (its samples that share their labels other
    // than le or quantile) has shown so far of its current MetricPoint (its samples at one
    // timestamp).
    struct Group {
        Place first;           // its first bucket or quantile
        Place start;           // its first sample of the family's own kinds
        Place count, sum, inf; // where _count/_gcount, _sum/_gsum and le="+Inf" are
        double bound = 0;      // the last le or quantile
        double bucket = 0;     // the last bucket's count
        double countValue = 0, sumValue = 0, infValue = 0;
        bool member = false; // a bucket, _count, _sum or _created of a histogram came
        bool anyBound = false, negativeBound = false;
        bool hasCount = false, hasSum = false, hasInf = false;
    };

    std::optional<Refusal> counter(const Sample& s, std::string_view suffix, const char* valueAt);
    std::optional<Refusal> histogram(const Sample& s, std::string_view suffix, const Place& where,
                                     const char* valueAt);
    std::optional<Refusal> summary(const Sample& s, std::string_view suffix, const Place& where,
                                   const char* valueAt);
    void exemplar(Sample& s, std::string_view suffix, const Place& where, const char* at);
    // The sample's Metric: made current (looked up in the family's table only when it is not
    // the previous sample's); its Group when it keeps one. Returns the sample's series key
    // within the Metric (name and le/quantile/state).
    std::uint64_t enterMetric(const Sample& s, const Place& where, const char* valueAt,
                              bool keepsGroup);
    // The current Metric's MetricPoint has ended (another timestamp began): check it.
    void endPoint();
    void histogramPoint(const Group& g);
    void onceForFamily(const Place& where, std::string message);
    void warn(const Place& where, const char* at, std::string message);

    Findings& m_findings;
    bool m_om;
    bool m_dump;
    std::string m_family; // the family whose samples come now, for the messages of endFamily()
    MetricType m_type = MetricType::Unknown;
    bool m_familyWarned = false;

    // The family's Metrics, by a key of their labels: for each, 1 + its index in m_groups
    // (histograms and summaries), else 0. Looked up when the Metric changes, which in
    // OpenMetrics must be to one not seen before in the family (not in a dump but for
    // histograms and summaries, which need their groups anyway).
    KeyTable m_metrics;
    std::vector<Group> m_groups; // reused family after family
    bool m_inMetric = false;     // a sample of the family came: the m_metric* below hold
    std::uint64_t m_metricKey = 0;
    std::string_view m_metricWritten; // its labels as written, in the text (null: hashed)
    Group* m_group = nullptr;         // the current Metric's, when it keeps one
    std::optional<std::int64_t> m_metricTimestamp; // its last sample's
    std::uint64_t m_metricSamples = 0;             // its samples without a timestamp so far
    std::uint64_t m_firstSeries = 0;               // the first one's series key, and line
    std::uint64_t m_firstSeriesLine = 0;
    // OpenMetrics: the line of an earlier sample of this series in the current Metric, or 0
    // (the table is filled from the Metric's second sample on: most have one).
    std::uint64_t repeatInMetric(std::uint64_t series, const Place& where);

    // The series seen, by a 64-bit key, with the line each was first on: in 0.0.4 the
    // family's block's (as written: name and label set; and the timestamp); in OpenMetrics
    // the current Metric's (a series again in another block of the Metric is its Metric
    // resuming). Two different series with one key (odds 2^-64 a pair) would read as a repeat.
    std::uint64_t firstLineOf(const Sample& s, const Place& where,
                              const char* valueAt); // 0: the series is new
    std::uint64_t firstLineOf(std::uint64_t key, const Place& where);
    KeyTable m_series;
};

} // namespace ft::importers::prom::detail
