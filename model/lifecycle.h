#pragma once
// The rack lifecycle: states, the legal transitions between them, and the staged validation
// gates a rack passes to reach production. LifecycleMachine holds every rack's state and the
// history of transitions with their reasons; illegal requests are refused with a reason and
// change nothing. Sim thread only (snapshots carry copies).
#include "entity_kind.h"
#include "snapshot.h"
#include "timestamp.h"

#include <array>
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ft::model {

inline constexpr std::array<std::string_view, 12> kLifecycleNames{
    "delivered",       "hardware_detection", "firmware_update",       "power_cooling_bring_up",
    "node_validation", "rack_validation",    "multi_rack_validation", "production",
    "troubleshooting", "revalidation",       "maintenance",           "decommissioned"};
inline constexpr std::array<std::string_view, 12> kLifecycleTitles{
    "Delivered",       "Hardware detection", "Firmware update",       "Power & cooling bring-up",
    "Node validation", "Rack validation",    "Multi-rack validation", "Production",
    "Troubleshooting", "Re-validation",      "Maintenance / drain",   "Decommissioned"};

constexpr std::string_view lifecycleName(RackLifecycle s) {
    return kLifecycleNames[static_cast<std::size_t>(s)];
}
constexpr std::string_view lifecycleTitle(RackLifecycle s) {
    return kLifecycleTitles[static_cast<std::size_t>(s)];
}
std::optional<RackLifecycle> lifecycleFromName(std::string_view name);

// Is `from -> to` a legal transition?
bool lifecycleTransitionAllowed(RackLifecycle from, RackLifecycle to);
// The gate a rack must pass next from a validation state (nothing from production etc.).
std::optional<RackLifecycle> nextGate(RackLifecycle s);
// States in which the rack carries no customer work.
constexpr bool lifecycleInService(RackLifecycle s) {
    return s == RackLifecycle::Production;
}

// The checks of the node-level gate, run per compute tray.
enum class NodeCheck : std::uint8_t {
    GpuDiagnostics,
    CpuGpuTransfer,
    Interconnect,
    ThermalUnderLoad,
    TrainingRun
};
inline constexpr std::array<std::string_view, 5> kNodeCheckTitles{
    "repeated GPU diagnostics", "CPU-GPU transfer check", "interconnect check",
    "thermal check under load", "simulated training run"};

struct LifecycleTransition {
    TimeNs time = 0;
    EntityId rack = 0;
    RackLifecycle from = RackLifecycle::Delivered;
    RackLifecycle to = RackLifecycle::Delivered;
    bool failure = false; // a gate failed: the reason says which check and why
    std::string reason;

    template <class Archive> void persist(Archive& ar) {
        ar(time, rack, from, to, failure, reason);
    }
};

class LifecycleMachine {
public:
    explicit LifecycleMachine(std::size_t racks, RackLifecycle initial = RackLifecycle::Production);

    RackLifecycle state(EntityId rack) const { return m_state[rack]; }
    const std::vector<RackLifecycle>& states() const { return m_state; }
    TimeNs enteredAt(EntityId rack) const { return m_entered[rack]; }
    // Moves a rack, recording why; refuses illegal transitions (the state is untouched).
    std::expected<void, std::string> request(EntityId rack, RackLifecycle to, TimeNs time,
                                             std::string reason, bool failure = false);
    // Forces a state without history (a floor that starts mid-bring-up).
    void reset(EntityId rack, RackLifecycle state, TimeNs time);

    // Shared, immutable history for snapshots (a new view only after a transition).
    const std::shared_ptr<const SharedLog<LifecycleTransition>>& sharedHistory() {
        return m_log.shared();
    }
    const SharedLog<LifecycleTransition>& log() const { return m_log.log(); }
    std::uint64_t rejected() const { return m_rejected; }
    template <class Archive> void persist(Archive& ar) {
        ar(m_state, m_entered, m_log, m_rejected);
    }

private:
    std::vector<RackLifecycle> m_state;
    std::vector<TimeNs> m_entered;
    SharedLogWriter<LifecycleTransition> m_log;
    std::uint64_t m_rejected = 0;
};

} // namespace ft::model
