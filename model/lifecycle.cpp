#include "lifecycle.h"

namespace ft::model {

using S = RackLifecycle;

std::optional<RackLifecycle> lifecycleFromName(std::string_view name) {
    for (std::size_t i = 0; i < kLifecycleNames.size(); ++i)
        if (kLifecycleNames[i] == name) return static_cast<RackLifecycle>(i);
    return std::nullopt;
}

bool lifecycleTransitionAllowed(RackLifecycle from, RackLifecycle to) {
    switch (from) {
    case S::Delivered:
        return to == S::HardwareDetection;
    case S::HardwareDetection:
        return to == S::FirmwareUpdate || to == S::Troubleshooting;
    case S::FirmwareUpdate:
        return to == S::PowerCoolingBringUp || to == S::Troubleshooting;
    case S::PowerCoolingBringUp:
        return to == S::NodeValidation || to == S::Troubleshooting;
    case S::NodeValidation:
        return to == S::RackValidation || to == S::Troubleshooting;
    case S::RackValidation:
        return to == S::MultiRackValidation || to == S::Troubleshooting;
    case S::MultiRackValidation:
        return to == S::Production || to == S::Troubleshooting;
    case S::Production:
        return to == S::Maintenance || to == S::Troubleshooting;
    // A fixed rack never goes straight back: it re-validates first, or leaves the floor.
    case S::Troubleshooting:
        return to == S::Revalidation || to == S::Decommissioned;
    // Re-validation re-runs the gates from the node level up (the node checks are its first
    // part), so its exit is the rack-level gate, or back to troubleshooting.
    case S::Revalidation:
        return to == S::RackValidation || to == S::Troubleshooting;
    case S::Maintenance:
        return to == S::Revalidation || to == S::Decommissioned;
    case S::Decommissioned:
        return false;
    }
    return false;
}

std::optional<RackLifecycle> nextGate(RackLifecycle s) {
    switch (s) {
    case S::Delivered:
        return S::HardwareDetection;
    case S::HardwareDetection:
        return S::FirmwareUpdate;
    case S::FirmwareUpdate:
        return S::PowerCoolingBringUp;
    case S::PowerCoolingBringUp:
        return S::NodeValidation;
    case S::NodeValidation:
        return S::RackValidation;
    case S::RackValidation:
        return S::MultiRackValidation;
    case S::MultiRackValidation:
        return S::Production;
    case S::Revalidation:
        return S::RackValidation;
    default:
        return std::nullopt;
    }
}

LifecycleMachine::LifecycleMachine(std::size_t racks, RackLifecycle initial)
    : m_state(racks, initial), m_entered(racks, 0) {}

void LifecycleMachine::reset(EntityId rack, RackLifecycle state, TimeNs time) {
    m_state[rack] = state;
    m_entered[rack] = time;
}

std::expected<void, std::string> LifecycleMachine::request(EntityId rack, RackLifecycle to,
                                                           TimeNs time, std::string reason,
                                                           bool failure) {
    if (rack >= m_state.size()) {
        ++m_rejected;
        return std::unexpected("no rack " + std::to_string(rack));
    }
    const RackLifecycle from = m_state[rack];
    if (!lifecycleTransitionAllowed(from, to)) {
        ++m_rejected;
        return std::unexpected("illegal transition " + std::string(lifecycleName(from)) + " -> " +
                               std::string(lifecycleName(to)));
    }
    m_state[rack] = to;
    m_entered[rack] = time;
    m_log.append({time, rack, from, to, failure, std::move(reason)});
    return {};
}

} // namespace ft::model
