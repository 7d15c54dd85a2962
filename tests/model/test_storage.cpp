// Storage: byte conservation, tier aging at the boundaries, cache hit ratios and warm-up, and
// the two storage faults (inter-region link degradation, cache node loss) against a control run.
#include "importers/floor/floor_file.h"
#include "importers/floor/scenario_file.h"
#include "model/sim_model.h"
#include "model/storage_model.h"
#include "support/test_floors.h"

#include <QFile>
#include <QTest>
#include <algorithm>
#include <cmath>

using namespace ft;
using model::EntityKind;
namespace ch = model::ch;

namespace {
using testing::bundledScenario;
using testing::demoFloor;
double seconds(const model::SimModel& m) {
    return model::toSeconds(m.time() - m.config().startTime);
}
} // namespace

class TestStorage : public QObject {
    Q_OBJECT
private slots:
    void bytesAreConserved() {
        const auto t = demoFloor();
        model::SimModel m(t, {}, bundledScenario("region-link-degraded", *t));
        for (int i = 0; i < 6000; ++i) {
            m.step();
            if (i % 500 != 0) continue;
            const auto& st = m.storage();
            // Written = migrated + still pending, to the byte (well, to float rounding).
            QVERIFY(std::abs(st.writtenTotal() - st.migratedTotal() - st.backlog()) <
                    1e-6 * std::max(1.0, st.writtenTotal()));
            // The local store holds what was there, what others wrote, and what this floor wrote;
            // the remote store what was there, what others wrote, and what has migrated.
            QVERIFY(std::abs(st.storedTb(0) - (st.initialTb() + st.backgroundTb() +
                                               st.writtenTotal())) < 1e-6 * st.storedTb(0));
            QVERIFY(std::abs(st.storedTb(1) - (st.initialTb() + st.backgroundTb() +
                                               st.migratedTotal())) < 1e-6 * st.storedTb(1));
            // And the channels say the same.
            QVERIFY(std::abs(m.state().value(ch::RegionBacklog, 0) - st.backlog()) < 1e-3);
        }
        QVERIFY(m.storage().writtenTotal() > 1.0); // checkpoints were written
    }

    void tiersAgeAtTheirBoundaries() {
        auto spec = importers::generateFloor(1);
        spec.storage.initialPetabytes = 0;
        spec.storage.agingDaysPerMinute = 60; // a day per simulated second
        const auto t = std::make_shared<const model::Topology>(*model::Topology::build(spec));
        model::StorageModel store(*t);
        model::Snapshot s;
        s.values.resize(ch::Count);
        for (model::ChannelId c = 0; c < ch::Count; ++c)
            s.values[c].assign(t->count(model::kChannels[c].kind), 0.0f);
        const std::vector<float> none(t->count(EntityKind::ComputeTray), 0.0f);
        const std::vector<std::uint8_t> noStarts(none.size(), 0);
        store.writeForTest(0, 100.0); // 100 TB written now, then never read
        auto dayOf = [&] {
            const auto& bins = store.ageBins(0);
            for (std::size_t d = 0; d < bins.size(); ++d)
                if (bins[d] > 50.0) return static_cast<int>(d);
            return -1;
        };
        auto tier = [&](int k) { return s.values[ch::TierBytes][k]; };
        // Steps of 0.1 day; checks sit 0.05 day either side of each boundary.
        double clock = 0;
        auto advanceTo = [&](double day) {
            while (clock < day - 1e-9) {
                store.step(s, 0.1f, none, none, noStarts);
                clock += 0.1;
            }
        };
        advanceTo(6.9);
        QCOMPARE(dayOf(), 6);
        QVERIFY(tier(0) > 99.0); // hot until day 7
        advanceTo(7.1);
        QCOMPARE(dayOf(), 7);
        QVERIFY(tier(1) > 99.0 && tier(0) < 1.0); // warm from day 7
        QVERIFY(s.values[ch::TierInflow][1] > 99.0);
        advanceTo(29.9);
        QVERIFY(tier(1) > 99.0);
        advanceTo(30.1);
        QCOMPARE(dayOf(), 30);
        QVERIFY(tier(2) > 99.0); // cold from day 30
        advanceTo(59.9);
        QVERIFY(tier(2) > 99.0); // still cold just before 60 days
        advanceTo(60.1);
        QVERIFY(tier(3) > 99.0); // archived after 60 days unread
        advanceTo(90.1);
        QVERIFY(tier(3) > 99.0); // archive is write-once: it stays
    }

    void readingOldObjectsReheatsThem() {
        auto spec = importers::generateFloor(1);
        spec.storage.initialPetabytes = 1;   // 1 PB spread over ages
        spec.storage.agingDaysPerMinute = 0; // freeze the clock: only reads move bytes
        const auto t = std::make_shared<const model::Topology>(*model::Topology::build(spec));
        model::StorageModel store(*t);
        model::Snapshot s;
        s.values.resize(ch::Count);
        for (model::ChannelId c = 0; c < ch::Count; ++c)
            s.values[c].assign(t->count(model::kChannels[c].kind), 0.0f);
        std::vector<float> reads(t->count(EntityKind::ComputeTray), 20.0f); // GB/s, cold caches
        const std::vector<float> none(reads.size(), 0.0f);
        std::vector<std::uint8_t> starts(reads.size(), 1);
        store.step(s, 0.1f, reads, none, starts);
        const float hotBefore = s.values[ch::TierBytes][0], warmBefore = s.values[ch::TierBytes][1];
        starts.assign(reads.size(), 0);
        for (int i = 0; i < 600; ++i)
            store.step(s, 0.1f, reads, none, starts);
        QVERIFY(s.values[ch::TierBytes][0] > hotBefore);
        QVERIFY(s.values[ch::TierBytes][1] < warmBefore);
        // Moving between tiers neither creates nor loses bytes.
        QVERIFY(std::abs(store.storedTb(0) - store.initialTb()) < 1e-6 * store.initialTb());
    }

    void cacheHitRatiosAndWarmUp() {
        const auto t = demoFloor();
        model::SimModel m(t, {});
        for (int i = 0; i < 3000; ++i)
            m.step();
        // Warm caches on training racks serve nearly everything from NVMe.
        float best = 0;
        for (std::size_t tray = 0; tray < t->count(EntityKind::ComputeTray); ++tray)
            best = std::max(best,
                            m.state().value(ch::CacheHitRatio, static_cast<model::EntityId>(tray)));
        QVERIFY(best > 99.0f && best <= 99.7f + 1e-3f);
        // A cache that comes back empty starts cold and warms up steadily.
        model::SimModel lost(t, {}, bundledScenario("cache-node-loss", *t));
        while (seconds(lost) < 200)
            lost.step();
        QCOMPARE(lost.state().value(ch::RackCacheHitRatio, 6), 0.0f);
        const float p99Down = lost.state().value(ch::CacheLatencyP99, 6 * 18);
        while (seconds(lost) < 301)
            lost.step();
        std::vector<float> warmup;
        for (int k = 0; k < 6; ++k) {
            for (int i = 0; i < 600; ++i)
                lost.step();
            warmup.push_back(lost.state().value(ch::RackCacheHitRatio, 6));
        }
        QVERIFY2(std::ranges::is_sorted(warmup), "hit ratio should climb while the cache warms");
        QVERIFY(warmup.back() > warmup.front() + 10.0f);
        // While the cache was down the rack's reads paid the bucket's tail latency.
        QVERIFY(p99Down > 5.0f * 1.1f);
    }

    void cacheLossLoadsTheBucket() {
        const auto t = demoFloor();
        model::SimModel lost(t, {}, bundledScenario("cache-node-loss", *t)), control(t, {});
        while (seconds(lost) < 200) {
            lost.step();
            control.step();
        }
        QVERIFY(lost.state().value(ch::RegionRead, 0) >
                control.state().value(ch::RegionRead, 0) + 5.0f);
    }

    void backlogGrowsWhenTheLinkDegradesAndDrainsAfter() {
        const auto t = demoFloor();
        model::SimModel degraded(t, {}, bundledScenario("region-link-degraded", *t)),
            control(t, {});
        double maxGap = 0, maxOldest = 0, controlOldest = 0;
        while (seconds(degraded) < 20 * 60) {
            degraded.step();
            control.step();
            maxGap =
                std::max(maxGap, static_cast<double>(degraded.state().value(ch::RegionBacklog, 0) -
                                                     control.state().value(ch::RegionBacklog, 0)));
            maxOldest = std::max(
                maxOldest, static_cast<double>(degraded.state().value(ch::RegionOldestPending, 0)));
            controlOldest =
                std::max(controlOldest,
                         static_cast<double>(control.state().value(ch::RegionOldestPending, 0)));
        }
        qInfo("during the outage: backlog up to %.1f TB above normal, oldest pending %.0f s "
              "(normally %.0f s)",
              maxGap, maxOldest, controlOldest);
        QVERIFY(maxGap > 1.0);
        QVERIFY(maxOldest > 2 * controlOldest);
        // After the repair the backlog drains back to what the control run has.
        double settledAt = -1;
        while (seconds(degraded) < 40 * 60 && settledAt < 0) {
            degraded.step();
            control.step();
            if (degraded.storage().backlog() <= control.storage().backlog() + 1e-6)
                settledAt = seconds(degraded);
        }
        qInfo("drained %.0f s after the repair", settledAt - 20 * 60);
        QVERIFY(settledAt > 0);
        // Writes stayed local and fast throughout: no write was refused.
        QCOMPARE(degraded.storage().writtenTotal(), control.storage().writtenTotal());
    }

    // The inter-region link grows with the floor: 25 times the demo is as healthy as the demo
    // (no remote-copy alarm, bursts drain in seconds), and the degraded link still alarms.
    void theLinkIsSizedToTheFloor() {
        const auto t = testing::floorOf(400);
        QCOMPARE(t->spec().storage.interRegionGbps, 0.0); // sized to the floor
        // Stepped a second at a time, the tick of an imported recording (the link and its
        // backlog are rates and volumes: the answer must not depend on the step).
        model::SimConfig config;
        config.step = model::kNsPerSecond;
        model::SimModel healthy(t, config),
            degraded(t, config, bundledScenario("region-link-degraded", *t));
        QCOMPARE(healthy.state().value(ch::RegionLinkCapacity, 0),
                 static_cast<float>(400 * model::StorageSpec::kInterRegionGbpsPerRack / 8));
        double drain = 0;
        bool alarmed = false, degradedAlarmed = false;
        const auto remoteCopy = [](const model::Snapshot& s) {
            return std::ranges::any_of(
                s.alarms, [](const model::Alarm& a) { return a.channel == ch::RegionDrainTime; });
        };
        while (seconds(healthy) < 5 * 60) {
            healthy.step();
            degraded.step();
            drain =
                std::max(drain, static_cast<double>(healthy.state().value(ch::RegionDrainTime, 0)));
            alarmed = alarmed || remoteCopy(healthy.state());
            degradedAlarmed = degradedAlarmed || remoteCopy(degraded.state());
        }
        qInfo("400 racks: the backlog needs at most %.1f s of the link", drain);
        QVERIFY(drain < 300);
        QVERIFY(!alarmed);
        QVERIFY(degradedAlarmed);
        // The demo's checkpoint bursts take minutes to copy over its 400 Gb/s, and that is
        // healthy too: a quarter of an hour without the alarm.
        model::SimModel demo(demoFloor(), {});
        while (seconds(demo) < 15 * 60) {
            demo.step();
            QVERIFY(!remoteCopy(demo.state()));
        }
    }
};

QTEST_GUILESS_MAIN(TestStorage)
#include "test_storage.moc"
