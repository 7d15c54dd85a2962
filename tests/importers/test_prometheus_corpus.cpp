// Prometheus text / OpenMetrics parser on real third-party files from the shared corpus
// (../shared/data/prometheus: the exposition format docs' example, Prometheus' own textparse and
// promtool test data; ../shared/data/dcgm/datadog-fixtures: Datadog's dcgm-exporter scrapes),
// each read as it is, quirks included, and what it yields pinned. Labelled `corpus`: a clone
// without the corpus skips with one line (CI=true fails instead); FT_CORPUS_DIR points at a
// corpus elsewhere. The parser's behaviours are tested on the project's own fixtures by
// test_prometheus_text.
#include "importers/formats/prometheus_text.h"
#include "support/prometheus_collector.h"
#include "support/requirement.h"

#include <QDir>
#include <QTest>
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>

using namespace ft::importers::prom;
using namespace ft::testing::prom_text;

namespace {

QString prometheusDir() {
    return ft::testing::corpusDir() + QStringLiteral("/data/prometheus");
}
QString dcgmDir() {
    return ft::testing::corpusDir() + QStringLiteral("/data/dcgm");
}

// "prometheus/..." or "dcgm/..." under the corpus' data folder; a file the corpus lacks stops
// the run (the folder itself was checked in initTestCase).
std::string readData(const char* relative) {
    const QString path = ft::testing::corpusDir() + "/data/" + QString::fromUtf8(relative);
    std::ifstream in(path.toStdString(), std::ios::binary);
    if (!in) qFatal("cannot read corpus file %s", qPrintable(path));
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

class TestPrometheusCorpus : public QObject {
    Q_OBJECT

    static Collector run(std::string_view text, Format format = Format::Auto,
                         ParseStats* stats = nullptr) {
        Collector c;
        const ParseStats s = parse(text, c, format);
        if (stats) *stats = s;
        return c;
    }

private slots:
    void initTestCase() {
        FT_REQUIRE(QDir(prometheusDir()).exists(), "the shared corpus (../shared/data/prometheus)",
                   "the shared folder beside the checkout, or FT_CORPUS_DIR set to where it is");
        FT_REQUIRE(QDir(dcgmDir()).exists(), "the shared corpus (../shared/data/dcgm)",
                   "the shared folder beside the checkout, or FT_CORPUS_DIR set to where it is");
    }

    // The official example: escapes, timestamps (one before the epoch), +Inf, a histogram, a
    // summary, and the documentation's erratum line, a UTF-8 name with no value.
    void exampleFromTheDocs() {
        ParseStats st;
        const Collector c = run(readData("prometheus/example.prom"), Format::Auto, &st);
        QCOMPARE(c.samples.size(), 20u);
        QCOMPARE(st.samples, 20u);
        QCOMPARE(st.lines, 39u);
        QCOMPARE(st.families, 3u);
        QCOMPARE(st.scrapes, 1u);
        QVERIFY(!st.openMetrics);
        QVERIFY(!st.sawEof);
        QCOMPARE(c.scrapes, 1);

        QCOMPARE(c.errors.size(), 1u);
        QCOMPARE(c.errors[0].line, 10);
        QCOMPARE(c.errors[0].column, 50); // just past the closing brace, where the value belongs
        QVERIFY2(c.errors[0].message.find("sample value") != std::string::npos,
                 c.errors[0].message.c_str());
        QCOMPARE(c.errors[0].text,
                 std::string(R"({"my.dotted.metric", "error.message"="Not Found"})"));
        QCOMPARE(st.errors, 1u);

        const Rec& post200 = c.find("http_requests_total", "code", "200");
        QCOMPARE(post200.family, "http_requests_total");
        QCOMPARE(post200.type, MetricType::Counter);
        QCOMPARE(post200.value, 1027.0);
        QCOMPARE(post200.ts, std::optional<std::int64_t>(1395066363000LL * 1'000'000));
        QCOMPARE(post200.line, 3);
        QCOMPARE(c.find("http_requests_total", "code", "400").value, 3.0);

        const Rec& msdos = c.find("msdos_file_access_time_seconds");
        QCOMPARE(msdos.label("path"), R"(C:\DIR\FILE.TXT)");
        QCOMPARE(msdos.label("error"), "Cannot find file:\n\"FILE.TXT\"");
        QVERIFY(sameBits(msdos.value, 1.458255915e9));
        QCOMPARE(msdos.type, MetricType::Unknown);
        QCOMPARE(msdos.family, "msdos_file_access_time_seconds");
        QVERIFY(!msdos.ts);

        const Rec& minimal = c.find("metric_without_timestamp_and_labels");
        QVERIFY(minimal.labels.isEmpty());
        QVERIFY(sameBits(minimal.value, 12.47));
        QVERIFY(!minimal.ts);

        const Rec& weird = c.find("something_weird");
        QCOMPARE(weird.label("problem"), "division by zero");
        QVERIFY(std::isinf(weird.value) && weird.value > 0);
        QCOMPARE(weird.ts, std::optional<std::int64_t>(-3982045LL * 1'000'000));

        const Rec& inf = c.find("http_request_duration_seconds_bucket", "le", "+Inf");
        QCOMPARE(inf.value, 144320.0);
        QCOMPARE(inf.family, "http_request_duration_seconds");
        QCOMPARE(inf.type, MetricType::Histogram);
        QCOMPARE(c.find("http_request_duration_seconds_count").family,
                 "http_request_duration_seconds");
        QCOMPARE(c.find("http_request_duration_seconds_sum").value, 53423.0);

        const Rec& q = c.find("rpc_duration_seconds", "quantile", "0.99");
        QCOMPARE(q.value, 76656.0);
        QCOMPARE(q.type, MetricType::Summary);
        QCOMPARE(c.find("rpc_duration_seconds_sum").family, "rpc_duration_seconds");
        QVERIFY(sameBits(c.find("rpc_duration_seconds_sum").value, 1.7560473e+07));

        QCOMPARE(c.families.size(), 3u);
        QCOMPARE(c.families[0].name, "http_requests_total");
        QCOMPARE(c.families[0].help, "The total number of HTTP requests.");
        QCOMPARE(c.families[1].type, MetricType::Histogram);
        QCOMPARE(c.families[2].help, "A summary of the RPC duration in seconds.");
        // Each family is announced before its first sample.
        QVERIFY(c.events.indexOf("F http_requests_total") <
                c.events.indexOf("S http_requests_total"));
        QVERIFY(c.events.indexOf("F rpc_duration_seconds") <
                c.events.indexOf("S rpc_duration_seconds"));
        QCOMPARE(c.events.last(), "E");
    }

    // A real dcgm-exporter scrape: 38 families, empty HELP texts, label-less samples, a 15-label
    // sample, and no newline after the last line.
    void dcgmExporterScrape() {
        const std::string text = readData("dcgm/datadog-fixtures/metrics.txt");
        QVERIFY(text.back() != '\n');
        ParseStats st;
        const Collector c = run(text, Format::Auto, &st);
        QVERIFY2(c.errors.empty(), qPrintable(c.errorList()));
        QCOMPARE(c.samples.size(), 38u);
        QCOMPARE(c.families.size(), 38u);
        QCOMPARE(st.lines, 116u);
        QCOMPARE(st.scrapes, 1u);

        const Rec& first = c.samples.front();
        QCOMPARE(first.name, "DCGM_FI_DEV_SM_CLOCK");
        QCOMPARE(first.line, 3);
        QCOMPARE(first.labels.size(), 7);
        QCOMPARE(first.labels[0], qMakePair(QByteArray("gpu"), QByteArray("0")));
        QCOMPARE(first.label("UUID"), "GPU-20c56d28-0da5-6d26-a36a-e7af1ce2586e");
        QCOMPARE(first.label("modelName"), "Tesla T4");
        QCOMPARE(first.label("DCGM_FI_PROCESS_NAME"), "/usr/bin/dcgm-exporter");
        QCOMPARE(first.value, 300.0);
        QCOMPARE(first.type, MetricType::Gauge);

        QVERIFY(sameBits(c.find("DCGM_FI_DEV_POWER_USAGE").value, 8.969));
        QCOMPARE(c.find("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION").type, MetricType::Counter);
        QCOMPARE(c.find("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION").value, 128996013.0);
        QVERIFY(sameBits(c.find("DCGM_FI_DEV_FB_USED_PERCENT").value, 0.000008));
        const Rec& fan = c.find("DCGM_FI_DEV_FAN_SPEED");
        QVERIFY(fan.labels.isEmpty());
        QCOMPARE(fan.line, 77);

        // The last line, unterminated.
        const Rec& last = c.samples.back();
        QCOMPARE(last.name, "DCGM_FI_PROF_DRAM_ACTIVE");
        QCOMPARE(last.line, 116);
        QCOMPARE(last.labels.size(), 15);
        QCOMPARE(last.label("pod"), "ray-1111111");
        QCOMPARE(last.label("modelName"), "NVIDIA A10G");
        QVERIFY(sameBits(last.value, 0.000003));

        for (const Fam& f : c.families)
            if (f.name == "DCGM_FI_DEV_SLOWDOWN_TEMP") QCOMPARE(f.help, "");
        QCOMPARE(c.families.front().help, "SM clock frequency (in MHz).");

        // The same text with a final newline parses to the same samples.
        const Collector withNewline = run(text + "\n");
        QVERIFY(withNewline.samples == c.samples);

        const Collector remap = run(readData("dcgm/datadog-fixtures/label_remap.txt"));
        QVERIFY(remap.errors.empty());
        QCOMPARE(remap.samples.size(), 1u);
        QCOMPARE(remap.samples[0].labels.size(), 10);
        QCOMPARE(remap.samples[0].label("container"), "baz");
        QCOMPARE(remap.families[0].help,
                 "GPU utilization (in %) edited to include namespace, pod and container labels");
    }

    // OpenMetrics: _total/_created under one counter family, exemplars, float-second _created
    // values, histogram and summary _created, and # EOF.
    void openMetricsAllTypes() {
        ParseStats st;
        const Collector c =
            run(readData("prometheus/textparse-testdata/alltypes.5mfs.om.txt"), Format::Auto, &st);
        QVERIFY2(c.errors.empty(), qPrintable(c.errorList()));
        QVERIFY(st.openMetrics);
        QVERIFY(st.sawEof);
        QCOMPARE(st.scrapes, 1u);
        QCOMPARE(c.samples.size(), 53u);
        QCOMPARE(c.families.size(), 5u);

        const Rec& total = c.find("promhttp_metric_handler_errors_total", "cause", "encoding");
        QCOMPARE(total.family, "promhttp_metric_handler_errors");
        QCOMPARE(total.type, MetricType::Counter);
        QCOMPARE(total.value, 0.0);
        const Rec& created = c.find("promhttp_metric_handler_errors_created", "cause", "gathering");
        QCOMPARE(created.family, "promhttp_metric_handler_errors");
        QCOMPARE(created.type, MetricType::Counter);
        QVERIFY(sameBits(created.value, 1.726839813016395e+09));
        QCOMPARE(c.find("rpc_requests_total", "service", "normal").value, 15.0);
        QCOMPARE(c.find("rpc_requests_created", "service", "normal").family, "rpc_requests");

        const Rec& bucket =
            c.find("rpc_durations_histogram_seconds_bucket", "le", "-0.0002899999999999998");
        QCOMPARE(bucket.value, 3.0);
        QVERIFY(bucket.hasExemplar);
        QCOMPARE(bucket.exemplarLabels.size(), 1);
        QCOMPARE(bucket.exemplarLabels[0], qMakePair(QByteArray("dummyID"), QByteArray("17783")));
        QVERIFY(sameBits(bucket.exemplarValue, -0.0003825067330956884));
        QVERIFY(bucket.exemplarTs);
        QVERIFY(std::llabs(*bucket.exemplarTs - 1726839814223908200LL) <
                1000); // 1.7268398142239082e+09 s
        QVERIFY(!c.find("rpc_durations_histogram_seconds_bucket", "le", "+Inf").hasExemplar);
        QCOMPARE(c.find("rpc_durations_histogram_seconds_bucket", "le", "+Inf").value, 15.0);
        QCOMPARE(c.find("rpc_durations_histogram_seconds_created").family,
                 "rpc_durations_histogram_seconds");
        QCOMPARE(c.find("rpc_durations_histogram_seconds_created").type, MetricType::Histogram);
        const Rec& summaryCreated = c.find("rpc_durations_seconds_created", "service", "uniform");
        QCOMPARE(summaryCreated.type, MetricType::Summary);
        QVERIFY(sameBits(summaryCreated.value, 1.72683981301684e+09));
        QCOMPARE(c.find("go_build_info").label("checksum"), "");

        const Collector h = run(readData("prometheus/textparse-testdata/1histogram.om.txt"));
        QVERIFY(h.errors.empty());
        QCOMPARE(h.samples.size(), 42u);
        QCOMPARE(h.families.size(), 1u);
        QCOMPARE(h.families[0].help, "This is a histogram with manually selected parameters");
        const Rec& inf = h.find("golang_manual_histogram_seconds_bucket", "port", "5003");
        QCOMPARE(inf.label("address"), "0.0.0.0");
        for (const Rec& r : h.samples)
            QCOMPARE(r.family, "golang_manual_histogram_seconds");
    }

    // Prometheus' own self-scrape: 237 families of every classic type, with and without metadata.
    void prometheusSelfScrape() {
        const std::string text = readData("prometheus/textparse-testdata/alltypes.237mfs.prom.txt");
        ParseStats st;
        const Collector c = run(text, Format::Auto, &st);
        QVERIFY2(c.errors.empty(), qPrintable(c.errorList()));
        QCOMPARE(c.samples.size(), 1857u);
        QCOMPARE(c.families.size(), 237u);
        QVERIFY(st.openMetrics); // the file ends in # EOF
        std::map<MetricType, int> byType;
        for (const Fam& f : c.families)
            ++byType[f.type];
        QCOMPARE(byType[MetricType::Counter], 112);
        QCOMPARE(byType[MetricType::Gauge], 97);
        QCOMPARE(byType[MetricType::Histogram], 15);
        QCOMPARE(byType[MetricType::Summary], 13);
        for (const Rec& r : c.samples)
            QVERIFY2(r.type != MetricType::Unknown, r.name.constData());
        // 0.0.4 counters carry _total in the TYPE line: the family is the full name.
        QCOMPARE(c.find("go_gc_cycles_automatic_gc_cycles_total").family,
                 "go_gc_cycles_automatic_gc_cycles_total");
        QCOMPARE(c.find("go_gc_duration_seconds_count").value, 190932.0);
        QCOMPARE(c.find("prometheus_rule_evaluations_total", "rule_group",
                        "/etc/prometheus/rules/ansible_managed.rules;ansible managed alert rules")
                     .value,
                 118092.0);

        // Read strictly as 0.0.4, # EOF is a comment and the samples are the same.
        ParseStats strict;
        const Collector c004 = run(text, Format::Text004, &strict);
        QVERIFY(!strict.openMetrics && !strict.sawEof);
        QVERIFY(c004.samples == c.samples);

        const Collector nometa =
            run(readData("prometheus/textparse-testdata/alltypes.237mfs.nometa.prom.txt"));
        QVERIFY(nometa.errors.empty());
        QCOMPARE(nometa.samples.size(), 1857u);
        QVERIFY(nometa.families.empty());
        for (const Rec& r : nometa.samples) {
            QCOMPARE(r.type, MetricType::Unknown);
            QCOMPARE(r.family, r.name);
        }

        const Collector legacy =
            run(readData("prometheus/textparse-testdata/legacy/promtestdata.txt"));
        QVERIFY(legacy.errors.empty());
        QCOMPARE(legacy.samples.size(), 410u);
        QCOMPARE(legacy.families.size(), 59u);
        QCOMPARE(
            std::ranges::count_if(legacy.samples, [](const Rec& r) { return std::isnan(r.value); }),
            147);
        QCOMPARE(legacy.find("http_request_duration_microseconds", "handler", "alerts").type,
                 MetricType::Summary);
        const Collector legacyNometa =
            run(readData("prometheus/textparse-testdata/legacy/promtestdata.nometa.txt"));
        QVERIFY(legacyNometa.errors.empty());
        QCOMPARE(legacyNometa.samples.size(), 410u);
    }

    // promtool's files: a small scrape, and tsdb dumps with float-second timestamps.
    void promtoolFiles() {
        const Collector m = run(readData("prometheus/promtool-testdata/metrics-test.prom"));
        QVERIFY(m.errors.empty());
        QCOMPARE(m.samples.size(), 27u);
        QCOMPARE(m.families.size(), 4u);
        QCOMPARE(m.find("prometheus_tsdb_compaction_chunk_size_bytes_bucket", "le", "+Inf").value,
                 13867.0);
        QCOMPARE(
            m.find("net_conntrack_dialer_conn_attempted_total", "dialer_name", "blackbox").type,
            MetricType::Counter);

        ParseStats st;
        const Collector dump = run(
            readData("prometheus/promtool-testdata/dump-openmetrics-test.prom"), Format::Auto, &st);
        QVERIFY(dump.errors.empty());
        QVERIFY(st.openMetrics);
        QCOMPARE(dump.samples.size(), 10u);
        QCOMPARE(dump.samples[1].ts, std::optional<std::int64_t>(60'000'000'000LL));
        QCOMPARE(dump.samples[9].value, 7.0);
        QCOMPARE(dump.samples[9].ts, std::optional<std::int64_t>(240'000'000'000LL));

        const Collector rt =
            run(readData("prometheus/promtool-testdata/dump-openmetrics-roundtrip-test.prom"));
        QVERIFY(rt.errors.empty());
        QCOMPARE(rt.samples.size(), 14u);
        QCOMPARE(rt.samples[0].ts,
                 std::optional<std::int64_t>(1700215884373000000LL)); // exact, not via a double
        QVERIFY(sameBits(rt.samples[0].value, 1.0267820369e+10));
        QCOMPARE(rt.samples[0].label("le"), "+Inf");
        QCOMPARE(rt.samples[0].family, "my_histogram_bucket"); // no TYPE: the name itself
    }

    // Real exporters' text breaks no rule (the rules are not so strict they cry wolf).
    void realTextIsClean() {
        const struct {
            const char* file;
            Format format;
            int errors, warnings;
        } files[] = {
            {"prometheus/promtool-testdata/metrics-test.prom", Format::Auto, 0, 0},
            {"prometheus/promtool-testdata/dump-openmetrics-test.prom", Format::Auto, 0, 0},
            {"prometheus/textparse-testdata/1histogram.om.txt", Format::Auto, 0, 0},
            // client_golang's example observes negative values: a histogram with negative
            // bounds and a _sum, a negative quantile and a negative summary sum, which
            // OpenMetrics 1.0 forbids (Prometheus does not check them).
            {"prometheus/textparse-testdata/alltypes.5mfs.om.txt", Format::Auto, 0, 3},
            {"prometheus/textparse-testdata/alltypes.237mfs.prom.txt", Format::Text004, 0, 0},
            {"prometheus/textparse-testdata/alltypes.237mfs.nometa.prom.txt", Format::Text004, 0,
             0},
            // The erratum line of the docs' example (a quoted name with no value) is bad.
            {"prometheus/example.prom", Format::Auto, 1, 0},
            // Datadog's fixture file was saved without its final line feed.
            {"dcgm/datadog-fixtures/metrics.txt", Format::Auto, 0, 1},
        };
        for (const auto& f : files) {
            Collector c;
            const ParseStats st = parse(readData(f.file), c, f.format, Scope::Exposition);
            const QString all = c.findingList();
            QVERIFY2(st.samples > 0, f.file);
            QVERIFY2(static_cast<int>(st.errors) == f.errors &&
                         static_cast<int>(st.warnings) == f.warnings,
                     qPrintable(QString(f.file) + "\n" + all));
        }
    }
};

QTEST_APPLESS_MAIN(TestPrometheusCorpus)
#include "test_prometheus_corpus.moc"
