// The workload scheduler as a source: Slurm's answers in both generations of shapes (22.05's
// `sinfo/squeue --json` as a real Slurm here printed them, and the 24.05 data_parser v0.0.40
// shapes), host lists, node states, their placement on an inventory floor, the model's events
// and the racks' lifecycle following the nodes; then a real Slurm (slurm-wlm + munge, started on
// loopback by tests/support/slurm_fixture.h) read through the commands, through a slurmrestd-style
// HTTP server, and by the floortwin binary with --follow-scheduler.
#include "importers/floor/inventory_csv.h"
#include "importers/formats/slurm_json.h"
#include "importers/mapping/entity_name_index.h"
#include "importers/mapping/slurm_floor.h"
#include "importers/sources/slurm_source.h"
#include "model/sim_model.h"
#include "support/floortwin_run.h"
#include "support/loopback_server.h"
#include "support/requirement.h"
#include "support/slurm_fixture.h"
#include "support/test_paths.h"
#include "views/scheduler_rows.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <mutex>

using namespace ft;
using importers::SlurmAnswer;
using model::SchedulerState;

namespace {

std::string fileText(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
    return f.readAll().toStdString();
}

SlurmAnswer parsed(const QString& path) {
    auto a = importers::parseSlurmJson(fileText(path), path.toStdString());
    if (!a) qFatal("%s", a.error().c_str());
    return *a;
}

const importers::SlurmNode& nodeNamed(const SlurmAnswer& a, const std::string& name) {
    for (const auto& n : a.nodes)
        if (n.name == name) return n;
    qFatal("no node %s", name.c_str());
}

// An inventory floor of the hosts given, `perRack` to a rack (racks A01, A02, ...).
std::shared_ptr<const model::Topology> floorOfHosts(const QStringList& hosts, int perRack = 4) {
    std::string csv = "Host Name,Rack Name,Row,Tray,Hall,Site,Status\n";
    for (int i = 0; i < hosts.size(); ++i)
        csv += hosts[i].toStdString() + ",A0" + std::to_string(1 + i / perRack) + ",R1," +
               std::to_string(1 + i % perRack) + ",H1,s1,active\n";
    auto inv = importers::parseInventoryCsv(csv, "hosts.csv");
    if (!inv) qFatal("%s", inv.error().toString().c_str());
    auto built = model::Topology::build(inv->spec);
    if (!built) qFatal("%s", built.error().c_str());
    return std::make_shared<const model::Topology>(std::move(*built));
}

model::EntityId trayOfHost(const model::Topology& t, const QString& host) {
    for (model::EntityId tray = 0; tray < t.count(model::EntityKind::ComputeTray); ++tray)
        if (t.hostName(tray) == host.toStdString()) return tray;
    qFatal("no host %s", qPrintable(host));
}

// Everything a source sends, by tray and GPU: the newest state, note and job.
class Received {
public:
    importers::SubmitFn fn() {
        return [this](const model::SampleBatch& b) {
            std::lock_guard lock(m_mutex);
            ++m_batches;
            m_schedulerJobs = m_schedulerJobs || b.schedulerJobs;
            for (const auto& s : b.samples)
                if (s.channel == model::ch::ComputeTraySchedulerState) m_state[s.entity] = s.value;
            for (auto& n : b.nodeNotes)
                m_note[n.tray] = n;
            for (auto& [gpu, job] : b.gpuJobs)
                m_job[gpu] = job;
            return true;
        };
    }
    float state(model::EntityId tray) const {
        std::lock_guard lock(m_mutex);
        const auto it = m_state.find(tray);
        return it == m_state.end() ? -1.0f : it->second;
    }
    model::NodeNote note(model::EntityId tray) const {
        std::lock_guard lock(m_mutex);
        const auto it = m_note.find(tray);
        return it == m_note.end() ? model::NodeNote{} : it->second;
    }
    std::string job(model::EntityId gpu) const {
        std::lock_guard lock(m_mutex);
        const auto it = m_job.find(gpu);
        return it == m_job.end() ? std::string("<none>") : it->second;
    }
    bool schedulerJobs() const {
        std::lock_guard lock(m_mutex);
        return m_schedulerJobs;
    }

private:
    mutable std::mutex m_mutex;
    std::size_t m_batches = 0;
    bool m_schedulerJobs = false;
    std::map<model::EntityId, float> m_state;
    std::map<model::EntityId, model::NodeNote> m_note;
    std::map<model::EntityId, std::string> m_job;
};

constexpr float value(SchedulerState s) {
    return static_cast<float>(s);
}

} // namespace

class TestSlurm : public QObject {
    Q_OBJECT

private slots:
    void hostLists() {
        auto names = importers::expandHostList("a01-n[01-03,07],b02-n01");
        QVERIFY(names);
        QCOMPARE(*names,
                 (std::vector<std::string>{"a01-n01", "a01-n02", "a01-n03", "a01-n07", "b02-n01"}));
        names = importers::expandHostList("r[1-2]n[8-10]");
        QVERIFY(names);
        QCOMPARE(*names,
                 (std::vector<std::string>{"r1n8", "r1n9", "r1n10", "r2n8", "r2n9", "r2n10"}));
        names = importers::expandHostList("gpu[098-101]");
        QVERIFY(names);
        QCOMPARE(*names, (std::vector<std::string>{"gpu098", "gpu099", "gpu100", "gpu101"}));
        QCOMPARE(importers::expandHostList("cs75")->size(), std::size_t(1));
        QVERIFY(importers::expandHostList("")->empty());
        for (const char* bad : {"a[1-", "a]", "a[3-1]", "a[x]", "a[1-2,,]"}) {
            const auto r = importers::expandHostList(bad);
            QVERIFY2(!r, bad);
            QVERIFY2(r.error().find(bad) != std::string::npos, r.error().c_str());
        }
        const auto big = importers::expandHostList("n[1-999999]", 1000);
        QVERIFY(!big);
        QVERIFY(big.error().find("more than 1000") != std::string::npos);
    }

    void nodeStates() {
        auto state = [](std::vector<std::string> words) {
            importers::SlurmNode n;
            n.states = std::move(words);
            return importers::schedulerStateOf(n);
        };
        QCOMPARE(state({"IDLE"}), SchedulerState::Idle);
        QCOMPARE(state({"MIXED"}), SchedulerState::Busy);
        QCOMPARE(state({"ALLOCATED"}), SchedulerState::Busy);
        QCOMPARE(state({"IDLE", "COMPLETING"}), SchedulerState::Busy);
        QCOMPARE(state({"IDLE", "DRAIN"}), SchedulerState::Drained);
        QCOMPARE(state({"MIXED", "DRAIN"}), SchedulerState::Draining);
        QCOMPARE(state({"DOWN"}), SchedulerState::Down);
        QCOMPARE(state({"IDLE", "NOT_RESPONDING"}), SchedulerState::Down);
        QCOMPARE(state({"DOWN", "DRAIN"}), SchedulerState::Down);
        QCOMPARE(state({"IDLE", "FAIL"}), SchedulerState::Failed);
        QCOMPARE(state({"IDLE", "MAINTENANCE", "RESERVED"}), SchedulerState::Reserved);
        QVERIFY(model::schedulerOutOfService(SchedulerState::Draining));
        QVERIFY(!model::schedulerOutOfService(SchedulerState::Reserved));
        importers::SlurmNode drained;
        drained.states = {"IDLE", "DRAIN"};
        QCOMPARE(importers::describeNodeState(drained), std::string("idle + drained"));
    }

    // Slurm 22.05 (OpenAPI v0.0.38), captured from the slurm-wlm this suite starts below.
    void parsesSlurm2205() {
        const auto nodes = parsed(FT_TEST_DATA_PATH("/slurm/sinfo-22.05.json"));
        QCOMPARE(nodes.release, std::string("22.05.8"));
        QCOMPARE(nodes.plugin, std::string("openapi/v0.0.38"));
        QCOMPARE(nodes.nodes.size(), std::size_t(3));
        QVERIFY(nodes.warnings.empty());
        const auto& drained = nodeNamed(nodes, "a01-n03");
        QCOMPARE(drained.states, (std::vector<std::string>{"IDLE", "DRAIN"}));
        QCOMPARE(drained.reason, std::string("XID 79 on GPU 2"));
        QCOMPARE(drained.reasonBy, std::string("root"));
        QVERIFY(drained.reasonSince > 1700000000);
        QCOMPARE(importers::schedulerStateOf(nodeNamed(nodes, "a01-n01")), SchedulerState::Busy);

        const auto jobs = parsed(FT_TEST_DATA_PATH("/slurm/squeue-22.05.json"));
        QCOMPARE(jobs.jobs.size(), std::size_t(3));
        const auto& running = jobs.jobs[2];
        QCOMPARE(running.id, std::string("3"));
        QCOMPARE(running.name, std::string("train-llm"));
        QCOMPARE(running.user, std::string("root"));
        QCOMPARE(running.partition, std::string("gpu"));
        QCOMPARE(running.state, std::string("RUNNING"));
        QCOMPARE(running.nodes, std::vector<std::string>{"a01-n01"});
        QVERIFY(running.start > 1700000000);
        QVERIFY(importers::jobOnNodes(running));
        QCOMPARE(jobs.jobs[1].state, std::string("CANCELLED"));
        QVERIFY(jobs.jobs[1].nodes.empty());
        QVERIFY(!importers::jobOnNodes(jobs.jobs[0]));
    }

    // Slurm 24.05 (data_parser v0.0.40): states and times as the newer releases nest them.
    void parsesSlurm2405() {
        const auto nodes = parsed(FT_TEST_DATA_PATH("/slurm/sinfo-v0.0.40.json"));
        QCOMPARE(nodes.release, std::string("24.05.3"));
        QCOMPARE(nodes.nodes.size(), std::size_t(6));
        const auto& n1 = nodeNamed(nodes, "b01-n01");
        QCOMPARE(n1.hostname, std::string("b01-n01.hall2.example"));
        QCOMPARE(importers::schedulerStateOf(n1), SchedulerState::Drained);
        QCOMPARE(n1.reasonSince, std::int64_t(1796600000));
        QCOMPARE(importers::schedulerStateOf(nodeNamed(nodes, "b01-n02")), SchedulerState::Busy);
        QCOMPARE(importers::schedulerStateOf(nodeNamed(nodes, "b01-n03")), SchedulerState::Down);
        QCOMPARE(importers::schedulerStateOf(nodeNamed(nodes, "b01-n04")),
                 SchedulerState::Draining);
        QCOMPARE(importers::schedulerStateOf(nodeNamed(nodes, "b01-n05")),
                 SchedulerState::Reserved);
        QCOMPARE(importers::schedulerStateOf(nodeNamed(nodes, "z99-n01")), SchedulerState::Failed);
        QCOMPARE(nodeNamed(nodes, "b01-n02").reasonSince, std::int64_t(0)); // "set": false

        const auto jobs = parsed(FT_TEST_DATA_PATH("/slurm/squeue-v0.0.40.json"));
        QCOMPARE(jobs.jobs.size(), std::size_t(3));
        QCOMPARE(jobs.jobs[0].id, std::string("88121"));
        QCOMPARE(jobs.jobs[0].nodes, (std::vector<std::string>{"b01-n02", "b01-n04"}));
        QCOMPARE(jobs.jobs[0].start, std::int64_t(1796590000));
        QCOMPARE(jobs.jobs[1].id, std::string("88130_7")); // an array task, as squeue prints it
        QCOMPARE(jobs.jobs[1].nodes, std::vector<std::string>{"b01-n02"}); // from job_resources
        QCOMPARE(jobs.jobs[1].state, std::string("RUNNING"));
        QCOMPARE(jobs.jobs[2].state, std::string("PENDING"));
        QVERIFY(!importers::jobOnNodes(jobs.jobs[2]));
    }

    void badAnswers() {
        auto err = [](std::string_view text) {
            const auto r = importers::parseSlurmJson(text, "sinfo --json");
            return r ? std::string("<parsed>") : r.error();
        };
        QVERIFY(err("{\"nodes\": [").find("sinfo --json: not JSON") == 0);
        QVERIFY(err("[]").find("expected a JSON object") != std::string::npos);
        QVERIFY(err("{\"nodes\": 3}").find("\"nodes\" is not an array") != std::string::npos);
        // The error envelope a command prints when the controller does not answer.
        const std::string down =
            err("{\"meta\": {}, \"errors\": [{\"error\": \"Unable to contact slurm controller "
                "(connect failure)\", \"error_number\": 1007}]}");
        QVERIFY2(down.find("Unable to contact slurm controller (connect failure) (error 1007)") !=
                     std::string::npos,
                 down.c_str());
        // One bad entry costs only itself, and says which.
        const auto mixed = importers::parseSlurmJson(
            "{\"nodes\": [{\"name\": \"a01-n01\", \"state\": \"idle\"}, 7, {\"state\": \"idle\"}, "
            "{\"name\": \"a01-n02\", \"state\": \"mixed+drain\"}], \"jobs\": [{\"name\": \"no "
            "id\"}, {\"job_id\": 4, \"job_state\": \"RUNNING\", \"nodes\": \"a01-n[02\"}]}",
            "answer");
        QVERIFY(mixed);
        QCOMPARE(mixed->nodes.size(), std::size_t(2));
        QCOMPARE(importers::schedulerStateOf(mixed->nodes[1]), SchedulerState::Draining);
        QCOMPARE(mixed->warnings.size(), std::size_t(4));
        QVERIFY(mixed->warnings[0].find("nodes[1]") != std::string::npos);
        QVERIFY(mixed->warnings[1].find("nodes[2]: no name") != std::string::npos);
        QVERIFY(mixed->warnings[3].find("jobs[1] (job 4)") != std::string::npos);
        QCOMPARE(mixed->jobs.size(), std::size_t(1)); // kept, on no node
    }

    void placement() {
        const auto floor = floorOfHosts({"b01-n01", "b01-n02", "b01-n03", "b01-n04", "b01-n05"});
        importers::EntityNameIndex index(*floor);
        const auto nodes = parsed(FT_TEST_DATA_PATH("/slurm/sinfo-v0.0.40.json"));
        const auto jobs = parsed(FT_TEST_DATA_PATH("/slurm/squeue-v0.0.40.json"));
        const auto p = importers::placeSlurm(nodes, jobs, index, 42);
        QCOMPARE(p.nodes, std::size_t(6));
        QCOMPARE(p.placed, std::size_t(5));
        QCOMPARE(p.unknownNodes.size(), std::size_t(1));
        QCOMPARE(p.unknownNodes[0].name, std::string("z99-n01"));
        QCOMPARE(p.runningJobs, std::size_t(2));
        QCOMPARE(p.jobsPlaced, std::size_t(2));
        QCOMPARE(p.samples.size(), std::size_t(5));
        QCOMPARE(p.byState[static_cast<int>(SchedulerState::Drained)], std::size_t(1));
        const auto n2 = trayOfHost(*floor, "b01-n02"), n1 = trayOfHost(*floor, "b01-n01");
        for (const auto& s : p.samples) {
            QCOMPARE(s.time, model::TimeNs(42));
            QCOMPARE(s.channel, model::ch::ComputeTraySchedulerState);
            if (s.entity == n1) QCOMPARE(s.value, value(SchedulerState::Drained));
            if (s.entity == n2) QCOMPARE(s.value, value(SchedulerState::Busy));
        }
        // The node's words: state, reason with who and when, and every job on it, oldest first.
        const auto note = std::ranges::find(p.notes, n1, &model::NodeNote::tray);
        QVERIFY(note != p.notes.end());
        QCOMPARE(note->state, std::string("idle + drained"));
        QVERIFY2(note->reason.starts_with("Kill task failed (slurm, 2026-"), note->reason.c_str());
        const auto shared = std::ranges::find(p.notes, n2, &model::NodeNote::tray);
        QVERIFY2(shared->jobs.starts_with("88121 pretrain-70b (alice) [gb300, since 2026-"),
                 shared->jobs.c_str());
        QVERIFY2(shared->jobs.find("; 88130_7 eval (bob) [gb300, since") != std::string::npos,
                 shared->jobs.c_str());
        // Every GPU of a placed node carries its job (its oldest), or "" when it runs none.
        const auto gpt = static_cast<model::EntityId>(floor->spec().rack.gpusPerTray);
        QCOMPARE(p.gpuJobs.size(), std::size_t(5) * gpt);
        for (const auto& [gpu, job] : p.gpuJobs) {
            if (gpu / gpt == n2) QCOMPARE(job, std::string("88121 pretrain-70b (alice)"));
            if (gpu / gpt == n1) QCOMPARE(job, std::string());
        }
    }

    // The model: a node's state change is an event with its reason, the rack's lifecycle follows
    // the scheduler (--follow-scheduler), and the scheduler's jobs win over exporters' labels.
    void modelFollowsTheScheduler() {
        const auto floor = floorOfHosts({"a01-n01", "a01-n02", "a02-n01"}, 2);
        model::SimConfig config;
        config.telemetry = true;
        config.followScheduler = true;
        config.settle = false;
        model::SimModel sim(floor, config);
        const model::EntityId t1 = trayOfHost(*floor, "a01-n02"),
                              t0 = trayOfHost(*floor, "a01-n01");
        const model::TimeNs t = sim.state().time;
        auto send = [&](model::EntityId tray, SchedulerState st, std::string reason,
                        std::vector<std::pair<model::EntityId, std::string>> jobs = {},
                        bool fromScheduler = true) {
            model::SampleBatch b;
            b.samples.push_back(
                {sim.state().time, model::ch::ComputeTraySchedulerState, tray, value(st)});
            b.nodeNotes.push_back({tray, floor->hostName(tray),
                                   std::string(model::schedulerStateName(st)), std::move(reason),
                                   ""});
            b.gpuJobs = std::move(jobs);
            b.schedulerJobs = fromScheduler;
            sim.apply(b);
            sim.step();
        };
        const auto gpt = static_cast<model::EntityId>(floor->spec().rack.gpusPerTray);
        send(t0, SchedulerState::Busy, "", {{t0 * gpt, "7 train (alice)"}});
        send(t1, SchedulerState::Idle, "");
        const model::Snapshot* snap = &sim.state();
        QCOMPARE(snap->rackLifecycle[0], model::RackLifecycle::Production);
        QVERIFY(snap->rackJobs);
        QCOMPARE((*snap->rackJobs)[0], std::string("7 train (alice)"));
        // An exporter's label does not replace the scheduler's job.
        send(t0, SchedulerState::Busy, "", {{t0 * gpt, "gpu-operator/nvidia-dcgm-exporter-x"}},
             false);
        QCOMPARE((*sim.state().rackJobs)[0], std::string("7 train (alice)"));

        send(t1, SchedulerState::Drained, "XID 79 on GPU 2 (root, 2026-12-07 03:22 UTC)");
        snap = &sim.state();
        QCOMPARE(snap->rackLifecycle[0], model::RackLifecycle::Troubleshooting);
        QCOMPARE(snap->rackLifecycle[1], model::RackLifecycle::Production);
        QVERIFY(snap->nodeNotes);
        QCOMPARE((*snap->nodeNotes)[t1].reason,
                 std::string("XID 79 on GPU 2 (root, 2026-12-07 03:22 UTC)"));
        // What the inspector lists for the node and for its rack.
        const auto trayRows =
            views::schedulerRows(*snap, *floor, {model::EntityKind::ComputeTray, t1});
        QCOMPARE(trayRows, (views::Rows{{"Scheduler", "drained"},
                                        {"Reason", "XID 79 on GPU 2 (root, 2026-12-07 03:22 UTC)"},
                                        {"Jobs", "none"}}));
        const auto rackRows = views::schedulerRows(*snap, *floor, {model::EntityKind::Rack, 0});
        QCOMPARE(rackRows,
                 (views::Rows{{"Scheduler", "1 drained, 1 busy (of 2 nodes)"},
                              {"Out of service",
                               "a01-n02 drained: XID 79 on GPU 2 (root, 2026-12-07 03:22 UTC)"}}));
        // A tray no scheduler reported says nothing of it.
        QVERIFY(views::schedulerRows(*snap, *floor, {model::EntityKind::Rack, 1}).empty());
        bool event = false, transition = false;
        for (const auto& e : snap->events->since(0)) {
            event = event || (e.kind == model::EventKind::Scheduler &&
                              e.text == "a01-n02: drained — XID 79 on GPU 2 (root, 2026-12-07 "
                                        "03:22 UTC)" &&
                              e.severity == model::Severity::Warning);
            transition = transition ||
                         (e.kind == model::EventKind::Lifecycle &&
                          e.text.find("scheduler: a01-n02 drained: XID 79") != std::string::npos);
        }
        QVERIFY(event);
        QVERIFY(transition);
        // The rack stays out while the node is, whatever the troubleshooting stage's timer says.
        for (int i = 0; i < 200; ++i)
            sim.step();
        QCOMPARE(sim.state().rackLifecycle[0], model::RackLifecycle::Troubleshooting);
        // Down is worse: a critical event; still out.
        send(t1, SchedulerState::Down, "Not responding");
        QCOMPARE(sim.state().rackLifecycle[0], model::RackLifecycle::Troubleshooting);
        // Back in service: production again, through the gates, at once.
        send(t1, SchedulerState::Idle, "");
        snap = &sim.state();
        QCOMPARE(snap->rackLifecycle[0], model::RackLifecycle::Production);
        int back = 0;
        for (const auto& e : snap->events->since(0))
            back += e.kind == model::EventKind::Scheduler &&
                    e.text.find("back in service") != std::string::npos;
        QCOMPARE(back, 1);
        QVERIFY(sim.state().time > t);
    }

    // --check-source slurm=...: what each node became on the floor, and what the floor lacks.
    void checkSource() {
        QTemporaryDir dir;
        QFile inv(dir.filePath("hosts.csv"));
        QVERIFY(inv.open(QIODevice::WriteOnly));
        inv.write("Host Name,Rack Name,Row,Tray,Hall,Site,Status\n"
                  "b01-n01,B01,R1,1,H1,s1,active\nb01-n02,B01,R1,2,H1,s1,active\n"
                  "z98-n01,Z98,R1,1,H1,s1,active\n");
        inv.close();
        const auto run =
            testing::floortwin({"--inventory", inv.fileName(), "--check-source",
                                "slurm=" + QString(FT_TEST_DATA_PATH("/slurm/sinfo-v0.0.40.json")) +
                                    "," + FT_TEST_DATA_PATH("/slurm/squeue-v0.0.40.json")});
        QVERIFY2(run.code == 0, run.err.constData());
        const QJsonObject r = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(r["slurm"].toString(), QStringLiteral("24.05.3"));
        QCOMPARE(r["nodes"].toInt(), 6);
        QCOMPARE(r["placed"].toInt(), 2);
        QCOMPARE(r["running_jobs"].toInt(), 2);
        QCOMPARE(r["jobs_placed"].toInt(), 2);
        QCOMPARE(r["states"].toObject()["drained"].toInt(), 1);
        QCOMPARE(r["states"].toObject()["busy"].toInt(), 1);
        const QJsonArray placed = r["placed_nodes"].toArray();
        QCOMPARE(placed[0].toObject()["node"].toString(), QStringLiteral("b01-n01"));
        QCOMPARE(placed[0].toObject()["state"].toString(), QStringLiteral("idle + drained"));
        QVERIFY(placed[0].toObject()["reason"].toString().startsWith("Kill task failed (slurm, "));
        QVERIFY(placed[1].toObject()["jobs"].toString().startsWith("88121 pretrain-70b (alice)"));
        const QJsonArray unknown = r["unknown_nodes"].toArray();
        QCOMPARE(unknown.size(), 4);
        QCOMPARE(unknown[3].toObject()["node"].toString(), QStringLiteral("z99-n01"));
        QCOMPARE(unknown[3].toObject()["suggestions"].toArray()[0].toString(),
                 QStringLiteral("z98-n01"));
        // A file that is not there says so, and what the spec takes.
        const auto missing = testing::floortwin(
            {"--inventory", inv.fileName(), "--check-source", "slurm=nope.json"});
        QVERIFY(missing.code != 0);
        QVERIFY2(missing.err.contains("slurm=nope.json: no such file"), missing.err.constData());
    }

    // Slurm 21.08 (OpenAPI v0.0.37) from a real exporter's fixtures: old shapes, a flag with a
    // trailing blank.
    void corpusSlurm2108() {
        const QString dir = testing::corpusDir() + "/real-world/jobs";
        FT_REQUIRE(QFile::exists(dir), "the shared corpus (../shared/real-world/jobs)",
                   "the project's checkout beside ../shared");
        const auto nodes = parsed(dir + "/rivos-slurm-exporter-sinfo_out.json");
        QCOMPARE(nodes.release, std::string("21.08.5"));
        QCOMPARE(nodes.nodes.size(), std::size_t(4));
        QCOMPARE(importers::schedulerStateOf(nodeNamed(nodes, "cs2.example.company.com")),
                 SchedulerState::Busy);
        QVERIFY(nodes.warnings.empty());
        const auto jobs = parsed(dir + "/rivos-slurm-exporter-squeue_out.json");
        QCOMPARE(jobs.jobs.size(), std::size_t(2));
        QCOMPARE(jobs.jobs[0].id, std::string("26515966"));
        QCOMPARE(jobs.jobs[0].state, std::string("RUNNING"));
        QCOMPARE(jobs.jobs[0].nodes, std::vector<std::string>{"cs75"});
        QCOMPARE(jobs.jobs[0].user, std::string("bkd"));
        QCOMPARE(jobs.jobs[1].state, std::string("PENDING"));
        QVERIFY(jobs.warnings.empty());
    }

    // A real Slurm: a job, a drained node and a downed one, read through sinfo/squeue and
    // through HTTP in slurmrestd's shape, then by the binary with --follow-scheduler.
    void liveSlurm() {
        FT_REQUIRE_PROGRAM("slurmctld", "slurm-wlm");
        FT_REQUIRE_PROGRAM("munged", "munge");
        const QString local = testing::SlurmFixture::localNode();
        testing::SlurmFixture slurm({"a01-n02", "a01-n03"});
        QVERIFY2(slurm.start(), qPrintable(slurm.error()));
        QVERIFY2(slurm.run("sbatch", {"-J", "train-llm", "-w", local, "--wrap", "sleep 120"}),
                 qPrintable(slurm.error()));
        QVERIFY2(slurm.run("scontrol",
                           {"update", "nodename=a01-n03", "state=drain", "reason=XID 79 on GPU 2"}),
                 qPrintable(slurm.error()));
        QVERIFY2(slurm.run("scontrol",
                           {"update", "nodename=a01-n02", "state=down", "reason=PSU failed"}),
                 qPrintable(slurm.error()));
        QTRY_VERIFY_WITH_TIMEOUT(
            slurm.run("squeue", {"-h", "-t", "running", "-o", "%i"}).value_or("").trimmed().size() >
                0,
            30000);

        const auto floor = floorOfHosts({local, "a01-n02", "a01-n03", "b01-n01"}, 3);
        const auto tLocal = trayOfHost(*floor, local), t2 = trayOfHost(*floor, "a01-n02"),
                   t3 = trayOfHost(*floor, "a01-n03");
        const auto gpt = static_cast<model::EntityId>(floor->spec().rack.gpusPerTray);
        auto check = [&](importers::SlurmConfig config, const char* how) {
            config.interval = std::chrono::milliseconds(200);
            Received got;
            importers::SlurmSource source(config, floor, got.fn());
            source.start();
            QTRY_VERIFY2_WITH_TIMEOUT(
                got.state(t3) == value(SchedulerState::Drained),
                qPrintable(QString::fromLatin1(how) + ": " +
                           QString::fromStdString(source.health()[0].lastError)),
                20000);
            QCOMPARE(got.state(t2), value(SchedulerState::Down));
            QCOMPARE(got.state(tLocal), value(SchedulerState::Busy));
            QVERIFY2(got.note(t3).reason.starts_with("XID 79 on GPU 2 (root, "),
                     got.note(t3).reason.c_str());
            QCOMPARE(got.note(t2).reason.substr(0, 10), std::string("PSU failed"));
            QVERIFY2(got.job(tLocal * gpt).find(" train-llm (") != std::string::npos,
                     got.job(tLocal * gpt).c_str());
            QVERIFY2(got.note(tLocal).jobs.find(" train-llm (") != std::string::npos,
                     got.note(tLocal).jobs.c_str());
            QCOMPARE(got.job(t3 * gpt), std::string());
            QVERIFY(got.schedulerJobs());
            const auto h = source.health()[0];
            QCOMPARE(h.state, importers::SourceState::Up);
            QVERIFY(h.mapped >= 3);
            QCOMPARE(h.conditions.size(), std::size_t(2));
            source.stop();
        };
        check(importers::SlurmConfig{}, "sinfo/squeue");

        // slurmrestd's data API, as a server that answers only v0.0.38 and wants its token.
        const auto sinfo = slurm.run("sinfo", {"--json"}), squeue = slurm.run("squeue", {"--json"});
        QVERIFY(sinfo && squeue);
        using Page = testing::PageServer;
        const std::string nodesBody = sinfo->toStdString(), jobsBody = squeue->toStdString();
        Page rest([&](const Page::Request& r) -> Page::Response {
            const auto token = r.headers.find("x-slurm-user-token");
            if (token == r.headers.end() || token->second != "t0ken")
                return {401, "no token", "text/plain"};
            if (r.target == "/slurm/v0.0.38/nodes") return {200, nodesBody, "application/json"};
            if (r.target == "/slurm/v0.0.38/jobs") return {200, jobsBody, "application/json"};
            return {404, R"({"errors": [{"error": "Unknown path"}]})", "application/json"};
        });
        importers::SlurmConfig http;
        http.mode = importers::SlurmConfig::Mode::Http;
        http.url = "http://127.0.0.1:" + std::to_string(rest.port());
        http.http.bearerToken = "t0ken";
        check(http, "slurmrestd");

        // The binary: the drained node puts its rack in troubleshooting, with the reason.
        QTemporaryDir dir;
        QFile inv(dir.filePath("hosts.csv"));
        QVERIFY(inv.open(QIODevice::WriteOnly));
        inv.write(("Host Name,Rack Name,Row,Tray,Hall,Site,Status\n" + local +
                   ",A01,R1,1,H1,s1,active\na01-n03,A01,R1,2,H1,s1,active\n"
                   "b01-n01,B01,R1,1,H1,s1,active\n")
                      .toUtf8());
        inv.close();
        const auto run = testing::floortwin(
            {"--inventory", inv.fileName(), "--source", "slurm=commands", "--follow-scheduler",
             "--headless", "--for", "2s", "--dump-snapshot", dir.filePath("snap.json")});
        QVERIFY2(run.code == 0, run.err.constData());
        QFile snapFile(dir.filePath("snap.json"));
        QVERIFY(snapFile.open(QIODevice::ReadOnly));
        const QJsonObject snap = QJsonDocument::fromJson(snapFile.readAll()).object();
        QCOMPARE(snap["rack_lifecycle"].toArray()[0].toString(), QStringLiteral("troubleshooting"));
        QCOMPARE(snap["rack_lifecycle"].toArray()[1].toString(), QStringLiteral("production"));
        const QString why =
            snap["lifecycle_transitions"].toArray()[0].toObject()["reason"].toString();
        QVERIFY2(why.startsWith("scheduler: a01-n03 drained: XID 79 on GPU 2 (root, "),
                 qPrintable(why));
        const QJsonObject summary = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(summary["sources"].toArray()[0].toObject()["unmapped"].toInt(),
                 0 + summary["sources"].toArray()[0].toObject()["polls"].toInt()); // a01-n02
    }
};

QTEST_GUILESS_MAIN(TestSlurm)
#include "test_slurm.moc"
