#pragma once
// PromqlSource: the twin fed from a Prometheus HTTP API — Prometheus itself, Thanos Query, Mimir
// (base URL .../prometheus), VictoriaMetrics. Live: a set of instant queries (/api/v1/query),
// polled every interval, one request per query in flight, capped backoff while the server
// fails. History: importIncidentWindow() pulls a window with /api/v1/query_range in bounded
// time slices and writes a .ftrec recording.
//
// The query set is built from the mapping rules so that a big floor never pulls millions of raw
// series (buildQuerySet):
//   - rack overview, always: per-rack aggregates computed by the server. On a generated floor a
//     rack key is cut from the host label with label_replace using the floor's host_pattern; on
//     a floor with a host table (an inventory's free host names) each rack's hosts are one regex
//     alternation (common prefix, then the rest) and the per-rack aggregates are joined with
//     `or`, batched under maxQueryBytes (so 1,778 racks are a few dozen queries, still one series
//     per rack; GPUs placed only by UUID are not in these aggregates). Then
//       max by (ft_rack) (GPU temperature)  -> rack.gpu_temperature_max
//       avg by (ft_rack) (GPU temperature)  -> rack.gpu_temperature_mean
//       avg by (ft_rack) (GPU utilization)  -> rack.gpu_utilization
//       sum by (ft_rack) (GPU NVLink tx)    -> rack.nvlink_throughput
//     (the GPU metrics are the ones the rules map to those GPU channels; the rules' valid range
//     is applied on the server, so DCGM's blank sentinels never reach a max). One series per rack.
//   - facility series, always: metrics whose rules feed racks, rows, CDUs, pumps, loops,
//     regions, tiers, leaves, spines, rails and planes, raw (a few series per rack at most).
//   - device series (GPU, CPU, DPU, NIC, tray, NVLink and fabric links) raw, only when asked:
//     for every host (perDevice) or for the hosts of named racks (detailRacks).
// Raw series go through the SeriesMapper exactly as a scrape would.
//
// Needs a QCoreApplication; its HTTP runs on its own thread. start()/stop() from the owner,
// health() from any thread.
#include "importers/formats/alertmanager_json.h"
#include "importers/formats/error.h"
#include "importers/formats/promql_response.h"
#include "importers/mapping/mapping_rules.h"
#include "importers/net/http_client.h"
#include "live_source.h"
#include "model/channel_catalog.h"
#include "model/topology.h"

#include <atomic>
#include <chrono>
#include <expected>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

class QTimer;

namespace ft::importers {

class SeriesMapper; // series_mapper.h

struct PromqlQuery {
    std::string name; // what it is for, in words (health, logs)
    std::string expr; // PromQL
    // Aggregated queries return one series per rack key (label `rackLabel`) and name their
    // channel; the value is value * scale + offset. Raw queries (no channel) are mapped by the
    // SeriesMapper from each series' __name__ and labels.
    std::optional<model::ChannelId> channel;
    std::string rackLabel;
    double scale = 1.0;
    double offset = 0.0;
};

struct QuerySetOptions {
    std::vector<std::string> hostLabels{"Hostname", "hostname", "instance"}; // first match wins
    bool rackOverview = true;
    bool facility = true;
    bool perDevice = false;               // every host's raw device series (small floors only)
    std::vector<std::string> detailRacks; // raw device series of these racks' hosts
    std::string selector;                 // extra matchers for every selector, e.g. job="dcgm"
    // Longest query the server takes (VictoriaMetrics: -search.maxQueryLen, 16 KiB by default):
    // host-table floors split their per-rack aggregates into queries of at most this many bytes.
    std::size_t maxQueryBytes = 16000;
};

std::vector<PromqlQuery> buildQuerySet(const MappingRules& rules, const model::Topology& topology,
                                       const QuerySetOptions& options = {});

// The regular expression (RE2 and ECMAScript alike) that cuts a rack key out of a host name
// following `hostPattern`: group 1 is the part before the tray number. Empty when the pattern
// has no {tray} placeholder.
std::string rackKeyRegex(const std::string& hostPattern);
// Rack key -> rack, by applying rackKeyRegex to each rack's first host (a host-table floor keys
// its aggregates by the rack's own name).
std::unordered_map<std::string, model::EntityId> rackKeysOf(const model::Topology& t);

struct PromqlConfig {
    std::string url; // base URL: http(s)://host:port[/prefix], the API lives under /api/v1
    std::chrono::milliseconds interval{5000};
    std::chrono::milliseconds timeout{15000};
    std::chrono::milliseconds maxBackoff{60000};
    HttpOptions http; // bearer token, CA file, skip-verify, body cap (timeout: from above)
    std::vector<PromqlQuery> queries;
    int downAfterFailures = 2;
    std::uint16_t sourceId = 0;
    std::size_t maxBatchSamples = 65536;
};

class PromqlSource final : public LiveSource {
public:
    // The source maps raw series with its own SeriesMapper over `rules` on `topology`, which
    // also resolves the rack keys of aggregated queries.
    PromqlSource(PromqlConfig config, MappingRules rules,
                 std::shared_ptr<const model::Topology> topology, SubmitFn submit);
    ~PromqlSource() override;
    PromqlSource(const PromqlSource&) = delete;
    PromqlSource& operator=(const PromqlSource&) = delete;

    void start() override;
    void stop() override;
    // One entry: the server. targetsUp/targetsTotal count the queries that answered last round.
    std::vector<SourceHealth> health() const override;
    std::vector<NameCount> unknownHosts() const override;
    std::vector<FamilyMapping> mappingReport() const override;

private:
    void setupOnThread();
    void teardownOnThread();
    void startRound();
    void finished(std::size_t query, const HttpResult& result);
    void endRound();

    PromqlConfig m_config;
    std::shared_ptr<const model::Topology> m_topology; // outlives the mapper, which refers to it
    std::unique_ptr<SeriesMapper> m_mapper;            // loop thread
    std::unordered_map<std::string, model::EntityId> m_rackKeys;
    SubmitFn m_submit;
    LoopThread m_loop;

    // Loop-thread state.
    std::unique_ptr<HttpClient> m_http;
    std::unique_ptr<QTimer> m_timer;
    std::size_t m_pending = 0;
    std::size_t m_answered = 0, m_failedTransport = 0, m_failedQuery = 0;
    std::string m_roundError;
    // The round's first answer that came with server warnings (a partial response), in words.
    std::string m_roundWarning;
    int m_failures = 0;
    bool m_everAnswered = false;
    std::chrono::steady_clock::time_point m_roundStarted;
    std::vector<model::Sample> m_scratch;

    std::chrono::steady_clock::time_point m_mappingAt{}; // loop thread
    mutable std::mutex m_mutex;
    std::vector<FamilyMapping> m_mapping; // guarded by m_mutex

    std::vector<NameCount> m_unknownHosts; // guarded by m_mutex
    SourceHealth m_health;
};

struct IncidentImportOptions {
    model::TimeNs tick = model::kNsPerSecond; // the recording's tick (the sim step that drives it)
    std::size_t pointsPerRequest = 720;       // per series; a slice spans this many steps
    int retries = 2;                          // per request, on transport errors and 5xx
    SeverityMap alertSeverity;                // what the window's alerts' severity labels mean
};

struct IncidentImportStats {
    std::uint64_t samples = 0; // points received
    std::uint64_t mapped = 0;  // ... that became twin samples
    std::uint64_t unmapped = 0;
    std::uint64_t series = 0; // distinct series seen
    std::uint64_t requests = 0;
    std::uint64_t errors = 0; // requests that failed for good
    std::uint64_t ticks = 0;  // snapshots written
    std::uint64_t alerts = 0; // distinct alerts ALERTS showed firing in the window
    std::string lastError;
};

// Pulls [from, to] at `step` from the server in `server` (URL, auth, TLS, queries; an empty
// query set is an error: build one with buildQuerySet) and writes a recording at `outPath` that
// the app replays: the samples (mapped by a SeriesMapper over `rules`), in time order, drive a
// SimModel of `topology` (measured channels carry the real values, the rest is modelled) and every
// tick's state is recorded. Blocks the calling thread (it runs its own event loop for the requests;
// call it from a worker or a headless run, not the UI thread). `progress` gets 0..1; a set `cancel`
// stops it, removes the partial file and returns an error. Individual failed requests are counted
// in the stats; an import in which every request failed is an error.
std::expected<IncidentImportStats, Error> importIncidentWindow(
    const PromqlConfig& server, model::TimeNs from, model::TimeNs to, model::TimeNs step,
    const MappingRules& rules, const std::shared_ptr<const model::Topology>& topology,
    const std::string& outPath, const std::function<void(double)>& progress = {},
    const std::atomic<bool>* cancel = nullptr, const IncidentImportOptions& options = {});

} // namespace ft::importers
