#pragma once
// LifecycleModel: drives racks through bring-up and its validation gates. Each stage takes a
// realistic time; gates are decided by measuring the simulated floor (a tray's GPUs too hot
// under diagnostics, a rack's NVLink throughput below its expected range, flapping rail links),
// never by a coin flip at the gate. Faults are planned when a wave arrives (deterministic for the
// seed) and show on the other layers while they are there. Owned by SimModel; sim thread only.
#include "lifecycle.h"
#include "random.h"
#include "scenario.h"
#include "snapshot.h"
#include "topology.h"

#include <vector>

namespace ft::model {

class LifecycleModel {
public:
    LifecycleModel(const Topology& topology, std::uint64_t seed);

    void apply(const ScenarioEvent& event, TimeNs now, std::vector<Event>& events);
    // Advances stage timers and evaluates gates against the current state; writes the
    // lifecycle channels (progress, node sub-states, link flaps).
    void step(Snapshot& state, float dt, std::vector<Event>& events);

    RackLifecycle state(EntityId rack) const { return m_machine.state(rack); }

    // The workload scheduler's word on a rack, when the floor follows it: `out` = some node
    // drained, down or failed, `maintenance` = some node held for maintenance; `why` names
    // them. A rack in production leaves for troubleshooting (or maintenance) and stays there,
    // whatever its stage timer says, while the scheduler keeps a node out. Once every node is
    // back it returns to production through the gates at once: the scheduler put the nodes
    // back in service, so the site's own checks passed them.
    void followScheduler(EntityId rack, bool out, bool maintenance, const std::string& why,
                         TimeNs now, std::vector<Event>& events);
    bool heldByScheduler(EntityId rack) const { return m_rack[rack].heldByScheduler; }
    LifecycleMachine& machine() { return m_machine; }
    // Non-const: refreshes the shared history copy when transitions happened.
    const LifecycleMachine& machine() const { return m_machine; }

    // What a rack's hardware is doing this tick, for the power/thermal/traffic models.
    struct Load {
        bool powered = true;
        bool production = true;
        float utilization = 0; // 0..1 (validation load when not in production)
        float nvlink = 0;      // fraction of peak NVLink per GPU
        float rail = 0;        // fraction of peak rail bandwidth per GPU
    };
    Load load(EntityId rack, TimeNs now) const;
    // Per-GPU hardware faults the validation is meant to catch.
    float gpuCoolingFactor(EntityId gpu) const { return m_gpuCooling[gpu]; }
    const float* gpuCoolingFactors() const { return m_gpuCooling.data(); } // by GPU
    float rackNvlinkFactor(EntityId rack) const {
        return m_rack[rack].fault == Fault::NvlinkLow ? 0.62f : 1.0f;
    }
    bool railFlapping(EntityId rack, TimeNs now) const;

    enum class Fault : std::uint8_t { None, HotTray, NvlinkLow, LinkFlap };

    // Keyframes (state_archive.h).
    template <class Archive> void persist(Archive& ar) {
        ar(m_rng, m_machine, m_rack, m_gpuCooling, m_pendingStart);
    }

private:
    struct RackRun {
        TimeNs stageStart = 0;
        double stageSeconds = 0; // planned duration of the current stage
        Fault fault = Fault::None;
        EntityId faultTray = 0;
        RackLifecycle failedAt = RackLifecycle::Production;
        double measured = 0; // gate measurement accumulated over the stage
        double measuredSeconds = 0;
        std::uint32_t flaps = 0;
        bool lastFlapping = false;
        bool heldByScheduler = false; // out of production because the scheduler says so
    };
    double stageDuration(RackLifecycle s);
    void enter(EntityId rack, RackLifecycle to, TimeNs now, const std::string& reason, bool failure,
               std::vector<Event>& events);
    void fail(EntityId rack, TimeNs now, const std::string& reason, std::vector<Event>& events);

    const Topology& m_topology;
    Rng m_rng;
    LifecycleMachine m_machine;
    std::vector<RackRun> m_rack;
    std::vector<float> m_gpuCooling;    // thermal resistance multiplier, 1 = healthy cold plate
    std::vector<TimeNs> m_pendingStart; // bring-up start per rack (staggered), 0 = none
};

} // namespace ft::model
