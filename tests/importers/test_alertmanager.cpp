// Alertmanager as a source: its API v2 answers in both schemas (Debian's 0.25 without
// status.mutedBy, 0.31 with it; flat lists and receiver groups), bad entries skipped without
// losing the others, severities, each alert placed on an inventory floor by its labels, the
// simulator's board and events, the source over a loopback server (health, failures, silences
// made and expired), the real answers of the shared corpus, and a real Alertmanager on loopback
// (tests/support/alertmanager_fixture.h) read by the source and silenced through the twin.
#include "importers/floor/floor_file.h"
#include "importers/floor/inventory_csv.h"
#include "importers/formats/alertmanager_json.h"
#include "importers/mapping/alert_history.h"
#include "importers/mapping/alert_placement.h"
#include "importers/mapping/entity_name_index.h"
#include "importers/recording/recording_reader.h"
#include "importers/recording/recording_writer.h"
#include "importers/sources/alert_pusher.h"
#include "importers/sources/alertmanager_source.h"
#include "model/external_alert.h"
#include "model/sim_model.h"
#include "support/alertmanager_fixture.h"
#include "support/loopback_server.h"
#include "support/requirement.h"
#include "support/test_paths.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

using namespace ft;
using model::AlertState;
using model::EntityKind;
using model::Severity;

namespace {

std::string fileText(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
    return f.readAll().toStdString();
}

std::string dataFile(const char* name) {
    return fileText(QString(FT_TEST_DATA_PATH("/alertmanager/")) + name);
}

importers::AlertmanagerAnswer alertsOf(const std::string& body) {
    auto a = importers::parseAlertmanagerAlerts(body, "alerts");
    if (!a) qFatal("%s", a.error().c_str());
    return *a;
}

const model::ExternalAlert& named(const std::vector<model::ExternalAlert>& alerts,
                                  std::string_view name) {
    for (const auto& a : alerts)
        if (a.name == name) return a;
    qFatal("no alert %s", std::string(name).c_str());
}

// The project's inventory of hall DH2 (hosts gpu-node-0001..., their GPUs' UUIDs and BMCs).
std::shared_ptr<const model::Topology> hallFloor() {
    auto inv = importers::parseInventoryCsv(fileText(FT_TEST_DATA_PATH("/inventory/hall-dh2.csv")),
                                            "hall-dh2.csv");
    if (!inv) qFatal("%s", inv.error().toString().c_str());
    auto built = model::Topology::build(inv->spec);
    if (!built) qFatal("%s", built.error().c_str());
    return std::make_shared<const model::Topology>(std::move(*built));
}

model::EntityId trayOfHost(const model::Topology& t, const std::string& host) {
    for (model::EntityId tray = 0; tray < t.count(EntityKind::ComputeTray); ++tray)
        if (t.hostName(tray) == host) return tray;
    qFatal("no host %s", host.c_str());
}

// The simulator as live telemetry drives it.
model::SimConfig telemetryConfig() {
    model::SimConfig config;
    config.telemetry = true;
    config.settle = false;
    return config;
}

// The project's 0.25 answer as the source delivers it: silences attached, severities set, placed.
importers::AlertmanagerAnswer readyAlerts(const model::Topology& floor) {
    auto a = alertsOf(dataFile("alerts-0.25.json"));
    auto s = importers::parseAlertmanagerSilences(dataFile("silences.json"), "silences");
    if (!s) qFatal("%s", s.error().c_str());
    importers::attachSilences(a.alerts, s->silences);
    for (auto& alert : a.alerts)
        alert.severity = importers::severityOf(alert, {});
    importers::EntityNameIndex index(floor);
    importers::placeAlerts(a.alerts, index);
    return a;
}

// The newest board a source sent, and how many.
class Received {
public:
    importers::SubmitFn fn() {
        return [this](const model::SampleBatch& b) {
            std::lock_guard lock(m_mutex);
            if (b.alerts) {
                m_board = b.alerts;
                ++m_boards;
            }
            return true;
        };
    }
    std::shared_ptr<const model::AlertBoard> board() const {
        std::lock_guard lock(m_mutex);
        return m_board;
    }
    int boards() const {
        std::lock_guard lock(m_mutex);
        return m_boards;
    }

private:
    mutable std::mutex m_mutex;
    std::shared_ptr<const model::AlertBoard> m_board;
    int m_boards = 0;
};

bool waitFor(const std::function<bool()>& done, int ms = 10000) {
    for (int waited = 0; waited < ms; waited += 20) {
        if (done()) return true;
        QTest::qWait(20);
    }
    return done();
}

} // namespace

class TestAlertmanager : public QObject {
    Q_OBJECT

private slots:
    void readsTheOlderSchemaFlatList() {
        // Debian's 0.25 (and 0.22): status without mutedBy.
        const auto a = alertsOf(dataFile("alerts-0.25.json"));
        QVERIFY(!a.groups);
        QCOMPARE(a.alerts.size(), std::size_t(5));
        QCOMPARE(a.skipped, std::size_t(0));
        QVERIFY2(a.warnings.empty(), a.warnings.empty() ? "" : a.warnings.front().c_str());
        const auto& xid = named(a.alerts, "GpuXidErrors");
        QCOMPARE(xid.state, AlertState::Firing);
        QCOMPARE(xid.fingerprint, std::string("0c7a1d2e3f405162"));
        QCOMPARE(xid.label("UUID"), std::string_view("GPU-9531985d-5d9d-c9f8-1818-e811892f902b"));
        QCOMPARE(xid.annotation("runbook_url"),
                 std::string_view("https://runbooks.example.net/gpu/xid-79"));
        QVERIFY(xid.generatorUrl.starts_with("http://prometheus.example.net:9090/graph"));
        QCOMPARE(xid.receivers, std::vector<std::string>{"gpu-oncall"});
        // Nanosecond fractions kept; an offset read as one.
        QCOMPARE(xid.startsAt % model::kNsPerSecond, model::TimeNs(123456789));
        const auto& down = named(a.alerts, "NodeDown");
        QCOMPARE(down.startsAt, named(a.alerts, "DiskAlmostFull").startsAt +
                                    model::TimeNs{600} * model::kNsPerSecond);
        QCOMPARE(down.state, AlertState::Silenced);
        QCOMPARE(down.silencedBy.size(), std::size_t(1));
        QVERIFY(down.mutedBy.empty());
        const auto& disk = named(a.alerts, "DiskAlmostFull");
        QCOMPARE(disk.state, AlertState::Inhibited);
        QCOMPARE(disk.inhibitedBy, std::vector<std::string>{"1d8b2e3f40516273"});
    }

    void readsGroupsWithEachAlertOnce() {
        // 0.31's receiver groups: the XID alert is routed to two receivers, listed twice.
        const auto a = alertsOf(dataFile("alerts-groups-0.31.json"));
        QVERIFY(a.groups);
        QCOMPARE(a.alerts.size(), std::size_t(2));
        QVERIFY(a.warnings.empty());
        const auto& watchdog = named(a.alerts, "Watchdog");
        // Muted by a time interval only (mutedBy, 0.27 on): quiet by plan, read as silenced.
        QCOMPARE(watchdog.state, AlertState::Silenced);
        QCOMPARE(watchdog.mutedBy, std::vector<std::string>{"weekend-quiet"});
        QCOMPARE(importers::severityOf(watchdog, {}), Severity::Info);
    }

    void badEntriesAreSkippedAndTheRestKept() {
        const auto a = alertsOf(dataFile("alerts-bad.json"));
        // First, the odd-named one and Last survive; six entries cannot be used.
        QCOMPARE(a.alerts.size(), std::size_t(3));
        QCOMPARE(a.skipped, std::size_t(6));
        QCOMPARE(a.alerts.front().name, std::string("First"));
        QCOMPARE(a.alerts.back().name, std::string("Last"));
        const auto& odd = a.alerts[1];
        QCOMPARE(odd.name, std::string("Odd \"quoted\" name ✓"));
        QCOMPARE(odd.state, AlertState::Unprocessed);
        QCOMPARE(odd.endsAt, model::TimeNs(0)); // Go's zero time: not set
        QCOMPARE(odd.label("rack"), std::string_view("rack with spaces/and\\slashes"));
        auto has = [&](std::string_view words) {
            for (const auto& w : a.warnings)
                if (w.find(words) != std::string::npos) return true;
            return false;
        };
        QVERIFY(has("alert 2: no labels (skipped)"));
        QVERIFY(has("alert 3 (BadTime): startsAt 'yesterday' is not an RFC 3339 time"));
        QVERIFY(has("alert 4 (NumberLabel): labels 'gpu' is not a string"));
        QVERIFY(has("alert 5 (OddState): status.state 'pending' is none of"));
        QVERIFY(has("alert 6 (NoStatus): no status"));
        QVERIFY(has("alert 7: not an object"));
        QVERIFY(has("unknown alert field 'newField' (ignored)"));
    }

    void wrongDocumentsAreErrorsThatSayWhere() {
        auto notJson =
            importers::parseAlertmanagerAlerts("[{\"labels\": {}", "http://am/api/v2/alerts");
        QVERIFY(!notJson);
        QVERIFY2(notJson.error().starts_with("http://am/api/v2/alerts: not JSON (byte"),
                 notJson.error().c_str());
        auto object = importers::parseAlertmanagerAlerts(R"({"status":"success"})", "alerts");
        QVERIFY(!object);
        QVERIFY(object.error().find("expected a list of alerts") != std::string::npos);
        auto deep = importers::parseAlertmanagerAlerts(std::string(5000, '['), "alerts");
        QVERIFY(!deep);
        QVERIFY(deep.error().find("nested deeper") != std::string::npos);
        QVERIFY(importers::parseAlertmanagerAlerts("[]", "alerts")->alerts.empty());
        auto silences = importers::parseAlertmanagerSilences(R"([{"id": "x"}, 3])", "silences");
        QVERIFY(silences);
        QCOMPARE(silences->skipped, std::size_t(2));
    }

    void severitiesFollowTheLabelAndTheOperatorsWords() {
        model::ExternalAlert a;
        auto with = [&](std::string value) {
            a.labels = {{"severity", std::move(value)}};
            return importers::severityOf(a, {});
        };
        QCOMPARE(with("critical"), Severity::Critical);
        QCOMPARE(with("PAGE"), Severity::Critical);
        QCOMPARE(with("warning"), Severity::Warning);
        QCOMPARE(with("info"), Severity::Info);
        QCOMPARE(with("none"), Severity::Info);
        QCOMPARE(with("p1"), Severity::Warning); // unknown words: a warning
        a.labels.clear();
        QCOMPARE(importers::severityOf(a, {}), Severity::Warning);
        auto map = importers::parseSeverityMap("p1=critical,P3=info,label=priority");
        QVERIFY(map);
        a.labels = {{"priority", "P1"}, {"severity", "info"}};
        QCOMPARE(importers::severityOf(a, *map), Severity::Critical);
        a.labels = {{"priority", "p3"}};
        QCOMPARE(importers::severityOf(a, *map), Severity::Info);
        auto bad = importers::parseSeverityMap("p1=urgent");
        QVERIFY(!bad);
        QVERIFY(bad.error().find("'urgent' is not critical, warning or info") != std::string::npos);
        QVERIFY(!importers::parseSeverityMap("p1"));
    }

    void alertsLandWhereTheirLabelsSay() {
        const auto floor = hallFloor();
        importers::EntityNameIndex index(*floor);
        auto a = alertsOf(dataFile("alerts-0.25.json"));
        importers::placeAlerts(a.alerts, index);
        const model::EntityId tray1 = trayOfHost(*floor, "gpu-node-0001");
        const auto gpusPerTray = static_cast<model::EntityId>(floor->spec().rack.gpusPerTray);
        // By UUID: GPU 2 of gpu-node-0001 (the third UUID of its inventory row).
        const auto& xid = named(a.alerts, "GpuXidErrors");
        QCOMPARE(xid.entities.size(), std::size_t(1));
        QCOMPARE(xid.entities[0], (model::EntityRef{EntityKind::Gpu, tray1 * gpusPerTray + 2}));
        QCOMPARE(xid.placedBy, std::string("UUID"));
        // By instance without its port: the tray.
        const auto& down = named(a.alerts, "NodeDown");
        QCOMPARE(down.entities[0],
                 (model::EntityRef{EntityKind::ComputeTray, trayOfHost(*floor, "gpu-node-0002")}));
        QCOMPARE(down.placedBy, std::string("instance"));
        // By the rule's own rack label.
        const auto& hot = named(a.alerts, "RackInletHot");
        QCOMPARE(hot.entities[0].kind, EntityKind::Rack);
        QCOMPARE(floor->name(EntityKind::Rack, hot.entities[0].id), std::string("DH2-R11-C01"));
        // A BMC's address: the rack of the tray it manages.
        const auto& bmc = named(a.alerts, "BmcSlowToAnswer");
        QCOMPARE(bmc.entities[0].kind, EntityKind::Rack);
        QCOMPARE(bmc.entities[0].id,
                 *floor->rackOf(EntityKind::ComputeTray, trayOfHost(*floor, "gpu-node-0002")));
        // Nothing of this floor: unplaced, with what was tried.
        const auto& disk = named(a.alerts, "DiskAlmostFull");
        QVERIFY(disk.entities.empty());
        QCOMPARE(disk.placedBy, std::string("not on this floor: instance=server5:9100"));
        // Host and index without a UUID; a label naming nothing at all.
        auto byIndex = importers::placeAlert({{"Hostname", "gpu-node-0001"}, {"gpu", "3"}}, index);
        QCOMPARE(byIndex.entities[0], (model::EntityRef{EntityKind::Gpu, tray1 * gpusPerTray + 3}));
        QCOMPARE(byIndex.by, std::string("Hostname and gpu"));
        auto cdu = importers::placeAlert({{"cdu", floor->name(EntityKind::Cdu, 0)}}, index);
        QCOMPARE(cdu.entities[0], (model::EntityRef{EntityKind::Cdu, 0}));
        auto nothing = importers::placeAlert({{"alertname", "Watchdog"}}, index);
        QVERIFY(nothing.entities.empty());
        QVERIFY(nothing.by.starts_with("no label names a place"));
    }

    void silencesSayWhoAndWhy() {
        auto a = alertsOf(dataFile("alerts-0.25.json"));
        auto s = importers::parseAlertmanagerSilences(dataFile("silences.json"), "silences");
        QVERIFY(s);
        QCOMPARE(s->silences.size(), std::size_t(2));
        const auto& first = s->silences.front();
        QCOMPARE(first.createdBy, std::string("alice"));
        QCOMPARE(first.state, std::string("active"));
        QCOMPARE(first.matchers[1],
                 (std::pair<std::string, std::string>("alertname", "=~ Node.*")));
        // 0.22's matchers had no isEqual: equality.
        QCOMPARE(s->silences.back().matchers[0].second, std::string("= node"));
        importers::attachSilences(a.alerts, s->silences);
        const auto& down = named(a.alerts, "NodeDown");
        QCOMPARE(down.silences.size(), std::size_t(1));
        QVERIFY(down.silences[0].comment.find("CHG-4411") != std::string::npos);
        QVERIFY(named(a.alerts, "GpuXidErrors").silences.empty());
    }

    void theTwinsRequestsAreWhatTheApiTakes() {
        importers::NewSilence s;
        s.matchers = {{"instance", "gpu-node-0002:9100"}, {"alertname", "NodeDown"}};
        s.startsAt = 1796600000LL * model::kNsPerSecond + 250 * model::kNsPerMs;
        s.endsAt = s.startsAt + 3600 * model::kNsPerSecond;
        s.createdBy = "carol";
        s.comment = "reseating the NIC";
        const auto j = nlohmann::json::parse(importers::silenceRequestBody(s));
        QCOMPARE(j["createdBy"].get<std::string>(), std::string("carol"));
        QCOMPARE(j["matchers"].size(), std::size_t(2));
        QCOMPARE(j["matchers"][0]["isEqual"].get<bool>(), true);
        QCOMPARE(j["matchers"][0]["isRegex"].get<bool>(), false);
        QCOMPARE(j["startsAt"].get<std::string>(), std::string("2026-12-06T23:33:20.250Z"));
        QCOMPARE(*importers::parseSilenceCreated(R"({"silenceID":"abc"})"), std::string("abc"));
        QVERIFY(!importers::parseSilenceCreated(R"({"error":"x"})"));
        importers::PostedAlert p;
        p.labels = {{"alertname", "FloortwinCause"}, {"rack", "A03"}};
        p.annotations = {{"summary", "Low coolant flow (CDU A1)"}};
        p.endsAt = s.endsAt;
        const auto posted = nlohmann::json::parse(importers::alertsRequestBody({p}));
        QCOMPARE(posted[0]["labels"]["rack"].get<std::string>(), std::string("A03"));
        QVERIFY(!posted[0].contains("startsAt"));
        QCOMPARE(posted[0]["endsAt"].get<std::string>(), std::string("2026-12-07T00:33:20.250Z"));
    }

    void theBoardAndItsEventsFollowEachList() {
        const auto floor = hallFloor();
        model::SimModel sim(floor, telemetryConfig());
        auto a = readyAlerts(*floor);
        auto send = [&](std::uint16_t source, std::vector<model::ExternalAlert> alerts) {
            auto board = std::make_shared<model::AlertBoard>();
            board->alerts = std::move(alerts);
            model::SampleBatch b;
            b.source = source;
            b.alerts = board;
            sim.apply(b);
            sim.step();
        };
        auto newEvents = [&, seen = std::size_t(0)]() mutable {
            std::vector<model::Event> out;
            const auto& log = *sim.state().events;
            for (const auto& e : log.since(seen))
                if (e.kind == model::EventKind::Alert) out.push_back(e);
            seen = log.endSeq();
            return out;
        };
        send(1, a.alerts);
        QCOMPARE(sim.state().externalAlerts->alerts.size(), std::size_t(5));
        auto events = newEvents();
        QCOMPARE(events.size(), std::size_t(5));
        auto eventOf = [&](std::string_view words) -> const model::Event* {
            for (const auto& e : events)
                if (e.text.find(words) != std::string::npos) return &e;
            return nullptr;
        };
        const auto* xid = eventOf("GpuXidErrors on ");
        QVERIFY(xid && xid->text.ends_with("firing"));
        QCOMPARE(xid->severity, Severity::Critical);
        QCOMPARE(xid->entity.kind, EntityKind::Gpu);
        const auto* down = eventOf("NodeDown");
        QVERIFY2(down &&
                     down->text.find("silenced by alice until 2026-12-07 06:00: planned work") !=
                         std::string::npos,
                 down ? down->text.c_str() : "none");
        QCOMPARE(down->severity, Severity::Info);
        // Unplaced: the whole site.
        QCOMPARE(eventOf("DiskAlmostFull")->entity.kind, EntityKind::Region);

        // A second source's list joins the board; the first's stays.
        model::ExternalAlert other = a.alerts[0];
        other.fingerprint = "ffff000000000001";
        other.source = "alertmanager b:9093";
        send(2, {other});
        QCOMPARE(sim.state().externalAlerts->alerts.size(), std::size_t(6));
        QCOMPARE(newEvents().size(), std::size_t(1));

        // Unsilenced, resolved, and unchanged: what changed is an event, nothing else.
        auto next = a.alerts;
        std::erase_if(next, [](const auto& x) { return x.name == "RackInletHot"; });
        for (auto& x : next)
            if (x.name == "NodeDown") {
                x.state = AlertState::Firing;
                x.silencedBy.clear();
                x.silences.clear();
            }
        const auto before = sim.state().externalAlerts;
        send(1, next);
        events = newEvents();
        QCOMPARE(events.size(), std::size_t(2));
        QVERIFY(eventOf("NodeDown on ") && eventOf("unsilenced: firing again"));
        QVERIFY(eventOf("RackInletHot on DH2-R11-C01") &&
                eventOf("RackInletHot")->text.ends_with("resolved"));
        QCOMPARE(sim.state().externalAlerts->alerts.size(), std::size_t(5));
        const auto same = sim.state().externalAlerts;
        send(1, next);
        QVERIFY(newEvents().empty());
        QCOMPARE(sim.state().externalAlerts, same); // shared, not rebuilt
        QVERIFY(before != same);

        // A storm: one event says how many changed.
        std::vector<model::ExternalAlert> storm;
        for (int i = 0; i < 1000; ++i) {
            model::ExternalAlert x = a.alerts[0];
            x.fingerprint = "storm" + std::to_string(i);
            storm.push_back(std::move(x));
        }
        send(3, storm);
        events = newEvents();
        QCOMPARE(events.size(), std::size_t(1));
        QVERIFY2(events[0].text.find("1000 alerts changed; 1000 listed, 1000 firing") !=
                     std::string::npos,
                 events[0].text.c_str());
    }

    void aRecordingReplaysTheListAsItWas() {
        const auto floor = hallFloor();
        model::SimModel sim(floor, telemetryConfig());
        auto a = readyAlerts(*floor);
        QTemporaryDir dir;
        const std::string path = dir.filePath("alerts.ftrec").toStdString();
        importers::RecordingInfo info;
        info.floorJson = importers::floorSpecToJson(floor->spec());
        info.telemetry = true;
        auto writer = importers::RecordingWriter::create(path, floor, info);
        QVERIFY(writer);
        (*writer)->setBlocking(true);
        auto send = [&](std::vector<model::ExternalAlert> alerts) {
            auto board = std::make_shared<model::AlertBoard>();
            board->alerts = std::move(alerts);
            model::SampleBatch b;
            b.source = 1;
            b.alerts = board;
            sim.apply(b);
        };
        auto run = [&](int ticks) {
            for (int i = 0; i < ticks; ++i) {
                sim.step();
                model::Snapshot snap;
                sim.publishTo(snap);
                (*writer)->push(std::make_shared<const model::Snapshot>(std::move(snap)));
            }
        };
        run(5);
        const model::TimeNs before = sim.state().time;
        send(a.alerts);
        run(20);
        const model::TimeNs first = sim.state().time;
        auto next = a.alerts;
        next.erase(next.begin()); // GpuXidErrors resolved
        send(next);
        run(20);
        const model::TimeNs second = sim.state().time;
        (*writer)->close();

        auto reader = importers::RecordingReader::open(path);
        QVERIFY2(reader, reader ? "" : reader.error().toString().c_str());
        model::Snapshot at;
        QVERIFY((*reader)->snapshotAt(before - model::kNsPerMs, at));
        QVERIFY(!at.externalAlerts); // nothing known yet
        QVERIFY((*reader)->snapshotAt(first, at));
        QVERIFY(at.externalAlerts);
        QCOMPARE(at.externalAlerts->alerts, a.alerts); // every field, placements included
        QVERIFY((*reader)->snapshotAt(second, at));
        QCOMPARE(at.externalAlerts->alerts.size(), std::size_t(4));
        QCOMPARE(named(at.externalAlerts->alerts, "NodeDown").silences[0].createdBy,
                 std::string("alice"));
        // The transitions are events on the timeline, kept too.
        std::size_t fired = 0, resolved = 0;
        for (const auto& e : *at.events)
            if (e.kind == model::EventKind::Alert) {
                fired += e.text.ends_with("firing") ? 1 : 0;
                resolved += e.text.ends_with("resolved") ? 1 : 0;
            }
        QCOMPARE(fired, std::size_t(3));
        QCOMPARE(resolved, std::size_t(1));
    }

    void theTwinsCausesBecomeAlertsUntilTheyEnd() {
        const auto floor = hallFloor();
        model::Snapshot snap;
        auto incident = std::make_shared<model::Incident>();
        incident->id = 7;
        incident->start = 1000 * model::kNsPerSecond;
        incident->root = {EntityKind::ComputeTray, trayOfHost(*floor, "gpu-node-0002")};
        incident->rootKind = "alarm";
        incident->rootText = "gpu-node-0002: GPU over temperature";
        incident->domain = model::CauseDomain::Cooling;
        incident->racks = 1;
        incident->jobs = {"42 train (alice)"};
        model::IncidentList list;
        list.push_back(incident);
        snap.incidents = std::make_shared<const model::IncidentList>(list);
        model::Alarm hot;
        hot.title = "GPU over temperature";
        hot.kind = EntityKind::ComputeTray;
        hot.entity = incident->root.id;
        hot.severity = Severity::Critical;
        snap.alarms = {hot};
        std::map<std::uint32_t, bool> open;
        const model::TimeNs now = 2000 * model::kNsPerSecond, hold = 45 * model::kNsPerSecond;
        auto alerts = importers::incidentAlerts(snap, *floor, now, hold, open);
        QCOMPARE(alerts.size(), std::size_t(1));
        const auto& a = alerts[0];
        auto label = [&](const model::Labels& l, std::string_view k) {
            for (const auto& [key, v] : l)
                if (key == k) return v;
            return std::string();
        };
        QCOMPARE(label(a.labels, "alertname"), std::string("FloortwinCause"));
        QCOMPARE(label(a.labels, "severity"), std::string("critical"));
        QCOMPARE(label(a.labels, "cause"), std::string("cooling"));
        QCOMPARE(label(a.labels, "incident"), std::string("7"));
        QCOMPARE(label(a.labels, "rack"),
                 floor->name(EntityKind::Rack,
                             *floor->rackOf(EntityKind::ComputeTray, incident->root.id)));
        QVERIFY(!label(a.labels, "row").empty());
        QCOMPARE(label(a.annotations, "summary"), incident->rootText);
        QCOMPARE(label(a.annotations, "jobs"), std::string("42 train (alice)"));
        QCOMPARE(a.startsAt, incident->start);
        QCOMPARE(a.endsAt, now + hold);
        QVERIFY(open.contains(7));
        // Ended: sent once more, ending now; then no more.
        auto ended = std::make_shared<model::Incident>(*incident);
        ended->end = now + model::kNsPerSecond;
        model::IncidentList after;
        after.push_back(ended);
        snap.incidents = std::make_shared<const model::IncidentList>(after);
        alerts = importers::incidentAlerts(snap, *floor, now + 2 * model::kNsPerSecond, hold, open);
        QCOMPARE(alerts.size(), std::size_t(1));
        QCOMPARE(alerts[0].endsAt, now + 2 * model::kNsPerSecond);
        QVERIFY(open.empty());
        QVERIFY(importers::incidentAlerts(snap, *floor, now, hold, open).empty());
    }

    void aWindowsAlertsComeFromPrometheusOwnAlertsSeries() {
        // ALERTS{alertstate="firing"} over a window, 15 s steps: NodeDown fires twice, GpuHot
        // once; ALERTS_FOR_STATE says when GpuHot became active (before the window).
        const auto floor = hallFloor();
        importers::AlertHistory history(*floor, {}, "prometheus p:9090 (ALERTS)");
        constexpr model::TimeNs s = model::kNsPerSecond, step = 15 * s, t0 = 1000 * s;
        importers::PromqlResult firing;
        importers::PromqlSeries down{{{"__name__", "ALERTS"},
                                      {"alertname", "NodeDown"},
                                      {"alertstate", "firing"},
                                      {"instance", "gpu-node-0002:9100"}},
                                     {}};
        for (const int k : {0, 1, 2, 6, 7})
            down.points.emplace_back(t0 + k * step, 1.0);
        importers::PromqlSeries hot{{{"__name__", "ALERTS"},
                                     {"alertname", "GpuHot"},
                                     {"alertstate", "firing"},
                                     {"Hostname", "gpu-node-0001"},
                                     {"gpu", "3"},
                                     {"severity", "critical"}},
                                    {}};
        for (int k = 0; k < 8; ++k)
            hot.points.emplace_back(t0 + k * step, 1.0);
        firing.series = {down, hot};
        history.addFiring(firing);
        importers::PromqlResult since;
        importers::PromqlSeries hotSince = hot;
        hotSince.labels[0].second = "ALERTS_FOR_STATE";
        hotSince.labels.erase(hotSince.labels.begin() + 2); // no alertstate
        hotSince.points = {{t0 + 7 * step, 900.0}};
        since.series = {hotSince};
        history.addActiveSince(since);
        QCOMPARE(history.alerts(), std::size_t(2));
        auto b = history.changedAt(t0 + 5 * s, step);
        QVERIFY(b);
        QCOMPARE(b->alerts.size(), std::size_t(2));
        const auto& gpuHot = named(b->alerts, "GpuHot");
        QCOMPARE(gpuHot.startsAt, 900 * s); // ALERTS_FOR_STATE's activeAt
        QCOMPARE(gpuHot.severity, Severity::Critical);
        QCOMPARE(gpuHot.entities[0].kind, EntityKind::Gpu);
        QCOMPARE(named(b->alerts, "NodeDown").entities[0].kind, EntityKind::ComputeTray);
        QCOMPARE(gpuHot.fingerprint,
                 importers::labelsFingerprint(importers::alertLabels(hot.labels)));
        QVERIFY(!history.changedAt(t0 + 10 * s, step)); // same list: nothing new
        b = history.changedAt(t0 + 4 * step, step);     // NodeDown resolved between runs
        QVERIFY(b);
        QCOMPARE(b->alerts.size(), std::size_t(1));
        b = history.changedAt(t0 + 6 * step + s, step); // fired again: a new start
        QCOMPARE(named(b->alerts, "NodeDown").startsAt, t0 + 6 * step);
        b = history.changedAt(t0 + 9 * step, step); // past the last points: none
        QVERIFY(b && b->alerts.empty());
    }

    void theSourceReadsAlertsAndSilencesOverHttp() {
        const auto floor = hallFloor();
        std::mutex mutex;
        std::string alertsBody = dataFile("alerts-0.25.json");
        int failWith = 0;
        testing::PageServer server([&](const testing::PageServer::Request& r) {
            std::lock_guard lock(mutex);
            if (failWith) return testing::PageServer::Response{failWith, R"({"error":"down"})"};
            if (r.target.starts_with("/am/api/v2/alerts?"))
                return testing::PageServer::Response{200, alertsBody, "application/json"};
            if (r.target == "/am/api/v2/silences")
                return testing::PageServer::Response{200, dataFile("silences.json"),
                                                     "application/json"};
            return testing::PageServer::Response{404, "not found"};
        });
        const std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/am/";
        auto config = importers::parseAlertmanagerSpec("alertmanager=" + url);
        QVERIFY(config);
        QCOMPARE(config->url, url.substr(0, url.size() - 1)); // the slash dropped
        config->interval = std::chrono::milliseconds(100);
        config->sourceId = 7;
        Received got;
        importers::AlertmanagerSource source(*config, floor, got.fn());
        source.start();
        QVERIFY(waitFor([&] { return got.boards() >= 1; }));
        auto board = got.board();
        QCOMPARE(board->alerts.size(), std::size_t(5));
        // Expired silences are history: only the active one is on the board.
        QCOMPARE(board->silences.size(), std::size_t(1));
        const auto& down = named(board->alerts, "NodeDown");
        QCOMPARE(down.silences.size(), std::size_t(1));
        QCOMPARE(down.source, "alertmanager 127.0.0.1:" + std::to_string(server.port()));
        QCOMPARE(named(board->alerts, "RackInletHot").severity, Severity::Critical);
        auto h = source.health().front();
        QCOMPARE(h.state, importers::SourceState::Up);
        QVERIFY(h.samples >= 5 && h.mapped >= 4 && h.unmapped >= 1);
        QVERIFY(!h.unresolved.empty());
        QVERIFY2(h.unresolved[0].name.find("DiskAlmostFull") != std::string::npos,
                 h.unresolved[0].name.c_str());
        QVERIFY(h.conditions[0].starts_with("3 firing, 2 silenced or inhibited, 1 not on"));

        // A malformed alert among good ones: the others stay, the health says which.
        {
            std::lock_guard lock(mutex);
            alertsBody = dataFile("alerts-bad.json");
        }
        const int seen = got.boards();
        QVERIFY(waitFor([&] { return got.boards() > seen + 1; }));
        QCOMPARE(got.board()->alerts.size(), std::size_t(3));
        h = source.health().front();
        QCOMPARE(h.state, importers::SourceState::Degraded);
        QVERIFY(h.badLines >= 6);
        QVERIFY2(h.lastError.find("alert 2: no labels") != std::string::npos, h.lastError.c_str());

        // Alertmanager goes away: nothing is sent (the board keeps the last list), never fatal.
        {
            std::lock_guard lock(mutex);
            failWith = 503;
        }
        QVERIFY(
            waitFor([&] { return source.health().front().state == importers::SourceState::Down; }));
        const int atFailure = got.boards();
        QTest::qWait(300);
        QCOMPARE(got.boards(), atFailure);
        QVERIFY(source.health().front().lastError.find("503") != std::string::npos);
        {
            std::lock_guard lock(mutex);
            failWith = 0;
            alertsBody = dataFile("alerts-0.25.json");
        }
        QVERIFY(
            waitFor([&] { return source.health().front().state == importers::SourceState::Up; }));
        source.stop();
    }

    void aHundredThousandAlertsAreAllRead() {
        // A storm: 100,000 alerts in one answer (some 50 MB), every one read and placed.
        const auto floor = hallFloor();
        const std::string host = floor->hostName(0);
        nlohmann::json list = nlohmann::json::array();
        for (int i = 0; i < 100000; ++i)
            list.push_back(
                {{"labels",
                  {{"alertname", "Storm"}, {"instance", host + ":9100"}, {"n", std::to_string(i)}}},
                 {"annotations", {{"summary", "storm alert " + std::to_string(i)}}},
                 {"startsAt", "2026-12-07T03:00:00Z"},
                 {"endsAt", "2026-12-07T04:00:00Z"},
                 {"updatedAt", "2026-12-07T03:00:00Z"},
                 {"fingerprint", "f" + std::to_string(i)},
                 {"receivers", nlohmann::json::array({{{"name", "noc"}}})},
                 {"status",
                  {{"state", "active"},
                   {"silencedBy", nlohmann::json::array()},
                   {"inhibitedBy", nlohmann::json::array()}}}});
        const std::string body = list.dump();
        testing::PageServer server([&](const testing::PageServer::Request& r) {
            return r.target.starts_with("/api/v2/alerts")
                       ? testing::PageServer::Response{200, body, "application/json"}
                       : testing::PageServer::Response{200, "[]", "application/json"};
        });
        auto config =
            importers::parseAlertmanagerSpec("http://127.0.0.1:" + std::to_string(server.port()));
        config->http.timeout = std::chrono::milliseconds(60000);
        importers::HttpClient client;
        importers::EntityNameIndex index(*floor);
        const auto read = importers::readAlertmanagerOnce(*config, client, index);
        QVERIFY2(read.error.empty(), read.error.c_str());
        QCOMPARE(read.answer.alerts.size(), std::size_t(100000));
        QCOMPARE(read.answer.skipped, std::size_t(0));
        QVERIFY(std::ranges::all_of(read.answer.alerts, [](const auto& a) {
            return a.entities.size() == 1 && a.entities[0].kind == EntityKind::ComputeTray;
        }));
    }

    void silencesAreMadeAndExpiredAndRefusalsSaid() {
        std::mutex mutex;
        std::vector<testing::PageServer::Request> seen;
        int refuse = 0;
        testing::PageServer server([&](const testing::PageServer::Request& r) {
            std::lock_guard lock(mutex);
            seen.push_back(r);
            if (refuse)
                return testing::PageServer::Response{refuse, "silence invalid: no matchers\n"};
            if (r.method == "POST" && r.target == "/api/v2/silences")
                return testing::PageServer::Response{200, R"({"silenceID":"new-1"})",
                                                     "application/json"};
            if (r.method == "DELETE" && r.target == "/api/v2/silence/new-1")
                return testing::PageServer::Response{200, ""};
            return testing::PageServer::Response{404, "not found"};
        });
        auto config =
            importers::parseAlertmanagerSpec("http://127.0.0.1:" + std::to_string(server.port()));
        QVERIFY(config);
        config->http.bearerToken = "s3cret";
        importers::NewSilence s;
        s.matchers = {{"instance", "gpu-node-0002:9100"}};
        s.startsAt = 1;
        s.endsAt = 2;
        s.createdBy = "carol";
        s.comment = "from the twin";
        auto id = importers::createSilence(*config, s);
        QVERIFY2(id, id ? "" : id.error().c_str());
        QCOMPARE(*id, std::string("new-1"));
        QVERIFY(importers::expireSilence(*config, *id));
        {
            std::lock_guard lock(mutex);
            QCOMPARE(seen.size(), std::size_t(2));
            QCOMPARE(seen[0].headers["authorization"], std::string("Bearer s3cret"));
            QCOMPARE(nlohmann::json::parse(seen[0].body)["comment"].get<std::string>(),
                     std::string("from the twin"));
            QCOMPARE(seen[1].method, std::string("DELETE"));
        }
        for (const int status : {400, 401, 403}) {
            {
                std::lock_guard lock(mutex);
                refuse = status;
            }
            auto refused = importers::createSilence(*config, s);
            QVERIFY(!refused);
            QVERIFY2(refused.error().find(std::to_string(status)) != std::string::npos &&
                         refused.error().find("silence invalid") != std::string::npos,
                     refused.error().c_str());
            QVERIFY(refused.error().find("s3cret") == std::string::npos);
        }
        auto expired = importers::expireSilence(*config, "new-1");
        QVERIFY(!expired);
    }

    void theRealAnswersOfTheCorpusParseAndPlace() {
        // Alertmanager 0.31 and 0.22 as karma's mock captured them (shared corpus).
        const QString dir = testing::corpusDir() + "/real-world/alertmanager";
        FT_REQUIRE(QDir(dir).exists(), "the shared corpus (real-world/alertmanager)",
                   "../shared beside the checkout, or FT_CORPUS_DIR");
        const auto floor = hallFloor();
        importers::EntityNameIndex index(*floor);
        for (const char* version : {"0.31.0", "0.22.0"}) {
            const QString base = dir + "/karma-mock-am-" + version + "-api-v2-";
            auto a =
                importers::parseAlertmanagerAlerts(fileText(base + "alerts-groups.json"), version);
            QVERIFY2(a, a ? "" : a.error().c_str());
            QVERIFY(a->groups);
            QVERIFY2(a->warnings.empty(), a->warnings.empty() ? "" : a->warnings[0].c_str());
            QCOMPARE(a->skipped, std::size_t(0));
            // 24 in the groups, 12 alerts: each is listed once per receiver group routing it.
            QCOMPARE(a->alerts.size(), std::size_t(12));
            std::size_t muted = 0;
            for (const auto& x : a->alerts)
                muted += model::alertMuted(x.state) ? 1 : 0;
            QCOMPARE(muted, std::size_t(4));
            auto s =
                importers::parseAlertmanagerSilences(fileText(base + "silences.json"), version);
            QVERIFY2(s, s ? "" : s.error().c_str());
            QCOMPARE(s->skipped, std::size_t(0));
            QCOMPARE(s->silences.size(), std::size_t(3));
            importers::attachSilences(a->alerts, s->silences);
            // Their hosts (server1..., web1...) are not on the hall's floor: each is listed
            // with why.
            importers::placeAlerts(a->alerts, index);
            std::set<std::string> hosts;
            for (const auto& x : a->alerts) {
                QVERIFY(x.entities.empty());
                QVERIFY2(x.placedBy.starts_with("not on this floor: ") &&
                             x.placedBy.find("instance=") != std::string::npos,
                         x.placedBy.c_str());
                hosts.insert(std::string(x.label("instance")));
                if (x.state == AlertState::Silenced && !x.silencedBy.empty())
                    QVERIFY2(!x.silences.empty(), x.fingerprint.c_str());
            }
            // On an inventory of every other one of those hosts, those land on their trays.
            std::string csv = "Host Name,Rack Name,Row\n";
            std::set<std::string> listed;
            int i = 0;
            for (const auto& h : hosts)
                if (i++ % 2 == 0) {
                    csv += h + ",R1,A\n";
                    listed.insert(h);
                }
            auto inv = importers::parseInventoryCsv(csv, "corpus-hosts.csv");
            QVERIFY2(inv, inv ? "" : inv.error().toString().c_str());
            const auto hostsFloor = model::Topology::build(inv->spec);
            QVERIFY(hostsFloor);
            importers::EntityNameIndex hostIndex(*hostsFloor);
            importers::placeAlerts(a->alerts, hostIndex);
            std::size_t placed = 0;
            for (const auto& x : a->alerts) {
                const bool onFloor = listed.contains(std::string(x.label("instance")));
                QCOMPARE(!x.entities.empty(), onFloor);
                if (!onFloor) continue;
                ++placed;
                QCOMPARE(x.entities[0].kind, EntityKind::ComputeTray);
                QCOMPARE(hostsFloor->hostName(x.entities[0].id), std::string(x.label("instance")));
            }
            QVERIFY(placed > 0 && placed < a->alerts.size());
        }
    }

    void aRealAlertmanagerIsReadAndSilencedThroughTheTwin() {
        FT_REQUIRE_PROGRAM("prometheus-alertmanager", "prometheus-alertmanager");
        testing::AlertmanagerFixture am;
        QVERIFY2(am.start(), am.log().constData());
        const auto floor = hallFloor();
        // Two alerts for hosts of the floor, posted as Prometheus would.
        importers::AlertmanagerConfig config = *importers::parseAlertmanagerSpec(am.url());
        importers::PostedAlert xid, down;
        xid.labels = {{"alertname", "GpuXidErrors"},
                      {"Hostname", "gpu-node-0001"},
                      {"gpu", "1"},
                      {"severity", "critical"}};
        xid.annotations = {{"summary", "XID 79"}, {"runbook_url", "https://runbooks/xid"}};
        down.labels = {{"alertname", "NodeDown"}, {"instance", "gpu-node-0002:9100"}};
        QVERIFY(importers::postAlerts(config, {xid, down}));
        config.interval = std::chrono::milliseconds(200);
        Received got;
        importers::AlertmanagerSource source(config, floor, got.fn());
        source.start();
        auto both = [&] { return got.board() && got.board()->alerts.size() == 2; };
        QVERIFY2(waitFor(both), am.log().constData());
        const auto& fired = named(got.board()->alerts, "GpuXidErrors");
        QCOMPARE(fired.entities[0].kind, EntityKind::Gpu);
        QCOMPARE(fired.state, AlertState::Firing);
        QCOMPARE(fired.severity, Severity::Critical);
        QVERIFY(!fired.fingerprint.empty());

        // Silenced through the twin: Alertmanager's own API says so, with the author.
        importers::NewSilence s;
        s.matchers = {{"alertname", "NodeDown"}, {"instance", "gpu-node-0002:9100"}};
        const auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
        s.startsAt = now;
        s.endsAt = now + 3600 * model::kNsPerSecond;
        s.createdBy = "carol";
        s.comment = "reseating the NIC";
        auto id = importers::createSilence(config, s);
        QVERIFY2(id, id ? "" : id.error().c_str());
        source.pollSoon();
        auto silenced = [&] {
            const auto b = got.board();
            return b && b->alerts.size() == 2 &&
                   named(b->alerts, "NodeDown").state == AlertState::Silenced;
        };
        QVERIFY2(waitFor(silenced), am.log().constData());
        const auto& muted = named(got.board()->alerts, "NodeDown");
        QCOMPARE(muted.silences.size(), std::size_t(1));
        QCOMPARE(muted.silences[0].createdBy, std::string("carol"));
        QCOMPARE(muted.silences[0].id, *id);
        QCOMPARE(muted.entities[0].kind, EntityKind::ComputeTray);
        // ...and expired again.
        QVERIFY(importers::expireSilence(config, *id));
        source.pollSoon();
        auto firingAgain = [&] {
            const auto b = got.board();
            return b && named(b->alerts, "NodeDown").state == AlertState::Firing;
        };
        QVERIFY2(waitFor(firingAgain), am.log().constData());

        // The twin's causes to the pager: an open incident arrives as FloortwinCause on its
        // rack, read back through the source like any other alert.
        auto snap = std::make_shared<model::Snapshot>();
        auto incident = std::make_shared<model::Incident>();
        incident->id = 3;
        incident->start = now;
        incident->root = {EntityKind::Rack, 0};
        incident->rootText = "DH2-R11-C01: Low coolant flow";
        incident->domain = model::CauseDomain::Cooling;
        model::IncidentList list;
        list.push_back(incident);
        snap->incidents = std::make_shared<const model::IncidentList>(list);
        importers::AlertPusher pusher(*importers::parseAlertmanagerSpec(am.url()),
                                      std::chrono::milliseconds(200), floor,
                                      [snap] { return snap; });
        pusher.start();
        auto pushed = [&] {
            const auto b = got.board();
            if (!b) return false;
            for (const auto& a : b->alerts)
                if (a.name == "FloortwinCause") return true;
            return false;
        };
        QVERIFY2(waitFor(pushed), am.log().constData());
        pusher.stop();
        const auto& cause = named(got.board()->alerts, "FloortwinCause");
        QCOMPARE(cause.entities[0], (model::EntityRef{EntityKind::Rack, 0}));
        QCOMPARE(cause.label("cause"), std::string_view("cooling"));
        QCOMPARE(pusher.health().front().state, importers::SourceState::Up);
        source.stop();
    }
};

QTEST_GUILESS_MAIN(TestAlertmanager)
#include "test_alertmanager.moc"
