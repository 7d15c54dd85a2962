#pragma once
// Prometheus text exposition (version 0.0.4) and OpenMetrics 1.0 text -> a stream of samples
// handed to a SampleSink, one pass over the text. Built for whole-floor scrapes (a 128k-GPU
// dcgm-exporter dump is a quarter of a gigabyte), so nothing is allocated per sample: the views
// in a Sample point into the text or into the parser's reused buffers and are valid only during
// the callback. A bad line goes to SampleSink::error() with its line, column and what was
// expected, and is skipped; every other line still yields its sample. What breaks one of the
// two specifications' rules but leaves the sample usable as written (buckets out of order, a
// missing `+Inf` bucket, metadata after the samples, an exemplar where none is allowed) goes
// to SampleSink::warning() the same way, and the sample is delivered; a sample the rules make
// unusable (a negative or NaN counter, a bucket without `le`) is a bad line. The rules are in
// exposition_rules.cpp; every one is tested. parse() never throws.
// Pure C++ (no Qt); reentrant; the sink is called on the caller's thread.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ft::importers::prom {

struct Label {
    std::string_view name;
    std::string_view value; // already unescaped
};

// Unknown: no TYPE line, or OpenMetrics' explicit "unknown"; Untyped: 0.0.4's explicit "untyped".
enum class MetricType : std::uint8_t {
    Unknown,
    Counter,
    Gauge,
    Histogram,
    Summary,
    GaugeHistogram,
    Info,
    StateSet,
    Untyped
};

// "counter", "gauge", ... as written in a TYPE line.
std::string_view metricTypeName(MetricType type);

// OpenMetrics exemplar: `... 3 # {trace_id="abc"} 0.67 1600000000.5`.
struct Exemplar {
    std::span<const Label> labels;
    double value = 0;
    std::optional<std::int64_t> timestampNs;
};

struct Sample {
    std::string_view name;   // full sample name, e.g. foo_bucket
    std::string_view family; // family from # TYPE/# HELP (foo for foo_bucket, foo_sum, foo_total,
                             // ...), else name
    MetricType type = MetricType::Unknown;
    std::span<const Label> labels;
    // The series as written (the name and the label set, `foo{a="1"}`): the same text is the
    // same series, so a consumer may key on it without hashing the labels one by one. Empty
    // where the sample did not come from exposition text.
    std::string_view series;
    double value = 0; // NaN, +Inf, -Inf supported
    // 0.0.4: integer milliseconds; OpenMetrics: float seconds; both as ns since the epoch,
    // clamped to what int64 holds (years 1677 to 2262) where the text goes beyond.
    std::optional<std::int64_t> timestampNs;
    int line = 0;
    const Exemplar* exemplar = nullptr; // OpenMetrics only; null when the line has none
};

struct ParseError {
    int line = 0;   // 1-based
    int column = 0; // 1-based, in bytes
    std::string message;
    std::string text; // the offending line, truncated to 200 bytes
};

class SampleSink {
public:
    virtual ~SampleSink() = default;
    virtual void sample(const Sample&) = 0;
    virtual void error(const ParseError&) {}
    // A breach of the format's specification that left the sample (or line) usable as written.
    virtual void warning(const ParseError&) {}
    // Once per family and scrape, after its HELP/TYPE lines and before its first sample.
    virtual void family(std::string_view name, MetricType type, std::string_view help) {
        (void)name;
        (void)type;
        (void)help;
    }
    // After each scrape of a multi-scrape file, the last one included.
    virtual void endScrape() {}
};

// Auto: OpenMetrics when the text has a `# EOF` line, else 0.0.4 that also takes the
// OpenMetrics forms that cannot be mistaken (exemplars, fractional-second timestamps), so a
// truncated OpenMetrics scrape still reads. Force Text004 where integer timestamps are
// milliseconds in a file that also carries `# EOF` lines.
enum class Format : std::uint8_t { Auto, Text004, OpenMetrics };

struct ParseStats {
    std::uint64_t bytes = 0, lines = 0, samples = 0, families = 0, errors = 0, scrapes = 0;
    std::uint64_t warnings = 0;
    bool openMetrics = false; // the format parse() settled on
    bool sawEof = false;      // an OpenMetrics `# EOF` line ended a scrape
};

// Dump: a file of scrapes one after the other. A new scrape starts after `# EOF` (OpenMetrics),
// or, in 0.0.4, at a HELP/TYPE/UNIT line for a family that already had that line or samples in
// the current scrape. Exposition: one answer of an exporter. There, and anywhere in
// OpenMetrics (whose scrapes end only at `# EOF`), such a line is a warning (and is ignored);
// in an exposition, lines after `# EOF` are an error (and are ignored), blank ones a warning.
enum class Scope : std::uint8_t { Dump, Exposition };

ParseStats parse(std::string_view text, SampleSink& sink, Format format = Format::Auto,
                 Scope scope = Scope::Dump);

} // namespace ft::importers::prom
