#pragma once
// LiveSource: the one interface every live telemetry source implements (exporter scrapes, the
// PromQL API, the BMS MQTT bus). A source runs on its own thread and pushes timestamped
// SampleBatches into a SubmitFn (in the app: SimCore::submit, which never blocks and drops and
// counts when full). start()/stop() belong to the owner; any thread may call health() — a
// NOC wall polls it to say which feed is dead, so it returns copies, never references.
#include "importers/mapping/name_count.h"
#include "model/sample.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ft::importers {

// Connecting: never answered yet. Up: the last poll was clean. Degraded: reachable, but the
// answer was partly bad (bad lines, truncated body) or one poll failed. Down: failing.
enum class SourceState : std::uint8_t { Connecting, Up, Degraded, Down };

constexpr std::string_view sourceStateName(SourceState s) {
    switch (s) {
    case SourceState::Connecting:
        return "connecting";
    case SourceState::Up:
        return "up";
    case SourceState::Degraded:
        return "degraded";
    case SourceState::Down:
        return "down";
    }
    return "?";
}

// One per target (an exporter URL, a Prometheus server, a broker). Counters are totals since
// start(); they never go backwards, so a UI can show rates.
struct SourceHealth {
    std::string name; // short label for the UI ("scrape a01-n01:9400")
    std::string url;
    SourceState state = SourceState::Connecting;
    std::string lastError;         // the most recent problem in words; kept after recovery
    model::TimeNs lastSuccess = 0; // wall clock of the last good answer, 0 = never
    std::uint64_t polls = 0;       // requests issued (or messages received, for MQTT)
    std::uint64_t samples = 0;     // samples parsed from the answers
    std::uint64_t mapped = 0;      // ... that the mapping turned into twin samples
    std::uint64_t unmapped = 0;    // ... that no rule matched, named no entity on this floor, or
                                   //     were not trustworthy (NaN, out of the valid range)
    std::uint64_t badLines = 0;    // lines or payloads that did not parse
    // Lines that break the format's specification but were used as written (exposition:
    // buckets out of order, metadata after samples, ...), and the most recent one in words.
    std::uint64_t formatWarnings = 0;
    std::string lastFormatWarning;
    std::uint64_t errors = 0;     // failed polls, truncated bodies, error envelopes
    std::uint64_t dropped = 0;    // mapped samples the sink refused (queue full)
    std::uint64_t outOfOrder = 0; // samples not newer than one already sent for the same
                                  // channel and entity: not sent (they would undo newer state)
    double lastLatencyMs = 0;
    int targetsUp = 0, targetsTotal = 0; // for sources that fan out (a PromQL query set)
    // What the equipment itself reports is wrong (Redfish Status.Conditions: "Critical: Pump
    // '2' has failed."), as of the last good poll.
    std::vector<std::string> conditions;
    // Equipment the rules named but the floor does not have ("cdu 'CDU Z9'"), most samples
    // first: what to fix in the mapping or the equipment's names.
    std::vector<NameCount> unresolved;
};

// A --source list entry without the blanks around it.
inline std::string trimBlanks(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return std::string(s);
}

// What one metric family of a source came to, over the series seen so far: the Sources panel's
// mapping report (--check-source gives the same for one page).
struct FamilyMapping {
    std::string family;
    std::uint64_t series = 0, placed = 0, ignored = 0, noRule = 0;
    std::string ignoredWhy;
    std::vector<std::string> channels; // the channels it feeds
    std::vector<NameCount> placedBy;   // "UUID", "host and index", ... with series
    std::vector<NameCount> notPlaced;  // reason with series
};

class LiveSource {
public:
    virtual ~LiveSource() = default;
    virtual void start() = 0;
    virtual void stop() = 0;
    virtual std::vector<SourceHealth> health() const = 0; // one per target
    // Host names in the telemetry that the floor does not know, most samples first (top 10).
    virtual std::vector<NameCount> unknownHosts() const { return {}; }
    // Per metric family, what its series came to (sources that map series; refreshed every
    // few seconds).
    virtual std::vector<FamilyMapping> mappingReport() const { return {}; }
};

// Where a source's batches go; false means the batch was refused (and is counted as dropped).
using SubmitFn = std::function<bool(model::SampleBatch)>;

// Hands `samples` to `submit` in batches of at most `maxBatch`; returns how many were refused.
inline std::uint64_t submitInBatches(const SubmitFn& submit, std::uint16_t source,
                                     std::vector<model::Sample>& samples, std::size_t maxBatch) {
    std::uint64_t refused = 0;
    maxBatch = maxBatch ? maxBatch : samples.size();
    for (std::size_t at = 0; at < samples.size(); at += maxBatch) {
        const std::size_t n = std::min(maxBatch, samples.size() - at);
        model::SampleBatch batch;
        batch.source = source;
        batch.samples.assign(samples.begin() + static_cast<std::ptrdiff_t>(at),
                             samples.begin() + static_cast<std::ptrdiff_t>(at + n));
        if (!submit || !submit(std::move(batch))) refused += n;
    }
    samples.clear();
    return refused;
}

// What a mapper says of the GPUs beside their samples, each in a batch of its own: the job
// labels that changed (refusals are retried: the mapper reports a job again when its series next
// resolve) and the MIG slices that reported.
inline void submitGpuJobs(const SubmitFn& submit, std::uint16_t source,
                          std::vector<std::pair<model::EntityId, std::string>> jobs,
                          std::vector<std::pair<model::EntityId, std::string>> slices = {}) {
    if (!submit) return;
    if (!jobs.empty()) {
        model::SampleBatch batch;
        batch.source = source;
        batch.gpuJobs = std::move(jobs);
        submit(std::move(batch));
    }
    if (!slices.empty()) {
        model::SampleBatch batch;
        batch.source = source;
        batch.gpuSlices = std::move(slices);
        submit(std::move(batch));
    }
}

} // namespace ft::importers
