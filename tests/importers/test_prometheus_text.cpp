// Prometheus text / OpenMetrics parser: golden counts and values on the project's own
// exposition fixtures (tests/data/telemetry; real exporters' files are read by the corpus suite
// test_prometheus_corpus), every escaping and number spelling, CRLF, broken lines amid good
// ones, every truncation of a scrape, multi-scrape files, huge labels, and a sink that throws.
#include "importers/formats/prometheus_text.h"
#include "support/prometheus_collector.h"
#include "support/test_paths.h"

#include <QTest>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

using namespace ft::importers::prom;
using namespace ft::testing::prom_text;

namespace {

std::string readData(const char* relative) {
    std::ifstream in(std::string(FT_TEST_DATA_PATH("/telemetry/")) + relative, std::ios::binary);
    if (!in) qFatal("cannot read test data %s", relative);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// What a rule makes of a text: nothing, a bad line, or a warning (the sample kept).
enum class Finding { Valid, Error, Warning };

// A small 0.0.4 scrape with every construct the truncation test should cut through.
const std::string kSmallScrape =
    "# HELP http_requests_total The total number of \\\\ HTTP requests.\\n\n"
    "# TYPE http_requests_total counter\n"
    "http_requests_total{method=\"post\",code=\"200\"} 1027 1395066363000\n"
    "http_requests_total{method=\"post\",code=\"400\",} 3 1395066363000\n"
    "\n"
    "msdos{path=\"C:\\\\DIR\\\\FILE.TXT\",error=\"Cannot find:\\n\\\"F\\\"\"} 1.458255915e9\n"
    "  metric_without_labels\t12.47  \n"
    "weird{problem=\"division by zero\"} +Inf -3982045\n"
    "# TYPE lat histogram\n"
    "lat_bucket{le=\"0.05\"} 24054\n"
    "lat_bucket{le=\"+Inf\"} 144320\n"
    "lat_sum 5.3423e4\n"
    "lat_count 144320\n"
    "nan_value{} NaN\n"
    "neg -0.5e-3 -1\n";

} // namespace

class TestPrometheusText : public QObject {
    Q_OBJECT

    static Collector run(std::string_view text, Format format = Format::Auto,
                         ParseStats* stats = nullptr) {
        Collector c;
        const ParseStats s = parse(text, c, format);
        if (stats) *stats = s;
        return c;
    }

private slots:
    // Every construct of the 0.0.4 text (tests/data/telemetry/prometheus/exposition.prom):
    // escapes, timestamps (one before the epoch), +Inf, a histogram, a summary, and a bad line
    // (a quoted name in braces with no value) that is reported while the rest still parses.
    void everyConstructOfTheTextFormat() {
        ParseStats st;
        const Collector c = run(readData("prometheus/exposition.prom"), Format::Auto, &st);
        QCOMPARE(c.samples.size(), 16u);
        QCOMPARE(st.samples, 16u);
        QCOMPARE(st.lines, 33u);
        QCOMPARE(st.families, 3u);
        QCOMPARE(st.scrapes, 1u);
        QVERIFY(!st.openMetrics);
        QVERIFY(!st.sawEof);
        QCOMPARE(c.scrapes, 1);

        QCOMPARE(c.errors.size(), 1u);
        QCOMPARE(c.errors[0].line, 10);
        QCOMPARE(c.errors[0].column, 49); // just past the closing brace, where the value belongs
        QVERIFY2(c.errors[0].message.find("sample value") != std::string::npos,
                 c.errors[0].message.c_str());
        QCOMPARE(c.errors[0].text,
                 std::string(R"({"rack.inlet.temp", "sensor.name"="Front Panel"})"));
        QCOMPARE(st.errors, 1u);

        const Rec& pump1 = c.find("cdu_pump_starts_total", "pump", "1");
        QCOMPARE(pump1.family, "cdu_pump_starts_total");
        QCOMPARE(pump1.type, MetricType::Counter);
        QCOMPARE(pump1.value, 412.0);
        QCOMPARE(pump1.ts, std::optional<std::int64_t>(1767225600000LL * 1'000'000));
        QCOMPARE(pump1.line, 3);
        QCOMPARE(c.find("cdu_pump_starts_total", "pump", "2").value, 9.0);

        const Rec& bmc = c.find("bmc_last_error");
        QCOMPARE(bmc.label("path"), R"(D:\LOGS\SEL.BIN)");
        QCOMPARE(bmc.label("error"), "Read failed:\n\"SEL.BIN\"");
        QVERIFY(sameBits(bmc.value, 1.767225e9));
        QCOMPARE(bmc.type, MetricType::Unknown);
        QCOMPARE(bmc.family, "bmc_last_error");
        QCOMPARE(bmc.line, 7);
        QVERIFY(!bmc.ts);

        const Rec& minimal = c.find("inlet_temperature_celsius");
        QVERIFY(minimal.labels.isEmpty());
        QVERIFY(sameBits(minimal.value, 23.75));
        QCOMPARE(minimal.line, 13); // the bad line did not shift what follows
        QVERIFY(!minimal.ts);

        const Rec& weird = c.find("psu_efficiency");
        QCOMPARE(weird.label("fault"), "division by zero");
        QVERIFY(std::isinf(weird.value) && weird.value > 0);
        QCOMPARE(weird.ts, std::optional<std::int64_t>(-86400000LL * 1'000'000));

        const Rec& inf = c.find("coolant_flow_lpm_bucket", "le", "+Inf");
        QCOMPARE(inf.value, 60.0);
        QCOMPARE(inf.family, "coolant_flow_lpm");
        QCOMPARE(inf.type, MetricType::Histogram);
        QCOMPARE(c.find("coolant_flow_lpm_count").family, "coolant_flow_lpm");
        QCOMPARE(c.find("coolant_flow_lpm_sum").value, 1843.5);

        const Rec& q = c.find("scrape_duration_seconds", "quantile", "0.99");
        QVERIFY(sameBits(q.value, 0.087));
        QCOMPARE(q.type, MetricType::Summary);
        QCOMPARE(c.find("scrape_duration_seconds_sum").family, "scrape_duration_seconds");
        QVERIFY(sameBits(c.find("scrape_duration_seconds_sum").value, 4.2125e+01));

        QCOMPARE(c.families.size(), 3u);
        QCOMPARE(c.families[0].name, "cdu_pump_starts_total");
        QCOMPARE(c.families[0].help,
                 "Pump starts since the coolant distribution unit was commissioned.");
        QCOMPARE(c.families[1].type, MetricType::Histogram);
        QCOMPARE(c.families[2].help, "Time the exporter spent answering a scrape.");
        // Each family is announced before its first sample.
        QVERIFY(c.events.indexOf("F cdu_pump_starts_total") <
                c.events.indexOf("S cdu_pump_starts_total"));
        QVERIFY(c.events.indexOf("F scrape_duration_seconds") <
                c.events.indexOf("S scrape_duration_seconds"));
        QCOMPARE(c.events.last(), "E");
    }

    // A dcgm-exporter scrape (tests/data/telemetry/dcgm/scrape.txt): 12 families, a HELP line
    // with no text, # NOTE comments, label-less samples, a 15-label sample, and no newline
    // after the last line.
    void dcgmExporterScrape() {
        const std::string text = readData("dcgm/scrape.txt");
        QVERIFY(text.back() != '\n');
        ParseStats st;
        const Collector c = run(text, Format::Auto, &st);
        QVERIFY2(c.errors.empty(), qPrintable(c.errorList()));
        QCOMPARE(c.samples.size(), 21u);
        QCOMPARE(c.families.size(), 12u);
        QCOMPARE(st.lines, 47u);
        QCOMPARE(st.scrapes, 1u);

        const Rec& first = c.samples.front();
        QCOMPARE(first.name, "DCGM_FI_DEV_SM_CLOCK");
        QCOMPARE(first.line, 3);
        QCOMPARE(first.labels.size(), 7);
        QCOMPARE(first.labels[0], qMakePair(QByteArray("gpu"), QByteArray("0")));
        QCOMPARE(first.label("UUID"), "GPU-5f0c2a91-7d3e-4b18-9a6c-000003e8a1c0");
        QCOMPARE(first.label("modelName"), "NVIDIA GB200");
        QCOMPARE(first.label("Hostname"), "a01-n03");
        QCOMPARE(first.value, 1965.0);
        QCOMPARE(first.type, MetricType::Gauge);

        QVERIFY(sameBits(c.find("DCGM_FI_DEV_POWER_USAGE", "gpu", "0").value, 712.43));
        QCOMPARE(c.find("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION").type, MetricType::Counter);
        QCOMPARE(c.find("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION").value, 3861204518.0);
        QVERIFY(sameBits(c.find("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gpu", "1").value, 0.000008));
        const Rec& fan = c.find("DCGM_FI_DEV_FAN_SPEED");
        QVERIFY(fan.labels.isEmpty());
        QCOMPARE(fan.line, 43);

        // The last line, unterminated.
        const Rec& last = c.samples.back();
        QCOMPARE(last.name, "DCGM_FI_PROF_DRAM_ACTIVE");
        QCOMPARE(last.line, 47);
        QCOMPARE(last.labels.size(), 15);
        QCOMPARE(last.label("pod"), "pretrain-worker-17");
        QCOMPARE(last.label("modelName"), "NVIDIA GB200");
        QVERIFY(sameBits(last.value, 0.412006));

        bool sawSlowdown = false;
        for (const Fam& f : c.families)
            if (f.name == "DCGM_FI_DEV_SLOWDOWN_TEMP") {
                QCOMPARE(f.help, "");
                sawSlowdown = true;
            }
        QVERIFY(sawSlowdown);
        QCOMPARE(c.families.front().help, "SM clock frequency (in MHz).");

        // The same text with a final newline parses to the same samples.
        const Collector withNewline = run(text + "\n");
        QVERIFY(withNewline.samples == c.samples);

        // dcgm-exporter's Kubernetes mode: the pod holding each GPU as three more labels.
        const Collector pods = run(readData("dcgm/pod_labels.txt"));
        QVERIFY(pods.errors.empty());
        QCOMPARE(pods.samples.size(), 2u);
        QCOMPARE(pods.samples[0].labels.size(), 10);
        QCOMPARE(pods.samples[0].label("container"), "trainer");
        QCOMPARE(pods.samples[1].label("pod"), "pretrain-worker-18");
        QCOMPARE(pods.samples[1].value, 91.0);
        QCOMPARE(pods.families[0].help, "GPU utilization (in %), with the pod that holds the GPU.");
    }

    // OpenMetrics (tests/data/telemetry/prometheus/alltypes.om.txt): _total/_created under one
    // counter family, exemplars, float-second _created values, histogram and summary _created,
    // and # EOF.
    void openMetricsAllTypes() {
        ParseStats st;
        const Collector c = run(readData("prometheus/alltypes.om.txt"), Format::Auto, &st);
        QVERIFY2(c.errors.empty(), qPrintable(c.errorList()));
        QVERIFY(st.openMetrics);
        QVERIFY(st.sawEof);
        QCOMPARE(st.scrapes, 1u);
        QCOMPARE(c.samples.size(), 37u);
        QCOMPARE(c.families.size(), 5u);

        const Rec& total = c.find("bmc_poll_errors_total", "cause", "timeout");
        QCOMPARE(total.family, "bmc_poll_errors");
        QCOMPARE(total.type, MetricType::Counter);
        QCOMPARE(total.value, 4.0);
        const Rec& created = c.find("bmc_poll_errors_created", "cause", "auth");
        QCOMPARE(created.family, "bmc_poll_errors");
        QCOMPARE(created.type, MetricType::Counter);
        QVERIFY(sameBits(created.value, 1.76722560025e+09));
        QCOMPARE(c.find("redfish_requests_total", "service", "cdu").value, 128.0);
        QCOMPARE(c.find("redfish_requests_created", "service", "pdu").family, "redfish_requests");

        const Rec& bucket = c.find("coolant_return_celsius_bucket", "le", "35"); // rack A01
        QCOMPARE(bucket.label("rack"), "A01");
        QCOMPARE(bucket.value, 3.0);
        QVERIFY(bucket.hasExemplar);
        QCOMPARE(bucket.exemplarLabels.size(), 1);
        QCOMPARE(bucket.exemplarLabels[0], qMakePair(QByteArray("trace_id"), QByteArray("a01-7")));
        QVERIFY(sameBits(bucket.exemplarValue, 34.2));
        QVERIFY(bucket.exemplarTs);
        QVERIFY(std::llabs(*bucket.exemplarTs - 1767225614100000000LL) <
                1000); // 1.7672256141e+09 s
        const Rec& a01Inf = c.find("coolant_return_celsius_bucket", "le", "+Inf");
        QCOMPARE(a01Inf.label("rack"), "A01");
        QVERIFY(!a01Inf.hasExemplar);
        QCOMPARE(a01Inf.value, 12.0);
        for (const Rec& r : c.samples)
            if (r.label("rack") == "A02") QVERIFY2(!r.hasExemplar, r.name.constData());
        QCOMPARE(c.find("coolant_return_celsius_created").family, "coolant_return_celsius");
        QCOMPARE(c.find("coolant_return_celsius_created").type, MetricType::Histogram);
        const Rec& summaryCreated = c.find("redfish_fetch_seconds_created", "service", "pdu");
        QCOMPARE(summaryCreated.type, MetricType::Summary);
        QVERIFY(sameBits(summaryCreated.value, 1.76722560075e+09));
        QCOMPARE(c.find("floortwin_build_info").label("commit"), "");

        const Collector h = run(readData("prometheus/histogram.om.txt"));
        QVERIFY(h.errors.empty());
        QCOMPARE(h.samples.size(), 16u);
        QCOMPARE(h.families.size(), 1u);
        QCOMPARE(h.families[0].help, "Outlet current, with buckets chosen by hand");
        const Rec& low8 = h.find("pdu_outlet_current_amperes_bucket", "outlet", "8");
        QCOMPARE(low8.label("pdu"), "A01-PDU-L");
        QCOMPARE(low8.label("le"), "0.5");
        QCOMPARE(low8.value, 1.0);
        QCOMPARE(h.find("pdu_outlet_current_amperes_count", "outlet", "8").value, 71.0);
        for (const Rec& r : h.samples)
            QCOMPARE(r.family, "pdu_outlet_current_amperes");
    }

    // An exporter's self-scrape of every classic type, 0.0.4 ending in # EOF as Prometheus' own
    // test files do (prometheus/selfscrape.prom.txt), and the same samples without metadata.
    void selfScrapeOfEveryClassicType() {
        const std::string text = readData("prometheus/selfscrape.prom.txt");
        ParseStats st;
        const Collector c = run(text, Format::Auto, &st);
        QVERIFY2(c.errors.empty(), qPrintable(c.errorList()));
        QCOMPARE(c.samples.size(), 28u);
        QCOMPARE(c.families.size(), 9u);
        QVERIFY(st.openMetrics); // the file ends in # EOF
        std::map<MetricType, int> byType;
        for (const Fam& f : c.families)
            ++byType[f.type];
        QCOMPARE(byType[MetricType::Counter], 3);
        QCOMPARE(byType[MetricType::Gauge], 3);
        QCOMPARE(byType[MetricType::Histogram], 1);
        QCOMPARE(byType[MetricType::Summary], 2);
        for (const Rec& r : c.samples)
            QVERIFY2(r.type != MetricType::Unknown, r.name.constData());
        // 0.0.4 counters carry _total in the TYPE line: the family is the full name.
        QCOMPARE(c.find("floortwin_samples_ingested_total").family,
                 "floortwin_samples_ingested_total");
        QCOMPARE(c.find("go_gc_duration_seconds_count").value, 48211.0);
        QCOMPARE(c.find("floortwin_rule_evaluations_total", "rule_group",
                        "/etc/floortwin/rules/cooling.rules;cooling alerts")
                     .value,
                 52311.0);
        // A summary that has seen nothing yet: NaN quantiles are values, not bad lines.
        QCOMPARE(std::ranges::count_if(c.samples, [](const Rec& r) { return std::isnan(r.value); }),
                 3);
        QCOMPARE(c.find("floortwin_bms_latency_seconds", "quantile", "0.5").type,
                 MetricType::Summary);

        // Read strictly as 0.0.4, # EOF is a comment and the samples are the same.
        ParseStats strict;
        const Collector c004 = run(text, Format::Text004, &strict);
        QVERIFY(!strict.openMetrics && !strict.sawEof);
        QVERIFY(c004.samples == c.samples);

        // Without metadata (and without # EOF): every sample untyped, its own family.
        const Collector nometa = run(readData("prometheus/selfscrape.nometa.prom.txt"));
        QVERIFY(nometa.errors.empty());
        QCOMPARE(nometa.samples.size(), 28u);
        QVERIFY(nometa.families.empty());
        for (std::size_t i = 0; i < nometa.samples.size(); ++i) {
            const Rec& r = nometa.samples[i];
            QCOMPARE(r.type, MetricType::Unknown);
            QCOMPARE(r.family, r.name);
            QCOMPARE(r.name, c.samples[i].name);
            QCOMPARE(r.labels, c.samples[i].labels);
            QVERIFY(sameBits(r.value, c.samples[i].value));
        }
    }

    // What `promtool tsdb dump-openmetrics` writes: no HELP/TYPE, float-second timestamps, each
    // series many times (prometheus/tsdb-dump.om.txt, tsdb-roundtrip.om.txt).
    void tsdbDumps() {
        ParseStats st;
        const Collector dump = run(readData("prometheus/tsdb-dump.om.txt"), Format::Auto, &st);
        QVERIFY(dump.errors.empty());
        QVERIFY(st.openMetrics);
        QCOMPARE(dump.samples.size(), 10u);
        QCOMPARE(dump.samples[1].ts, std::optional<std::int64_t>(60'000'000'000LL));
        QVERIFY(sameBits(dump.samples[1].value, 22.75));
        QCOMPARE(dump.samples[0].family, "rack_inlet_celsius");
        QCOMPARE(dump.samples[9].value, 1198.0);
        QCOMPARE(dump.samples[9].ts, std::optional<std::int64_t>(240'000'000'000LL));

        const Collector rt = run(readData("prometheus/tsdb-roundtrip.om.txt"));
        QVERIFY(rt.errors.empty());
        QCOMPARE(rt.samples.size(), 8u);
        // 1767225600.373 s: exact, not via a double (which gives ...372999936).
        QCOMPARE(rt.samples[0].ts, std::optional<std::int64_t>(1767225600373000000LL));
        QCOMPARE(rt.samples[1].ts, std::optional<std::int64_t>(1767225605373000000LL));
        QVERIFY(sameBits(rt.samples[0].value, 8.64021457e+09));
        QCOMPARE(rt.samples[0].label("le"), "+Inf");
        QCOMPARE(rt.samples[0].family, "coolant_flow_lpm_bucket"); // no TYPE: the name itself
    }

    void labelValueEscapes() {
        const Collector c = run("m{a=\"x\\\\y\",b=\"x\\\"y\",c=\"x\\ny\",d=\"\\\\n\",e="
                                "\"\\\\\\\"\",f=\"\\t\",g=\"\",h=\"\\\"\","
                                "i=\"plain\",j=\"tail\\\\\"} 1\n");
        QVERIFY2(c.errors.empty(), qPrintable(c.errorList()));
        QCOMPARE(c.samples.size(), 1u);
        const Rec& r = c.samples[0];
        QCOMPARE(r.label("a"), "x\\y");
        QCOMPARE(r.label("b"), "x\"y");
        QCOMPARE(r.label("c"), "x\ny");
        QCOMPARE(r.label("d"), "\\n");  // an escaped backslash, then a plain n
        QCOMPARE(r.label("e"), "\\\""); // backslash, quote
        QCOMPARE(r.label("f"), "\\t");  // unknown escapes are kept as written
        QCOMPARE(r.label("g"), "");
        QCOMPARE(r.label("h"), "\"");
        QCOMPARE(r.label("i"), "plain");
        QCOMPARE(r.label("j"), "tail\\");
        QCOMPARE(r.labels.size(), 10);

        // A quote inside an escaped value does not end it; the label after it is intact.
        const Collector q = run("m{a=\"say \\\"hi\\\", ok\",b=\"c\"} 2\n");
        QCOMPARE(q.samples.at(0).label("a"), "say \"hi\", ok");
        QCOMPARE(q.samples.at(0).label("b"), "c");
    }

    void helpEscapes() {
        const std::string text =
            "# HELP a One \\\\ two\\nthree \\\"four\\\" \\t\n# TYPE a gauge\na 1\n";
        const Collector c004 = run(text, Format::Text004);
        QCOMPARE(c004.families.at(0).help,
                 "One \\ two\nthree \\\"four\\\" \\t"); // 0.0.4: only \\ and \n
        const Collector om = run(text + "# EOF\n");
        QCOMPARE(om.families.at(0).help, "One \\ two\nthree \"four\" \\t"); // OpenMetrics also \"
        QCOMPARE(om.families.at(0).type, MetricType::Gauge);
        // HELP after TYPE, and a HELP with no text.
        const Collector late = run("# TYPE b counter\n# HELP b Late help.\nb 1\n# HELP c\nc 2\n");
        QCOMPARE(late.families.size(), 2u);
        QCOMPARE(late.families[0].help, "Late help.");
        QCOMPARE(late.families[0].type, MetricType::Counter);
        QCOMPARE(late.families[1].help, "");
        QCOMPARE(late.families[1].type, MetricType::Unknown);
        QCOMPARE(late.events, QStringList({"F b", "S b", "F c", "S c", "E"}));
    }

    void labelSetShapes() {
        const Collector c = run("empty{} 1\n"
                                "trailing{a=\"1\",} 2\n"
                                " \t spaced \t { a = \"1\" ,\tb=\"2\" , } \t 3 \t 1000 \t \n"
                                "tight{a=\"1\"}4\n"
                                "{\"my.dotted.metric\", \"error.message\"=\"Not Found\"} 5\n"
                                "{\"quoted.only\"} 6\n"
                                "utf8{\"label.with.dots\"=\"v\"} 7\n"
                                "colon:name_total 8\n");
        QVERIFY2(c.errors.empty(), qPrintable(c.errorList()));
        QCOMPARE(c.samples.size(), 8u);
        QVERIFY(c.samples[0].labels.isEmpty());
        QCOMPARE(c.samples[1].labels.size(), 1);
        const Rec& spaced = c.samples[2];
        QCOMPARE(spaced.name, "spaced");
        QCOMPARE(spaced.label("b"), "2");
        QCOMPARE(spaced.value, 3.0);
        QCOMPARE(spaced.ts, std::optional<std::int64_t>(1'000'000'000));
        QCOMPARE(c.samples[3].value, 4.0);
        QCOMPARE(c.samples[4].name, "my.dotted.metric");
        QCOMPARE(c.samples[4].label("error.message"), "Not Found");
        QCOMPARE(c.samples[5].name, "quoted.only");
        QVERIFY(c.samples[5].labels.isEmpty());
        QCOMPARE(c.samples[6].label("label.with.dots"), "v");
        QCOMPARE(c.samples[7].name, "colon:name_total");
    }

    void valueSpellings() {
        struct Case {
            const char* text;
            double value;
        };
        const double inf = std::numeric_limits<double>::infinity();
        const Case cases[] = {
            {"0", 0},
            {"-0", -0.0},
            {"42", 42},
            {"+42", 42},
            {"8.969000", 8.969},
            {"1e3", 1e3},
            {"1E-3", 1e-3},
            {"-2.5e+2", -250},
            {".5", 0.5},
            {"5.", 5},
            {"+Inf", inf},
            {"-Inf", -inf},
            {"Inf", inf},
            {"inf", inf},
            {"+inf", inf},
            {"Infinity", inf},
            {"-infinity", -inf},
            {"0x1p-2", 0.25},
            {"-0x10", -16},
            {"1e400", inf},
            {"-1e400", -inf},
            {"1e-400", 0},
            {"4.9e-324", 4.9e-324},
            {"9223372036854775794", 9223372036854775794.0}, // DCGM's blank sentinel
            {"12345678901234567890123", 12345678901234567890123.0},
            {"0.1234567890123456789", 0.1234567890123456789},
            {"1.7976931348623157e308", 1.7976931348623157e308}};
        for (const Case& k : cases) {
            const Collector c = run(std::string("m ") + k.text + "\n");
            QVERIFY2(c.errors.empty(), k.text);
            QVERIFY2(sameBits(c.samples.at(0).value, k.value), k.text);
        }
        for (const char* nan : {"NaN", "nan", "NAN", "-NaN", "+nan"}) {
            const Collector c = run(std::string("m ") + nan + "\n");
            QVERIFY2(c.errors.empty() && std::isnan(c.samples.at(0).value), nan);
        }
        for (const char* bad :
             {"1.2.3", "abc", "+-1", "--1", "1e", "1e+", "0x", "1,5", "Infx", "-", "+", "."}) {
            const Collector c = run(std::string("m ") + bad + "\n");
            QVERIFY2(c.samples.empty(), bad);
            QCOMPARE(c.errors.size(), 1u);
            QCOMPARE(c.errors[0].column, 3);
            QVERIFY2(c.errors[0].message.find("expected a sample value") != std::string::npos,
                     c.errors[0].message.c_str());
        }
    }

    // The fast decimal path must give exactly what std::from_chars gives.
    void decimalsMatchFromChars() {
        std::mt19937_64 rng(12345);
        std::string text;
        std::vector<double> expected;
        for (int i = 0; i < 20000; ++i) {
            std::string number;
            if (rng() % 4 == 0) number += '-';
            const int intDigits = static_cast<int>(rng() % 12),
                      fracDigits = static_cast<int>(rng() % 12);
            for (int d = 0; d < intDigits; ++d)
                number += static_cast<char>('0' + rng() % 10);
            if (intDigits == 0) number += '0';
            if (fracDigits > 0) number += '.';
            for (int d = 0; d < fracDigits; ++d)
                number += static_cast<char>('0' + rng() % 10);
            if (rng() % 3 == 0) number += "e" + std::to_string(static_cast<int>(rng() % 60) - 30);
            double v = 0;
            const auto r = std::from_chars(number.data(), number.data() + number.size(), v);
            QVERIFY(r.ec == std::errc() && r.ptr == number.data() + number.size());
            expected.push_back(v);
            text += "m " + number + "\n";
        }
        const Collector c = run(text);
        QVERIFY(c.errors.empty());
        QCOMPARE(c.samples.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i)
            QVERIFY2(sameBits(c.samples[i].value, expected[i]),
                     qPrintable(QString("line %1").arg(i + 1)));
    }

    void timestamps() {
        // 0.0.4: integer milliseconds.
        Collector c = run("a 1 1395066363000\nb 1 -3982045\nc 1 +5\nd 1 0\n", Format::Text004);
        QVERIFY(c.errors.empty());
        QCOMPARE(c.samples[0].ts, std::optional<std::int64_t>(1395066363000'000'000LL));
        QCOMPARE(c.samples[1].ts, std::optional<std::int64_t>(-3982045'000'000LL));
        QCOMPARE(c.samples[2].ts, std::optional<std::int64_t>(5'000'000));
        QCOMPARE(c.samples[3].ts, std::optional<std::int64_t>(0));
        // Fractions are no milliseconds in strict 0.0.4; Auto takes them as seconds.
        c = run("a 1 1.5\n", Format::Text004);
        QCOMPARE(c.errors.size(), 1u);
        QCOMPARE(c.errors[0].column, 5);
        QVERIFY(c.errors[0].message.find("milliseconds") != std::string::npos);
        c = run("a 1 1.5\n");
        QCOMPARE(c.samples.at(0).ts, std::optional<std::int64_t>(1'500'000'000));
        // Not an int64, or not a number at all.
        for (const char* bad :
             {"a 1 9223372036854775808", "a 1 1x", "a 1 --5", "a 1 +-5", "a 1 NaN"}) {
            c = run(bad, Format::Text004);
            QVERIFY2(c.samples.empty() && c.errors.size() == 1, bad);
        }
        QCOMPARE(run("a 1 9223372036854", Format::Text004).samples.at(0).ts,
                 std::optional<std::int64_t>(9223372036854'000'000LL));
        // Any int64 is a valid 0.0.4 timestamp; past what int64 nanoseconds hold (2262) it is
        // clamped there, not refused.
        QCOMPARE(run("a 1 9300000000000000\n", Format::Text004).samples.at(0).ts,
                 std::optional<std::int64_t>(INT64_MAX));
        QCOMPARE(run("a 1 -9223372036854775808\n", Format::Text004).samples.at(0).ts,
                 std::optional<std::int64_t>(INT64_MIN));
        // OpenMetrics: seconds, exactly to the nanosecond.
        c = run("a 1 1700215884.373\nb 1 1700000000\nc 1 0.000000001\nd 1 -1.25\ne 1 1.5e3\nf 1 "
                "1.0000000019\n# EOF\n");
        QVERIFY2(c.errors.empty(), qPrintable(c.errorList()));
        QCOMPARE(c.samples[0].ts, std::optional<std::int64_t>(1700215884'373'000'000LL));
        QCOMPARE(c.samples[1].ts, std::optional<std::int64_t>(1700000000'000'000'000LL));
        QCOMPARE(c.samples[2].ts, std::optional<std::int64_t>(1));
        QCOMPARE(c.samples[3].ts, std::optional<std::int64_t>(-1'250'000'000LL));
        QCOMPARE(c.samples[4].ts, std::optional<std::int64_t>(1'500'000'000'000LL));
        QCOMPARE(c.samples[5].ts,
                 std::optional<std::int64_t>(1'000'000'001LL)); // sub-ns digits dropped
        // Any finite double is a valid OpenMetrics timestamp (clamped as above); Inf is none.
        c = run("a 1 1e300\nb 1 Inf\nc 1 12345678901234567890.1\nd 1 -1e19\n# EOF\n");
        QCOMPARE(c.samples.size(), 3u);
        QCOMPARE(c.errors.size(), 1u);
        QCOMPARE(c.errors[0].line, 2);
        QCOMPARE(c.samples[0].ts, std::optional<std::int64_t>(INT64_MAX));
        QCOMPARE(c.samples[1].ts, std::optional<std::int64_t>(INT64_MAX));
        QCOMPARE(c.samples[2].ts, std::optional<std::int64_t>(INT64_MIN));
    }

    void crlfLineEndings() {
        std::string crlf;
        for (char ch : kSmallScrape) {
            if (ch == '\n') crlf += '\r';
            crlf += ch;
        }
        const Collector lf = run(kSmallScrape), c = run(crlf);
        QVERIFY2(c.errors.empty(), qPrintable(c.errorList()));
        QCOMPARE(c.samples.size(), 11u);
        QVERIFY(c.samples == lf.samples);
        QCOMPARE(c.families.at(0).help, "The total number of \\ HTTP requests.\n");
        QCOMPARE(c.find("msdos").label("error"), "Cannot find:\n\"F\"");
        // A lone CR at the very end, and a final line without any newline.
        QCOMPARE(run("a 1\r").samples.at(0).value, 1.0);
        QCOMPARE(run("a{b=\"c\"} 2").samples.at(0).label("b"), "c");
    }

    // Each broken line is reported where it breaks, and skipped; its neighbours still count.
    void brokenLinesAmidGoodOnes() {
        const std::string text = "# TYPE a gauge\n"             // 1
                                 "a{x=\"1\"} 1\n"               // 2
                                 "a{x=\"2\" 2\n"                // 3: no closing brace
                                 "a{x=\"3\"} 3\n"               // 4
                                 "a{x=\"4} 4\n"                 // 5: unterminated value
                                 "a\n"                          // 6: no value
                                 "garbage here\n"               // 7
                                 "a{x=\"5\"} 5\n"               // 8
                                 "{x=\"y\"} 1\n"                // 9: no metric name
                                 "a{x=y} 1\n"                   // 10: unquoted value
                                 "a{=\"1\"} 1\n"                // 11: no label name
                                 "# TYPE b bogus\n"             // 12: unknown type
                                 "a 1 2 3\n"                    // 13: trailing token
                                 "a{x=\"6\"} 6 # {t=\"1\"} 1\n" // 14: exemplar in 0.0.4 (strict)
                                 "# HELP\n"                     // 15: no name
                                 "%bad 1\n"                     // 16
                                 "a{x=\"7\"} 7\n";              // 17
        const Collector c = run(text, Format::Text004);
        QCOMPARE(c.samples.size(), 4u);
        QCOMPARE(c.samples[0].line, 2);
        QCOMPARE(c.samples[1].line, 4);
        QCOMPARE(c.samples[2].line, 8);
        QCOMPARE(c.samples[3].line, 17);
        QCOMPARE(c.samples.back().value, 7.0);
        for (const Rec& r : c.samples)
            QCOMPARE(r.type, MetricType::Gauge);

        struct Expect {
            int line, column;
            const char* words;
        };
        const Expect expected[] = {{3, 9, "expected ',' or '}'"},
                                   {5, 10, "unterminated"},
                                   {6, 2, "sample value after the metric name"},
                                   {7, 9, "got 'here'"},
                                   {9, 1, "metric name"},
                                   {10, 5, "expected '\"'"},
                                   {11, 3, "label name"},
                                   {12, 10, "got 'bogus'"},
                                   {13, 7, "end of line after the timestamp"},
                                   {14, 12, "end of line after the value"},
                                   {15, 7, "metric name after HELP"},
                                   {16, 1, "metric name"}};
        QCOMPARE(c.errors.size(), std::size(expected));
        for (std::size_t i = 0; i < std::size(expected); ++i) {
            const ParseError& e = c.errors[i];
            const QString where = QString("error %1: %2:%3 %4")
                                      .arg(i)
                                      .arg(e.line)
                                      .arg(e.column)
                                      .arg(e.message.c_str());
            QVERIFY2(e.line == expected[i].line && e.column == expected[i].column,
                     qPrintable(where));
            QVERIFY2(e.message.find(expected[i].words) != std::string::npos, qPrintable(where));
        }
        QCOMPARE(c.errors[0].text, std::string("a{x=\"2\" 2"));

        // Auto reads line 14 (an exemplar cannot be anything else), and the rest is the same;
        // the exemplar itself is dropped with a warning: a gauge may not carry one.
        const Collector autoFormat = run(text);
        QCOMPARE(autoFormat.samples.size(), 5u);
        QCOMPARE(autoFormat.errors.size(), std::size(expected) - 1);
        QVERIFY(!autoFormat.find("a", "x", "6").hasExemplar);
        QCOMPARE(autoFormat.warnings.size(), 1u);
        QCOMPARE(autoFormat.warnings[0].line, 14);
        QCOMPARE(autoFormat.warnings[0].column, 12);
    }

    // Every prefix of a scrape: no crash, errors only on the cut line, the samples of complete
    // lines exactly those of the whole scrape, and their number never going down.
    void truncatedAtEveryByte() {
        const auto check = [](const std::string& full, Format format) {
            const Collector whole = run(full, format);
            QVERIFY(!whole.samples.empty());
            std::size_t lastComplete = 0;
            for (std::size_t cut = 0; cut <= full.size(); ++cut) {
                const std::string_view prefix(full.data(), cut);
                const Collector c = run(prefix, format);
                const int cutLine =
                    static_cast<int>(std::count(prefix.begin(), prefix.end(), '\n')) + 1;
                const bool partial = cut > 0 && full[cut - 1] != '\n';
                std::size_t complete = 0;
                for (const Rec& r : c.samples) {
                    if (partial && r.line == cutLine) continue;
                    QVERIFY2(complete < whole.samples.size() && r == whole.samples[complete],
                             qPrintable(QString("cut %1").arg(cut)));
                    ++complete;
                }
                QVERIFY(c.samples.size() <= complete + 1);
                for (const ParseError& e : c.errors)
                    QVERIFY2(e.line >= cutLine,
                             qPrintable(QString("cut %1: error on line %2 of %3: %4")
                                            .arg(cut)
                                            .arg(e.line)
                                            .arg(cutLine)
                                            .arg(e.message.c_str())));
                QVERIFY(complete >= lastComplete);
                lastComplete = complete;
            }
            QCOMPARE(lastComplete, whole.samples.size());
        };
        check(kSmallScrape, Format::Text004);
        check(readData("prometheus/alltypes.om.txt"), Format::OpenMetrics);
    }

    void twoScrapesInOneFile() {
        // A 0.0.4 dump: the second HELP for a family starts the next scrape.
        const std::string one =
            "# HELP up Is it up.\n# TYPE up gauge\nup{i=\"a\"} 1\nup{i=\"b\"} 0\n"
            "# TYPE rate counter\nrate 5\n";
        ParseStats st;
        Collector c = run(one + one + one, Format::Auto, &st);
        QVERIFY(c.errors.empty());
        QVERIFY2(c.warnings.empty(), qPrintable(c.findingList())); // series again: a new scrape
        QCOMPARE(st.scrapes, 3u);
        QCOMPARE(c.scrapes, 3);
        QCOMPARE(c.samples.size(), 9u);
        QCOMPARE(c.families.size(), 6u);
        QCOMPARE(c.samples[3].scrape, 1);
        QCOMPARE(c.samples[3].name, "up");
        QCOMPARE(c.families[2].scrape, 1);
        QCOMPARE(c.families[2].help, "Is it up.");
        QCOMPARE(c.events.mid(0, 7),
                 QStringList({"F up", "S up", "S up", "F rate", "S rate", "E", "F up"}));
        // A TYPE after the family's samples also starts one, even with no HELP before it.
        c = run("# TYPE x gauge\nx 1\n# TYPE x gauge\nx 2\n");
        QCOMPARE(c.scrapes, 2);
        QCOMPARE(c.samples[1].scrape, 1);

        // OpenMetrics: # EOF ends each scrape; blank lines after the last one are no third.
        const std::string om = "# TYPE t counter\nt_total 1 100\nt_created 50\n# EOF\n";
        c = run(om + om + "\n\n", Format::Auto, &st);
        QVERIFY2(c.errors.empty(), qPrintable(c.errorList()));
        QVERIFY(st.openMetrics && st.sawEof);
        QCOMPARE(st.scrapes, 2u);
        QCOMPARE(c.samples.size(), 4u);
        QCOMPARE(c.samples[2].scrape, 1);
        QCOMPARE(c.samples[2].ts, std::optional<std::int64_t>(100'000'000'000LL));
        QCOMPARE(c.samples[3].family, "t");
        QCOMPARE(c.events, QStringList({"F t", "S t_total", "S t_created", "E", "F t", "S t_total",
                                        "S t_created", "E"}));

        // A truncated second scrape still yields its samples, and warns it was cut short.
        c = run(om + "# TYPE t counter\nt_total 2 200\n", Format::Auto, &st);
        QCOMPARE(c.samples.size(), 3u);
        QCOMPARE(c.scrapes, 2);
        QVERIFY(c.errors.empty());
        QCOMPARE(c.warnings.size(), 1u);
        QCOMPARE(st.warnings, 1u);
        QCOMPARE(c.warnings[0].line, 7);
        QVERIFY(c.warnings[0].message.find("# EOF") != std::string::npos);
    }

    void familyResolution() {
        const Collector c =
            run("# TYPE c counter\nc_total 1\nc_created 2\nc 3\n"
                "# TYPE g gauge\ng 1\ng_count 2\n"
                "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\nh 1\n"
                "# TYPE s summary\ns{quantile=\"0.5\"} 1\ns_sum 1\ns_count 1\n"
                "# TYPE gh gaugehistogram\ngh_bucket{le=\"1\"} 1\ngh_gsum 1\ngh_gcount 1\n"
                "# TYPE i info\ni_info{v=\"1\"} 1\n"
                "# TYPE st stateset\nst{st=\"a\"} 1\n"
                "# TYPE u untyped\nu 1\n"
                "# TYPE k unknown\nk 1\n"
                "c_total 4\n" // back to an earlier family
                "# EOF\n");
        QVERIFY2(c.errors.empty(), qPrintable(c.errorList()));
        const auto familyOf = [&](const char* name) { return c.find(name).family; };
        QCOMPARE(familyOf("c_total"), "c");
        QCOMPARE(familyOf("c_created"), "c");
        QCOMPARE(familyOf("c"), "c");
        QCOMPARE(familyOf("g"), "g");
        QCOMPARE(familyOf("g_count"), "g_count"); // gauges have no _count
        QCOMPARE(c.find("g_count").type, MetricType::Unknown);
        QCOMPARE(familyOf("h_bucket"), "h");
        QCOMPARE(familyOf("h_sum"), "h");
        QCOMPARE(familyOf("h"), "h"); // not valid, but the name is the family's
        QCOMPARE(familyOf("s"), "s");
        QCOMPARE(familyOf("s_count"), "s");
        QCOMPARE(familyOf("gh_gsum"), "gh");
        QCOMPARE(c.find("gh_bucket").type, MetricType::GaugeHistogram);
        QCOMPARE(familyOf("i_info"), "i");
        QCOMPARE(c.find("i_info").type, MetricType::Info);
        QCOMPARE(c.find("st").type, MetricType::StateSet);
        QCOMPARE(c.find("u").type, MetricType::Untyped);
        QCOMPARE(c.find("k").type, MetricType::Unknown);
        QCOMPARE(c.find("k").family, "k");
        QCOMPARE(c.samples.back().family, "c");
        QCOMPARE(c.samples.back().type, MetricType::Counter);
        QCOMPARE(metricTypeName(MetricType::GaugeHistogram), std::string_view("gaugehistogram"));
    }

    void hugeLabels() {
        const std::string big(1 << 20, 'v');
        std::string escaped;
        for (int i = 0; i < 100000; ++i)
            // Plain literals: moc misreads raw strings with escapes in them.
            escaped += "ab\\\"\\\\\\n"; // NOLINT(modernize-raw-string-literal)
        std::string many = "many{";
        for (int i = 0; i < 10000; ++i)
            // NOLINTNEXTLINE(modernize-raw-string-literal): as above
            many += "l" + std::to_string(i) + "=\"x\\\\" + std::to_string(i) + "\",";
        many += "} 3\n";
        const std::string text = "plain{v=\"" + big + "\"} 1\nesc{a=\"1\",v=\"" + escaped +
                                 "\",z=\"2\"} 2\n" + many + "long" + std::string(100000, '_') +
                                 " 4\nunterminated{v=\"" + big + "\n";
        const Collector c = run(text);
        QCOMPARE(c.samples.size(), 4u);
        QCOMPARE(c.samples[0].label("v").size(), static_cast<qsizetype>(big.size()));
        const QByteArray v = c.samples[1].label("v");
        QCOMPARE(v.size(), 100000 * 5);
        QVERIFY(v.startsWith("ab\"\\\nab\"\\\n"));
        QCOMPARE(c.samples[1].label("z"), "2");
        QCOMPARE(c.samples[2].labels.size(), 10000);
        QCOMPARE(c.samples[2].labels[9999].second, "x\\9999");
        QCOMPARE(c.samples[3].name.size(), 100004);
        QCOMPARE(c.errors.size(), 1u);
        QCOMPARE(c.errors[0].line, 5);
        QCOMPARE(c.errors[0].text.size(), 200u); // the offending line, cut short
    }

    void errorTextKeepsUtf8Whole() {
        std::string line = "x{a=\"" + std::string(194, 'a') + "\xC3\xA9\xC3\xA9\xC3\xA9";
        const Collector c = run(line + "\n");
        QCOMPARE(c.errors.size(), 1u);
        QCOMPARE(c.errors[0].text.size(), 199u); // 200 would split the second é
    }

    void emptyAndBlankInput() {
        ParseStats st;
        Collector c = run("", Format::Auto, &st);
        QCOMPARE(st.lines, 0u);
        QCOMPARE(st.scrapes, 0u);
        QCOMPARE(c.scrapes, 0);
        c = run("\n \t\n\r\n", Format::Auto, &st);
        QCOMPARE(st.lines, 3u);
        QCOMPARE(st.scrapes, 0u);
        QVERIFY(c.samples.empty() && c.errors.empty());
        c = run("# just a comment\n# TYPE\n", Format::Auto, &st);
        QCOMPARE(st.scrapes, 1u);
        QCOMPARE(c.errors.size(), 1u); // TYPE without a name
        // Explicit OpenMetrics without # EOF: the samples, and a warning for the missing end.
        c = run("a 1\n", Format::OpenMetrics, &st);
        QCOMPARE(c.samples.size(), 1u);
        QVERIFY(c.errors.empty());
        QCOMPARE(c.warnings.size(), 1u);
        QCOMPARE(c.warnings[0].line, 2);
    }

    // Each rule of the two specifications the parser enforces, with its own case: the kind
    // of finding (a bad line when the sample cannot be used, a warning when it can), where it
    // points, and how many samples still arrive.
    void specificationRules_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("format"); // Format
        QTest::addColumn<bool>("exposition");
        QTest::addColumn<int>("errors");
        QTest::addColumn<int>("warnings");
        QTest::addColumn<int>("line"); // of the first finding
        QTest::addColumn<int>("column");
        QTest::addColumn<QByteArray>("words");
        QTest::addColumn<int>("samples");
        const int a = static_cast<int>(Format::Auto), t4 = static_cast<int>(Format::Text004),
                  om = static_cast<int>(Format::OpenMetrics);
        const auto row = [](const char* name, const char* text, int format, bool exposition,
                            int errors, int warnings, int line, int column, const char* words,
                            int samples) {
            QTest::newRow(name) << QByteArray(text) << format << exposition << errors << warnings
                                << line << column << QByteArray(words) << samples;
        };
        // Counters.
        row("negative counter", "# TYPE c counter\nc_total 1\nc_total{a=\"1\"} -2\n", t4, true, 1,
            0, 3, 16, "must not be negative", 1);
        row("NaN counter", "# TYPE c counter\nc_total NaN\n# EOF\n", om, true, 1, 0, 2, 9,
            "must not be NaN", 0);
        row("counter _created may be anything", "# TYPE c counter\nc_total 1\nc_created -5\n", t4,
            true, 0, 0, 0, 0, "", 2);
        row("OpenMetrics counter without _total", "# TYPE c counter\nc 1\nc{a=\"b\"} 2\n# EOF\n",
            om, true, 0, 1, 2, 1, "_total", 2);
        row("0.0.4 counter without _total is fine", "# TYPE c counter\nc 1\n", t4, true, 0, 0, 0, 0,
            "", 1);
        // Histograms.
        row("bucket without le",
            "# TYPE h histogram\nh_bucket{x=\"1\"} 1\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n", t4,
            true, 1, 0, 2, 17, "'le' label", 2);
        row("le not a number", "# TYPE h histogram\nh_bucket{le=\"abc\"} 1\n", t4, true, 1, 0, 2,
            14, "not a number", 0);
        row("buckets out of order",
            "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"0.5\"} 1\n"
            "h_bucket{le=\"+Inf\"} 1\nh_count 1\n",
            t4, true, 0, 1, 3, 14, "out of order", 4);
        row("bucket counts fall",
            "# TYPE h histogram\nh_bucket{le=\"1\"} 5\nh_bucket{le=\"2\"} 3\n"
            "h_bucket{le=\"+Inf\"} 5\nh_count 5\n",
            t4, true, 0, 1, 3, 18, "cumulative", 4);
        row("no +Inf bucket", "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_count 1\n", t4, true, 0,
            1, 2, 14, "no le=\"+Inf\"", 2);
        row("count is not the +Inf bucket",
            "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 4\nh_count 5\nh_sum 2\n", t4, true, 0, 1, 3,
            9, "must be equal", 3);
        row("count and sum without buckets", "# TYPE h histogram\nh_count 5\nh_sum 2\n", t4, true,
            0, 1, 2, 9, "no buckets", 2);
        row("negative bucket count", "# TYPE h histogram\nh_bucket{le=\"+Inf\"} -1\n", t4, true, 1,
            0, 2, 21, "must not be negative", 0);
        row("negative count", "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count -1\n", t4, true,
            1, 0, 3, 9, "_count must not be negative", 1);
        row("OpenMetrics negative sum without negative bounds",
            "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count 1\nh_sum -3\n# EOF\n", om, true,
            0, 1, 4, 7, "negative", 3);
        row("0.0.4 negative sum is fine (negative observations)",
            "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count 1\nh_sum -3\n", t4, true, 0, 0, 0,
            0, "", 3);
        row("a _total name is not merged with its base",
            "requests_total 5\n# TYPE requests gauge\nrequests 1\nfoo_total 1\nbar 1\nfoo 2\n", t4,
            true, 0, 0, 0, 0, "", 5);
        row("negative sum with a negative bound is fine",
            "# TYPE h histogram\nh_bucket{le=\"-1\"} 1\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n"
            "h_sum -3\n",
            t4, true, 0, 0, 0, 0, "", 4);
        row("NaN sum", "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count 1\nh_sum NaN\n", t4,
            true, 0, 1, 4, 7, "NaN", 3);
        row("OpenMetrics counts are integers",
            "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1.5\nh_count 1.5\nh_sum 1\n# EOF\n", om,
            true, 0, 2, 2, 21, "integer", 3);
        row("gauge histogram negatives are warnings",
            "# TYPE g gaugehistogram\ng_bucket{le=\"+Inf\"} -1\ng_gcount -1\ng_gsum 0\n# EOF\n", om,
            true, 0, 2, 2, 21, "must not be negative", 3);
        row("not a histogram sample", "# TYPE h histogram\nh 1\nh_bucket{le=\"+Inf\"} 1\n", t4,
            true, 0, 1, 2, 1, "not a sample of histogram", 2);
        row("histograms per label set",
            "# TYPE h histogram\nh_bucket{g=\"0\",le=\"1\"} 1\nh_bucket{g=\"0\",le=\"+Inf\"} 2\n"
            "h_sum{g=\"0\"} 3\nh_count{g=\"0\"} 2\nh_bucket{le=\"1\",g=\"1\"} 0\n"
            "h_bucket{le=\"+Inf\",g=\"1\"} 0\nh_sum{g=\"1\"} 0\nh_count{g=\"1\"} 0\n",
            t4, true, 0, 0, 0, 0, "", 8);
        // Summaries.
        row("quantile missing", "# TYPE s summary\ns 1\n", t4, true, 1, 0, 2, 3, "'quantile' label",
            0);
        row("quantile out of range", "# TYPE s summary\ns{quantile=\"1.5\"} 1\n", t4, true, 1, 0, 2,
            13, "from 0 to 1", 0);
        row("quantiles out of order",
            "# TYPE s summary\ns{quantile=\"0.9\"} 1\ns{quantile=\"0.5\"} 1\ns_count 2\n", t4, true,
            0, 1, 3, 13, "quantile='0.5' after '0.9'", 3);
        row("negative summary count", "# TYPE s summary\ns_count -4\n", t4, true, 1, 0, 2, 9,
            "_count must not be negative", 0);
        row("NaN quantile values are fine (no observations)",
            "# TYPE s summary\ns{quantile=\"0.5\"} NaN\ns_sum 0\ns_count 0\n", t4, true, 0, 0, 0, 0,
            "", 3);
        // Info and state sets.
        row("info value not 1", "# TYPE i info\ni_info{v=\"1\"} 2\n# EOF\n", om, true, 0, 1, 2, 15,
            "must be 1", 1);
        row("state set value not 0 or 1", "# TYPE s stateset\ns{s=\"a\"} 2\n# EOF\n", om, true, 0,
            1, 2, 10, "0 or 1", 1);
        row("state set without its label", "# TYPE s stateset\ns{x=\"a\"} 1\n# EOF\n", om, true, 0,
            1, 2, 1, "label named like its family", 1);
        // Labels and exemplars.
        row("label twice", "a{x=\"1\",x=\"2\"} 1\nb 1\n", t4, true, 1, 0, 1, 9, "appears twice", 1);
        row("exemplar on a gauge", "# TYPE g gauge\ng 1 # {t=\"1\"} 1\n# EOF\n", om, true, 0, 1, 2,
            5, "exemplars only on", 1);
        row("exemplar on a counter's _total is fine",
            "# TYPE c counter\nc_total 1 # {t=\"1\"} 1\n# EOF\n", om, true, 0, 0, 0, 0, "", 1);
        row("exemplar labels over 128 characters",
            "# TYPE c counter\nc_total 1 # {trace_id=\"0123456789012345678901234567890123456789"
            "0123456789012345678901234567890123456789012345678901234567890123456789012345678901\"}"
            " 1\n# EOF\n",
            om, true, 0, 1, 2, 11, "over OpenMetrics' 128", 1);
        // Grouping and metadata.
        row("interleaved families", "# TYPE a gauge\n# TYPE b gauge\na 1\nb 1\na{x=\"2\"} 2\n", t4,
            true, 0, 1, 5, 1, "resume here", 3);
        row("interleaved names without metadata", "a 1\nb 1\na{x=\"2\"} 2\n", t4, true, 0, 1, 3, 1,
            "resume here", 3);
        row("a histogram without metadata is one group",
            "h_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\nh_bucket{le=\"+Inf\",x=\"1\"} 1\n", t4,
            true, 0, 0, 0, 0, "", 4);
        row("HELP twice", "# HELP a x\n# HELP a y\na 1\n", t4, true, 0, 1, 2, 1,
            "second HELP line for 'a' (the first is line 1)", 1);
        row("TYPE twice", "# TYPE a gauge\n# TYPE a counter\na 1\n", t4, true, 0, 1, 2, 1,
            "second TYPE", 1);
        row("TYPE after samples", "a 1\n# TYPE a counter\na{x=\"2\"} 2\n", t4, true, 0, 1, 2, 1,
            "after its samples", 2);
        row("TYPE after the samples of a family with HELP", "# HELP a x\na 1\n# TYPE a gauge\n", t4,
            true, 0, 1, 3, 1, "after its samples (from line 2)", 1);
        row("UNIT not in the name",
            "# TYPE a_seconds gauge\n# UNIT a_seconds milliseconds\na_seconds 1\n# EOF\n", om, true,
            0, 1, 2, 18, "does not end the family's name", 1);
        row("UNIT in the name is fine",
            "# TYPE a_seconds gauge\n# UNIT a_seconds seconds\na_seconds 1\n# EOF\n", om, true, 0,
            0, 0, 0, "", 1);
        row("UNIT twice",
            "# TYPE a_seconds gauge\n# UNIT a_seconds seconds\n# UNIT a_seconds seconds\n"
            "a_seconds 1\n# EOF\n",
            om, true, 0, 1, 3, 1, "second UNIT", 1);
        // Where OpenMetrics text ends, and what it allows in between.
        row("text after # EOF", "a 1\n# EOF\nb 2\n\nc 3\n", a, true, 1, 0, 3, 1,
            "2 lines after '# EOF' ignored", 1);
        row("# EOF missing", "a 1\n", om, true, 0, 1, 2, 1, "expected '# EOF'", 1);
        row("blank line in OpenMetrics", "a 1\n\nb 1\n# EOF\n", om, true, 0, 1, 2, 1, "blank line",
            2);
        row("comment in OpenMetrics", "# hello\na 1\n# EOF\n", om, true, 0, 1, 1, 1,
            "a comment other than", 1);
        row("comments and blank lines are fine in 0.0.4", "# hello\n\na 1\n", t4, true, 0, 0, 0, 0,
            "", 1);
        row("0.0.4 last line without a line feed", "a 1\nb 2", t4, true, 0, 1, 2, 4,
            "must end with a line feed", 2);
        // Each series once per scrape: another timestamp is another point of it, another label
        // value another series. (Series are compared as written: the same labels in another
        // order are not caught.)
        row("series twice",
            "# TYPE g gauge\ng{a=\"1\",b=\"2\"} 1\ng{a=\"1\",b=\"3\"} 1\n"
            "g{a=\"1\",b=\"2\"} 2\n",
            t4, true, 0, 1, 4, 1, "already in this scrape (line 2)", 3);
        row("series without labels twice", "a 1\na 2\n", t4, true, 0, 1, 2, 1,
            "already in this scrape (line 1)", 2);
        row("series twice at one timestamp",
            "# TYPE g gauge\ng{a=\"1\"} 1 1000\ng{a=\"1\"} 2 1000\n", t4, false, 0, 1, 3, 1,
            "at this timestamp", 2);
        row("a series again in a dump without timestamps is fine (scrapes may not show)",
            "a 1\na 2\n", t4, false, 0, 0, 0, 0, "", 2);
        row("a series at two timestamps is fine",
            "# TYPE g gauge\ng{a=\"1\"} 1 1000\ng{a=\"1\"} 2 2000\n", t4, false, 0, 0, 0, 0, "", 2);
    }

    void specificationRules() {
        QFETCH(QByteArray, text);
        QFETCH(int, format);
        QFETCH(bool, exposition);
        QFETCH(int, errors);
        QFETCH(int, warnings);
        QFETCH(int, line);
        QFETCH(int, column);
        QFETCH(QByteArray, words);
        QFETCH(int, samples);
        Collector c;
        const ParseStats st =
            parse(std::string_view(text.constData(), text.size()), c, static_cast<Format>(format),
                  exposition ? Scope::Exposition : Scope::Dump);
        const QString all = c.findingList();
        QVERIFY2(static_cast<int>(c.errors.size()) == errors, qPrintable(all));
        QVERIFY2(static_cast<int>(c.warnings.size()) == warnings, qPrintable(all));
        QCOMPARE(st.errors, static_cast<std::uint64_t>(errors));
        QCOMPARE(st.warnings, static_cast<std::uint64_t>(warnings));
        QCOMPARE(static_cast<int>(c.samples.size()), samples);
        if (errors + warnings == 0) return;
        const ParseError& first = errors > 0 ? c.errors[0] : c.warnings[0];
        QVERIFY2(first.line == line && first.column == column, qPrintable(all));
        QVERIFY2(first.message.find(words.constData()) != std::string::npos, qPrintable(all));
        if (first.line <= text.count('\n')) QVERIFY(!first.text.empty() || text.contains("\n\n"));
    }

    // What the rules do to a sample that stays: a dropped exemplar, a late TYPE ignored, one
    // exposition read as one scrape; and the same lines in a dump of scrapes.
    void specificationRulesKeepTheSample() {
        Collector c;
        parse("# TYPE g gauge\ng 1 # {t=\"1\"} 1\n# EOF\n", c, Format::OpenMetrics,
              Scope::Exposition);
        QCOMPARE(c.samples.size(), 1u);
        QVERIFY(!c.samples[0].hasExemplar);
        Collector late;
        ParseStats st =
            parse("a 1\n# TYPE a counter\na 2\n", late, Format::Text004, Scope::Exposition);
        QCOMPARE(st.scrapes, 1u);
        QCOMPARE(late.samples.at(1).type, MetricType::Unknown); // the late TYPE is not taken
        Collector dump;
        st = parse("a 1\n# TYPE a counter\na 2\n", dump, Format::Text004, Scope::Dump);
        QCOMPARE(st.scrapes, 1u); // in a dump the TYPE is taken from there on, as before
        QVERIFY(dump.warnings.empty());
        QCOMPARE(dump.samples.at(1).type, MetricType::Counter);
        Collector dumpEof;
        st = parse("a 1\n# EOF\nb 2\n# EOF\n", dumpEof, Format::Auto, Scope::Dump);
        QCOMPARE(st.scrapes, 2u);
        QVERIFY(dumpEof.errors.empty() && dumpEof.warnings.empty());
    }

    // Every rule of the two specifications, one row each: the text, what the rule makes of
    // it (Valid: no finding at all; Error: one bad line; Warning: one warning, the sample kept),
    // words of the message, the line it names, and how many samples arrive. The Valid rows are
    // texts a rule could be mistaken to refuse. "dump" rows read the text as a file of scrapes
    // (parse()'s default), where OpenMetrics still ends a scrape only at '# EOF'.
    void everyRuleOnce_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("format");
        QTest::addColumn<bool>("exposition");
        QTest::addColumn<int>("finding");
        QTest::addColumn<QByteArray>("words");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("samples");
        const int a = static_cast<int>(Format::Auto), t4 = static_cast<int>(Format::Text004),
                  om = static_cast<int>(Format::OpenMetrics);
        const bool dump = false, one = true;
        const auto rule = [](const char* name, const char* text, int format, bool exposition,
                             Finding finding, const char* words, int line, int samples) {
            QTest::newRow(name) << QByteArray(text) << format << exposition
                                << static_cast<int>(finding) << QByteArray(words) << line
                                << samples;
        };
        const Finding valid = Finding::Valid, error = Finding::Error, warning = Finding::Warning;

        // Values of counters (both formats).
        rule("counter: NaN", "# TYPE c counter\nc_total NaN\n# EOF\n", a, dump, error,
             "must not be NaN", 2, 0);
        rule("counter: negative", "# TYPE c counter\nc -1\n", t4, dump, error,
             "must not be negative", 2, 0);
        rule("valid: counter +Inf and -0",
             "# TYPE c counter\nc_total{a=\"1\"} +Inf\n"
             "c_total{a=\"2\"} -0\n# EOF\n",
             a, dump, valid, "", 0, 2);

        // Histograms.
        rule("histogram: no buckets (only _created)", "# TYPE h histogram\nh_created 1\n# EOF\n", a,
             dump, warning, "no buckets", 2, 1);
        rule("histogram: no +Inf bucket",
             "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_count 1\nh_sum 1\n# EOF\n", a, dump,
             warning, "no le=\"+Inf\"", 2, 3);
        rule(
            "OM histogram: Metrics interleaved",
            "# TYPE h histogram\nh_bucket{a=\"1\",le=\"+Inf\"} 1\nh_bucket{a=\"2\",le=\"+Inf\"} 1\n"
            "h_count{a=\"2\"} 1\nh_sum{a=\"2\"} 0\nh_count{a=\"1\"} 1\nh_sum{a=\"1\"} 0\n# EOF\n",
            a, dump, warning, "resume here", 6, 6);
        rule("OM histogram: _count without _sum",
             "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n# EOF\n", a, dump, warning,
             "count but no sum", 3, 2);
        rule("OM histogram: _sum beside negative buckets",
             "# TYPE h histogram\nh_bucket{le=\"-1\"} 0\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n"
             "h_sum 2\n# EOF\n",
             a, dump, warning, "negative bucket bounds and a _sum", 5, 4);
        rule("OM gauge histogram: negative _gsum, no negative bucket",
             "# TYPE g gaugehistogram\ng_bucket{le=\"+Inf\"} 1\ng_gcount 1\ng_gsum -2\n# EOF\n", a,
             dump, warning, "negative with no negative bucket bound", 4, 3);
        rule(
            "OM histogram: le on _count",
            "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count{le=\"+Inf\"} 1\nh_sum 0\n# EOF\n",
            a, dump, warning, "has an 'le' label", 3, 3);
        rule("valid: OM histogram, MetricPoints at two timestamps",
             "# TYPE h histogram\nh_bucket{le=\"1\"} 0 1\nh_bucket{le=\"+Inf\"} 1 1\nh_count 1 1\n"
             "h_sum 2 1\nh_bucket{le=\"1\"} 1 2\nh_bucket{le=\"+Inf\"} 2 2\nh_count 2 2\n"
             "h_sum 3 2\n# EOF\n",
             a, one, valid, "", 0, 8);
        rule("valid: 0.0.4 dump, a histogram at two timestamps",
             "# TYPE h histogram\nh_bucket{le=\"1\"} 0 1000\nh_bucket{le=\"+Inf\"} 1 1000\n"
             "h_count 1 1000\nh_bucket{le=\"1\"} 1 2000\nh_bucket{le=\"+Inf\"} 2 2000\n"
             "h_count 2 2000\n",
             t4, dump, valid, "", 0, 6);
        rule("valid: 0.0.4 histogram, count and sum without each other",
             "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n", t4, one, valid, "", 0, 2);

        // Summaries.
        rule("OM summary: negative quantile value",
             "# TYPE s summary\ns{quantile=\"0.5\"} -1\n# EOF\n", a, dump, warning,
             "must not be negative", 2, 1);
        rule("OM summary: negative _sum", "# TYPE s summary\ns_sum -1\ns_count 1\n# EOF\n", a, dump,
             warning, "sum must not be negative", 2, 2);
        rule("OM summary: quantile on _sum", "# TYPE s summary\ns_sum{quantile=\"0.5\"} 1\n# EOF\n",
             a, dump, warning, "has a 'quantile' label", 2, 1);
        rule("0.0.4 summary: quantiles out of order",
             "# TYPE s summary\ns{quantile=\"0.9\"} 1\ns{quantile=\"0.5\"} 1\n", t4, one, warning,
             "out of order", 3, 2);
        rule("valid: OM summary, quantiles in any order",
             "# TYPE s summary\ns{quantile=\"0.9\"} 1\ns{quantile=\"0.5\"} 1\n# EOF\n", a, one,
             valid, "", 0, 2);

        // Metrics and MetricPoints (OpenMetrics: neither interleaves; time goes forward).
        rule("OM: a gauge's Metrics interleaved",
             "# TYPE g gauge\ng{x=\"1\"} 1\ng{x=\"2\"} 1\ng{x=\"1\"} 2 5\n# EOF\n", a, one, warning,
             "resume here", 4, 3);
        rule("OM: MetricPoints interleaved",
             "# TYPE s summary\ns_count{a=\"b\"} 0 123\ns_count{a=\"b\"} 0 456\n"
             "s_sum{a=\"b\"} 0 123\ns_sum{a=\"b\"} 0 456\n# EOF\n",
             a, one, warning, "timestamp goes back", 4, 4);
        rule("valid: OM MetricPoints each whole, in order",
             "# TYPE s summary\ns_count{a=\"b\"} 0 123\ns_sum{a=\"b\"} 0 123\n"
             "s_count{a=\"b\"} 0 456\ns_sum{a=\"b\"} 0 456\ns_count{a=\"c\"} 0 123\n"
             "s_sum{a=\"c\"} 0 123\n# EOF\n",
             a, one, valid, "", 0, 6);
        rule("valid: OM one series twice at one timestamp", "# TYPE g gauge\ng 1 1\ng 2 1\n# EOF\n",
             a, one, valid, "", 0, 2);
        rule("valid: OM one series at two timestamps",
             "# TYPE g gauge\ng 17 123\ng 18 456\n# EOF\n", a, one, valid, "", 0, 2);
        rule("both: one series twice without timestamps", "a 1\na 2\n# EOF\n", a, one, warning,
             "already in this scrape", 2, 2);

        // Exemplars (OpenMetrics: only on a counter's _total and a histogram's buckets).
        rule("OM exemplar: on a gauge", "# TYPE g gauge\ng 1 # {t=\"1\"} 1\n# EOF\n", a, dump,
             warning, "exemplars only on", 2, 1);
        rule("OM exemplar: on a sample with no TYPE", "g 1 # {t=\"1\"} 1\n# EOF\n", a, dump,
             warning, "exemplars only on", 1, 1);
        rule("OM exemplar: on a counter's _created",
             "# TYPE c counter\nc_total 1\nc_created 5 # {t=\"1\"} 1\n# EOF\n", a, dump, warning,
             "exemplars only on", 3, 2);
        rule("OM exemplar: above its bucket's bound",
             "# TYPE h histogram\nh_bucket{le=\"1\"} 1 # {t=\"1\"} 2.5\nh_bucket{le=\"+Inf\"} 1\n"
             "h_count 1\nh_sum 2.5\n# EOF\n",
             a, dump, warning, "above its bucket's bound", 2, 4);
        rule("OM exemplar: timestamp NaN", "# TYPE c counter\nc_total 1 # {t=\"1\"} 1 NaN\n# EOF\n",
             a, dump, error, "exemplar's timestamp", 2, 0);
        rule("OM exemplar: timestamp -Inf",
             "# TYPE c counter\nc_total 1 # {t=\"1\"} 1 -Inf\n# EOF\n", a, dump, error,
             "exemplar's timestamp", 2, 0);
        rule(
            "valid: OM exemplars on buckets, in range, 20-digit timestamp",
            "# TYPE h gaugehistogram\nh_bucket{le=\"1\"} 1 # {} 0.5\n"
            "h_bucket{le=\"+Inf\"} 2 # {t=\"x\"} 7 12345678901234567890.1\nh_gcount 2\nh_gsum 7.5\n"
            "# EOF\n",
            a, one, valid, "", 0, 4);

        // Metadata.
        rule("OM dump: second TYPE", "# TYPE a gauge\n# TYPE a gauge\na 1\n# EOF\n", a, dump,
             warning, "second TYPE", 2, 1);
        rule("OM dump: second HELP", "# HELP a x\n# HELP a y\na 1\n# EOF\n", a, dump, warning,
             "second HELP", 2, 1);
        rule("OM dump: TYPE after the samples", "# HELP a x\na 1\n# TYPE a gauge\n# EOF\n", a, dump,
             warning, "after its samples", 3, 1);
        rule("OM dump: HELP after the samples of a name without metadata",
             "a 1\n# HELP a x\n# EOF\n", a, dump, warning, "after its samples", 2, 1);
        rule("OM dump: a family's samples resume", "a 1\nb 1\na{x=\"1\"} 2\n# EOF\n", a, dump,
             warning, "resume here", 3, 3);
        rule("valid: 0.0.4 dump, a repeated TYPE starts the next scrape",
             "# TYPE a gauge\na 1\n# TYPE a gauge\na 2\n", a, dump, valid, "", 0, 2);
        rule("OM UNIT: no unit token",
             "# TYPE a_seconds gauge\n# UNIT a_seconds\na_seconds 1\n"
             "# EOF\n",
             a, dump, warning, "the unit after the name", 2, 1);
        rule("OM UNIT: not the end of the name", "# TYPE a gauge\n# UNIT a seconds\na 1\n# EOF\n",
             a, dump, warning, "does not end the family's name", 2, 1);
        rule("OM UNIT: on an info family",
             "# TYPE a_seconds info\n# UNIT a_seconds seconds\na_seconds_info 1\n# EOF\n", a, dump,
             warning, "info family has no unit", 2, 1);
        rule("OM UNIT: on a state set (UNIT first)",
             "# UNIT a_seconds seconds\n# TYPE a_seconds stateset\n"
             "a_seconds{a_seconds=\"x\"} 1\n# EOF\n",
             a, dump, warning, "stateset family has no unit", 2, 1);
        rule("valid: OM empty UNIT and HELP (one space after the name)",
             "# TYPE a_seconds gauge\n# UNIT a_seconds \n# HELP a_seconds \na_seconds 1\n# EOF\n",
             a, one, valid, "", 0, 1);
        rule("OM HELP: no text", "# HELP a\na 1\n# EOF\n", a, dump, warning,
             "the help text after the name", 1, 1);
        rule("valid: OM HELP text with blanks of its own",
             "# HELP a  two  spaces \ta \na 1\n# EOF\n", a, one, valid, "", 0, 1);
        rule("OM TYPE: untyped", "# TYPE u untyped\nu 1\n# EOF\n", a, dump, warning,
             "'untyped' is 0.0.4's", 1, 1);
        rule("0.0.4 TYPE: an OpenMetrics type", "# TYPE i info\ni_info 1\n", t4, one, warning,
             "is OpenMetrics'", 1, 1);
        rule("valid: 0.0.4 TYPE line with blanks and tabs", "#  TYPE\ta \t gauge\na 1\n", t4, one,
             valid, "", 0, 1);

        // Names.
        rule("OM: family a_total beside counter a",
             "# TYPE a counter\na_total 1\n# TYPE a_total gauge\na_total 2\n# EOF\n", a, dump,
             warning, "clashes with the samples of counter 'a'", 3, 2);
        rule("OM: counter a after family a_total",
             "# TYPE a_total gauge\na_total 2\n# TYPE a counter\na_created 1\n# EOF\n", a, dump,
             warning, "has samples named 'a_total'", 3, 2);
        rule("OM: gauge foo_created beside counter foo",
             "# TYPE foo counter\nfoo_total 1\n# TYPE foo_created gauge\nfoo_created 2\n# EOF\n", a,
             dump, warning, "clashes with the samples of counter 'foo'", 3, 2);
        rule("valid: 0.0.4 counter a and counter a_total",
             "# TYPE a counter\na 1\n# TYPE a_total counter\na_total 2\n", t4, one, valid, "", 0,
             2);
        rule("valid: OM gauge a_total beside gauge a",
             "# TYPE a gauge\na 1\n# TYPE a_total gauge\na_total 2\n# EOF\n", a, one, valid, "", 0,
             2);
        rule("OM: family name beginning with '_'", "_a 1\n# EOF\n", a, dump, warning,
             "reserves such names", 1, 1);
        rule("OM: label name beginning with '_'", "a{_x=\"1\"} 1\n# EOF\n", a, dump, warning,
             "reserves those", 1, 1);
        rule("both: label name with ':'", "a{b:c=\"1\"} 1\nb 1\n", t4, one, error, "no ':'", 1, 1);
        rule("valid: metric name with ':'", "a:b{c=\"1\"} 1\n# EOF\n", a, one, valid, "", 0, 1);

        // Layout: OpenMetrics separates tokens with one space and has no other blanks; 0.0.4
        // takes any run of blanks and tabs.
        rule("OM: two spaces before the value", "a  1\n# EOF\n", a, dump, warning,
             "exactly one space", 1, 1);
        rule("OM: a tab before the value", "a\t1\n# EOF\n", a, dump, warning, "exactly one space",
             1, 1);
        rule("OM: two spaces before the timestamp", "a 1  5\n# EOF\n", a, dump, warning,
             "exactly one space", 1, 1);
        rule("OM: two spaces before an exemplar", "# TYPE c counter\nc_total 1  # {} 1\n# EOF\n", a,
             dump, warning, "exactly one space", 2, 1);
        rule("OM: a blank at the start", " a 1\n# EOF\n", a, dump, warning, "at the start", 1, 1);
        rule("OM: a blank at the end", "a 1 \n# EOF\n", a, dump, warning, "at the end", 1, 1);
        rule("OM: a blank between name and label set", "a {b=\"c\"} 1\n# EOF\n", a, dump, warning,
             "allows none", 1, 1);
        rule("OM: a blank inside the label set", "a{b=\"c\", d=\"e\"} 1\n# EOF\n", a, dump, warning,
             "allows none", 1, 1);
        rule("OM: a comma before '}'", "a{b=\"c\",} 1\n# EOF\n", a, dump, warning,
             "a comma before '}'", 1, 1);
        rule("OM: two spaces after '#'", "#  TYPE a gauge\na 1\n# EOF\n", a, dump, warning,
             "exactly one space", 1, 1);
        rule("OM: two spaces before the type", "# TYPE a  gauge\na 1\n# EOF\n", a, dump, warning,
             "exactly one space", 1, 1);
        rule("OM: carriage returns", "a 1\r\nb 1\r\n# EOF\r\n", a, dump, warning, "carriage return",
             1, 2);
        rule("OM: a hexadecimal value", "a 0x1p-3\n# EOF\n", a, dump, warning, "hexadecimal", 1, 1);
        rule("valid: 0.0.4 blanks, tabs, a comma before '}', hex", "a{b=\"c\", } \t0x1p-3\t 5 \n",
             t4, one, valid, "", 0, 1);

        // Where an OpenMetrics text ends.
        rule("OM: an empty text has no '# EOF'", "", om, one, warning, "expected '# EOF'", 1, 0);
        rule("OM: a blank line before '# EOF'", "\n# EOF\n", om, one, warning, "blank line", 1, 0);
        rule("OM: a blank line before the first sample", "\na 1\n# EOF\n", a, dump, warning,
             "blank line", 1, 1);
        rule("OM: a blank line after '# EOF'", "a 1\n# EOF\n\n", a, one, warning,
             "a blank line after '# EOF'", 3, 1);
        rule("OM: a line after '# EOF'", "a 1\n# EOF\nb 1\n", a, one, error, "after '# EOF'", 3, 1);
        rule("OM: no '# EOF' at the end", "a 1\n", om, one, warning, "expected '# EOF'", 2, 1);
        rule("valid: OM '# EOF' without a line feed", "a 1\n# EOF", a, one, valid, "", 0, 1);
        rule("valid: OM nothing but '# EOF'", "# EOF\n", om, one, valid, "", 0, 0);
        rule("valid: OM metadata without samples", "# TYPE a gauge\n# HELP a x\n# EOF\n", a, one,
             valid, "", 0, 0);

        // Timestamps.
        rule("valid: OM timestamp of 20 integer digits", "a 1 12345678901234567890.1\n# EOF\n", a,
             one, valid, "", 0, 1);
        rule("valid: OM timestamp 1e300", "a 1 1e300\n# EOF\n", a, one, valid, "", 0, 1);
        rule("OM: timestamp NaN", "a 1 NaN\n# EOF\n", a, one, error, "timestamp in seconds", 1, 0);
        rule("OM: timestamp goes back", "a 1 2\na 1 1\n# EOF\n", a, one, warning,
             "timestamp goes back", 2, 2);
        rule("valid: 0.0.4 timestamp past 2262", "a 1 9300000000000000\n", t4, one, valid, "", 0,
             1);
        rule("0.0.4: timestamp past int64", "a 1 9223372036854775808\n", t4, one, error,
             "integer milliseconds", 1, 0);
    }

    void everyRuleOnce() {
        QFETCH(QByteArray, text);
        QFETCH(int, format);
        QFETCH(bool, exposition);
        QFETCH(int, finding);
        QFETCH(QByteArray, words);
        QFETCH(int, line);
        QFETCH(int, samples);
        Collector c;
        parse(std::string_view(text.constData(), text.size()), c, static_cast<Format>(format),
              exposition ? Scope::Exposition : Scope::Dump);
        const QString all = c.findingList();
        const auto kind = static_cast<Finding>(finding);
        QVERIFY2(c.errors.size() == (kind == Finding::Error ? 1u : 0u), qPrintable(all));
        QVERIFY2(c.warnings.size() == (kind == Finding::Warning ? 1u : 0u), qPrintable(all));
        QCOMPARE(static_cast<int>(c.samples.size()), samples);
        if (kind == Finding::Valid) return;
        const ParseError& f = kind == Finding::Error ? c.errors[0] : c.warnings[0];
        QVERIFY2(f.line == line, qPrintable(all));
        QVERIFY2(f.message.find(words.constData()) != std::string::npos, qPrintable(all));
    }

    // The project's fixtures break exactly the rules they were written to break, and no other
    // (the rules are not so strict they cry wolf). Real exporters' files: test_prometheus_corpus.
    void fixturesBreakOnlyTheirOwnRules() {
        const struct {
            const char* file;
            Format format;
            int errors, warnings;
        } files[] = {
            // Line 10, a quoted name in braces with no value, is bad.
            {"prometheus/exposition.prom", Format::Auto, 1, 0},
            {"prometheus/alltypes.om.txt", Format::Auto, 0, 0},
            {"prometheus/histogram.om.txt", Format::Auto, 0, 0},
            {"prometheus/selfscrape.prom.txt", Format::Text004, 0, 0},
            {"prometheus/selfscrape.nometa.prom.txt", Format::Text004, 0, 0},
            {"prometheus/tsdb-dump.om.txt", Format::Auto, 0, 0},
            // Saved without its final line feed.
            {"dcgm/scrape.txt", Format::Auto, 0, 1},
            {"dcgm/pod_labels.txt", Format::Auto, 0, 0},
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

    // An exception from the sink ends the parse quietly; parse() itself never throws.
    void throwingSinkDoesNotEscape() {
        class Throwing : public SampleSink {
        public:
            int errors = 0;
            std::string last;
            void sample(const Sample& s) override {
                if (s.value == 2) throw std::runtime_error("sink is full");
            }
            void error(const ParseError& e) override {
                ++errors;
                last = e.message;
            }
        } sink;
        ParseStats st;
        try {
            st = parse("a 1\na 2\na 3\n", sink);
        } catch (...) {
            QFAIL("parse() let an exception out");
        }
        QCOMPARE(st.samples, 2u); // the second was handed over when it threw
        QCOMPARE(sink.errors, 1);
        QVERIFY(sink.last.find("sink is full") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestPrometheusText)
#include "test_prometheus_text.moc"
