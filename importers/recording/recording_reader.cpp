#include "recording_reader.h"

#include "alert_sets.h"
#include "importers/floor/floor_file.h"
#include "keyframe_codec.h"
#include "sample_codec.h"
#include "sqlite_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <ctime>
#include <limits>
#include <map>
#include <sqlite3.h>

namespace ft::importers {

RecordingReader::~RecordingReader() {
    if (m_db) sqlite3_close(m_db);
}

std::expected<std::unique_ptr<RecordingReader>, Error>
RecordingReader::open(const std::string& path) {
    std::unique_ptr<RecordingReader> r(new RecordingReader());
    r->m_path = path;
    FILE* probe = std::fopen(path.c_str(), "rb");
    if (!probe)
        return std::unexpected(
            Error{"cannot open the recording (no such file or no permission)", path, 0, 0, {}});
    char magic[16] = {};
    const std::size_t got = std::fread(magic, 1, sizeof magic, probe);
    std::fclose(probe);
    if (got < sizeof magic || std::memcmp(magic, "SQLite format 3", 15) != 0)
        return std::unexpected(
            Error{"not a floortwin recording (not an SQLite database)", path, 0, 0, {}});
    if (sqlite3_open_v2(path.c_str(), &r->m_db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
        return std::unexpected(Error{
            std::string("cannot open the recording: ") + sqlite3_errmsg(r->m_db), path, 0, 0, {}});
    if (auto loaded = r->load(); !loaded) return std::unexpected(loaded.error());
    return r;
}

std::expected<void, Error> RecordingReader::load() {
    model::TimeNs declaredEnd = 0;
    if (auto header = loadHeader(declaredEnd); !header) return header;
    if (auto index = loadIndex(declaredEnd); !index) return index;
    loadEvents();
    return {};
}

// The header (meta): format, floor, source, tick, and the end time the writer noted.
std::expected<void, Error> RecordingReader::loadHeader(model::TimeNs& declaredEnd) {
    // Header: format, floor, source.
    std::map<std::string, std::string> meta;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(m_db, "SELECT key, value FROM meta", -1, &st, nullptr) != SQLITE_OK)
        return std::unexpected(
            error(std::string("not a floortwin recording or unreadable header: ") +
                  sqlite3_errmsg(m_db)));
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        meta[columnText(st, 0)] = columnText(st, 1);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && meta.empty())
        return std::unexpected(
            error(std::string("the recording's header is corrupt: ") + sqlite3_errmsg(m_db)));
    if (!meta.contains("format_version"))
        return std::unexpected(error("not a floortwin recording (no format version)"));
    // Numbers in the header: a damaged or hand-edited value is an error naming its key.
    std::string badKey;
    auto number = [&]<class T = std::int64_t>(const char* key, T fallback)->T {
        const auto it = meta.find(key);
        if (it == meta.end()) return fallback;
        T v = 0;
        const char* end = it->second.data() + it->second.size();
        const auto [ptr, ec] = std::from_chars(it->second.data(), end, v);
        if (ec != std::errc() || ptr != end) {
            if (badKey.empty()) badKey = key;
            return fallback;
        }
        return v;
    };
    const std::int64_t format = number("format_version", std::int64_t{0});
    if (!badKey.empty())
        return std::unexpected(error("not a floortwin recording (format version '" +
                                     meta["format_version"] + "' is not a number)"));
    if (format > kRecordingFormatVersion)
        return std::unexpected(error("recording format " + meta["format_version"] +
                                     " is newer than this floortwin reads (" +
                                     std::to_string(kRecordingFormatVersion) + ")"));
    m_format = format;
    auto floor = parseFloorFile(meta["floor"], m_path + " (embedded floor)");
    if (!floor) return std::unexpected(floor.error());
    m_floor = *floor;
    auto topology = model::Topology::build(m_floor);
    if (!topology)
        return std::unexpected(error("the recorded floor is invalid: " + topology.error()));
    m_topology = std::make_shared<const model::Topology>(std::move(*topology));
    m_info.source = meta["source"];
    m_info.floorJson = meta["floor"];
    m_info.scenario = meta["scenario"];
    m_info.scenarioSource = meta["scenario_source"];
    m_info.seed = number("seed", std::uint64_t{0});
    m_info.tick = number("tick_ns", std::int64_t{100 * model::kNsPerMs});
    m_info.telemetry = meta["telemetry"] == "1";
    m_info.staleAfter = number("stale_after_ns", std::int64_t{0});
    if (!badKey.empty())
        return std::unexpected(error("the recording's header value '" + badKey + "' (" +
                                     meta[badKey] + ") is not a number"));
    for (std::size_t from = 0; m_info.telemetry && from < meta["measured_channels"].size();) {
        const std::string& list = meta["measured_channels"];
        const std::size_t to = std::min(list.find(',', from), list.size());
        if (auto c = model::findChannel(std::string_view(list).substr(from, to - from)))
            m_measuredChannels.set(*c);
        from = to + 1;
    }
    if (m_info.tick <= 0) return std::unexpected(error("the recording's tick is not positive"));
    if (m_info.tick > 60 * model::kNsPerSecond)
        return std::unexpected(error("the recording's tick (" + std::to_string(m_info.tick) +
                                     " ns) is longer than a minute: the header is damaged"));
    declaredEnd = number("end_time", std::int64_t{0});
    return {};
}

// The channels (recorded by name) and the chunk index, and the range they cover.
std::expected<void, Error> RecordingReader::loadIndex(model::TimeNs declaredEnd) {
    // Channels: recorded by name, mapped onto this build's catalog.
    std::map<std::int64_t, std::size_t> byRecordedId; // -> stream
    sqlite3_stmt* st = nullptr;
    int rc = SQLITE_DONE;
    m_chunks.assign(kStreamCount, {});
    m_cache.assign(kStreamCount, {});
    sqlite3_prepare_v2(m_db, "SELECT id, name, entities FROM channels", -1, &st, nullptr);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const std::string name = columnText(st, 1);
        if (auto c = model::findChannel(name)) {
            if (static_cast<std::size_t>(sqlite3_column_int64(st, 2)) !=
                m_topology->count(model::kChannels[*c].kind)) {
                m_warnings.push_back("channel '" + name +
                                     "' has a different entity count than its floor; ignored");
                continue;
            }
            byRecordedId[sqlite3_column_int64(st, 0)] = *c;
        } else if (name.starts_with(kMeasuredAgePrefix) && m_info.telemetry) {
            const auto kind =
                model::entityKindFromName(std::string_view(name).substr(kMeasuredAgePrefix.size()));
            if (kind &&
                static_cast<std::size_t>(sqlite3_column_int64(st, 2)) == m_topology->count(*kind))
                byRecordedId[sqlite3_column_int64(st, 0)] = measuredAgeStream(*kind);
        }
    }
    sqlite3_finalize(st);
    if (byRecordedId.empty())
        return std::unexpected(error("the recording has no channels this floortwin knows"));

    // The chunk index. A damaged file stops the scan: keep what was read before the damage.
    sqlite3_prepare_v2(m_db, "SELECT rowid, channel, t0, rows FROM chunks ORDER BY rowid", -1, &st,
                       nullptr);
    // A chunk's time and row count bound what it can cover: before year 2200, at most 2^20 rows
    // (the writer's are a few hundred), so no sum of them overflows the clock.
    constexpr model::TimeNs kLatest = model::TimeNs{230} * 365 * 86400 * model::kNsPerSecond;
    constexpr std::int64_t kMaxRows = 1 << 20;
    std::size_t implausible = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const auto it = byRecordedId.find(sqlite3_column_int64(st, 1));
        if (it == byRecordedId.end()) continue;
        const model::TimeNs t0 = sqlite3_column_int64(st, 2);
        const std::int64_t rows = sqlite3_column_int64(st, 3);
        if (t0 < 0 || t0 > kLatest || rows <= 0 || rows > kMaxRows) {
            ++implausible;
            continue;
        }
        m_chunks[it->second].push_back(
            {t0, static_cast<std::uint32_t>(rows), sqlite3_column_int64(st, 0)});
        ++m_chunkCount;
    }
    if (implausible > 0)
        m_warnings.push_back(std::to_string(implausible) +
                             " chunks have an impossible time or row count and were skipped");
    if (rc != SQLITE_DONE)
        m_warnings.push_back(std::string("the recording is damaged (") + sqlite3_errmsg(m_db) +
                             "); opened up to the last readable chunk");
    sqlite3_finalize(st);
    // The usable range ends where the channel with the least data ends (a cut file loses the
    // tail of the last chunk's channels).
    m_start = std::numeric_limits<model::TimeNs>::max();
    m_end = std::numeric_limits<model::TimeNs>::max();
    bool any = false;
    for (std::size_t stream = 0; stream < m_chunks.size(); ++stream) {
        if (heldStream(stream)) continue; // below: they bound nothing
        auto& chunks = m_chunks[stream];
        if (chunks.empty()) continue;
        std::ranges::sort(chunks, {}, &ChunkRef::t0);
        any = true;
        m_start = std::min(m_start, chunks.front().t0);
        m_end = std::min(m_end, chunks.back().t0 + (chunks.back().rows - 1) * m_info.tick);
    }
    // A held stream (format 2's per-link blocks) stands from its first row until the next or
    // the recording's end: sorted for readDetail, but only the rows of every tick say where
    // the recording begins and ends (a file cut after a block and before its second's rows
    // holds no samples).
    for (std::size_t stream = 0; stream < m_chunks.size(); ++stream)
        if (heldStream(stream)) std::ranges::sort(m_chunks[stream], {}, &ChunkRef::t0);
    if (!any)
        return std::unexpected(
            error(m_warnings.empty() ? "the recording holds no samples" : m_warnings.front()));
    if (declaredEnd > m_end + m_info.tick)
        m_warnings.push_back("the recording ends early: samples after " + model::formatUtc(m_end) +
                             " are missing");
    return {};
}

// Events, lifecycle transitions, jobs, alert and alarm sets: small, held in memory.
void RecordingReader::loadEvents() {
    // Events, lifecycle transitions, alarm sets (small; held in memory).
    auto scan = [&](const char* sql, auto&& row) {
        sqlite3_stmt* q = nullptr;
        if (sqlite3_prepare_v2(m_db, sql, -1, &q, nullptr) != SQLITE_OK) return;
        int r;
        while ((r = sqlite3_step(q)) == SQLITE_ROW)
            row(q);
        if (r != SQLITE_DONE)
            m_warnings.push_back(std::string("part of the recording's events are unreadable (") +
                                 sqlite3_errmsg(m_db) + ")");
        sqlite3_finalize(q);
    };
    scan("SELECT time, kind, entity_kind, entity, severity, text FROM events ORDER BY rowid",
         [&](sqlite3_stmt* q) {
             m_events.push_back({sqlite3_column_int64(q, 0),
                                 static_cast<model::EventKind>(sqlite3_column_int(q, 1)),
                                 {static_cast<model::EntityKind>(sqlite3_column_int(q, 2)),
                                  static_cast<model::EntityId>(sqlite3_column_int64(q, 3))},
                                 static_cast<model::Severity>(sqlite3_column_int(q, 4)),
                                 columnText(q, 5)});
         });
    scan("SELECT time, rack, from_state, to_state, failure, reason FROM lifecycle ORDER BY rowid",
         [&](sqlite3_stmt* q) {
             m_transitions.push_back({sqlite3_column_int64(q, 0),
                                      static_cast<model::EntityId>(sqlite3_column_int64(q, 1)),
                                      static_cast<model::RackLifecycle>(sqlite3_column_int(q, 2)),
                                      static_cast<model::RackLifecycle>(sqlite3_column_int(q, 3)),
                                      sqlite3_column_int(q, 4) != 0, columnText(q, 5)});
         });
    // Each rack's job, as it changed (recordings made before jobs were kept have none).
    const std::size_t racks = m_topology->count(model::EntityKind::Rack);
    scan("SELECT time, rack, job FROM rack_jobs ORDER BY rowid", [&](sqlite3_stmt* q) {
        const auto rack = static_cast<std::uint64_t>(sqlite3_column_int64(q, 1));
        if (rack < racks)
            m_jobChanges.push_back(
                {sqlite3_column_int64(q, 0), static_cast<model::EntityId>(rack), columnText(q, 2)});
    });
    std::ranges::stable_sort(m_jobChanges, {}, &JobChange::time);
    // Alertmanager's list at each change (recordings without an alerting source have none).
    scan("SELECT time, data FROM alert_sets ORDER BY time", [&](sqlite3_stmt* q) {
        auto board = alertBoardFromJson(columnText(q, 1));
        if (!board) {
            m_warnings.push_back("an alert set at " + model::formatUtc(sqlite3_column_int64(q, 0)) +
                                 " is unreadable (" + board.error() + "): skipped");
            return;
        }
        // Entities this floor does not have (a damaged file) are dropped, not shown elsewhere.
        for (auto& a : board->alerts)
            std::erase_if(a.entities, [&](const model::EntityRef& e) {
                return e.id >= m_topology->count(e.kind);
            });
        m_alertSets.emplace_back(sqlite3_column_int64(q, 0),
                                 std::make_shared<const model::AlertBoard>(std::move(*board)));
    });
    // In time order (a damaged or merged file may not be), then shared by every moment's prefix.
    std::ranges::stable_sort(m_events, {}, &model::Event::time);
    std::ranges::stable_sort(m_transitions, {}, &model::LifecycleTransition::time);
    m_eventLog = model::sharedLogOf(m_events);
    m_transitionLog = model::sharedLogOf(m_transitions);
    std::vector<std::pair<model::TimeNs, std::vector<std::uint8_t>>> rawSets;
    scan("SELECT time, data FROM alarm_sets ORDER BY time", [&](sqlite3_stmt* q) {
        const auto* b = static_cast<const std::uint8_t*>(sqlite3_column_blob(q, 1));
        rawSets.emplace_back(sqlite3_column_int64(q, 0),
                             std::vector<std::uint8_t>(b, b + sqlite3_column_bytes(q, 1)));
    });
    // Titles are interned so Alarm::title (a string_view) stays valid for the reader's life.
    std::map<std::string, std::size_t> titleIndex;
    std::vector<std::vector<std::pair<model::Alarm, std::size_t>>> pending;
    for (const auto& [time, blob] : rawSets) {
        std::vector<std::pair<model::Alarm, std::size_t>> set;
        std::size_t p = 0;
        auto get = [&](void* out, std::size_t n) {
            if (p + n > blob.size()) return false;
            std::memcpy(out, blob.data() + p, n);
            p += n;
            return true;
        };
        while (p < blob.size()) {
            model::Alarm a;
            std::uint8_t kind = 0, severity = 0;
            std::uint16_t len = 0;
            if (!get(&kind, 1) || !get(&a.entity, 4) || !get(&a.channel, 2) || !get(&severity, 1) ||
                !get(&a.value, 4) || !get(&a.threshold, 4) || !get(&a.since, 8) || !get(&len, 2) ||
                p + len > blob.size()) {
                m_warnings.emplace_back("an alarm record is damaged");
                break;
            }
            const std::string title(reinterpret_cast<const char*>(blob.data() + p), len);
            p += len;
            a.kind = static_cast<model::EntityKind>(kind);
            a.severity = static_cast<model::Severity>(severity);
            auto [it, added] = titleIndex.try_emplace(title, m_titles.size());
            if (added) m_titles.push_back(title);
            set.emplace_back(a, it->second);
        }
        pending.push_back(std::move(set));
    }
    for (std::size_t i = 0; i < rawSets.size(); ++i) {
        std::vector<model::Alarm> alarms;
        for (auto& [a, title] : pending[i]) {
            a.title = m_titles[title];
            alarms.push_back(a);
        }
        m_alarmSets.emplace_back(rawSets[i].first, std::move(alarms));
    }
}

std::expected<void, Error> RecordingReader::snapshotAt(model::TimeNs time, model::Snapshot& out) {
    time = std::clamp(time, m_start, m_end);
    time = m_start + (time - m_start) / m_info.tick * m_info.tick;
    out.time = time;
    out.tick = static_cast<std::uint64_t>((time - m_start) / m_info.tick);
    out.values.resize(model::ch::Count);
    for (model::ChannelId c = 0; c < model::ch::Count; ++c) {
        if (model::isDetailChannel(c)) continue;
        auto& column = out.values[c];
        column.resize(m_topology->count(model::kChannels[c].kind));
        if (auto ok = readStream(c, time, column); !ok) return ok;
    }
    if (auto ok = readDetail(time, out); !ok) return ok;
    out.telemetry = m_info.telemetry;
    out.measuredChannels = m_measuredChannels;
    out.staleAfter = m_info.staleAfter;
    for (std::size_t k = 0; k < model::kEntityKindCount; ++k) {
        auto& at = out.measuredAt[k];
        if (!m_info.telemetry) {
            at.clear();
            continue;
        }
        const auto kind = static_cast<model::EntityKind>(k);
        m_ages.resize(m_topology->count(kind));
        if (auto ok = readStream(measuredAgeStream(kind), time, m_ages); !ok) return ok;
        at.resize(m_ages.size());
        for (std::size_t e = 0; e < m_ages.size(); ++e)
            at[e] = std::isfinite(m_ages[e])
                        ? std::max<model::TimeNs>(
                              1, time - static_cast<model::TimeNs>(static_cast<double>(m_ages[e]) *
                                                                   model::kNsPerSecond))
                        : 0;
    }
    // Lifecycle states from their channel; alarms from the last set at or before `time`.
    const auto& states = out.values[model::ch::RackLifecycleState];
    out.rackLifecycle.resize(states.size());
    for (std::size_t r = 0; r < states.size(); ++r)
        out.rackLifecycle[r] =
            std::isfinite(states[r])
                ? static_cast<model::RackLifecycle>(std::clamp(static_cast<int>(states[r]), 0, 11))
                : model::RackLifecycle::Production;
    out.alarms.clear();
    const auto set = std::ranges::upper_bound(
        m_alarmSets, time, {}, &std::pair<model::TimeNs, std::vector<model::Alarm>>::first);
    if (set != m_alarmSets.begin())
        for (auto a : (set - 1)->second) {
            if (a.channel < out.values.size() && a.entity < out.channel(a.channel).size())
                a.value = out.value(a.channel, a.entity);
            out.alarms.push_back(a);
        }
    // Everything that happened up to `time` (shared until the count changes).
    const auto nEvents = static_cast<std::size_t>(
        std::ranges::upper_bound(m_events, time, {}, &model::Event::time) - m_events.begin());
    if (!m_eventPrefix || m_eventPrefix->size() != nEvents)
        m_eventPrefix = std::make_shared<const model::EventLog>(m_eventLog.prefix(nEvents));
    out.events = m_eventPrefix;
    const auto nTransitions = static_cast<std::size_t>(
        std::ranges::upper_bound(m_transitions, time, {}, &model::LifecycleTransition::time) -
        m_transitions.begin());
    if (!m_transitionPrefix || m_transitionPrefix->size() != nTransitions)
        m_transitionPrefix =
            std::make_shared<const model::LifecycleLog>(m_transitionLog.prefix(nTransitions));
    out.lifecycleHistory = m_transitionPrefix;
    out.scenario = m_info.scenario;
    out.rackJobs = rackJobsAt(time);
    const auto alerts = std::ranges::upper_bound(
        m_alertSets, time, {},
        &std::pair<model::TimeNs, std::shared_ptr<const model::AlertBoard>>::first);
    out.externalAlerts = alerts == m_alertSets.begin() ? nullptr : (alerts - 1)->second;
    return {};
}

std::shared_ptr<const std::vector<std::string>> RecordingReader::rackJobsAt(model::TimeNs time) {
    if (m_jobChanges.empty()) return nullptr;
    const auto n = static_cast<std::size_t>(
        std::ranges::upper_bound(m_jobChanges, time, {}, &JobChange::time) - m_jobChanges.begin());
    if (!m_rackJobs || n != m_rackJobsUpTo) {
        // Moments between the same two changes share one list; a new one replays the changes.
        std::vector<std::string> names(m_topology->count(model::EntityKind::Rack));
        for (std::size_t i = 0; i < n; ++i)
            names[m_jobChanges[i].rack] = m_jobChanges[i].job;
        m_rackJobs = std::make_shared<const std::vector<std::string>>(std::move(names));
        m_rackJobsUpTo = n;
    }
    return m_rackJobs;
}

std::expected<void, Error> RecordingReader::channelAt(model::ChannelId channel, model::TimeNs time,
                                                      std::vector<float>& out) {
    if (channel >= model::ch::Count) return std::unexpected(error("no such channel"));
    time = std::clamp(time, m_start, m_end);
    time = m_start + (time - m_start) / m_info.tick * m_info.tick;
    out.resize(m_topology->count(model::kChannels[channel].kind));
    return readStream(channel, time, out);
}

std::expected<void, Error> RecordingReader::shownChannelAt(model::ChannelId channel,
                                                           model::TimeNs time, bool fillModelled,
                                                           std::vector<float>& out) {
    if (auto ok = channelAt(channel, time, out); !ok) return ok;
    if (!m_info.telemetry) return {};
    constexpr float kGap = std::numeric_limits<float>::quiet_NaN();
    if (!m_measuredChannels.test(channel)) {
        if (!fillModelled) std::ranges::fill(out, kGap);
        return {};
    }
    // The entity's measured age at that moment (NaN: never measured), as snapshotAt reads it.
    const auto kind = model::kChannels[channel].kind;
    time = std::clamp(time, m_start, m_end);
    time = m_start + (time - m_start) / m_info.tick * m_info.tick;
    m_ages.resize(out.size());
    if (auto ok = readStream(measuredAgeStream(kind), time, m_ages); !ok) return ok;
    const double staleS =
        static_cast<double>(m_info.staleAfter) / static_cast<double>(model::kNsPerSecond);
    for (std::size_t e = 0; e < out.size(); ++e) {
        if (!std::isfinite(m_ages[e])) {
            if (!fillModelled) out[e] = kGap;
        } else if (static_cast<double>(m_ages[e]) > staleS) {
            out[e] = kGap;
        }
    }
    return {};
}

} // namespace ft::importers
