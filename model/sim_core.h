#pragma once
// SimCore: runs a SimModel on its own thread. Sources push SampleBatches into a bounded queue
// (never blocking: a full queue drops the batch and counts it); each tick the sim thread drains
// the queue, steps the model and publishes a new immutable Snapshot. A running core does not
// wait for its tick to show what arrives: it applies and publishes it at once (the totals made
// of it follow at the tick), so a measurement reaches the screen in a frame. Any thread may call
// submit(), latest() and stats(); start()/stop()/runFor() belong to the owning thread.
#include "sim_model.h"
#include "transport.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace ft::model {

class SnapshotPool;

class SimCore : public Transport {
public:
    struct Stats {
        std::uint64_t ticks = 0;
        std::uint64_t batchesApplied = 0;
        std::uint64_t samplesApplied = 0;
        std::uint64_t batchesDropped = 0;
        double lastTickMs = 0;
        double meanTickMs = 0;
    };

    SimCore(std::shared_ptr<const Topology> topology, SimConfig config, Scenario scenario = {},
            std::size_t queueCapacity = 256);
    ~SimCore() override;
    SimCore(const SimCore&) = delete;
    SimCore& operator=(const SimCore&) = delete;

    // speed: simulated seconds per wall-clock second; 0 runs as fast as possible.
    void start(double speed = 1.0);
    void stop();
    bool running() const { return m_thread.joinable(); }
    void setSpeed(double speed) override;
    double speed() const override { return m_speed.load(); }
    void setPaused(bool paused) override;
    bool paused() const override { return m_paused.load(); }
    bool isReplay() const override { return false; }
    TimeNs beginTime() const override { return m_config.startTime; }
    TimeNs endTime() const override { return latest()->time; }
    TimeNs tickLength() const override { return m_config.step; }

    // Runs the model on the calling thread until its time reaches `until` (the thread must not
    // be running). Used by headless runs, --at and tests.
    void runUntil(TimeNs until);
    // SimModel::addScenario, before start() (a what-if fork).
    void addScenario(const Scenario& more, TimeNs from);

    bool submit(SampleBatch batch);
    std::shared_ptr<const Snapshot> latest() const override;
    Stats stats() const;
    const Topology& topology() const { return *m_topology; }
    TimeNs startTime() const { return m_config.startTime; }
    // Called on the sim thread after each publish (e.g. to feed a recorder). Set before start().
    void setPublishHook(std::function<void(const std::shared_ptr<const Snapshot>&)> hook);
    // Keyframes for a recorder: at every whole `every` of simulated time since the start, on the
    // sim thread after that tick's publish, the model's whole state (SimModel::saveState) and
    // its time. Set before start().
    using KeyframeHook = std::function<void(TimeNs time, std::vector<std::byte> state)>;
    void setKeyframeHook(TimeNs every, KeyframeHook hook);
    // Restores a keyframe (SimModel::restoreState) and publishes it; before start(). On an error
    // the core is not usable (make another).
    std::expected<void, std::string> restore(std::span<const std::byte> state);
    // SimModel::initialiseFrom, then publishes; before start().
    std::vector<std::size_t> initialiseFrom(const Snapshot& measured);

private:
    void threadMain();
    void tickOnce();
    // The queued batches into the model: how many, and their samples.
    std::pair<std::size_t, std::uint64_t> applyQueued();
    // Between ticks: what arrived, applied and published at once (not handed to the hook).
    void applyNow();
    // `tick`: a tick's snapshot, handed to the publish hook too.
    void publish(bool tick = true);

    std::shared_ptr<const Topology> m_topology;
    SimConfig m_config;
    SimModel m_model;
    std::shared_ptr<SnapshotPool> m_pool;

    mutable std::mutex m_queueMutex;
    std::condition_variable m_wake;
    std::deque<SampleBatch> m_queue;
    std::size_t m_queueCapacity;
    std::vector<SampleBatch> m_drain;

    mutable std::mutex m_latestMutex;
    std::shared_ptr<const Snapshot> m_latest;
    mutable std::mutex m_statsMutex;
    Stats m_stats;

    std::function<void(const std::shared_ptr<const Snapshot>&)> m_publishHook;
    KeyframeHook m_keyframeHook;
    TimeNs m_keyframeEvery = 0;
    TimeNs m_nextKeyframe = 0;
    void scheduleKeyframe(); // the next whole `every` after the model's time
    std::atomic<bool> m_stopRequested{false};
    std::atomic<double> m_speed{1.0};
    std::atomic<bool> m_paused{false};
    std::thread m_thread;
};

} // namespace ft::model
