// Redfish: DMTF's complete mockups (../shared/data/redfish: a CDU, a power shelf, rack PDUs),
// walked as they are and edited the way real services go wrong — malformed JSON, missing
// properties, a Sensor in the wrong units, an unknown major version, a DataSourceUri that does
// not resolve — then served on 127.0.0.1 with authentication required (a Redfish session,
// HTTP Basic, a token) while their readings change, a pump goes offline, a leak detector goes
// critical, a session expires, a resource answers too slowly. Waits poll (QTRY_*) and nothing
// asserts on timing.
#include "importers/floor_file.h"
#include "importers/mapping_rules.h"
#include "importers/redfish_crawl.h"
#include "importers/redfish_source.h"
#include "model/channel_catalog.h"
#include "model/topology.h"
#include "support/page_server.h"

#include <QByteArray>
#include <QTest>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ranges>
#include <set>
#include <sstream>
#include <thread>

using namespace ft;
using importers::redfish::Crawl;
using importers::redfish::Problem;
using importers::redfish::Reading;
using nlohmann::json;
namespace ch = model::ch;

namespace {

constexpr int kLong = 20000;
const std::string kMockups = FT_SOURCE_DIR "/../shared/data/redfish";
const std::string kUser = "admin", kPassword = "s3cret-Pa55";

// A mockup as pages: URI path ("/redfish/v1/Chassis/CDU") -> its JSON.
std::map<std::string, json> loadMockup(const std::string& name) {
    std::map<std::string, json> pages;
    const std::filesystem::path root = kMockups + "/" + name;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
        if (entry.path().filename() != "index.json") continue;
        const std::string rel =
            std::filesystem::relative(entry.path().parent_path(), root).generic_string();
        std::ifstream in(entry.path());
        std::stringstream ss;
        ss << in.rdbuf();
        pages["/redfish/v1" + (rel == "." ? std::string() : "/" + rel)] = json::parse(ss.str());
    }
    if (pages.empty()) qFatal("no mockup at %s", root.c_str());
    return pages;
}

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

// Copies every page under `from` to `to`, links inside rewritten: a second CDU or shelf.
void copySubtree(std::map<std::string, json>& pages, const std::string& from,
                 const std::string& to) {
    std::vector<std::pair<std::string, json>> add;
    for (const auto& [path, page] : pages)
        if (path == from || path.starts_with(from + "/"))
            add.emplace_back(to + path.substr(from.size()),
                             json::parse(replaceAll(page.dump(), from + "/", to + "/")));
    for (auto& [path, page] : add) {
        if (path == to) page["@odata.id"] = to;
        pages[path] = std::move(page);
    }
}

// The crawl driven by hand over pages (no network): what the walk reads from a mockup.
struct CrawlResult {
    std::vector<Reading> readings;
    std::array<std::uint64_t, importers::redfish::kProblemCount> problems{};
    std::vector<importers::redfish::ProblemReport> reports;
    std::vector<importers::redfish::Condition> conditions;
    std::size_t fetched = 0;
    std::vector<std::string> paths;

    std::uint64_t count(Problem p) const { return problems[static_cast<std::size_t>(p)]; }
    // The readings named `metric` whose labels include every (name, value) given.
    std::vector<const Reading*> find(const std::string& metric,
                                     const std::map<std::string, std::string>& labels = {}) const {
        std::vector<const Reading*> out;
        for (const auto& r : readings) {
            if (r.metric != metric) continue;
            bool all = true;
            for (const auto& [k, v] : labels) {
                bool has = false;
                for (const auto& l : r.labels)
                    has = has || (l.name == k && l.value == v);
                all = all && has;
            }
            if (all) out.push_back(&r);
        }
        return out;
    }
    double value(const std::string& metric,
                 const std::map<std::string, std::string>& labels = {}) const {
        const auto found = find(metric, labels);
        return found.size() == 1 ? found.front()->value : std::nan("");
    }
    bool reported(Problem kind, const std::string& uri) const {
        for (const auto& r : reports)
            if (r.kind == kind && r.uri == uri) return true;
        return false;
    }
};

CrawlResult crawl(const std::map<std::string, json>& pages,
                  const std::map<std::string, std::string>& raw = {},
                  importers::redfish::Limits limits = {}) {
    Crawl c(limits);
    c.begin("/redfish/v1");
    CrawlResult out;
    while (!c.done()) {
        const auto f = c.next();
        if (!f) qFatal("the crawl waits for nothing");
        out.paths.push_back(f->path);
        if (const auto r = raw.find(f->path); r != raw.end()) {
            c.deliver(f->job, 200, r->second, 1000);
        } else if (const auto p = pages.find(f->path); p != pages.end()) {
            c.deliver(f->job, 200, p->second.dump(), 1000);
        } else {
            c.deliver(f->job, 404, "{}", 1000);
        }
    }
    out.readings = c.readings();
    out.problems = c.problems();
    out.reports = c.reports();
    out.conditions = c.conditions();
    out.fetched = c.fetched();
    return out;
}

std::string describe(const CrawlResult& r) {
    std::string s;
    for (const auto& p : r.reports)
        s += std::string(importers::redfish::problemName(p.kind)) + " " + p.uri + ": " + p.what +
             "\n";
    return s;
}

// A Redfish service on 127.0.0.1 serving pages that a test edits while it runs. The service root
// answers anyone (DSP0268); everything else wants the credentials of `auth`.
class FakeRedfish {
public:
    enum class Auth { Session, Basic, Token, None };
    FakeRedfish(std::map<std::string, json> pages, Auth auth)
        : m_pages(std::move(pages)), m_auth(auth),
          m_server([this](const testing::PageServer::Request& r) { return answer(r); }, true) {}

    std::string url() const { return m_server.base(); }
    std::vector<std::string> targets() const { return m_server.targets(); }
    void edit(const std::function<void(std::map<std::string, json>&)>& fn) {
        std::lock_guard lock(m_mutex);
        fn(m_pages);
    }
    void setDelay(const std::string& path, std::chrono::milliseconds d) {
        std::lock_guard lock(m_mutex);
        m_delays[path] = d;
    }
    void expireSessions() {
        std::lock_guard lock(m_mutex);
        m_tokens.clear();
    }
    int logins() const {
        std::lock_guard lock(m_mutex);
        return m_logins;
    }
    int logouts() const {
        std::lock_guard lock(m_mutex);
        return m_logouts;
    }
    static constexpr const char* kToken = "given-token-0123";

private:
    testing::PageServer::Response answer(const testing::PageServer::Request& r) {
        std::string path = r.target.substr(0, r.target.find('?'));
        while (path.size() > 1 && path.back() == '/')
            path.pop_back();
        std::unique_lock lock(m_mutex);
        if (path == "/redfish/v1/SessionService/Sessions" && r.method == "POST") {
            if (m_auth != Auth::Session) return {405, "{}"};
            const json body = json::parse(r.body, nullptr, false);
            if (!body.is_object() || body.value("UserName", "") != kUser ||
                body.value("Password", "") != kPassword)
                return {401, "{}"};
            ++m_logins;
            const std::string token = "tok-" + std::to_string(m_logins);
            const std::string where =
                "/redfish/v1/SessionService/Sessions/" + std::to_string(m_logins);
            m_tokens.insert(token);
            return {201,
                    json{{"@odata.id", where}, {"Id", std::to_string(m_logins)}}.dump(),
                    "application/json",
                    {{"X-Auth-Token", token}, {"Location", where}}};
        }
        if (r.method == "DELETE") {
            ++m_logouts;
            return {204, ""};
        }
        if (path != "/redfish/v1" && !authorized(r)) return {401, "{}"};
        if (const auto d = m_delays.find(path); d != m_delays.end()) {
            const auto delay = d->second;
            lock.unlock();
            std::this_thread::sleep_for(delay);
            lock.lock();
        }
        const auto p = m_pages.find(path);
        if (p == m_pages.end()) return {404, "{}"};
        return {200, p->second.dump()};
    }

    bool authorized(const testing::PageServer::Request& r) const {
        const auto header = [&](const char* name) {
            const auto it = r.headers.find(name);
            return it == r.headers.end() ? std::string() : it->second;
        };
        switch (m_auth) {
        case Auth::Session:
            return m_tokens.contains(header("x-auth-token"));
        case Auth::Token:
            return header("x-auth-token") == kToken;
        case Auth::Basic:
            return header("authorization") ==
                   "Basic " +
                       QByteArray::fromStdString(kUser + ":" + kPassword).toBase64().toStdString();
        case Auth::None:
            return true;
        }
        return false;
    }

    mutable std::mutex m_mutex;
    std::map<std::string, json> m_pages;
    std::map<std::string, std::chrono::milliseconds> m_delays;
    std::set<std::string> m_tokens;
    int m_logins = 0, m_logouts = 0;
    Auth m_auth;
    testing::PageServer m_server;
};

class Collector {
public:
    importers::SubmitFn fn() {
        return [this](model::SampleBatch batch) {
            std::lock_guard lock(m_mutex);
            m_samples.insert(m_samples.end(), batch.samples.begin(), batch.samples.end());
            return true;
        };
    }
    float last(model::ChannelId channel, model::EntityId entity) const {
        std::lock_guard lock(m_mutex);
        for (const auto& s : std::ranges::reverse_view(m_samples))
            if (s.channel == channel && s.entity == entity) return s.value;
        return std::nanf("");
    }
    std::size_t count(model::ChannelId channel) const {
        std::lock_guard lock(m_mutex);
        return static_cast<std::size_t>(
            std::ranges::count_if(m_samples, [&](const auto& s) { return s.channel == channel; }));
    }

private:
    mutable std::mutex m_mutex;
    std::vector<model::Sample> m_samples;
};

importers::MappingRules bundledRules() {
    auto rules = importers::loadMappingRules(FT_SOURCE_DIR "/resources/mappings/redfish.json");
    if (!rules) qFatal("%s", rules.error().toString().c_str());
    return *rules;
}

// Four racks A01..A04 in row A, CDU A1 and CDU A2; when asked, rack A03 or CDU A2 answers for
// 127.0.0.1 (the address every test service has).
std::shared_ptr<const model::Topology> testFloor(bool a03HasLoopbackBmc = false,
                                                 bool a2HasLoopbackBmc = false) {
    json rack3 = "A03";
    if (a03HasLoopbackBmc) rack3 = json{{"name", "A03"}, {"bmc", "127.0.0.1"}};
    json cooling = {{"racks_per_cdu", 2}};
    if (a2HasLoopbackBmc) cooling["cdu_bmc"] = {{"CDU A2", "127.0.0.1"}};
    const json floor = {
        {"format", "floortwin-floor/1"},
        {"name", "Redfish test"},
        {"rows", json::array({{{"name", "A"},
                               {"x", 0},
                               {"y", 0},
                               {"racks", json::array({"A01", "A02", rack3, "A04"})}}})},
        {"cooling", cooling}};
    auto spec = importers::parseFloorFile(floor.dump(), "test");
    if (!spec) qFatal("%s", spec.error().toString().c_str());
    auto t = model::Topology::build(*spec);
    if (!t) qFatal("%s", t.error().c_str());
    return std::make_shared<const model::Topology>(std::move(*t));
}

// The cooling mockup with a second CDU: CDU 1 named "CDU A1", CDU 2 "CDU A2" at 35 °C.
std::map<std::string, json> twoCdus() {
    auto pages = loadMockup("public-cooling-unit");
    copySubtree(pages, "/redfish/v1/ThermalEquipment/CDUs/1",
                "/redfish/v1/ThermalEquipment/CDUs/2");
    auto& members = pages["/redfish/v1/ThermalEquipment/CDUs"]["Members"];
    members.push_back({{"@odata.id", "/redfish/v1/ThermalEquipment/CDUs/2"}});
    pages["/redfish/v1/ThermalEquipment/CDUs"]["Members@odata.count"] = 2;
    pages["/redfish/v1/ThermalEquipment/CDUs/1"]["Name"] = "CDU A1";
    pages["/redfish/v1/ThermalEquipment/CDUs/2"]["Name"] = "CDU A2";
    pages["/redfish/v1/ThermalEquipment/CDUs/2"]["Id"] = "2";
    pages["/redfish/v1/ThermalEquipment/CDUs/2/SecondaryCoolantConnectors/1"]
         ["SupplyTemperatureCelsius"]["Reading"] = 35;
    return pages;
}

// The power shelf mockup placed in rack A02, its busway named as the floor names A's feed B.
std::map<std::string, json> shelfInA02() {
    auto pages = loadMockup("public-power-shelf");
    pages["/redfish/v1/PowerEquipment/PowerShelves/1"]["Location"]["Placement"]["Rack"] = "A02";
    pages["/redfish/v1/PowerEquipment/ElectricalBuses/Busway"]["Name"] = "A busway B";
    pages["/redfish/v1/PowerEquipment"]["ElectricalBuses"] = {
        {"@odata.id", "/redfish/v1/PowerEquipment/ElectricalBuses"}};
    return pages;
}

// The PDU mockup with two rack PDUs: 1 in A04 (as recorded), 2 in A03 drawing 4.2 kW.
std::map<std::string, json> pdusInA03AndA04() {
    auto pages = loadMockup("public-pdu");
    copySubtree(pages, "/redfish/v1/PowerEquipment/RackPDUs/1",
                "/redfish/v1/PowerEquipment/RackPDUs/2");
    pages["/redfish/v1/PowerEquipment/RackPDUs"]["Members"].push_back(
        {{"@odata.id", "/redfish/v1/PowerEquipment/RackPDUs/2"}});
    pages["/redfish/v1/PowerEquipment/RackPDUs/1"]["Location"]["Placement"]["Rack"] = "A04";
    pages["/redfish/v1/PowerEquipment/RackPDUs/2"]["Location"]["Placement"]["Rack"] = "A03";
    pages["/redfish/v1/PowerEquipment/RackPDUs/2"]["Id"] = "2";
    pages["/redfish/v1/PowerEquipment/RackPDUs/2"]["Name"] = "RackPDU2";
    pages["/redfish/v1/PowerEquipment/RackPDUs/2/Metrics"]["PowerWatts"]["Reading"] = 4200;
    return pages;
}

importers::RedfishConfig configFor(const std::vector<const FakeRedfish*>& services,
                                   importers::RedfishAuth auth) {
    importers::RedfishConfig config;
    for (const auto* s : services)
        config.services.push_back({s->url(), "/redfish/v1"});
    config.interval = std::chrono::milliseconds(200);
    config.timeout = std::chrono::milliseconds(2000);
    config.maxBackoff = std::chrono::milliseconds(400);
    config.auth = auth;
    config.user = kUser;
    config.password = kPassword;
    return config;
}

std::string describe(const importers::SourceHealth& h) {
    std::string s = h.name + " " + std::string(importers::sourceStateName(h.state)) + " polls " +
                    std::to_string(h.polls) + " samples " + std::to_string(h.samples) + " mapped " +
                    std::to_string(h.mapped) + " bad " + std::to_string(h.badLines) + " errors " +
                    std::to_string(h.errors) + " last: " + h.lastError;
    for (const auto& u : h.unresolved)
        s += "\n  unresolved " + u.name;
    return s;
}

model::EntityId idOf(const model::Topology& t, model::EntityKind kind, const std::string& name) {
    const auto id = t.find(kind, name);
    if (!id) qFatal("no %s on the test floor", name.c_str());
    return *id;
}

} // namespace

class TestRedfish : public QObject {
    Q_OBJECT

private slots:
    void crawlsTheCoolingUnitMockup() {
        const auto pages = loadMockup("public-cooling-unit");
        const CrawlResult r = crawl(pages);
        QVERIFY2(r.count(Problem::BadJson) + r.count(Problem::UnknownType) +
                         r.count(Problem::MissingProperty) + r.count(Problem::DanglingLink) ==
                     0,
                 describe(r).c_str());
        const std::map<std::string, std::string> cdu = {
            {"equipment", "Rack #4 Cooling Distribution Unit"}, {"equipment_id", "1"}};
        QCOMPARE(r.value("CDU/SecondaryCoolantConnector/SupplyTemperatureCelsius", cdu), 30.0);
        QCOMPARE(r.value("CDU/SecondaryCoolantConnector/ReturnTemperatureCelsius", cdu), 48.0);
        QCOMPARE(r.value("CDU/PrimaryCoolantConnector/FlowLitersPerMinute", cdu), 42.0);
        QCOMPARE(r.value("CDU/SecondaryCoolantConnector/HeatRemovedkW", cdu), 25.31);
        QCOMPARE(r.value("CDU/SecondaryCoolantConnector/SupplyTemperatureControlCelsius", cdu),
                 30.0);
        // Pump 2 is UnavailableOffline in the mockup: failed; pump 1 runs.
        QCOMPARE(r.value("CDU/Pump/Status", {{"member", "2"}}), 2.0);
        QCOMPARE(r.value("CDU/Pump/Status", {{"member", "1"}}), 0.0);
        QCOMPARE(r.value("CDU/Pump/PumpSpeedPercent", {{"member", "2"}}), 0.0);
        QCOMPARE(r.value("CDU/LeakDetection/DetectorState", cdu), 0.0);
        QCOMPARE(r.value("CDU/Status", cdu), 1.0); // Health "Warning"
        QCOMPARE(r.find("CDU/LeakDetector/DetectorState").size(), std::size_t{2});
        // The pump's failure once, though the CDU repeats it in its own rollup.
        int failed = 0;
        for (const auto& c : r.conditions)
            failed += c.message == "Pump '2' has failed." ? 1 : 0;
        QCOMPARE(failed, 1);
        // Only what carries cooling readings is walked: no log entries, accounts or schemas.
        QVERIFY(r.fetched < pages.size() / 2);
        for (const auto& p : r.paths)
            QVERIFY2(!p.starts_with("/redfish/v1/Managers") &&
                         !p.starts_with("/redfish/v1/AccountService"),
                     p.c_str());
    }

    void crawlsThePowerMockups() {
        const CrawlResult shelf = crawl(loadMockup("public-power-shelf"));
        const std::map<std::string, std::string> bay1 = {
            {"equipment", "PowerShelf1"}, {"rack", "42"}, {"member", "Bay1"}};
        QCOMPARE(shelf.value("PowerShelf/PowerSupply/OutputPowerWatts", bay1), 937.4);
        QCOMPARE(shelf.value("PowerShelf/PowerSupply/InputVoltage", bay1), 230.2);
        QCOMPARE(shelf.value("PowerShelf/PowerSupply/InputCurrentAmps", bay1), 5.19);
        QCOMPARE(shelf.value("PowerShelf/PowerSupply/State", bay1), 0.0);
        QCOMPARE(shelf.value("PowerShelf/Metrics/PowerWatts", {{"equipment", "PowerShelf1"}}),
                 6438.0);
        // The mockup lists Bay3 twice and Bay2 not at all: five supplies, each read once; only
        // Bay1 is fitted (the others are Absent: an empty bay delivers nothing).
        QCOMPARE(shelf.find("PowerShelf/PowerSupply/State").size(), std::size_t{5});
        QCOMPARE(shelf.value("PowerShelf/PowerSupply/State", {{"member", "Bay4"}}), 2.0);
        QCOMPARE(shelf.value("PowerShelf/PowerSupplies/Delivering"), 1.0);
        double sum = 0;
        for (const auto* p : shelf.find("PowerShelf/PowerSupply/OutputPowerWatts"))
            sum += p->value;
        QCOMPARE(shelf.value("PowerShelf/PowerSupplies/OutputPowerWatts"), sum);
        // The shelf chassis links its PowerSubsystem to its Sensors collection: counted with
        // the URI, and the supplies still found where DSP0268 puts them.
        QVERIFY2(shelf.reported(Problem::UnknownType, "/redfish/v1/Chassis/PowerShelf/Sensors"),
                 describe(shelf).c_str());
        // PowerEquipment does not link its ElectricalBuses in the mockup: not read until it does.
        QVERIFY(shelf.find("Bus/Mains/Voltage").empty());
        auto linked = loadMockup("public-power-shelf");
        linked["/redfish/v1/PowerEquipment"]["ElectricalBuses"] = {
            {"@odata.id", "/redfish/v1/PowerEquipment/ElectricalBuses"}};
        const CrawlResult buses = crawl(linked);
        QCOMPARE(buses.value("Bus/Mains/Voltage", {{"equipment", "Datacenter Busway"}}), 240.8);
        QCOMPARE(buses.value("Bus/Mains/CurrentAmps"), 25.68);

        const CrawlResult pdu = crawl(loadMockup("public-pdu"));
        QVERIFY(!std::isnan(pdu.value("RackPDU/Metrics/PowerWatts", {{"equipment", "RackPDU1"}})));
        QCOMPARE(pdu.find("RackPDU/Branch/CurrentAmps").size(), std::size_t{3});
        // Three-phase mains: a reading per line, named by the phase label.
        QCOMPARE(pdu.value("AutomaticTransferSwitch/Mains/PolyPhaseVoltage",
                           {{"member", "AC1"}, {"phase", "Line1ToLine2"}}),
                 202.2);
    }

    void badInputIsCountedWithItsUri() {
        auto pages = loadMockup("public-cooling-unit");
        const std::string cdu = "/redfish/v1/ThermalEquipment/CDUs/1";
        auto& sec = pages[cdu + "/SecondaryCoolantConnectors/1"];
        // Sensor-only excerpts: the reading comes from the Sensor (in the right units, or
        // converted, or refused), or the link dangles.
        sec["SupplyTemperatureCelsius"].erase("Reading");
        sec["ReturnTemperatureCelsius"].erase("Reading");
        pages["/redfish/v1/Chassis/CDU/Sensors/SecondaryReturnTemp"]["ReadingUnits"] = "W";
        sec["HeatRemovedkW"].erase("Reading");
        pages["/redfish/v1/Chassis/CDU/Sensors/SecondaryHeatLoad"]["ReadingUnits"] = "W";
        pages["/redfish/v1/Chassis/CDU/Sensors/SecondaryHeatLoad"]["Reading"] = 25310;
        sec["DeltaPressurekPa"] = {{"DataSourceUri", "/redfish/v1/Chassis/CDU/Sensors/Gone"}};
        sec["FlowLitersPerMinute"]["Reading"] = "fast";
        pages[cdu + "/Pumps"].erase("Members");
        pages[cdu + "/EnvironmentMetrics"]["@odata.type"] =
            "#EnvironmentMetrics.v2_0_0.EnvironmentMetrics";
        const std::map<std::string, std::string> raw = {
            {cdu + "/Filters/1", "{\"@odata.type\": \"#Filter.v1_0_0.Filter\",\n \"Id\": oops}"}};
        const CrawlResult r = crawl(pages, raw);
        const std::string why = describe(r);

        const double sensorTemp =
            pages["/redfish/v1/Chassis/CDU/Sensors/SecondarySupplyTemp"]["Reading"].get<double>();
        QCOMPARE(r.value("CDU/SecondaryCoolantConnector/SupplyTemperatureCelsius"), sensorTemp);
        QCOMPARE(r.value("CDU/SecondaryCoolantConnector/HeatRemovedkW"), 25.31);
        QVERIFY2(r.find("CDU/SecondaryCoolantConnector/ReturnTemperatureCelsius").empty(),
                 why.c_str());
        QVERIFY2(
            r.reported(Problem::WrongUnits, "/redfish/v1/Chassis/CDU/Sensors/SecondaryReturnTemp"),
            why.c_str());
        QVERIFY2(r.reported(Problem::DanglingLink, "/redfish/v1/Chassis/CDU/Sensors/Gone"),
                 why.c_str());
        QVERIFY2(r.reported(Problem::MissingProperty, cdu + "/SecondaryCoolantConnectors/1"),
                 why.c_str());
        QVERIFY2(r.reported(Problem::MissingProperty, cdu + "/Pumps"), why.c_str());
        QVERIFY2(r.reported(Problem::UnknownType, cdu + "/EnvironmentMetrics"), why.c_str());
        QVERIFY2(r.reported(Problem::BadJson, cdu + "/Filters/1"), why.c_str());
        for (const auto& p : r.reports)
            if (p.kind == Problem::BadJson) QVERIFY2(p.what.starts_with("line 2"), p.what.c_str());
        // The rest of the walk still counts.
        QCOMPARE(r.value("CDU/PrimaryCoolantConnector/FlowLitersPerMinute"), 42.0);
        QCOMPARE(r.find("CDU/LeakDetector/DetectorState").size(), std::size_t{2});
        QVERIFY(r.find("CDU/Pump/Status").empty());
    }

    void boundedPerPoll() {
        importers::redfish::Limits limits;
        limits.maxResources = 6;
        const CrawlResult r = crawl(loadMockup("public-cooling-unit"), {}, limits);
        QCOMPARE(r.fetched, std::size_t{6});
        QCOMPARE(r.count(Problem::OverLimit), std::uint64_t{1});
    }

    void crawlPaths() {
        using importers::redfish::crawlPath;
        QCOMPARE(*crawlPath("/redfish/v1/", ""), std::string("/redfish/v1"));
        QCOMPARE(*crawlPath("https://10.0.0.5/redfish/v1/Chassis/1", "https://10.0.0.5"),
                 std::string("/redfish/v1/Chassis/1"));
        QVERIFY(!crawlPath("http://192.168.5.22/redfish/v1/Feeders/1", "https://10.0.0.5"));
        QVERIFY(!crawlPath("/redfish/v1/Chassis/1/Power#/PowerSupplies/0", ""));
        QVERIFY(!crawlPath("", ""));
    }

    void specs() {
        auto s =
            importers::parseRedfishSpec("redfish=cdu-a1.mgmt,http://127.0.0.1:8000/redfish/v1/");
        QVERIFY2(s.has_value(), s ? "" : s.error().c_str());
        QCOMPARE(s->size(), std::size_t{2});
        QCOMPARE((*s)[0].base, std::string("https://cdu-a1.mgmt"));
        QCOMPARE((*s)[0].root, std::string("/redfish/v1"));
        QCOMPARE((*s)[1].base, std::string("http://127.0.0.1:8000"));
        QVERIFY(!importers::parseRedfishSpec("redfish=ftp://x"));
        QVERIFY(!importers::parseRedfishSpec("redfish=https://root:pw@x"));
        QVERIFY(!importers::parseRedfishSpec("redfish=a,,b"));
    }

    // Three services with sessions: two CDUs, a power shelf, a rack PDU; every reading on the
    // entity it belongs to; then the readings change, a pump fails, a leak, a lost session.
    void readingsLandOnTheirEntities() {
        const auto floor = testFloor();
        FakeRedfish cooling(twoCdus(), FakeRedfish::Auth::Session);
        FakeRedfish shelf(shelfInA02(), FakeRedfish::Auth::Session);
        FakeRedfish pdu(pdusInA03AndA04(), FakeRedfish::Auth::Session);
        Collector sink;
        importers::RedfishSource source(
            configFor({&cooling, &shelf, &pdu}, importers::RedfishAuth::Session), bundledRules(),
            floor, sink.fn());
        source.start();
        const auto& t = *floor;
        const auto a1 = idOf(t, model::EntityKind::Cdu, "CDU A1");
        const auto a2 = idOf(t, model::EntityKind::Cdu, "CDU A2");
        const auto a1pump1 = idOf(t, model::EntityKind::Pump, "CDU A1 pump 1");
        const auto a1pump2 = idOf(t, model::EntityKind::Pump, "CDU A1 pump 2");
        const auto psu1 = idOf(t, model::EntityKind::Psu, "A02 shelf 1 PSU 1");
        const auto shelf1 = idOf(t, model::EntityKind::PowerShelf, "A02 shelf 1");
        const auto feedB = idOf(t, model::EntityKind::PowerFeed, "A busway B");
        const auto a04 = idOf(t, model::EntityKind::Rack, "A04");
        const auto a03 = idOf(t, model::EntityKind::Rack, "A03");
        const auto health = [&] {
            std::string s;
            for (const auto& h : source.health())
                s += describe(h) + "\n";
            return s;
        };
        QTRY_VERIFY2_WITH_TIMEOUT(sink.last(ch::CduSupplyTemperature, a1) == 30.0f &&
                                      sink.last(ch::CduSupplyTemperature, a2) == 35.0f,
                                  health().c_str(), kLong);
        QCOMPARE(sink.last(ch::CduReturnTemperature, a1), 48.0f);
        QCOMPARE(sink.last(ch::PumpHealth, a1pump2), 2.0f);
        QCOMPARE(sink.last(ch::PumpHealth, a1pump1), 0.0f);
        QCOMPARE(sink.last(ch::CduHealth, a1), 1.0f);
        QTRY_VERIFY2_WITH_TIMEOUT(!std::isnan(sink.last(ch::PsuOutput, psu1)) &&
                                      !std::isnan(sink.last(ch::RackPowerInput, a04)) &&
                                      !std::isnan(sink.last(ch::FeedVoltage, feedB)),
                                  health().c_str(), kLong);
        QCOMPARE(sink.last(ch::PsuOutput, psu1), 0.9374f);
        QCOMPARE(sink.last(ch::PsuInputVoltage, psu1), 230.2f);
        QCOMPARE(sink.last(ch::ShelfInput, shelf1), 6.438f);
        QCOMPARE(sink.last(ch::FeedVoltage, feedB), 240.8f);
        QCOMPARE(sink.last(ch::FeedCurrent, feedB), 25.68f);
        const double pdu1 = pdusInA03AndA04()["/redfish/v1/PowerEquipment/RackPDUs/1/Metrics"]
                                             ["PowerWatts"]["Reading"]
                                                 .get<double>();
        QCOMPARE(sink.last(ch::RackPowerInput, a04), static_cast<float>(pdu1 / 1000));
        QCOMPARE(sink.last(ch::RackPowerInput, a03), 4.2f);
        const auto hs = source.health();
        QCOMPARE(hs.size(), std::size_t{3});
        bool pumpCondition = false;
        for (const auto& c : hs[0].conditions)
            pumpCondition = pumpCondition || c.find("Pump '2' has failed.") != std::string::npos;
        QVERIFY2(pumpCondition, health().c_str());
        QCOMPARE(hs[0].state, importers::SourceState::Up);
        // The shelf mockup's wrong PowerSubsystem link: degraded, and it says where.
        QCOMPARE(hs[1].state, importers::SourceState::Degraded);
        QVERIFY2(hs[1].lastError.find("/redfish/v1/Chassis/PowerShelf/Sensors") !=
                     std::string::npos,
                 hs[1].lastError.c_str());
        QVERIFY(cooling.logins() >= 1 && shelf.logins() >= 1 && pdu.logins() >= 1);

        // Readings change, a pump goes offline, a leak detector goes critical.
        const std::string cdu1 = "/redfish/v1/ThermalEquipment/CDUs/1";
        cooling.edit([&](auto& pages) {
            pages[cdu1 + "/SecondaryCoolantConnectors/1"]["SupplyTemperatureCelsius"]["Reading"] =
                31.5;
            pages[cdu1 + "/Pumps/1"]["Status"] = {{"State", "UnavailableOffline"},
                                                  {"Health", "Critical"}};
            pages[cdu1 + "/LeakDetection"]["LeakDetectorGroups"][0]["Detectors"][0]
                 ["DetectorState"] = "Critical";
        });
        QTRY_VERIFY2_WITH_TIMEOUT(sink.last(ch::CduSupplyTemperature, a1) == 31.5f,
                                  health().c_str(), kLong);
        QTRY_COMPARE_WITH_TIMEOUT(sink.last(ch::PumpHealth, a1pump1), 2.0f, kLong);
        QTRY_COMPARE_WITH_TIMEOUT(sink.last(ch::CduLeakDetected, a1), 2.0f, kLong);
        QCOMPARE(sink.last(ch::CduLeakDetected, a2), 0.0f);

        // The service forgets its sessions: the source opens a new one and goes on.
        const int before = cooling.logins();
        cooling.expireSessions();
        cooling.edit([&](auto& pages) {
            pages[cdu1 + "/SecondaryCoolantConnectors/1"]["SupplyTemperatureCelsius"]["Reading"] =
                32.5;
        });
        QTRY_VERIFY2_WITH_TIMEOUT(sink.last(ch::CduSupplyTemperature, a1) == 32.5f,
                                  health().c_str(), kLong);
        QVERIFY(cooling.logins() > before);
        source.stop();
        // Each session given back.
        QVERIFY2(cooling.logouts() >= 1 && shelf.logouts() >= 1 && pdu.logouts() >= 1,
                 health().c_str());
    }

    void credentials() {
        const auto floor = testFloor();
        // No session service: the same credentials as HTTP Basic.
        {
            FakeRedfish basic(twoCdus(), FakeRedfish::Auth::Basic);
            Collector sink;
            importers::RedfishSource source(configFor({&basic}, importers::RedfishAuth::Session),
                                            bundledRules(), floor, sink.fn());
            source.start();
            QTRY_VERIFY2_WITH_TIMEOUT(sink.count(ch::CduSupplyTemperature) > 0,
                                      describe(source.health()[0]).c_str(), kLong);
        }
        // A session token from elsewhere.
        {
            FakeRedfish token(twoCdus(), FakeRedfish::Auth::Token);
            Collector sink;
            auto config = configFor({&token}, importers::RedfishAuth::Token);
            config.token = FakeRedfish::kToken;
            importers::RedfishSource source(config, bundledRules(), floor, sink.fn());
            source.start();
            QTRY_VERIFY2_WITH_TIMEOUT(sink.count(ch::CduSupplyTemperature) > 0,
                                      describe(source.health()[0]).c_str(), kLong);
        }
        // A wrong password, and none at all: down, and the health says what to do.
        {
            FakeRedfish session(twoCdus(), FakeRedfish::Auth::Session);
            Collector sink;
            auto config = configFor({&session}, importers::RedfishAuth::Session);
            config.password = "wrong";
            importers::RedfishSource wrong(config, bundledRules(), floor, sink.fn());
            importers::RedfishSource none(configFor({&session}, importers::RedfishAuth::None),
                                          bundledRules(), floor, sink.fn());
            wrong.start();
            none.start();
            QTRY_VERIFY2_WITH_TIMEOUT(
                wrong.health()[0].state == importers::SourceState::Down &&
                    none.health()[0].state == importers::SourceState::Down,
                (describe(wrong.health()[0]) + "\n" + describe(none.health()[0])).c_str(), kLong);
            QVERIFY2(wrong.health()[0].lastError.find("login refused") != std::string::npos,
                     wrong.health()[0].lastError.c_str());
            QVERIFY2(none.health()[0].lastError.find("401") != std::string::npos &&
                         none.health()[0].lastError.find("credentials") != std::string::npos,
                     none.health()[0].lastError.c_str());
            QCOMPARE(sink.count(ch::CduSupplyTemperature), std::size_t{0});
        }
    }

    // A resource that answers too slowly is one failed fetch named by its URI; the rest of the
    // poll maps. A service that is not there reads Down.
    void slowAndDeadServices() {
        const auto floor = testFloor();
        FakeRedfish slow(twoCdus(), FakeRedfish::Auth::None);
        slow.setDelay("/redfish/v1/ThermalEquipment/CDUs/1/Pumps/2",
                      std::chrono::milliseconds(1500));
        Collector sink;
        auto config = configFor({&slow}, importers::RedfishAuth::None);
        config.timeout = std::chrono::milliseconds(300);
        config.services.push_back({"http://127.0.0.1:1", "/redfish/v1"});
        importers::RedfishSource source(config, bundledRules(), floor, sink.fn());
        source.start();
        const auto a1 = idOf(*floor, model::EntityKind::Cdu, "CDU A1");
        const auto a1pump2 = idOf(*floor, model::EntityKind::Pump, "CDU A1 pump 2");
        QTRY_VERIFY2_WITH_TIMEOUT(
            source.health()[0].errors > 0 &&
                source.health()[1].state == importers::SourceState::Down,
            (describe(source.health()[0]) + "\n" + describe(source.health()[1])).c_str(), kLong);
        const auto h = source.health()[0];
        QCOMPARE(h.state, importers::SourceState::Degraded);
        QVERIFY2(h.lastError.find("/redfish/v1/ThermalEquipment/CDUs/1/Pumps/2") !=
                         std::string::npos &&
                     h.lastError.find("timed out") != std::string::npos,
                 h.lastError.c_str());
        QCOMPARE(sink.last(ch::CduSupplyTemperature, a1), 30.0f);
        QVERIFY(std::isnan(sink.last(ch::PumpHealth, a1pump2)));
    }

    // A CDU controller's address the floor knows places the CDU's readings, whatever the CDU
    // calls itself (DMTF's mockup as recorded: "Rack #4 Cooling Distribution Unit").
    void bmcAddressPlacesTheCdu() {
        const auto floor = testFloor(false, true);
        FakeRedfish cdu(loadMockup("public-cooling-unit"), FakeRedfish::Auth::None);
        Collector sink;
        importers::RedfishSource source(configFor({&cdu}, importers::RedfishAuth::None),
                                        bundledRules(), floor, sink.fn());
        source.start();
        const auto a1 = idOf(*floor, model::EntityKind::Cdu, "CDU A1");
        const auto a2 = idOf(*floor, model::EntityKind::Cdu, "CDU A2");
        const auto a2pump2 = idOf(*floor, model::EntityKind::Pump, "CDU A2 pump 2");
        QTRY_VERIFY2_WITH_TIMEOUT(sink.last(ch::CduSupplyTemperature, a2) == 30.0f &&
                                      sink.last(ch::PumpHealth, a2pump2) == 2.0f,
                                  describe(source.health()[0]).c_str(), kLong);
        QVERIFY(std::isnan(sink.last(ch::CduSupplyTemperature, a1)));
        QVERIFY2(source.health()[0].unresolved.empty(), describe(source.health()[0]).c_str());
    }

    // A management address the floor knows places the shelf, whatever its Location says.
    void bmcAddressPlacesTheShelf() {
        const auto floor = testFloor(true);
        auto pages = shelfInA02();
        FakeRedfish shelf(pages, FakeRedfish::Auth::None);
        Collector sink;
        importers::RedfishSource source(configFor({&shelf}, importers::RedfishAuth::None),
                                        bundledRules(), floor, sink.fn());
        source.start();
        const auto inA03 = idOf(*floor, model::EntityKind::Psu, "A03 shelf 1 PSU 1");
        const auto inA02 = idOf(*floor, model::EntityKind::Psu, "A02 shelf 1 PSU 1");
        QTRY_VERIFY2_WITH_TIMEOUT(!std::isnan(sink.last(ch::PsuOutput, inA03)),
                                  describe(source.health()[0]).c_str(), kLong);
        QVERIFY(std::isnan(sink.last(ch::PsuOutput, inA02)));
    }
};

QTEST_GUILESS_MAIN(TestRedfish)
#include "test_redfish.moc"
