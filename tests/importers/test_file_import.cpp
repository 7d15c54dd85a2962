// File imports: long-format CSV and JSONL (times in every accepted form, bad lines reported with
// file:line:column and skipped, the rest kept; batches, progress and cancel on a file bigger than
// one read block) and BMS bus messages (topic and payload parsing, metadata, quality flags, the
// bms.json preset, a mosquitto_sub capture).
#include "importers/formats/bms_message.h"
#include "importers/formats/long_format_import.h"
#include "importers/formats/telemetry_loader.h"
#include "importers/recording/recording_import.h"
#include "importers/recording/recording_reader.h"
#include "support/test_floors.h"
#include "support/test_paths.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>

using namespace ft;

namespace {

constexpr model::TimeNs kMs = model::kNsPerMs;
constexpr model::TimeNs k063341_250 = 1'796'020'421'250 * kMs; // 2026-11-30T06:33:41.250Z

struct Collected {
    std::vector<model::Sample> samples;
    int batches = 0;
    importers::ImportHooks hooks() {
        importers::ImportHooks h;
        h.onBatch = [this](model::SampleBatch&& b) {
            ++batches;
            samples.insert(samples.end(), b.samples.begin(), b.samples.end());
        };
        return h;
    }
};

bool hasProblem(const importers::ImportReport& r, int line, const std::string& key,
                const std::string& says) {
    for (const auto& e : r.problems)
        if (e.line == line && e.key == key && e.message.find(says) != std::string::npos)
            return true;
    return false;
}

std::string describe(const importers::ImportReport& r) {
    std::string out;
    for (const auto& e : r.problems)
        out += e.toString() + "\n";
    return out;
}

importers::MappingRules bmsPreset() {
    auto rules = importers::loadMappingRules(FT_SOURCE_PATH("/resources/mappings/bms.json"));
    if (!rules) qFatal("%s", rules.error().toString().c_str());
    return std::move(*rules);
}

} // namespace

class TestFileImport : public QObject {
    Q_OBJECT
    std::shared_ptr<const model::Topology> m_demo;

    model::EntityId id(model::EntityKind kind, const char* name) const {
        return m_demo->find(kind, name).value();
    }

private slots:
    void initTestCase() { m_demo = testing::demoFloor(); }

    void timeFormats() {
        using importers::parseTimeText;
        QCOMPARE(importers::parseRfc3339("1970-01-01T00:00:00Z"), std::optional<model::TimeNs>(0));
        QCOMPARE(parseTimeText("2026-11-30T06:33:41.250Z"), std::optional(k063341_250));
        QCOMPARE(parseTimeText("2026-11-30 08:33:41.25+02:00"), std::optional(k063341_250));
        QCOMPARE(parseTimeText("2026-11-30t06:33:41.250000000z"), std::optional(k063341_250));
        QCOMPARE(parseTimeText("2026-11-30T06:33:41.250"),
                 std::optional(k063341_250));                                    // no zone: UTC
        QCOMPARE(parseTimeText("1796020421.25"), std::optional(k063341_250));    // seconds
        QCOMPARE(parseTimeText("1796020421250"), std::optional(k063341_250));    // ms
        QCOMPARE(parseTimeText("1796020421250000"), std::optional(k063341_250)); // us
        QCOMPARE(parseTimeText("1796020421250000123"),
                 std::optional(k063341_250 + 123)); // ns, exact
        QCOMPARE(parseTimeText("1796020421", importers::EpochUnit::Milliseconds),
                 std::optional<model::TimeNs>(1'796'020'421 * kMs));
        for (const char* bad : {"", "yesterday", "2026-13-01T00:00:00Z", "2026-11-30T06:33",
                                "2026-11-30T06:33:41+2:00", "2026-11-30T06:33:41.Z", "12abc",
                                "2026-11-30T06:33:41Zjunk"})
            QVERIFY2(!parseTimeText(bad), bad);
    }

    void csvGoodAndBadLines() {
        Collected got;
        auto report = importers::importLongFormatFile(
            FT_TEST_DATA_PATH("/telemetry/long/samples.csv"), *m_demo, got.hooks());
        QVERIFY2(report, report ? "" : report.error().toString().c_str());
        QCOMPARE(report->lines, 11u);
        QCOMPARE(report->samples, 4u);
        QCOMPARE(report->badLines, 5u);
        QCOMPARE(got.samples.size(), 4u);
        QCOMPARE(got.samples[0].time, k063341_250);
        QCOMPARE(got.samples[0].channel, model::ChannelId(model::ch::GpuTemperature));
        QCOMPARE(got.samples[0].entity, id(model::EntityKind::Gpu, "A03 tray 02 GPU 1"));
        QCOMPARE(got.samples[0].value, 71.5f);
        QCOMPARE(got.samples[1].time, 1'796'020'422 * model::kNsPerSecond);
        QCOMPARE(got.samples[1].entity, id(model::EntityKind::Rack, "A03"));
        QCOMPARE(got.samples[2].time, 1'796'020'422'500 * kMs);
        QCOMPARE(got.samples[2].entity, id(model::EntityKind::Cdu, "CDU A1"));
        QCOMPARE(got.samples[3].entity, id(model::EntityKind::Pump, "CDU A1 pump 2"));
        QCOMPARE(got.samples[3].time, (1'796'020'425 - 7200) * model::kNsPerSecond);
        QCOMPARE(report->firstTime, got.samples[3].time);
        QCOMPARE(report->lastTime, got.samples[2].time);

        const auto& r = *report;
        QVERIFY2(hasProblem(r, 6, "entity", "no rack named 'A99'"), describe(r).c_str());
        QVERIFY2(hasProblem(r, 7, "channel", "unknown channel 'rack.powr'"), describe(r).c_str());
        QVERIFY2(hasProblem(r, 8, "time", "RFC 3339"), describe(r).c_str());
        QVERIFY2(hasProblem(r, 9, "channel", "belongs to gpu entities"), describe(r).c_str());
        QVERIFY2(hasProblem(r, 10, "", "expected 4 fields"), describe(r).c_str());
        for (const auto& e : r.problems)
            QVERIFY(e.file.ends_with("samples.csv"));
        // The column points at the field: line 7's channel starts after
        // "2026-11-30T06:33:43Z,rack:A03,".
        for (const auto& e : r.problems)
            if (e.line == 7) QCOMPARE(e.column, 31);
    }

    void csvWithoutHeaderAndQuoting() {
        Collected got;
        const std::string text = "1796020422,\"rack:A03\",rack.power,142\n"
                                 "1796020423, \"gpu:A03 tray 02 GPU 1\" , gpu.power , 900.5 \r\n"
                                 "1796020424,\"rack:A0\"\"3\",rack.power,1\n"
                                 "1796020425,\"rack:A03,rack.power,1\n"
                                 "\n# comment\n";
        auto report = importers::importLongFormatText(text, "inline.csv", *m_demo, got.hooks());
        QVERIFY(report);
        QCOMPARE(report->samples, 2u);
        QCOMPARE(got.samples[1].value, 900.5f);
        QCOMPARE(got.samples[1].channel, model::ChannelId(model::ch::GpuPower));
        QCOMPARE(report->badLines, 2u);
        QVERIFY2(hasProblem(*report, 3, "entity", "no rack named 'A0\"3'"),
                 describe(*report).c_str());
        QVERIFY2(hasProblem(*report, 4, "", "unterminated quoted field"),
                 describe(*report).c_str());
    }

    void csvHeaderErrors() {
        Collected got;
        auto reordered = importers::importLongFormatText(
            "value,channel,timestamp,entity\n5,rack.power,1796020422,rack:B01\n", "r.csv", *m_demo,
            got.hooks());
        QVERIFY(reordered);
        QCOMPARE(reordered->samples, 1u);
        QCOMPARE(got.samples[0].entity, id(model::EntityKind::Rack, "B01"));

        auto missing = importers::importLongFormatText(
            "# exported\ntime,entity,value\n1,rack:A01,5\n", "m.csv", *m_demo, got.hooks());
        QVERIFY(!missing);
        QCOMPARE(missing.error().line, 2);
        QVERIFY(missing.error().message.find("no channel column") != std::string::npos);

        auto twice = importers::importLongFormatText("time,entity,metric,channel,value\n", "t.csv",
                                                     *m_demo, got.hooks());
        QVERIFY(!twice);
        QVERIFY(twice.error().message.find("twice") != std::string::npos);

        auto absent =
            importers::importLongFormatFile("/nonexistent/samples.csv", *m_demo, got.hooks());
        QVERIFY(!absent);
        QCOMPARE(absent.error().file, std::string("/nonexistent/samples.csv"));
    }

    void jsonlGoodAndBadLines() {
        Collected got;
        auto report = importers::importLongFormatFile(
            FT_TEST_DATA_PATH("/telemetry/long/samples.jsonl"), *m_demo, got.hooks());
        QVERIFY2(report, report ? "" : report.error().toString().c_str());
        QCOMPARE(report->samples, 4u);
        QCOMPARE(report->badLines, 4u);
        QCOMPARE(got.samples[0].time, k063341_250);
        QCOMPARE(got.samples[1].time,
                 model::TimeNs{1'796'020'422'000'000'123}); // ns survive the JSON number
        QCOMPARE(got.samples[2].channel, model::ChannelId(model::ch::RackLeakDetected));
        QCOMPARE(got.samples[2].value, 1.0f);
        QCOMPARE(got.samples[3].entity, model::EntityId{17});
        const auto& r = *report;
        QVERIFY2(hasProblem(r, 4, "value", "missing required key"), describe(r).c_str());
        QVERIFY2(hasProblem(r, 5, "value", "expected a number"), describe(r).c_str());
        QVERIFY2(hasProblem(r, 6, "", "expected ',' or '}'"), describe(r).c_str());
        QVERIFY2(hasProblem(r, 7, "", "expected a JSON object"), describe(r).c_str());
    }

    void streamsBatchesProgressAndCancel() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("big.csv").toStdString();
        constexpr int kLines = 40000; // ~2 MB: lines straddle the 1 MiB read blocks
        {
            std::ofstream out(path);
            out << "time,entity,channel,value\n";
            for (int i = 0; i < kLines; ++i)
                out << (1796020421000LL + i) << ",gpu:A03 tray 02 GPU " << (i % 4)
                    << ",gpu.utilization," << (i % 100) << "\n";
        }
        Collected got;
        auto hooks = got.hooks();
        hooks.batchSize = 10000;
        std::vector<std::pair<std::uint64_t, std::uint64_t>> progress;
        hooks.onProgress = [&](std::uint64_t done, std::uint64_t total) {
            progress.emplace_back(done, total);
        };
        auto report = importers::importLongFormatFile(path, *m_demo, hooks);
        QVERIFY(report);
        QCOMPARE(report->badLines, 0u);
        QCOMPARE(report->samples, std::uint64_t(kLines));
        QCOMPARE(got.batches, kLines / 10000);
        QVERIFY(progress.size() >= 2);
        QCOMPARE(progress.back().first, progress.back().second);
        QCOMPARE(got.samples[12345].value, 45.0f);
        QCOMPARE(got.samples[12345].time, (1796020421000LL + 12345) * kMs);

        Collected partial;
        std::atomic<bool> cancel{false};
        auto cancelling = partial.hooks();
        cancelling.cancel = &cancel;
        cancelling.onProgress = [&](std::uint64_t, std::uint64_t) { cancel = true; };
        auto stopped = importers::importLongFormatFile(path, *m_demo, cancelling);
        QVERIFY(stopped);
        QVERIFY(stopped->cancelled);
        QVERIFY(stopped->samples > 0 && stopped->samples < std::uint64_t(kLines));
        QCOMPARE(partial.samples.size(), stopped->samples); // what was read still arrives
    }

    void bmsParse() {
        auto v = importers::parseBmsMessage(
            "BMS/v1/PUB/Value/Rack/RackLiquidSupplyTemperature/site1/row3/A03/supply",
            R"({ "value": 22.96215, "timestamp": 1743620423000, "quality": 1 })");
        QVERIFY2(v, v ? "" : v.error().toString().c_str());
        QCOMPARE(v->kind, importers::BmsMessageKind::Value);
        QCOMPARE(v->publisher, std::string("PUB"));
        QCOMPARE(v->objectType, std::string("Rack"));
        QCOMPARE(v->pointType, std::string("RackLiquidSupplyTemperature"));
        QCOMPARE(v->tagPath, std::string("site1/row3/A03/supply"));
        QCOMPARE(*v->value, 22.96215);
        QCOMPARE(v->time, 1'743'620'423'000 * kMs);
        QVERIFY(v->goodQuality());

        auto flagged =
            importers::parseBmsMessage("BMS/v1/PUB/Value/CDU/LiquidFlow/x",
                                       R"({"value": null, "timestamp": 1, "quality": 0})");
        QVERIFY(flagged);
        QVERIFY(!flagged->value);
        QVERIFY(!flagged->goodQuality());

        auto md = importers::parseBmsMessage(
            "BMS/v1/PUB/Metadata/CDU/LiquidTemperature/DC01/CDU-02/SecLoop/SupTemp",
            R"({"objectType": "CDU", "pointType": "LiquidTemperature", "objectName": "CDU B1", "objectId": "B1",
                "processArea": ["Secondary", "Supply"], "engUnit": "C", "servesId": ["B01"]})");
        QVERIFY2(md, md ? "" : md.error().toString().c_str());
        QCOMPARE(md->kind, importers::BmsMessageKind::Metadata);
        QCOMPARE(md->metadata.objectName, std::string("CDU B1"));
        QCOMPARE(md->metadata.processArea.size(), 2u);
        QCOMPARE(md->pointKey(), std::string("CDU/LiquidTemperature/DC01/CDU-02/SecLoop/SupTemp"));

        struct Bad {
            const char* topic;
            const char* payload;
            const char* key;
            const char* says;
        };
        for (const Bad& b :
             {Bad{"BMS/v1/PUB/Value/Rack/RackPower",
                  R"({"value": 1, "timestamp": 1, "quality": 1})", "", "expected a topic"},
              Bad{"BCM/v1/PUB/Value/Rack/RackPower/t", R"({})", "", "BMS/v1/"},
              Bad{"BMS/v1/PUB/Reading/Rack/RackPower/t", R"({})", "", "Value or Metadata"},
              Bad{"BMS/v1/MEPAI/Metadata/CDU/X/t", R"({})", "", "published by the BMS only"},
              Bad{"BMS/v1/PUB/Value/Rack/RackPower/t", R"({"value": 1, "timestamp": 1})", "quality",
                  "missing"},
              Bad{"BMS/v1/PUB/Value/Rack/RackPower/t",
                  R"({"value": "1", "timestamp": 1, "quality": 1})", "value", "number or null"},
              Bad{"BMS/v1/PUB/Value/Rack/RackPower/t",
                  R"({"value": 1, "timestamp": 1.5, "quality": 1})", "timestamp", "milliseconds"},
              Bad{"BMS/v1/PUB/Value/Rack/RackPower/t", R"([1, 2])", "", "JSON object"},
              Bad{"BMS/v1/PUB/Metadata/Rack/RackPower/t", R"({"pointType": "RackFlow"})",
                  "pointType", "does not match"}}) {
            auto r = importers::parseBmsMessage(b.topic, b.payload);
            QVERIFY2(!r, b.topic);
            QVERIFY2(r.error().key == b.key && r.error().message.find(b.says) != std::string::npos,
                     r.error().toString().c_str());
            QCOMPARE(r.error().file, std::string(b.topic));
        }
    }

    void bmsMapperWithPreset() {
        importers::BmsMapper mapper(bmsPreset(), *m_demo);
        std::vector<model::Sample> out;
        auto apply = [&](const char* topic, const char* payload) {
            auto m = importers::parseBmsMessage(topic, payload);
            if (!m) qFatal("%s", m.error().toString().c_str());
            return mapper.apply(*m, out);
        };
        using O = importers::BmsMapper::Outcome;
        // A CDU temperature is only a number until its metadata says which loop it is: it
        // waits (the broker hands out retained values before retained metadata) and is placed
        // when the metadata comes.
        const char* supply = "BMS/v1/PUB/Value/CDU/LiquidTemperature/DC01/CDU-B1/SecLoop/SupTemp";
        QCOMPARE(apply(supply, R"({"value": 45.4, "timestamp": 1743620422000, "quality": 1})"),
                 O::Held);
        QCOMPARE(apply(supply, R"({"value": 45.5, "timestamp": 1743620423000, "quality": 1})"),
                 O::Held); // the newest value waits, one per point
        QCOMPARE(mapper.stats().held, 1u);
        QVERIFY(out.empty());
        QCOMPARE(
            apply(
                "BMS/v1/PUB/Metadata/CDU/LiquidTemperature/DC01/CDU-B1/SecLoop/SupTemp",
                R"({"objectType": "CDU", "pointType": "LiquidTemperature", "objectName": "CDU B1", "objectId": "B1",
                           "processArea": ["Secondary", "Supply"], "engUnit": "C"})"),
            O::Metadata);
        QCOMPARE(out.size(), 1u);
        QCOMPARE(out[0].channel, model::ChannelId(model::ch::CduSupplyTemperature));
        QCOMPARE(out[0].entity, id(model::EntityKind::Cdu, "CDU B1"));
        QCOMPARE(out[0].value, 45.5f);
        QCOMPARE(out[0].time, 1'743'620'423'000 * kMs);
        QCOMPARE(mapper.stats().held, 0u);
        QCOMPARE(mapper.stats().released, 1u);
        QCOMPARE(apply(supply, R"({"value": 45.6, "timestamp": 1743620424000, "quality": 1})"),
                 O::Mapped);
        QCOMPARE(out.size(), 2u);
        QCOMPARE(out[1].value, 45.6f);
        QCOMPARE(out[1].time, 1'743'620'424'000 * kMs);
        QCOMPARE(apply(supply, R"({"value": 99, "timestamp": 1743620425000, "quality": 0})"),
                 O::BadQuality);
        QCOMPARE(apply(supply, R"({"value": null, "timestamp": 1743620425000, "quality": 1})"),
                 O::NoValue);
        // Rack points resolve by the tag path's rack segment even without metadata.
        QCOMPARE(apply("BMS/v1/PUB/Value/Rack/RackLiquidFlow/site1/rowB/B07/flow",
                       R"({"value": 210.5, "timestamp": 1743620423000, "quality": 1})"),
                 O::Mapped);
        QCOMPARE(out.back().channel, model::ChannelId(model::ch::RackFlow));
        QCOMPARE(out.back().entity, id(model::EntityKind::Rack, "B07"));
        // A tag path in the site's own naming names no rack of the floor: the value waits for
        // the metadata, whose rackLocationName is the floor's rack name.
        QCOMPARE(apply("BMS/v1/PUB/Value/Rack/RackLiquidFlow/site1/rowQ/Q01/flow",
                       R"({"value": 210.5, "timestamp": 1743620423000, "quality": 1})"),
                 O::Held);
        QCOMPARE(mapper.stats().unmapped, 0u);
        const std::size_t beforeQ01 = out.size();
        QCOMPARE(apply("BMS/v1/PUB/Metadata/Rack/RackLiquidFlow/site1/rowQ/Q01/flow",
                       R"({"objectType": "Rack", "pointType": "RackLiquidFlow",
                           "rackLocationName": "B03", "engUnit": "L/min"})"),
                 O::Metadata);
        QCOMPARE(out.size(), beforeQ01 + 1);
        QCOMPARE(out.back().channel, model::ChannelId(model::ch::RackFlow));
        QCOMPARE(out.back().entity, id(model::EntityKind::Rack, "B03"));
        QCOMPARE(out.back().value, 210.5f);
        QCOMPARE(mapper.stats().released, 2u);
        // Metadata that names no rack of the floor either: now it is unplaced, and counted.
        QCOMPARE(apply("BMS/v1/PUB/Value/Rack/RackLiquidFlow/site1/rowQ/Q02/flow",
                       R"({"value": 211.0, "timestamp": 1743620423000, "quality": 1})"),
                 O::Held);
        QCOMPARE(apply("BMS/v1/PUB/Metadata/Rack/RackLiquidFlow/site1/rowQ/Q02/flow",
                       R"({"objectType": "Rack", "pointType": "RackLiquidFlow",
                           "rackLocationName": "Q02"})"),
                 O::Metadata);
        QCOMPARE(out.size(), beforeQ01 + 1);
        QCOMPARE(mapper.stats().unmapped, 1u);
        QCOMPARE(mapper.stats().held, 0u);
        QCOMPARE(mapper.stats().badQuality, 1u);
        QCOMPARE(mapper.stats().noValue, 1u);
        QCOMPARE(mapper.stats().metadata, 3u);

        importers::BmsMapper trusting(bmsPreset(), *m_demo, /*acceptBadQuality=*/true);
        auto m = importers::parseBmsMessage("BMS/v1/PUB/Value/Rack/RackPower/a/B02/p",
                                            R"({"value": 99.5, "timestamp": 1, "quality": 3})");
        QVERIFY(m);
        out.clear();
        QCOMPARE(trusting.apply(*m, out), O::Mapped);
        QCOMPARE(out[0].channel, model::ChannelId(model::ch::RackPower));
    }

    void bmsCaptureFile() {
        importers::BmsMapper mapper(bmsPreset(), *m_demo);
        Collected got;
        auto report = importers::importBmsCaptureFile(
            FT_TEST_DATA_PATH("/telemetry/bms/capture.txt"), mapper, got.hooks());
        QVERIFY2(report, report ? "" : report.error().toString().c_str());
        QCOMPARE(report->samples, 5u);
        QCOMPARE(got.samples.size(), 5u);
        QCOMPARE(report->badLines, 4u);
        QVERIFY2(hasProblem(*report, 18, "value", "number or null"), describe(*report).c_str());
        QVERIFY2(hasProblem(*report, 19, "", "expected a topic"), describe(*report).c_str());
        QVERIFY2(hasProblem(*report, 20, "", "TOPIC {json payload}"), describe(*report).c_str());
        QVERIFY2(hasProblem(*report, 21, "", "expected ',' or '}'"), describe(*report).c_str());
        for (const auto& e : report->problems)
            QVERIFY(e.file.ends_with("capture.txt"));

        const auto& s = mapper.stats();
        QCOMPARE(s.metadata, 4u);
        QCOMPARE(s.badQuality, 1u);
        QCOMPARE(s.noValue, 1u);
        QCOMPARE(mapper.mapper().stats().unmapped,
                 2u); // the return temperature without metadata, the MEPAI setpoint
        QCOMPARE(mapper.mapper().stats().unresolved, 1u); // rack Z99
        QCOMPARE(mapper.mapper().topUnresolved(1).front().name, std::string("rack 'Z99'"));

        const model::EntityId a03 = id(model::EntityKind::Rack, "A03");
        QCOMPARE(got.samples[0].channel, model::ChannelId(model::ch::RackSupplyTemperature));
        QCOMPARE(got.samples[0].entity, a03);
        QCOMPARE(got.samples[0].value, 44.8f);
        QCOMPARE(got.samples[1].channel, model::ChannelId(model::ch::RackReturnTemperature));
        QCOMPARE(got.samples[1].entity, a03);
        QCOMPARE(got.samples[2].channel, model::ChannelId(model::ch::RackLeakDetected));
        QCOMPARE(got.samples[2].entity, id(model::EntityKind::Rack, "B04"));
        QCOMPARE(got.samples[3].channel, model::ChannelId(model::ch::CduSupplyTemperature));
        QCOMPARE(got.samples[4].channel, model::ChannelId(model::ch::PumpSpeed));
        QCOMPARE(got.samples[4].entity, id(model::EntityKind::Pump, "CDU A1 pump 2"));
    }

    void loadersRegisterTheirFormats() {
        // Each file format is one TelemetryLoader; the registry picks it by the file's ending,
        // and exposition text takes whatever nobody claims (exporters' dumps have no fixed name).
        QCOMPARE(importers::telemetryLoaderFor("a/b.csv").extensions().front(),
                 std::string_view(".csv"));
        QCOMPARE(importers::telemetryLoaderFor("x.ndjson").name(),
                 importers::telemetryLoaderFor("y.csv").name());
        QCOMPARE(importers::telemetryLoaderFor("bus.bms").rulesPreset(), std::string_view("bms"));
        QCOMPARE(importers::telemetryLoaderFor("node.prom").rulesPreset(),
                 std::string_view("dcgm-exporter+switch-ports"));
        QCOMPARE(importers::telemetryLoaderFor("metrics").name(),
                 importers::telemetryLoaderFor("node.prom").name());
        const std::string patterns = importers::telemetryFilePatterns();
        for (const char* p : {"*.csv", "*.jsonl", "*.bms", "*.prom", "*.om"})
            QVERIFY2(patterns.find(p) != std::string::npos, patterns.c_str());
    }

    // Charts read a recording of telemetry as the floor shows it: a gap (NaN) wherever nothing
    // was measured — before a GPU's first sample, after its source went quiet for longer than
    // the recording's staleAfter, on a channel nobody measured — and the model's values only
    // where the user asked to fill gaps and nothing was ever measured.
    void chartsReadGapsWhereNothingWasMeasured() {
        QTemporaryDir dir;
        const std::string csv = dir.filePath("gpus.csv").toStdString();
        {
            std::ofstream out(csv);
            out << "time,entity,channel,value\n";
            // GPU 1 from 10 s to 20 s, GPU 2 from 0 s to 80 s, a sample every 2 s.
            for (int t = 0; t <= 80; t += 2) {
                if (t >= 10 && t <= 20)
                    out << 1'796'020'400 + t << ",gpu:A03 tray 02 GPU 1,gpu.temperature," << 60 + t
                        << "\n";
                out << 1'796'020'400 + t << ",gpu:A03 tray 02 GPU 2,gpu.temperature,55\n";
            }
        }
        const auto& loader = importers::telemetryLoaderFor(csv);
        importers::FileImportRequest request;
        request.path = csv;
        request.outPath = dir.filePath("gpus.ftrec").toStdString();
        auto summary = importers::importFileToRecording(loader, m_demo, request);
        QVERIFY2(summary, summary ? "" : summary.error().toString().c_str());
        auto opened = importers::RecordingReader::open(request.outPath);
        QVERIFY2(opened, opened ? "" : opened.error().toString().c_str());
        auto& reader = **opened;
        const auto gpu1 = id(model::EntityKind::Gpu, "A03 tray 02 GPU 1");
        const auto gpu2 = id(model::EntityKind::Gpu, "A03 tray 02 GPU 2");
        const auto other = id(model::EntityKind::Gpu, "B05 tray 09 GPU 3");
        const model::TimeNs t0 = 1'796'020'400 * model::kNsPerSecond;
        auto shown = [&](model::ChannelId c, int s, bool fill) {
            std::vector<float> column;
            const auto ok = reader.shownChannelAt(c, t0 + s * model::kNsPerSecond, fill, column);
            if (!ok) qFatal("%s", ok.error().toString().c_str());
            return column;
        };
        const auto temp = model::ch::GpuTemperature;
        QVERIFY(std::isnan(shown(temp, 5, false)[gpu1])); // before its first sample
        QCOMPARE(shown(temp, 16, false)[gpu1], 76.0f);
        QCOMPARE(shown(temp, 40, false)[gpu1], 80.0f);     // 20 s quiet: still fresh
        QVERIFY(std::isnan(shown(temp, 60, false)[gpu1])); // 40 s quiet: stale, a gap
        QVERIFY(std::isnan(shown(temp, 60, true)[gpu1]));  // filling gaps does not hide that
        QCOMPARE(shown(temp, 60, false)[gpu2], 55.0f);
        QVERIFY(std::isnan(shown(temp, 30, false)[other]));   // never measured
        QVERIFY(std::isfinite(shown(temp, 30, true)[other])); // the model's, when asked
        // A channel nobody measured is a gap everywhere, the model's only when asked.
        const auto power = shown(model::ch::GpuPower, 30, false);
        QVERIFY(std::ranges::all_of(power, [](float v) { return std::isnan(v); }));
        QVERIFY(std::isfinite(shown(model::ch::GpuPower, 30, true)[gpu2]));
        // The plain read still has the model's values under every gap.
        std::vector<float> raw;
        QVERIFY(reader.channelAt(temp, t0 + 5 * model::kNsPerSecond, raw));
        QVERIFY(std::isfinite(raw[gpu1]));
    }

    void bmsCaptureIntoARecording() {
        // The whole pipeline on a bus capture: loader -> samples -> SimModel -> .ftrec.
        QTemporaryDir dir;
        const std::string capture = dir.filePath("bus.bms").toStdString();
        QVERIFY(QFile::copy(FT_TEST_DATA_PATH("/telemetry/bms/capture.txt"),
                            QString::fromStdString(capture)));
        const auto& loader = importers::telemetryLoaderFor(capture);
        const auto rules = bmsPreset();
        importers::FileImportRequest request;
        request.path = capture;
        request.outPath = dir.filePath("bus.ftrec").toStdString();
        request.rules = &rules;
        std::vector<double> progress;
        request.progress = [&](double p) { progress.push_back(p); };
        auto summary = importers::importFileToRecording(loader, m_demo, request);
        QVERIFY2(summary, summary ? "" : summary.error().toString().c_str());
        const auto& source = (*summary)["sources"][0];
        QCOMPARE(source["mapped"].get<int>(), 5);
        QCOMPARE(source["bad_lines"].get<int>(), 4);
        QCOMPARE(source["unmapped"].get<int>(), 3); // two without a rule or metadata, rack Z99
        QCOMPARE((*summary)["recorded_samples"].get<int>(), 5);
        QVERIFY((*summary)["ticks"].get<int>() >= 1);
        QVERIFY(std::ranges::is_sorted(progress) && !progress.empty() && progress.back() <= 1.0);
        auto reader = importers::RecordingReader::open(request.outPath);
        QVERIFY2(reader, reader ? "" : reader.error().toString().c_str());
        model::Snapshot snapshot;
        QVERIFY((*reader)->snapshotAt((*reader)->endTime(), snapshot));
        QCOMPARE(
            snapshot.value(model::ch::RackSupplyTemperature, id(model::EntityKind::Rack, "A03")),
            44.8f);

        // Nothing that maps: an error, and no recording left behind.
        request.outPath = dir.filePath("empty.ftrec").toStdString();
        const std::string empty = dir.filePath("empty.bms").toStdString();
        QVERIFY(QFile(QString::fromStdString(empty)).open(QIODevice::WriteOnly));
        request.path = empty;
        auto none = importers::importFileToRecording(loader, m_demo, request);
        QVERIFY(!none);
        QVERIFY2(none.error().message.find("nothing to record") != std::string::npos,
                 none.error().toString().c_str());
        QVERIFY(!QFile::exists(QString::fromStdString(request.outPath)));
    }
};

QTEST_APPLESS_MAIN(TestFileImport)
#include "test_file_import.moc"
