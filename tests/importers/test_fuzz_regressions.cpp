// Every input a fuzzer ever crashed on (tests/data/fuzz-regressions), and the fuzzers' seeds,
// through the same harness in the normal build: what was fixed stays fixed.
#include "fuzz/answers_input.h"
#include "fuzz/json_files_input.h"
#include "fuzz/payloads_input.h"
#include "fuzz/prometheus_text_input.h"
#include "fuzz/recording_input.h"
#include "importers/recording/sample_codec.h"
#include "model/timestamp.h"
#include "support/test_paths.h"

#include <QDir>
#include <QFile>
#include <QTest>

class TestFuzzRegressions : public QObject {
    Q_OBJECT

    using Harness = void (*)(const std::uint8_t*, std::size_t);
    static int replay(const QString& dir, const QString& prefix,
                      Harness harness = &ft::fuzz::fuzzJsonFiles) {
        int n = 0;
        for (const QString& name : QDir(dir).entryList(QDir::Files)) {
            if (!prefix.isEmpty() && !name.startsWith(prefix)) continue;
            QFile f(dir + "/" + name);
            if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(name));
            const QByteArray bytes = f.readAll();
            harness(reinterpret_cast<const std::uint8_t*>(bytes.constData()),
                    static_cast<std::size_t>(bytes.size()));
            ++n;
        }
        return n;
    }

private slots:
    void jsonFileCrashes() {
        QVERIFY(replay(FT_TEST_DATA_PATH("/fuzz-regressions"), "json-") >= 1);
    }
    void jsonFileSeeds() { QVERIFY(replay(FT_SOURCE_PATH("/tests/fuzz/corpus-json"), "") >= 20); }
    // A NetBox page with "count": 67403e430 (nlohmann's out_of_range escaped the reader), a BMS
    // timestamp past 2262 (TimeNs overflowed).
    void payloadCrashes() {
        QVERIFY(replay(FT_TEST_DATA_PATH("/fuzz-regressions"), "payloads-",
                       &ft::fuzz::fuzzPayloads) >= 2);
        std::vector<ft::importers::NetboxObject> objects;
        const auto page =
            ft::importers::readNetboxPage(R"({"count": 1e999, "results": []})", "x", objects);
        QVERIFY(!page);
        QVERIFY(QString::fromStdString(page.error().toString()).contains("unreadable JSON"));
        const auto late = ft::importers::parseBmsMessage(
            "BMS/v1/PUB/Value/CDU/LiquidFlow/x",
            R"({"value": 1, "timestamp": 17436204250010000, "quality": 1})");
        QVERIFY(!late);
        QVERIFY(QString::fromStdString(late.error().toString()).contains("timestamp"));
    }
    // A chunk blob whose header claimed 900 M values (a 3.6 GB allocation) around a frame of a
    // few bytes: refused from the frame's own size. Real blobs still decode.
    void codecCrashes() {
        const QString dir = FT_TEST_DATA_PATH("/fuzz-regressions");
        int n = 0;
        for (const QString& name : QDir(dir).entryList({"codec-*"}, QDir::Files)) {
            QFile f(dir + "/" + name);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray b = f.readAll();
            const auto block = ft::importers::decodeSampleBlock(
                {reinterpret_cast<const std::uint8_t*>(b.constData()),
                 static_cast<std::size_t>(b.size())});
            QVERIFY2(!block, qPrintable(name));
            ++n;
        }
        QVERIFY(n >= 1);
        const QString seeds = FT_SOURCE_PATH("/tests/fuzz/corpus-codec");
        int decoded = 0;
        for (const QString& name : QDir(seeds).entryList(QDir::Files)) {
            QFile f(seeds + "/" + name);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray b = f.readAll();
            const auto block = ft::importers::decodeSampleBlock(
                {reinterpret_cast<const std::uint8_t*>(b.constData()),
                 static_cast<std::size_t>(b.size())});
            QVERIFY2(block, block ? "" : block.error().c_str());
            QCOMPARE(block->values.size(), std::size_t{block->rows} * block->columns);
            ++decoded;
        }
        QVERIFY(decoded >= 10);
    }
    void payloadSeeds() {
        QVERIFY(replay(FT_SOURCE_PATH("/tests/fuzz/corpus-payloads"), "",
                       &ft::fuzz::fuzzPayloads) >= 10);
        // The Redfish seeds are walked as services (the harness reads their pages by path): the
        // project's own CDU, power shelf and PDU (tests/data/redfish, packed page by page) give
        // readings, so mutations start from a real walk.
        for (const char* seed : {"4-redfish-cdu", "4-redfish-power-shelf", "4-redfish-pdu"}) {
            QFile f(QString(FT_SOURCE_PATH("/tests/fuzz/corpus-payloads/")) + seed);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray text = f.readAll().mid(1);
            std::size_t readings = 0;
            ft::fuzz::fuzzRedfish({text.constData(), static_cast<std::size_t>(text.size())},
                                  &readings);
            QVERIFY2(readings >= 5, seed);
        }
    }

    // The exposition parser on the project's Prometheus and dcgm-exporter fixtures (its seeds:
    // nine texts, and the folders' READMEs), and any crash input since.
    void prometheusTextSeeds() {
        int n = 0;
        for (const QString& dir : {QString(FT_TEST_DATA_PATH("/telemetry/prometheus")),
                                   QString(FT_TEST_DATA_PATH("/telemetry/dcgm"))})
            n += replay(dir, "", &ft::fuzz::fuzzPrometheusText);
        QVERIFY(n >= 8);
        replay(FT_TEST_DATA_PATH("/fuzz-regressions"), "prometheus-",
               &ft::fuzz::fuzzPrometheusText);
    }

    // PromQL answers and long-format files: the seeds (each answer shape, each epoch unit, bad
    // lines), and any crash input since.
    void answerSeeds() {
        QVERIFY(replay(FT_SOURCE_PATH("/tests/fuzz/corpus-answers"), "", &ft::fuzz::fuzzAnswers) >=
                12);
        QVERIFY(replay(FT_TEST_DATA_PATH("/fuzz-regressions"), "answers-",
                       &ft::fuzz::fuzzAnswers) >= 1);
        // The first crash: an RFC 3339 time in 2426 overflowed the nanoseconds (UBSan); times a
        // TimeNs cannot hold are refused, the edges of what it can still read.
        QVERIFY(!ft::importers::parseRfc3339("2426-11-30 08:33:41+02:00"));
        QVERIFY(!ft::importers::parseRfc3339("1600-01-01T00:00:00Z"));
        QVERIFY(ft::importers::parseRfc3339("2262-04-11T00:00:00Z"));
        QVERIFY(!ft::importers::parseTimeText("9223372036854775807.9",
                                              ft::importers::EpochUnit::Nanoseconds));
        QVERIFY(ft::importers::parseTimeText("9223372036854775806",
                                             ft::importers::EpochUnit::Nanoseconds));
        // The harness's floor resolves the seeds' names: the fuzzer reaches the mapping.
        QFile seed(FT_SOURCE_PATH("/tests/fuzz/corpus-answers/long-csv-auto"));
        QVERIFY(seed.open(QIODevice::ReadOnly));
        const QByteArray bytes = seed.readAll().mid(1);
        std::size_t samples = 0;
        ft::importers::ImportHooks hooks;
        hooks.onBatch = [&](ft::model::SampleBatch&& b) { samples += b.samples.size(); };
        const auto report = ft::importers::importLongFormatText(
            std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), "seed",
            ft::fuzz::answersFloor(), hooks, {ft::importers::LongFormat::Csv, {}});
        QVERIFY(report);
        QVERIFY2(samples >= 3, qPrintable(QString::number(samples)));
    }

    // Damaged recordings: every seed (one damage of each kind) opens with an error that says
    // what is wrong, or serves every moment; crash inputs found since stay fixed.
    void recordingSeeds() {
        QVERIFY(replay(FT_SOURCE_PATH("/tests/fuzz/corpus-recording"), "",
                       &ft::fuzz::fuzzRecording) >= 20);
        replay(FT_TEST_DATA_PATH("/fuzz-regressions"), "recording-", &ft::fuzz::fuzzRecording);
    }
    void damagedRecordingHeaders() {
        // A header value that is not a number is an error naming the key, not an exception.
        const std::string path = QDir::tempPath().toStdString() + "/ft-damaged-header.ftrec";
        auto open = [&](std::initializer_list<std::uint8_t> input) {
            const std::vector<std::uint8_t> bytes(input);
            ft::fuzz::writeDamagedRecording(path, bytes.data(), bytes.size());
            return ft::importers::RecordingReader::open(path);
        };
        const auto clean = open({});
        QVERIFY2(clean, clean ? "" : clean.error().toString().c_str());
        QVERIFY((*clean)->events().size() > 0);
        QVERIFY((*clean)->endTime() > (*clean)->startTime());
        // op 5 (a meta value) on each of the header's rows, set to "x".
        for (std::uint8_t row = 0; row < 12; ++row) {
            const auto damaged = open({5, row, 0, 0, 0, 1, 'x'});
            if (!damaged)
                QVERIFY2(!damaged.error().toString().empty(), "an error says what is wrong");
        }
        std::remove(path.c_str());
    }

    void durationsThatDoNotFit() {
        // The first crash: a tour's dwell of 10^104 seconds overflowed the nanosecond clock.
        ft::model::TimeNs t = 0;
        QVERIFY(!ft::model::parseDuration("2888888888888888888888888888888880s", t));
        QVERIFY(!ft::model::parseDuration("1e400s", t));
        QVERIFY(!ft::model::parseDuration("200000d", t));
        QVERIFY(ft::model::parseDuration("36500d", t));
        QCOMPARE(t, ft::model::TimeNs{36500} * 86400 * ft::model::kNsPerSecond);
    }
};

QTEST_APPLESS_MAIN(TestFuzzRegressions)
#include "test_fuzz_regressions.moc"
