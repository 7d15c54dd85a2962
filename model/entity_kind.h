#pragma once
// Every kind of entity the twin knows. Entities of a kind are addressed by dense ids 0..count-1.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ft::model {

enum class EntityKind : std::uint8_t {
    Row,
    Rack,
    ComputeTray,
    Gpu,
    Cpu,
    Dpu,
    Nic,
    SwitchTray,
    NvlinkLink,
    Plane,
    Rail,
    Leaf,
    Spine,
    FabricLink,
    Cdu,
    Pump,
    CoolingLoop,
    Region,
    StorageTier,
    PowerShelf, // a rack's power shelf: PSUs onto the rack's DC bus bar
    Psu,        // one power supply of a shelf, on feed A or B
    PowerFeed,  // a busway (or PDU circuit) feeding one side, A or B, of a row's racks
};

constexpr std::size_t kEntityKindCount = 22;
using EntityId = std::uint32_t;

constexpr std::array<std::string_view, kEntityKindCount> kEntityKindNames{
    "row",          "rack",        "compute_tray", "gpu",       "cpu",          "dpu",
    "nic",          "switch_tray", "nvlink_link",  "plane",     "rail",         "leaf",
    "spine",        "fabric_link", "cdu",          "pump",      "cooling_loop", "region",
    "storage_tier", "power_shelf", "psu",          "power_feed"};

constexpr std::string_view entityKindName(EntityKind k) {
    return kEntityKindNames[static_cast<std::size_t>(k)];
}

constexpr std::optional<EntityKind> entityKindFromName(std::string_view name) {
    for (std::size_t i = 0; i < kEntityKindCount; ++i)
        if (kEntityKindNames[i] == name) return static_cast<EntityKind>(i);
    return std::nullopt;
}

struct EntityRef {
    EntityKind kind = EntityKind::Rack;
    EntityId id = 0;
    bool operator==(const EntityRef&) const = default;
};

} // namespace ft::model
