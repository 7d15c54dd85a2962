#pragma once
// Topology: the whole floor as dense struct-of-arrays, built once from a FloorSpec and then
// immutable (shared read-only by the sim thread and the UI thread). Positions are in metres:
// x along the rows, y across them, z up; a rack's position is the centre of its footprint.
#include "entity_kind.h"
#include "floor_spec.h"

#include <expected>
#include <optional>
#include <string>
#include <vector>

namespace ft::model {

struct Vec3 {
    float x = 0, y = 0, z = 0;
};

// Where a unit sits inside the rack, counted in rack units (U) from the floor.
struct RackSlot {
    float bottomU = 0;
    float heightU = 1;
};

class Topology {
public:
    static std::expected<Topology, std::string> build(const FloorSpec& spec);

    const FloorSpec& spec() const { return m_spec; }
    std::size_t count(EntityKind kind) const;
    std::string name(EntityKind kind, EntityId id) const;
    Vec3 position(EntityKind kind, EntityId id) const;
    // The tray's host: the host table's name on floors that have one (empty when the table
    // names no host for the tray), else the floor's host pattern.
    std::string hostName(EntityId computeTray) const;
    // Hosts the floor names: the host table's size, or every compute tray by the pattern.
    std::size_t hostCount() const;
    // The rack an entity is part of (a tray, a GPU, a link from a NIC, a shelf or PSU);
    // nullopt for what stands outside racks (leaves, CDUs, busways) or an id past the end.
    std::optional<EntityId> rackOf(EntityKind kind, EntityId id) const;
    // An entity by its display name or its numeric id ("A03", "CDU A1", "A1", "17").
    std::optional<EntityId> find(EntityKind kind, const std::string& nameOrId) const;
    static constexpr float kRackUnitM = 0.04445f;

    struct Rows {
        std::vector<std::string> name;
        std::vector<EntityId> firstRack;
        std::vector<std::uint32_t> rackCount;
    } rows;

    struct Racks {
        std::vector<std::string> name;
        std::vector<EntityId> row;
        std::vector<std::uint32_t> indexInRow;
        std::vector<EntityId> cdu;
        std::vector<Vec3> position;
        // From the floor file (defaults for generated floors): compute trays installed, rated
        // power and the lifecycle state the rack starts in (a RackLifecycle value).
        std::vector<std::uint8_t> traysInstalled;
        std::vector<float> ratedPowerKw;
        std::vector<std::uint8_t> initialLifecycle;
    } racks;
    // Whether a compute tray's slot holds a tray (a rack still being filled has fewer).
    bool trayInstalled(EntityId tray) const {
        const auto perRack = static_cast<EntityId>(m_spec.rack.computeTrays);
        const EntityId rack = tray / perRack;
        return rack < racks.traysInstalled.size() && tray % perRack < racks.traysInstalled[rack];
    }

    // Per-rack layout, shared by every rack (one rack model per floor).
    std::vector<RackSlot> computeSlots; // index = tray index within the rack, top first
    std::vector<RackSlot> switchSlots;
    std::vector<RackSlot> powerShelfSlots;

    struct ComputeTrays {
        std::vector<EntityId> rack;
        std::vector<std::uint8_t> indexInRack;
        // The host table's entry for the tray (empty on generated floors: see hostName).
        std::vector<std::string> host;
        std::vector<std::string> bmc;
    } computeTrays;

    struct Gpus {
        std::vector<EntityId> tray;
        std::vector<EntityId> rack;
        std::vector<std::uint8_t> indexInTray;
        std::vector<Vec3> position;
        std::vector<std::string> uuid; // from the host table; empty when not known
    } gpus;

    struct Cpus {
        std::vector<EntityId> tray;
    } cpus;

    struct Dpus {
        std::vector<EntityId> tray;
    } dpus;

    struct Nics {
        std::vector<EntityId> gpu;
        std::vector<std::uint16_t> rail;
        std::vector<EntityId> leaf;
    } nics;

    struct SwitchTrays {
        std::vector<EntityId> rack;
        std::vector<std::uint8_t> indexInRack;
    } switchTrays;

    // One NVLink link per GPU <-> switch tray pair (every GPU reaches every switch tray).
    struct NvlinkLinks {
        std::vector<EntityId> gpu;
        std::vector<EntityId> switchTray;
    } nvlinkLinks;

    struct Rails {
        std::vector<std::uint16_t> plane;
        std::vector<EntityId> firstLeaf;
        std::vector<std::uint32_t> leafCount;
    } rails;

    struct Leaves {
        std::vector<std::uint16_t> plane;
        std::vector<std::uint16_t> rail;
        std::vector<std::uint32_t> downlinks; // NIC ports attached
        std::vector<Vec3> position;
    } leaves;

    struct Spines {
        std::vector<std::uint16_t> plane;
        std::vector<Vec3> position;
    } spines;

    // Fabric links: first every NIC -> leaf link (link id == NIC id), then leaf -> spine bundles.
    enum class FabricLinkKind : std::uint8_t { NicToLeaf, LeafToSpine };
    struct FabricLinks {
        std::vector<FabricLinkKind> kind;
        std::vector<EntityId> from; // NIC or leaf id
        std::vector<EntityId> to;   // leaf or spine id
        std::vector<std::uint16_t> lanes;
    } fabricLinks;

    struct Cdus {
        std::vector<EntityId> row;
        std::vector<EntityId> firstRack;
        std::vector<std::uint32_t> rackCount;
        std::vector<Vec3> position;
    } cdus;

    struct Pumps {
        std::vector<EntityId> cdu;
        std::vector<std::uint8_t> indexInCdu;
    } pumps;

    enum class LoopKind : std::uint8_t { Primary, Secondary };
    struct CoolingLoops {
        std::vector<EntityId> cdu;
        std::vector<LoopKind> kind;
    } coolingLoops;

    struct StorageTiers {
        std::vector<EntityId> region;
        std::vector<std::string> name;
    } storageTiers;

    // Rack power: shelves rack by rack (rack.power_shelves each), PSUs shelf by shelf
    // (power.psus_per_shelf each, alternately on side A and B), and per row a feed per side.
    struct PowerShelves {
        std::vector<EntityId> rack;
        std::vector<std::uint8_t> indexInRack;
    } powerShelves;
    struct Psus {
        std::vector<EntityId> shelf;
        std::vector<EntityId> rack;
        std::vector<EntityId> feed;
        std::vector<std::uint8_t> side; // 0: A, 1: B
        std::vector<std::uint8_t> indexInShelf;
    } psus;
    struct PowerFeeds {
        std::vector<EntityId> row;
        std::vector<std::uint8_t> side; // 0: A, 1: B
        std::vector<float> ratedKw;
    } powerFeeds;
    // The feed of `row`'s side (0: A, 1: B).
    EntityId feedOf(EntityId row, int side) const { return row * 2 + static_cast<EntityId>(side); }

    // Bounding box of all racks on the floor (metres).
    Vec3 boundsMin, boundsMax;

    // Non-blocking two-tier sizing per plane (kept for --describe and tests).
    struct FabricSizing {
        std::uint32_t endpointsPerPlane = 0;
        std::uint32_t maxEndpointsPerPlane = 0; // k^2 / 2
        std::uint32_t leavesPerPlane = 0;
        std::uint32_t spinesPerPlane = 0;
    } fabricSizing;

private:
    static std::string placeHosts(const FloorSpec& spec, Topology& t);

    FloorSpec m_spec;
};

} // namespace ft::model
