#include "recording_writer.h"

#include "alert_sets.h"
#include "keyframe_codec.h"
#include "model/lifecycle.h"
#include "sample_codec.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <sqlite3.h>

namespace ft::importers {

namespace {

const char* kSchema = R"SQL(
PRAGMA journal_mode=WAL;
PRAGMA synchronous=NORMAL;
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE channels(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, unit TEXT NOT NULL, entity_kind TEXT NOT NULL,
                      entities INTEGER NOT NULL);
CREATE TABLE chunks(channel INTEGER NOT NULL, t0 INTEGER NOT NULL, rows INTEGER NOT NULL, data BLOB NOT NULL);
CREATE INDEX chunks_by_time ON chunks(channel, t0);
CREATE TABLE events(time INTEGER NOT NULL, kind INTEGER NOT NULL, entity_kind INTEGER NOT NULL, entity INTEGER NOT NULL,
                    severity INTEGER NOT NULL, text TEXT NOT NULL);
CREATE TABLE lifecycle(time INTEGER NOT NULL, rack INTEGER NOT NULL, from_state INTEGER NOT NULL, to_state INTEGER NOT NULL,
                       failure INTEGER NOT NULL, reason TEXT NOT NULL);
CREATE TABLE alarm_sets(time INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE bookmarks(id INTEGER PRIMARY KEY, time INTEGER NOT NULL, text TEXT NOT NULL, created TEXT NOT NULL, camera TEXT);
CREATE TABLE keyframes(time INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE rack_jobs(time INTEGER NOT NULL, rack INTEGER NOT NULL, job TEXT NOT NULL);
CREATE TABLE alert_sets(time INTEGER PRIMARY KEY, data TEXT NOT NULL);
)SQL";

// An alarm as stored: fixed fields, then the title's length and bytes.
void appendAlarm(std::vector<std::uint8_t>& out, const model::Alarm& a) {
    auto put = [&](const void* p, std::size_t n) {
        const auto* b = static_cast<const std::uint8_t*>(p);
        out.insert(out.end(), b, b + n);
    };
    const auto kind = static_cast<std::uint8_t>(a.kind),
               severity = static_cast<std::uint8_t>(a.severity);
    put(&kind, 1);
    put(&a.entity, 4);
    put(&a.channel, 2);
    put(&severity, 1);
    put(&a.value, 4);
    put(&a.threshold, 4);
    put(&a.since, 8);
    const auto len = static_cast<std::uint16_t>(a.title.size());
    put(&len, 2);
    put(a.title.data(), len);
}

bool sameAlarms(const std::vector<model::Alarm>& a, const std::vector<model::Alarm>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].kind != b[i].kind || a[i].entity != b[i].entity || a[i].channel != b[i].channel ||
            a[i].severity != b[i].severity)
            return false;
    return true;
}

} // namespace

std::expected<std::unique_ptr<RecordingWriter>, Error>
RecordingWriter::create(const std::string& path, std::shared_ptr<const model::Topology> topology,
                        const RecordingInfo& info, std::size_t capacity) {
    std::remove(path.c_str());
    std::remove((path + "-wal").c_str());
    std::remove((path + "-shm").c_str());
    std::unique_ptr<RecordingWriter> w(new RecordingWriter());
    w->m_topology = std::move(topology);
    if (capacity == kQueueByMemory) {
        std::size_t bytes = 0;
        for (model::ChannelId c = 0; c < model::ch::Count; ++c)
            if (!isHeld(c)) bytes += w->m_topology->count(model::kChannels[c].kind) * sizeof(float);
        capacity = std::clamp<std::size_t>(kQueueBytes / std::max<std::size_t>(bytes, 1), 64, 4096);
    }
    w->m_capacity = capacity;
    auto fail = [&](const std::string& what) {
        std::string msg = what + (w->m_db ? std::string(": ") + sqlite3_errmsg(w->m_db) : "");
        return std::unexpected(Error{msg, path, 0, 0, {}});
    };
    if (sqlite3_open_v2(path.c_str(), &w->m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        nullptr) != SQLITE_OK)
        return fail("cannot create the recording");
    if (sqlite3_exec(w->m_db, kSchema, nullptr, nullptr, nullptr) != SQLITE_OK)
        return fail("cannot create the recording's tables");
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(w->m_db, "INSERT INTO meta(key, value) VALUES(?, ?)", -1, &st, nullptr);
    auto meta = [&](const char* key, const std::string& value) {
        sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, value.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_step(st);
        sqlite3_reset(st);
    };
    sqlite3_exec(w->m_db, "BEGIN", nullptr, nullptr, nullptr);
    meta("format_version", std::to_string(kRecordingFormatVersion));
    meta("source", info.source);
    meta("floor", info.floorJson);
    meta("seed", std::to_string(info.seed));
    meta("scenario", info.scenario);
    if (!info.scenarioSource.empty()) meta("scenario_source", info.scenarioSource);
    meta("tick_ns", std::to_string(info.tick));
    if (info.telemetry) {
        meta("telemetry", "1");
        meta("stale_after_ns", std::to_string(info.staleAfter));
    }
    meta("rows_per_chunk", std::to_string(kRowsPerChunk));
    sqlite3_finalize(st);
    sqlite3_prepare_v2(
        w->m_db,
        "INSERT INTO channels(id, name, unit, entity_kind, entities) VALUES(?, ?, ?, ?, ?)", -1,
        &st, nullptr);
    for (model::ChannelId c = 0; c < model::ch::Count; ++c) {
        const auto& info2 = model::kChannels[c];
        sqlite3_bind_int(st, 1, c);
        sqlite3_bind_text(st, 2, info2.name.data(), static_cast<int>(info2.name.size()),
                          SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, info2.unit.data(), static_cast<int>(info2.unit.size()),
                          SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 4, model::entityKindName(info2.kind).data(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 5, static_cast<sqlite3_int64>(w->m_topology->count(info2.kind)));
        sqlite3_step(st);
        sqlite3_reset(st);
    }
    w->m_telemetry = info.telemetry;
    w->m_tick = info.tick;
    for (std::size_t k = 0; info.telemetry && k < model::kEntityKindCount; ++k) {
        const auto kind = static_cast<model::EntityKind>(k);
        const std::string name =
            std::string(kMeasuredAgePrefix) + std::string(model::entityKindName(kind));
        sqlite3_bind_int64(st, 1, static_cast<sqlite3_int64>(measuredAgeStream(kind)));
        sqlite3_bind_text(st, 2, name.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, "s", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, model::entityKindName(kind).data(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 5, static_cast<sqlite3_int64>(w->m_topology->count(kind)));
        sqlite3_step(st);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    if (sqlite3_exec(w->m_db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK)
        return fail("cannot write the recording header");
    w->m_rows.resize(kStreamCount);
    w->m_active.assign(kStreamCount, 1);
    for (model::ChannelId c = model::kFirstGpuCounter; c <= model::kLastGpuCounter; ++c)
        w->m_active[c] = 0;
    // What only a scheduler or a mapper says: from its first word on, too.
    w->m_active[model::ch::ComputeTraySchedulerState] = 0;
    w->m_active[model::ch::GpuPlacedBy] = 0;
    for (std::size_t c = 0; c < kStreamCount; ++c)
        if (w->m_active[c] && !w->isHeld(c)) w->m_rows[c].reserve(kRowsPerChunk * w->columnsOf(c));
    w->m_thread = std::thread([raw = w.get()] { raw->threadMain(); });
    return w;
}

std::size_t RecordingWriter::columnsOf(std::size_t stream) const {
    if (stream < model::ch::Count) return m_topology->count(model::kChannels[stream].kind);
    if (!m_telemetry) return 0;
    return m_topology->count(static_cast<model::EntityKind>(stream - model::ch::Count));
}

RecordingWriter::~RecordingWriter() {
    close();
}

bool RecordingWriter::push(std::shared_ptr<const model::Snapshot> snapshot) {
    {
        std::unique_lock lock(m_mutex);
        if (m_closing) return false;
        if (m_blocking) m_room.wait(lock, [&] { return m_closing || m_queue.size() < m_capacity; });
        if (m_queue.size() >= m_capacity) {
            ++m_stats.dropped;
            return false;
        }
        m_queue.push_back(std::move(snapshot));
    }
    m_wake.notify_one();
    return true;
}

void RecordingWriter::pushKeyframe(model::TimeNs time, std::vector<std::byte> state) {
    {
        std::unique_lock lock(m_mutex);
        if (m_closing) return;
        if (m_blocking)
            m_room.wait(lock, [&] { return m_closing || m_keyframes.size() < kKeyframesWaiting; });
        if (m_keyframes.size() >= kKeyframesWaiting) {
            m_keyframes.pop_front();
            ++m_stats.keyframesDropped;
        }
        m_keyframes.emplace_back(time, std::move(state));
    }
    m_wake.notify_one();
}

void RecordingWriter::writeKeyframes() {
    while (true) {
        std::pair<model::TimeNs, std::vector<std::byte>> next;
        {
            std::lock_guard lock(m_mutex);
            if (m_keyframes.empty() || m_keyframes.front().first > m_lastTime) return;
            next = std::move(m_keyframes.front());
            m_keyframes.pop_front();
        }
        m_room.notify_all();
        const auto blob = compressKeyframe(next.second);
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(m_db, "INSERT OR REPLACE INTO keyframes(time, data) VALUES(?, ?)", -1,
                           &st, nullptr);
        sqlite3_bind_int64(st, 1, next.first);
        sqlite3_bind_blob64(st, 2, blob.data(), blob.size(), SQLITE_STATIC);
        const int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        std::lock_guard lock(m_mutex);
        if (rc != SQLITE_DONE) {
            if (m_error.empty()) m_error = std::string("keyframe: ") + sqlite3_errmsg(m_db);
            continue;
        }
        ++m_stats.keyframes;
        m_stats.keyframeBytes += blob.size();
    }
}

RecordingWriter::Stats RecordingWriter::stats() const {
    std::lock_guard lock(m_mutex);
    return m_stats;
}

std::string RecordingWriter::error() const {
    std::lock_guard lock(m_mutex);
    return m_error;
}

void RecordingWriter::close() {
    {
        std::lock_guard lock(m_mutex);
        if (!m_db) return;
        m_closing = true;
    }
    m_wake.notify_one();
    m_room.notify_all();
    if (m_thread.joinable()) m_thread.join();
    sqlite3_finalize(m_insertChunk);
    m_insertChunk = nullptr;
    sqlite3_close(m_db); // checkpoints the WAL into the file
    m_db = nullptr;
}

void RecordingWriter::threadMain() {
    // At the window's and the simulator's priority: a recorder below them (nice 10) got a tenth
    // of a core beside a wall display on two cores and dropped most of a 100x run. Its queue
    // (kQueueBytes) rides out the frames that take the cores; a live recorder still behind
    // drops and counts, a blocking one waits.
    while (true) {
        std::shared_ptr<const model::Snapshot> next;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_closing || !m_queue.empty(); });
            if (m_queue.empty()) break; // closing and drained
            next = std::move(m_queue.front());
            m_queue.pop_front();
        }
        m_room.notify_all(); // snapshot and keyframe pushers wait on it
        append(*next);
        writeKeyframes();
    }
    if (m_rowCount > 0) flushChunk();
    // Those of moments recorded (writeKeyframes keeps to them; a later one is of no use to a
    // fork).
    writeKeyframes();
}

void RecordingWriter::append(const model::Snapshot& s) {
    // A chunk's rows are consecutive ticks from its start (the reader finds a row by its time):
    // after a gap (snapshots dropped) the next row starts a chunk of its own.
    if (m_rowCount > 0 && s.time != m_lastTime + m_tick) flushChunk();
    if (m_rowCount == 0) m_chunkStart = s.time;
    for (model::ChannelId c = 0; c < model::ch::Count && c < s.values.size(); ++c) {
        if (isHeld(c)) continue; // writeDetail
        const auto v = s.channel(c);
        if (!m_active[c]) {
            if (!s.measuredChannels.test(c)) continue;
            // First measured: the chunk's earlier rows held 0 on every GPU (a counter), or
            // nothing (a node's state before the scheduler spoke).
            m_active[c] = 1;
            m_rows[c].assign(static_cast<std::size_t>(m_rowCount) * v.size(),
                             c == model::ch::ComputeTraySchedulerState
                                 ? std::numeric_limits<float>::quiet_NaN()
                                 : 0.0f);
        }
        m_rows[c].insert(m_rows[c].end(), v.begin(), v.end());
    }
    for (std::size_t k = 0; m_telemetry && k < model::kEntityKindCount; ++k) {
        const auto kind = static_cast<model::EntityKind>(k);
        auto& rows = m_rows[measuredAgeStream(kind)];
        const auto n = static_cast<model::EntityId>(m_topology->count(kind));
        for (model::EntityId e = 0; e < n; ++e) {
            const model::TimeNs at = s.measuredTime(kind, e);
            rows.push_back(at > 0 ? static_cast<float>(model::toSeconds(s.time - at))
                                  : std::numeric_limits<float>::quiet_NaN());
        }
    }
    ++m_rowCount;
    m_lastTime = s.time;
    m_measuredChannels |= s.measuredChannels;

    // Events, lifecycle transitions and alarm changes go into the same transaction as the chunk.
    const bool firstOfCommit = m_rowCount == 1;
    sqlite3_exec(m_db, firstOfCommit ? "BEGIN" : "SAVEPOINT row", nullptr, nullptr, nullptr);
    writeDetail(s);
    // What is new by sequence number: the sim's log keeps only its newest events.
    if (s.events && s.events->endSeq() > m_eventsWritten) {
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(m_db, "INSERT INTO events VALUES(?, ?, ?, ?, ?, ?)", -1, &st, nullptr);
        for (const auto& e : s.events->since(m_eventsWritten)) {
            sqlite3_bind_int64(st, 1, e.time);
            sqlite3_bind_int(st, 2, static_cast<int>(e.kind));
            sqlite3_bind_int(st, 3, static_cast<int>(e.entity.kind));
            sqlite3_bind_int64(st, 4, e.entity.id);
            sqlite3_bind_int(st, 5, static_cast<int>(e.severity));
            sqlite3_bind_text(st, 6, e.text.c_str(), -1, SQLITE_TRANSIENT);
            sqlite3_step(st);
            sqlite3_reset(st);
        }
        sqlite3_finalize(st);
        m_eventsWritten = s.events->endSeq();
    }
    if (s.lifecycleHistory && s.lifecycleHistory->endSeq() > m_transitionsWritten) {
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(m_db, "INSERT INTO lifecycle VALUES(?, ?, ?, ?, ?, ?)", -1, &st,
                           nullptr);
        for (const auto& t : s.lifecycleHistory->since(m_transitionsWritten)) {
            sqlite3_bind_int64(st, 1, t.time);
            sqlite3_bind_int64(st, 2, t.rack);
            sqlite3_bind_int(st, 3, static_cast<int>(t.from));
            sqlite3_bind_int(st, 4, static_cast<int>(t.to));
            sqlite3_bind_int(st, 5, t.failure ? 1 : 0);
            sqlite3_bind_text(st, 6, t.reason.c_str(), -1, SQLITE_TRANSIENT);
            sqlite3_step(st);
            sqlite3_reset(st);
        }
        sqlite3_finalize(st);
        m_transitionsWritten = s.lifecycleHistory->endSeq();
    }
    if (s.rackJobs && s.rackJobs != m_lastRackJobs) {
        // The racks whose job changed (every rack the first time).
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(m_db, "INSERT INTO rack_jobs VALUES(?, ?, ?)", -1, &st, nullptr);
        const auto& jobs = *s.rackJobs;
        for (std::size_t r = 0; r < jobs.size(); ++r) {
            if (m_lastRackJobs && r < m_lastRackJobs->size() && (*m_lastRackJobs)[r] == jobs[r])
                continue;
            sqlite3_bind_int64(st, 1, s.time);
            sqlite3_bind_int64(st, 2, static_cast<sqlite3_int64>(r));
            sqlite3_bind_text(st, 3, jobs[r].c_str(), -1, SQLITE_TRANSIENT);
            sqlite3_step(st);
            sqlite3_reset(st);
        }
        sqlite3_finalize(st);
        m_lastRackJobs = s.rackJobs;
    }
    // The floor's own alerting: the whole board at each change (it changes at a poll, not a tick).
    if (s.externalAlerts && s.externalAlerts != m_lastAlerts &&
        (!m_lastAlerts || *s.externalAlerts != *m_lastAlerts)) {
        const std::string json = alertBoardToJson(*s.externalAlerts);
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(m_db, "INSERT OR REPLACE INTO alert_sets VALUES(?, ?)", -1, &st,
                           nullptr);
        sqlite3_bind_int64(st, 1, s.time);
        sqlite3_bind_text(st, 2, json.c_str(), static_cast<int>(json.size()), SQLITE_TRANSIENT);
        sqlite3_step(st);
        sqlite3_finalize(st);
    }
    if (s.externalAlerts) m_lastAlerts = s.externalAlerts;
    if (!m_anyAlarmsWritten || !sameAlarms(s.alarms, m_lastAlarms)) {
        std::vector<std::uint8_t> blob;
        for (const auto& a : s.alarms)
            appendAlarm(blob, a);
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(m_db, "INSERT OR REPLACE INTO alarm_sets VALUES(?, ?)", -1, &st,
                           nullptr);
        sqlite3_bind_int64(st, 1, s.time);
        sqlite3_bind_blob(st, 2, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
        sqlite3_step(st);
        sqlite3_finalize(st);
        m_lastAlarms = s.alarms;
        m_anyAlarmsWritten = true;
    }
    if (!firstOfCommit) sqlite3_exec(m_db, "RELEASE row", nullptr, nullptr, nullptr);
    {
        std::lock_guard lock(m_mutex);
        ++m_stats.snapshots;
        // The values of the tick (the per-link block, shared by a counter interval's
        // snapshots, is not counted again in each).
        for (const auto& v : s.values)
            m_stats.samples += v.size();
    }
    if (m_rowCount == kRowsPerChunk) flushChunk();
}

void RecordingWriter::writeDetail(const model::Snapshot& s) {
    if (!s.detail || s.detail == m_lastDetail) return;
    std::uint64_t bytes = 0;
    for (model::ChannelId c = model::kFirstDetailChannel; c <= model::kLastDetailChannel; ++c) {
        const auto values = s.channel(c);
        if (values.empty() || values.size() != columnsOf(c)) continue;
        bytes += insertChunk(c, s.time, 1, values);
    }
    m_lastDetail = s.detail;
    std::lock_guard lock(m_mutex);
    ++m_stats.chunks;
    m_stats.bytes += bytes;
}

std::size_t RecordingWriter::insertChunk(std::size_t stream, model::TimeNs t0, std::uint32_t rows,
                                         std::span<const float> values) {
    if (!m_insertChunk)
        sqlite3_prepare_v2(m_db, "INSERT INTO chunks(channel, t0, rows, data) VALUES(?, ?, ?, ?)",
                           -1, &m_insertChunk, nullptr);
    const auto blob =
        encodeSampleBlock(values, rows, static_cast<std::uint32_t>(columnsOf(stream)));
    sqlite3_bind_int(m_insertChunk, 1, static_cast<int>(stream));
    sqlite3_bind_int64(m_insertChunk, 2, t0);
    sqlite3_bind_int(m_insertChunk, 3, static_cast<int>(rows));
    sqlite3_bind_blob(m_insertChunk, 4, blob.data(), static_cast<int>(blob.size()), SQLITE_STATIC);
    sqlite3_step(m_insertChunk);
    sqlite3_reset(m_insertChunk);
    return blob.size();
}

void RecordingWriter::flushChunk() {
    std::uint64_t bytes = 0;
    for (std::size_t c = 0; c < kStreamCount; ++c) {
        if (columnsOf(c) == 0 || !m_active[c] || isHeld(c)) continue;
        bytes += insertChunk(c, m_chunkStart, m_rowCount, m_rows[c]);
        m_rows[c].clear();
    }
    sqlite3_stmt* end = nullptr;
    sqlite3_prepare_v2(m_db, "INSERT OR REPLACE INTO meta(key, value) VALUES('end_time', ?)", -1,
                       &end, nullptr);
    const std::string endText = std::to_string(m_lastTime);
    sqlite3_bind_text(end, 1, endText.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_step(end);
    sqlite3_finalize(end);
    if (m_telemetry && m_measuredChannels != m_measuredWritten) {
        // The channels measurements reached so far, by name (a replay marks the rest modelled).
        std::string names;
        for (model::ChannelId c = 0; c < model::ch::Count; ++c)
            if (m_measuredChannels.test(c))
                names += (names.empty() ? "" : ",") + std::string(model::kChannels[c].name);
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(m_db,
                           "INSERT OR REPLACE INTO meta(key, value) VALUES('measured_channels', ?)",
                           -1, &st, nullptr);
        sqlite3_bind_text(st, 1, names.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_step(st);
        sqlite3_finalize(st);
        m_measuredWritten = m_measuredChannels;
    }
    const int rc = sqlite3_exec(m_db, "COMMIT", nullptr, nullptr, nullptr);
    std::lock_guard lock(m_mutex);
    if (rc != SQLITE_OK && m_error.empty())
        m_error = std::string("recording write failed: ") + sqlite3_errmsg(m_db);
    ++m_stats.chunks;
    m_stats.bytes += bytes;
    m_rowCount = 0;
}

} // namespace ft::importers
