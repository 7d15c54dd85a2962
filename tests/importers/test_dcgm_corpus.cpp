// dcgm-exporter as it runs on real floors: twelve real exporter pages (L4, L40S, T4, vGPU A100,
// MIG A100, 8x H100 on EKS, 4x GB200, Datadog's fixture) and real Prometheus answers through
// kube-prometheus, from the shared corpus (../shared/real-world), read through the bundled
// rules onto a floor whose inventory names their hosts. Pinned per page: every metric family
// feeds a channel or is ignored with a reason, and every sample not placed says why. Labelled
// `corpus`: a clone without the corpus skips with one line (CI=true fails instead).
#include "importers/floor/floor_file.h"
#include "importers/formats/prometheus_text.h"
#include "importers/mapping/mapping_rules.h"
#include "importers/mapping/series_mapper.h"
#include "support/requirement.h"
#include "support/test_floors.h"
#include "support/test_paths.h"

#include <QDir>
#include <QTest>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace ft;
using importers::FamilyReport;

namespace {

QString realWorld() {
    return ft::testing::corpusDir() + QStringLiteral("/real-world");
}

std::string readCorpus(const QString& relative) {
    const QString path = realWorld() + "/" + relative;
    std::ifstream in(path.toStdString(), std::ios::binary);
    if (!in) qFatal("cannot read corpus file %s", qPrintable(path));
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The hosts the pages name, one per compute tray of two generated racks (trays of 4 GPUs, as
// on an NVL72 tray).
const char* const kHosts[] = {
    "424773df46e0",      "551bdf382151",     "conformance-test-np1-qcqc8-bpdtl-wv2gs",
    "cp-bm14r7",         "gpu1-wl8sg",       "i-030791dc5a37cd257",
    "ip-10-200-3-41",    "ip-100-64-135-20", "ip-100-64-147-149",
    "ip-100-64-171-120", "ip-11111",         "test-ai-1-node-pool-40c-d5ds8-br9r6-9tb2c",
    "ub20-a100-k8s",     "ip-10-0-171-111",  "ip-10-0-206-2"};

std::shared_ptr<const model::Topology> inventoryFloor() {
    model::FloorSpec spec = importers::generateFloor(2);
    const auto bare = ft::testing::floorOf(spec);
    int tray = 0;
    for (const char* host : kHosts) {
        model::HostSpec h;
        h.name = host;
        h.rack = bare->racks.name[0];
        h.tray = ++tray;
        spec.hosts.push_back(h);
    }
    return ft::testing::floorOf(spec);
}

struct PageResult {
    std::uint64_t samples = 0;
    std::map<std::string, FamilyReport, std::less<>> families;
    importers::MapperStats stats;
    std::vector<importers::NameCount> unresolved;
};

class Sink final : public importers::prom::SampleSink {
public:
    explicit Sink(importers::SeriesMapper& m) : m_mapper(m) {}
    void sample(const importers::prom::Sample& s) override {
        ++samples;
        m_out.clear();
        m_mapper.map(s, 1'796'020'421LL * model::kNsPerSecond, m_out);
    }
    std::uint64_t samples = 0;

private:
    importers::SeriesMapper& m_mapper;
    std::vector<model::Sample> m_out;
};

} // namespace

class TestDcgmCorpus : public QObject {
    Q_OBJECT
    std::shared_ptr<const model::Topology> m_floor;

    PageResult read(const char* file) {
        auto rules =
            importers::loadMappingRules(FT_SOURCE_PATH("/resources/mappings/dcgm-exporter.json"));
        if (!rules) qFatal("%s", rules.error().toString().c_str());
        importers::SeriesMapper mapper(std::move(*rules), *m_floor);
        mapper.keepFamilyReport(true);
        Sink sink(mapper);
        importers::prom::parse(readCorpus(QString("dcgm/") + file), sink);
        return {sink.samples, mapper.familyReport(), mapper.stats(), mapper.topUnresolved(10)};
    }

private slots:
    void initTestCase() {
        FT_REQUIRE(QDir(realWorld() + "/dcgm").exists(),
                   "the shared corpus (../shared/real-world/dcgm)", "../shared beside the clone");
        m_floor = inventoryFloor();
    }

    // Every family of every page feeds a channel or is ignored with its reason; nothing is
    // left without a rule.
    void everyFamilyMeansSomething() {
        std::set<std::string> families, placed, ignored;
        const QStringList pages = QDir(realWorld() + "/dcgm").entryList(QDir::Files);
        QCOMPARE(pages.size(), 12);
        for (const QString& page : pages) {
            const PageResult r = read(page.toUtf8().constData());
            QVERIFY2(r.samples > 0, qPrintable(page));
            QCOMPARE(r.stats.unmapped, 0u);
            for (const auto& [name, f] : r.families) {
                families.insert(name);
                QVERIFY2(f.noRule == 0, (page.toStdString() + ": " + name).c_str());
                if (!f.channels.empty()) placed.insert(name);
                if (f.ignored > 0) {
                    ignored.insert(name);
                    QVERIFY(!f.ignoredWhy.empty());
                }
            }
        }
        qInfo("%zu families: %zu feed channels, %zu ignored with a reason", families.size(),
              placed.size(), ignored.size());
        QCOMPARE(families.size(), std::size_t{38});
        // Families only ignored: the fan, the device count, the vGPU licence.
        std::set<std::string> onlyIgnored;
        for (const auto& name : ignored)
            if (!placed.contains(name)) onlyIgnored.insert(name);
        QCOMPARE(onlyIgnored, (std::set<std::string>{"DCGM_FI_DEV_COUNT", "DCGM_FI_DEV_FAN_SPEED",
                                                     "DCGM_FI_DEV_VGPU_LICENSE_STATUS"}));
        // Five profiling fields come only as Datadog's unlabelled dummies: no GPU to place
        // them on (unlabelledSamplesSayWhy); every other family feeds a channel.
        QCOMPARE(placed.size(), std::size_t{30});
        for (const char* dummy : {"DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_PROF_SM_OCCUPANCY",
                                  "DCGM_FI_PROF_PIPE_FP64_ACTIVE", "DCGM_FI_PROF_PIPE_FP32_ACTIVE",
                                  "DCGM_FI_PROF_PIPE_FP16_ACTIVE"})
            QVERIFY2(!placed.contains(dummy) && !ignored.contains(dummy), dummy);
    }

    // Four GB200 GPUs on one host, each placed by host and index.
    void gb200HostFillsItsTray() {
        const PageResult r = read("aicr-fork-eks-gb200-ip-100-64-135-20.sampled.prom");
        QCOMPARE(r.samples, 24u);
        for (const auto& [name, f] : r.families) {
            QCOMPARE(f.placed, f.samples);
            QCOMPARE(f.placedBy.at("host and index"), f.samples);
        }
        QCOMPARE(r.families.at("DCGM_FI_DEV_FB_FREE").channels,
                 std::set<model::ChannelId>{model::ch::GpuMemoryFree});
    }

    // An 8-GPU H100 host on a tray of 4: GPUs 4-7 are not placed, and the reason names the host.
    void eightGpusOnATrayOfFourSayWhy() {
        const PageResult r = read("aicr-eks-h100-ip-100-64-147-149.sampled.prom");
        QCOMPARE(r.samples, 30u);
        QCOMPARE(r.stats.unresolved, 14u);
        QCOMPARE(r.unresolved.size(), 1u);
        QCOMPARE(r.unresolved[0].name,
                 std::string("ip-100-64-147-149.ec2.internal: more GPUs than its tray's 4"));
        // GPU 2 runs a workload: the job is its pod.
        QCOMPARE(r.stats.exporterPodSeries, 0u);
    }

    // The MIG page: the instance's series stay off the parent GPU, with the reason.
    // The MIG page's instance series (GPU_I_ID 13, 1g.5gb) are a slice of their GPU: placed,
    // never over the GPU's own values.
    void migInstancesAreSlicesOfTheirGpu() {
        const PageResult r = read("nvidia-docs-a100-mig.prom");
        QCOMPARE(r.samples, 21u);
        const FamilyReport& gr = r.families.at("DCGM_FI_PROF_GR_ENGINE_ACTIVE");
        QCOMPARE(gr.samples, 2u);
        QCOMPARE(gr.placed, 2u);
        QCOMPARE(gr.ignored, 0u);
        QCOMPARE(gr.placedBy.at("MIG instance of its GPU"), 1u);
        QCOMPARE(r.families.at("DCGM_FI_DEV_MEMORY_TEMP").placed, 1u); // 69 °C: an HBM sensor
    }

    // Boards without an HBM sensor report 0: not a temperature, and said so.
    void memoryTemperatureZeroIsNoReading() {
        const PageResult r = read("cncf-aic-kops-l4.prom");
        const FamilyReport& t = r.families.at("DCGM_FI_DEV_MEMORY_TEMP");
        QCOMPARE(t.placed, 0u);
        QCOMPARE(t.invalid, t.samples);
    }

    // Datadog's fixture has samples with no labels at all: nothing to place them by.
    void unlabelledSamplesSayWhy() {
        const PageResult r = read("datadog-dcgm-fixture-metrics.txt");
        QCOMPARE(r.unresolved.size(), 1u);
        QCOMPARE(r.unresolved[0].name, std::string("no labels that name its gpu"));
        QCOMPARE(r.unresolved[0].count, 13u);
    }

    // Prometheus' answers through kube-prometheus: the exporter pod's own labels on every GPU
    // without a workload are no job; the one GPU with a workload has its pod as the job.
    void kubePrometheusAnswersNameOnlyWorkloads() {
        const auto answer =
            nlohmann::json::parse(readCorpus("prometheus-api/aicr-eks-2xh100-query-fb_used.json"));
        auto rules =
            importers::loadMappingRules(FT_SOURCE_PATH("/resources/mappings/dcgm-exporter.json"));
        QVERIFY(rules);
        importers::SeriesMapper mapper(std::move(*rules), *m_floor);
        std::vector<model::Sample> out;
        std::size_t series = 0;
        for (const auto& r : answer["data"]["result"]) {
            // The labels are views: their strings live here.
            std::vector<std::pair<std::string, std::string>> text;
            for (const auto& [k, v] : r["metric"].items())
                text.emplace_back(k, v.get<std::string>());
            std::vector<importers::prom::Label> labels;
            std::string metric;
            for (const auto& [k, v] : text)
                if (k == "__name__")
                    metric = v;
                else
                    labels.push_back({k, v});
            mapper.map(metric, labels, std::stod(r["value"][1].get<std::string>()),
                       1'796'020'421LL * model::kNsPerSecond, out);
            ++series;
        }
        QCOMPARE(series, std::size_t{16});
        // Two 8-GPU hosts on trays of 4: GPUs 0-3 of each are placed, seven of them idle (the
        // exporter pod's labels) and one running the workload.
        QCOMPARE(mapper.stats().unresolved, 8u);
        QCOMPARE(mapper.stats().exporterPodSeries, 7u);
        std::size_t withJob = 0;
        for (const auto& [gpu, job] : mapper.takeGpuJobs())
            if (!job.empty()) {
                ++withJob;
                QVERIFY2(job.starts_with("dynamo-workload/"), job.c_str());
            }
        QCOMPARE(withJob, std::size_t{1});
    }
};

QTEST_GUILESS_MAIN(TestDcgmCorpus)
#include "test_dcgm_corpus.moc"
