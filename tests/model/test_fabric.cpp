// NVLink and the rail fabric: sizing against the non-blocking rule, bytes conserved from jobs to
// NIC links, leaves, spine bundles and spines, NVLink links, re-spread when a rail goes down,
// NVLink-disabled mode moving traffic onto the rails, and counters that only ever count up.
#include "importers/floor/floor_file.h"
#include "model/sim_model.h"
#include "support/test_floors.h"

#include <QTest>
#include <cmath>
#include <map>
#include <numeric>

using namespace ft;
using model::EntityKind;
namespace ch = model::ch;

namespace {
using testing::bundledScenario;
using testing::demoFloor;
using testing::floorOf;

double sum(const model::Snapshot& s, model::ChannelId c, std::size_t first = 0,
           std::size_t last = SIZE_MAX) {
    const auto v = s.channel(c);
    last = std::min(last, v.size());
    return std::accumulate(v.begin() + static_cast<std::ptrdiff_t>(first),
                           v.begin() + static_cast<std::ptrdiff_t>(last), 0.0);
}
bool near(double a, double b, double rel = 1e-3) {
    return std::abs(a - b) <= rel * std::max({1.0, std::abs(a), std::abs(b)});
}

// Runs until `seconds` after the start, landing on a counter refresh (whole seconds).
void runTo(model::SimModel& m, double seconds) {
    while (model::toSeconds(m.time() - m.config().startTime) < seconds - 1e-6)
        m.step();
}
} // namespace

class TestFabric : public QObject {
    Q_OBJECT
private slots:
    void sizingFollowsTheNonBlockingRule_data() {
        QTest::addColumn<int>("racks");
        QTest::addColumn<int>("radix");
        QTest::addColumn<int>("planes");
        QTest::newRow("demo-size, radix 512") << 16 << 512 << 2;
        QTest::newRow("16 racks, radix 64") << 16 << 64 << 2;
        QTest::newRow("100 racks, radix 128, 4 planes") << 100 << 128 << 4;
        QTest::newRow("300 racks, radix 256, 2 planes") << 300 << 256 << 2;
        QTest::newRow("1778 racks, radix 512") << 1778 << 512 << 2;
    }
    void sizingFollowsTheNonBlockingRule() {
        QFETCH(int, racks);
        QFETCH(int, radix);
        QFETCH(int, planes);
        auto spec = importers::generateFloor(racks);
        spec.fabric.switchRadix = radix;
        spec.fabric.planes = planes;
        auto built = model::Topology::build(spec);
        QVERIFY2(built.has_value(), built ? "" : built.error().c_str());
        const model::Topology& t = *built;
        const auto k = static_cast<std::size_t>(radix);
        const auto npt = static_cast<std::size_t>(spec.rack.gpusPerTray * spec.rack.nicsPerGpu);
        const std::size_t trays = t.count(EntityKind::ComputeTray);
        const std::size_t nics = t.count(EntityKind::Nic);
        QCOMPARE(nics, trays * npt);
        QCOMPARE(t.count(EntityKind::Rail), npt);
        const std::size_t perPlane = nics / static_cast<std::size_t>(planes);
        QVERIFY(perPlane <= k * k / 2);
        const std::size_t leavesPerRail = (trays + k / 2 - 1) / (k / 2);
        QCOMPARE(t.count(EntityKind::Leaf), leavesPerRail * npt);
        QCOMPARE(t.count(EntityKind::Spine),
                 static_cast<std::size_t>(planes) * ((perPlane + k - 1) / k));
        QCOMPARE(t.count(EntityKind::NvlinkLink),
                 t.count(EntityKind::Gpu) * static_cast<std::size_t>(spec.rack.switchTrays));
        // Every NIC i of a tray lands on rail i, on a leaf of that rail, in the rail's plane.
        for (std::size_t n = 0; n < nics; ++n) {
            QCOMPARE(static_cast<std::size_t>(t.nics.rail[n]), n % npt);
            const auto leaf = t.nics.leaf[n];
            QCOMPARE(t.leaves.rail[leaf], t.nics.rail[n]);
            QCOMPARE(static_cast<int>(t.leaves.plane[leaf]),
                     static_cast<int>(t.nics.rail[n]) % planes);
            QCOMPARE(t.fabricLinks.from[n], static_cast<model::EntityId>(n)); // link id == NIC id
        }
        // A leaf has at most k/2 ports down and as many lanes up (1:1), spread over every
        // spine of its plane, and no spine has more than k ports in use.
        std::vector<std::uint32_t> lanesUp(t.count(EntityKind::Leaf), 0),
            spinePorts(t.count(EntityKind::Spine), 0);
        std::vector<std::uint32_t> spinesSeen(t.count(EntityKind::Leaf), 0);
        for (std::size_t l = nics; l < t.count(EntityKind::FabricLink); ++l) {
            const auto leaf = t.fabricLinks.from[l], spine = t.fabricLinks.to[l];
            QCOMPARE(t.spines.plane[spine], t.leaves.plane[leaf]);
            lanesUp[leaf] += t.fabricLinks.lanes[l];
            spinePorts[spine] += t.fabricLinks.lanes[l];
            ++spinesSeen[leaf];
        }
        for (std::size_t l = 0; l < lanesUp.size(); ++l) {
            QVERIFY(t.leaves.downlinks[l] <= k / 2);
            QCOMPARE(lanesUp[l], t.leaves.downlinks[l]);
            QCOMPARE(spinesSeen[l],
                     std::min(t.fabricSizing.spinesPerPlane,
                              t.leaves.downlinks[l])); // a part-filled leaf needs fewer
        }
        for (auto ports : spinePorts)
            QVERIFY(ports <= k);
    }

    void oversizedFabricIsRefused() {
        auto spec = importers::generateFloor(300);
        spec.fabric.switchRadix = 256;
        spec.fabric.planes = 1;
        const auto built = model::Topology::build(spec);
        QVERIFY(!built.has_value());
        QVERIFY(built.error().find("k^2/2") != std::string::npos);
    }

    void bytesAreConserved() {
        const auto t = demoFloor();
        model::SimModel m(t, {});
        const std::size_t nics = t->count(EntityKind::Nic);
        int checked = 0;
        for (double at : {5.0, 31.0, 62.0, 95.0, 130.0}) {
            runTo(m, at);
            // A per-link block describes one tick and is published a few ticks later: keep each
            // tick's aggregates until the next block is out, then compare it with its own tick.
            std::map<model::TimeNs, model::Snapshot> ticks;
            const auto stamp = m.state().detailStamp;
            m.copyTo(ticks[m.time()]);
            while (m.state().detailStamp == stamp) {
                m.step();
                m.copyTo(ticks[m.time()]);
            }
            QVERIFY(ticks.contains(m.fabric().detailTime()));
            const auto& a = ticks[m.fabric().detailTime()]; // the aggregates of the block's tick
            const auto& s = m.state();                      // the block
            // What the jobs' racks send on the rails is what the NIC links carry...
            const double racksGBps = sum(a, ch::RackRailThroughput) * 125.0;
            const double nicTx = sum(s, ch::FabricTx, 0, nics);
            QVERIFY2(
                near(racksGBps, nicTx),
                qPrintable(QString("racks %1 GB/s, NIC links %2 GB/s").arg(racksGBps).arg(nicTx)));
            QVERIFY(near(nicTx, sum(a, ch::LeafThroughput)));
            QVERIFY(near(sum(a, ch::RailThroughput) * 125.0, nicTx));
            QVERIFY(near(sum(a, ch::PlaneThroughput), sum(a, ch::RailThroughput)));
            // ...what leaves send up is what the bundles carry and what the spines switch...
            QVERIFY(near(sum(a, ch::LeafUplink), sum(s, ch::FabricTx, nics)));
            QVERIFY(near(sum(a, ch::LeafUplink), sum(a, ch::SpineThroughput)));
            QVERIFY(sum(a, ch::LeafUplink) <= sum(a, ch::LeafThroughput) * (1 + 1e-6));
            // ...and received bytes balance sent bytes across the fabric.
            QVERIFY(near(sum(s, ch::FabricRx), sum(s, ch::FabricTx)));
            // NVLink: racks = GPUs = links.
            const double rackNv = sum(a, ch::RackNvlinkThroughput) * 1000.0;
            QVERIFY(near(rackNv, sum(a, ch::GpuNvlinkTx)));
            QVERIFY(near(rackNv, sum(s, ch::NvlinkTx)));
            QVERIFY(near(sum(s, ch::NvlinkRx), sum(s, ch::NvlinkTx)));
            if (racksGBps > 100) ++checked;
        }
        QVERIFY2(checked >= 3, "traffic was too low to check conservation on");
    }

    void railDownRespreadsOverTheOtherRails() {
        const auto t = demoFloor();
        model::SimModel base(t, {});
        model::SimModel down(t, {}, bundledScenario("rail-down", *t));
        const std::size_t trays = t->count(EntityKind::ComputeTray);
        double shifted = 0;
        int samples = 0;
        for (double at = 70; at <= 130; at += 5) {
            runTo(base, at);
            runTo(down, at);
            const auto& b = base.state();
            const auto& d = down.state();
            QCOMPARE(d.value(ch::RailThroughput, 3), 0.0f);
            QCOMPARE(d.value(ch::RailLinksDown, 3), static_cast<float>(trays));
            QCOMPARE(d.value(ch::LeafState, t->rails.firstLeaf[3]), 2.0f);
            for (std::size_t nic = 3; nic < t->count(EntityKind::Nic); nic += 8)
                QCOMPARE(d.value(ch::FabricState, static_cast<model::EntityId>(nic)), 2.0f);
            const double total = sum(b, ch::RailThroughput);
            if (total < 1.0) continue;
            // Nothing saturates here, so every byte still gets through: the same total...
            QVERIFY2(near(sum(d, ch::RailThroughput), total, 0.02),
                     qPrintable(QString("%1 vs %2").arg(sum(d, ch::RailThroughput)).arg(total)));
            // ...carried by seven rails, each about 8/7 as busy as before.
            for (model::EntityId r = 0; r < 8; ++r) {
                if (r == 3) continue;
                QVERIFY(d.value(ch::RailThroughput, r) > b.value(ch::RailThroughput, r) * 1.1f);
                QVERIFY(d.value(ch::RailUtilization, r) > b.value(ch::RailUtilization, r));
            }
            shifted += d.value(ch::RailThroughput, 0) / b.value(ch::RailThroughput, 0);
            ++samples;
        }
        QVERIFY(samples >= 5);
        QVERIFY(std::abs(shifted / samples - 8.0 / 7.0) < 0.05);
        // Restored at 8 minutes: rail 3 carries its share again.
        runTo(down, 500);
        runTo(base, 500);
        QCOMPARE(down.state().value(ch::RailLinksDown, 3), 0.0f);
        QVERIFY(near(down.state().value(ch::RailThroughput, 3),
                     base.state().value(ch::RailThroughput, 3), 0.05));
    }

    void nvlinkDisabledMovesTrafficOntoTheRails() {
        const auto t = demoFloor();
        model::SimModel base(t, {});
        model::SimModel off(t, {}, bundledScenario("nvlink-disabled", *t));
        const auto rowB = *t->find(EntityKind::Row, "Row B");
        const model::EntityId first = t->rows.firstRack[rowB];
        const std::uint32_t count = t->rows.rackCount[rowB];
        double railBase = 0, railOff = 0;
        for (double at = 65; at <= 125; at += 2) {
            runTo(base, at);
            runTo(off, at);
            for (model::EntityId r = first; r < first + count; ++r) {
                QCOMPARE(off.state().value(ch::RackNvlinkDisabled, r), 1.0f);
                QCOMPARE(off.state().value(ch::RackNvlinkThroughput, r), 0.0f);
                railBase += base.state().value(ch::RackRailThroughput, r);
                railOff += off.state().value(ch::RackRailThroughput, r);
            }
            // Row A keeps NVLink.
            QCOMPARE(off.state().value(ch::RackNvlinkDisabled, 0), 0.0f);
        }
        QVERIFY2(railOff > 3.0 * railBase,
                 qPrintable(QString("row B rails: %1 Tb/s before, %2 with NVLink off")
                                .arg(railBase)
                                .arg(railOff)));
        // NVLink links of row B report disabled and carry nothing; the rails run hot enough to
        // mark packets.
        const auto& s = off.state();
        const std::size_t perRack = t->count(EntityKind::NvlinkLink) / t->count(EntityKind::Rack);
        for (std::size_t l = first * perRack; l < (first + count) * perRack; l += 97) {
            QCOMPARE(s.value(ch::NvlinkState, static_cast<model::EntityId>(l)), 3.0f);
            QCOMPARE(s.value(ch::NvlinkTx, static_cast<model::EntityId>(l)), 0.0f);
        }
        double ecn = 0;
        const std::size_t npr = t->count(EntityKind::Nic) / t->count(EntityKind::Rack);
        for (std::size_t n = first * npr; n < (first + count) * npr; ++n)
            ecn += s.value(ch::FabricEcnMarks, static_cast<model::EntityId>(n));
        QVERIFY(ecn > 0);
        // Back on NVLink at 6 minutes.
        runTo(off, 400);
        QCOMPARE(off.state().value(ch::RackNvlinkDisabled, first), 0.0f);
    }

    void countersOnlyCountUp() {
        const auto t = demoFloor();
        model::SimModel m(t, {}, bundledScenario("link-flap", *t));
        model::SimModel leaf(t, {}, bundledScenario("leaf-degraded", *t));
        const auto flapLink = *t->find(EntityKind::FabricLink, "A03 tray 05 NIC 2");
        const std::vector<model::ChannelId> counters{
            ch::FabricDrops,         ch::FabricEcnMarks,
            ch::FabricPfcPauses,     ch::FabricCarrierTransitions,
            ch::NvlinkCrcErrors,     ch::NvlinkReplayErrors,
            ch::NvlinkRecoveryErrors};
        std::vector<std::vector<float>> last(counters.size()), lastLeaf(counters.size());
        bool sawDown = false, sawUp = false;
        for (double at = 1; at <= 200; at += 1) {
            runTo(m, at);
            runTo(leaf, at);
            for (std::size_t i = 0; i < counters.size(); ++i) {
                for (auto [model, prev] :
                     {std::pair{&m, &last[i]}, std::pair{&leaf, &lastLeaf[i]}}) {
                    const auto now = model->state().channel(counters[i]);
                    if (!prev->empty())
                        for (std::size_t e = 0; e < now.size(); ++e)
                            if (now[e] < (*prev)[e])
                                QFAIL(qPrintable(QString("%1[%2] went down at %3 s")
                                                     .arg(model::kChannels[counters[i]].name.data())
                                                     .arg(e)
                                                     .arg(at)));
                    prev->assign(now.begin(), now.end());
                }
            }
            const float state = m.state().value(ch::FabricState, flapLink);
            sawDown = sawDown || state == 2.0f;
            sawUp = sawUp || (at > 30 && state == 0.0f);
        }
        QVERIFY(sawDown && sawUp);
        // 30 s .. 200 s at one 3-s outage every 15 s: ~11 outages, two transitions each.
        const float transitions = m.state().value(ch::FabricCarrierTransitions, flapLink);
        QVERIFY2(transitions >= 20 && transitions <= 24, qPrintable(QString::number(transitions)));
        // The degraded leaf drops packets on its links; the faulty NVLink link logs errors.
        const auto degraded = *t->find(EntityKind::Leaf, "Leaf P1-R1-0");
        double drops = 0;
        for (std::size_t n = 0; n < t->count(EntityKind::Nic); ++n)
            if (t->nics.leaf[n] == degraded) {
                drops += leaf.state().value(ch::FabricDrops, static_cast<model::EntityId>(n));
                QCOMPARE(leaf.state().value(ch::FabricState, static_cast<model::EntityId>(n)),
                         1.0f);
            }
        QVERIFY(drops > 0);
        const auto nv = *t->find(EntityKind::NvlinkLink, "A02 tray 03 GPU 1 <-> NVSwitch 4");
        const float crc = leaf.state().value(ch::NvlinkCrcErrors, nv);
        QVERIFY(crc > 80 * 100);
        QVERIFY(leaf.state().value(ch::NvlinkReplayErrors, nv) < crc);
        QCOMPARE(leaf.state().value(ch::NvlinkState, nv), 1.0f);
        QVERIFY(leaf.state().value(ch::RackNvlinkErrors, *t->find(EntityKind::Rack, "A02")) > crc);
    }

    void flappingLinkShiftsItsTraysTraffic() {
        const auto t = demoFloor();
        model::SimModel m(t, {}, bundledScenario("link-flap", *t));
        const auto link = *t->find(EntityKind::FabricLink, "A03 tray 05 NIC 2");
        const model::EntityId firstNic = link - 2;
        int downTicks = 0;
        for (int i = 0; i < 1200; ++i) {
            m.step();
            const auto& s = m.state();
            if (s.value(ch::FabricState, link) != 2.0f || s.value(ch::FabricTx, firstNic) <= 0)
                continue;
            ++downTicks;
            QCOMPARE(s.value(ch::FabricTx, link), 0.0f);
            // The tray's other seven NICs carry its bytes.
            double others = 0;
            for (model::EntityId n = firstNic; n < firstNic + 8; ++n)
                others += s.value(ch::FabricTx, n);
            QVERIFY(near(others, s.value(ch::FabricTx, firstNic) * 7.0));
        }
        QVERIFY(downTicks > 0);
    }

    void faultScenariosResolveOnTheLargestFloor() {
        const auto t = floorOf(1778);
        for (const char* name : {"rail-down", "link-flap", "nvlink-disabled", "leaf-degraded"}) {
            const auto s = bundledScenario(name, *t);
            QVERIFY(!s.events.empty());
        }
        QCOMPARE(*t->find(EntityKind::Nic, "A03 tray 05 NIC 2"),
                 static_cast<model::EntityId>((2 * 18 + 4) * 8 + 2));
        QCOMPARE(*t->find(EntityKind::Gpu, "A03 tray 05 GPU 3"),
                 static_cast<model::EntityId>((2 * 18 + 4) * 4 + 3));
    }
};

QTEST_APPLESS_MAIN(TestFabric)
#include "test_fabric.moc"
