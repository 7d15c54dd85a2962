// Links into the twin (app/view_link.h), links out of it (importers/floor/link_templates.h),
// and the shape of a wall (app/wall_config.h) and of what its leader sends (app/wall_group.h):
// plain parsing and arithmetic, no window and no network.
#include "app/command_line.h"
#include "app/view_link.h"
#include "app/wall_config.h"
#include "app/wall_group.h"
#include "importers/floor/floor_file.h"
#include "importers/floor/link_templates.h"
#include "importers/floor/story_file.h"
#include "model/topology.h"

#include <QTemporaryDir>
#include <QTest>
#include <fstream>

using namespace ft;
using namespace ft::app;

namespace {
const std::vector<std::string> kLayers{"racks", "thermal", "nvlink", "alerts"};

std::string fileWith(const QTemporaryDir& dir, const std::string& name, const std::string& text) {
    std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
    std::ofstream(path) << text;
    return path;
}
} // namespace

class TestLinks : public QObject {
    Q_OBJECT
private slots:
    void everyPartRoundTrips() {
        ViewLink link;
        link.replay = "/srv/incidents/pump failure.ftrec";
        link.at = LinkTime{1'765'029'780'250'000'000, false};
        link.select = "gpu:DH2-B03/7/2";
        link.layers = std::vector<std::string>{"racks", "thermal"};
        link.metric = "gpu.temperature";
        link.camera = LinkCamera{{12.5, -4, 0.25}, 30, -25, 35};
        link.speed = 10;
        const std::string url = formatViewLink(link);
        QVERIFY2(url.starts_with("floortwin://open?replay=/srv/incidents/pump%20failure.ftrec"),
                 url.c_str());
        QVERIFY2(url.find("at=2025-12-06T14:03:00.250Z") != std::string::npos, url.c_str());
        auto back = parseViewLink(url, kLayers);
        QVERIFY2(back.has_value(), back ? "" : back.error().c_str());
        QVERIFY(*back == link);

        ViewLink live;
        live.floor = "/etc/floortwin/hall-b.json";
        live.sources = {"prometheus=http://prom:9090", "alertmanager=http://am:9093"};
        live.at = LinkTime{90 * model::kNsPerSecond, true};
        live.layers = std::vector<std::string>{};
        back = parseViewLink(formatViewLink(live), kLayers);
        QVERIFY(back.has_value());
        QCOMPARE(back->sources, live.sources);
        QVERIFY(back->at == live.at);
        QVERIFY(back->layers && back->layers->empty()); // "layers=none": every layer off
        QVERIFY(back->namesRun());
        // Every part is optional, and the short forms read too.
        QVERIFY(parseViewLink("floortwin://open", kLayers).has_value());
        QVERIFY(parseViewLink("floortwin:open?select=rack:A03", kLayers).has_value());
        QVERIFY(parseViewLink("floortwin://open/?at=10m#x", kLayers).has_value());
    }

    void aBadPartIsRefusedByName() {
        const std::pair<const char*, const char*> cases[] = {
            {"floortwin://open?zoom=3", "link part 'zoom' is unknown"},
            {"floortwin://open?layers=racks,fog", "unknown layer 'fog'"},
            {"floortwin://open?metric=gpu.tmp", "unknown channel 'gpu.tmp'"},
            {"floortwin://open?at=yesterday", "at 'yesterday'"},
            {"floortwin://open?at=-5m", "at '-5m'"},
            {"floortwin://open?camera=1,2,3", "camera '1,2,3'"},
            {"floortwin://open?camera=1,2,3,0.1,0,30", "distance"},
            {"floortwin://open?select=A03", "link part 'select'"},
            {"floortwin://open?select", "link part 'select' has no value"},
            {"floortwin://open?metric=", "link part 'metric' is empty"},
            {"floortwin://open?at=1m&at=2m", "link part 'at' is given twice"},
            {"floortwin://open?speed=0", "link part 'speed'"},
            {"floortwin://open?source=snmp=h", "link part 'source'"},
            {"floortwin://open?floor=a.json&inventory=b.csv", "'floor' and 'inventory'"},
            {"floortwin://open?replay=a.ftrec&source=prometheus=http://p:9090",
             "'replay' and 'source'"},
            {"floortwin://open?replay=%G1", "link part 'replay': a '%'"},
            {"floortwin://close?x=1", "unknown action 'close'"},
            {"floortwin://open?select=rack:A%-1", "link part 'select': a '%' not followed"},
            {"floortwin://open?select=rack:A%0a03", "a control character"},
            {"floortwin://open?replay=/a\tb.ftrec", "a control character"},
        };
        for (const auto& [url, expected] : cases) {
            auto link = parseViewLink(url, kLayers);
            QVERIFY2(!link.has_value(), url);
            QVERIFY2(link.error().find(expected) != std::string::npos,
                     (std::string(url) + " -> " + link.error()).c_str());
            QVERIFY2(link.error().find('\n') == std::string::npos, link.error().c_str());
        }
    }

    void aLinkCarriesNoSecrets() {
        auto link = parseViewLink(
            "floortwin://open?source=prometheus=https://ops:hunter2@prom.example:9090", kLayers);
        QVERIFY(!link.has_value());
        QVERIFY(link.error().find("no secrets") != std::string::npos);
        QVERIFY(link.error().find("hunter2") == std::string::npos);
        // A twin that was given credentials writes its links without them.
        ViewLink mine;
        mine.sources = {"prometheus=https://ops:hunter2@prom.example:9090/api"};
        const auto url = formatViewLink(mine);
        QVERIFY2(url.find("hunter2") == std::string::npos && url.find("ops") == std::string::npos,
                 url.c_str());
        QCOMPARE(withoutCredentials("http://u@h:1/p?q=a@b"), std::string("http://h:1/p?q=a@b"));
        QCOMPARE(withoutCredentials("mqtt://broker:1883"), std::string("mqtt://broker:1883"));
    }

    void theCommandLineTakesALinkAndItsFlagsWin() {
        auto o = parseCommandLine({"floortwin://open?replay=/r.ftrec&at=2m&select=rack:A03&"
                                   "layers=racks&metric=gpu.power&camera=1,2,0,20,-30,40",
                                   "--metric", "gpu.temperature"},
                                  kLayers);
        QVERIFY2(o.has_value(), o ? "" : o.error().c_str());
        QCOMPARE(o->replay, std::string("/r.ftrec"));
        QCOMPARE(o->at, std::string("120000ms"));
        QCOMPARE(o->select, std::string("rack:A03"));
        QVERIFY(!o->frameSelection); // the link places the camera itself
        QCOMPARE(o->layers, std::vector<std::string>{"racks"});
        QCOMPARE(o->metric, std::string("gpu.temperature")); // the flag's
        QCOMPARE(o->camera, std::string("1,2,0,20,-30,40"));
        QVERIFY(o->link.has_value());
        auto two = parseCommandLine({"floortwin://open", "floortwin://open"}, kLayers);
        QVERIFY(!two && two.error().find("one floortwin: link") != std::string::npos);
        auto bad = parseCommandLine({"floortwin://open?nope=1"}, kLayers);
        QVERIFY(!bad && bad.error().find("'nope'") != std::string::npos);
        QVERIFY(!parseCommandLine({"--new-window"}, kLayers).has_value());
        QVERIFY(!parseCommandLine({"--camera", "1,2"}, kLayers).has_value());
    }

    void linkTimesAreInstantsOrTimesSinceTheStart() {
        auto t = parseLinkTime("2026-12-06T14:03:00Z");
        QVERIFY(t && !t->sinceStart);
        QCOMPARE(t->value, 1'796'565'780LL * model::kNsPerSecond);
        t = parseLinkTime("2026-12-06T15:03:00+01:00");
        QVERIFY(t && t->value == 1'796'565'780LL * model::kNsPerSecond);
        t = parseLinkTime("10m");
        QVERIFY(t && t->sinceStart && t->value == 600 * model::kNsPerSecond);
        QVERIFY(!parseLinkTime("14:03").has_value());
    }

    void linksOutFillWhatTheEntityHas() {
        QTemporaryDir dir;
        const std::string floor =
            fileWith(dir, "floor.json",
                     "{\n"
                     "  \"format\": \"floortwin-floor/1\", \"name\": \"hall\", \"rows\": "
                     "[{\"name\": \"A\", \"racks\": 2}],\n"
                     "  \"hosts\": [{\"name\": \"dgx-a01-07\", \"rack\": \"A01\", \"tray\": 7,\n"
                     "             \"gpu_uuids\": [\"GPU-aaaa\", \"GPU-bbbb\", \"GPU-cccc\", "
                     "\"GPU-dddd\"]}],\n"
                     "  \"links\": {\"grafana\": "
                     "\"https://grafana/d/dcgm?var-Hostname={host}&from={t-15m}&to={t+15m}\",\n"
                     "            \"dcim\": \"https://dcim/racks/{rack}?row={row}\",\n"
                     "            \"gpu\": "
                     "\"https://grafana/d/gpu?var-UUID={uuid}&var-gpu={gpu}&at={t:rfc3339}\"}\n"
                     "}\n");
        auto spec = importers::loadFloor(floor);
        QVERIFY2(spec.has_value(), spec ? "" : spec.error().message.c_str());
        QCOMPARE(spec->links.size(), std::size_t{3});
        auto topology = model::Topology::build(*spec);
        QVERIFY(topology.has_value());
        const auto& t = *topology;
        const model::TimeNs time = 1'796'565'780LL * model::kNsPerSecond;
        std::optional<model::EntityId> tray;
        for (model::EntityId i = 0; i < t.computeTrays.rack.size(); ++i)
            if (t.hostName(i) == "dgx-a01-07") tray = i;
        QVERIFY(tray.has_value());
        const model::EntityRef gpu{model::EntityKind::Gpu,
                                   *tray * static_cast<model::EntityId>(spec->rack.gpusPerTray) +
                                       2};
        auto grafana = importers::expandLinkTemplate(spec->links[0].second, t, gpu, time);
        QVERIFY(grafana.has_value());
        QCOMPARE(*grafana,
                 std::string("https://grafana/d/dcgm?var-Hostname=dgx-a01-07&from=") +
                     std::to_string((time - 900 * model::kNsPerSecond) / 1'000'000) +
                     "&to=" + std::to_string((time + 900 * model::kNsPerSecond) / 1'000'000));
        auto byGpu = importers::expandLinkTemplate(spec->links[2].second, t, gpu, time);
        QVERIFY(byGpu.has_value());
        QCOMPARE(*byGpu, std::string("https://grafana/d/gpu?var-UUID=GPU-cccc&var-gpu=2&at="
                                     "2026-12-06T14:03:00.000Z"));
        // A rack has no host: its Grafana link is not offered; its DCIM link is.
        const model::EntityRef rack{model::EntityKind::Rack,
                                    *t.find(model::EntityKind::Rack, "A02")};
        std::string why;
        QVERIFY(!importers::expandLinkTemplate(spec->links[0].second, t, rack, time, &why));
        QCOMPARE(why, std::string("{host}"));
        QCOMPARE(*importers::expandLinkTemplate(spec->links[1].second, t, rack, time),
                 std::string("https://dcim/racks/A02?row=A"));
        // A link's entity is untrusted: ids past any number, indexes past the tray, are none.
        QVERIFY(!t.find(model::EntityKind::Rack, "99999999999999999999999"));
        QVERIFY(!t.find(model::EntityKind::Gpu,
                        t.name(model::EntityKind::ComputeTray, 0) + " GPU 9999"));
        QVERIFY(
            t.find(model::EntityKind::Gpu, t.name(model::EntityKind::ComputeTray, 0) + " GPU 3"));
        // A GPU as a ticket names it: RACK/TRAY/GPU (tray 1 = the top one, GPU from 0).
        auto byPath = importers::resolveEntity(t, "gpu:A01/7/2");
        QVERIFY2(byPath, byPath ? "" : byPath.error().c_str());
        QVERIFY(*byPath == gpu);
        auto trayByPath = importers::resolveEntity(t, "compute_tray:A01/7");
        QVERIFY(trayByPath && trayByPath->id == *tray);
        for (const char* bad : {"gpu:A01/7", "gpu:A01/19/0", "gpu:A01/7/4", "gpu:Z9/1/0",
                                "compute_tray:A01/7/1", "gpu:A01/x/1"}) {
            auto r = importers::resolveEntity(t, bad);
            QVERIFY2(!r && r.error().find("on this floor") != std::string::npos, bad);
        }
        // A GPU the host table gives no UUID for has none to fill.
        const model::EntityRef other{model::EntityKind::Gpu, 0};
        QVERIFY(!importers::expandLinkTemplate(spec->links[2].second, t, other, time, &why));
        QCOMPARE(why, std::string("{uuid}"));
    }

    void aBadLinkTemplateIsRefusedWhereItIs() {
        QTemporaryDir dir;
        const std::string floor = fileWith(
            dir, "floor.json",
            "{\n"
            "  \"format\": \"floortwin-floor/1\", \"rows\": [{\"name\": \"A\", \"racks\": 1}],\n"
            "  \"links\": {\"grafana\": \"https://grafana/d/x?var-Hostname={hostname}\"}\n"
            "}\n");
        auto spec = importers::loadFloor(floor);
        QVERIFY(!spec.has_value());
        QVERIFY2(spec.error().message.find("{hostname}") != std::string::npos,
                 spec.error().message.c_str());
        QCOMPARE(spec.error().line, 3);
        QVERIFY(importers::checkLinkTemplate("https://x/{t-15m:rfc3339}") == std::nullopt);
        QVERIFY(importers::checkLinkTemplate("https://x/{t~15m}").has_value());
        QVERIFY(importers::checkLinkTemplate("grafana/{host}").has_value());
        QVERIFY(importers::checkLinkTemplate("file:///etc/passwd").has_value());
        QVERIFY(importers::checkLinkTemplate("https://x/{host").has_value());
    }

    void aWallSlicesOneViewAcrossItsScreens() {
        Options o;
        o.wallGroup = "noc";
        o.wallGrid = "2x2";
        o.wallScreen = "1,1";
        auto wall = wallConfigFrom(o);
        QVERIFY(wall && *wall);
        const WallConfig& w = **wall;
        QCOMPARE(w.self, 3);
        const auto s = w.sliceOf(3); // the bottom right quarter
        QCOMPARE(s.x0, 0.0);
        QCOMPARE(s.x1, 1.0);
        QCOMPARE(s.y0, -1.0);
        QCOMPARE(s.y1, 0.0);
        QVERIFY(std::abs(s.wallAspect - 1210.0 / 680.0) < 1e-9);
        // Every screen of a group finds every other's port from the name alone.
        QCOMPARE(w.screens[2].port, static_cast<std::uint16_t>(defaultWallPort("noc") + 2));

        // Bezels: the picture behind them is left out, so lines run straight across.
        QTemporaryDir dir;
        o = {};
        o.wallFile = fileWith(
            dir, "wall.json",
            "{\"group\": \"hall-b\", \"grid\": [3, 1],\n"
            "            \"screen_mm\": [1000, 500], \"bezel_mm\": [50, 0], \"port\": 47000,\n"
            "            \"screens\": [{\"at\": [1, 0], \"host\": \"10.0.0.12\", \"view\": "
            "\"own\", \"hud\": false},\n"
            "                        {\"at\": [2, 0], \"port\": 47100, \"leader\": true}]}\n");
        o.wallScreen = "2,0";
        wall = wallConfigFrom(o);
        QVERIFY2(wall && *wall, wall ? "" : wall.error().c_str());
        const WallConfig& f = **wall;
        QCOMPARE(f.group, std::string("hall-b"));
        QVERIFY(f.lead);
        QCOMPARE(f.screens[0].port, static_cast<std::uint16_t>(47000));
        QCOMPARE(f.screens[1].host, std::string("10.0.0.12"));
        QVERIFY(!f.screens[1].slice && !f.screens[1].hud);
        QCOMPARE(f.screens[2].port, static_cast<std::uint16_t>(47100));
        const auto mid = f.sliceOf(1); // 1050..2050 of 3100 mm
        QVERIFY(std::abs(mid.x0 - (-1 + 2 * 1050.0 / 3100)) < 1e-12);
        QVERIFY(std::abs(mid.x1 - (-1 + 2 * 2050.0 / 3100)) < 1e-12);
        QVERIFY(std::abs(mid.wallAspect - 3100.0 / 500) < 1e-12);
    }

    void aBadWallIsRefusedByName() {
        QTemporaryDir dir;
        const std::pair<std::string, const char*> files[] = {
            {"{\"group\": \"g\", \"grid\": [2]}\n", "grid: expected [columns, rows]"},
            {"{\"group\": \"g\", \"bezel_mm\": [-1, 0]}\n", "bezel_mm"},
            {"{\"group\": \"g\", \"colour\": \"red\"}\n", "unknown key 'colour'"},
            {"{\"group\": \"g\", \"screens\": [{\"at\": [5, 0]}]}\n", "outside the grid"},
            {"{\"group\": \"g\", \"screens\": [{\"at\": [0, 0], \"view\": \"zoom\"}]}\n", "'view'"},
            {"{\"grid\": [1, 1]}\n", "names no \"group\""},
            {"not json", "not a JSON object"},
        };
        for (const auto& [text, expected] : files) {
            Options o;
            o.wallFile = fileWith(dir, "w.json", text);
            auto wall = wallConfigFrom(o);
            QVERIFY2(!wall, text.c_str());
            QVERIFY2(wall.error().find(expected) != std::string::npos, wall.error().c_str());
        }
        Options o;
        o.wallGroup = "g";
        o.wallGrid = "2x2";
        o.wallScreen = "2,0";
        QVERIFY(!wallConfigFrom(o));
        o.wallScreen = "x";
        QVERIFY(!wallConfigFrom(o));
        o = {};
        o.wallScreen = "1,0";
        auto alone = wallConfigFrom(o);
        QVERIFY(!alone && alone.error().find("--wall-group") != std::string::npos);
        QVERIFY(wallConfigFrom(Options{}).value() == std::nullopt);
    }

    void theLeadersStateRoundTrips() {
        WallState s;
        s.time = 1'796'565'780'000'000'000;
        s.position = s.time + 40'000'000;
        s.shownSince = 1'796'565'900'000'000'000;
        s.sentAt = s.shownSince + 12'000'000;
        s.speed = 100;
        s.reverse = true;
        s.camera = {1, 2, 3, 40, -25, 35, 35};
        s.hasCamera = true;
        s.selection = "rack:3";
        s.layers = {"racks", "alerts"};
        s.metric = "gpu.power";
        s.caption = "Cooling loop A";
        s.focus = true;
        s.focusTitle = "Low coolant flow";
        s.focusDetail = "8 racks on CDU A1";
        s.focusIndex = 2;
        s.focusOf = 3;
        s.storyClock = 42.5;
        const std::string json = wallStateJson(s);
        QVERIFY2(json.size() < 600, json.c_str()); // 30 a second stay well under 50 kB/s
        auto back = wallStateFrom(json);
        QVERIFY(back.has_value());
        QVERIFY(*back == s);
        QVERIFY(!wallStateFrom("{\"t\": 1}").has_value());
        QVERIFY(!wallStateFrom("[]").has_value());
    }
};

QTEST_APPLESS_MAIN(TestLinks)
#include "test_links.moc"
