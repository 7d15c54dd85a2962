#pragma once
// ScrapeSource: polls exporters (dcgm-exporter and anything else speaking Prometheus text or
// OpenMetrics) directly, the way Prometheus would, and feeds what the mapping rules recognise to
// the twin. Every target is polled on its own schedule with at most one request in flight, a
// total deadline per request, a cap on the body (a page over it is cut there and counted as an
// error) and capped exponential backoff while it fails, so a dead, slow, flooding or garbage
// target never holds up the others. Bad lines are counted and skipped; the rest of the page
// still counts. One HTTP thread per source (a Qt event loop; a QCoreApplication must exist).
// The owner calls start()/stop(); health() from any thread.
#include "importers/mapping/mapping_rules.h"
#include "importers/net/http_client.h"
#include "live_source.h"
#include "model/topology.h"

#include <chrono>
#include <expected>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

class QTimer;

namespace ft::importers {

class SeriesMapper; // series_mapper.h

constexpr int kDcgmExporterPort = 9400;

struct ScrapeConfig {
    std::vector<std::string> urls;            // http(s)://host:port/path, see parseScrapeSpec
    std::chrono::milliseconds interval{1000}; // between the starts of two polls of a target
    std::chrono::milliseconds timeout{3000};  // one request, start to last byte
    std::chrono::milliseconds maxBackoff{30000};
    std::size_t maxBodyBytes = 64u << 20; // a 1,000-GPU federation page is ~20 MB
    int downAfterFailures = 2;            // failed polls in a row before a target reads Down
    std::uint16_t sourceId = 0;           // SampleBatch::source
    std::size_t maxBatchSamples = 65536;  // bigger pages go out as several batches
    HttpOptions http;                     // bearer token, TLS; timeout and cap come from above
};

// "--source scrape=URL[,URL...]": the part after "scrape=" (or the whole argument with it).
// Shorthands fill in what dcgm-exporter uses: "host" -> http://host:9400/metrics,
// "host:port" -> http://host:port/metrics. Errors name the bad entry.
std::expected<std::vector<std::string>, std::string> parseScrapeSpec(const std::string& spec);

class ScrapeSource final : public LiveSource {
public:
    // The source maps with its own SeriesMapper over `rules` on `topology`.
    ScrapeSource(ScrapeConfig config, MappingRules rules,
                 std::shared_ptr<const model::Topology> topology, SubmitFn submit);
    ~ScrapeSource() override;
    ScrapeSource(const ScrapeSource&) = delete;
    ScrapeSource& operator=(const ScrapeSource&) = delete;

    void start() override;
    void stop() override;
    std::vector<SourceHealth> health() const override;
    std::vector<NameCount> unknownHosts() const override;
    std::vector<FamilyMapping> mappingReport() const override;

private:
    // Loop-thread state of one target; its health lives in m_health (guarded by m_mutex).
    struct Target {
        std::string url;
        std::unique_ptr<QTimer> timer;
        bool inFlight = false;
        int failures = 0; // in a row
        int cuts = 0;     // pages cut at the body cap in a row: used, but polled less often
        bool everAnswered = false;
        std::chrono::steady_clock::time_point pollStarted;
    };

    void setupOnThread();
    void teardownOnThread();
    void poll(std::size_t index);
    void finished(std::size_t index, const HttpResult& result);
    void schedule(std::size_t index, std::chrono::milliseconds delay);
    std::chrono::milliseconds backoff(int times) const; // after `times` bad polls in a row

    ScrapeConfig m_config;
    std::shared_ptr<const model::Topology> m_topology; // outlives the mapper, which refers to it
    std::unique_ptr<SeriesMapper> m_mapper;            // loop thread
    SubmitFn m_submit;
    LoopThread m_loop;
    std::unique_ptr<HttpClient> m_http;   // loop thread
    std::vector<Target> m_targets;        // loop thread (url fixed at construction)
    std::vector<model::Sample> m_scratch; // loop thread

    std::chrono::steady_clock::time_point m_mappingAt{}; // loop thread
    mutable std::mutex m_mutex;
    std::vector<FamilyMapping> m_mapping; // guarded by m_mutex

    std::vector<NameCount> m_unknownHosts; // guarded by m_mutex
    std::vector<SourceHealth> m_health;
};

} // namespace ft::importers
