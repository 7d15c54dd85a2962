// Cause chains: for each bundled fault the tracker names the scenario's first action as the
// root and follows its effects in time order through the domains they cross; a healthy run has
// no incident; restores are recovery, not new incidents; a rewound replay starts over.
#include "model/incident_tracker.h"
#include "model/sim_model.h"
#include "support/test_floors.h"

#include <QTest>
#include <algorithm>

using namespace ft;
using model::CauseDomain;
using model::EntityKind;
using model::Incident;

namespace {

using testing::bundledScenario;
using testing::demoFloor;

constexpr int kTicksPerSecond = 10;

std::vector<Incident> run(const std::shared_ptr<const model::Topology>& floor, const char* scenario,
                          int seconds) {
    model::Scenario s = scenario ? bundledScenario(scenario, *floor) : model::Scenario{};
    model::SimModel m(floor, model::SimConfig{}, std::move(s));
    for (int i = 0; i < seconds * kTicksPerSecond; ++i)
        m.step();
    std::vector<Incident> out;
    if (m.state().incidents) out.assign(m.state().incidents->begin(), m.state().incidents->end());
    if (qEnvironmentVariableIsSet("FT_TEST_VERBOSE"))
        for (const auto& inc : out) {
            qInfo("%s", inc.rootText.c_str());
            for (const auto& st : inc.chain)
                qInfo("  %lld %s (%zu)", static_cast<long long>((st.time - inc.start) / 1000000),
                      st.what.c_str(), st.entities.size());
        }
    return out;
}

// The domains a chain crosses, in the order it first reaches them.
std::vector<CauseDomain> domains(const Incident& inc) {
    std::vector<CauseDomain> out{inc.domain};
    for (const auto& s : inc.chain)
        if (std::ranges::find(out, s.domain) == out.end()) out.push_back(s.domain);
    return out;
}

const model::IncidentStep* step(const Incident& inc, model::ChannelId channel) {
    for (const auto& s : inc.chain)
        if (s.channel == channel) return &s;
    return nullptr;
}

void checkOrdered(const Incident& inc) {
    for (std::size_t i = 0; i < inc.chain.size(); ++i) {
        QVERIFY2(inc.chain[i].time >= inc.start, inc.chain[i].what.c_str());
        if (i > 0) QVERIFY(inc.chain[i].time >= inc.chain[i - 1].time);
        QVERIFY2(!inc.chain[i].entities.empty(), inc.chain[i].what.c_str());
    }
}

} // namespace

class TestIncidents : public QObject {
    Q_OBJECT
    std::shared_ptr<const model::Topology> m_floor;

private slots:
    void initTestCase() { m_floor = demoFloor(); }

    void healthyRunHasNoIncident() {
        // Two hours of job changes, checkpoints and inference bursts: none of it is an incident.
        QVERIFY(run(m_floor, nullptr, 2 * 3600).empty());
    }

    void pumpFailureChain() {
        const auto incidents = run(m_floor, "pump-failure", 10 * 60);
        QCOMPARE(incidents.size(), std::size_t{1});
        const Incident& inc = incidents[0];
        checkOrdered(inc);
        QCOMPARE(inc.rootKind, std::string("scenario"));
        QCOMPARE(m_floor->name(inc.root.kind, inc.root.id), std::string("CDU A1 pump 1"));
        QCOMPARE(inc.domain, CauseDomain::Cooling);
        // Coolant flow collapses, then the GPUs heat, then they throttle, then the jobs slow.
        const auto* flow = step(inc, model::ch::RackFlow);
        const auto* hot = step(inc, model::ch::RackGpuTempMax);
        const auto* pace = step(inc, model::ch::RackGpuUtilization);
        QVERIFY(flow && hot && pace);
        QVERIFY(flow->time < hot->time);
        QVERIFY(hot->time < pace->time);
        // Flow and heat stay on CDU A1's eight racks.
        QCOMPARE(flow->entities.size(), std::size_t{8});
        for (const auto r : flow->entities)
            QCOMPARE(m_floor->racks.cdu[r], *m_floor->find(EntityKind::Cdu, "CDU A1"));
        const auto ds = domains(inc);
        QVERIFY(ds.size() >= 3);
        QCOMPARE(ds[0], CauseDomain::Cooling);
        QVERIFY(std::ranges::find(ds, CauseDomain::Jobs) != ds.end());
        QVERIFY(!inc.jobs.empty());
        // The second pump's failure is part of it, the restart a recovery, not a new incident.
        QVERIFY(std::ranges::any_of(inc.chain, [](const auto& s) {
            return s.what.find("pump 2 tripped") != std::string::npos;
        }));
        QVERIFY(std::ranges::any_of(inc.recovery, [](const auto& r) {
            return r.second.find("pump 2 restarted") != std::string::npos;
        }));
        QVERIFY(inc.summary().starts_with("root cause: CDU A1 pump 1: pump 1 tripped"));
    }

    void railDownChain() {
        const auto incidents = run(m_floor, "rail-down", 12 * 60);
        QCOMPARE(incidents.size(), std::size_t{1});
        const Incident& inc = incidents[0];
        checkOrdered(inc);
        QCOMPARE(m_floor->name(inc.root.kind, inc.root.id), std::string("Rail 3"));
        QCOMPARE(inc.domain, CauseDomain::Fabric);
        const auto* down = step(inc, model::ch::RackFabricLinksDown);
        const auto* spread = step(inc, model::ch::RailThroughput);
        QVERIFY(down && spread);
        QCOMPARE(down->entities.size(), m_floor->count(EntityKind::Rack));
        QCOMPARE(spread->entities.size(), m_floor->count(EntityKind::Rail) - 1);
        QVERIFY(down->time <= spread->time);
        QVERIFY(inc.end > 0); // closed once rail 3 was back
    }

    void feedLossChain() {
        const auto incidents = run(m_floor, "feed-loss", 10 * 60);
        QCOMPARE(incidents.size(), std::size_t{1});
        const Incident& inc = incidents[0];
        checkOrdered(inc);
        QCOMPARE(m_floor->name(inc.root.kind, inc.root.id), std::string("A busway A"));
        QCOMPARE(inc.domain, CauseDomain::Power);
        const auto* redundancy = step(inc, model::ch::RackPowerRedundant);
        const auto* capped = step(inc, model::ch::RackPowerCapping);
        QVERIFY(redundancy && capped);
        QCOMPARE(redundancy->entities.size(), std::size_t{8}); // row A
        QCOMPARE(capped->entities.size(), std::size_t{8});
        // Capped GPUs clock down after the cap, where they drew more than it.
        if (const auto* clocks = step(inc, model::ch::GpuSmClock))
            QVERIFY(capped->time <= clocks->time);
        QVERIFY(std::ranges::none_of(inc.chain, [](const auto& s) {
            return s.domain == CauseDomain::Cooling || s.domain == CauseDomain::Storage;
        }));
    }

    void regionLinkChain() {
        const auto incidents = run(m_floor, "region-link-degraded", 25 * 60);
        QCOMPARE(incidents.size(), std::size_t{1});
        const Incident& inc = incidents[0];
        checkOrdered(inc);
        QCOMPARE(inc.root.kind, EntityKind::Region);
        QCOMPARE(inc.domain, CauseDomain::Storage);
        const auto* link = step(inc, model::ch::RegionLinkCapacity);
        const auto* backlog = step(inc, model::ch::RegionBacklog);
        QVERIFY(link && backlog);
        QVERIFY(link->time < backlog->time);
        QVERIFY(inc.jobs.empty()); // checkpoints still land locally: no job waits
    }

    void cacheNodeLossChain() {
        const auto incidents = run(m_floor, "cache-node-loss", 20 * 60);
        QCOMPARE(incidents.size(), std::size_t{1});
        const Incident& inc = incidents[0];
        checkOrdered(inc);
        QCOMPARE(m_floor->name(inc.root.kind, inc.root.id), std::string("A07"));
        QCOMPARE(inc.domain, CauseDomain::Storage);
        const auto* cache = step(inc, model::ch::RackCacheHitRatio);
        const auto* bucket = step(inc, model::ch::RegionRead);
        QVERIFY(cache && bucket);
        QCOMPARE(cache->entities,
                 std::vector<model::EntityId>{*m_floor->find(EntityKind::Rack, "A07")});
        QVERIFY(cache->time <= bucket->time);
        QVERIFY(inc.end > 0); // the caches warmed up again
        QVERIFY(std::ranges::none_of(inc.chain, [](const auto& s) {
            return s.domain == CauseDomain::Cooling || s.domain == CauseDomain::Power;
        }));
    }

    void telemetryReadsOnlyWhatWasMeasured() {
        // Live data: CDU A1's eight racks all show no flow, but only four of them were
        // measured; the other four are the model's fill-ins and are no effect.
        model::SimModel m(m_floor, model::SimConfig{});
        for (int i = 0; i < 10 * kTicksPerSecond; ++i)
            m.step();
        model::Snapshot s;
        m.copyTo(s);
        s.telemetry = true;
        s.staleAfter = 3600 * model::kNsPerSecond;
        for (std::size_t k = 0; k < model::kEntityKindCount; ++k)
            s.measuredAt[k].assign(m_floor->count(static_cast<EntityKind>(k)), 0);
        s.measuredChannels.set(model::ch::RackFlow);
        auto& rackAt = s.measuredAt[static_cast<std::size_t>(EntityKind::Rack)];
        auto stamp = [&] {
            for (model::EntityId r = 0; r < 4; ++r)
                rackAt[r] = s.time;
        };
        stamp();
        model::IncidentTracker tracker(m_floor);
        tracker.observe(s, {});
        const auto pump = *m_floor->find(EntityKind::Pump, "CDU A1 pump 1");
        s.time += 100 * model::kNsPerMs;
        const model::Event fault{s.time,
                                 model::EventKind::ScenarioInjection,
                                 {EntityKind::Pump, pump},
                                 model::Severity::Warning,
                                 "CDU A1 pump 1: tripped"};
        tracker.observe(s, {&fault, 1});
        const auto cdu = *m_floor->find(EntityKind::Cdu, "CDU A1");
        for (model::EntityId r = 0; r < m_floor->count(EntityKind::Rack); ++r)
            if (m_floor->racks.cdu[r] == cdu) s.values[model::ch::RackFlow][r] = 0;
        s.time += 100 * model::kNsPerMs;
        stamp();
        tracker.observe(s, {});
        QCOMPARE(tracker.incidents().size(), std::size_t{1});
        const auto* flow = step(tracker.incidents()[0], model::ch::RackFlow);
        QVERIFY(flow);
        QCOMPARE(flow->entities, (std::vector<model::EntityId>{0, 1, 2, 3}));
    }

    void realJobsComeFromTheGpusLabels() {
        // Live data names its jobs: dcgm-exporter's namespace/pod on each GPU. A rack measured
        // powered off raises an alarm, the incident it roots hurts the job its GPUs run.
        model::SimConfig config;
        config.telemetry = true;
        config.measurementHold = 3600 * model::kNsPerSecond;
        config.staleAfter = 3600 * model::kNsPerSecond;
        model::SimModel m(m_floor, config);
        const auto a01 = *m_floor->find(EntityKind::Rack, "A01");
        auto measure = [&](float on) {
            model::SampleBatch b;
            b.samples.push_back({m.time(), model::ch::RackPowerOn, a01, on});
            m.apply(b);
        };
        model::SampleBatch labels;
        for (model::EntityId g = 0; g < m_floor->count(EntityKind::Gpu); ++g)
            if (m_floor->gpus.rack[g] == a01) labels.gpuJobs.emplace_back(g, "ray-llm/ray-1111111");
        m.apply(labels);
        for (int i = 0; i < 5 * kTicksPerSecond; ++i) {
            measure(1);
            m.step();
        }
        for (int i = 0; i < 5 * kTicksPerSecond; ++i) {
            measure(0);
            m.step();
        }
        QVERIFY(m.state().incidents);
        const auto& incidents = *m.state().incidents;
        QCOMPARE(incidents.size(), std::size_t{1});
        QCOMPARE(incidents[0].rootKind, std::string("alarm"));
        QCOMPARE(incidents[0].jobs, std::vector<std::string>{"ray-llm/ray-1111111"});
    }

    void rewoundReplayStartsOver() {
        // Fed snapshots whose time goes back (a replay rewound), the tracker forgets what came
        // after and rebuilds from there.
        model::SimModel m(m_floor, model::SimConfig{}, bundledScenario("pump-failure", *m_floor));
        model::IncidentTracker tracker(m_floor);
        std::uint64_t seen = 0;
        auto feed = [&](const model::Snapshot& s) {
            tracker.observe(s, s.events->copySince(seen));
            seen = s.events->endSeq();
        };
        model::Snapshot early;
        for (int i = 0; i < 3 * 60 * kTicksPerSecond; ++i) {
            m.step();
            if (i == 30 * kTicksPerSecond) m.copyTo(early);
            feed(m.state());
        }
        QCOMPARE(tracker.incidents().size(), std::size_t{1});
        seen = 0;
        feed(early); // before the pump failed
        QVERIFY(tracker.incidents().empty());
    }
};

QTEST_APPLESS_MAIN(TestIncidents)
#include "test_incidents.moc"
