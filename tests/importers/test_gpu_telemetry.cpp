// A GPU as dcgm-exporter reports it: every field of the exporter's default and profiling sets
// onto its channel (units converted, blank sentinels dropped), the series left out on purpose
// and why (MIG instances, fans, device counts), job labels (and the exporter's own pod, which is
// none), and what the simulator makes of the counters: XID events, memory totals, each GPU's
// health, its alarm and the incident an XID starts.
#include "importers/floor/floor_file.h"
#include "importers/floor/inventory_csv.h"
#include "importers/floor/pci_address.h"
#include "importers/mapping/mapping_rules.h"
#include "importers/mapping/series_mapper.h"
#include "model/gpu_health.h"
#include "model/incident_tracker.h"
#include "model/sim_model.h"
#include "support/map_one.h"
#include "support/test_floors.h"
#include "support/test_paths.h"

#include <QTest>
#include <cmath>
#include <initializer_list>

using namespace ft;
using importers::prom::Label;
namespace ch = model::ch;

namespace {

constexpr model::TimeNs kT0 = ft::testing::kMapTime;
using ft::testing::mapOne;

importers::MappingRules dcgmRules() {
    auto rules =
        importers::loadMappingRules(FT_SOURCE_PATH("/resources/mappings/dcgm-exporter.json"));
    if (!rules) qFatal("%s", rules.error().toString().c_str());
    return std::move(*rules);
}

} // namespace

class TestGpuTelemetry : public QObject {
    Q_OBJECT
    std::shared_ptr<const model::Topology> m_demo;

    std::string nameOf(model::EntityKind kind, model::EntityId id) const {
        return m_demo->name(kind, id);
    }
    model::EntityId gpu(const char* name) const {
        return *m_demo->find(model::EntityKind::Gpu, name);
    }

private slots:
    void initTestCase() { m_demo = testing::demoFloor(); }

    void presetMapsRealLabels() {
        importers::SeriesMapper m(dcgmRules(), *m_demo);
        // Label sets in the shape dcgm-exporter writes them (its default labels), values invented.
        const std::initializer_list<Label> t4{{"gpu", "0"},
                                              {"UUID", "GPU-5b1e0c3a-7d42-4f19-9a6e-2c8d41f0b7e3"},
                                              {"device", "nvidia0"},
                                              {"modelName", "NVIDIA GB200"},
                                              {"Hostname", "a01-n01"},
                                              {"DCGM_FI_DRIVER_VERSION", "570.124.06"}};
        auto temp = mapOne(m, "DCGM_FI_DEV_GPU_TEMP", t4, 25);
        QCOMPARE(temp.size(), 1u);
        QCOMPARE(nameOf(model::EntityKind::Gpu, temp[0].entity), std::string("A01 tray 01 GPU 0"));
        auto power = mapOne(m, "DCGM_FI_DEV_POWER_USAGE", t4, 8.969);
        QCOMPARE(power.size(), 1u);
        // DCGM's blank sentinel (no reading) is outside the rule's valid range: dropped.
        QVERIFY(mapOne(m, "DCGM_FI_DEV_MEMORY_TEMP", t4, 9223372036854775794.0).empty());
        QCOMPARE(m.stats().invalid, 1u);
        auto tx = mapOne(m, "DCGM_FI_PROF_NVLINK_TX_BYTES", {{"gpu", "2"}, {"hostname", "a01-n01"}},
                         2.5e11);
        QCOMPARE(tx.size(), 1u);
        QCOMPARE(tx[0].channel, *model::findChannel("gpu.nvlink_tx"));
        QCOMPARE(tx[0].value, 250.0f);
        auto crc = mapOne(m, "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
                          {{"gpu", "2"}, {"nvlink", "4"}, {"hostname", "a01-n01"}}, 17);
        QCOMPARE(crc.size(), 1u);
        QCOMPARE(nameOf(model::EntityKind::NvlinkLink, crc[0].entity),
                 std::string("A01 tray 01 GPU 2 <-> NVSwitch 5"));
        QCOMPARE(crc[0].value, 17.0f);
        // Total bandwidth is split over tx and rx on a GPU with no PROF fields.
        auto total = mapOne(m, "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
                            {{"gpu", "3"}, {"hostname", "a01-n01"}}, 200000);
        QCOMPARE(total.size(), 2u);
        QVERIFY(std::fabs(total[0].value - 102.4f) < 1e-3f);
    }

    // Every field of dcgm-exporter's default and profiling counter sets lands on its channel,
    // in the channel's unit.
    void everyCounterFamily() {
        importers::SeriesMapper m(dcgmRules(), *m_demo);
        struct Case {
            const char* metric;
            double raw;
            const char* channel;
            float value;
        };
        const Case cases[] = {
            {"DCGM_FI_DEV_FB_USED", 74166, "gpu.memory_used", 74166.0f / 1024},
            {"DCGM_FI_DEV_FB_FREE", 188729, "gpu.memory_free", 188729.0f / 1024},
            {"DCGM_FI_DEV_FB_RESERVED", 608, "gpu.memory_reserved", 608.0f / 1024},
            {"DCGM_FI_DEV_FB_TOTAL", 15109, "gpu.memory_total", 15109.0f / 1024},
            {"DCGM_FI_DEV_FB_USED_PERCENT", 0.25, "gpu.memory_used_percent", 25},
            {"DCGM_FI_DEV_MEMORY_TEMP", 69, "gpu.memory_temperature", 69},
            {"DCGM_FI_DEV_MEM_CLOCK", 1215, "gpu.memory_clock", 1215},
            {"DCGM_FI_DEV_MEM_COPY_UTIL", 73, "gpu.memory_copy_utilization", 73},
            {"DCGM_FI_DEV_XID_ERRORS", 79, "gpu.xid", 79},
            {"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", 2, "gpu.remapped_rows_correctable", 2},
            {"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", 1, "gpu.remapped_rows_uncorrectable", 1},
            {"DCGM_FI_DEV_ROW_REMAP_PENDING", 1, "gpu.row_remap_pending", 1},
            {"DCGM_FI_DEV_ROW_REMAP_FAILURE", 0, "gpu.row_remap_failure", 0},
            {"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", 12, "gpu.ecc_single_bit", 12},
            {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 0, "gpu.ecc_double_bit", 0},
            {"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", 3, "gpu.pcie_replays", 3},
            {"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", 0x44, "gpu.throttle_reasons", 0x44},
            {"DCGM_FI_DEV_POWER_MGMT_LIMIT", 1800, "gpu.power_limit", 1800},
            {"DCGM_FI_DEV_PSTATE", 0, "gpu.pstate", 0},
            {"DCGM_FI_DEV_SLOWDOWN_TEMP", 93, "gpu.slowdown_temperature", 93},
            {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", 0.995687, "gpu.graphics_active", 99.5687f},
            {"DCGM_FI_PROF_SM_ACTIVE", 0.5, "gpu.sm_active", 50},
            {"DCGM_FI_PROF_SM_OCCUPANCY", 0.25, "gpu.sm_occupancy", 25},
            {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", 0.930433, "gpu.tensor_active", 93.0433f},
            {"DCGM_FI_PROF_PIPE_FP64_ACTIVE", 0.01, "gpu.fp64_active", 1},
            {"DCGM_FI_PROF_PIPE_FP32_ACTIVE", 0.02, "gpu.fp32_active", 2},
            {"DCGM_FI_PROF_PIPE_FP16_ACTIVE", 0.03, "gpu.fp16_active", 3},
            {"DCGM_FI_PROF_DRAM_ACTIVE", 0.800339, "gpu.dram_active", 80.0339f},
            {"DCGM_FI_PROF_PCIE_TX_BYTES", 33011804, "gpu.pcie_tx", 0.033011804f},
            {"DCGM_FI_PROF_PCIE_RX_BYTES", 97863601, "gpu.pcie_rx", 0.097863601f},
            {"DCGM_FI_DEV_ENC_UTIL", 5, "gpu.encoder_utilization", 5},
            {"DCGM_FI_DEV_DEC_UTIL", 7, "gpu.decoder_utilization", 7},
        };
        for (const Case& c : cases) {
            const auto out = mapOne(m, c.metric, {{"gpu", "1"}, {"Hostname", "b02-n03"}}, c.raw);
            QVERIFY2(out.size() == 1, c.metric);
            QCOMPARE(model::kChannels[out[0].channel].name, std::string_view(c.channel));
            QCOMPARE(nameOf(model::EntityKind::Gpu, out[0].entity),
                     std::string("B02 tray 03 GPU 1"));
            QVERIFY2(std::fabs(out[0].value - c.value) <= 1e-4f * std::max(1.0f, c.value),
                     c.metric);
        }
        QCOMPARE(m.stats().unmapped, 0u);
        // The newer name of the throttle reasons, and the enforced power limit over the
        // configured one while both are reported.
        auto events =
            mapOne(m, "DCGM_FI_DEV_CLOCKS_EVENT_REASONS", {{"gpu", "2"}, {"Hostname", "b02-n03"}},
                   0x4, kT0 + model::kNsPerSecond);
        QCOMPARE(events.size(), 1u);
        QCOMPARE(events[0].channel, model::ChannelId(ch::GpuThrottleReasons));
        const std::initializer_list<Label> g3{{"gpu", "3"}, {"Hostname", "b02-n03"}};
        QCOMPARE(mapOne(m, "DCGM_FI_DEV_ENFORCED_POWER_LIMIT", g3, 1500).size(), 1u);
        QVERIFY(mapOne(m, "DCGM_FI_DEV_POWER_MGMT_LIMIT", g3, 1800, kT0 + 1).empty());
        QCOMPARE(m.stats().fallbackSuppressed, 1u);
        // A board without an HBM sensor reports 0, and an unknown P-state 32: neither is a value.
        QVERIFY(mapOne(m, "DCGM_FI_DEV_MEMORY_TEMP", g3, 0).empty());
        QVERIFY(mapOne(m, "DCGM_FI_DEV_PSTATE", g3, 32).empty());
    }

    // What is left out on purpose says why, and is not "unmapped"; a MIG instance's series
    // are slices of their parent GPU, never its own values.
    void ignoredSeriesSayWhy() {
        importers::SeriesMapper m(dcgmRules(), *m_demo);
        const std::initializer_list<Label> mig{
            {"gpu", "0"},          {"UUID", "GPU-34319582-d595-d1c7-d1d2-179bcfa61660"},
            {"device", "nvidia0"}, {"GPU_I_PROFILE", "3g.40gb"},
            {"GPU_I_ID", "13"},    {"Hostname", "a01-n01"}};
        // No series of the GPU's own: its activity is its slices' (3 of 7 compute slices).
        auto out = mapOne(m, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", mig, 0.7);
        QCOMPARE(out.size(), 1u);
        QCOMPARE(out[0].channel, ch::GpuGraphicsActive);
        QVERIFY(std::fabs(out[0].value - 70.0f * 3 / 7) < 1e-3f);
        QVERIFY(mapOne(m, "DCGM_FI_DEV_XID_ERRORS", mig, 0).empty()); // no XID of the GPU's
        QVERIFY(
            mapOne(m, "DCGM_FI_DEV_FAN_SPEED", {{"gpu", "0"}, {"Hostname", "a01-n01"}}, 0).empty());
        QVERIFY(mapOne(m, "DCGM_FI_DEV_COUNT", {{"Hostname", "a01-n01"}}, 1).empty());
        const auto& s = m.stats();
        QCOMPARE(s.ignored, 2u);
        QCOMPARE(s.sliced, 2u);
        QCOMPARE(s.unmapped, 0u);
        QCOMPARE(s.unresolved, 0u);
        const auto top = m.topIgnored(10);
        QCOMPARE(top.size(), 2u);
        QVERIFY(top[0].name.find("liquid-cooled") != std::string::npos ||
                top[1].name.find("liquid-cooled") != std::string::npos);
        // The slices in words, for the inspector.
        const auto slices = m.takeGpuSlices();
        QCOMPARE(slices.size(), 1u);
        QCOMPARE(nameOf(model::EntityKind::Gpu, slices[0].first), std::string("A01 tray 01 GPU 0"));
        QCOMPARE(slices[0].second,
                 std::string("GI 13 (3g.40gb): last XID 0, graphics engine active 70.0 %"));
        QVERIFY(m.takeGpuSlices().empty());
        // The GPU's own series map as ever, and from then on the slices no longer stand in.
        QCOMPARE(
            mapOne(m, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", {{"gpu", "0"}, {"Hostname", "a01-n01"}}, 0.5)
                .size(),
            1u);
        QVERIFY(
            mapOne(m, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", mig, 0.6, testing::kMapTime + 1).empty());
        // An "ignore" rule names no channel, and says only why.
        QVERIFY(!importers::parseMappingRules(
            R"({"format": "floortwin-mapping/1", "rules": [{"metric": "x", "ignore": ""}]})"));
        const auto extra = importers::parseMappingRules(
            R"({"format": "floortwin-mapping/1", "rules": [{"metric": "x", "ignore": "why",)"
            "\n"
            R"( "channel": "gpu.power"}]})",
            "r.json");
        QVERIFY(!extra);
        QCOMPARE(extra.error().line, 2);
        QVERIFY2(extra.error().message.find("only metric, match and comment") != std::string::npos,
                 extra.error().toString().c_str());
    }

    void gpuJobsFromLabels() {
        // dcgm-exporter's Kubernetes labels (namespace, pod, container of the workload) and its
        // Slurm label name each GPU's job; a change is reported once.
        importers::SeriesMapper m(dcgmRules(), *m_demo);
        const std::initializer_list<Label> pod{{"gpu", "0"},
                                               {"Hostname", "a01-n01"},
                                               {"container", "trainer"},
                                               {"namespace", "llm-train"},
                                               {"pod", "llama-ft-0"}};
        QCOMPARE(mapOne(m, "DCGM_FI_DEV_GPU_TEMP", pod, 40).size(), 1u);
        QCOMPARE(mapOne(m, "DCGM_FI_DEV_POWER_USAGE", pod, 300).size(), 1u);
        auto jobs = m.takeGpuJobs();
        QCOMPARE(jobs.size(), std::size_t{1}); // two series, one GPU, one job
        QCOMPARE(nameOf(model::EntityKind::Gpu, jobs[0].first), std::string("A01 tray 01 GPU 0"));
        QCOMPARE(jobs[0].second, std::string("llm-train/llama-ft-0"));
        QVERIFY(m.takeGpuJobs().empty());
        const std::initializer_list<Label> slurm{
            {"gpu", "1"}, {"Hostname", "a01-n01"}, {"hpc_job", "4711"}};
        QCOMPARE(mapOne(m, "DCGM_FI_DEV_GPU_TEMP", slurm, 41).size(), 1u);
        jobs = m.takeGpuJobs();
        QCOMPARE(jobs.size(), std::size_t{1});
        QCOMPARE(jobs[0].second, std::string("4711"));
        // The pod ends: the GPU's series come back without job labels (the sample itself is
        // no newer than the last one of the GPU: dropped, but the series resolved).
        (void)mapOne(m, "DCGM_FI_DEV_GPU_TEMP", {{"gpu", "0"}, {"Hostname", "a01-n01"}}, 35);
        jobs = m.takeGpuJobs();
        QCOMPARE(jobs.size(), std::size_t{1});
        QVERIFY(jobs[0].second.empty());
    }

    // Through kube-prometheus, a GPU without a workload carries the exporter pod's own names:
    // no job. Without honor_labels the workload's names come as exported_*, and win.
    // A GPU's MIG slices reach the snapshot in words (the inspector's "MIG slices" row).
    void migSlicesReachTheSnapshot() {
        model::SimConfig config;
        config.telemetry = true;
        config.settle = false;
        model::SimModel sim(m_demo, config);
        QVERIFY(!sim.state().gpuSlices);
        model::SampleBatch b;
        b.gpuSlices = {{gpu("A02 tray 03 GPU 1"), "GI 1 (3g.40gb): graphics engine active 50.0 %"}};
        sim.apply(b);
        sim.step();
        QVERIFY(sim.state().gpuSlices);
        QCOMPARE((*sim.state().gpuSlices)[gpu("A02 tray 03 GPU 1")],
                 std::string("GI 1 (3g.40gb): graphics engine active 50.0 %"));
        QVERIFY((*sim.state().gpuSlices)[gpu("A02 tray 03 GPU 0")].empty());
    }

    // A GPU's true identity: its UUID where the inventory has it (a GPU seen on another host is
    // reported), else its module's PCI address through the tray model's table, and only last
    // its index; a pod's IP address is no host.
    void trueIdentity() {
        QCOMPARE(importers::parsePciAddress("00000018:01:00.0"), (importers::PciBus{0x18, 1}));
        QCOMPARE(importers::parsePciAddress("0009:01"), (importers::PciBus{9, 1}));
        QCOMPARE(importers::parsePciAddress("3b:00.0"), (importers::PciBus{0, 0x3b}));
        for (const char* bad : {"", "1", "zz:00.0", "0008:01:00.x", "000000008:01:00.0"})
            QVERIFY2(!importers::parsePciAddress(bad), bad);

        const auto inv = importers::parseInventoryCsv(
            "Host Name,Rack Name,Row,Tray,GPU UUIDs\n"
            "a01-n01,A01,R1,1,GPU-aaaa-0;GPU-aaaa-1;GPU-aaaa-2;GPU-aaaa-3\n"
            "a01-n02,A01,R1,2,\n",
            "hosts.csv");
        QVERIFY2(inv, inv ? "" : inv.error().toString().c_str());
        auto built = model::Topology::build(inv->spec);
        QVERIFY(built);
        const model::Topology& t = *built;
        const auto gpt = static_cast<model::EntityId>(t.spec().rack.gpusPerTray);
        const model::EntityId n1 = 0, n2 = 1;
        QCOMPARE(t.hostName(n2), std::string("a01-n02"));
        importers::SeriesMapper m(dcgmRules(), t);
        m.keepFamilyReport(true);
        // A container that sees one GPU calls it gpu 0; its PCI address is module 2's.
        auto out =
            mapOne(m, "DCGM_FI_DEV_GPU_TEMP",
                   {{"gpu", "0"}, {"pci_bus_id", "00000018:01:00.0"}, {"Hostname", "a01-n02"}}, 50);
        QCOMPARE(out.size(), 1u);
        QCOMPARE(out[0].entity, n2 * gpt + 2);
        // A cloud VM's address is in no NVL72 tray's table: the index places it.
        out = mapOne(m, "DCGM_FI_DEV_POWER_USAGE",
                     {{"gpu", "1"}, {"pci_bus_id", "00000000:53:00.0"}, {"Hostname", "a01-n02"}},
                     500);
        QCOMPARE(out.size(), 1u);
        QCOMPARE(out[0].entity, n2 * gpt + 1);
        // Neither: an unplaced sample with the reason.
        QVERIFY(mapOne(m, "DCGM_FI_DEV_GPU_UTIL",
                       {{"pci_bus_id", "00000000:53:00.0"}, {"Hostname", "a01-n02"}}, 5)
                    .empty());
        // The inventory's UUID wins over the labels' host, and the move is reported.
        out = mapOne(m, "DCGM_FI_DEV_GPU_TEMP",
                     {{"gpu", "3"}, {"UUID", "GPU-AAAA-3"}, {"Hostname", "a01-n02"}}, 61);
        QCOMPARE(out.size(), 1u);
        QCOMPARE(out[0].entity, n1 * gpt + 3);
        const auto moved = m.topMovedGpus(5);
        QCOMPARE(moved.size(), std::size_t(1));
        QCOMPARE(moved[0].name,
                 std::string("GPU-AAAA-3: the inventory's a01-n01, the telemetry's a01-n02"));
        // What placed each GPU, once per change, as gpu.placed_by samples.
        const auto placed = m.takePlacements(7);
        QCOMPARE(placed.size(), std::size_t(3));
        auto code = [&](model::EntityId gpu) {
            for (const auto& s : placed)
                if (s.entity == gpu) return s.value;
            return -1.0f;
        };
        QCOMPARE(code(n2 * gpt + 2), 2.0f); // PCI address
        QCOMPARE(code(n2 * gpt + 1), 3.0f); // index
        QCOMPARE(code(n1 * gpt + 3), 1.0f); // UUID
        QCOMPARE(placed[0].channel, model::ch::GpuPlacedBy);
        QVERIFY(m.takePlacements(8).empty());
        const auto& report = m.familyReport();
        QCOMPARE(report.at("DCGM_FI_DEV_GPU_TEMP").placedBy.at("host and PCI address"),
                 std::uint64_t(1));
        QCOMPARE(report.at("DCGM_FI_DEV_GPU_UTIL")
                     .notPlaced.at("a01-n02: PCI address 00000000:53:00.0 is no GPU module of its "
                                   "tray"),
                 std::uint64_t(1));
        // kube-prometheus without a Hostname: the instance is the exporter pod's address.
        QVERIFY(
            mapOne(m, "DCGM_FI_DEV_GPU_TEMP", {{"gpu", "0"}, {"instance", "10.0.172.246:9400"}}, 40)
                .empty());
        bool podIp = false;
        for (const auto& r : m.topUnresolved(10))
            podIp = podIp || r.name == "10.0.172.246: an address, not a host name (a pod's "
                                       "instance: the series need a Hostname label)";
        QVERIFY(podIp);

        // A floor file's own table: one address per GPU, each an address.
        const char* kFloor =
            "{\"rows\": 1, \"racks_per_row\": 1,\n"
            "  \"rack\": {\"gpus_per_tray\": 2, \"gpu_pci\": [\"0008:01\", \"nonsense\"]}}";
        auto bad = importers::parseFloorFile(kFloor, "f.json");
        QVERIFY(!bad);
        QCOMPARE(bad.error().line, 2);
        QVERIFY2(bad.error().message.find("got \"nonsense\"") != std::string::npos,
                 bad.error().toString().c_str());
        bad = importers::parseFloorFile(
            R"({"rows": 1, "racks_per_row": 1, "rack": {"gpu_pci": ["0008:01"]}})", "f.json");
        QVERIFY(!bad);
        QVERIFY2(bad.error().message.find("one PCI address per GPU of a tray (4), got 1") !=
                     std::string::npos,
                 bad.error().toString().c_str());
        const auto eight = importers::parseFloorFile(
            R"({"rows": 1, "racks_per_row": 1, "rack": {"gpus_per_tray": 8}})", "f.json");
        QVERIFY(eight);
        QVERIFY(eight->rack.gpuPci.empty()); // the NVL72 table is no 8-GPU tray's
    }

    void theExportersOwnPodIsNoJob() {
        importers::SeriesMapper m(dcgmRules(), *m_demo);
        const std::initializer_list<Label> idle{{"gpu", "2"},
                                                {"Hostname", "a01-n01"},
                                                {"container", "nvidia-dcgm-exporter"},
                                                {"namespace", "gpu-operator"},
                                                {"pod", "nvidia-dcgm-exporter-wqqqn"},
                                                {"instance", "10.0.172.246:9400"},
                                                {"job", "nvidia-dcgm-exporter"}};
        QCOMPARE(mapOne(m, "DCGM_FI_DEV_GPU_UTIL", idle, 0).size(), 1u);
        auto jobs = m.takeGpuJobs();
        QCOMPARE(jobs.size(), std::size_t{1});
        QVERIFY2(jobs[0].second.empty(), jobs[0].second.c_str());
        QCOMPARE(m.stats().exporterPodSeries, 1u);
        // A pod named like the exporter but run by someone else's container is still the
        // exporter's (its name is the DaemonSet's); a workload's pod is a job.
        const std::initializer_list<Label> workload{{"gpu", "3"},
                                                    {"Hostname", "a01-n01"},
                                                    {"container", "main"},
                                                    {"namespace", "dynamo-workload"},
                                                    {"pod", "vllm-agg-0-vllmdecodeworker-dkb9q"},
                                                    {"instance", "10.0.172.246:9400"}};
        QCOMPARE(mapOne(m, "DCGM_FI_DEV_GPU_UTIL", workload, 91).size(), 1u);
        jobs = m.takeGpuJobs();
        QCOMPARE(jobs.size(), std::size_t{1});
        QCOMPARE(jobs[0].second, std::string("dynamo-workload/vllm-agg-0-vllmdecodeworker-dkb9q"));
        const std::initializer_list<Label> exported{{"gpu", "1"},
                                                    {"Hostname", "a01-n01"},
                                                    {"namespace", "gpu-operator"},
                                                    {"pod", "nvidia-dcgm-exporter-g2fjs"},
                                                    {"exported_namespace", "llm-train"},
                                                    {"exported_pod", "llama-ft-3"},
                                                    {"exported_container", "trainer"}};
        QCOMPARE(mapOne(m, "DCGM_FI_DEV_GPU_UTIL", exported, 88).size(), 1u);
        jobs = m.takeGpuJobs();
        QCOMPARE(jobs.size(), std::size_t{1});
        QCOMPARE(jobs[0].second, std::string("llm-train/llama-ft-3"));
    }

    void xidsAndThrottleReasonsInWords() {
        QCOMPARE(model::describeXid(79),
                 std::string("XID 79, GPU fell off the bus (hardware: drain the node)"));
        QCOMPARE(model::xidInfo(13).kind, model::XidClass::Application);
        QCOMPARE(model::xidInfo(119).kind, model::XidClass::Driver);
        QCOMPARE(model::xidInfo(48).kind, model::XidClass::Hardware);
        QCOMPARE(model::xidInfo(1234).kind, model::XidClass::Unlisted);
        QCOMPARE(model::describeXid(1234), std::string("XID 1234 (not in the catalogue)"));
        QCOMPARE(model::describeXid(0), std::string("no XID"));
        QCOMPARE(model::describeThrottleReasons(0), std::string("none"));
        QCOMPARE(model::describeThrottleReasons(0x44),
                 std::string("hardware thermal slowdown, power cap"));
        QCOMPARE(model::describeThrottleReasons(0x1), std::string("idle"));
        QCOMPARE(model::describeThrottleReasons(0x1000), std::string("other reasons"));
        using H = model::GpuHealth;
        const auto health = [](model::GpuCounters c) { return model::gpuHealth(c); };
        QCOMPARE(health({}), H::Healthy);
        QCOMPARE(health({.xid = 13}), H::Healthy); // the job's own fault
        QCOMPARE(health({.xid = 119}), H::Degraded);
        QCOMPARE(health({.xid = 79}), H::Failing);
        QCOMPARE(health({.remappedUncorrectable = 1}), H::Failing);
        QCOMPARE(health({.rowRemapFailure = 1}), H::Failing);
        QCOMPARE(health({.eccDoubleBit = 2}), H::Failing);
        QCOMPARE(health({.rowRemapPending = 1}), H::Degraded);
        QCOMPARE(health({.throttleReasons = 0x20}), H::Degraded); // thermal slowdown
        QCOMPARE(health({.throttleReasons = 0x4}), H::Healthy);   // a power cap is a setting
        QCOMPARE(health({.throttleReasons = 0x1}), H::Healthy);   // idle
        QCOMPARE(health({.xid = 79, .lost = true}), H::Lost);
        QCOMPARE(model::healthReason({.rowRemapPending = 1, .throttleReasons = 0x40}),
                 std::string("a row remap waits for a GPU reset; throttled: hardware thermal "
                             "slowdown"));
    }

    // The simulator with live counters: an XID is an event (and a hardware one an incident), the
    // memory totals are made of what was reported, each GPU has a health once a second, and an
    // unhealthy GPU raises its alarm; a GPU whose series stop while its host answers is lost.
    void countersMakeHealthAlarmsAndEvents() {
        model::SimConfig config;
        config.telemetry = true;
        config.settle = false;
        model::SimModel sim(m_demo, config);
        const model::EntityId xid = gpu("A03 tray 02 GPU 1"), hot = gpu("A03 tray 02 GPU 2"),
                              mem = gpu("A03 tray 02 GPU 3"), gone = gpu("A03 tray 02 GPU 0"),
                              plate = gpu("A05 tray 07 GPU 2");
        // The GPU counters are not the demo's: before any measurement nothing lists them.
        QVERIFY(!sim.state().measuredChannels.test(ch::GpuHealth));
        auto send = [&](std::initializer_list<model::Sample> samples) {
            model::SampleBatch b;
            for (model::Sample s : samples) {
                s.time = sim.state().time;
                b.samples.push_back(s);
            }
            sim.apply(b);
        };
        auto runSeconds = [&](int seconds) {
            for (int i = 0; i < seconds * 10; ++i)
                sim.step();
        };
        send({{0, ch::GpuXid, xid, 0},
              {0, ch::GpuThrottleReasons, hot, 0},
              {0, ch::GpuThrottleReasons, plate, 0},
              {0, ch::GpuTemperature, gone, 60},
              {0, ch::GpuMemoryUsed, mem, 72.5f},
              {0, ch::GpuMemoryFree, mem, 183.0f},
              {0, ch::GpuMemoryReserved, mem, 0.5f}});
        runSeconds(2);
        const auto& s = sim.state();
        for (const auto g : {xid, hot, mem, gone})
            QCOMPARE(s.value(ch::GpuHealth, g), 0.0f);
        QVERIFY(s.measuredChannels.test(ch::GpuHealth));
        QCOMPARE(s.value(ch::GpuMemoryTotal, mem), 256.0f);
        QVERIFY(std::fabs(s.value(ch::GpuMemoryUsedPercent, mem) - 100.0f * 72.5f / 255.5f) <
                1e-3f);
        QVERIFY(s.measuredChannels.test(ch::GpuMemoryTotal));
        // XID 79 on one GPU, a thermal slowdown on another; the third GPU's series stop.
        send({{0, ch::GpuXid, xid, 79},
              {0, ch::GpuThrottleReasons, hot, 0x40},
              {0, ch::GpuTemperature, mem, 50}});
        runSeconds(2);
        QCOMPARE(s.value(ch::GpuXidCount, xid), 1.0f);
        QCOMPARE(s.value(ch::GpuHealth, xid), float(model::GpuHealth::Failing));
        QCOMPARE(s.value(ch::GpuHealth, hot), float(model::GpuHealth::Degraded));
        bool xidEvent = false;
        for (const auto& e : *s.events)
            xidEvent = xidEvent || (e.kind == model::EventKind::DeviceReport &&
                                    e.severity == model::Severity::Critical &&
                                    e.text == "A03 tray 02 GPU 1: XID 79, GPU fell off the bus "
                                              "(hardware: drain the node)");
        QVERIFY(xidEvent);
        int failing = 0, degraded = 0;
        for (const auto& a : s.alarms)
            if (a.channel == ch::GpuHealth) {
                QCOMPARE(a.kind, model::EntityKind::Gpu);
                (a.severity == model::Severity::Critical ? failing : degraded)++;
            }
        QCOMPARE(failing, 1);
        QCOMPARE(degraded, 1);
        // The same XID again is the same report; another is a new one.
        send({{0, ch::GpuXid, xid, 79}});
        runSeconds(1);
        QCOMPARE(s.value(ch::GpuXidCount, xid), 1.0f);
        send({{0, ch::GpuXid, xid, 48}});
        runSeconds(1);
        QCOMPARE(s.value(ch::GpuXidCount, xid), 2.0f);
        // An incident starts at the hardware XID, on that GPU.
        QVERIFY(s.incidents);
        bool incident = false;
        for (const auto& inc : *s.incidents)
            incident = incident || (inc.root == model::EntityRef{model::EntityKind::Gpu, xid} &&
                                    inc.rootText.find("fell off the bus") != std::string::npos);
        QVERIFY(incident);
        // A GPU its own heat slows, with nothing else wrong: its cold plate is a cooling cause.
        send({{0, ch::GpuThrottleReasons, plate, 0x20 | 0x4}});
        runSeconds(2);
        bool coldPlate = false;
        for (const auto& inc : *s.incidents)
            coldPlate =
                coldPlate || (inc.root == model::EntityRef{model::EntityKind::Gpu, plate} &&
                              inc.domain == model::CauseDomain::Cooling &&
                              inc.rootText == "cold plate: A05 tray 07 GPU 2 holds its clocks down "
                                              "(thermal slowdown)");
        QVERIFY(coldPlate);
        // Keep the other GPUs of the tray answering while GPU 0's series stay away.
        for (int i = 0; i < 4; ++i) {
            send({{0, ch::GpuTemperature, mem, 50}, {0, ch::GpuThrottleReasons, hot, 0}});
            runSeconds(10);
        }
        QCOMPARE(s.value(ch::GpuHealth, gone), float(model::GpuHealth::Lost));
        QCOMPARE(s.value(ch::GpuHealth, hot), float(model::GpuHealth::Healthy));
        bool healthyAgain = false;
        for (const auto& e : *s.events)
            healthyAgain = healthyAgain || (e.severity == model::Severity::Info &&
                                            e.text == "A03 tray 02 GPU 2 is healthy again");
        QVERIFY(healthyAgain);
        bool lostEvent = false;
        for (const auto& e : *s.events)
            lostEvent = lostEvent || e.text.starts_with("A03 tray 02 GPU 0 is lost");
        QVERIFY(lostEvent);
    }

    // A rack's GPU figures are made of its measured GPUs only, and say of how many; a rack
    // none of whose GPUs reported has none (not the model's); a GPU's power is no rack power.
    void rackFiguresAreMadeOfMeasuredGpusOnly() {
        model::SimConfig config;
        config.telemetry = true;
        config.settle = false;
        model::SimModel sim(m_demo, config);
        const auto a03 = *m_demo->find(model::EntityKind::Rack, "A03");
        const auto a01 = *m_demo->find(model::EntityKind::Rack, "A01");
        model::SampleBatch b;
        const auto t = sim.state().time;
        b.samples = {{t, ch::GpuUtilization, gpu("A03 tray 02 GPU 1"), 20.0f},
                     {t, ch::GpuUtilization, gpu("A03 tray 05 GPU 0"), 60.0f},
                     {t, ch::GpuTemperature, gpu("A03 tray 02 GPU 1"), 48.0f},
                     {t, ch::GpuTemperature, gpu("A03 tray 05 GPU 0"), 66.0f},
                     {t, ch::GpuPower, gpu("A03 tray 05 GPU 0"), 700.0f}};
        sim.apply(b);
        for (int i = 0; i < 10; ++i)
            sim.step();
        const auto& s = sim.state();
        QCOMPARE(s.value(ch::RackGpuUtilization, a03), 40.0f);
        QCOMPARE(s.value(ch::RackGpuTempMax, a03), 66.0f);
        QCOMPARE(s.value(ch::RackGpuTempMean, a03), 57.0f);
        QCOMPARE(s.value(ch::RackGpusMeasured, a03), 2.0f);
        QVERIFY(std::isnan(s.value(ch::RackGpuUtilization, a01)));
        QVERIFY(std::isnan(s.value(ch::RackGpuTempMax, a01)));
        QCOMPARE(s.value(ch::RackGpusMeasured, a01), 0.0f);
        QVERIFY(s.measured(ch::RackGpuUtilization, a03));
        QVERIFY(!s.measuredChannels.test(ch::RackPower));
        QVERIFY(!s.measuredChannels.test(ch::TrayPower));
        QVERIFY(!s.measured(ch::RackPower, a03));
        // The rack's trip protection sees no temperature it was not given: nothing trips.
        for (const auto& a : s.alarms)
            QVERIFY(a.entity != a01 || a.kind != model::EntityKind::Rack);
    }

    // The counters' columns are shared between the simulator and its snapshots until a
    // measurement changes one: publishing a tick copies none of their values.
    void countersAreSharedNotCopied() {
        model::SimConfig config;
        config.telemetry = true;
        config.settle = false;
        model::SimModel sim(m_demo, config);
        model::Snapshot a, b;
        sim.step();
        sim.publishTo(a);
        sim.step();
        sim.publishTo(b);
        for (model::ChannelId c = model::kFirstGpuCounter; c <= model::kLastGpuCounter; ++c)
            QVERIFY2(a.channel(c).data() == b.channel(c).data(),
                     std::string(model::kChannels[c].name).c_str());
        model::SampleBatch batch;
        batch.samples.push_back({sim.state().time, ch::GpuPcieTx, 5, 12.5f});
        sim.apply(batch);
        sim.step();
        model::Snapshot c;
        sim.publishTo(c);
        QVERIFY(c.channel(ch::GpuPcieTx).data() != b.channel(ch::GpuPcieTx).data());
        QCOMPARE(c.value(ch::GpuPcieTx, 5), 12.5f);
        QCOMPARE(b.value(ch::GpuPcieTx, 5), 0.0f); // what was published stays as it was
    }
};

QTEST_GUILESS_MAIN(TestGpuTelemetry)
#include "test_gpu_telemetry.moc"
