// Redfish: the project's own services (tests/data/redfish, written from DSP0268: a CDU
// controller, rack A02's power shelves, row A's rack PDU and busways), walked as they are and
// edited the way real services go wrong — malformed JSON, missing properties, a Sensor in the
// wrong units, an unknown major version, a DataSourceUri that does not resolve, a link to the
// wrong resource — then served on 127.0.0.1 with authentication required (a Redfish session,
// HTTP Basic, a token) while their readings change, a pump goes offline, a leak detector goes
// critical, a session expires, a resource answers too slowly. Waits poll (QTRY_*) and nothing
// asserts on timing. DMTF's own mockups are crawled by test_redfish_corpus.
#include "importers/floor/floor_file.h"
#include "importers/formats/redfish_crawl.h"
#include "importers/mapping/mapping_rules.h"
#include "importers/sources/redfish_source.h"
#include "model/channel_catalog.h"
#include "model/topology.h"
#include "support/loopback_server.h"
#include "support/redfish_fixtures.h"
#include "support/test_paths.h"

#include <QByteArray>
#include <QTest>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ranges>
#include <set>
#include <thread>

using namespace ft;
using importers::redfish::Problem;
using nlohmann::json;
using testing::crawl;
using testing::CrawlResult;
using testing::describe;
using testing::RedfishPages;
using testing::redfishService;
namespace ch = model::ch;

namespace {

constexpr int kLong = 20000;
const std::string kUser = "admin", kPassword = "s3cret-Pa55";

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

// Copies every page under `from` to `to`, links inside rewritten: a second CDU or PDU.
void copySubtree(RedfishPages& pages, const std::string& from, const std::string& to) {
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

// A Redfish service on 127.0.0.1 serving pages that a test edits while it runs. The service root
// answers anyone (DSP0268); everything else wants the credentials of `auth`. Refusals carry
// DSP0268's error body (tests/data/redfish/errors.json).
class FakeRedfish {
public:
    enum class Auth { Session, Basic, Token, None };
    FakeRedfish(RedfishPages pages, Auth auth)
        : m_pages(std::move(pages)), m_auth(auth),
          m_server([this](const testing::PageServer::Request& r) { return answer(r); }, true) {}

    std::string url() const { return m_server.base(); }
    std::vector<std::string> targets() const { return m_server.targets(); }
    void edit(const std::function<void(RedfishPages&)>& fn) {
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
            if (m_auth != Auth::Session) return {405, testing::redfishError(405, path)};
            const json body = json::parse(r.body, nullptr, false);
            if (!body.is_object() || body.value("UserName", "") != kUser ||
                body.value("Password", "") != kPassword)
                return {401, testing::redfishError(401, path)};
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
        if (path != "/redfish/v1" && !authorized(r)) return {401, testing::redfishError(401, path)};
        if (const auto d = m_delays.find(path); d != m_delays.end()) {
            const auto delay = d->second;
            lock.unlock();
            std::this_thread::sleep_for(delay);
            lock.lock();
        }
        const auto p = m_pages.find(path);
        if (p == m_pages.end()) return {404, testing::redfishError(404, path)};
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
    RedfishPages m_pages;
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
    auto rules = importers::loadMappingRules(FT_SOURCE_PATH("/resources/mappings/redfish.json"));
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

// The CDU controller with a second CDU: CDU 1 named "CDU A1", CDU 2 "CDU A2" at 35 °C.
RedfishPages twoCdus() {
    auto pages = redfishService("cdu");
    copySubtree(pages, "/redfish/v1/ThermalEquipment/CDUs/1",
                "/redfish/v1/ThermalEquipment/CDUs/2");
    auto& members = pages["/redfish/v1/ThermalEquipment/CDUs"]["Members"];
    members.push_back({{"@odata.id", "/redfish/v1/ThermalEquipment/CDUs/2"}});
    pages["/redfish/v1/ThermalEquipment/CDUs"]["Members@odata.count"] = 2;
    pages["/redfish/v1/ThermalEquipment/CDUs/1"]["Name"] = "CDU A1";
    pages["/redfish/v1/ThermalEquipment/CDUs/2"]["Name"] = "CDU A2";
    pages["/redfish/v1/ThermalEquipment/CDUs/2"]["Id"] = "2";
    pages["/redfish/v1/ThermalEquipment/CDUs/2/SecondaryCoolantConnectors/TCS"]
         ["SupplyTemperatureCelsius"]["Reading"] = 35;
    return pages;
}

// Row A's power monitor with a second rack PDU: 1 in A04 (as written), 2 in A03 drawing 4.2 kW.
RedfishPages pdusInA03AndA04() {
    auto pages = redfishService("pdu");
    copySubtree(pages, "/redfish/v1/PowerEquipment/RackPDUs/1",
                "/redfish/v1/PowerEquipment/RackPDUs/2");
    pages["/redfish/v1/PowerEquipment/RackPDUs"]["Members"].push_back(
        {{"@odata.id", "/redfish/v1/PowerEquipment/RackPDUs/2"}});
    pages["/redfish/v1/PowerEquipment/RackPDUs"]["Members@odata.count"] = 2;
    pages["/redfish/v1/PowerEquipment/RackPDUs/2"]["Location"]["Placement"]["Rack"] = "A03";
    pages["/redfish/v1/PowerEquipment/RackPDUs/2"]["Id"] = "2";
    pages["/redfish/v1/PowerEquipment/RackPDUs/2"]["Name"] = "PDU A03-L";
    pages["/redfish/v1/PowerEquipment/RackPDUs/2/Metrics"]["PowerWatts"]["Reading"] = 4200;
    return pages;
}

// A shelf's chassis that links its PowerSubsystem to its Sensors collection instead (DMTF's own
// power shelf mockup does): the supplies must still be found where DSP0268 puts them.
void misplacePowerSubsystem(RedfishPages& shelf) {
    shelf["/redfish/v1/Chassis/Shelf1"]["PowerSubsystem"]["@odata.id"] =
        "/redfish/v1/Chassis/Shelf1/Sensors";
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
    void crawlsTheCduService() {
        const auto pages = redfishService("cdu");
        const CrawlResult r = crawl(pages);
        QVERIFY2(r.count(Problem::BadJson) + r.count(Problem::UnknownType) +
                         r.count(Problem::MissingProperty) + r.count(Problem::DanglingLink) ==
                     0,
                 describe(r).c_str());
        const std::map<std::string, std::string> cdu = {{"equipment", "North hall CDU 07"},
                                                        {"equipment_id", "1"},
                                                        {"asset_tag", "NH-CDU-07"},
                                                        {"row", "North"}};
        QCOMPARE(r.value("CDU/SecondaryCoolantConnector/SupplyTemperatureCelsius", cdu), 32.0);
        QCOMPARE(r.value("CDU/SecondaryCoolantConnector/ReturnTemperatureCelsius", cdu), 44.5);
        QCOMPARE(r.value("CDU/SecondaryCoolantConnector/FlowLitersPerMinute", cdu), 178.0);
        QCOMPARE(r.value("CDU/PrimaryCoolantConnector/FlowLitersPerMinute", cdu), 190.5);
        QCOMPARE(r.value("CDU/PrimaryCoolantConnector/SupplyTemperatureCelsius", cdu), 24.0);
        QCOMPARE(r.value("CDU/SecondaryCoolantConnector/HeatRemovedkW", cdu), 150.6);
        QCOMPARE(r.value("CDU/SecondaryCoolantConnector/SupplyTemperatureControlCelsius", cdu),
                 32.0);
        QCOMPARE(r.value("CDU/Reservoir/FluidLevelPercent", cdu), 81.0);
        // Pump1 is UnavailableOffline: failed; Pump2 runs.
        QCOMPARE(r.value("CDU/Pump/Status", {{"member", "Pump1"}}), 2.0);
        QCOMPARE(r.value("CDU/Pump/Status", {{"member", "Pump2"}}), 0.0);
        QCOMPARE(r.value("CDU/Pump/PumpSpeedPercent", {{"member", "Pump1"}}), 0.0);
        QCOMPARE(r.value("CDU/Pump/PumpSpeedPercent", {{"member", "Pump2"}}), 64.0);
        QCOMPARE(r.value("CDU/LeakDetection/DetectorState", cdu), 0.0);
        QCOMPARE(r.value("CDU/Status", cdu), 1.0); // Health "Warning"
        // Three detectors in two groups, each named by its LeakDetector's Id.
        QCOMPARE(r.find("CDU/LeakDetector/DetectorState").size(), std::size_t{3});
        QCOMPARE(r.value("CDU/LeakDetector/DetectorState",
                         {{"member", "TankOverflow"}, {"member_name", "Overflow float switch"}}),
                 0.0);
        // The pump's failure once, though the CDU repeats it in its own rollup.
        int failed = 0;
        for (const auto& c : r.conditions)
            failed += c.message == "Pump 'Pump1' has failed." ? 1 : 0;
        QCOMPARE(failed, 1);
        QCOMPARE(r.conditions.size(), std::size_t{1}); // the CDU's "OK" condition is not one
        // Only what carries cooling readings is walked: no log entries, accounts, cooling loops,
        // and no Sensors while every excerpt carries its Reading.
        QCOMPARE(r.fetched, std::size_t{17});
        QVERIFY(r.fetched < pages.size() / 2);
        for (const auto& p : r.paths)
            QVERIFY2(!p.starts_with("/redfish/v1/Managers") &&
                         !p.starts_with("/redfish/v1/AccountService") &&
                         !p.starts_with("/redfish/v1/Chassis") &&
                         !p.starts_with("/redfish/v1/ThermalEquipment/CoolingLoops"),
                     p.c_str());
    }

    void crawlsThePowerServices() {
        const CrawlResult shelf = crawl(redfishService("power-shelf"));
        QVERIFY2(shelf.count(Problem::BadJson) + shelf.count(Problem::UnknownType) +
                         shelf.count(Problem::MissingProperty) +
                         shelf.count(Problem::DanglingLink) ==
                     0,
                 describe(shelf).c_str());
        const std::map<std::string, std::string> upper = {{"equipment", "Upper power shelf"},
                                                          {"equipment_id", "1"}};
        std::map<std::string, std::string> psu1 = upper;
        psu1.insert({{"rack", "A02"}, {"member", "PSU1"}, {"service_label", "PSU 1"}});
        QCOMPARE(shelf.value("PowerShelf/PowerSupply/OutputPowerWatts", psu1), 4826.0);
        QCOMPARE(shelf.value("PowerShelf/PowerSupply/InputPowerWatts", psu1), 4952.0);
        QCOMPARE(shelf.value("PowerShelf/PowerSupply/InputVoltage", psu1), 239.6);
        QCOMPARE(shelf.value("PowerShelf/PowerSupply/InputCurrentAmps", psu1), 20.7);
        QCOMPARE(shelf.value("PowerShelf/PowerSupply/State", psu1), 0.0);
        QCOMPARE(shelf.value("PowerShelf/Metrics/PowerWatts", upper), 14781.0);
        // The upper shelf: five bays, PSU3 failed and bay 5 empty (an empty bay delivers nothing
        // either); its supplies through its chassis' PowerSubsystem.
        std::map<std::string, std::string> psu3 = upper, bay5 = upper;
        psu3["member"] = "PSU3";
        bay5["member"] = "PSU5";
        QCOMPARE(shelf.find("PowerShelf/PowerSupply/State", upper).size(), std::size_t{5});
        QCOMPARE(shelf.value("PowerShelf/PowerSupply/State", psu3), 2.0);
        QCOMPARE(shelf.value("PowerShelf/PowerSupply/State", bay5), 2.0);
        QCOMPARE(shelf.value("PowerShelf/PowerSupplies/Delivering", upper), 3.0);
        double sum = 0;
        for (const auto* p : shelf.find("PowerShelf/PowerSupply/OutputPowerWatts", upper))
            sum += p->value;
        QCOMPARE(sum, 14409.0);
        QCOMPARE(shelf.value("PowerShelf/PowerSupplies/OutputPowerWatts", upper), sum);
        bool failedPsu = false;
        for (const auto& c : shelf.conditions)
            failedPsu = failedPsu || c.message == "Power supply PSU3 has failed.";
        QVERIFY(failedPsu);
        // The lower shelf lists its supplies itself (PowerDistribution.PowerSupplies).
        const std::map<std::string, std::string> lower = {{"equipment", "Lower power shelf"},
                                                          {"equipment_id", "2"}};
        QCOMPARE(shelf.value("PowerShelf/PowerSupplies/Delivering", lower), 2.0);
        QCOMPARE(shelf.value("PowerShelf/PowerSupplies/OutputPowerWatts", lower), 8156.0);
        QCOMPARE(shelf.value("PowerShelf/PowerSupplies/InputPowerWatts", lower), 8363.0);

        // A collection that lists a member twice: each supply still read once.
        auto twice = redfishService("power-shelf");
        twice["/redfish/v1/Chassis/Shelf1/PowerSubsystem/PowerSupplies"]["Members"].push_back(
            {{"@odata.id", "/redfish/v1/Chassis/Shelf1/PowerSubsystem/PowerSupplies/PSU2"}});
        QCOMPARE(crawl(twice).find("PowerShelf/PowerSupply/State", upper).size(), std::size_t{5});
        // A chassis that links its PowerSubsystem to its Sensors: counted with the URI, and the
        // supplies still found where DSP0268 puts them.
        auto misplaced = redfishService("power-shelf");
        misplacePowerSubsystem(misplaced);
        const CrawlResult wrong = crawl(misplaced);
        QVERIFY2(wrong.reported(Problem::UnknownType, "/redfish/v1/Chassis/Shelf1/Sensors"),
                 describe(wrong).c_str());
        QCOMPARE(wrong.find("PowerShelf/PowerSupply/State", upper).size(), std::size_t{5});
        QCOMPARE(wrong.value("PowerShelf/PowerSupplies/Delivering", upper), 3.0);

        const CrawlResult pdu = crawl(redfishService("pdu"));
        QVERIFY2(pdu.count(Problem::BadJson) + pdu.count(Problem::UnknownType) +
                         pdu.count(Problem::MissingProperty) + pdu.count(Problem::DanglingLink) ==
                     0,
                 describe(pdu).c_str());
        QCOMPARE(
            pdu.value("RackPDU/Metrics/PowerWatts", {{"equipment", "PDU A04-L"}, {"rack", "A04"}}),
            4320.0);
        QCOMPARE(pdu.find("RackPDU/Branch/CurrentAmps").size(), std::size_t{3});
        // Branch L3's breaker has tripped: it carries nothing.
        QCOMPARE(pdu.value("RackPDU/Branch/BreakerState", {{"member", "L3"}}), 2.0);
        QCOMPARE(pdu.value("RackPDU/Branch/BreakerState", {{"member", "L1"}}), 0.0);
        QCOMPARE(pdu.value("RackPDU/Branch/CurrentAmps", {{"member", "L1"}}), 9.8);
        // Three-phase mains: a reading per line, named by the phase label.
        QCOMPARE(pdu.value("RackPDU/Mains/PolyPhaseVoltage",
                           {{"member", "Input"}, {"phase", "Line1ToLine2"}}),
                 401.3);
        QCOMPARE(pdu.find("RackPDU/Mains/PolyPhaseCurrentAmps").size(), std::size_t{4});
        // The busways: three-phase too, named as the floor names row A's feeds.
        const std::map<std::string, std::string> busB = {{"equipment", "A busway B"}};
        QCOMPARE(pdu.value("Bus/Mains/PowerWatts", busB), 37300.0);
        QCOMPARE(pdu.value("Bus/Mains/PolyPhaseVoltage",
                           {{"equipment", "A busway B"}, {"phase", "Line1ToLine2"}}),
                 412.6);
        QCOMPARE(pdu.value("Bus/Mains/PolyPhaseCurrentAmps",
                           {{"equipment", "A busway A"}, {"phase", "Line1"}}),
                 48.2);
        QCOMPARE(pdu.find("Bus/Mains/BreakerState").size(), std::size_t{2});
        // Outlets carry no channel of the twin's: not walked.
        for (const auto& p : pdu.paths)
            QVERIFY2(p.find("/Outlets") == std::string::npos, p.c_str());
        // ElectricalBuses not linked from PowerEquipment: not read until it is.
        auto unlinked = redfishService("pdu");
        unlinked["/redfish/v1/PowerEquipment"].erase("ElectricalBuses");
        const CrawlResult noBuses = crawl(unlinked);
        QVERIFY(noBuses.find("Bus/Mains/PowerWatts").empty());
        QCOMPARE(noBuses.value("RackPDU/Metrics/PowerWatts"), 4320.0);
    }

    void badInputIsCountedWithItsUri() {
        auto pages = redfishService("cdu");
        const std::string cdu = "/redfish/v1/ThermalEquipment/CDUs/1";
        const std::string sensors = "/redfish/v1/Chassis/CDU07/Sensors";
        auto& sec = pages[cdu + "/SecondaryCoolantConnectors/TCS"];
        // Sensor-only excerpts: the reading comes from the Sensor (in the right units, or
        // converted, or refused), or the link dangles. The supply Sensor read a moment after
        // the excerpt was written.
        sec["SupplyTemperatureCelsius"].erase("Reading");
        pages[sensors + "/TCSSupplyTemp"]["Reading"] = 32.25;
        sec["ReturnTemperatureCelsius"].erase("Reading");
        pages[sensors + "/TCSReturnTemp"]["ReadingUnits"] = "W";
        sec["HeatRemovedkW"].erase("Reading");
        pages[sensors + "/TCSHeatLoad"]["ReadingUnits"] = "W";
        pages[sensors + "/TCSHeatLoad"]["Reading"] = 150600;
        sec["DeltaPressurekPa"] = {{"DataSourceUri", sensors + "/Gone"}};
        sec["FlowLitersPerMinute"]["Reading"] = "fast";
        pages[cdu + "/Pumps"].erase("Members");
        pages[cdu + "/EnvironmentMetrics"]["@odata.type"] =
            "#EnvironmentMetrics.v2_0_0.EnvironmentMetrics";
        const std::map<std::string, std::string> raw = {
            {cdu + "/Filters/Strainer",
             "{\"@odata.type\": \"#Filter.v1_0_2.Filter\",\n \"Id\": oops}"}};
        const CrawlResult r = crawl(pages, raw);
        const std::string why = describe(r);

        QCOMPARE(r.value("CDU/SecondaryCoolantConnector/SupplyTemperatureCelsius"), 32.25);
        QCOMPARE(r.value("CDU/SecondaryCoolantConnector/HeatRemovedkW"), 150.6);
        QVERIFY2(r.find("CDU/SecondaryCoolantConnector/ReturnTemperatureCelsius").empty(),
                 why.c_str());
        QVERIFY2(r.reported(Problem::WrongUnits, sensors + "/TCSReturnTemp"), why.c_str());
        QVERIFY2(r.reported(Problem::DanglingLink, sensors + "/Gone"), why.c_str());
        QVERIFY2(r.reported(Problem::MissingProperty, cdu + "/SecondaryCoolantConnectors/TCS"),
                 why.c_str());
        QVERIFY2(r.reported(Problem::MissingProperty, cdu + "/Pumps"), why.c_str());
        QVERIFY2(r.reported(Problem::UnknownType, cdu + "/EnvironmentMetrics"), why.c_str());
        QVERIFY2(r.reported(Problem::BadJson, cdu + "/Filters/Strainer"), why.c_str());
        for (const auto& p : r.reports)
            if (p.kind == Problem::BadJson) QVERIFY2(p.what.starts_with("line 2"), p.what.c_str());
        // The rest of the walk still counts.
        QCOMPARE(r.value("CDU/PrimaryCoolantConnector/FlowLitersPerMinute"), 190.5);
        QCOMPARE(r.find("CDU/LeakDetector/DetectorState").size(), std::size_t{3});
        QVERIFY(r.find("CDU/Pump/Status").empty());
    }

    void boundedPerPoll() {
        importers::redfish::Limits limits;
        limits.maxResources = 6;
        const CrawlResult r = crawl(redfishService("cdu"), {}, limits);
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

    // Three services with sessions: two CDUs, rack A02's power shelves, two rack PDUs and row
    // A's busways; every reading on the entity it belongs to; then the readings change, a pump
    // fails, a leak, a lost session.
    void readingsLandOnTheirEntities() {
        const auto floor = testFloor();
        FakeRedfish cooling(twoCdus(), FakeRedfish::Auth::Session);
        auto shelfPages = redfishService("power-shelf");
        misplacePowerSubsystem(shelfPages);
        FakeRedfish shelf(shelfPages, FakeRedfish::Auth::Session);
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
        const auto lowerPsu2 = idOf(t, model::EntityKind::Psu, "A02 shelf 2 PSU 2");
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
        QTRY_VERIFY2_WITH_TIMEOUT(sink.last(ch::CduSupplyTemperature, a1) == 32.0f &&
                                      sink.last(ch::CduSupplyTemperature, a2) == 35.0f,
                                  health().c_str(), kLong);
        QCOMPARE(sink.last(ch::CduReturnTemperature, a1), 44.5f);
        QCOMPARE(sink.last(ch::PumpHealth, a1pump1), 2.0f);
        QCOMPARE(sink.last(ch::PumpHealth, a1pump2), 0.0f);
        QCOMPARE(sink.last(ch::CduHealth, a1), 1.0f);
        QTRY_VERIFY2_WITH_TIMEOUT(!std::isnan(sink.last(ch::PsuOutput, psu1)) &&
                                      !std::isnan(sink.last(ch::RackPowerInput, a04)) &&
                                      !std::isnan(sink.last(ch::FeedVoltage, feedB)),
                                  health().c_str(), kLong);
        QCOMPARE(sink.last(ch::PsuOutput, psu1), 4.826f);
        QCOMPARE(sink.last(ch::PsuInputVoltage, psu1), 239.6f);
        QCOMPARE(sink.last(ch::ShelfInput, shelf1), 14.781f);
        QCOMPARE(sink.last(ch::PsuOutput, lowerPsu2), 4.057f);
        // Row A's busway B: three-phase, line 1 to line 2 and line 1's current.
        QCOMPARE(sink.last(ch::FeedVoltage, feedB), 412.6f);
        QCOMPARE(sink.last(ch::FeedCurrent, feedB), 52.7f);
        const double pdu1 = pdusInA03AndA04()["/redfish/v1/PowerEquipment/RackPDUs/1/Metrics"]
                                             ["PowerWatts"]["Reading"]
                                                 .get<double>();
        QCOMPARE(sink.last(ch::RackPowerInput, a04), static_cast<float>(pdu1 / 1000));
        QCOMPARE(sink.last(ch::RackPowerInput, a03), 4.2f);
        const auto hs = source.health();
        QCOMPARE(hs.size(), std::size_t{3});
        bool pumpCondition = false;
        for (const auto& c : hs[0].conditions)
            pumpCondition =
                pumpCondition || c.find("Pump 'Pump1' has failed.") != std::string::npos;
        QVERIFY2(pumpCondition, health().c_str());
        QCOMPARE(hs[0].state, importers::SourceState::Up);
        // The shelf chassis' wrong PowerSubsystem link: degraded, and it says where.
        QCOMPARE(hs[1].state, importers::SourceState::Degraded);
        QVERIFY2(hs[1].lastError.find("/redfish/v1/Chassis/Shelf1/Sensors") != std::string::npos,
                 hs[1].lastError.c_str());
        QVERIFY(cooling.logins() >= 1 && shelf.logins() >= 1 && pdu.logins() >= 1);

        // Readings change, a pump goes offline, a leak detector goes critical.
        const std::string cdu1 = "/redfish/v1/ThermalEquipment/CDUs/1";
        cooling.edit([&](auto& pages) {
            pages[cdu1 + "/SecondaryCoolantConnectors/TCS"]["SupplyTemperatureCelsius"]["Reading"] =
                31.5;
            pages[cdu1 + "/Pumps/Pump2"]["Status"] = {{"State", "UnavailableOffline"},
                                                      {"Health", "Critical"}};
            pages[cdu1 + "/LeakDetection"]["LeakDetectorGroups"][0]["Detectors"][0]
                 ["DetectorState"] = "Critical";
        });
        QTRY_VERIFY2_WITH_TIMEOUT(sink.last(ch::CduSupplyTemperature, a1) == 31.5f,
                                  health().c_str(), kLong);
        QTRY_COMPARE_WITH_TIMEOUT(sink.last(ch::PumpHealth, a1pump2), 2.0f, kLong);
        QTRY_COMPARE_WITH_TIMEOUT(sink.last(ch::CduLeakDetected, a1), 2.0f, kLong);
        QCOMPARE(sink.last(ch::CduLeakDetected, a2), 0.0f);

        // The service forgets its sessions: the source opens a new one and goes on.
        const int before = cooling.logins();
        cooling.expireSessions();
        cooling.edit([&](auto& pages) {
            pages[cdu1 + "/SecondaryCoolantConnectors/TCS"]["SupplyTemperatureCelsius"]["Reading"] =
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
        slow.setDelay("/redfish/v1/ThermalEquipment/CDUs/1/Pumps/Pump2",
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
        QVERIFY2(h.lastError.find("/redfish/v1/ThermalEquipment/CDUs/1/Pumps/Pump2") !=
                         std::string::npos &&
                     h.lastError.find("timed out") != std::string::npos,
                 h.lastError.c_str());
        QCOMPARE(sink.last(ch::CduSupplyTemperature, a1), 32.0f);
        QVERIFY(std::isnan(sink.last(ch::PumpHealth, a1pump2)));
    }

    // A CDU controller's address the floor knows places the CDU's readings, whatever the CDU
    // calls itself (the fixture's "North hall CDU 07", asset tag NH-CDU-07: not the floor's names).
    void bmcAddressPlacesTheCdu() {
        const auto floor = testFloor(false, true);
        FakeRedfish cdu(redfishService("cdu"), FakeRedfish::Auth::None);
        Collector sink;
        importers::RedfishSource source(configFor({&cdu}, importers::RedfishAuth::None),
                                        bundledRules(), floor, sink.fn());
        source.start();
        const auto a1 = idOf(*floor, model::EntityKind::Cdu, "CDU A1");
        const auto a2 = idOf(*floor, model::EntityKind::Cdu, "CDU A2");
        const auto a2pump1 = idOf(*floor, model::EntityKind::Pump, "CDU A2 pump 1");
        QTRY_VERIFY2_WITH_TIMEOUT(sink.last(ch::CduSupplyTemperature, a2) == 32.0f &&
                                      sink.last(ch::PumpHealth, a2pump1) == 2.0f,
                                  describe(source.health()[0]).c_str(), kLong);
        QVERIFY(std::isnan(sink.last(ch::CduSupplyTemperature, a1)));
        QVERIFY2(source.health()[0].unresolved.empty(), describe(source.health()[0]).c_str());
    }

    // A management address the floor knows places the shelf, whatever its Location says.
    void bmcAddressPlacesTheShelf() {
        const auto floor = testFloor(true);
        FakeRedfish shelf(redfishService("power-shelf"), FakeRedfish::Auth::None);
        Collector sink;
        importers::RedfishSource source(configFor({&shelf}, importers::RedfishAuth::None),
                                        bundledRules(), floor, sink.fn());
        source.start();
        const auto inA03 = idOf(*floor, model::EntityKind::Psu, "A03 shelf 1 PSU 1");
        const auto inA02 = idOf(*floor, model::EntityKind::Psu, "A02 shelf 1 PSU 1");
        QTRY_VERIFY2_WITH_TIMEOUT(!std::isnan(sink.last(ch::PsuOutput, inA03)),
                                  describe(source.health()[0]).c_str(), kLong);
        QCOMPARE(sink.last(ch::PsuOutput, inA03), 4.826f);
        QVERIFY(std::isnan(sink.last(ch::PsuOutput, inA02)));
    }
};

QTEST_GUILESS_MAIN(TestRedfish)
#include "test_redfish.moc"
