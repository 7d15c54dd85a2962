// What a recording keeps beside its streams: the simulator's keyframes (a fork restores the
// newest before its moment) and the bookmarks people add while replaying (recording_reader.h).
#include "keyframe_codec.h"
#include "recording_reader.h"
#include "sqlite_text.h"

#include <sqlite3.h>

namespace ft::importers {

std::expected<std::optional<RecordingReader::Keyframe>, Error>
RecordingReader::keyframeAtOrBefore(model::TimeNs time) const {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(m_db,
                           "SELECT time, data FROM keyframes WHERE time <= ? ORDER BY time DESC "
                           "LIMIT 1",
                           -1, &st, nullptr) != SQLITE_OK) {
        sqlite3_finalize(st);
        return std::nullopt; // recorded before keyframes were kept
    }
    sqlite3_bind_int64(st, 1, time);
    std::optional<Keyframe> found;
    std::string damaged;
    if (sqlite3_step(st) == SQLITE_ROW) {
        const auto* data = static_cast<const std::uint8_t*>(sqlite3_column_blob(st, 1));
        const auto size = static_cast<std::size_t>(sqlite3_column_bytes(st, 1));
        auto state = decompressKeyframe({data, size});
        if (state)
            found = Keyframe{sqlite3_column_int64(st, 0), std::move(*state)};
        else
            damaged = state.error() + " at " + model::formatUtc(sqlite3_column_int64(st, 0));
    }
    sqlite3_finalize(st);
    if (!damaged.empty()) return std::unexpected(error(damaged));
    return found;
}

std::size_t RecordingReader::keyframeCount() const {
    sqlite3_stmt* st = nullptr;
    std::size_t n = 0;
    if (sqlite3_prepare_v2(m_db, "SELECT count(*) FROM keyframes", -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = static_cast<std::size_t>(sqlite3_column_int64(st, 0));
    sqlite3_finalize(st);
    return n;
}

std::vector<Bookmark> RecordingReader::bookmarks() const {
    std::vector<Bookmark> out;
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(m_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        // Recordings bookmarked before cameras were kept have no camera column.
        const bool camera = sqlite3_prepare_v2(db,
                                               "SELECT id, time, text, camera FROM bookmarks "
                                               "ORDER BY time",
                                               -1, &st, nullptr) == SQLITE_OK;
        if (!camera)
            sqlite3_prepare_v2(db, "SELECT id, time, text FROM bookmarks ORDER BY time", -1, &st,
                               nullptr);
        while (st && sqlite3_step(st) == SQLITE_ROW) {
            Bookmark b{
                sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), columnText(st, 2), {}};
            if (camera && sqlite3_column_type(st, 3) == SQLITE_TEXT) b.camera = columnText(st, 3);
            out.push_back(std::move(b));
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return out;
}

std::expected<Bookmark, Error> RecordingReader::addBookmark(model::TimeNs time,
                                                            const std::string& text,
                                                            const std::string& camera) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(m_path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
        const std::string why = sqlite3_errmsg(db);
        sqlite3_close(db);
        return std::unexpected(
            error("cannot save the bookmark (the recording is read-only here): " + why));
    }
    // Older recordings: give their bookmarks a camera column (existing rows keep none).
    sqlite3_stmt* probe = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT camera FROM bookmarks LIMIT 0", -1, &probe, nullptr) !=
        SQLITE_OK)
        sqlite3_exec(db, "ALTER TABLE bookmarks ADD COLUMN camera TEXT", nullptr, nullptr, nullptr);
    sqlite3_finalize(probe);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, "INSERT INTO bookmarks(time, text, created, camera) VALUES(?, ?, ?, ?)",
                       -1, &st, nullptr);
    const std::string created =
        model::formatUtc(static_cast<model::TimeNs>(std::time(nullptr)) * model::kNsPerSecond);
    sqlite3_bind_int64(st, 1, time);
    sqlite3_bind_text(st, 2, text.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, created.c_str(), -1, SQLITE_TRANSIENT);
    if (camera.empty())
        sqlite3_bind_null(st, 4);
    else
        sqlite3_bind_text(st, 4, camera.c_str(), -1, SQLITE_TRANSIENT);
    const int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    const Bookmark b{sqlite3_last_insert_rowid(db), time, text, camera};
    const std::string why = sqlite3_errmsg(db);
    sqlite3_close(db);
    if (rc != SQLITE_DONE) return std::unexpected(error("cannot save the bookmark: " + why));
    return b;
}

} // namespace ft::importers
