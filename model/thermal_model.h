#pragma once
// ThermalModel: the liquid-cooling plant, as physics rather than curves. Per CDU: pumps in
// parallel (pump curves solved against the racks' manifold conductances), a heat exchanger to
// facility water that holds the secondary supply setpoint within its capacity, and a speed
// controller holding differential pressure. Per rack: a Valvey-like PI valve holding ΔT, a
// lumped coolant volume (C dT/dt = P - m_dot c_p ΔT), leak detection with isolation, and the
// Racky protections that power a rack off. Faults arrive as scenario events.
// Owned by SimModel; sim thread only.
#include "holds.h"
#include "scenario.h"
#include "snapshot.h"
#include "topology.h"

#include <vector>

namespace ft::model {

class ThermalModel {
public:
    explicit ThermalModel(const Topology& topology);

    // Fills the cooling channels with a settled design point.
    void initialize(Snapshot& state) const;
    // Advances coolant, controllers and protections by dt seconds. Rack power must be current.
    void step(Snapshot& state, const Holds& held, float dt, std::vector<Event>& events);
    void apply(const ScenarioEvent& event, Snapshot& state, std::vector<Event>& events);

    bool rackPowered(EntityId rack) const { return m_rack[rack].powered; }
    // A thermal trip: Racky powers a rack off after its hottest GPU stays this far over the limit.
    static constexpr float kTripMarginK = 7.0f;
    static constexpr float kTripAfterS = 10.0f;
    static constexpr float kLeakReactionS = 15.0f; // as Redfish LeakDetector ReactionDelaySeconds

    // Keyframes (state_archive.h).
    template <class Archive> void persist(Archive& ar) {
        ar(m_rack, m_pump, m_cdu, m_designRackFlow, m_rackConductance, m_ua);
    }

private:
    struct RackState {
        float valve = 0.7f;  // 0..1
        float lastError = 0; // for the velocity-form PI
        float blockage = 0;  // 0..1 of conductance lost
        bool leak = false;
        float leakAge = 0; // s since the detector tripped
        bool isolated = false;
        bool powered = true;
        float overTemp = 0; // s with the hottest GPU over the trip threshold
    };
    struct PumpState {
        float speed = 0.75f;
        float head = 1.0f; // 1 healthy, <1 degraded, 0 failed
        bool failed = false;
    };
    struct CduState {
        float speedCommand = 0.75f;
        float lastError = 0;
        float setpoint = 45;
        float driftRate = 0; // K/s
        float driftTarget = 45;
        float primarySupply = 32;
        float primaryTarget = 32;
        float primaryRate = 0; // K/s
        float level = 92;
    };

    void stepCdu(EntityId cdu, Snapshot& state, const Holds& held, float dt,
                 std::vector<Event>& events);
    void event(std::vector<Event>& events, TimeNs t, EventKind kind, EntityRef e, Severity s,
               std::string text) const;

    const Topology& m_topology;
    std::vector<RackState> m_rack;
    std::vector<PumpState> m_pump;
    std::vector<CduState> m_cdu;
    float m_designRackFlow = 0;  // L/min
    float m_rackConductance = 0; // L/min per sqrt(kPa) with the valve fully open
    float m_ua = 0;              // heat exchanger, kW/K
};

} // namespace ft::model
