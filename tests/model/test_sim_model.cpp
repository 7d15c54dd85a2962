// SimModel: determinism, plausibility of the first physical model, coupling to the coolant,
// measured values overriding the model, alarm hysteresis.
#include "model/sim_model.h"
#include "support/test_floors.h"

#include <QTest>
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <numeric>
#include <ranges>

using namespace ft;
using model::EntityKind;
namespace ch = model::ch;

namespace {
using testing::floorOf;

void runTicks(model::SimModel& m, int n) {
    for (int i = 0; i < n; ++i)
        m.step();
}

// Two models whose every channel, alarm, event, lifecycle transition and incident is the same,
// bit for bit; the first difference otherwise.
QString firstDifference(const model::SimModel& a, const model::SimModel& b) {
    const auto& x = a.state();
    const auto& y = b.state();
    if (x.time != y.time || x.tick != y.tick) return "time or tick";
    for (model::ChannelId c = 0; c < ch::Count; ++c) {
        const auto u = x.channel(c), v = y.channel(c);
        if (u.size() != v.size() || std::memcmp(u.data(), v.data(), u.size_bytes()) != 0)
            return QString("channel %1").arg(model::kChannels[c].name.data());
    }
    if (x.detailStamp != y.detailStamp) return "per-link refreshes";
    if (x.rackLifecycle != y.rackLifecycle) return "lifecycle states";
    if (x.alarms.size() != y.alarms.size()) return "alarm count";
    for (std::size_t i = 0; i < x.alarms.size(); ++i) {
        const auto &p = x.alarms[i], &q = y.alarms[i];
        if (p.title.data() != q.title.data() || p.entity != q.entity || p.since != q.since ||
            p.severity != q.severity ||
            std::bit_cast<std::uint32_t>(p.value) != std::bit_cast<std::uint32_t>(q.value))
            return QString("alarm %1").arg(i);
    }
    if (x.events->endSeq() != y.events->endSeq() || x.events->size() != y.events->size())
        return "event count";
    for (std::size_t i = 0; i < x.events->size(); ++i)
        if ((*x.events)[i].text != (*y.events)[i].text ||
            (*x.events)[i].time != (*y.events)[i].time)
            return QString("event %1").arg(i);
    if (x.lifecycleHistory->endSeq() != y.lifecycleHistory->endSeq()) return "lifecycle history";
    if (!x.rackJobs || !y.rackJobs || *x.rackJobs != *y.rackJobs) return "rack jobs";
    if (x.incidents->size() != y.incidents->size()) return "incident count";
    for (std::size_t i = 0; i < x.incidents->size(); ++i)
        if ((*x.incidents)[i].summary() != (*y.incidents)[i].summary() ||
            (*x.incidents)[i].end != (*y.incidents)[i].end)
            return QString("incident %1").arg(i);
    return {};
}

double mean(std::span<const float> v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}
} // namespace

class TestSimModel : public QObject {
    Q_OBJECT
private slots:
    void sameSeedSameSnapshots() {
        const auto t = floorOf(16);
        model::SimConfig config;
        config.seed = 42;
        model::SimModel a(t, config), b(t, config);
        for (int i = 0; i < 50; ++i) {
            runTicks(a, 20);
            runTicks(b, 20);
            QCOMPARE(a.state().time, b.state().time);
            for (model::ChannelId c = 0; c < ch::Count; ++c)
                QVERIFY2(std::ranges::equal(a.state().channel(c), b.state().channel(c)),
                         model::kChannels[c].name.data());
        }
    }

    void keyframeRestoresTheRunExactly_data() {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<int>("keyframeAt"); // s
        QTest::newRow("healthy") << QString() << 45;
        QTest::newRow("pump-failure") << "pump-failure" << 110;
        QTest::newRow("rail-down") << "rail-down" << 80;
        QTest::newRow("feed-loss") << "feed-loss" << 90;
        QTest::newRow("cache-node-loss") << "cache-node-loss" << 70;
        QTest::newRow("region-link-degraded") << "region-link-degraded" << 100;
        QTest::newRow("link-flap") << "link-flap" << 40;
        QTest::newRow("leaf-degraded") << "leaf-degraded" << 65;
        QTest::newRow("bring-up") << "bring-up" << 150;
    }
    void keyframeRestoresTheRunExactly() {
        // A model restored from another's keyframe, in the middle of an incident, goes on exactly
        // as the one that saved it: every value, alarm, event and incident, bit for bit, through
        // counter refreshes, recoveries and a what-if scenario added after the restore.
        QFETCH(QString, scenario);
        QFETCH(int, keyframeAt);
        const auto t = testing::demoFloor();
        const model::Scenario s = scenario.isEmpty()
                                      ? model::Scenario{}
                                      : testing::bundledScenario(scenario.toUtf8().constData(), *t);
        model::SimConfig config;
        config.seed = 7;
        model::SimModel a(t, config, s);
        runTicks(a, keyframeAt * 10 + 3); // off the counter interval's boundary
        const std::vector<std::byte> keyframe = a.saveState();
        QVERIFY(keyframe.size() > 1000);
        if (scenario == "pump-failure") {
            // The keyframe holds GPUs mid-throttle (state only the model keeps, not a channel).
            const auto clocks = a.state().channel(ch::GpuSmClock);
            QVERIFY(std::ranges::count_if(clocks, [](float c) { return c > 0 && c < 2590; }) > 10);
        }
        model::SimConfig fresh = config;
        fresh.settle = false;
        model::SimModel b(t, fresh, s);
        const auto restored = b.restoreState(keyframe);
        QVERIFY2(restored, restored ? "" : restored.error().c_str());
        QCOMPARE(firstDifference(a, b), QString());
        // Saving the restored model gives the same bytes (nothing read is left behind).
        QVERIFY(b.saveState() == keyframe);
        const auto restore = testing::bundledScenario("pump-restore", *t);
        for (int i = 0; i < 120; ++i) {
            runTicks(a, 5);
            runTicks(b, 5);
            if (i == 30) {
                const model::TimeNs from = a.time() - config.startTime;
                a.addScenario(restore, from);
                b.addScenario(restore, from);
            }
            const QString diff = firstDifference(a, b);
            QVERIFY2(diff.isEmpty(),
                     qPrintable(QString("%1 s after the keyframe: %2").arg(i / 2.0).arg(diff)));
        }
    }

    void keyframeOfAnotherRunIsRefused() {
        const auto t = testing::demoFloor();
        model::SimConfig config;
        model::SimModel a(t, config);
        runTicks(a, 20);
        const auto keyframe = a.saveState();
        model::SimConfig noSettle = config;
        noSettle.settle = false;
        auto refusal = [&](const model::Scenario& s, model::SimConfig c,
                           std::span<const std::byte> bytes,
                           std::shared_ptr<const model::Topology> floor) {
            model::SimModel b(std::move(floor), c, s);
            const auto r = b.restoreState(bytes);
            return r ? QString() : QString::fromStdString(r.error());
        };
        model::SimConfig otherSeed = noSettle;
        otherSeed.seed = 99;
        QVERIFY(refusal({}, otherSeed, keyframe, t).contains("another seed"));
        QVERIFY(refusal({}, noSettle, keyframe, floorOf(4)).contains("another floor"));
        QVERIFY(refusal(testing::bundledScenario("pump-failure", *t), noSettle, keyframe, t)
                    .contains("another scenario"));
        // Cut anywhere, it is refused as truncated, never read past its end.
        for (const std::size_t cut : {std::size_t{3}, std::size_t{200}, keyframe.size() / 3,
                                      keyframe.size() / 2, keyframe.size() - 1}) {
            const QString why = refusal({}, noSettle, std::span(keyframe).first(cut), t);
            QVERIFY2(why.contains("short") || why.contains("truncated"), qPrintable(why));
        }
        QVERIFY(refusal({}, noSettle, keyframe, t).isEmpty());
    }

    void differentSeedsDiffer() {
        const auto t = floorOf(16);
        model::SimConfig c1, c2;
        c1.seed = 1;
        c2.seed = 2;
        model::SimModel a(t, c1), b(t, c2);
        runTicks(a, 100);
        runTicks(b, 100);
        QVERIFY(a.state().values[ch::GpuTemperature] != b.state().values[ch::GpuTemperature]);
    }

    void plausibleSpatialAndTemporalVariation() {
        const auto t = floorOf(16);
        model::SimModel m(t, {});
        runTicks(m, 600); // one simulated minute
        const auto& s = m.state();
        const auto temps = s.channel(ch::GpuTemperature);
        const auto [lo, hi] = std::ranges::minmax_element(temps);
        // Warm-water cooling at 45 C: GPUs between the supply and their limit.
        QVERIFY(*lo > 44.0f);
        QVERIFY(*hi < 95.0f);
        // Load differs between racks (jobs), not just noise: rack means spread by several kelvin.
        const auto rackMean = s.channel(ch::RackGpuTempMean);
        const auto [rlo, rhi] = std::ranges::minmax_element(rackMean);
        QVERIFY2(*rhi - *rlo > 3.0f, "racks all at the same temperature");
        // Within a tray, GPUs further along the cold plate loop run warmer on average.
        double upstream = 0, downstream = 0;
        for (std::size_t tray = 0; tray < t->count(EntityKind::ComputeTray); ++tray) {
            upstream += temps[tray * 4];
            downstream += temps[tray * 4 + 3];
        }
        QVERIFY(downstream > upstream);
        // The floor moves: a minute later, values have changed.
        const std::vector<float> before(temps.begin(), temps.end());
        runTicks(m, 600);
        const auto after = m.state().channel(ch::GpuTemperature);
        double moved = 0;
        for (std::size_t i = 0; i < before.size(); ++i)
            moved += std::abs(after[i] - before[i]);
        QVERIFY(moved / static_cast<double>(before.size()) > 0.1);
        // Power follows utilization: the rack power is within idle .. rated.
        for (float kw : m.state().channel(ch::RackPower)) {
            QVERIFY(kw > 15.0f);
            QVERIFY(kw < 200.0f);
        }
    }

    void energyBalanceAtTheManifold() {
        const auto t = floorOf(8);
        model::SimModel m(t, {});
        runTicks(m, 3000); // five minutes: coolant lags have settled
        const auto& s = m.state();
        for (std::size_t r = 0; r < t->count(EntityKind::Rack); ++r) {
            // Q = m_dot * c_p * dT, within the lag's tolerance.
            const double flowKgS =
                s.value(ch::RackFlow, static_cast<model::EntityId>(r)) * 0.99 / 60.0;
            const double dT = s.value(ch::RackReturnTemperature, static_cast<model::EntityId>(r)) -
                              s.value(ch::RackSupplyTemperature, static_cast<model::EntityId>(r));
            const double heatKw = flowKgS * 4.186 * dT;
            const double powerKw = s.value(ch::RackPower, static_cast<model::EntityId>(r));
            QVERIFY2(
                std::abs(heatKw - powerKw) < 0.15 * powerKw + 3.0,
                qPrintable(
                    QString("rack %1: heat %2 kW vs power %3 kW").arg(r).arg(heatKw).arg(powerKw)));
        }
    }

    void coolantSupplyDrivesGpuTemperature() {
        const auto t = floorOf(8);
        model::SimConfig config;
        config.measurementHold = 3600LL * model::kNsPerSecond;
        model::SimModel warm(t, config), base(t, config);
        // A measured supply 8 K above setpoint at rack 3 (e.g. from the BMS).
        model::SampleBatch batch;
        batch.samples.push_back({warm.time(), ch::RackSupplyTemperature, 3, 53.0f});
        warm.apply(batch);
        runTicks(warm, 600);
        runTicks(base, 600);
        const double hot = mean(
            warm.state().channel(ch::GpuTemperature).subspan(static_cast<std::size_t>(3) * 72, 72));
        const double ref = mean(
            base.state().channel(ch::GpuTemperature).subspan(static_cast<std::size_t>(3) * 72, 72));
        QVERIFY2(hot - ref > 6.0 && hot - ref < 10.0,
                 qPrintable(QString("delta %1").arg(hot - ref)));
        // Other racks are unaffected.
        const double other = mean(
            warm.state().channel(ch::GpuTemperature).subspan(static_cast<std::size_t>(5) * 72, 72));
        const double otherRef = mean(
            base.state().channel(ch::GpuTemperature).subspan(static_cast<std::size_t>(5) * 72, 72));
        QVERIFY(std::abs(other - otherRef) < 0.01);
    }

    void measuredValuesExpire() {
        const auto t = floorOf(2);
        model::SimConfig config;
        config.measurementHold = 2 * model::kNsPerSecond;
        model::SimModel m(t, config);
        model::SampleBatch batch;
        batch.samples.push_back({m.time(), ch::GpuTemperature, 7, 99.0f});
        m.apply(batch);
        runTicks(m, 10); // 1 s: still held
        QCOMPARE(m.state().value(ch::GpuTemperature, 7), 99.0f);
        runTicks(m, 20); // 3 s: the model takes over and pulls it back down
        QVERIFY(m.state().value(ch::GpuTemperature, 7) < 99.0f);
        // Out-of-range entities and channels are ignored, not written out of bounds.
        batch.samples = {{m.time(), ch::GpuTemperature, 1'000'000, 1.0f},
                         {m.time(), 9999, 0, 1.0f}};
        m.apply(batch);
        m.step();
    }

    void racksGoStaleWhenTheirDataStops() {
        const auto t = floorOf(4);
        model::SimConfig config;
        config.staleAfter = 5 * model::kNsPerSecond;
        config.telemetry = true;
        config.measurementHold = 3600 * model::kNsPerSecond; // live: keep the last measured value
        model::SimModel m(t, config);
        // Never measured: modelled, not stale.
        QVERIFY(!m.state().rackStale(1));
        model::SampleBatch batch;
        batch.samples.push_back(
            {m.time(), ch::GpuTemperature, 1 * 72 + 3, 61.0f}); // a GPU of rack 1
        batch.samples.push_back({m.time(), ch::FabricTx,
                                 static_cast<model::EntityId>(2 * 18 * 8 + 5),
                                 42.0f}); // a NIC link of rack 2
        m.apply(batch);
        runTicks(m, 10);
        QVERIFY(m.state().measuredTime(EntityKind::Rack, 1) > 0 &&
                m.state().measuredTime(EntityKind::Rack, 2) > 0);
        QVERIFY(!m.state().rackStale(1) && !m.state().rackStale(2));
        QCOMPARE(m.state().value(ch::FabricTx, 2 * 18 * 8 + 5),
                 42.0f); // a measured per-link value holds
        runTicks(m, 60); // 7 s without data
        QVERIFY(m.state().rackStale(1) && m.state().rackStale(2));
        QVERIFY(!m.state().rackStale(0));
        QCOMPARE(m.state().value(ch::GpuTemperature, 1 * 72 + 3),
                 61.0f); // the last value, flagged stale
        // Data again: fresh.
        batch.samples = {{m.time(), ch::GpuPower, 1 * 72, 900.0f}};
        m.apply(batch);
        m.step();
        QVERIFY(!m.state().rackStale(1));
        QVERIFY(m.state().rackStale(2));
    }

    void telemetryNeverAlarmsOnModelledValues() {
        // With telemetry only measured values count: a modelled hot GPU raises nothing, the
        // rack's hottest GPU is its hottest measured one, and what was measured is tracked per
        // entity and for the tray and rack it sits in.
        const auto t = floorOf(3);
        model::SimConfig config;
        config.telemetry = true;
        config.measurementHold = 3600LL * model::kNsPerSecond;
        model::SimModel m(t, config);
        QVERIFY(m.state().telemetry);
        QVERIFY(!m.state().measured(EntityKind::Gpu, 0));
        model::SampleBatch b;
        b.samples.push_back({m.time(), ch::GpuTemperature, 72 + 5, 52.0f});   // rack 1, tray 1
        b.samples.push_back({m.time(), ch::RackSupplyTemperature, 2, 70.0f}); // rack 2: hot
        m.apply(b);
        m.step();
        const auto& s = m.state();
        QVERIFY(s.measured(EntityKind::Gpu, 77));
        QVERIFY(!s.measured(EntityKind::Gpu, 76));
        QVERIFY(s.measured(EntityKind::ComputeTray, 77 / 4));
        QVERIFY(!s.measured(EntityKind::ComputeTray, 0));
        QVERIFY(s.measured(EntityKind::Rack, 1) && s.measured(EntityKind::Rack, 2));
        QVERIFY(!s.measured(EntityKind::Rack, 0));
        QCOMPARE(s.value(ch::RackGpuTempMax, 1), 52.0f);
        QCOMPARE(s.value(ch::RackGpuTempMean, 1), 52.0f);
        // The measured hot supply alarms; nothing modelled does.
        QVERIFY(!s.alarms.empty());
        for (const auto& a : s.alarms)
            QVERIFY2(a.kind == EntityKind::Rack && a.entity == 2 &&
                         a.channel == ch::RackSupplyTemperature,
                     a.title.data());
        // The same run without telemetry marks everything measured (the demo draws it all).
        model::SimModel demo(t, model::SimConfig{});
        QVERIFY(demo.state().measured(EntityKind::Gpu, 0));
        QVERIFY(!demo.state().stale(EntityKind::Rack, 0));
    }

    void emptyTraySlotsDrawNothing() {
        // A rack still being filled: three of its eighteen trays are in. The empty slots draw no
        // power and run nothing; the rack's power is its three trays' and its switch trays'.
        model::FloorSpec spec;
        model::RowSpec row;
        row.name = "A";
        model::RackSpec partial;
        partial.name = "A01";
        partial.computeTrays = 3;
        model::RackSpec full;
        full.name = "A02";
        row.rackList = {partial, full};
        row.racks = 2;
        spec.rows = {row};
        const auto t = floorOf(spec);
        QVERIFY(t->trayInstalled(2) && !t->trayInstalled(3) && t->trayInstalled(18 + 17));
        model::SimModel m(t, model::SimConfig{});
        runTicks(m, 50);
        const auto& s = m.state();
        for (model::EntityId tray = 3; tray < 18; ++tray) {
            QCOMPARE(s.value(ch::TrayPower, tray), 0.0f);
            for (model::EntityId g = tray * 4; g < tray * 4 + 4; ++g) {
                QCOMPARE(s.value(ch::GpuPower, g), 0.0f);
                QVERIFY(s.value(ch::GpuUtilization, g) < 0.5f);
            }
        }
        QVERIFY(s.value(ch::TrayPower, 0) > 500.0f);
        QVERIFY2(s.value(ch::RackPower, 0) < 0.35f * s.value(ch::RackPower, 1),
                 qPrintable(QString("partial %1 kW, full %2 kW")
                                .arg(s.value(ch::RackPower, 0))
                                .arg(s.value(ch::RackPower, 1))));
    }

    void alarmsRaiseAndClearWithHysteresis() {
        const auto t = floorOf(2);
        model::SimConfig config;
        config.measurementHold = 3600LL * model::kNsPerSecond;
        model::SimModel m(t, config);
        auto set = [&](float v) {
            model::SampleBatch b;
            b.samples.push_back({m.time(), ch::RackGpuTempMax, 1, v});
            m.apply(b);
            m.step();
        };
        auto levelOf = [&]() -> int {
            for (const auto& a : m.state().alarms)
                if (a.channel == ch::RackGpuTempMax && a.entity == 1)
                    return a.severity == model::Severity::Critical ? 2 : 1;
            return 0;
        };
        const auto limit = static_cast<float>(
            t->spec().rack.gpuMaxTempC); // critical above, warning above limit - 3
        set(limit - 5);
        QCOMPARE(levelOf(), 0);
        set(limit - 2);
        QCOMPARE(levelOf(), 1);
        set(limit + 1);
        QCOMPARE(levelOf(), 2);
        set(limit - 1); // inside the hysteresis band: stays critical
        QCOMPARE(levelOf(), 2);
        set(limit - 2.5f); // below critical - hysteresis: back to warning
        QCOMPARE(levelOf(), 1);
        set(limit - 4); // inside warning's band: stays
        QCOMPARE(levelOf(), 1);
        set(limit - 6);
        QCOMPARE(levelOf(), 0);
    }

    void throttlingAboveTheLimit() {
        const auto t = floorOf(1);
        model::SimConfig config;
        config.measurementHold = 3600LL * model::kNsPerSecond;
        model::SimModel m(t, config);
        model::SampleBatch b;
        b.samples.push_back({m.time(), ch::GpuTemperature, 0, 95.0f});
        b.samples.push_back({m.time(), ch::GpuUtilization, 0, 100.0f});
        b.samples.push_back({m.time(), ch::GpuUtilization, 1, 100.0f});
        m.apply(b);
        runTicks(m, 50);
        QVERIFY(m.state().value(ch::GpuSmClock, 0) < m.state().value(ch::GpuSmClock, 1));
        QVERIFY(m.state().value(ch::GpuPower, 0) < m.state().value(ch::GpuPower, 1));
    }
};

QTEST_GUILESS_MAIN(TestSimModel)
#include "test_sim_model.moc"
