#pragma once
// RecordingWriter: records published snapshots into a .ftrec file (SQLite, WAL). Its own thread
// encodes chunks of one second (one per channel, see SampleCodec) and commits each with that
// second's events, lifecycle transitions and alarm changes, so a killed recorder loses at most
// the second in flight. The per-link channels are written once per change of their block.
// push() never blocks the caller: when the writer cannot keep up it drops the snapshot and
// counts it (stats().dropped, shown on screen and in the summary). push() from any thread;
// create/close from the owner.
#include "importers/formats/error.h"
#include "model/external_alert.h"
#include "model/snapshot.h"
#include "model/topology.h"

#include <atomic>
#include <bitset>
#include <condition_variable>
#include <deque>
#include <expected>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>

struct sqlite3;
struct sqlite3_stmt;

namespace ft::importers {

// 2: the per-link channels (model::isDetailChannel) are kept as one-row chunks, one each time
// their block changes (a counter interval), held until the next; format 1 repeated them in every
// row of every chunk.
constexpr int kRecordingFormatVersion = 2;
// A fork restores the newest keyframe before its moment and runs the rest: one a minute keeps
// that rest under 600 ticks, and a keyframe of the 1,778-rack floor costs the sim thread a copy
// of its state once a minute.
constexpr model::TimeNs kKeyframeEvery = 60 * model::kNsPerSecond;
constexpr std::size_t kKeyframesWaiting = 3; // a writer further behind drops the oldest
// A chunk holds one second and is committed whole, so a killed recorder loses at most that
// second. (Three-second chunks rewritten every second compressed 14 % better and cost the
// writer twice the encoding: behind a wall display at 100x it dropped snapshots.)
constexpr std::uint32_t kRowsPerChunk = 10;

struct RecordingInfo {
    std::string source = "simulator";
    std::string floorJson; // floor-file JSON of the floor recorded on
    std::uint64_t seed = 0;
    std::string scenario;
    // The scenario file's text (empty: none, or not from a file): a fork re-runs it exactly.
    std::string scenarioSource;
    model::TimeNs tick = 100 * model::kNsPerMs;
    // Recorded from telemetry (live or imported): the file also keeps, per entity, the age of
    // its newest measured value, so a replay tells measured values from the model's.
    bool telemetry = false;
    model::TimeNs staleAfter = 0;
};

// The measured-age streams of a telemetry recording are stored as extra channels, one per
// entity kind, named this prefix + the kind's name; seconds since the newest measured value per
// entity, NaN while never measured.
inline constexpr std::string_view kMeasuredAgePrefix = "measured_age.";
// Stream index of a kind's measured ages among the writer's and reader's channels.
constexpr std::size_t measuredAgeStream(model::EntityKind kind) {
    return model::ch::Count + static_cast<std::size_t>(kind);
}
inline constexpr std::size_t kStreamCount = model::ch::Count + model::kEntityKindCount;

class RecordingWriter {
public:
    struct Stats {
        std::uint64_t snapshots = 0;
        std::uint64_t samples = 0;
        std::uint64_t dropped = 0;
        std::uint64_t chunks = 0;
        std::uint64_t bytes = 0; // encoded sample bytes
        std::uint64_t keyframes = 0;
        std::uint64_t keyframeBytes = 0; // compressed
        std::uint64_t keyframesDropped = 0;
    };

    static std::expected<std::unique_ptr<RecordingWriter>, Error>
    create(const std::string& path, std::shared_ptr<const model::Topology> topology,
           const RecordingInfo& info, std::size_t queueCapacity = kQueueByMemory);
    // The default queue: as many snapshots as kQueueBytes of their values hold (at least 64),
    // so a writer held off the CPU for a few of a wall display's frames catches up instead of
    // dropping; about a second at 100x on the demo floor.
    static constexpr std::size_t kQueueByMemory = 0;
    static constexpr std::size_t kQueueBytes = 256u << 20;
    ~RecordingWriter();
    RecordingWriter(const RecordingWriter&) = delete;
    RecordingWriter& operator=(const RecordingWriter&) = delete;

    // A stream written only when it changes (the per-link channels), not a row per snapshot.
    static bool isHeld(std::size_t stream) {
        return stream < model::ch::Count &&
               model::isDetailChannel(static_cast<model::ChannelId>(stream));
    }

    bool push(std::shared_ptr<const model::Snapshot> snapshot);
    // The simulator's whole state at `time` (SimCore's keyframe hook): stored compressed once
    // the snapshot of that time is, so a fork restores it instead of re-running the recording.
    // With kKeyframesWaiting already waiting, a blocking writer waits for room; another drops
    // the oldest and counts it.
    void pushKeyframe(model::TimeNs time, std::vector<std::byte> state);
    // Blocking writers make push() wait for room instead of dropping (headless conversions,
    // where every sample matters more than the producer's pace).
    void setBlocking(bool blocking) { m_blocking = blocking; }
    // Writes what is queued, the last partial chunk, and closes the file.
    void close();
    Stats stats() const;
    // The writer's first error (I/O, disk full); empty while all is well.
    std::string error() const;

private:
    RecordingWriter() = default;
    void threadMain();
    void append(const model::Snapshot& s);
    void flushChunk(); // writes the open chunk (insert, or update while it grows) and commits
    // The per-link block, when it is not the one written last: one row per channel, held from
    // `time` on (inside the open transaction).
    void writeDetail(const model::Snapshot& s);
    // One chunk of `stream`: `rows` rows of its columns from `t0`; returns its encoded bytes.
    std::size_t insertChunk(std::size_t stream, model::TimeNs t0, std::uint32_t rows,
                            std::span<const float> values);
    sqlite3_stmt* m_insertChunk = nullptr; // prepared once, on the writer's thread
    void writeKeyframes();                 // those of moments already written

    std::shared_ptr<const model::Topology> m_topology;
    sqlite3* m_db = nullptr;
    std::thread m_thread;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::shared_ptr<const model::Snapshot>> m_queue;
    std::deque<std::pair<model::TimeNs, std::vector<std::byte>>> m_keyframes;
    std::size_t m_capacity = 64;
    bool m_closing = false;
    std::atomic<bool> m_blocking{false};
    std::condition_variable m_room;
    Stats m_stats;
    std::string m_error;

    // Writer-thread state.
    std::size_t columnsOf(std::size_t stream) const;
    bool m_telemetry = false;
    model::TimeNs m_tick = 0;
    std::bitset<model::ch::Count> m_measuredChannels, m_measuredWritten;
    std::vector<std::vector<float>> m_rows; // per stream: rows * entities of the open chunk
    std::uint32_t m_rowCount = 0;
    // Per stream: written at all. A GPU counter's stream starts when a measurement first
    // reaches it (until then it is 0 on every GPU, and a reader says so without a chunk): a
    // recording of the demo, or of an exporter without the extra fields, carries none of them.
    std::vector<std::uint8_t> m_active;
    model::TimeNs m_chunkStart = 0, m_lastTime = 0;
    std::uint64_t m_eventsWritten = 0, m_transitionsWritten = 0; // sequence numbers
    std::shared_ptr<const model::DetailBlock> m_lastDetail;      // held: it cannot be recycled
    std::vector<model::Alarm> m_lastAlarms;
    std::shared_ptr<const std::vector<std::string>> m_lastRackJobs;
    std::shared_ptr<const model::AlertBoard> m_lastAlerts;
    bool m_anyAlarmsWritten = false;
};

} // namespace ft::importers
