#pragma once
// Scenarios are data: a named list of timed fault injections (read from resources/scenarios by
// an importer). The sim core applies each event when simulated time reaches it, so a scenario
// replays identically for a given seed.
#include "entity_kind.h"
#include "timestamp.h"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ft::model {

enum class ScenarioAction : std::uint8_t {
    PumpFail,         // target pump stops
    PumpDegrade,      // target pump delivers value × its head
    PumpRestore,      // target pump back to health
    ManifoldBlockage, // target rack's manifold conductance drops by value (0..1)
    ClearBlockage,    // target rack
    SetpointDrift,    // target CDU's setpoint moves at value K/min until value2 °C
    Leak,             // target rack's leak detector trips
    LeakRepaired,     // target rack: leak fixed, valve reopened, rack powered back on
    PrimarySupply, // facility water to target CDU (or every CDU) ramps to value °C over value2 s
    RackPowerOn,   // an operator powers target rack (or every rack) back on
    BringUp,       // target racks (a rack, a row, all) arrive as delivered and start bring-up;
                   // value: seconds between racks, value2: fraction that hit a fault
    Drain,         // target production rack goes to maintenance (and re-validates after)
    RegionLink,    // the inter-region link runs at value (0..1) of its capacity
    CacheLoss,     // target rack's node caches fail (empty, bypassed)
    CacheRestore,  // target rack's caches come back, empty
    RailDown,      // every leaf of target rail fails: its NIC links go down
    RailRestore,   // target rail (or every rail) back up
    LeafDegrade,   // target leaf loses value (0..1) of its lanes and drops value2 of its packets
    LeafRestore,   // target leaf (or every leaf) healthy again
    LinkFlap,      // target fabric link goes down for value2 s every value s (carrier transitions)
    LinkStable,    // target fabric link (or every link) stops flapping
    NvlinkDisable, // target racks run with NVLink disabled: in-rack traffic crosses the rails
    NvlinkEnable,  // target racks (or all) back on NVLink
    NvlinkDegrade, // target NVLink link logs value CRC errors/s (replays follow, recoveries rare)
    NvlinkRestore, // target NVLink link (or every link) healthy again
    FeedTrip,      // target busway's breaker opens: its PSUs lose input
    FeedRestore,   // target busway (or every busway) closed again
    PsuFail,       // target PSU fails
    PsuRestore,    // target PSU (or every PSU) replaced
    PowerCap,      // site demand response: the floor may draw value MW (AC) for value2 s (0: until
                   // lifted)
    PowerCapLift,  // the site cap ends
    FeedLoad,      // value kW more on target busway (another load on the circuit) for value2 s
};

inline constexpr std::array<std::string_view, 32> kScenarioActionNames{
    "pump_fail",      "pump_degrade",   "pump_restore",  "manifold_blockage", "clear_blockage",
    "setpoint_drift", "leak",           "leak_repaired", "primary_supply",    "rack_power_on",
    "bring_up",       "drain",          "region_link",   "cache_loss",        "cache_restore",
    "rail_down",      "rail_restore",   "leaf_degrade",  "leaf_restore",      "link_flap",
    "link_stable",    "nvlink_disable", "nvlink_enable", "nvlink_degrade",    "nvlink_restore",
    "feed_trip",      "feed_restore",   "psu_fail",      "psu_restore",       "power_cap",
    "power_cap_lift", "feed_load"};

constexpr std::optional<ScenarioAction> scenarioActionFromName(std::string_view name) {
    for (std::size_t i = 0; i < kScenarioActionNames.size(); ++i)
        if (kScenarioActionNames[i] == name) return static_cast<ScenarioAction>(i);
    return std::nullopt;
}
constexpr std::string_view scenarioActionName(ScenarioAction a) {
    return kScenarioActionNames[static_cast<std::size_t>(a)];
}
// The entity kind an action targets.
constexpr EntityKind scenarioActionTarget(ScenarioAction a) {
    switch (a) {
    case ScenarioAction::PumpFail:
    case ScenarioAction::PumpDegrade:
    case ScenarioAction::PumpRestore:
        return EntityKind::Pump;
    case ScenarioAction::ManifoldBlockage:
    case ScenarioAction::ClearBlockage:
    case ScenarioAction::Leak:
    case ScenarioAction::LeakRepaired:
    case ScenarioAction::RackPowerOn:
    case ScenarioAction::BringUp:
    case ScenarioAction::Drain:
    case ScenarioAction::CacheLoss:
    case ScenarioAction::CacheRestore:
    case ScenarioAction::NvlinkDisable:
    case ScenarioAction::NvlinkEnable:
        return EntityKind::Rack;
    case ScenarioAction::RailDown:
    case ScenarioAction::RailRestore:
        return EntityKind::Rail;
    case ScenarioAction::LeafDegrade:
    case ScenarioAction::LeafRestore:
        return EntityKind::Leaf;
    case ScenarioAction::LinkFlap:
    case ScenarioAction::LinkStable:
        return EntityKind::FabricLink;
    case ScenarioAction::NvlinkDegrade:
    case ScenarioAction::NvlinkRestore:
        return EntityKind::NvlinkLink;
    case ScenarioAction::RegionLink:
        return EntityKind::Region;
    case ScenarioAction::SetpointDrift:
    case ScenarioAction::PrimarySupply:
        return EntityKind::Cdu;
    case ScenarioAction::FeedTrip:
    case ScenarioAction::FeedRestore:
    case ScenarioAction::FeedLoad:
        return EntityKind::PowerFeed;
    case ScenarioAction::PsuFail:
    case ScenarioAction::PsuRestore:
        return EntityKind::Psu;
    case ScenarioAction::PowerCap:
    case ScenarioAction::PowerCapLift:
        return EntityKind::Row; // the whole floor: no target
    }
    return EntityKind::Rack;
}

// Whether an action repairs, restores or is planned work rather than a fault (`value`: a
// region link's new capacity, 1 = repaired).
constexpr bool scenarioActionRecovers(ScenarioAction a, double value = 0) {
    switch (a) {
    case ScenarioAction::PumpRestore:
    case ScenarioAction::ClearBlockage:
    case ScenarioAction::LeakRepaired:
    case ScenarioAction::RackPowerOn:
    case ScenarioAction::BringUp:
    case ScenarioAction::Drain:
    case ScenarioAction::CacheRestore:
    case ScenarioAction::RailRestore:
    case ScenarioAction::LeafRestore:
    case ScenarioAction::LinkStable:
    case ScenarioAction::NvlinkEnable:
    case ScenarioAction::NvlinkRestore:
    case ScenarioAction::FeedRestore:
    case ScenarioAction::PsuRestore:
    case ScenarioAction::PowerCapLift:
        return true;
    case ScenarioAction::RegionLink:
        return value >= 1.0;
    default:
        return false;
    }
}

struct ScenarioEvent {
    TimeNs at = 0; // offset from the start of the run
    ScenarioAction action = ScenarioAction::PumpFail;
    std::optional<EntityRef> target; // nothing: every entity of the action's kind
    std::vector<EntityId> targets;   // several entities (a row's racks); used when non-empty
    double value = 0;
    double value2 = 0;
    std::string note; // what an operator would read in the event list
};

struct Scenario {
    std::string name;
    std::string description;
    std::vector<ScenarioEvent> events; // sorted by `at`
};

} // namespace ft::model
