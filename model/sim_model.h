#pragma once
// SimModel: the twin's mutable state and the physical models that advance it by a fixed step.
// Single-threaded: SimCore owns one and calls it from the sim thread; tests call it directly.
// First model: job mix -> GPU utilization -> power -> heat into the rack's coolant -> GPU
// temperature with a thermal time constant, coupled to the CDU and rack manifold supply.
#include "sample.h"
#include "snapshot.h"
#include "topology.h"
#include "workload_model.h"

#include <memory>

namespace ft::model {

struct SimConfig {
    std::uint64_t seed = 1;
    TimeNs startTime = 1'790'000'000LL * kNsPerSecond; // 2026-09-21, fixed for determinism
    TimeNs step = 100 * kNsPerMs;
    // How long a measured value overrides the model before the model takes over again.
    TimeNs measurementHold = 30 * kNsPerSecond;
};

class SimModel {
public:
    SimModel(std::shared_ptr<const Topology> topology, SimConfig config);

    void apply(const SampleBatch& batch);
    void step();

    const Snapshot& state() const { return m_state; }
    // Copies the state into `out`, reusing its buffers (no allocation once sized).
    void copyTo(Snapshot& out) const;
    TimeNs time() const { return m_state.time; }
    const Topology& topology() const { return *m_topology; }
    const SimConfig& config() const { return m_config; }
    const WorkloadModel& workload() const { return m_workload; }

private:
    bool held(ChannelId c, EntityId e) const {
        return !m_heldUntil[c].empty() && m_heldUntil[c][e] > m_state.time;
    }
    void stepComputeTrays(float dt);
    void stepRacksAndCdus(float dt);
    void evaluateAlarms();

    std::shared_ptr<const Topology> m_topology;
    SimConfig m_config;
    WorkloadModel m_workload;
    Snapshot m_state;
    std::vector<std::vector<TimeNs>> m_heldUntil; // [channel][entity], allocated on first use
    std::vector<float> m_gpuBias;                 // per-GPU silicon variation, fixed
    std::vector<float> m_gpuThrottle;             // 1 = full clocks
    struct AlarmRule {
        ChannelId channel;
        float warnAbove;
        float criticalAbove;
        float hysteresis;
    };
    std::vector<AlarmRule> m_alarmRules;
    std::vector<std::vector<std::uint8_t>> m_alarmLevel; // per rule, per entity: 0/1/2
    std::vector<std::vector<TimeNs>> m_alarmSince;
};

} // namespace ft::model
