#pragma once
// RedfishSource: CDU controllers, power shelves, rack and floor PDUs and busways that speak
// Redfish (DMTF DSP0268) as a live source. Each service (a BMC or an aggregator) is polled on
// its own schedule: a RedfishCrawl walks it from the service root with a few requests in flight
// (maxInFlight), every request with a deadline and a body cap, the whole poll with a deadline;
// its readings go through the mapping rules (resources/mappings/redfish.json) to the twin.
// Credentials: a session token (X-Auth-Token, from --token-file), HTTP Basic, or a Redfish
// session the source opens with the user and password (POST SessionService/Sessions), opens
// again when the service forgets it (401) and deletes on stop; a service without a session
// service falls back to Basic. A dead service backs off exponentially up to maxBackoff; bad
// resources are counted and named in the health with their URI; the rest of the poll counts.
// One HTTP thread per source (a Qt event loop; a QCoreApplication must exist). The owner calls
// start()/stop(); health() from any thread.
#include "importers/formats/redfish_crawl.h"
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

struct RedfishService {
    std::string base; // "https://10.0.3.21", "http://127.0.0.1:8000": scheme and authority
    std::string root = "/redfish/v1";
};

// "--source redfish=URL[,URL...]": the part after "redfish=" (or the whole argument). A bare
// host is https://host; a URL without a path has its root at /redfish/v1.
std::expected<std::vector<RedfishService>, std::string> parseRedfishSpec(const std::string& spec);

enum class RedfishAuth : std::uint8_t {
    None,
    Token,  // X-Auth-Token: a session token made elsewhere
    Basic,  // Authorization: Basic
    Session // POST SessionService/Sessions with user and password, then X-Auth-Token
};

struct RedfishConfig {
    std::vector<RedfishService> services;
    std::chrono::milliseconds interval{10000}; // between the starts of two polls of a service
    std::chrono::milliseconds timeout{5000};   // one request, start to last byte
    std::chrono::milliseconds pollDeadline{0}; // one whole poll; 0: three intervals, >= 30 s
    std::chrono::milliseconds maxBackoff{60000};
    int maxInFlight = 8; // requests in flight per service: BMCs are small machines
    std::size_t maxBodyBytes = 4u << 20;
    redfish::Limits limits;
    int downAfterFailures = 2;
    std::uint16_t sourceId = 0;
    std::size_t maxBatchSamples = 65536;
    HttpOptions http; // TLS; the credentials come from below
    RedfishAuth auth = RedfishAuth::None;
    std::string user, password, token;
};

class RedfishSource final : public LiveSource {
public:
    RedfishSource(RedfishConfig config, const MappingRules& rules,
                  std::shared_ptr<const model::Topology> topology, SubmitFn submit);
    ~RedfishSource() override;
    RedfishSource(const RedfishSource&) = delete;
    RedfishSource& operator=(const RedfishSource&) = delete;

    void start() override;
    void stop() override;
    // One per service: polls, readings (samples), mapped, unmapped, bad resources (badLines),
    // failed fetches (errors), the equipment's own conditions and the entities not on the floor.
    std::vector<SourceHealth> health() const override;

private:
    struct Service;
    void setupOnThread();
    void teardownOnThread();
    void poll(std::size_t index);
    void login(std::size_t index);
    void pump(std::size_t index);
    void fetched(std::size_t index, std::uint32_t job, const HttpResult& r);
    void finishPoll(std::size_t index);
    void pollFailed(std::size_t index, const std::string& why);
    void schedule(std::size_t index, std::chrono::milliseconds delay);
    HttpOptions requestOptions(const Service& s) const;

    RedfishConfig m_config;
    std::shared_ptr<const model::Topology> m_topology; // outlives the mappers, which refer to it
    SubmitFn m_submit;
    LoopThread m_loop;
    std::vector<std::unique_ptr<Service>> m_services; // loop thread (fixed at construction)
    std::vector<model::Sample> m_scratch;             // loop thread

    mutable std::mutex m_mutex;
    std::vector<SourceHealth> m_health; // guarded by m_mutex
};

} // namespace ft::importers
