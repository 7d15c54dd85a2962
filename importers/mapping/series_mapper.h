#pragma once
// SeriesMapper: applies MappingRules to incoming samples (a metric name, its labels, a value and
// a time) and produces the twin's samples (time, channel, entity, value). The first time a
// series (metric + labels) is seen it walks the rules and resolves the entity on the floor; the
// answer — targets, or "unmapped", or "unresolved" — is cached under a hash of the series, so a
// steady scrape costs one hash lookup per sample. Rules are tried in file order; the first whose
// metric, "match" labels and entity captures are all there wins (and, with "continue", later
// ones too). A rule that matches but names an entity the floor does not have (an unknown host, a
// GPU index past the tray) makes the sample "unresolved": counted per host, never guessed.
//
// Per channel and entity it keeps the last time (older or equal samples are dropped and counted:
// out of order) and, for "rate" rules, the previous counter value (the first sample yields
// nothing; a counter that goes down restarts the rate). A "fallback" rule speaks only while no
// other rule has fed its channel and entity for kFallbackHoldNs.
//
// Owned by one source and called on that source's thread only; the topology must outlive it.
#include "entity_name_index.h"
#include "importers/formats/prometheus_text.h"
#include "importers/sources/live_source.h"
#include "mapping_rules.h"
#include "model/sample.h"
#include "name_count.h"

#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ft::importers {

struct MapperStats {
    std::uint64_t mapped = 0;     // twin samples produced
    std::uint64_t unmapped = 0;   // input samples no rule matched
    std::uint64_t unresolved = 0; // input samples whose rule named an entity not on this floor
    std::uint64_t outOfOrder = 0; // not newer than the last one for the channel and entity; dropped
    std::uint64_t invalid = 0;    // NaN, or outside the rule's "valid" range; dropped
    std::uint64_t ratePrimed = 0; // first sample of a rate series: nothing to divide yet
    std::uint64_t counterResets = 0;      // a rate rule's counter went down; the rate restarts
    std::uint64_t fallbackSuppressed = 0; // a fallback rule kept quiet while the primary speaks
    std::uint64_t series = 0;             // distinct series seen (since the last clearCache)
    std::uint64_t ignored = 0;            // input samples an "ignore" rule left out on purpose
    // Distinct GPU series whose namespace/pod labels were the exporter's own pod (kube-prometheus
    // puts them on every GPU without a workload): not taken for a job.
    std::uint64_t exporterPodSeries = 0;
    std::uint64_t sliced = 0; // samples of MIG instances, kept on their parent GPU's slice list
};

// What one metric family came to (SeriesMapper::keepFamilyReport): for --check-source and the
// Sources panel.
struct FamilyReport {
    std::uint64_t samples = 0;
    std::uint64_t placed = 0;  // mapped onto an entity of the floor
    std::uint64_t ignored = 0; // left out on purpose: ignoredWhy says why
    std::uint64_t invalid = 0; // NaN or outside the rule's valid range
    std::uint64_t noRule = 0;  // no rule for it
    std::string ignoredWhy;
    std::set<model::ChannelId> channels;
    std::map<std::string, std::uint64_t> placedBy;  // "UUID", "host and index", "name", ...
    std::map<std::string, std::uint64_t> notPlaced; // reason -> samples
};

class SeriesMapper {
public:
    // A fallback rule stays quiet this long after the last sample from a primary rule.
    static constexpr model::TimeNs kFallbackHoldNs = 120 * model::kNsPerSecond;
    // Distinct names kept for the unmapped / unresolved lists; the rest count under "(other)".
    static constexpr std::size_t kMaxTrackedNames = 1000;
    // Series cache bound; past it the cache starts over (series churn, e.g. pod labels).
    static constexpr std::size_t kMaxCachedSeries = std::size_t{1} << 22;

    SeriesMapper(MappingRules rules, const model::Topology& topology);

    // Appends what one input sample maps to — normally one twin sample, none when it is
    // unmapped, unresolved or dropped, more only with "continue" rules — and returns how many.
    std::size_t map(std::string_view metric, std::span<const prom::Label> labels, double value,
                    model::TimeNs time, std::vector<model::Sample>& out);
    // A parsed exposition sample; its own timestamp wins over scrapeTime.
    // Keyed on the series' text where the parser gives it (one pass over contiguous bytes
    // instead of a hash per label).
    std::size_t map(const prom::Sample& sample, model::TimeNs scrapeTime,
                    std::vector<model::Sample>& out);

    const MapperStats& stats() const { return m_stats; }
    // The GPUs whose job label changed since the last call (a series of a GPU resolving with
    // dcgm-exporter's hpc_job, or namespace and pod: "namespace/pod"; "" without them).
    std::vector<std::pair<model::EntityId, std::string>> takeGpuJobs() {
        return std::exchange(m_jobChanges, {});
    }
    // The MIG slices of the GPUs whose slices reported since the last call, in words: "GI 13
    // (1g.5gb): graphics engine active 99.6 %, tensor pipes active 93.0 %" (one line a slice).
    std::vector<std::pair<model::EntityId, std::string>> takeGpuSlices();
    // How each GPU was placed, as gpu.placed_by samples at `time`, for the GPUs whose key
    // changed since the last call (a series placed by another key than before).
    std::vector<model::Sample> takePlacements(model::TimeNs time);
    // GPUs placed by UUID on another host than their labels name: "UUID: the inventory's HOST,
    // the telemetry's HOST", with how many of their series said so.
    std::vector<NameCount> topMovedGpus(std::size_t n) const { return top(m_movedGpus, n); }
    // Most frequent first.
    std::vector<NameCount> topUnmapped(std::size_t n) const { return top(m_unmappedNames, n); }
    std::vector<NameCount> topUnresolved(std::size_t n) const { return top(m_unresolvedNames, n); }
    // "METRIC: why" for the series "ignore" rules left out.
    std::vector<NameCount> topIgnored(std::size_t n) const { return top(m_ignoredNames, n); }
    // Host names the telemetry carries that the floor does not know, with their samples: what an
    // operator fixes in the inventory (or the exporter's labels) first.
    std::vector<NameCount> topUnknownHosts(std::size_t n) const { return top(m_unknownHosts, n); }

    // Per metric family, what its samples came to (off by default: a map lookup per sample).
    void keepFamilyReport(bool on) { m_reporting = on; }
    const std::map<std::string, FamilyReport, std::less<>>& familyReport() const {
        return m_families;
    }
    // The same per family from the series seen (since the last clearCache), counting series
    // rather than samples: free while mapping, a walk over the series when asked (the Sources
    // panel's mapping report for a live source).
    std::map<std::string, FamilyReport, std::less<>> seriesReport() const;
    // seriesReport() in the words of the live sources' health (live_source.h).
    std::vector<FamilyMapping> familyMappings() const;
    // After a page or an answer is mapped: the GPUs' jobs and slices that changed go to
    // `submit`, and once `every` (kept in `last`) the mapping report is made and returned.
    std::optional<std::vector<FamilyMapping>>
    handOnNews(const SubmitFn& submit, std::uint16_t source,
               std::chrono::steady_clock::time_point& last,
               std::chrono::steady_clock::duration every = std::chrono::seconds(5));

    const MappingRules& rules() const { return m_rules; }
    // Forget every resolved series (they resolve again on next sight); times and counters stay.
    void clearCache();

private:
    struct Target {
        std::uint32_t rule;
        std::uint32_t slot; // into m_states
        model::EntityId entity;
        model::ChannelId channel;
        std::uint8_t key = 0; // how the entity was found (series_mapper.cpp: kKeyNames)
    };
    // Slice: a MIG instance's series (GPU_I_ID), placed on its parent GPU's slice list.
    enum class EntryKind : std::uint8_t { Mapped, Unmapped, Unresolved, Ignored, Slice };
    // One series' answer: a steady scrape touches one entry (with its first target inline) and
    // one SeriesState per sample.
    struct CacheEntry {
        std::uint64_t key = 0; // 0: empty slot (a series hashing to 0 is stored as 1)
        Target first{};
        EntryKind kind = EntryKind::Unmapped;
        std::uint16_t targetCount = 0;
        std::uint32_t index =
            0; // more targets (m_targets) or the name counter (Unmapped, Unresolved)
        std::uint32_t unknownHost = kNoName; // Unresolved for an unknown host: its counter
        std::uint32_t family = 0;            // its metric's name, in m_familyNames
    };
    static constexpr std::uint32_t kNoName = ~std::uint32_t{0};
    struct SeriesState {
        model::TimeNs lastTime = std::numeric_limits<model::TimeNs>::min();
        model::TimeNs lastPrimaryTime = std::numeric_limits<model::TimeNs>::min();
        model::TimeNs prevTime = 0;
        double prevValue = 0;
        std::int32_t prevRule = -1; // rate rule that set prevValue; -1: none yet
    };
    struct NameCounter {
        std::vector<NameCount> counts;
        std::unordered_map<std::string, std::uint32_t> index;
    };

    CacheEntry resolve(std::string_view metric, std::span<const prom::Label> labels);
    // The series' cache entry (resolved on first sight) and what its sample maps to.
    std::size_t mapKeyed(std::uint64_t key, std::string_view metric,
                         std::span<const prom::Label> labels, double value, model::TimeNs time,
                         std::vector<model::Sample>& out);
    void noteGpuJob(model::EntityId gpu, std::span<const prom::Label> labels);
    void notePlacement(model::EntityId gpu, std::uint8_t key);
    // MIG: a series with GPU_I_ID resolves as its parent GPU's (without the instance labels)
    // and feeds the GPU's slice list; where the GPU has no series of its own for an activity
    // channel, its value is the slices' aggregate (weighted by their compute slices of 7).
    struct SliceTarget {
        std::uint32_t rule = 0;
        model::EntityId gpu = 0;
        model::ChannelId channel = 0;
        std::uint32_t instance = 0;
        std::string profile; // "1g.5gb"
    };
    struct Slice {
        std::string profile;
        std::map<model::ChannelId, float> values;
    };
    CacheEntry resolveSlice(std::string_view metric, std::span<const prom::Label> labels,
                            std::string_view instance);
    std::size_t mapSlice(const SliceTarget& t, double value, model::TimeNs time,
                         std::vector<model::Sample>& out);
    std::vector<SliceTarget> m_sliceTargets;
    std::map<model::EntityId, std::map<std::uint32_t, Slice>> m_slices; // by GPU, by instance
    std::set<model::EntityId> m_sliceChanges;
    // A family report's share of one series: its ignored, no-rule or unplaced count (true), or
    // nothing for a mapped one (false); the channels a mapped one feeds.
    bool tallyUnplaced(FamilyReport& f, const CacheEntry& e, std::string_view metric) const;
    void tallyChannels(FamilyReport& f, const CacheEntry& e) const;
    std::vector<std::uint8_t> m_gpuPlacedBy; // by GPU: gpu.placed_by's code, 0 = not yet
    std::vector<model::EntityId> m_placementChanges;
    std::unordered_map<model::EntityId, std::string> m_gpuJob;
    std::vector<std::pair<model::EntityId, std::string>> m_jobChanges;
    // The index slot for `key`: its entry, or the empty slot where it goes.
    struct IndexSlot {
        std::uint64_t key = 0; // 0: empty
        std::uint32_t entry = 0;
    };
    IndexSlot& indexSlot(std::uint64_t key);
    std::size_t mapEntry(const CacheEntry& entry, double value, model::TimeNs time,
                         std::vector<model::Sample>& out);
    void applyTarget(const Target& t, double value, model::TimeNs time,
                     std::vector<model::Sample>& out, std::size_t& produced);
    std::uint32_t slotFor(model::ChannelId channel, model::EntityId entity);
    static std::uint32_t counterIndex(NameCounter& counter, std::string_view name);
    static std::vector<NameCount> top(const NameCounter& counter, std::size_t n);

    MappingRules m_rules;
    const model::Topology& m_topology;
    EntityNameIndex m_names;
    // Resolved series, densely in the order first seen, found through an open-addressing index
    // (power-of-two size, at most 3/4 full). An exporter writes its series in the same order
    // every scrape, so the entry after the last one used is tried first: a steady scrape walks
    // the entries (and their states) in memory order instead of hopping through a table.
    std::vector<CacheEntry> m_entries;
    std::vector<IndexSlot> m_index;
    std::size_t m_next = 0;        // the entry expected next
    std::vector<Target> m_targets; // second and later targets of "continue" series
    std::unordered_map<std::uint64_t, std::uint32_t> m_slots; // (channel, entity) -> m_states
    std::vector<SeriesState> m_states;
    NameCounter m_unmappedNames;
    NameCounter m_unresolvedNames;
    NameCounter m_unknownHosts;
    NameCounter m_ignoredNames;
    NameCounter m_movedGpus;   // counted once per series
    NameCounter m_familyNames; // metric names of the cached series (counts unused)
    MapperStats m_stats;
    bool m_reporting = false;
    std::map<std::string, FamilyReport, std::less<>> m_families;
    void report(std::string_view metric, const CacheEntry& entry, std::size_t produced,
                std::uint64_t invalid);
};

} // namespace ft::importers
