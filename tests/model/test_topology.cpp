// Topology: entity counts, parent links, fabric sizing by the non-blocking two-tier rule.
#include "importers/floor/floor_file.h"
#include "model/topology.h"

#include <QTest>

using namespace ft;
using model::EntityKind;

class TestTopology : public QObject {
    Q_OBJECT

    static model::Topology build(const model::FloorSpec& spec) {
        auto t = model::Topology::build(spec);
        if (!t) qFatal("%s", t.error().c_str());
        return std::move(*t);
    }

private slots:
    void rackOfWhatIsInARack() {
        // Four racks make two rows of two: A01 A02 / B01 B02.
        const auto t = build(importers::generateFloor(4));
        const auto gpu = t.find(EntityKind::Gpu, "B01 tray 02 GPU 1");
        QVERIFY(gpu);
        QCOMPARE(t.rackOf(EntityKind::Gpu, *gpu), std::optional<model::EntityId>(2));
        QCOMPARE(t.rackOf(EntityKind::Gpu, *gpu), t.find(EntityKind::Rack, "B01"));
        const auto psu = t.find(EntityKind::Psu, "A02 shelf 3 PSU 4");
        QVERIFY(psu);
        QCOMPARE(t.rackOf(EntityKind::Psu, *psu), std::optional<model::EntityId>(1));
        QCOMPARE(t.rackOf(EntityKind::PowerShelf, t.psus.shelf[*psu]),
                 t.find(EntityKind::Rack, "A02"));
        QVERIFY(!t.find(EntityKind::Rack, "A03"));
        QVERIFY(!t.find(EntityKind::Gpu, "A03 tray 02 GPU 1"));
        QCOMPARE(t.rackOf(EntityKind::Nic, t.count(EntityKind::Nic) - 1),
                 std::optional<model::EntityId>(3));
        QVERIFY(!t.rackOf(EntityKind::Leaf, 0));
        QVERIFY(!t.rackOf(EntityKind::Cdu, 0));
        QVERIFY(!t.rackOf(EntityKind::PowerFeed, 0));
        QVERIFY(!t.rackOf(EntityKind::Gpu, static_cast<model::EntityId>(t.count(EntityKind::Gpu))));
    }

    void oneRack() {
        const auto t = build(importers::generateFloor(1));
        QCOMPARE(t.count(EntityKind::Rack), 1u);
        QCOMPARE(t.count(EntityKind::ComputeTray), 18u);
        QCOMPARE(t.count(EntityKind::Gpu), 72u);
        QCOMPARE(t.count(EntityKind::Cpu), 36u);
        QCOMPARE(t.count(EntityKind::Dpu), 18u);
        QCOMPARE(t.count(EntityKind::Nic), 144u);
        QCOMPARE(t.count(EntityKind::SwitchTray), 9u);
        QCOMPARE(t.count(EntityKind::NvlinkLink), 72u * 9u);
        QCOMPARE(t.count(EntityKind::Rail), 8u);
        QCOMPARE(t.count(EntityKind::Plane), 2u);
        // 18 NICs per rail fit on one leaf; 72 endpoints per plane need one spine (k = 512).
        QCOMPARE(t.count(EntityKind::Leaf), 8u);
        QCOMPARE(t.count(EntityKind::Spine), 2u);
        QCOMPARE(t.count(EntityKind::FabricLink), 144u + 8u);
        QCOMPARE(t.count(EntityKind::Cdu), 1u);
        QCOMPARE(t.count(EntityKind::CoolingLoop), 2u);
        QCOMPARE(t.count(EntityKind::StorageTier), 8u);
    }

    void largestFloor() {
        const auto t = build(importers::generateFloor(1778));
        QCOMPARE(t.count(EntityKind::Rack), 1778u);
        QCOMPARE(t.count(EntityKind::Gpu), 128016u);
        QCOMPARE(t.count(EntityKind::Cpu), 64008u);
        QCOMPARE(t.count(EntityKind::ComputeTray), 32004u);
        QCOMPARE(t.count(EntityKind::SwitchTray), 16002u);
        QCOMPARE(t.count(EntityKind::Nic), 256032u);
        QCOMPARE(t.count(EntityKind::NvlinkLink), 128016u * 9u);
        // Per plane: 128,016 endpoints <= k^2/2 = 131,072; per rail 32,004 NICs -> 126 leaves.
        QCOMPARE(t.fabricSizing.endpointsPerPlane, 128016u);
        QCOMPARE(t.fabricSizing.maxEndpointsPerPlane, 131072u);
        QCOMPARE(t.count(EntityKind::Leaf), 8u * 126u);
        QCOMPARE(t.count(EntityKind::Spine), 2u * 251u); // ceil(128016 / 512) per plane
    }

    void parentsAndRails() {
        const auto t = build(importers::generateFloor(5));
        const auto& rk = t.spec().rack;
        const int nicsPerTray = rk.gpusPerTray * rk.nicsPerGpu;
        for (std::size_t g = 0; g < t.count(EntityKind::Gpu); ++g) {
            const auto tray = t.gpus.tray[g];
            QCOMPARE(t.gpus.rack[g], t.computeTrays.rack[tray]);
        }
        for (std::size_t n = 0; n < t.count(EntityKind::Nic); ++n) {
            // NIC i of every tray lands on rail i, and on a leaf of that rail and its plane.
            const int rail = static_cast<int>(n % nicsPerTray);
            QCOMPARE(static_cast<int>(t.nics.rail[n]), rail);
            const auto leaf = t.nics.leaf[n];
            QCOMPARE(static_cast<int>(t.leaves.rail[leaf]), rail);
            QCOMPARE(static_cast<int>(t.leaves.plane[leaf]), rail % t.spec().fabric.planes);
            QCOMPARE(t.gpus.tray[t.nics.gpu[n]], static_cast<model::EntityId>(n / nicsPerTray));
        }
        for (std::size_t l = 0; l < t.count(EntityKind::NvlinkLink); ++l)
            QCOMPARE(t.switchTrays.rack[t.nvlinkLinks.switchTray[l]],
                     t.gpus.rack[t.nvlinkLinks.gpu[l]]);
        // Every rack is served by a CDU of its own row.
        for (std::size_t r = 0; r < t.count(EntityKind::Rack); ++r)
            QCOMPARE(t.cdus.row[t.racks.cdu[r]], t.racks.row[r]);
    }

    void fabricSizingRule_data() {
        QTest::addColumn<int>("racks");
        QTest::addColumn<int>("radix");
        QTest::addColumn<int>("planes");
        QTest::newRow("16 racks, k=512") << 16 << 512 << 2;
        QTest::newRow("100 racks, k=64") << 100 << 64 << 8;
        QTest::newRow("300 racks, k=256, 4 planes") << 300 << 256 << 4;
        QTest::newRow("1778 racks, k=512") << 1778 << 512 << 2;
    }
    void fabricSizingRule() {
        QFETCH(int, racks);
        QFETCH(int, radix);
        QFETCH(int, planes);
        auto spec = importers::generateFloor(racks);
        spec.fabric.switchRadix = radix;
        spec.fabric.planes = planes;
        const auto t = build(spec);
        const std::size_t nics = t.count(EntityKind::Nic);
        const std::size_t perPlane = nics / planes;
        const std::size_t half = radix / 2;
        QVERIFY(perPlane <= static_cast<std::size_t>(radix) * radix / 2);
        // Leaves are rail-dedicated: per rail ceil(trays / (k/2)); spines ceil(N / k) per plane.
        const std::size_t trays = t.count(EntityKind::ComputeTray);
        QCOMPARE(t.count(EntityKind::Leaf), 8 * ((trays + half - 1) / half));
        QCOMPARE(t.count(EntityKind::Spine), planes * ((perPlane + radix - 1) / radix));
        // No leaf has more than k/2 downlinks; its uplinks equal its downlinks (non-blocking).
        std::vector<std::size_t> up(t.count(EntityKind::Leaf), 0),
            down(t.count(EntityKind::Leaf), 0);
        for (std::size_t l = 0; l < t.count(EntityKind::FabricLink); ++l) {
            if (t.fabricLinks.kind[l] == model::Topology::FabricLinkKind::NicToLeaf)
                down[t.fabricLinks.to[l]]++;
            else {
                up[t.fabricLinks.from[l]] += t.fabricLinks.lanes[l];
                QCOMPARE(t.spines.plane[t.fabricLinks.to[l]],
                         t.leaves.plane[t.fabricLinks.from[l]]);
            }
        }
        for (std::size_t l = 0; l < up.size(); ++l) {
            QVERIFY(down[l] <= half);
            QCOMPARE(up[l], down[l]);
            QCOMPARE(down[l], static_cast<std::size_t>(t.leaves.downlinks[l]));
        }
    }

    void fabricTooLargeIsAnError() {
        auto spec = importers::generateFloor(1778);
        spec.fabric.planes = 1; // 256,032 endpoints in one plane > 131,072
        const auto t = model::Topology::build(spec);
        QVERIFY(!t);
        QVERIFY(t.error().find("k^2/2") != std::string::npos);
    }

    void invalidSpecs() {
        auto spec = importers::generateFloor(4);
        spec.fabric.planes = 3; // does not divide 8 NICs per tray
        QVERIFY(!model::Topology::build(spec));
        spec = importers::generateFloor(4);
        spec.rows[0].racks = 0;
        QVERIFY(!model::Topology::build(spec));
        spec.rows.clear();
        QVERIFY(!model::Topology::build(spec));
    }

    void namesAndHosts() {
        const auto t = build(importers::generateFloor(16));
        QCOMPARE(t.racks.name[0], std::string("A01"));
        QCOMPARE(t.hostName(0), std::string("a01-n01"));
        QCOMPARE(t.hostName(19), std::string("a02-n02"));
        QCOMPARE(t.name(EntityKind::Gpu, 5), std::string("A01 tray 02 GPU 1"));
        QCOMPARE(t.name(EntityKind::SwitchTray, 9), std::string("A02 NVSwitch 1"));
    }

    void layoutInsideTheRack() {
        const auto t = build(importers::generateFloor(2));
        const auto& rk = t.spec().rack;
        QCOMPARE(t.computeSlots.size(), 18u);
        QCOMPARE(t.switchSlots.size(), 9u);
        // Top to bottom: 10 compute trays, 9 switch trays, 8 compute trays.
        QVERIFY(t.computeSlots[9].bottomU > t.switchSlots[0].bottomU);
        QVERIFY(t.switchSlots[8].bottomU > t.computeSlots[10].bottomU);
        const float top = (t.powerShelfSlots.front().bottomU + 1) * model::Topology::kRackUnitM;
        QVERIFY(top <= rk.heightM);
        QVERIFY(t.powerShelfSlots.back().bottomU >= 0);
        // Racks do not overlap and sit inside the floor bounds.
        for (std::size_t r = 0; r < t.count(EntityKind::Rack); ++r) {
            const auto p = t.racks.position[r];
            QVERIFY(p.x >= t.boundsMin.x && p.x <= t.boundsMax.x);
            QVERIFY(p.y >= t.boundsMin.y && p.y <= t.boundsMax.y);
        }
    }

    void generatedLayoutHasNoOverlaps() {
        const auto t = build(importers::generateFloor(1778));
        const auto& rk = t.spec().rack;
        std::vector<std::pair<float, float>> pos;
        pos.reserve(t.racks.position.size());
        for (const auto& p : t.racks.position)
            pos.emplace_back(p.x, p.y);
        std::ranges::sort(pos);
        for (std::size_t i = 1; i < pos.size(); ++i) {
            const bool sameSpot = std::abs(pos[i].first - pos[i - 1].first) < rk.widthM * 0.99 &&
                                  std::abs(pos[i].second - pos[i - 1].second) < rk.depthM;
            QVERIFY2(!sameSpot, "two racks overlap");
        }
        // A roughly square floor, not one 1 km corridor.
        const float w = t.boundsMax.x - t.boundsMin.x, d = t.boundsMax.y - t.boundsMin.y;
        QVERIFY(w / d < 3.0f && d / w < 3.0f);
    }
};

QTEST_GUILESS_MAIN(TestTopology)
#include "test_topology.moc"
