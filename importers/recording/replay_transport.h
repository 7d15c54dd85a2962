#pragma once
// ReplayTransport: the transport of a recording — a replay clock (play/pause, speed
// 0.1x-1000x forwards or backwards, seek, step by tick, loop a range, jump to events) and a thread
// that decodes and publishes the floor at the clock's position (only the moments it shows, so it
// never falls behind at any speed). It feeds the views directly, not the sim core. Transport calls
// from any thread.
#include "model/transport.h"
#include "recording_reader.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace ft::model {
class SnapshotPool;
}

namespace ft::importers {

class ReplayTransport : public model::Transport {
public:
    explicit ReplayTransport(std::unique_ptr<RecordingReader> reader);
    ~ReplayTransport() override;

    void start();
    void stop();

    std::shared_ptr<const model::Snapshot> latest() const override;
    bool isReplay() const override { return true; }
    void setSpeed(double speed) override;
    double speed() const override;
    void setPaused(bool paused) override;
    bool paused() const override;
    void setReverse(bool reverse) override;
    bool reverse() const override;
    model::TimeNs beginTime() const override { return m_reader->startTime(); }
    model::TimeNs endTime() const override { return m_reader->endTime(); }
    model::TimeNs tickLength() const override { return m_reader->tick(); }
    void seek(model::TimeNs time) override;
    void step(int ticks) override;
    void setLoop(std::optional<std::pair<model::TimeNs, model::TimeNs>> range) override;
    std::optional<std::pair<model::TimeNs, model::TimeNs>> loop() const override;
    model::TimeNs position() const;
    // The next (direction > 0) or previous event from the current position; false when none.
    bool jumpToEvent(int direction);
    // Decodes the snapshot at the current position now, on the calling thread (no thread
    // needed: headless tools, screenshots, tests).
    std::shared_ptr<const model::Snapshot> renderNow();
    RecordingReader& reader() { return *m_reader; }
    // A channel's values at `time` of the recording as the views chart them (false outside
    // it; RecordingReader::shownChannelAt), safe beside the replay thread: panels read their
    // charts' past this way.
    bool channelAt(model::ChannelId channel, model::TimeNs time, bool fillModelled,
                   std::vector<float>& out);
    std::string lastError() const;

    struct Stats {
        std::uint64_t published = 0;
        double meanDecodeMs = 0;
        double maxDecodeMs = 0;
    };
    Stats stats() const;

private:
    void threadMain();
    // Changes how the clock runs from now on: the position so far is kept, then `change` (under
    // the lock), then the replay thread and the listeners hear of it.
    template <class Change> void reanchor(Change change) {
        {
            std::lock_guard lock(m_mutex);
            const auto now = std::chrono::steady_clock::now();
            m_anchorPosition = positionLocked(now);
            m_anchorWall = now;
            change();
        }
        m_wake.notify_all();
        notifyChanged();
    }
    model::TimeNs positionLocked(std::chrono::steady_clock::time_point now) const;
    void publishAt(model::TimeNs time);

    std::unique_ptr<RecordingReader> m_reader;
    std::shared_ptr<model::SnapshotPool> m_pool;
    mutable std::mutex m_mutex; // clock state and the latest snapshot
    std::condition_variable m_wake;
    model::TimeNs m_anchorPosition = 0;
    std::chrono::steady_clock::time_point m_anchorWall;
    double m_speed = 1.0;
    bool m_paused = true;
    bool m_reverse = false; // the clock runs backwards
    bool m_dirty = true;    // a seek or step asks for a publish even when paused
    std::optional<std::pair<model::TimeNs, model::TimeNs>> m_loop;
    std::shared_ptr<const model::Snapshot> m_latest;
    std::string m_error;
    Stats m_stats;
    std::mutex m_readerMutex; // the reader is not thread-safe: one decoder at a time
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

} // namespace ft::importers
