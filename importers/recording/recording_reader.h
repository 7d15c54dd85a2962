#pragma once
// RecordingReader: opens a .ftrec read-only, validates it, and serves the floor's state at any
// moment: the chunk holding that time is decoded (each chunk is a keyframe) and cached, events,
// lifecycle transitions and alarm sets are held in memory. A truncated or partly corrupt file
// opens up to its last good chunk, with a warning that says so. Owner's thread only (the replay
// source gives it its own thread).
#include "importers/formats/error.h"
#include "model/floor_spec.h"
#include "model/lifecycle.h"
#include "model/snapshot.h"
#include "model/topology.h"
#include "recording_writer.h"

#include <bitset>
#include <expected>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

struct sqlite3;

namespace ft::importers {

struct Bookmark {
    std::int64_t id = 0;
    model::TimeNs time = 0;
    std::string text;
    // Where the camera was (floortwin-demo/1's "camera" object as JSON; empty in recordings
    // bookmarked before cameras were kept), so bookmarks can become a demo.
    std::string camera;
};

class RecordingReader {
public:
    static std::expected<std::unique_ptr<RecordingReader>, Error> open(const std::string& path);
    ~RecordingReader();
    RecordingReader(const RecordingReader&) = delete;
    RecordingReader& operator=(const RecordingReader&) = delete;

    const std::string& path() const { return m_path; }
    const model::FloorSpec& floor() const { return m_floor; }
    // The recorded floor, built. Channels this build knows but the recording lacks (it was
    // made by an older floortwin) are served as NaN ("no data") of the right size.
    const std::shared_ptr<const model::Topology>& topology() const { return m_topology; }
    const RecordingInfo& info() const { return m_info; }
    model::TimeNs startTime() const { return m_start; }
    model::TimeNs endTime() const { return m_end; }
    model::TimeNs tick() const { return m_info.tick; }
    // What is wrong with the file, in words (truncation, corrupt chunks); empty when clean.
    const std::vector<std::string>& warnings() const { return m_warnings; }
    std::uint64_t chunkCount() const { return m_chunkCount; }

    // The floor at `time` (clamped to the recording, rounded down to a tick). Reuses `out`'s
    // buffers.
    std::expected<void, Error> snapshotAt(model::TimeNs time, model::Snapshot& out);

    const std::vector<model::Event>& events() const { return m_events; }
    const std::vector<model::LifecycleTransition>& transitions() const { return m_transitions; }
    std::vector<Bookmark> bookmarks() const;
    // Each rack's job at `time` (shared between moments with the same jobs); null when the
    // recording kept none.
    std::shared_ptr<const std::vector<std::string>> rackJobsAt(model::TimeNs time);
    // One channel's values at `time` (clamped into the recording), for charts of the past.
    std::expected<void, Error> channelAt(model::ChannelId channel, model::TimeNs time,
                                         std::vector<float>& out);
    // The same as the views may chart it: in a recording of telemetry, NaN (a gap) for each
    // value that was not measured then — the channel never measured, the entity not yet or not
    // for longer than the recording's staleAfter — unless `fillModelled`, which keeps the
    // model's value where nothing was ever measured (a stale value stays a gap).
    std::expected<void, Error> shownChannelAt(model::ChannelId channel, model::TimeNs time,
                                              bool fillModelled, std::vector<float>& out);
    // The newest keyframe of the simulator's state at or before `time` (a fork restores it and
    // runs on from there instead of re-running the whole recording). None in recordings of
    // telemetry or from before keyframes; a damaged one is an error (the caller can re-run).
    struct Keyframe {
        model::TimeNs time = 0;
        std::vector<std::byte> state; // SimModel::saveState()
    };
    std::expected<std::optional<Keyframe>, Error> keyframeAtOrBefore(model::TimeNs time) const;
    std::size_t keyframeCount() const;
    // Bookmarks are the investigator's notes, written into the recording itself.
    std::expected<Bookmark, Error> addBookmark(model::TimeNs time, const std::string& text,
                                               const std::string& camera = {});

private:
    RecordingReader() = default;
    struct ChunkRef {
        model::TimeNs t0 = 0;
        std::uint32_t rows = 0;
        std::int64_t rowid = 0;
    };
    struct ChannelCache {
        std::int64_t rowid = -1;
        std::uint32_t columns = 0;
        std::vector<float> values;
    };
    std::expected<void, Error> load();
    std::expected<void, Error> loadHeader(model::TimeNs& declaredEnd);
    std::expected<void, Error> loadIndex(model::TimeNs declaredEnd);
    void loadEvents();
    // One stream's row at `time` into `column` (NaN when the recording lacks it).
    std::expected<void, Error> readStream(std::size_t stream, model::TimeNs time,
                                          std::span<float> column);
    // The per-link channels at `time` into out.detail (shared with the moments before while
    // they hold the same rows).
    std::expected<void, Error> readDetail(model::TimeNs time, model::Snapshot& out);
    // Streams kept as a row at each change (format 2's per-link channels), held until the next.
    bool heldStream(std::size_t stream) const {
        return m_format >= 2 && RecordingWriter::isHeld(stream);
    }
    Error error(const std::string& message) const { return Error{message, m_path, 0, 0, {}}; }

    std::string m_path;
    sqlite3* m_db = nullptr;
    model::FloorSpec m_floor;
    std::shared_ptr<const model::Topology> m_topology;
    RecordingInfo m_info;
    model::TimeNs m_start = 0, m_end = 0;
    std::vector<std::string> m_warnings;
    std::uint64_t m_chunkCount = 0;
    std::vector<std::vector<ChunkRef>> m_chunks; // per stream (channel id, then measured ages)
    std::vector<ChannelCache> m_cache;
    std::int64_t m_format = 0;
    std::shared_ptr<const model::DetailBlock> m_detail;            // the per-link block last read
    std::vector<std::pair<std::int64_t, std::size_t>> m_detailKey; // its rows (chunk, row)
    std::uint64_t m_detailStamp = 0;
    std::vector<float> m_ages; // scratch for a kind's measured ages
    std::bitset<model::ch::Count> m_measuredChannels;
    std::vector<model::Event> m_events;
    std::vector<model::LifecycleTransition> m_transitions;
    std::vector<std::pair<model::TimeNs, std::vector<model::Alarm>>> m_alarmSets;
    struct JobChange {
        model::TimeNs time = 0;
        model::EntityId rack = 0;
        std::string job;
    };
    std::vector<JobChange> m_jobChanges; // in time order
    // Alertmanager's board at each change, in time order.
    std::vector<std::pair<model::TimeNs, std::shared_ptr<const model::AlertBoard>>> m_alertSets;
    std::shared_ptr<const std::vector<std::string>> m_rackJobs; // as of m_rackJobsUpTo changes
    std::size_t m_rackJobsUpTo = 0;
    std::vector<std::string> m_titles;   // interned alarm titles (Alarm::title points here)
    model::EventLog m_eventLog;          // m_events, shared by every snapshot's prefix of it
    model::LifecycleLog m_transitionLog; // m_transitions, likewise
    std::shared_ptr<const model::EventLog> m_eventPrefix;
    std::shared_ptr<const model::LifecycleLog> m_transitionPrefix;
};

} // namespace ft::importers
