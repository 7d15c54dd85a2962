// Inventories: a CSV export of a real hall becomes a floor (rows of unequal length, gaps,
// provisioning host names, GPU UUIDs), the floor file keeps it, bad inventories say where, and
// telemetry lands on the inventory's hosts by host name and by GPU UUID alone.
#include "importers/floor/floor_file.h"
#include "importers/floor/inventory_csv.h"
#include "importers/formats/prometheus_text.h"
#include "importers/mapping/entity_name_index.h"
#include "importers/mapping/mapping_rules.h"
#include "importers/mapping/series_mapper.h"
#include "model/lifecycle.h"
#include "support/test_paths.h"

#include <QTest>
#include <fstream>
#include <sstream>

using namespace ft;
using model::EntityKind;

namespace {

const char* kHall = FT_TEST_DATA_PATH("/inventory/hall-dh2.csv");

} // namespace

class TestInventory : public QObject {
    Q_OBJECT

    static model::Topology build(const model::FloorSpec& spec) {
        auto t = model::Topology::build(spec);
        if (!t) qFatal("%s", t.error().c_str());
        return std::move(*t);
    }

    static std::string errorOf(const std::string& csv) {
        auto inv = importers::parseInventoryCsv(csv, "bad.csv");
        if (inv) {
            auto t = model::Topology::build(inv->spec);
            return t ? std::string() : t.error();
        }
        return inv.error().toString();
    }

private slots:
    void hallBecomesAFloor() {
        auto inv = importers::loadInventoryCsv(kHall);
        QVERIFY2(inv, inv ? "" : inv.error().toString().c_str());
        QCOMPARE(inv->hosts, 48u);
        QCOMPARE(inv->racks, 15u);
        QCOMPARE(inv->rows, 5u);
        // Which header fed which column.
        QCOMPARE(inv->columns.front(),
                 (std::pair<std::string, std::string>{"hostname", "Host Name"}));
        QVERIFY(std::ranges::find(inv->columns, std::pair<std::string, std::string>{
                                                    "bmc", "BMC IP"}) != inv->columns.end());

        const auto t = build(inv->spec);
        QCOMPARE(t.count(EntityKind::Rack), 15u);
        QCOMPARE(t.hostCount(), 48u);
        const std::vector<std::uint32_t> perRow{3, 5, 2, 4, 1}; // unequal rows
        for (std::size_t r = 0; r < perRow.size(); ++r)
            QCOMPARE(t.rows.rackCount[r], perRow[r]);
        // Gaps: R12 has no C04, R14 starts at C02; racks stand in their numbered slots.
        const auto x = [&](const char* rack) {
            return t.racks.position[*t.find(EntityKind::Rack, rack)].x;
        };
        const auto w = static_cast<float>(t.spec().rack.widthM);
        QCOMPARE(x("DH2-R12-C05") - x("DH2-R12-C03"), 2 * w);
        QCOMPARE(x("DH2-R14-C02") - x("DH2-R11-C01"), w);
        // Hosts by their provisioning names, top down by rack unit; the explicit tray column too.
        importers::EntityNameIndex names(t);
        const auto tray = names.trayOfHost("gpu-node-0002");
        QVERIFY(tray);
        QCOMPARE(t.computeTrays.rack[*tray], *t.find(EntityKind::Rack, "DH2-R11-C01"));
        QCOMPARE(int(t.computeTrays.indexInRack[*tray]), 1); // U38: the second from the top
        QCOMPARE(names.trayOfHost("GPU-NODE-0048.ams1.example"),
                 t.find(EntityKind::ComputeTray, "DH2-R15-C01 tray 18"));
        QVERIFY(!names.trayOfHost("dh2-r11-c01-n01")); // the pattern's names mean nothing here
        QCOMPARE(t.computeTrays.bmc[*tray], std::string("10.20.0.12"));
        // GPU UUIDs from the inventory.
        const auto gpu = names.gpuOfUuid("gpu-6513270e-269e-0d37-f2a7-4de452e6b438");
        QVERIFY(gpu);
        QCOMPARE(t.gpus.tray[*gpu], *names.trayOfHost("gpu-node-0001"));
        QCOMPARE(int(t.gpus.indexInTray[*gpu]), 0);
        // Status: planned -> delivered, staged -> the first bring-up stage, active -> production.
        const auto state = [&](const char* rack) {
            return static_cast<model::RackLifecycle>(
                t.racks.initialLifecycle[*t.find(EntityKind::Rack, rack)]);
        };
        QCOMPARE(state("DH2-R13-C02"), model::RackLifecycle::Delivered);
        QCOMPARE(state("DH2-R14-C05"), model::RackLifecycle::HardwareDetection);
        QCOMPARE(state("DH2-R11-C01"), model::RackLifecycle::Production);
    }

    void floorFileKeepsTheInventory() {
        auto inv = importers::loadInventoryCsv(kHall);
        QVERIFY(inv);
        const std::string json = importers::floorSpecToJson(inv->spec);
        auto back = importers::parseFloorFile(json, "dh2.json");
        QVERIFY2(back, back ? "" : back.error().toString().c_str());
        const auto a = build(inv->spec), b = build(*back);
        QCOMPARE(b.racks.name, a.racks.name);
        QCOMPARE(b.racks.initialLifecycle, a.racks.initialLifecycle);
        for (std::size_t r = 0; r < a.racks.position.size(); ++r)
            QCOMPARE(b.racks.position[r].x, a.racks.position[r].x);
        QCOMPARE(b.computeTrays.host, a.computeTrays.host);
        QCOMPARE(b.gpus.uuid, a.gpus.uuid);
        QCOMPARE(importers::floorSpecToJson(*back), json);
        // A bad explicit row in a floor file: the key and the line.
        auto bad = importers::parseFloorFile(
            R"({"rows": [{"name": "R1", "racks": ["A", {"name": "B", "lifecycle": "on fire"}]}]})",
            "f.json");
        QVERIFY(!bad);
        QVERIFY2(bad.error().key == "rows[0].racks[1].lifecycle" && bad.error().line == 1,
                 bad.error().toString().c_str());
    }

    void badInventoriesSayWhere() {
        const std::string h = "hostname,rack,row,tray\n";
        struct Case {
            std::string csv;
            std::string expected;
        } cases[] = {
            {h + "n1,A01,A,1\nn2,A01,A,2\nN1,A02,A,1\n",
             "bad.csv:4:1: key 'hostname': host 'N1' is listed twice (first on line 2)"},
            {h + "n1,A01,A,3\nn2,A01,A,3\n",
             "bad.csv:3:1: key 'tray': hosts 'n1' (line 2) and 'n2' are both in rack 'A01' tray 3"},
            {h + "n1,A01,A,1\nn2,A01,B,2\n",
             "bad.csv:3:8: key 'row': rack 'A01' is in row 'B' here but in row 'A' (line 2)"},
            {h + "n1,A01,A,19\n",
             "bad.csv:2:10: key 'tray': tray '19' is outside the rack (compute trays 1..18)"},
            {"hostname,rack,row,colour\nn1,A01,A,red\n",
             "bad.csv:1:19: key 'colour': unknown column 'colour'"},
            {"hostname,row\nn1,A\n", "bad.csv:1:1: missing column rack"},
            {h + "n1,,A,1\n", "bad.csv:2:4: key 'rack': expected a rack"},
            {"host,rack,row,position_u\nn1,A01,A,40\nn2,A01,A,40\n",
             "bad.csv:3:1: key 'position_u': hosts 'n1' (line 2) and 'n2' are both at U40"},
            {"host,rack,row,status\nn1,A01,A,melted\n",
             "bad.csv:2:10: key 'status': unknown status 'melted'"},
            {"host,rack,row,gpu_uuids\nn1,A01,A,GPU-1\nn2,A01,A,gpu-1\n",
             "GPU UUID 'gpu-1' is listed for hosts 'n1' and 'n2'"},
            {"host,rack,row,tray\n\"n1,A01,A,1\n", "bad.csv:2:1: unterminated quoted field"},
        };
        for (const auto& c : cases) {
            const std::string got = errorOf(c.csv);
            QVERIFY2(got.starts_with(c.expected) || (c.expected.find(':') == std::string::npos &&
                                                     got.find(c.expected) != std::string::npos),
                     ("got: " + got + "\nexpected: " + c.expected).c_str());
        }
        // TSV with a byte-order mark and comment lines reads the same.
        auto tsv = importers::parseInventoryCsv(
            "\xEF\xBB\xBFnode\track_name\taisle\n# comment\nx1\tB07\tB\n", "t.tsv");
        QVERIFY2(tsv, tsv ? "" : tsv.error().toString().c_str());
        QCOMPARE(tsv->spec.hosts.front().name, std::string("x1"));
        QCOMPARE(tsv->spec.rows.front().rackList.front().slot, 6); // B07 stands in slot 7
    }

    void telemetryLandsOnInventoryHosts() {
        // dcgm-exporter's labels as a Kubernetes deployment writes them: Hostname is the node,
        // UUID the GPU. By host name, and by UUID alone when the host label is missing or wrong.
        auto inv = importers::loadInventoryCsv(kHall);
        QVERIFY(inv);
        const auto t = build(inv->spec);
        auto rules =
            importers::loadMappingRules(FT_SOURCE_PATH("/resources/mappings/dcgm-exporter.json"));
        QVERIFY2(rules, rules ? "" : rules.error().toString().c_str());
        importers::SeriesMapper mapper(std::move(*rules), t);
        using Label = importers::prom::Label;
        model::TimeNs when = 1'700'000'000'000'000'000;
        auto map = [&](std::vector<Label> labels) {
            std::vector<model::Sample> out;
            // Each sample newer than the last: the mapper drops repeats of a time it has sent.
            mapper.map("DCGM_FI_DEV_GPU_TEMP", labels, 61.0, when += model::kNsPerSecond, out);
            return out;
        };
        importers::EntityNameIndex names(t);
        const auto node2 = names.trayOfHost("gpu-node-0002");
        QVERIFY(node2);
        const std::string uuid = t.gpus.uuid[*node2 * t.spec().rack.gpusPerTray + 1]; // its GPU 1
        QVERIFY(!uuid.empty());
        const auto byHost = map({{"gpu", "1"},
                                 {"Hostname", "gpu-node-0002"},
                                 {"namespace", "gpu-operator"},
                                 {"pod", "dcgm-exporter-x7"}});
        QCOMPARE(byHost.size(), 1u);
        const auto byUuid = map({{"gpu", "1"}, {"UUID", uuid}, {"Hostname", "dcgm-exporter-x7"}});
        QCOMPARE(byUuid.size(), 1u);
        QCOMPARE(byUuid[0].entity, byHost[0].entity);
        const auto uuidOnly = map({{"UUID", uuid}});
        QCOMPARE(uuidOnly.size(), 1u);
        QCOMPARE(uuidOnly[0].entity, byHost[0].entity);
        QCOMPARE(t.gpus.indexInTray[uuidOnly[0].entity], std::uint8_t(1));
        QVERIFY(map({{"gpu", "0"}, {"Hostname", "gpu-node-9999"}}).empty()); // not in the inventory
    }
};

QTEST_APPLESS_MAIN(TestInventory)
#include "test_inventory.moc"
