#include "replay_transport.h"

#include "model/snapshot_pool.h"

#include <algorithm>

namespace ft::importers {

using Clock = std::chrono::steady_clock;

ReplayTransport::ReplayTransport(std::unique_ptr<RecordingReader> reader)
    : m_reader(std::move(reader)), m_pool(std::make_shared<model::SnapshotPool>()) {
    m_anchorPosition = m_reader->startTime();
    m_anchorWall = Clock::now();
    publishAt(m_anchorPosition);
}

ReplayTransport::~ReplayTransport() {
    stop();
}

void ReplayTransport::start() {
    if (m_thread.joinable()) return;
    m_stop = false;
    m_thread = std::thread([this] { threadMain(); });
}

void ReplayTransport::stop() {
    if (!m_thread.joinable()) return;
    m_stop = true;
    m_wake.notify_all();
    m_thread.join();
}

std::shared_ptr<const model::Snapshot> ReplayTransport::latest() const {
    std::lock_guard lock(m_mutex);
    return m_latest;
}

model::TimeNs ReplayTransport::positionLocked(Clock::time_point now) const {
    if (m_paused) return m_anchorPosition;
    const auto elapsed = std::chrono::duration<double>(now - m_anchorWall).count();
    const auto moved = static_cast<model::TimeNs>(elapsed * m_speed * 1e9);
    model::TimeNs p = m_reverse ? m_anchorPosition - moved : m_anchorPosition + moved;
    if (m_loop) {
        const model::TimeNs span = std::max<model::TimeNs>(1, m_loop->second - m_loop->first);
        if (p > m_loop->second) p = m_loop->first + (p - m_loop->first) % span;
        if (p < m_loop->first) p = m_loop->second - (m_loop->second - p) % span;
    }
    return std::clamp(p, m_reader->startTime(), m_reader->endTime());
}

model::TimeNs ReplayTransport::position() const {
    std::lock_guard lock(m_mutex);
    return positionLocked(Clock::now());
}

double ReplayTransport::speed() const {
    std::lock_guard lock(m_mutex);
    return m_speed;
}

bool ReplayTransport::paused() const {
    std::lock_guard lock(m_mutex);
    return m_paused;
}

void ReplayTransport::setSpeed(double speed) {
    reanchor([&] { m_speed = std::clamp(speed, 0.1, 1000.0); });
}

bool ReplayTransport::reverse() const {
    std::lock_guard lock(m_mutex);
    return m_reverse;
}

void ReplayTransport::setReverse(bool reverse) {
    reanchor([&] { m_reverse = reverse; });
}

void ReplayTransport::setPaused(bool paused) {
    {
        std::lock_guard lock(m_mutex);
        const auto now = Clock::now();
        m_anchorPosition = positionLocked(now);
        m_anchorWall = now;
        // Playing from the very end starts again from the beginning, as a video player does
        // (backwards: from the very start, again from the end).
        if (!paused && !m_reverse && m_anchorPosition >= m_reader->endTime())
            m_anchorPosition = m_loop ? m_loop->first : m_reader->startTime();
        if (!paused && m_reverse && m_anchorPosition <= m_reader->startTime())
            m_anchorPosition = m_loop ? m_loop->second : m_reader->endTime();
        m_paused = paused;
        m_dirty = true;
    }
    m_wake.notify_all();
    notifyChanged();
}

void ReplayTransport::seek(model::TimeNs time) {
    {
        std::lock_guard lock(m_mutex);
        m_anchorPosition = std::clamp(time, m_reader->startTime(), m_reader->endTime());
        m_anchorWall = Clock::now();
        m_dirty = true;
    }
    m_wake.notify_all();
}

void ReplayTransport::step(int ticks) {
    {
        std::lock_guard lock(m_mutex);
        const auto now = Clock::now();
        m_anchorPosition = std::clamp(positionLocked(now) + ticks * m_reader->tick(),
                                      m_reader->startTime(), m_reader->endTime());
        m_anchorWall = now;
        m_paused = true; // stepping is frame by frame
        m_dirty = true;
    }
    m_wake.notify_all();
    notifyChanged();
}

void ReplayTransport::setLoop(std::optional<std::pair<model::TimeNs, model::TimeNs>> range) {
    {
        std::lock_guard lock(m_mutex);
        if (range && range->second <= range->first) range.reset();
        m_loop = range;
    }
    notifyChanged();
}

std::optional<std::pair<model::TimeNs, model::TimeNs>> ReplayTransport::loop() const {
    std::lock_guard lock(m_mutex);
    return m_loop;
}

bool ReplayTransport::jumpToEvent(int direction) {
    const model::TimeNs here = position();
    const auto& events = m_reader->events(); // immutable after open: safe to read here
    std::optional<model::TimeNs> target;
    for (const auto& e : events) {
        // Alarm churn is not where an investigator wants to land; scenario steps, protections,
        // lifecycle changes and raised alarms are.
        if (e.kind == model::EventKind::AlarmCleared) continue;
        if (direction > 0 && e.time > here + m_reader->tick() / 2 && (!target || e.time < *target))
            target = e.time;
        if (direction < 0 && e.time < here - m_reader->tick() / 2 && (!target || e.time > *target))
            target = e.time;
    }
    if (!target) return false;
    seek(*target);
    return true;
}

void ReplayTransport::publishAt(model::TimeNs time) {
    const auto t0 = Clock::now();
    auto snapshot = m_pool->take();
    std::expected<void, Error> ok;
    {
        std::lock_guard readerLock(m_readerMutex);
        ok = m_reader->snapshotAt(time, *snapshot);
    }
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    std::lock_guard lock(m_mutex);
    if (!ok) {
        m_error = ok.error().toString();
        return;
    }
    m_latest = m_pool->wrap(std::move(snapshot));
    ++m_stats.published;
    m_stats.meanDecodeMs += (ms - m_stats.meanDecodeMs) /
                            static_cast<double>(std::min<std::uint64_t>(m_stats.published, 100));
    m_stats.maxDecodeMs = std::max(m_stats.maxDecodeMs, ms);
}

bool ReplayTransport::channelAt(model::ChannelId channel, model::TimeNs time, bool fillModelled,
                                std::vector<float>& out) {
    if (time < m_reader->startTime() || time > m_reader->endTime()) return false;
    std::lock_guard readerLock(m_readerMutex);
    return m_reader->shownChannelAt(channel, time, fillModelled, out).has_value();
}

std::shared_ptr<const model::Snapshot> ReplayTransport::renderNow() {
    publishAt(position());
    {
        std::lock_guard lock(m_mutex);
        m_dirty = false;
    }
    return latest();
}

std::string ReplayTransport::lastError() const {
    std::lock_guard lock(m_mutex);
    return m_error;
}

ReplayTransport::Stats ReplayTransport::stats() const {
    std::lock_guard lock(m_mutex);
    return m_stats;
}

void ReplayTransport::threadMain() {
    while (!m_stop) {
        model::TimeNs target = 0;
        bool publish = false, reachedEnd = false;
        {
            std::unique_lock lock(m_mutex);
            // Wake at the frame rate while playing; otherwise when told to.
            m_wake.wait_for(lock, std::chrono::milliseconds(m_paused ? 200 : 15),
                            [&] { return m_stop.load() || m_dirty; });
            if (m_stop) break;
            const auto now = Clock::now();
            target = positionLocked(now);
            const model::TimeNs shown = m_latest ? m_latest->time : -1;
            const model::TimeNs tick = m_reader->tick();
            publish = m_dirty || (target / tick != shown / tick);
            m_dirty = false;
            // Reaching the end (backwards: the start) pauses playback there.
            const model::TimeNs edge = m_reverse ? m_reader->startTime() : m_reader->endTime();
            if (!m_paused && !m_loop && (m_reverse ? target <= edge : target >= edge)) {
                m_anchorPosition = edge;
                m_anchorWall = now;
                m_paused = true;
                reachedEnd = true;
            }
        }
        if (reachedEnd) notifyChanged();
        if (publish) publishAt(target);
    }
}

} // namespace ft::importers
