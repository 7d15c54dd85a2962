// Recordings: codec round trip, write/read identical values, seeks at chunk boundaries, damaged
// and truncated files, a recorder killed mid-write, and replay reproducing the sim run.
#include "importers/floor/floor_file.h"
#include "importers/recording/recording_reader.h"
#include "importers/recording/recording_writer.h"
#include "importers/recording/replay_transport.h"
#include "importers/recording/sample_codec.h"
#include "model/sim_core.h"
#include "model/sim_model.h"
#include "support/test_floors.h"
#include "support/test_paths.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstddef>
#include <random>
#include <set>
#include <sqlite3.h>

using namespace ft;
namespace ch = model::ch;

namespace {

using testing::floorOf;

// Runs the simulator for `ticks`, recording every snapshot; returns the snapshots too.
std::vector<std::shared_ptr<const model::Snapshot>>
record(const QString& path, const std::shared_ptr<const model::Topology>& t, int ticks,
       model::Scenario scenario = {}, model::TimeNs keyframeEvery = importers::kKeyframeEvery) {
    importers::RecordingInfo info;
    info.scenario = scenario.name;
    model::SimCore core(t, {}, std::move(scenario));
    info.floorJson = importers::floorSpecToJson(t->spec());
    info.seed = 1;
    auto writer = importers::RecordingWriter::create(path.toStdString(), t, info);
    if (!writer) qFatal("%s", writer.error().toString().c_str());
    (*writer)->setBlocking(true);
    std::vector<std::shared_ptr<const model::Snapshot>> all{core.latest()};
    (*writer)->push(core.latest());
    core.setPublishHook([&](const std::shared_ptr<const model::Snapshot>& s) {
        (*writer)->push(s);
        all.push_back(s);
    });
    // Keyframes as the app keeps them (a minute apart), or as often as a test asks.
    core.setKeyframeHook(keyframeEvery, [&](model::TimeNs at, std::vector<std::byte> state) {
        (*writer)->pushKeyframe(at, std::move(state));
    });
    core.runUntil(core.startTime() + ticks * model::SimConfig{}.step);
    (*writer)->close();
    return all;
}

bool sameValues(const model::Snapshot& a, const model::Snapshot& b) {
    if (a.values.size() != b.values.size()) return false;
    for (std::size_t i = 0; i < a.values.size(); ++i) {
        const auto c = static_cast<model::ChannelId>(i);
        const auto x = a.channel(c), y = b.channel(c);
        if (x.size() != y.size() || std::memcmp(x.data(), y.data(), x.size() * 4) != 0)
            return false;
    }
    return true;
}

} // namespace

class TestRecording : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void codecRoundTripIsExact() {
        std::mt19937 rng(7);
        std::normal_distribution<float> noise(0, 1);
        for (auto [rows, cols] : {std::pair{1u, 1u}, {10u, 1152u}, {3u, 7u}, {64u, 33u}}) {
            std::vector<float> v(static_cast<std::size_t>(rows) * cols);
            for (std::size_t i = 0; i < v.size(); ++i)
                v[i] = 45.0f + 10.0f * std::sin(0.01f * i) + noise(rng);
            v[0] = std::numeric_limits<float>::quiet_NaN();
            if (v.size() > 2) v[1] = -0.0f, v[2] = std::numeric_limits<float>::infinity();
            const auto bytes = importers::encodeSampleBlock(v, rows, cols);
            const auto back = importers::decodeSampleBlock(bytes);
            QVERIFY(back);
            QCOMPARE(back->rows, rows);
            QVERIFY(std::memcmp(back->values.data(), v.data(), v.size() * 4) == 0); // bit for bit
        }
        // Garbage is an error, not a crash.
        std::vector<std::uint8_t> junk(100, 0xAB);
        QVERIFY(!importers::decodeSampleBlock(junk));
        QVERIFY(!importers::decodeSampleBlock(std::span<const std::uint8_t>(junk.data(), 3)));
        auto good = importers::encodeSampleBlock(std::vector<float>(20, 1.0f), 4, 5);
        good.resize(good.size() - 3);
        QVERIFY(!importers::decodeSampleBlock(good));
    }

    void writeReadIdenticalAtEveryTick() {
        const QString path = m_dir.filePath("round.ftrec");
        const auto t = floorOf(3);
        const auto written = record(path, t, 57); // not a whole number of chunks
        auto reader = importers::RecordingReader::open(path.toStdString());
        QVERIFY2(reader, reader ? "" : reader.error().toString().c_str());
        auto& r = **reader;
        QVERIFY(r.warnings().empty());
        QCOMPARE(r.startTime(), written.front()->time);
        QCOMPARE(r.endTime(), written.back()->time);
        QCOMPARE(r.floor().rows.size(), t->spec().rows.size());
        model::Snapshot s;
        // Every tick, in order and then backwards: chunk starts, chunk ends, the partial tail.
        for (int pass = 0; pass < 2; ++pass)
            for (std::size_t k = 0; k < written.size(); ++k) {
                const auto& w = *written[pass == 0 ? k : written.size() - 1 - k];
                QVERIFY(r.snapshotAt(w.time, s));
                QCOMPARE(s.time, w.time);
                QVERIFY2(sameValues(s, w), qPrintable(QString("tick %1").arg(k)));
                QVERIFY(s.rackLifecycle == w.rackLifecycle);
                QCOMPARE(s.alarms.size(), w.alarms.size());
            }
        // The per-link block is kept once per change (format 2), and a replay shares it, with
        // one stamp, for as long as the run did: views redo per-link work when it changes.
        std::size_t blocks = 1;
        std::uint64_t stamp = 0;
        for (std::size_t k = 0; k < written.size(); ++k) {
            QVERIFY(r.snapshotAt(written[k]->time, s));
            const bool changed = k > 0 && written[k]->detail != written[k - 1]->detail;
            if (k > 0) QCOMPARE(s.detailStamp != stamp, changed);
            blocks += changed ? 1 : 0;
            stamp = s.detailStamp;
        }
        QVERIFY2(blocks > 2 && blocks < written.size() / 4, qPrintable(QString::number(blocks)));
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr),
                 SQLITE_OK);
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(db, "SELECT count(*), sum(rows) FROM chunks WHERE channel = ?", -1, &st,
                           nullptr);
        sqlite3_bind_int(st, 1, ch::NvlinkTx);
        QCOMPARE(sqlite3_step(st), SQLITE_ROW);
        QCOMPARE(static_cast<std::size_t>(sqlite3_column_int64(st, 0)), blocks);
        QCOMPARE(static_cast<std::size_t>(sqlite3_column_int64(st, 1)), blocks);
        sqlite3_reset(st);
        sqlite3_bind_int(st, 1, ch::GpuTemperature); // a row per tick, a chunk per second
        QCOMPARE(sqlite3_step(st), SQLITE_ROW);
        QCOMPARE(sqlite3_column_int64(st, 0),
                 (written.size() + importers::kRowsPerChunk - 1) / importers::kRowsPerChunk);
        QCOMPARE(static_cast<std::size_t>(sqlite3_column_int64(st, 1)), written.size());
        sqlite3_finalize(st);
        sqlite3_close(db);
        // Between ticks rounds down; outside the range clamps.
        QVERIFY(r.snapshotAt(written[12]->time + model::kNsPerMs, s));
        QCOMPARE(s.time, written[12]->time);
        QVERIFY(r.snapshotAt(0, s));
        QCOMPARE(s.time, r.startTime());
    }

    void keyframesRestoreTheRecordedRun() {
        // A recording keeps the simulator's state at intervals (the app: once a minute; here
        // every 20 s, so that the run stays short under the sanitizers); the newest before a
        // moment, restored and run on, gives the recorded values there bit for bit. The pumps
        // fail 50 s earlier than the bundled scenario says, so the moment is one with alarms.
        const QString path = m_dir.filePath("keyframes.ftrec");
        const auto t = testing::demoFloor();
        auto pump = testing::bundledScenario("pump-failure", *t);
        for (auto& e : pump.events)
            e.at -= 50 * model::kNsPerSecond;
        const model::SimConfig config;
        constexpr model::TimeNs kEvery = 20 * model::kNsPerSecond;
        const model::TimeNs start = record(path, t, 500, pump, kEvery).front()->time;
        auto reader = importers::RecordingReader::open(path.toStdString());
        QVERIFY(reader);
        QCOMPARE((*reader)->keyframeCount(), 2u);                  // at 20 and 40 seconds
        const model::TimeNs at = start + 45 * model::kNsPerSecond; // pumps down for 35 s
        auto keyframe = (*reader)->keyframeAtOrBefore(at);
        QVERIFY(keyframe && *keyframe);
        QCOMPARE((**keyframe).time, start + 40 * model::kNsPerSecond);
        QVERIFY(!*(*reader)->keyframeAtOrBefore(start + 19 * model::kNsPerSecond));
        model::SimConfig restoring = config;
        restoring.settle = false;
        model::SimCore fork(t, restoring, pump);
        const auto restored = fork.restore((**keyframe).state);
        QVERIFY2(restored, restored ? "" : restored.error().c_str());
        QCOMPARE(fork.latest()->time, (**keyframe).time);
        fork.runUntil(at);
        model::Snapshot recorded;
        QVERIFY((*reader)->snapshotAt(at, recorded));
        QCOMPARE(fork.latest()->time, recorded.time);
        QVERIFY(sameValues(*fork.latest(), recorded));
        QCOMPARE(fork.latest()->alarms.size(), recorded.alarms.size());
        QVERIFY(!fork.latest()->alarms.empty());
        // Each rack's job is recorded as it changes, and served at each moment.
        QVERIFY(recorded.rackJobs && fork.latest()->rackJobs);
        QVERIFY(*recorded.rackJobs == *fork.latest()->rackJobs);
        QCOMPARE(recorded.rackJobs->size(), t->count(model::EntityKind::Rack));
        QVERIFY(std::ranges::count_if(*recorded.rackJobs, [](const std::string& j) {
                    return j.starts_with("training job");
                }) > 0);
        model::Snapshot earlier;
        QVERIFY((*reader)->snapshotAt(start + model::kNsPerSecond, earlier));
        QVERIFY(earlier.rackJobs == (*reader)->rackJobsAt(start + 2 * model::kNsPerSecond));

        // A damaged keyframe is an error (the fork then re-runs); a recording from before
        // keyframes has none.
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db,
                              "UPDATE keyframes SET data = substr(data, 1, length(data) / 2) || "
                              "zeroblob(16) WHERE rowid = (SELECT max(rowid) FROM keyframes)",
                              nullptr, nullptr, nullptr),
                 SQLITE_OK);
        sqlite3_close(db);
        auto damaged = importers::RecordingReader::open(path.toStdString());
        QVERIFY(damaged);
        const auto bad = (*damaged)->keyframeAtOrBefore(at);
        QVERIFY(!bad);
        QVERIFY2(QString::fromStdString(bad.error().message).contains("damaged"),
                 bad.error().message.c_str());
        QVERIFY(*(*damaged)->keyframeAtOrBefore(start + 21 * model::kNsPerSecond));
        QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db, "DROP TABLE keyframes", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
        auto older = importers::RecordingReader::open(path.toStdString());
        QVERIFY(older);
        const auto none = (*older)->keyframeAtOrBefore(at);
        QVERIFY(none && !*none);
        QCOMPARE((*older)->keyframeCount(), 0u);
    }

    void replayReproducesTheRun() {
        // A scenario run: values, alarms, events and lifecycle all come back as they were.
        const QString path = m_dir.filePath("leak.ftrec");
        const auto t = testing::demoFloor();
        model::Scenario leak;
        leak.name = "leak";
        model::ScenarioEvent ev;
        ev.at = 5 * model::kNsPerSecond;
        ev.action = model::ScenarioAction::Leak;
        ev.target = model::EntityRef{model::EntityKind::Rack, 2};
        leak.events.push_back(ev);
        const auto written = record(path, t, 400, leak);
        auto reader = importers::RecordingReader::open(path.toStdString());
        QVERIFY(reader);
        importers::ReplayTransport replay(std::move(*reader));
        for (std::size_t k : {std::size_t{0}, std::size_t{49}, std::size_t{50}, std::size_t{199},
                              std::size_t{200}, std::size_t{400}}) {
            replay.seek(written[k]->time);
            const auto s = replay.renderNow();
            QVERIFY(sameValues(*s, *written[k]));
            QCOMPARE(s->alarms.size(), written[k]->alarms.size());
            for (std::size_t a = 0; a < s->alarms.size(); ++a) {
                QCOMPARE(s->alarms[a].title, written[k]->alarms[a].title);
                QCOMPARE(s->alarms[a].entity, written[k]->alarms[a].entity);
            }
            QCOMPARE(s->events ? s->events->size() : 0u,
                     written[k]->events ? written[k]->events->size() : 0u);
            QCOMPARE(s->scenario, std::string("leak"));
        }
        // Jumping between events lands on them.
        replay.seek(replay.beginTime());
        QVERIFY(replay.jumpToEvent(1));
        QCOMPARE(replay.position(), replay.reader().events().front().time);
        QVERIFY(replay.jumpToEvent(1));
        QVERIFY(replay.position() > replay.reader().events().front().time);
        QVERIFY(replay.jumpToEvent(-1));
        QCOMPARE(replay.position(), replay.reader().events().front().time);
    }

    void replayClock() {
        const QString path = m_dir.filePath("clock.ftrec");
        record(path, floorOf(1), 300);
        importers::ReplayTransport replay(*importers::RecordingReader::open(path.toStdString()));
        QVERIFY(replay.paused());
        QCOMPARE(replay.position(), replay.beginTime());
        replay.step(3);
        QCOMPARE(replay.position(), replay.beginTime() + 3 * replay.tickLength());
        replay.step(-10); // clamps at the start
        QCOMPARE(replay.position(), replay.beginTime());
        replay.setSpeed(5000); // clamps to 1000x
        QCOMPARE(replay.speed(), 1000.0);
        replay.setSpeed(100);
        replay.setLoop(std::pair{replay.beginTime() + 5 * model::kNsPerSecond,
                                 replay.beginTime() + 8 * model::kNsPerSecond});
        replay.seek(replay.beginTime() + 5 * model::kNsPerSecond);
        replay.start();
        replay.setPaused(false);
        QTest::qWait(300); // 30 s of recording at 100x: loops within [5 s, 8 s]
        const auto pos = replay.position();
        QVERIFY(pos >= replay.beginTime() + 5 * model::kNsPerSecond &&
                pos <= replay.beginTime() + 8 * model::kNsPerSecond);
        QVERIFY(replay.latest()->time >= replay.beginTime() + 5 * model::kNsPerSecond);
        // Whoever shows the transport's state hears of every change, the replay thread's own
        // pause at the end of the recording included.
        std::atomic<int> changes{0};
        std::atomic<bool> sawPaused{false};
        const auto listener = replay.addListener([&] {
            ++changes;
            if (replay.paused()) sawPaused = true;
        });
        replay.setLoop(std::nullopt);
        QCOMPARE(changes.load(), 1);
        QTest::qWait(400); // runs to the end and pauses there
        QCOMPARE(replay.position(), replay.endTime());
        QVERIFY(replay.paused());
        QVERIFY(sawPaused.load());
        QCOMPARE(changes.load(), 2);
        replay.removeListener(listener);
        replay.setSpeed(10);
        QCOMPARE(changes.load(), 2);
        replay.stop();
    }

    // Backwards at any speed: the clock runs down, every snapshot it shows is at or before the
    // last, it stops at the start; played again from there it starts at the end; a loop wraps.
    void replayPlaysBackwards() {
        const QString path = m_dir.filePath("backwards.ftrec");
        record(path, floorOf(1), 300); // 30 s
        importers::ReplayTransport replay(*importers::RecordingReader::open(path.toStdString()));
        replay.seek(replay.endTime());
        replay.renderNow(); // what is shown starts at the end (not whatever came before the seek)
        replay.setSpeed(20);
        replay.setReverse(true);
        QVERIFY(replay.reverse());
        replay.start();
        replay.setPaused(false);
        model::TimeNs last = replay.endTime();
        bool monotonic = true;
        std::set<model::TimeNs> shown;
        for (int i = 0; i < 40; ++i) {
            QTest::qWait(20);
            const auto t = replay.latest()->time;
            monotonic = monotonic && t <= last;
            last = t;
            shown.insert(t);
        }
        QVERIFY(monotonic);
        QVERIFY(shown.size() > 10); // it showed the frames it passed through
        QVERIFY(replay.position() < replay.endTime() - 10 * model::kNsPerSecond);
        QTest::qWait(1200); // the rest of the 30 s at 20x: stops at the start
        QCOMPARE(replay.position(), replay.beginTime());
        QVERIFY(replay.paused());
        QCOMPARE(replay.latest()->time, replay.beginTime());
        replay.setPaused(false); // again from the end, backwards
        QVERIFY(replay.position() > replay.endTime() - 2 * model::kNsPerSecond);
        // A loop wraps backwards too.
        replay.setLoop(std::pair{replay.beginTime() + 5 * model::kNsPerSecond,
                                 replay.beginTime() + 8 * model::kNsPerSecond});
        replay.seek(replay.beginTime() + 6 * model::kNsPerSecond);
        replay.setSpeed(100);
        QTest::qWait(300);
        const auto pos = replay.position();
        QVERIFY(pos >= replay.beginTime() + 5 * model::kNsPerSecond &&
                pos <= replay.beginTime() + 8 * model::kNsPerSecond);
        QVERIFY(!replay.paused());
        // Forwards again from where it is.
        replay.setLoop(std::nullopt);
        replay.setReverse(false);
        const auto from = replay.position();
        QTest::qWait(100);
        QVERIFY(replay.position() > from);
        replay.stop();
    }

    void telemetryRecordingsKeepMeasuredAges() {
        // A telemetry run measures rack 1's GPUs only: the replay must tell them from the rest.
        const auto t = floorOf(3);
        const QString path = m_dir.filePath("telemetry.ftrec");
        importers::RecordingInfo info;
        info.floorJson = importers::floorSpecToJson(t->spec());
        info.telemetry = true;
        info.staleAfter = 2 * model::kNsPerSecond;
        model::SimConfig config;
        config.telemetry = true;
        config.staleAfter = info.staleAfter;
        model::SimModel sim(t, config);
        auto writer = importers::RecordingWriter::create(path.toStdString(), t, info);
        QVERIFY(writer.has_value());
        (*writer)->setBlocking(true);
        std::vector<std::shared_ptr<const model::Snapshot>> written;
        for (int tick = 0; tick < 45; ++tick) {
            if (tick < 10) { // measured for the first second, then the source goes quiet
                model::SampleBatch b;
                for (model::EntityId g = 72; g < 144; ++g)
                    b.samples.push_back({sim.time(), ch::GpuTemperature, g, 50.0f});
                // A GPU counter first measured inside a chunk: recorded from there on.
                if (tick == 5) b.samples.push_back({sim.time(), ch::GpuXid, 80, 79.0f});
                // And a node the scheduler drained: its tray's state from then on.
                if (tick == 5)
                    b.samples.push_back({sim.time(), ch::ComputeTraySchedulerState, 20, 4.0f});
                sim.apply(b);
            }
            sim.step();
            auto snap = std::make_shared<model::Snapshot>();
            sim.copyTo(*snap);
            (*writer)->push(snap);
            written.push_back(std::move(snap));
        }
        (*writer)->close();
        auto reader = importers::RecordingReader::open(path.toStdString());
        QVERIFY2(reader.has_value(), reader ? "" : reader.error().toString().c_str());
        QVERIFY((*reader)->info().telemetry);
        model::Snapshot out;
        for (const std::size_t i :
             {std::size_t{0}, std::size_t{9}, std::size_t{31}, std::size_t{44}}) {
            const auto& w = *written[i];
            QVERIFY((*reader)->snapshotAt(w.time, out).has_value());
            QVERIFY(out.telemetry);
            QCOMPARE(out.staleAfter, info.staleAfter);
            for (const auto kind : {model::EntityKind::Gpu, model::EntityKind::ComputeTray,
                                    model::EntityKind::Rack, model::EntityKind::Cdu}) {
                for (model::EntityId e = 0; e < t->count(kind); ++e) {
                    const model::TimeNs a = w.measuredTime(kind, e), b = out.measuredTime(kind, e);
                    QCOMPARE(b > 0, a > 0);
                    QVERIFY2(std::abs(a - b) < model::kNsPerMs, qPrintable(QString::number(a - b)));
                }
            }
            QVERIFY(out.measured(model::EntityKind::Gpu, 100));
            QVERIFY(!out.measured(model::EntityKind::Gpu, 10));
            QVERIFY(out.measured(model::EntityKind::Rack, 1));
            QVERIFY(!out.measured(model::EntityKind::Rack, 0));
            QCOMPARE(out.rackStale(1), i >= 31);
            for (model::ChannelId c = model::kFirstGpuCounter; c <= model::kLastGpuCounter; ++c)
                QVERIFY2(out.values[c] == w.values[c], model::kChannels[c].name.data());
            QCOMPARE(out.value(ch::GpuXid, 80), i >= 5 ? 79.0f : 0.0f);
            // A node the scheduler never spoke of has no state, before or after.
            if (i >= 5)
                QCOMPARE(out.value(ch::ComputeTraySchedulerState, 20), 4.0f);
            else
                QVERIFY(std::isnan(out.value(ch::ComputeTraySchedulerState, 20)));
            QVERIFY(std::isnan(out.value(ch::ComputeTraySchedulerState, 3)));
        }
        // The counters nothing measured take no room in the file.
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
        const auto chunksOf = [&](model::ChannelId c) {
            sqlite3_stmt* st = nullptr;
            sqlite3_prepare_v2(db, "SELECT count(*) FROM chunks WHERE channel = ?", -1, &st,
                               nullptr);
            sqlite3_bind_int(st, 1, c);
            sqlite3_step(st);
            const int n = sqlite3_column_int(st, 0);
            sqlite3_finalize(st);
            return n;
        };
        QCOMPARE(chunksOf(ch::GpuPcieTx), 0);
        QCOMPARE(chunksOf(ch::GpuPlacedBy), 0);
        QVERIFY(chunksOf(ch::ComputeTraySchedulerState) > 0);
        QVERIFY(chunksOf(ch::GpuXid) > 0);
        QVERIFY(chunksOf(ch::GpuTemperature) > 0);
        sqlite3_close(db);
    }

    void everyEventIsRecordedPastTheLogsBound() {
        // A long run has more events than a snapshot's log keeps: the recorder follows the log's
        // sequence numbers, so none is lost when the oldest are dropped.
        const auto t = floorOf(2);
        const QString path = m_dir.filePath("many-events.ftrec");
        importers::RecordingInfo info;
        info.floorJson = importers::floorSpecToJson(t->spec());
        model::SimModel sim(t, {});
        auto writer = importers::RecordingWriter::create(path.toStdString(), t, info);
        QVERIFY(writer.has_value());
        (*writer)->setBlocking(true);
        model::SharedLogWriter<model::Event> log(40); // keeps 40 and what shares their chunk
        int next = 0;
        for (int tick = 0; tick < 30; ++tick) {
            sim.step();
            auto snap = std::make_shared<model::Snapshot>();
            sim.copyTo(*snap);
            for (int k = 0; k < 25; ++k, ++next)
                log.append({snap->time,
                            model::EventKind::Protection,
                            {model::EntityKind::Rack, 1},
                            model::Severity::Warning,
                            "event " + std::to_string(next)});
            snap->events = log.shared();
            QVERIFY(snap->events->size() < 40u + 256u);
            (*writer)->push(snap);
        }
        (*writer)->close();
        auto reader = importers::RecordingReader::open(path.toStdString());
        QVERIFY2(reader.has_value(), reader ? "" : reader.error().toString().c_str());
        const auto& events = (*reader)->events();
        QCOMPARE(events.size(), 750u);
        for (std::size_t k = 0; k < events.size(); ++k)
            QCOMPARE(events[k].text, "event " + std::to_string(k));
        // Each moment of the replay holds the events up to it.
        model::Snapshot out;
        QVERIFY((*reader)->snapshotAt((*reader)->endTime(), out).has_value());
        QCOMPARE(out.events->size(), 750u);
        QCOMPARE(out.events->back().text, std::string("event 749"));
    }

    void aWriterBehindCountsWhatItDrops() {
        // A live recorder never holds up the simulator: past its queue it drops a snapshot and
        // counts it, and what it kept reads back whole.
        const auto t = floorOf(2);
        const QString path = m_dir.filePath("behind.ftrec");
        importers::RecordingInfo info;
        info.floorJson = importers::floorSpecToJson(t->spec());
        model::SimModel sim(t, {});
        std::vector<std::shared_ptr<const model::Snapshot>> made;
        for (int tick = 0; tick < 300; ++tick) {
            sim.step();
            auto snap = std::make_shared<model::Snapshot>();
            sim.copyTo(*snap);
            made.push_back(std::move(snap));
        }
        auto writer = importers::RecordingWriter::create(path.toStdString(), t, info, 2);
        QVERIFY(writer.has_value());
        std::uint64_t accepted = 0;
        std::vector<std::shared_ptr<const model::Snapshot>> kept;
        for (const auto& s : made)
            if ((*writer)->push(s)) {
                ++accepted;
                kept.push_back(s);
            }
        (*writer)->close();
        const auto stats = (*writer)->stats();
        QCOMPARE(stats.snapshots, accepted);
        QCOMPARE(stats.dropped, made.size() - accepted);
        QVERIFY2(stats.dropped > 0, "300 snapshots at once through a queue of 2");
        auto reader = importers::RecordingReader::open(path.toStdString());
        QVERIFY2(reader.has_value(), reader ? "" : reader.error().toString().c_str());
        QVERIFY((*reader)->warnings().empty());
        // Each kept snapshot reads back at its own time: after a gap a chunk starts anew, so no
        // row slides onto a moment it was not taken at.
        model::Snapshot s;
        for (const auto& k : kept) {
            QVERIFY((*reader)->snapshotAt(k->time, s).has_value());
            QCOMPARE(s.time, k->time);
            QVERIFY2(sameValues(s, *k), qPrintable(QString("tick %1").arg(k->tick)));
        }
    }

    void olderRecordingsMissChannelsSafely() {
        // A recording made by an older floortwin lacks newer channels: they read as "no data",
        // sized for the floor, never as short arrays that would crash a view.
        const QString path = m_dir.filePath("old.ftrec");
        const auto t = floorOf(2);
        record(path, t, 30);
        {
            sqlite3* db = nullptr;
            QVERIFY(sqlite3_open(path.toUtf8().constData(), &db) == SQLITE_OK);
            sqlite3_exec(db,
                         "DELETE FROM chunks WHERE channel = (SELECT id FROM channels WHERE name = "
                         "'rack.storage_read');"
                         "DELETE FROM channels WHERE name = 'rack.storage_read';",
                         nullptr, nullptr, nullptr);
            sqlite3_close(db);
        }
        auto reader = importers::RecordingReader::open(path.toStdString());
        QVERIFY(reader);
        model::Snapshot s;
        QVERIFY((*reader)->snapshotAt((*reader)->startTime(), s));
        QCOMPARE(s.values[ch::RackStorageRead].size(), t->count(model::EntityKind::Rack));
        QVERIFY(std::isnan(s.values[ch::RackStorageRead][0]));
        QVERIFY(!std::isnan(s.values[ch::RackPower][0]));
    }

    void bookmarksAreSaved() {
        const QString path = m_dir.filePath("marks.ftrec");
        record(path, floorOf(1), 20);
        auto reader = importers::RecordingReader::open(path.toStdString());
        QVERIFY(reader);
        const auto when = (*reader)->startTime() + model::kNsPerSecond;
        QVERIFY((*reader)->addBookmark(when, "valve stuck here"));
        auto again = importers::RecordingReader::open(path.toStdString());
        const auto marks = (*again)->bookmarks();
        QCOMPARE(marks.size(), 1u);
        QCOMPARE(marks[0].text, std::string("valve stuck here"));
        QCOMPARE(marks[0].time, when);
        QVERIFY(marks[0].camera.empty());
        // With the camera, to turn into a demo.
        const std::string camera =
            R"({"focus":[1,2,0.5],"distance":12,"azimuth":-20,"elevation":30})";
        QVERIFY((*again)->addBookmark(when + model::kNsPerSecond, "pump 2 restarts", camera));
        const auto both = (*again)->bookmarks();
        QCOMPARE(both.size(), 2u);
        QCOMPARE(both[1].camera, camera);
    }

    // Recordings bookmarked before cameras were kept: read as before, and the first bookmark
    // with a camera adds the column.
    void olderBookmarksWithoutCameras() {
        const QString path = m_dir.filePath("old-marks.ftrec");
        record(path, floorOf(1), 20);
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db,
                              "ALTER TABLE bookmarks DROP COLUMN camera; INSERT INTO "
                              "bookmarks(time, text, created) VALUES(5, 'old note', 'then')",
                              nullptr, nullptr, nullptr),
                 SQLITE_OK);
        sqlite3_close(db);
        auto reader = importers::RecordingReader::open(path.toStdString());
        QVERIFY(reader);
        auto marks = (*reader)->bookmarks();
        QCOMPARE(marks.size(), 1u);
        QCOMPARE(marks[0].text, std::string("old note"));
        QVERIFY((*reader)->addBookmark(9, "new note", R"({"focus":[0,0,0],"distance":5})"));
        marks = (*reader)->bookmarks();
        QCOMPARE(marks.size(), 2u);
        QVERIFY(marks[0].camera.empty());
        QCOMPARE(marks[1].camera, std::string(R"({"focus":[0,0,0],"distance":5})"));
    }

    void damagedFilesOpenWithAClearMessage() {
        const QString path = m_dir.filePath("whole.ftrec");
        record(path, floorOf(2), 300);
        QFile whole(path);
        QVERIFY(whole.open(QIODevice::ReadOnly));
        const QByteArray bytes = whole.readAll();
        // Cut in half: opens with a warning up to the last readable chunk, or refuses clearly.
        const QString half = m_dir.filePath("half.ftrec");
        {
            QFile f(half);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(bytes.left(bytes.size() / 2));
        }
        auto cut = importers::RecordingReader::open(half.toStdString());
        if (cut) {
            QVERIFY(!(*cut)->warnings().empty());
            model::Snapshot s;
            QVERIFY((*cut)->snapshotAt((*cut)->startTime(), s));
        } else {
            QVERIFY(cut.error().toString().find("half.ftrec") != std::string::npos);
        }
        // Garbage in the middle: damaged chunks are reported, never a crash.
        const QString noisy = m_dir.filePath("noisy.ftrec");
        {
            QByteArray b = bytes;
            for (int i = b.size() / 3; i < b.size() / 3 + 20000 && i < b.size(); ++i)
                b[i] = static_cast<char>(i * 31);
            QFile f(noisy);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(b);
        }
        if (auto r = importers::RecordingReader::open(noisy.toStdString())) {
            model::Snapshot s;
            for (auto t = (*r)->startTime(); t <= (*r)->endTime(); t += model::kNsPerSecond)
                (void)(*r)->snapshotAt(t, s);
        }
        // Not a recording at all.
        const QString text = m_dir.filePath("notes.ftrec");
        {
            QFile f(text);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("these are not the samples you are looking for\n");
        }
        const auto bad = importers::RecordingReader::open(text.toStdString());
        QVERIFY(!bad);
        QVERIFY(bad.error().message.find("not a floortwin recording") != std::string::npos);
        QVERIFY(!importers::RecordingReader::open(m_dir.filePath("missing.ftrec").toStdString()));
    }

#ifndef FT_MODEL_ONLY // the app is not built in the model-only trees (ThreadSanitizer)
    void killedRecorderLeavesAFileThatOpens() {
        // A real recorder process, paced at real time, killed with SIGKILL mid-run.
        const QString path = m_dir.filePath("killed.ftrec");
        QProcess p;
        p.start(FT_BINARY_PATH("/bin/floortwin"),
                {"--headless", "--for", "10m", "--realtime", "--record", path});
        QVERIFY(p.waitForStarted());
        // The recording starts when its file appears (after the process has loaded and the
        // simulator has settled, which a loaded machine takes seconds for): time from there.
        QElapsedTimer wall;
        wall.start();
        while (!QFile::exists(path) && wall.elapsed() < 30000)
            QTest::qWait(20);
        QVERIFY2(QFile::exists(path), "the recorder never created its file");
        wall.restart();
        QTest::qWait(3500);
        const double killedAfter = static_cast<double>(wall.elapsed()) / 1000.0;
        ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
        p.waitForFinished();
        auto reader = importers::RecordingReader::open(path.toStdString());
        QVERIFY2(reader, reader ? "" : reader.error().toString().c_str());
        const double recorded = model::toSeconds((*reader)->endTime() - (*reader)->startTime());
        qInfo("killed after %.1f s of wall time; the file holds %.1f s", killedAfter, recorded);
        // The recording may lose at most its last second (and the moment before its first write).
        QVERIFY2(recorded > killedAfter - 2.0, qPrintable(QString("%1 s recorded").arg(recorded)));
        model::Snapshot s;
        QVERIFY((*reader)->snapshotAt((*reader)->endTime(), s));
    }
#endif
};

QTEST_GUILESS_MAIN(TestRecording)
#include "test_recording.moc"
