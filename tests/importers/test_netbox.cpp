// NetBox inventories: recorded API pages (tests/data/netbox/dh3, NetBox 4.x and 3.x shapes)
// served on 127.0.0.1 with pagination and a token check, read live and from the dump, and the
// failures a real server has: a refused token, an HTTP error half-way, a page that is not JSON,
// a count that does not add up. A partial read is never an inventory.
#include "importers/floor/floor_file.h"
#include "importers/floor/netbox_inventory.h"
#include "importers/net/netbox_client.h"
#include "support/loopback_server.h"
#include "support/test_paths.h"

#include <QTest>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

using namespace ft;

namespace {

const std::string kDump = FT_TEST_DATA_PATH("/netbox/dh3");
const std::string kToken = "0123456789abcdef0123456789abcdef01234567";

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

std::string queryValue(const std::string& target, const std::string& key) {
    const auto q = target.find('?');
    if (q == std::string::npos) return {};
    std::stringstream ss(target.substr(q + 1));
    for (std::string kv; std::getline(ss, kv, '&');)
        if (kv.starts_with(key + "=")) return kv.substr(key.size() + 1);
    return {};
}

// NetBox as the dump recorded it: the pages by endpoint and offset, `next` links rewritten to
// this server; `fault` decides per request whether to answer otherwise.
class FakeNetbox {
public:
    using Fault = std::function<std::optional<testing::PageServer::Response>(const std::string&)>;
    explicit FakeNetbox(Fault fault = {}, bool floorplans = true)
        : m_fault(std::move(fault)), m_floorplans(floorplans),
          m_server([this](const testing::PageServer::Request& r) { return answer(r); }) {}
    std::string url() const { return m_server.base(); }
    std::vector<std::string> targets() const { return m_server.targets(); }

private:
    testing::PageServer::Response answer(const testing::PageServer::Request& r) {
        if (auto it = r.headers.find("authorization");
            it == r.headers.end() || it->second != "Token " + kToken)
            return {403, R"({"detail": "Invalid token"})"};
        if (m_fault)
            if (auto f = m_fault(r.target)) return *f;
        const std::string path = r.target.substr(0, r.target.find('?'));
        static const std::map<std::string, std::string> files{
            {"/api/dcim/sites/", "sites"},
            {"/api/dcim/locations/", "locations"},
            {"/api/dcim/racks/", "racks"},
            {"/api/plugins/floorplan/floorplans/", "floorplans"}};
        std::string file;
        if (path == "/api/dcim/devices/") {
            // Pages of 22, as the dump has them.
            const std::string offset = queryValue(r.target, "offset");
            const int page = offset.empty() ? 1 : std::stoi(offset) / 22 + 1;
            file = "devices-" + std::to_string(page);
        } else if (auto it = files.find(path); it != files.end()) {
            if (it->second == "floorplans" && !m_floorplans)
                return {404, R"({"detail": "Not found."})"};
            file = it->second;
        } else {
            return {404, R"({"detail": "Not found."})"};
        }
        const std::string body = readFile(kDump + "/" + file + ".json");
        if (body.empty()) return {404, R"({"detail": "Not found."})"};
        return {200, replaceAll(body, "http://netbox.example", url())};
    }

    Fault m_fault;
    bool m_floorplans;
    testing::PageServer m_server;
};

std::expected<importers::Inventory, importers::Error>
inventoryOf(const std::expected<importers::NetboxObjects, importers::Error>& objects) {
    if (!objects) return std::unexpected(objects.error());
    return importers::netboxInventory(*objects, {}, "netbox");
}

importers::NetboxFetchOptions withToken(std::string token = kToken) {
    importers::NetboxFetchOptions o;
    o.token = std::move(token);
    o.http.timeout = std::chrono::milliseconds(5000);
    return o;
}

} // namespace

class TestNetbox : public QObject {
    Q_OBJECT

private slots:
    void liveReadEqualsItsDump() {
        FakeNetbox netbox;
        const auto live = inventoryOf(importers::fetchNetbox(netbox.url(), withToken()));
        QVERIFY2(live, live ? "" : live.error().toString().c_str());
        const auto dump = inventoryOf(importers::loadNetboxDump(kDump));
        QVERIFY2(dump, dump ? "" : dump.error().toString().c_str());
        QCOMPARE(importers::floorSpecToJson(live->spec), importers::floorSpecToJson(dump->spec));
        // Every page was read: three of devices, one of each other endpoint.
        int devicePages = 0;
        for (const auto& t : netbox.targets())
            devicePages += t.starts_with("/api/dcim/devices/") ? 1 : 0;
        QCOMPARE(devicePages, 3);
        QVERIFY(netbox.targets().front().find("limit=1000") != std::string::npos);

        const auto& spec = live->spec;
        QCOMPARE(live->hosts, std::size_t{44}); // compute trays only, also from the 3.x page
        QCOMPARE(live->racks, std::size_t{8});
        QCOMPARE(spec.name, std::string("ams1 DH3"));
        QCOMPARE(spec.rows.size(), std::size_t{2});
        // The floor plan places the rows 3 m apart at y = 2 m and 5 m.
        QCOMPARE(spec.rows[0].y, 2.0);
        QCOMPARE(spec.rows[1].y, 5.0);
        const auto& rowB = spec.rows[1].rackList;
        QCOMPARE(rowB.size(), std::size_t{4});
        QCOMPARE(rowB[2].name, std::string("DH3-B04"));
        QCOMPARE(rowB[2].slot, 3);                                      // B03 is a gap
        QCOMPARE(rowB[1].lifecycle, std::string("hardware_detection")); // staged
        QCOMPARE(rowB[3].lifecycle, std::string("delivered"));          // planned
        QCOMPARE(rowB[3].computeTrays, 0);                              // nothing racked yet
        QCOMPARE(spec.rows[0].rackList[3].lifecycle,
                 std::string("troubleshooting")); // a failed tray
        const auto host =
            std::ranges::find(spec.hosts, std::string("dh3-a01-n01"), &model::HostSpec::name);
        QVERIFY(host != spec.hosts.end());
        QCOMPARE(host->tray, 1); // the highest U is the top tray
        QCOMPARE(host->gpuUuids.size(), std::size_t{4});
        QCOMPARE(host->bmc, std::string("10.30.0.11"));
        QCOMPARE(host->serial, std::string("1330225001001"));
        // A power shelf's management address belongs to its rack (a Redfish service there
        // speaks for it); the 3.x page carries none.
        QCOMPARE(spec.rows[0].rackList[0].bmc, std::vector<std::string>{"10.30.0.200"});
        QCOMPARE(rowB[2].bmc, std::vector<std::string>{"10.30.6.200"});
        QVERIFY(spec.rows[0].rackList[2].bmc.empty());
        // ... and survives the floor file.
        auto back = importers::parseFloorFile(importers::floorSpecToJson(spec), "again");
        QVERIFY2(back.has_value(), back ? "" : back.error().toString().c_str());
        QCOMPARE(back->rows[1].rackList[2].bmc, std::vector<std::string>{"10.30.6.200"});
    }

    void withoutTheFloorPlanRowsFollowLocations() {
        FakeNetbox netbox({}, false); // the plugin is not installed: 404, not an error
        const auto inv = inventoryOf(importers::fetchNetbox(netbox.url(), withToken()));
        QVERIFY2(inv, inv ? "" : inv.error().toString().c_str());
        QCOMPARE(inv->spec.rows.size(), std::size_t{2});
        QCOMPARE(inv->spec.rows[0].name, std::string("DH3 Row A"));
        QCOMPARE(inv->spec.rows[1].y, 3.0); // laid out by location, not coordinates
        QCOMPARE(inv->spec.rows[1].rackList[2].slot, 3);
    }

    void aRefusedTokenSaysSo() {
        FakeNetbox netbox;
        const auto r = importers::fetchNetbox(netbox.url(), withToken("wrong"));
        QVERIFY(!r);
        const std::string e = r.error().toString();
        QVERIFY2(e.find("token was refused (HTTP 403)") != std::string::npos, e.c_str());
        QVERIFY2(e.find("/api/dcim/sites/") != std::string::npos, e.c_str());
    }

    void anErrorHalfWayIsNotAnInventory() {
        FakeNetbox netbox(
            [](const std::string& target) -> std::optional<testing::PageServer::Response> {
                if (target.find("/api/dcim/devices/") == 0 &&
                    target.find("offset=22") != std::string::npos)
                    return testing::PageServer::Response{500, "<h1>Server Error (500)</h1>",
                                                         "text/html"};
                return std::nullopt;
            });
        const auto r = importers::fetchNetbox(netbox.url(), withToken());
        QVERIFY(!r);
        const std::string e = r.error().toString();
        QVERIFY2(e.find("HTTP 500 after 1 pages: the read is incomplete") != std::string::npos,
                 e.c_str());
        QVERIFY2(e.find("offset=22") != std::string::npos, e.c_str());
    }

    void aPageThatIsNotJsonSaysWhere() {
        FakeNetbox netbox(
            [](const std::string& target) -> std::optional<testing::PageServer::Response> {
                if (target.starts_with("/api/dcim/racks/"))
                    return testing::PageServer::Response{
                        200, "{\"count\": 8,\n \"results\": [\n  {\"id\": 1,,}]}"};
                return std::nullopt;
            });
        const auto r = importers::fetchNetbox(netbox.url(), withToken());
        QVERIFY(!r);
        QVERIFY2(r.error().line == 3 &&
                     r.error().file.find("/api/dcim/racks/") != std::string::npos,
                 r.error().toString().c_str());
    }

    void aCountThatDoesNotAddUpIsRefused() {
        // The last page vanishes between reads: page 2 says there is no next.
        FakeNetbox netbox(
            [](const std::string& target) -> std::optional<testing::PageServer::Response> {
                if (target.find("/api/dcim/devices/") == 0 &&
                    target.find("offset=22") != std::string::npos) {
                    std::string body = readFile(kDump + "/devices-2.json");
                    const auto at =
                        body.find("\"next\": \""); // NOLINT(modernize-raw-string-literal)
                    const auto end = body.find('"', at + 9);
                    body.replace(at, end - at + 1, "\"next\": null");
                    return testing::PageServer::Response{200, body};
                }
                return std::nullopt;
            });
        const auto r = importers::fetchNetbox(netbox.url(), withToken());
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("the server counts 66 devices but its pages held 44") !=
                     std::string::npos,
                 r.error().toString().c_str());
    }

    // `next` links are followed on the server the user named: a proxy that makes NetBox write
    // an inside name or http:// into them (here another loopback address and port) does not stop
    // the read, and the token never goes to a host a page points at.
    void nextLinksStayOnOurServer() {
        FakeNetbox netbox(
            [](const std::string& target) -> std::optional<testing::PageServer::Response> {
                if (target.starts_with("/api/dcim/devices/") &&
                    target.find("offset=") == std::string::npos)
                    return testing::PageServer::Response{
                        200, replaceAll(readFile(kDump + "/devices-1.json"),
                                        "http://netbox.example", "http://127.0.0.2:9")};
                return std::nullopt;
            });
        const auto inv = inventoryOf(importers::fetchNetbox(netbox.url(), withToken()));
        QVERIFY2(inv, inv ? "" : inv.error().toString().c_str());
        QCOMPARE(inv->spec.rows.size(), std::size_t{2});
        const auto targets = netbox.targets();
        QVERIFY(std::ranges::any_of(
            targets, [](const auto& t) { return t.find("offset=22") != std::string::npos; }));
    }

    // Pages that never end are refused, not read until memory runs out: a `next` back to a
    // page already read, and `next` links that go on past the server's own count.
    void pagesThatNeverEndAreRefused() {
        std::string base;
        FakeNetbox loops(
            [&base](const std::string& target) -> std::optional<testing::PageServer::Response> {
                if (target.starts_with("/api/dcim/devices/") &&
                    target.find("offset=22") != std::string::npos)
                    return testing::PageServer::Response{
                        200, replaceAll(replaceAll(readFile(kDump + "/devices-2.json"), "offset=44",
                                                   "offset=22"),
                                        "http://netbox.example", base)};
                return std::nullopt;
            });
        base = loops.url();
        const auto r = importers::fetchNetbox(loops.url(), withToken());
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("loop back to a page already read after 2 pages") !=
                     std::string::npos,
                 r.error().toString().c_str());

        std::string base2;
        FakeNetbox endless(
            [&base2](const std::string& target) -> std::optional<testing::PageServer::Response> {
                if (!target.starts_with("/api/dcim/devices/")) return std::nullopt;
                const std::string offset = queryValue(target, "offset");
                const int next = (offset.empty() ? 0 : std::stoi(offset)) + 22;
                return testing::PageServer::Response{
                    200, replaceAll(replaceAll(readFile(kDump + "/devices-1.json"), "offset=22",
                                               "offset=" + std::to_string(next)),
                                    "http://netbox.example", base2)};
            });
        base2 = endless.url();
        const auto e = importers::fetchNetbox(endless.url(), withToken());
        QVERIFY(!e);
        QVERIFY2(
            e.error().message.find("the server counts 66 devices but its first 4 pages hold 88") !=
                std::string::npos,
            e.error().toString().c_str());
    }

    void badInventoriesNameTheObject() {
        namespace fs = std::filesystem;
        const fs::path dir = fs::temp_directory_path() / "floortwin-netbox-bad";
        auto withDevices = [&](const std::string& edit) {
            fs::remove_all(dir);
            fs::create_directories(dir);
            for (const auto& e : fs::directory_iterator(kDump))
                fs::copy_file(e.path(), dir / e.path().filename());
            std::string page = readFile(kDump + "/devices-1.json");
            const auto [from, to] =
                std::pair{edit.substr(0, edit.find('|')), edit.substr(edit.find('|') + 1)};
            const auto at = page.find(from);
            if (at == std::string::npos) qFatal("no '%s' in devices-1.json", from.c_str());
            page.replace(at, from.size(), to);
            std::ofstream(dir / "devices-1.json") << page;
            return inventoryOf(importers::loadNetboxDump(dir.string()));
        };
        // Two hosts with one name.
        // NOLINTNEXTLINE(modernize-raw-string-literal): moc misreads raw strings with quotes
        auto dup = withDevices("\"name\": \"dh3-a01-n02\"|\"name\": \"dh3-a01-n01\"");
        QVERIFY(!dup);
        QVERIFY2(dup.error().toString().find("devices-1.json") != std::string::npos &&
                     dup.error().message.find("device 1002 'dh3-a01-n01': host 'dh3-a01-n01' is "
                                              "listed twice") != std::string::npos,
                 dup.error().toString().c_str());
        // Two devices in one slot.
        // NOLINTNEXTLINE(modernize-raw-string-literal)
        auto slot = withDevices("\"position\": \"44.0\"|\"position\": 46.0");
        QVERIFY(!slot);
        QVERIFY2(slot.error().message.find("are both at U46 of rack 'DH3-A01'") !=
                     std::string::npos,
                 slot.error().toString().c_str());
        // A position outside any rack.
        // NOLINTNEXTLINE(modernize-raw-string-literal)
        auto outside = withDevices("\"position\": 46.0|\"position\": 97.0");
        QVERIFY(!outside);
        QVERIFY2(outside.error().message.find("position '97.0' is not a rack unit") !=
                     std::string::npos,
                 outside.error().toString().c_str());
        fs::remove_all(dir);
        // Not a dump at all.
        const auto none = importers::loadNetboxDump(FT_TEST_DATA_PATH("/inventory"));
        QVERIFY(!none);
        QVERIFY2(none.error().message.find("no racks*.json") != std::string::npos,
                 none.error().toString().c_str());
    }
};

QTEST_GUILESS_MAIN(TestNetbox)
#include "test_netbox.moc"
