#pragma once
// RedfishCrawl: one poll of a Redfish service (DMTF DSP0268) as a walk over its resources,
// without the network: the owner asks next() for a URI to fetch, hands the answer to deliver(),
// and repeats until done(). The walk starts at the service root and follows only what carries
// cooling and power readings — ThermalEquipment → CDUs (and heat exchangers, immersion units) →
// coolant connectors, pumps, filters, reservoirs, environment metrics, leak detectors;
// PowerEquipment → power shelves, rack and floor PDUs, transfer switches, busways → mains,
// branches, feeders, metrics and (through the shelf's chassis) its power supplies — every
// collection through Members[] and Members@odata.nextLink, each URI once per poll.
//
// Each reading becomes a series for the mapping rules (resources/mappings/redfish.json): a name
// "{equipment type}/{part}/{property}" ("CDU/SecondaryCoolantConnector/SupplyTemperatureCelsius",
// "PowerShelf/PowerSupply/OutputPowerWatts", "CDU/Pump/Status") and labels that say whose it is
// (equipment, equipment_id, asset_tag, row, rack of the equipment; member, member_name,
// service_label of the part; uri). Excerpt properties ({"Reading": 42, "DataSourceUri": ...})
// give their Reading; one that gives only a DataSourceUri is resolved to its Sensor in the same
// poll (its ReadingUnits checked against the property's unit). Status becomes 0 OK, 1 warning,
// 2 critical or offline; DetectorState, BreakerState, LineInputStatus and FluidLevelStatus
// numbers too. At the end, per equipment, rollups the twin needs and one sample cannot give:
// the worst leak detector, the PSUs delivering power and their summed input and output.
//
// Bad input — JSON that does not parse, a resource without the property it must have, a
// Sensor in the wrong units, an @odata.type of an unknown major version, a DataSourceUri that
// does not resolve, a failed fetch — is counted by kind, the first ones reported with their URI,
// and never stops the rest of the walk. Memory is bounded: at most Limits::maxResources fetches
// per poll, the rest counted. Not thread-safe; one crawl per service, on its source's thread.
#include "model/timestamp.h"

#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace ft::importers::redfish {

struct Label {
    std::string name, value;
};

struct Reading {
    std::string metric;
    std::vector<Label> labels;
    double value = 0;
    model::TimeNs time = 0;
};

enum class Problem : std::uint8_t {
    BadJson,         // the body is not JSON, or not an object
    MissingProperty, // a required property is absent or of the wrong type
    WrongUnits,      // a Sensor's ReadingUnits is not the unit its property promises
    UnknownType,     // an @odata.type that is not the expected resource, or an unknown version
    DanglingLink,    // a DataSourceUri whose Sensor does not answer
    FetchFailed,     // a resource that did not answer (refused, timed out, HTTP error)
    OverLimit        // more resources than Limits::maxResources: the rest were not fetched
};
inline constexpr std::size_t kProblemCount = 7;
std::string_view problemName(Problem p);

struct ProblemReport {
    Problem kind = Problem::BadJson;
    std::string uri;
    std::string what;
};

// A Status.Conditions entry that is not OK ("Pump '2' has failed."), deduplicated per poll
// (the equipment repeats its parts' conditions in its own rollup).
struct Condition {
    std::string severity, message, messageId, origin, uri;
};

struct Limits {
    std::size_t maxResources = 20000;
    std::size_t maxReported = 32;    // problem reports kept (all are counted)
    std::size_t maxConditions = 200; // conditions kept
};

class Crawl {
public:
    explicit Crawl(Limits limits = {});

    // Starts a poll at `root` (a path, "/redfish/v1") of the service at `base`
    // ("https://10.0.3.21:443": links that spell it out are followed, other hosts are not);
    // `labels` go on every reading (the source adds which service and BMC address it polls).
    // Forgets the previous poll.
    void begin(const std::string& root, std::string base = {}, std::vector<Label> labels = {});
    // The next resource to fetch (job id and the URI's path), or none for now: either the walk
    // is done or it waits for answers still outstanding.
    struct Fetch {
        std::uint32_t job = 0;
        std::string path;
    };
    std::optional<Fetch> next();
    // The answer for `job`: an HTTP status and body, or (status 0) `failure` in words.
    void deliver(std::uint32_t job, int status, std::string_view body, model::TimeNs receivedAt,
                 std::string_view failure = {});
    // Stops handing out fetches (the poll ran out of time): what is queued is counted as not
    // read, the walk is done once the answers outstanding are in.
    void abandon(const std::string& why);
    // Nothing left to fetch and nothing outstanding; the rollups have been added.
    bool done() const { return m_finished; }

    std::vector<Reading>& readings() { return m_readings; }
    const std::vector<ProblemReport>& reports() const { return m_reports; }
    const std::array<std::uint64_t, kProblemCount>& problems() const { return m_problems; }
    std::uint64_t problemTotal() const;
    const std::vector<Condition>& conditions() const { return m_conditions; }
    // The service root's answer: its HTTP status (0: none came, then rootFailure() says why).
    int rootStatus() const { return m_rootStatus; }
    const std::string& rootFailure() const { return m_rootFailure; }
    std::size_t fetched() const { return m_fetched; }   // answers delivered
    std::size_t answered() const { return m_answered; } // ... of them, HTTP 2xx

    // What the walk expects a resource to be (from the link that led to it); internal.
    enum class Role : std::uint8_t;

private:
    // Who a resource's readings belong to: its equipment and part, inherited by its children.
    struct Context {
        std::string equipment; // "CDU", "PowerShelf", ... (the EquipmentType)
        std::string part;      // "Pump", "Mains", ...; empty on the equipment itself
        std::vector<Label> labels;
        std::uint32_t equipmentContext = 0; // the context of the equipment, for its rollups
    };
    // An excerpt that named only its Sensor: the reading waits for the Sensor's answer.
    struct SensorWant {
        std::string metric;
        std::uint32_t context = 0;
        std::string unit; // what the property promises ("Cel", "W"); empty: unchecked
        std::string from; // the resource and property that pointed here, for messages
    };
    struct Job {
        std::string path;
        Role role{};
        std::uint32_t context = 0;
        std::vector<std::uint32_t> wants; // Role::Sensor: the excerpts waiting for it
    };
    class Reader;
    friend class Reader;

    std::uint32_t follow(std::string_view uri, Role role, std::uint32_t context);
    // Reads one answered resource (redfish_reader.cpp).
    void read(const Job& job, const nlohmann::json& body, model::TimeNs time);
    void problem(Problem kind, const std::string& uri, std::string what);
    void emit(std::uint32_t context, std::string_view property, double value, model::TimeNs time,
              const Label* extra = nullptr);
    void finish();

    Limits m_limits;
    std::string m_base;
    std::vector<Label> m_baseLabels;
    std::vector<Job> m_jobs;
    std::vector<std::uint32_t> m_queue; // jobs not yet handed out, from m_queueHead on
    std::size_t m_queueHead = 0;
    std::unordered_set<std::string> m_seen;                      // paths queued this poll
    std::unordered_map<std::string, std::uint32_t> m_sensorJobs; // sensor path -> job
    std::vector<Context> m_contexts;
    std::vector<SensorWant> m_sensorWants;
    std::size_t m_outstanding = 0;
    bool m_finished = false;
    bool m_overLimit = false;

    std::vector<Reading> m_readings;
    std::vector<std::uint32_t> m_readingContext; // per reading, its context
    std::vector<ProblemReport> m_reports;
    std::array<std::uint64_t, kProblemCount> m_problems{};
    std::vector<Condition> m_conditions;
    std::unordered_set<std::string> m_conditionKeys;
    std::size_t m_fetched = 0, m_answered = 0;
    int m_rootStatus = 0;
    std::string m_rootFailure;
};

// A path for the crawl from an @odata.id or link: "/redfish/v1/Chassis/1" as is, a full URL on
// the service at `base` reduced to its path; nullopt for fragments ("…#/PowerSupplies/0"), other
// hosts and empty strings. A trailing '/' is dropped (the root is "/redfish/v1").
std::optional<std::string> crawlPath(std::string_view uri, std::string_view base);

} // namespace ft::importers::redfish
