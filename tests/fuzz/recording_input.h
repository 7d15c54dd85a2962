#pragma once
// One fuzz input for the recording reader: a list of damages done to a real recording — a short
// simulator run on a one-rack floor with a leak (events, alarms, lifecycle transitions) written
// by RecordingWriter — then the damaged file opened and every moment of it read back, the way
// a replay does. Damages: chunk blobs overwritten or cut, chunk headers (time, rows, channel)
// changed, meta rows rewritten or deleted, events, lifecycle rows, alarm sets and channel rows
// altered, rows deleted, and raw bytes of the file itself overwritten (a crashed disk).
// Opening may fail, with an error that says what is wrong; whatever opens must serve each
// moment without crashing and without reading past anything (AddressSanitizer).
//
// Input: records of [op][row lo][row hi][offset lo][offset hi][length][length bytes]. Shared
// by the libFuzzer target and the regression test.
#include "importers/floor/floor_file.h"
#include "importers/recording/recording_reader.h"
#include "importers/recording/recording_writer.h"
#include "model/sim_model.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sqlite3.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace ft::fuzz {

// The undamaged recording, as the bytes of a rollback-journal SQLite file.
inline const std::vector<std::uint8_t>& baseRecording() {
    static const std::vector<std::uint8_t> bytes = [] {
        const std::string path = "/tmp/ft-fuzz-base-" + std::to_string(getpid()) + ".ftrec";
        auto spec = importers::generateFloor(1);
        auto topology = model::Topology::build(spec);
        if (!topology) std::abort();
        auto t = std::make_shared<const model::Topology>(std::move(*topology));
        model::Scenario leak;
        leak.name = "leak";
        model::ScenarioEvent ev;
        ev.at = 2 * model::kNsPerSecond;
        ev.action = model::ScenarioAction::Leak;
        ev.target = model::EntityRef{model::EntityKind::Rack, 0};
        leak.events.push_back(ev);
        model::SimModel sim(t, {}, leak);
        importers::RecordingInfo info;
        info.floorJson = importers::floorSpecToJson(t->spec());
        info.scenario = leak.name;
        info.seed = 1;
        auto writer = importers::RecordingWriter::create(path, t, info);
        if (!writer) std::abort();
        (*writer)->setBlocking(true);
        for (int tick = 0; tick < 40; ++tick) {
            sim.step();
            auto snap = std::make_shared<model::Snapshot>();
            sim.copyTo(*snap);
            (*writer)->push(snap);
        }
        (*writer)->close();
        if (auto reader = importers::RecordingReader::open(path); reader)
            (void)(*reader)->addBookmark((*reader)->startTime() + model::kNsPerSecond, "note",
                                         R"({"focus":[1,2,3]})");
        // One file, no write-ahead log: what a damaged copy on another disk looks like.
        sqlite3* db = nullptr;
        sqlite3_open(path.c_str(), &db);
        sqlite3_exec(db, "PRAGMA journal_mode=DELETE; VACUUM;", nullptr, nullptr, nullptr);
        sqlite3_close(db);
        std::vector<std::uint8_t> out;
        if (FILE* f = std::fopen(path.c_str(), "rb")) {
            std::uint8_t buf[65536];
            std::size_t n;
            while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
                out.insert(out.end(), buf, buf + n);
            std::fclose(f);
        }
        std::remove(path.c_str());
        if (out.empty()) std::abort();
        return out;
    }();
    return bytes;
}

struct RecordingDamage {
    std::uint8_t op = 0;
    std::uint16_t row = 0, offset = 0;
    std::string bytes;
};

inline std::vector<RecordingDamage> parseDamages(const std::uint8_t* data, std::size_t size) {
    std::vector<RecordingDamage> out;
    std::size_t i = 0;
    while (i + 6 <= size && out.size() < 16) {
        RecordingDamage d;
        d.op = data[i];
        d.row = static_cast<std::uint16_t>(data[i + 1] | data[i + 2] << 8);
        d.offset = static_cast<std::uint16_t>(data[i + 3] | data[i + 4] << 8);
        const std::size_t n = std::min<std::size_t>(data[i + 5], size - i - 6);
        d.bytes.assign(reinterpret_cast<const char*>(data) + i + 6, n);
        out.push_back(std::move(d));
        i += 6 + n;
    }
    return out;
}

inline std::int64_t asInt(const std::string& b) {
    std::int64_t v = 0;
    std::memcpy(&v, b.data(), std::min(b.size(), sizeof v));
    return v;
}

// Runs `sql` with ?1 = the damage's row (as an index into the table's rows), ?2 = its bytes as
// a blob or text, ?3 = its bytes as an integer, ?4 = its offset.
inline void exec(sqlite3* db, const char* sql, const RecordingDamage& d, bool text = false) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) return;
    sqlite3_bind_int(st, 1, d.row);
    if (text)
        sqlite3_bind_text(st, 2, d.bytes.data(), static_cast<int>(d.bytes.size()),
                          SQLITE_TRANSIENT);
    else
        sqlite3_bind_blob(st, 2, d.bytes.data(), static_cast<int>(d.bytes.size()),
                          SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, asInt(d.bytes));
    sqlite3_bind_int(st, 4, d.offset);
    while (sqlite3_step(st) == SQLITE_ROW) {
    }
    sqlite3_finalize(st);
}

// The nth row of a table, by rowid order.
#define FT_NTH(table)                                                                              \
    "(SELECT rowid FROM " table " ORDER BY rowid LIMIT 1 OFFSET ?1 % "                             \
    "max(1, (SELECT count(*) FROM " table ")))"

inline void damage(sqlite3* db, const RecordingDamage& d) {
    switch (d.op % 16) {
    case 0: // overwrite part of a chunk's compressed samples
        exec(db,
             "UPDATE chunks SET data = substr(data, 1, ?4 % (length(data) + 1)) || ?2 || "
             "substr(data, ?4 % (length(data) + 1) + 1 + length(?2)) WHERE rowid = " FT_NTH(
                 "chunks"),
             d);
        break;
    case 1: // cut a chunk short
        exec(db,
             "UPDATE chunks SET data = substr(data, 1, ?4 % (length(data) + 1)) WHERE rowid "
             "= " FT_NTH("chunks"),
             d);
        break;
    case 2:
        exec(db, "UPDATE chunks SET t0 = ?3 WHERE rowid = " FT_NTH("chunks"), d);
        break;
    case 3:
        exec(db, "UPDATE chunks SET rows = ?3 WHERE rowid = " FT_NTH("chunks"), d);
        break;
    case 4:
        exec(db, "UPDATE chunks SET channel = ?3 WHERE rowid = " FT_NTH("chunks"), d);
        break;
    case 5: // a header value rewritten (text: numbers, JSON, garbage)
        exec(db, "UPDATE meta SET value = ?2 WHERE rowid = " FT_NTH("meta"), d, true);
        break;
    case 6:
        exec(db, "DELETE FROM meta WHERE rowid = " FT_NTH("meta"), d);
        break;
    case 7: // an event's kind, entity or severity out of range
        exec(db,
             "UPDATE events SET kind = CASE ?4 % 4 WHEN 0 THEN ?3 ELSE kind END, entity_kind = "
             "CASE ?4 % 4 WHEN 1 THEN ?3 ELSE entity_kind END, entity = CASE ?4 % 4 WHEN 2 THEN "
             "?3 ELSE entity END, severity = CASE ?4 % 4 WHEN 3 THEN ?3 ELSE severity END, text "
             "= CASE WHEN ?4 > 30000 THEN ?2 ELSE text END WHERE rowid = " FT_NTH("events"),
             d, true);
        break;
    case 8:
        exec(db,
             "UPDATE lifecycle SET rack = CASE ?4 % 3 WHEN 0 THEN ?3 ELSE rack END, from_state = "
             "CASE ?4 % 3 WHEN 1 THEN ?3 ELSE from_state END, to_state = CASE ?4 % 3 WHEN 2 THEN "
             "?3 ELSE to_state END WHERE rowid = " FT_NTH("lifecycle"),
             d);
        break;
    case 9: // an alarm set's packed alarms overwritten or cut
        exec(db,
             "UPDATE alarm_sets SET data = substr(data, 1, ?4 % (length(data) + 1)) || ?2 WHERE "
             "rowid = " FT_NTH("alarm_sets"),
             d);
        break;
    case 10:
        exec(db,
             "UPDATE channels SET entities = CASE ?4 % 2 WHEN 0 THEN ?3 ELSE entities END, name "
             "= CASE ?4 % 2 WHEN 1 THEN ?2 ELSE name END WHERE rowid = " FT_NTH("channels"),
             d, true);
        break;
    case 11:
        exec(db, "UPDATE bookmarks SET time = ?3, text = ?2, camera = ?2", d, true);
        break;
    case 12: {
        static const char* const tables[] = {"chunks",     "events",   "lifecycle",
                                             "alarm_sets", "channels", "bookmarks"};
        const std::string table = tables[d.offset % 6];
        const std::string sql = "DELETE FROM " + table + " WHERE rowid IN (SELECT rowid FROM " +
                                table +
                                " ORDER BY rowid LIMIT 1 OFFSET ?1 % max(1, (SELECT "
                                "count(*) FROM " +
                                table + ")))";
        exec(db, sql.c_str(), d);
        break;
    }
    case 13: // a whole table gone
        exec(db,
             (std::string("DROP TABLE ") + (d.offset % 4 == 0   ? "events"
                                            : d.offset % 4 == 1 ? "lifecycle"
                                            : d.offset % 4 == 2 ? "alarm_sets"
                                                                : "bookmarks"))
                 .c_str(),
             d);
        break;
    default: // 14, 15: raw bytes of the file (applied after the SQL damage)
        break;
    }
}

// The base recording with the input's damages, written to `path`.
inline void writeDamagedRecording(const std::string& path, const std::uint8_t* data,
                                  std::size_t size) {
    const auto damages = parseDamages(data, size);
    const auto& base = baseRecording();
    {
        sqlite3* db = nullptr;
        if (sqlite3_open(":memory:", &db) != SQLITE_OK) std::abort();
        auto* image = static_cast<unsigned char*>(sqlite3_malloc64(base.size()));
        std::memcpy(image, base.data(), base.size());
        sqlite3_deserialize(db, "main", image, static_cast<sqlite3_int64>(base.size()),
                            static_cast<sqlite3_int64>(base.size()),
                            SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE);
        for (const auto& d : damages)
            damage(db, d);
        sqlite3_int64 n = 0;
        unsigned char* out = sqlite3_serialize(db, "main", &n, 0);
        std::vector<std::uint8_t> file(out, out + (out ? n : 0));
        sqlite3_free(out);
        sqlite3_close(db);
        for (const auto& d : damages)
            if (d.op % 16 >= 14 && !file.empty()) {
                // Offsets reach the whole file: the row picks a 64 KiB window.
                const std::size_t at = (std::size_t{d.row} * 65536 + d.offset) % file.size();
                for (std::size_t k = 0; k < d.bytes.size() && at + k < file.size(); ++k)
                    file[at + k] = static_cast<std::uint8_t>(d.bytes[k]);
                if (d.op % 16 == 15) file.resize(at); // and cut there
            }
        FILE* f = std::fopen(path.c_str(), "wb");
        if (!f) std::abort();
        std::fwrite(file.data(), 1, file.size(), f);
        std::fclose(f);
    }
}

inline void fuzzRecording(const std::uint8_t* data, std::size_t size) {
    const std::string path = "/tmp/ft-fuzz-rec-" + std::to_string(getpid()) + ".ftrec";
    writeDamagedRecording(path, data, size);
    auto reader = importers::RecordingReader::open(path);
    if (!reader) {
        if (reader.error().toString().empty()) std::abort(); // an error says what is wrong
    } else {
        auto& r = **reader;
        volatile std::size_t sink = 0;
        model::Snapshot s;
        const model::TimeNs span = r.endTime() - r.startTime();
        for (int k = 0; k <= 1; ++k) { // the first moment and the last
            const model::TimeNs t = r.startTime() + span * k;
            if (auto ok = r.snapshotAt(t, s); !ok) {
                if (ok.error().toString().empty()) std::abort();
                continue;
            }
            for (const auto& c : s.values)
                sink = sink + c.size();
            for (const auto& a : s.alarms)
                sink = sink + a.title.size() + a.entity;
            if (s.events)
                for (const auto& e : *s.events)
                    sink = sink + e.text.size();
            std::vector<float> column;
            (void)r.channelAt(model::ch::RackPower, t, column);
        }
        for (const auto& b : r.bookmarks())
            sink = sink + b.text.size() + b.camera.size();
        for (const auto& w : r.warnings())
            sink = sink + w.size();
        sink = sink + r.transitions().size() + r.info().scenario.size();
    }
    std::remove(path.c_str());
}

#undef FT_NTH

} // namespace ft::fuzz
