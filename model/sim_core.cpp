#include "sim_core.h"

#include "snapshot_pool.h"

#include <algorithm>
#include <chrono>

namespace ft::model {

SimCore::SimCore(std::shared_ptr<const Topology> topology, SimConfig config, Scenario scenario,
                 std::size_t queueCapacity)
    : m_topology(topology), m_config(config),
      m_model(std::move(topology), config, std::move(scenario)),
      m_pool(std::make_shared<SnapshotPool>()), m_queueCapacity(queueCapacity) {
    publish();
}

SimCore::~SimCore() {
    stop();
}

void SimCore::setPublishHook(std::function<void(const std::shared_ptr<const Snapshot>&)> hook) {
    m_publishHook = std::move(hook);
}

void SimCore::setKeyframeHook(TimeNs every, KeyframeHook hook) {
    m_keyframeEvery = std::max<TimeNs>(every, m_config.step);
    m_keyframeHook = std::move(hook);
    scheduleKeyframe();
}

void SimCore::scheduleKeyframe() {
    if (m_keyframeEvery <= 0) return;
    const TimeNs since = m_model.time() - m_config.startTime;
    m_nextKeyframe = m_config.startTime + (since / m_keyframeEvery + 1) * m_keyframeEvery;
}

std::expected<void, std::string> SimCore::restore(std::span<const std::byte> state) {
    auto restored = m_model.restoreState(state);
    if (!restored) return restored;
    scheduleKeyframe();
    publish();
    return {};
}

std::vector<std::size_t> SimCore::initialiseFrom(const Snapshot& measured) {
    auto taken = m_model.initialiseFrom(measured);
    publish();
    return taken;
}

void SimCore::start(double speed) {
    if (m_thread.joinable()) return;
    m_speed = speed;
    m_stopRequested = false;
    m_thread = std::thread([this] { threadMain(); });
}

void SimCore::stop() {
    if (!m_thread.joinable()) return;
    {
        std::lock_guard lock(m_queueMutex);
        m_stopRequested = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

void SimCore::setSpeed(double speed) {
    m_speed = speed;
    m_wake.notify_all();
    notifyChanged();
}

void SimCore::setPaused(bool paused) {
    m_paused = paused;
    m_wake.notify_all();
    notifyChanged();
}

void SimCore::addScenario(const Scenario& more, TimeNs from) {
    m_model.addScenario(more, from);
}

void SimCore::runUntil(TimeNs until) {
    while (m_model.time() + m_config.step <= until)
        tickOnce();
}

bool SimCore::submit(SampleBatch batch) {
    {
        std::lock_guard lock(m_queueMutex);
        if (m_queue.size() >= m_queueCapacity) {
            std::lock_guard statsLock(m_statsMutex);
            ++m_stats.batchesDropped;
            return false;
        }
        m_queue.push_back(std::move(batch));
    }
    // A running core shows it now, not at its next tick (live sample to pixel).
    m_wake.notify_all();
    return true;
}

std::shared_ptr<const Snapshot> SimCore::latest() const {
    std::lock_guard lock(m_latestMutex);
    return m_latest;
}

SimCore::Stats SimCore::stats() const {
    std::lock_guard lock(m_statsMutex);
    return m_stats;
}

std::pair<std::size_t, std::uint64_t> SimCore::applyQueued() {
    {
        std::lock_guard lock(m_queueMutex);
        for (auto& b : m_queue)
            m_drain.push_back(std::move(b));
        m_queue.clear();
    }
    std::uint64_t samples = 0;
    for (const auto& b : m_drain) {
        m_model.apply(b);
        samples += b.samples.size();
    }
    const std::size_t batches = m_drain.size();
    m_drain.clear();
    return {batches, samples};
}

void SimCore::applyNow() {
    const auto [batches, samples] = applyQueued();
    if (batches == 0) return;
    // The measured values at the moment they arrive, at the tick's time; the totals made of
    // them follow at the tick. Not a tick: the recorder (the hook) gets the tick's snapshot,
    // which holds these values too.
    publish(false);
    std::lock_guard lock(m_statsMutex);
    m_stats.batchesApplied += batches;
    m_stats.samplesApplied += samples;
}

void SimCore::tickOnce() {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const auto [batches, samples] = applyQueued();
    m_model.step();
    publish();
    if (m_keyframeHook && m_model.time() >= m_nextKeyframe) {
        m_keyframeHook(m_model.time(), m_model.saveState());
        scheduleKeyframe();
    }
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    std::lock_guard lock(m_statsMutex);
    ++m_stats.ticks;
    m_stats.batchesApplied += batches;
    m_stats.samplesApplied += samples;
    m_stats.lastTickMs = ms;
    m_stats.meanTickMs += (ms - m_stats.meanTickMs) /
                          static_cast<double>(std::min<std::uint64_t>(m_stats.ticks, 100));
}

void SimCore::publish(bool tick) {
    auto snapshot = m_pool->take();
    m_model.publishTo(*snapshot);
    auto shared = m_pool->wrap(std::move(snapshot));
    {
        std::lock_guard lock(m_latestMutex);
        m_latest = shared;
    }
    if (tick && m_publishHook) m_publishHook(shared);
}

void SimCore::threadMain() {
    using Clock = std::chrono::steady_clock;
    // Pacing: simulated time follows the wall clock times the speed, measured from an anchor
    // that is reset whenever the speed changes or the sim was paused.
    auto anchorWall = Clock::now();
    TimeNs anchorSim = m_model.time();
    double anchorSpeed = m_speed.load();
    constexpr auto kApplyEvery = std::chrono::milliseconds(20);
    auto lastApply = Clock::now() - kApplyEvery;
    while (!m_stopRequested.load()) {
        const double speed = m_speed.load();
        if (m_paused.load()) {
            std::unique_lock lock(m_queueMutex);
            m_wake.wait_for(lock, std::chrono::milliseconds(50),
                            [&] { return m_stopRequested.load(); });
            anchorWall = Clock::now();
            anchorSim = m_model.time();
            continue;
        }
        if (speed != anchorSpeed) {
            anchorWall = Clock::now();
            anchorSim = m_model.time();
            anchorSpeed = speed;
        }
        if (speed > 0) {
            const TimeNs next = m_model.time() + m_config.step;
            const auto due = anchorWall + std::chrono::nanoseconds(static_cast<TimeNs>(
                                              static_cast<double>(next - anchorSim) / speed));
            std::unique_lock lock(m_queueMutex);
            // Samples waiting are shown before the tick, at most once a frame (a scrape hands
            // over a batch per target); the tick itself comes when due whatever arrives.
            const bool samples = !m_queue.empty();
            const auto wake = samples ? std::min(due, lastApply + kApplyEvery) : due;
            if (m_wake.wait_until(lock, wake, [&] {
                    return m_stopRequested.load() || m_speed.load() != anchorSpeed ||
                           m_paused.load() || (!samples && !m_queue.empty());
                }))
                continue;
            if (Clock::now() < due) {
                lock.unlock();
                applyNow();
                lastApply = Clock::now();
                continue;
            }
        }
        tickOnce();
    }
}

} // namespace ft::model
