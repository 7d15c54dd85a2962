// Mapping rules: the pattern matcher, how label spellings, host suffixes and entity kinds
// resolve on the demo floor, unit conversion, counters and rates (resets, out-of-order), the
// unmapped and unresolved counts, the bundled presets, and rule-file errors with positions.
// (dcgm-exporter's own fields and labels: test_gpu_telemetry.)
#include "importers/mapping/label_pattern.h"
#include "importers/mapping/mapping_rules.h"
#include "importers/mapping/name_suggest.h"
#include "importers/mapping/series_mapper.h"
#include "support/map_one.h"
#include "support/test_floors.h"
#include "support/test_paths.h"

#include <QTest>
#include <cmath>
#include <cstddef>
#include <initializer_list>

using namespace ft;
using importers::prom::Label;

namespace {

constexpr model::TimeNs kT0 = ft::testing::kMapTime;
using ft::testing::mapOne;
constexpr model::TimeNs kSecond = model::kNsPerSecond;

importers::MappingRules rulesOf(const std::string& json) {
    auto r = importers::parseMappingRules(json, "test.json");
    if (!r) qFatal("rules did not load: %s", r.error().toString().c_str());
    return std::move(*r);
}

importers::Error errorOf(const std::string& json) {
    auto r = importers::parseMappingRules(json, "bad.json");
    if (r) qFatal("expected an error for: %s", json.c_str());
    return r.error();
}

// One rule file around the given rules.
std::string
file(const std::string& rules,
     const std::string& defaults = R"({"host": ["Hostname", "hostname"], "gpu": ["gpu"]})") {
    return R"({"format": "floortwin-mapping/1", "defaults": )" + defaults + R"(, "rules": [)" +
           rules + "]}";
}

} // namespace

class TestMapping : public QObject {
    Q_OBJECT
    std::shared_ptr<const model::Topology> m_demo;

    std::string nameOf(model::EntityKind kind, model::EntityId id) const {
        return m_demo->name(kind, id);
    }

private slots:
    void initTestCase() { m_demo = testing::demoFloor(); }

    void patternMatches() {
        using importers::LabelPattern;
        auto p = LabelPattern::compile("{host}.cluster.local");
        QVERIFY(p);
        std::array<std::string_view, LabelPattern::kMaxCaptures> caps;
        QVERIFY(p->match("a01-n03.cluster.local", caps));
        QCOMPARE(caps[0], std::string_view("a01-n03"));
        QVERIFY(!p->match("a01-n03.cluster.localx", caps));
        QVERIFY(!p->match(".cluster.local", caps)); // captures take one character at least

        auto tag = LabelPattern::compile("**/{rack}/*");
        QVERIFY(tag);
        QVERIFY(tag->match("site1/row3/A03/supplyTemp", caps));
        QCOMPARE(caps[0], std::string_view("A03"));
        QVERIFY(!tag->match("A03", caps));

        auto star = LabelPattern::compile("DCGM_FI_DEV_NVLINK_*_L{link}");
        QVERIFY(star);
        QVERIFY(star->match("DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L12", caps));
        QCOMPARE(caps[0], std::string_view("12"));
        QVERIFY(!LabelPattern::compile("a/*/b")->matches("a/x/y/b")); // '*' stays within a segment
        QVERIFY(LabelPattern::compile("a/**/b")->matches("a/x/y/b"));
        QVERIFY(LabelPattern::compile("exact")->isLiteral());

        for (const char* bad : {"{host", "{}", "{9x}", "{a}{b}", "*{a}", "{a}-{a}", "x}"})
            QVERIFY2(!LabelPattern::compile(bad), bad);
    }

    void labelSpellingsOldAndNew() {
        importers::SeriesMapper m(
            rulesOf(file(R"({"metric": ["DCGM_FI_DEV_GPU_TEMP", "dcgm_gpu_temp"],
            "channel": "gpu.temperature", "entity": {"kind": "gpu"}})")),
            *m_demo);
        // dcgm-exporter <= 3.x: Hostname and UUID; later: hostname.
        auto old = mapOne(m, "DCGM_FI_DEV_GPU_TEMP",
                          {{"gpu", "1"}, {"UUID", "GPU-20c5"}, {"Hostname", "a03-n02"}}, 71);
        auto now = mapOne(m, "DCGM_FI_DEV_GPU_TEMP",
                          {{"gpu", "2"}, {"uuid", "GPU-20c6"}, {"hostname", "a03-n02"}}, 72);
        auto legacy = mapOne(m, "dcgm_gpu_temp", {{"gpu", "3"}, {"hostname", "b08-n18"}}, 73);
        QCOMPARE(old.size(), 1u);
        QCOMPARE(now.size(), 1u);
        QCOMPARE(legacy.size(), 1u);
        QCOMPARE(nameOf(model::EntityKind::Gpu, old[0].entity), std::string("A03 tray 02 GPU 1"));
        QCOMPARE(nameOf(model::EntityKind::Gpu, now[0].entity), std::string("A03 tray 02 GPU 2"));
        QCOMPARE(nameOf(model::EntityKind::Gpu, legacy[0].entity),
                 std::string("B08 tray 18 GPU 3"));
        QCOMPARE(old[0].channel, model::ChannelId(model::ch::GpuTemperature));
        QCOMPARE(old[0].value, 71.0f);
        QCOMPARE(old[0].time, kT0);
        // Both spellings at once: the first listed wins.
        auto both = mapOne(m, "DCGM_FI_DEV_GPU_TEMP",
                           {{"gpu", "0"}, {"Hostname", "a01-n01"}, {"hostname", "b01-n01"}}, 70);
        QCOMPARE(both.size(), 1u);
        QCOMPARE(nameOf(model::EntityKind::Gpu, both[0].entity), std::string("A01 tray 01 GPU 0"));
    }

    void hostSuffixPatterns() {
        importers::SeriesMapper m(
            rulesOf(file(
                R"({"metric": "gpu_temp", "channel": "gpu.temperature", "entity": {"kind": "gpu"}})",
                R"({"host": ["node=node-{host}", "instance={host}.cluster.local:*", "hostname"], "gpu": ["gpu"]})")),
            *m_demo);
        auto pattern =
            mapOne(m, "gpu_temp", {{"gpu", "0"}, {"instance", "a02-n05.cluster.local:9400"}}, 60);
        QCOMPARE(pattern.size(), 1u);
        QCOMPARE(nameOf(model::EntityKind::Gpu, pattern[0].entity),
                 std::string("A02 tray 05 GPU 0"));
        auto prefix = mapOne(m, "gpu_temp", {{"gpu", "1"}, {"node", "node-a02-n06"}}, 60);
        QCOMPARE(prefix.size(), 1u);
        QCOMPARE(nameOf(model::EntityKind::Gpu, prefix[0].entity),
                 std::string("A02 tray 06 GPU 1"));
        // A domain the rules did not foresee is dropped at the first dot; case does not matter.
        auto domain =
            mapOne(m, "gpu_temp", {{"gpu", "2"}, {"hostname", "A02-N07.dc1.example.com"}}, 60);
        QCOMPARE(domain.size(), 1u);
        QCOMPARE(nameOf(model::EntityKind::Gpu, domain[0].entity),
                 std::string("A02 tray 07 GPU 2"));
        // A value the pattern does not fit falls through to the next source.
        auto fallthrough =
            mapOne(m, "gpu_temp", {{"gpu", "3"}, {"node", "other"}, {"hostname", "a02-n08"}}, 60);
        QCOMPARE(fallthrough.size(), 1u);
        QCOMPARE(nameOf(model::EntityKind::Gpu, fallthrough[0].entity),
                 std::string("A02 tray 08 GPU 3"));
    }

    void unitConversion() {
        importers::SeriesMapper m(rulesOf(file(R"(
            {"metric": "gpu_power_milliwatts", "channel": "gpu.power", "entity": {"kind": "gpu"}, "scale": 0.001},
            {"metric": "gpu_temp_kelvin", "channel": "gpu.temperature", "entity": {"kind": "gpu"}, "offset": -273.15},
            {"metric": "rack_power_watts", "channel": "rack.power", "entity": {"kind": "rack", "rack": ["rack"]}, "scale": 1e-3})")),
                                  *m_demo);
        auto power =
            mapOne(m, "gpu_power_milliwatts", {{"hostname", "a01-n01"}, {"gpu", "0"}}, 1'250'000);
        QCOMPARE(power.size(), 1u);
        QCOMPARE(power[0].value, 1250.0f);
        auto temp = mapOne(m, "gpu_temp_kelvin", {{"hostname", "a01-n01"}, {"gpu", "0"}}, 343.15);
        QCOMPARE(temp.size(), 1u);
        QVERIFY(std::fabs(temp[0].value - 70.0f) < 1e-3f);
        auto rack = mapOne(m, "rack_power_watts", {{"rack", "B02"}}, 142'000);
        QCOMPARE(rack.size(), 1u);
        QCOMPARE(nameOf(model::EntityKind::Rack, rack[0].entity), std::string("B02"));
        QCOMPARE(rack[0].value, 142.0f);
    }

    void counterToRate() {
        // A byte counter read as a rate: first sample primes, a reset restarts, old samples drop.
        importers::SeriesMapper m(
            rulesOf(file(R"({"metric": "energy_mj_total", "channel": "gpu.power",
            "entity": {"kind": "gpu"}, "rate": true, "scale": 0.001})")),
            *m_demo);
        const std::initializer_list<Label> gpu{{"hostname", "a01-n01"}, {"gpu", "0"}};
        QVERIFY(mapOne(m, "energy_mj_total", gpu, 1'000'000, kT0).empty());
        QCOMPARE(m.stats().ratePrimed, 1u);
        auto r = mapOne(m, "energy_mj_total", gpu, 1'000'000 + 10 * 900'000,
                        kT0 + 10 * kSecond); // 900 J/s
        QCOMPARE(r.size(), 1u);
        QCOMPARE(r[0].value, 900.0f);
        QCOMPARE(r[0].time, kT0 + 10 * kSecond);
        // Out of order and duplicate: dropped and counted, the rate state untouched.
        QVERIFY(mapOne(m, "energy_mj_total", gpu, 5, kT0 + 5 * kSecond).empty());
        QVERIFY(mapOne(m, "energy_mj_total", gpu, 10'000'000, kT0 + 10 * kSecond).empty());
        QCOMPARE(m.stats().outOfOrder, 2u);
        // Reset (the exporter restarted): no sample, then rates from the new baseline.
        QVERIFY(mapOne(m, "energy_mj_total", gpu, 500, kT0 + 20 * kSecond).empty());
        QCOMPARE(m.stats().counterResets, 1u);
        r = mapOne(m, "energy_mj_total", gpu, 500 + 2 * 1'000'000, kT0 + 22 * kSecond);
        QCOMPARE(r.size(), 1u);
        QCOMPARE(r[0].value, 1000.0f);
        QCOMPARE(m.stats().mapped, 2u);
    }

    void counterPassThroughAndGaugeOrder() {
        importers::SeriesMapper m(rulesOf(file(R"(
            {"metric": "rack_leaks_total", "channel": "rack.LeakDetected", "entity": {"kind": "rack", "rack": ["rack"]}, "counter": true},
            {"metric": "gpu_util", "channel": "gpu.utilization", "entity": {"kind": "gpu"}})")),
                                  *m_demo);
        auto a = mapOne(m, "rack_leaks_total", {{"rack", "A01"}}, 3, kT0);
        auto b = mapOne(m, "rack_leaks_total", {{"rack", "A01"}}, 2,
                        kT0 + kSecond); // not a rate: passes as is
        QCOMPARE(a.size(), 1u);
        QCOMPARE(b.size(), 1u);
        QCOMPARE(b[0].value, 2.0f);
        // Two series feeding one channel and entity at the same instant: the second is a duplicate.
        QCOMPARE(mapOne(m, "gpu_util", {{"Hostname", "a01-n01"}, {"gpu", "0"}}, 50, kT0).size(),
                 1u);
        QVERIFY(mapOne(m, "gpu_util",
                       {{"hostname", "a01-n01"}, {"gpu", "0"}, {"job", "second-exporter"}}, 51, kT0)
                    .empty());
        QCOMPARE(m.stats().outOfOrder, 1u);
    }

    void invalidValuesDrop() {
        importers::SeriesMapper m(
            rulesOf(file(R"({"metric": "DCGM_FI_DEV_GPU_TEMP", "channel": "gpu.temperature",
            "entity": {"kind": "gpu"}, "valid": [-40, 200]})")),
            *m_demo);
        const std::initializer_list<Label> gpu{{"hostname", "a01-n01"}, {"gpu", "0"}};
        QVERIFY(mapOne(m, "DCGM_FI_DEV_GPU_TEMP", gpu, 9223372036854775794.0, kT0)
                    .empty()); // DCGM blank
        QVERIFY(mapOne(m, "DCGM_FI_DEV_GPU_TEMP", gpu, std::nan(""), kT0 + kSecond)
                    .empty()); // stale marker
        QCOMPARE(m.stats().invalid, 2u);
        QCOMPARE(mapOne(m, "DCGM_FI_DEV_GPU_TEMP", gpu, 65, kT0 + 2 * kSecond).size(), 1u);
    }

    void unmappedCounting() {
        importers::SeriesMapper m(
            rulesOf(file(
                R"({"metric": "DCGM_FI_DEV_GPU_TEMP", "channel": "gpu.temperature", "entity": {"kind": "gpu"}})")),
            *m_demo);
        for (int scrape = 0; scrape < 3; ++scrape) {
            const model::TimeNs t = kT0 + static_cast<model::TimeNs>(scrape) * 15 * kSecond;
            mapOne(m, "DCGM_FI_DEV_FB_USED", {{"hostname", "a01-n01"}, {"gpu", "0"}}, 1, t);
            mapOne(m, "DCGM_FI_DEV_FB_USED", {{"hostname", "a01-n01"}, {"gpu", "1"}}, 1, t);
            mapOne(m, "DCGM_FI_DEV_XID_ERRORS", {{"hostname", "a01-n01"}, {"gpu", "0"}}, 0, t);
            mapOne(m, "DCGM_FI_DEV_GPU_TEMP", {{"hostname", "a01-n01"}, {"gpu", "0"}}, 60, t);
            // Matches the metric but lacks the gpu label: a rule knows it, but nothing says
            // which GPU it is (unresolved, with that reason).
            mapOne(m, "DCGM_FI_DEV_GPU_TEMP", {{"hostname", "a01-n01"}}, 60, t);
        }
        QCOMPARE(m.stats().mapped, 3u);
        QCOMPARE(m.stats().unmapped, 9u);
        QCOMPARE(m.stats().unresolved, 3u);
        QCOMPARE(m.stats().series, 5u); // every later scrape was a cache hit
        const auto top = m.topUnmapped(2);
        QCOMPARE(top.size(), 2u);
        QCOMPARE(top[0].name, std::string("DCGM_FI_DEV_FB_USED"));
        QCOMPARE(top[0].count, 6u);
        QCOMPARE(top[1].name, std::string("DCGM_FI_DEV_XID_ERRORS"));
        QCOMPARE(top[1].count, 3u);
        const auto why = m.topUnresolved(1);
        QCOMPARE(why.size(), 1u);
        QCOMPARE(why[0].name, std::string("no labels that name its gpu"));
        QCOMPARE(why[0].count, 3u);
    }

    void unresolvedHosts() {
        importers::SeriesMapper m(
            rulesOf(file(
                R"({"metric": "DCGM_FI_DEV_GPU_TEMP", "channel": "gpu.temperature", "entity": {"kind": "gpu"}})")),
            *m_demo);
        for (int i = 0; i < 2; ++i) {
            mapOne(m, "DCGM_FI_DEV_GPU_TEMP", {{"Hostname", "424773df46e0"}, {"gpu", "0"}}, 25,
                   kT0 + i * kSecond);
            mapOne(m, "DCGM_FI_DEV_GPU_TEMP", {{"Hostname", "424773df46e0"}, {"gpu", "1"}}, 25,
                   kT0 + i * kSecond);
        }
        mapOne(m, "DCGM_FI_DEV_GPU_TEMP", {{"Hostname", "z99-n01"}, {"gpu", "0"}}, 25);
        mapOne(m, "DCGM_FI_DEV_GPU_TEMP", {{"Hostname", "a01-n01"}, {"gpu", "7"}},
               25); // the tray has 4
        QCOMPARE(m.stats().unresolved, 6u);
        QCOMPARE(m.stats().mapped, 0u);
        const auto top = m.topUnresolved(10);
        QCOMPARE(top.size(), 3u);
        QCOMPARE(top[0].name, std::string("424773df46e0"));
        QCOMPARE(top[0].count, 4u);
        QVERIFY(top[1].name == "a01-n01: more GPUs than its tray's 4" ||
                top[2].name == "a01-n01: more GPUs than its tray's 4");
        // Unknown hosts by name (a GPU index past the tray is not an unknown host).
        const auto hosts = m.topUnknownHosts(10);
        QCOMPARE(hosts.size(), 2u);
        QCOMPARE(hosts[0].name, std::string("424773df46e0"));
        QCOMPARE(hosts[0].count, 4u);
        QCOMPARE(hosts[1].name, std::string("z99-n01"));
        QCOMPARE(hosts[1].count, 1u);
    }

    void nearestHostNames() {
        using importers::normalizeHostName;
        QCOMPARE(normalizeHostName("GPU-Node-0001.ams1.example.net:9400"),
                 std::string("gpu-node-1"));
        QCOMPARE(normalizeHostName("a03-n002"), std::string("a3-n2"));
        QCOMPARE(normalizeHostName("r10-00"), std::string("r10-0"));
        QCOMPARE(normalizeHostName("10.20.0.11:9400"), std::string("10.20.0.11"));
        QCOMPARE(importers::boundedEditDistance("kitten", "sitting", 5), std::size_t{3});
        QCOMPARE(importers::boundedEditDistance("kitten", "sitting", 2), std::size_t{3});
        importers::HostSuggester s(*m_demo); // hosts a01-n01 ... p01-n18 style
        const std::string host = m_demo->hostName(5);
        // A zero-padding difference and a domain: the exact host, alone.
        std::string padded = host;
        padded.insert(padded.size() - 2, "0");
        const auto& exact = s.suggest(padded + ".cluster.local");
        QCOMPARE(exact.size(), std::size_t{1});
        QCOMPARE(exact.front(), host);
        // One slip: the hosts one edit away.
        std::string typo = host;
        typo[0] = typo[0] == 'x' ? 'y' : 'x';
        const auto& near = s.suggest(typo);
        QVERIFY(!near.empty());
        QVERIFY(std::ranges::find(near, host) != near.end());
        // Nothing alike: no suggestion rather than a wild guess.
        QVERIFY(s.suggest("login-node-frontend").empty());
    }

    void labelMatchers() {
        importers::SeriesMapper m(rulesOf(file(R"(
            {"metric": "temp", "channel": "gpu.temperature", "entity": {"kind": "gpu"}, "match": {"sensor": "die", "job": "!dev-*"}},
            {"metric": "temp", "channel": "cpu.temperature", "entity": {"kind": "cpu", "name": ["cpu"]}, "match": {"gpu": ""}})")),
                                  *m_demo);
        QCOMPARE(mapOne(m, "temp",
                        {{"hostname", "a01-n01"}, {"gpu", "0"}, {"sensor", "die"}, {"job", "dcgm"}},
                        60)
                     .size(),
                 1u);
        QVERIFY(
            mapOne(m, "temp",
                   {{"hostname", "a01-n01"}, {"gpu", "1"}, {"sensor", "die"}, {"job", "dev-test"}},
                   60)
                .empty());
        QVERIFY(mapOne(m, "temp", {{"hostname", "a01-n01"}, {"gpu", "2"}, {"sensor", "memory"}}, 60)
                    .empty());
        auto cpu = mapOne(m, "temp", {{"cpu", "A01 tray 01 CPU 1"}}, 55);
        QCOMPARE(cpu.size(), 1u);
        QCOMPARE(cpu[0].channel, model::ChannelId(model::ch::CpuTemperature));
        QCOMPARE(nameOf(model::EntityKind::Cpu, cpu[0].entity), std::string("A01 tray 01 CPU 1"));
    }

    void entityKinds() {
        importers::SeriesMapper m(rulesOf(file(R"(
            {"metric": "rack_power_kw", "channel": "rack.power", "entity": {"kind": "rack", "rack": ["rack"]}},
            {"metric": "rack_power_kw", "channel": "rack.power", "entity": {"kind": "rack"}},
            {"metric": "cdu_supply_c", "channel": "cdu.SupplyTemperatureCelsius", "entity": {"kind": "cdu", "cdu": ["cdu"]}},
            {"metric": "pump_speed", "channel": "pump.PumpSpeedPercent", "entity": {"kind": "pump", "cdu": ["cdu"], "pump": ["pump=P{pump}"]}},
            {"metric": "tray_power", "channel": "compute_tray.power", "entity": {"kind": "compute_tray"}})")),
                                  *m_demo);
        auto byName = mapOne(m, "rack_power_kw", {{"rack", "b04"}}, 120);
        auto byHost = mapOne(m, "rack_power_kw", {{"hostname", "a05-n11"}}, 121);
        auto cdu = mapOne(m, "cdu_supply_c", {{"cdu", "CDU B1"}}, 45);
        auto cduShort = mapOne(m, "cdu_supply_c", {{"cdu", "A1"}}, 45);
        auto pump = mapOne(m, "pump_speed", {{"cdu", "B1"}, {"pump", "P2"}}, 60);
        auto tray = mapOne(m, "tray_power", {{"hostname", "b02-n03"}}, 6000);
        for (const auto* s : {&byName, &byHost, &cdu, &cduShort, &pump, &tray})
            QCOMPARE(s->size(), 1u);
        QCOMPARE(nameOf(model::EntityKind::Rack, byName[0].entity), std::string("B04"));
        QCOMPARE(nameOf(model::EntityKind::Rack, byHost[0].entity), std::string("A05"));
        QCOMPARE(nameOf(model::EntityKind::Cdu, cdu[0].entity), std::string("CDU B1"));
        QCOMPARE(nameOf(model::EntityKind::Cdu, cduShort[0].entity), std::string("CDU A1"));
        QCOMPARE(nameOf(model::EntityKind::Pump, pump[0].entity), std::string("CDU B1 pump 2"));
        QCOMPARE(nameOf(model::EntityKind::ComputeTray, tray[0].entity),
                 std::string("B02 tray 03"));
        QVERIFY(mapOne(m, "pump_speed", {{"cdu", "B1"}, {"pump", "P3"}}, 60)
                    .empty()); // two pumps per CDU
        QCOMPARE(m.stats().unresolved, 1u);
    }

    void fallbackAndContinue() {
        // Power from POWER_USAGE; from the energy counter only while POWER_USAGE is silent.
        importers::SeriesMapper m(rulesOf(file(R"(
            {"metric": "power_w", "channel": "gpu.power", "entity": {"kind": "gpu"}},
            {"metric": "energy_mj", "channel": "gpu.power", "entity": {"kind": "gpu"}, "rate": true, "scale": 0.001, "fallback": true},
            {"metric": "both", "channel": "gpu.utilization", "entity": {"kind": "gpu"}, "continue": true},
            {"metric": "both", "channel": "gpu.sm_clock", "entity": {"kind": "gpu"}})")),
                                  *m_demo);
        const std::initializer_list<Label> gpu{{"hostname", "a01-n01"}, {"gpu", "0"}};
        QVERIFY(mapOne(m, "energy_mj", gpu, 0, kT0).empty()); // primes
        QCOMPARE(mapOne(m, "energy_mj", gpu, 10'000'000, kT0 + 10 * kSecond).size(), 1u);
        QCOMPARE(mapOne(m, "power_w", gpu, 990, kT0 + 11 * kSecond).size(), 1u);
        QVERIFY(mapOne(m, "energy_mj", gpu, 20'000'000, kT0 + 20 * kSecond).empty());
        QCOMPARE(m.stats().fallbackSuppressed, 1u);
        // Long after the primary went quiet the fallback speaks again.
        const model::TimeNs later =
            kT0 + 11 * kSecond + importers::SeriesMapper::kFallbackHoldNs + kSecond;
        QCOMPARE(mapOne(m, "energy_mj", gpu, 30'000'000, later).size(), 1u);

        auto both = mapOne(m, "both", gpu, 42, kT0);
        QCOMPARE(both.size(), 2u);
        QCOMPARE(both[0].channel, model::ChannelId(model::ch::GpuUtilization));
        QCOMPARE(both[1].channel, model::ChannelId(model::ch::GpuSmClock));
    }

    void nvlinkAndFabricLinks() {
        importers::SeriesMapper m(rulesOf(file(R"(
            {"metric": "DCGM_FI_PROF_NVLINK_L{link}_TX_BYTES", "channel": "nvlink_link.tx", "entity": {"kind": "nvlink_link"}, "scale": 1e-9},
            {"metric": "nic_tx_bytes_total", "channel": "fabric_link.tx", "entity": {"kind": "fabric_link", "nic": ["device=mlx5_{nic}"]},
             "rate": true, "scale": 1e-9},
            {"metric": "port_out_octets", "channel": "fabric_link.tx", "to_end_channel": "fabric_link.rx",
             "entity": {"kind": "fabric_link", "leaf": ["switch=leaf-p*-r{rail}-{leaf}", "switch"], "port": ["port=swp{port}"],
                        "index_base": {"port": 1}}})")),
                                  *m_demo);
        auto link = mapOne(m, "DCGM_FI_PROF_NVLINK_L3_TX_BYTES",
                           {{"hostname", "a03-n02"}, {"gpu", "1"}}, 150e9);
        QCOMPARE(link.size(), 1u);
        QCOMPARE(nameOf(model::EntityKind::NvlinkLink, link[0].entity),
                 std::string("A03 tray 02 GPU 1 <-> NVSwitch 4"));
        QCOMPARE(link[0].value, 150.0f);
        QVERIFY(
            mapOne(m, "DCGM_FI_PROF_NVLINK_L9_TX_BYTES", {{"hostname", "a03-n02"}, {"gpu", "1"}}, 1)
                .empty()); // 9 switch trays

        const std::initializer_list<Label> nic{{"hostname", "a03-n02"}, {"device", "mlx5_5"}};
        QVERIFY(mapOne(m, "nic_tx_bytes_total", nic, 0, kT0).empty());
        auto tx = mapOne(m, "nic_tx_bytes_total", nic, 500e9, kT0 + 10 * kSecond);
        QCOMPARE(tx.size(), 1u);
        QCOMPARE(tx[0].value, 50.0f);
        QCOMPARE(tx[0].entity, m_demo->find(model::EntityKind::Nic, "A03 tray 02 NIC 5").value());

        // The leaf's NIC-facing port 1 + tray is where that NIC lands; out of it is the link's rx.
        const model::EntityId leaf = m_demo->nics.leaf[tx[0].entity];
        const std::string leafName = nameOf(model::EntityKind::Leaf, leaf);
        const model::EntityId trayId = m_demo->gpus.tray[m_demo->nics.gpu[tx[0].entity]];
        const std::string port = "swp" + std::to_string(trayId + 1);
        auto down = mapOne(m, "port_out_octets", {{"switch", leafName}, {"port", port}}, 7);
        QCOMPARE(down.size(), 1u);
        QCOMPARE(down[0].entity, tx[0].entity);
        QCOMPARE(down[0].channel, *model::findChannel("fabric_link.rx"));
        const auto rail = m_demo->leaves.rail[leaf];
        auto byHostname =
            mapOne(m, "port_out_octets",
                   {{"switch", "leaf-p1-r" + std::to_string(rail) + "-0"}, {"port", port}}, 8,
                   kT0 + kSecond);
        QCOMPARE(byHostname.size(), 1u);
        QCOMPARE(byHostname[0].entity, tx[0].entity);
        // An uplink port: the leaf -> spine bundle, measured at its 'from' end.
        const int uplink = m_demo->spec().fabric.switchRadix / 2 + 1;
        auto up = mapOne(m, "port_out_octets",
                         {{"switch", leafName}, {"port", "swp" + std::to_string(uplink)}}, 9);
        QCOMPARE(up.size(), 1u);
        QCOMPARE(m_demo->fabricLinks.kind[up[0].entity],
                 model::Topology::FabricLinkKind::LeafToSpine);
        QCOMPARE(m_demo->fabricLinks.from[up[0].entity], leaf);
        QCOMPARE(up[0].channel, *model::findChannel("fabric_link.tx"));
    }

    void presetsLoad() {
        for (const char* name : {"bms", "dcgm-exporter", "switch-ports"}) {
            const std::string path =
                std::string(FT_SOURCE_PATH("/resources/mappings/")) + name + ".json";
            auto rules = importers::loadMappingRules(path);
            QVERIFY2(rules, rules ? "" : rules.error().toString().c_str());
            QCOMPARE(rules->name, std::string(name));
            QVERIFY(!rules->rules.empty());
        }
    }

    void ruleFileErrors() {
        struct Case {
            std::string json;
            int line;
            std::string key;
            std::string says;
        };
        const std::vector<Case> cases{
            {"{\"rules\": [\n {\"metric\": \"m\",\n  \"channel\": \"gpu.temprature\", \"entity\": "
             "{\"kind\": \"gpu\", \"name\": [\"n\"]}}]}",
             3, "rules[0].channel", "unknown channel 'gpu.temprature'"},
            {"{\"rules\": [\n {\"metric\": \"m\", \"channel\": \"rack.power\",\n  \"entity\": "
             "{\"kind\": \"gpu\", \"name\": [\"n\"]}}]}",
             2, "rules[0].channel", "belongs to rack entities"},
            {"{\"rules\": [{\"metric\": \"m\", \"channel\": \"gpu.power\",\n \"entity\": "
             "{\"kind\": \"gpu\", \"host\": [\"h\"]}}]}",
             2, "rules[0].entity", "'host' and 'gpu'"},
            {"{\"rules\": [{\"metric\": \"m\", \"channel\": \"gpu.power\", \"entity\": {\"kind\": "
             "\"gpu\", \"name\": [\"n\"]},\n \"scael\": 2}]}",
             2, "rules[0].scael", "unknown key"},
            {"{\"rules\": [{\"metric\": \"m_{host\", \"channel\": \"gpu.power\", \"entity\": "
             "{\"kind\": \"gpu\", \"name\": [\"n\"]}}]}",
             1, "rules[0].metric", "not closed"},
            {"{\"rules\": [{\"metric\": \"m\", \"channel\": \"gpu.power\", \"entity\": {\"kind\": "
             "\"gpu\",\n \"host\": [\"instance={hostname}:*\"], \"gpu\": [\"gpu\"]}}]}",
             2, "rules[0].entity.host", "no '{host}' capture"},
            {"{\"rules\": [{\"metric\": \"m\", \"channel\": \"gpu.power\", \"entity\": {\"kind\": "
             "\"gpu\", \"name\": [\"n\"]},\n \"rate\": true, \"counter\": true}]}",
             2, "rules[0].rate", "not both"},
            {"{\"rules\": [{\"metric\": \"m\", \"channel\": \"gpu.power\", \"entity\": {\"kind\": "
             "\"gpus\", \"name\": [\"n\"]}}]}",
             1, "rules[0].entity.kind", "expected an entity kind"},
            {"{\"defaults\": {\"hots\": [\"h\"]},\n \"rules\": []}", 1, "defaults.hots",
             "unknown capture field"},
            {R"({"format": "floortwin-mapping/2", "rules": []})", 1, "format",
             "floortwin-mapping/1"},
            {"{\"rules\": [\n]}", 1, "rules", "non-empty array"},
            {"{\"rules\": [{\"metric\": \"m\",\n \"channel\": \"gpu.power\" \"entity\": {}}]}", 2,
             "", "expected ',' or '}'"},
        };
        for (const auto& c : cases) {
            const auto e = errorOf(c.json);
            const std::string what = e.toString();
            QVERIFY2(e.file == "bad.json", what.c_str());
            QVERIFY2(e.line == c.line, what.c_str());
            QVERIFY2(e.column > 0, what.c_str());
            QVERIFY2(e.key == c.key, what.c_str());
            QVERIFY2(e.message.find(c.says) != std::string::npos, what.c_str());
        }
        const auto missing = importers::loadMappingRules("/nonexistent/rules.json");
        QVERIFY(!missing);
        QCOMPARE(missing.error().file, std::string("/nonexistent/rules.json"));
    }

    void steadyScrapeIsCached() {
        importers::SeriesMapper m(
            rulesOf(file(
                R"({"metric": "DCGM_FI_DEV_GPU_UTIL", "channel": "gpu.utilization", "entity": {"kind": "gpu"}})")),
            *m_demo);
        std::vector<model::Sample> out;
        std::vector<std::string> hosts;
        for (model::EntityId t = 0; t < 18; ++t)
            hosts.push_back(m_demo->hostName(t));
        for (int scrape = 0; scrape < 50; ++scrape)
            for (const auto& h : hosts)
                for (const char* g : {"0", "1", "2", "3"}) {
                    const Label labels[] = {{"gpu", g}, {"Hostname", h}};
                    m.map("DCGM_FI_DEV_GPU_UTIL", labels, scrape,
                          kT0 + static_cast<model::TimeNs>(scrape) * 15 * kSecond, out);
                }
        QCOMPARE(out.size(), 50u * 18 * 4);
        QCOMPARE(m.stats().series, 18u * 4);
        m.clearCache();
        QCOMPARE(m.stats().series, 0u);
    }

    void seriesTextIsTheKey() {
        // Parsed text is keyed on the series as written: the same text is one entry; the same
        // series written another way (label order, an escape) is another entry with the same
        // answer, so its samples land on the same GPU and keep their order there.
        importers::SeriesMapper m(
            rulesOf(file(
                R"({"metric": "DCGM_FI_DEV_GPU_TEMP", "channel": "gpu.temperature", "entity": {"kind": "gpu"}})")),
            *m_demo);
        const std::string host = m_demo->hostName(2);
        // One sample of GPU 1 of `host` with its labels in the order and spacing given.
        auto page = [&](bool hostFirst, const char* comma, int value) {
            const std::string gpu = R"(gpu="1")", hostLabel = "Hostname=" + std::string(1, '"') +
                                                              host + std::string(1, '"');
            return "DCGM_FI_DEV_GPU_TEMP{" + (hostFirst ? hostLabel : gpu) + comma +
                   (hostFirst ? gpu : hostLabel) + "} " + std::to_string(value) + "\n";
        };
        const std::string pages[] = {page(false, ",", 40), page(false, ",", 41),
                                     page(true, ",", 42), page(true, ", ", 43)};
        struct Sink final : importers::prom::SampleSink {
            importers::SeriesMapper& mapper;
            model::TimeNs time;
            std::vector<model::Sample> out;
            Sink(importers::SeriesMapper& m, model::TimeNs t) : mapper(m), time(t) {}
            void sample(const importers::prom::Sample& s) override {
                QVERIFY(!s.series.empty());
                mapper.map(s, time, out);
            }
        };
        std::vector<model::Sample> all;
        for (std::size_t i = 0; i < std::size(pages); ++i) {
            Sink sink(m, kT0 + static_cast<model::TimeNs>(i) * 15 * kSecond);
            importers::prom::parse(pages[i], sink);
            all.insert(all.end(), sink.out.begin(), sink.out.end());
        }
        QCOMPARE(all.size(), std::size(pages));
        const auto gpu = all.front().entity;
        for (std::size_t i = 0; i < all.size(); ++i) {
            QCOMPARE(all[i].entity, gpu);
            QCOMPARE(all[i].value, 40.0f + static_cast<float>(i));
        }
        QCOMPARE(m.stats().series, 3u); // three spellings
        // An older sample under another spelling is still out of order for that GPU.
        Sink late(m, kT0);
        importers::prom::parse(pages[2], late);
        QVERIFY(late.out.empty());
        QCOMPARE(m.stats().outOfOrder, 1u);
    }
};

QTEST_APPLESS_MAIN(TestMapping)
#include "test_mapping.moc"
