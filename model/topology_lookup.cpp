// Topology's lookups: counts per kind, the rack of an entity, host names, names and ids both
// ways, positions on the floor.
#include "lifecycle.h"
#include "topology.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>

namespace ft::model {
namespace {

std::string padded(std::uint64_t value, int width) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%0*llu", width, static_cast<unsigned long long>(value));
    return buf;
}

} // namespace

std::size_t Topology::count(EntityKind kind) const {
    switch (kind) {
    case EntityKind::Row:
        return rows.name.size();
    case EntityKind::Rack:
        return racks.name.size();
    case EntityKind::ComputeTray:
        return computeTrays.rack.size();
    case EntityKind::Gpu:
        return gpus.tray.size();
    case EntityKind::Cpu:
        return cpus.tray.size();
    case EntityKind::Dpu:
        return dpus.tray.size();
    case EntityKind::Nic:
        return nics.gpu.size();
    case EntityKind::SwitchTray:
        return switchTrays.rack.size();
    case EntityKind::NvlinkLink:
        return nvlinkLinks.gpu.size();
    case EntityKind::Plane:
        return static_cast<std::size_t>(m_spec.fabric.planes);
    case EntityKind::Rail:
        return rails.plane.size();
    case EntityKind::Leaf:
        return leaves.plane.size();
    case EntityKind::Spine:
        return spines.plane.size();
    case EntityKind::FabricLink:
        return fabricLinks.kind.size();
    case EntityKind::Cdu:
        return cdus.row.size();
    case EntityKind::Pump:
        return pumps.cdu.size();
    case EntityKind::CoolingLoop:
        return coolingLoops.cdu.size();
    case EntityKind::Region:
        return m_spec.storage.regions.size();
    case EntityKind::StorageTier:
        return storageTiers.region.size();
    case EntityKind::PowerShelf:
        return powerShelves.rack.size();
    case EntityKind::Psu:
        return psus.shelf.size();
    case EntityKind::PowerFeed:
        return powerFeeds.row.size();
    }
    return 0;
}

std::optional<EntityId> Topology::rackOf(EntityKind kind, EntityId e) const {
    if (e >= count(kind)) return std::nullopt;
    switch (kind) {
    case EntityKind::Rack:
        return e;
    case EntityKind::ComputeTray:
        return computeTrays.rack[e];
    case EntityKind::Gpu:
        return gpus.rack[e];
    case EntityKind::Cpu:
        return computeTrays.rack[cpus.tray[e]];
    case EntityKind::Dpu:
        return computeTrays.rack[dpus.tray[e]];
    case EntityKind::Nic:
        return gpus.rack[nics.gpu[e]];
    case EntityKind::SwitchTray:
        return switchTrays.rack[e];
    case EntityKind::NvlinkLink:
        return gpus.rack[nvlinkLinks.gpu[e]];
    case EntityKind::FabricLink:
        if (fabricLinks.kind[e] == FabricLinkKind::NicToLeaf) return gpus.rack[nics.gpu[e]];
        return std::nullopt;
    case EntityKind::PowerShelf:
        return powerShelves.rack[e];
    case EntityKind::Psu:
        return psus.rack[e];
    default:
        return std::nullopt;
    }
}

std::string Topology::hostName(EntityId tray) const {
    if (!computeTrays.host.empty()) return computeTrays.host[tray];
    const EntityId rack = computeTrays.rack[tray];
    const EntityId row = racks.row[rack];
    std::string out;
    const std::string& p = m_spec.hostPattern;
    for (std::size_t i = 0; i < p.size(); ++i) {
        if (p[i] != '{') {
            out += p[i];
            continue;
        }
        const std::size_t close = p.find('}', i);
        if (close == std::string::npos) {
            out += p.substr(i);
            break;
        }
        std::string token = p.substr(i + 1, close - i - 1);
        int width = 0;
        if (auto colon = token.find(':'); colon != std::string::npos) {
            width = std::atoi(token.c_str() + colon + 1);
            token.resize(colon);
        }
        if (token == "row")
            out += rows.name[row];
        else if (token == "row_lc") {
            for (char c : rows.name[row])
                out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        } else if (token == "rack")
            out += padded(racks.indexInRow[rack] + 1ULL, width);
        else if (token == "rack_global")
            out += padded(rack + 1ULL, width);
        else if (token == "tray")
            out += padded(computeTrays.indexInRack[tray] + 1ULL, width);
        else
            out += "{" + token + "}";
        i = close;
    }
    return out;
}

std::optional<EntityId> Topology::find(EntityKind kind, const std::string& nameOrId) const {
    const std::size_t n = count(kind);
    // A NIC's uplink is also named by the NIC alone ("A03 tray 02 NIC 3").
    if (kind == EntityKind::FabricLink)
        if (const auto arrow = nameOrId.find(" -> "); arrow == std::string::npos)
            if (auto nic = find(EntityKind::Nic, nameOrId)) return *nic;
    // Per-GPU kinds are too many to scan by name on a big floor: parse "<tray> GPU i",
    // "<tray> NIC i", "<gpu> <-> NVSwitch k".
    auto suffixIndex = [&](const std::string& sep, EntityKind parent,
                           std::size_t per) -> std::optional<EntityId> {
        const auto at = nameOrId.rfind(sep);
        if (at == std::string::npos) return std::nullopt;
        const std::string tail = nameOrId.substr(at + sep.size());
        if (tail.empty() || tail.size() > 4 ||
            tail.find_first_not_of("0123456789") != std::string::npos)
            return std::nullopt;
        const auto owner = find(parent, nameOrId.substr(0, at));
        const auto index = std::stoul(tail); // at most 4 digits
        if (!owner || index >= per) return std::nullopt;
        return static_cast<EntityId>(*owner * per + index);
    };
    const auto& rk = m_spec.rack;
    if (kind == EntityKind::Gpu) {
        if (const auto id = suffixIndex(" GPU ", EntityKind::ComputeTray,
                                        static_cast<std::size_t>(rk.gpusPerTray));
            id && *id < n && *id % rk.gpusPerTray == gpus.indexInTray[*id])
            return id;
    } else if (kind == EntityKind::Nic) {
        const auto per = static_cast<std::size_t>(rk.gpusPerTray * rk.nicsPerGpu);
        if (const auto id = suffixIndex(" NIC ", EntityKind::ComputeTray, per);
            id && *id < n && nics.rail[*id] == *id % per)
            return id;
    } else if (kind == EntityKind::NvlinkLink) {
        // The switch number is 1-based in the name.
        const auto at = nameOrId.rfind(" <-> NVSwitch ");
        if (at != std::string::npos) {
            const std::string tail = nameOrId.substr(at + 14);
            if (!tail.empty() && tail.size() <= 3 &&
                tail.find_first_not_of("0123456789") == std::string::npos) {
                const auto gpu = find(EntityKind::Gpu, nameOrId.substr(0, at));
                const auto k = std::stoul(tail);
                if (gpu && k >= 1 && k <= static_cast<unsigned long>(rk.switchTrays))
                    return static_cast<EntityId>(static_cast<unsigned long>(*gpu) * rk.switchTrays +
                                                 k - 1);
            }
        }
    }
    if (kind == EntityKind::Rack) {
        for (EntityId r = 0; r < n; ++r)
            if (racks.name[r] == nameOrId) return r;
    } else if (n <= 100000) {
        for (EntityId e = 0; e < n; ++e) {
            const std::string full = name(kind, e);
            if (full == nameOrId) return e;
            // "CDU A1" is also "A1".
            if (const auto space = full.find(' '); space != std::string::npos &&
                                                   full.substr(space + 1) == nameOrId &&
                                                   full.find(' ', space + 1) == std::string::npos)
                return e;
        }
    }
    if (!nameOrId.empty() && nameOrId.find_first_not_of("0123456789") == std::string::npos) {
        // Digits only, but perhaps more than fit: then no entity has that id.
        unsigned long long id = 0;
        const auto [p, ec] =
            std::from_chars(nameOrId.data(), nameOrId.data() + nameOrId.size(), id);
        if (ec == std::errc() && p == nameOrId.data() + nameOrId.size() && id < n)
            return static_cast<EntityId>(id);
    }
    return std::nullopt;
}

std::string Topology::name(EntityKind kind, EntityId id) const {
    const auto& rk = m_spec.rack;
    auto rackName = [&](EntityId rack) { return racks.name[rack]; };
    switch (kind) {
    case EntityKind::Row:
        return "Row " + rows.name[id];
    case EntityKind::Rack:
        return rackName(id);
    case EntityKind::ComputeTray:
        return rackName(computeTrays.rack[id]) + " tray " +
               padded(computeTrays.indexInRack[id] + 1ULL, 2);
    case EntityKind::Gpu:
        return name(EntityKind::ComputeTray, gpus.tray[id]) + " GPU " +
               std::to_string(gpus.indexInTray[id]);
    case EntityKind::Cpu:
        return name(EntityKind::ComputeTray, cpus.tray[id]) + " CPU " +
               std::to_string(id % rk.cpusPerTray);
    case EntityKind::Dpu:
        return name(EntityKind::ComputeTray, dpus.tray[id]) + " DPU " +
               std::to_string(id % rk.dpusPerTray);
    case EntityKind::Nic:
        return name(EntityKind::ComputeTray,
                    static_cast<EntityId>(id / (rk.gpusPerTray * rk.nicsPerGpu))) +
               " NIC " + std::to_string(nics.rail[id]);
    case EntityKind::SwitchTray:
        return rackName(switchTrays.rack[id]) + " NVSwitch " +
               std::to_string(switchTrays.indexInRack[id] + 1);
    case EntityKind::NvlinkLink:
        return name(EntityKind::Gpu, nvlinkLinks.gpu[id]) + " <-> NVSwitch " +
               std::to_string(switchTrays.indexInRack[nvlinkLinks.switchTray[id]] + 1);
    case EntityKind::Plane:
        return "Plane " + std::to_string(id);
    case EntityKind::Rail:
        return "Rail " + std::to_string(id);
    case EntityKind::Leaf:
        return "Leaf P" + std::to_string(leaves.plane[id]) + "-R" +
               std::to_string(leaves.rail[id]) + "-" +
               std::to_string(id - rails.firstLeaf[leaves.rail[id]]);
    case EntityKind::Spine:
        return "Spine P" + std::to_string(spines.plane[id]) + "-" +
               std::to_string(id - spines.plane[id] * fabricSizing.spinesPerPlane);
    case EntityKind::FabricLink:
        return fabricLinks.kind[id] == FabricLinkKind::NicToLeaf
                   ? name(EntityKind::Nic, fabricLinks.from[id]) + " -> " +
                         name(EntityKind::Leaf, fabricLinks.to[id])
                   : name(EntityKind::Leaf, fabricLinks.from[id]) + " -> " +
                         name(EntityKind::Spine, fabricLinks.to[id]);
    case EntityKind::Cdu: {
        // "CDU A1": row, then the CDU's number within its row ("CDU R11-1" when the row's name
        // ends in a digit, so R1's eleventh and R11's first are not both "CDU R111").
        EntityId first = id;
        while (first > 0 && cdus.row[first - 1] == cdus.row[id])
            --first;
        const std::string& row = rows.name[cdus.row[id]];
        const bool digit = !row.empty() && std::isdigit(static_cast<unsigned char>(row.back()));
        return "CDU " + row + (digit ? "-" : "") + std::to_string(id - first + 1);
    }
    case EntityKind::Pump:
        return name(EntityKind::Cdu, pumps.cdu[id]) + " pump " +
               std::to_string(pumps.indexInCdu[id] + 1);
    case EntityKind::CoolingLoop:
        return name(EntityKind::Cdu, coolingLoops.cdu[id]) +
               (coolingLoops.kind[id] == LoopKind::Primary ? " primary loop" : " secondary loop");
    case EntityKind::Region:
        return m_spec.storage.regions[id];
    case EntityKind::StorageTier:
        return m_spec.storage.regions[storageTiers.region[id]] + "/" + storageTiers.name[id];
    case EntityKind::PowerShelf:
        return rackName(powerShelves.rack[id]) + " shelf " +
               std::to_string(powerShelves.indexInRack[id] + 1);
    case EntityKind::Psu:
        return name(EntityKind::PowerShelf, psus.shelf[id]) + " PSU " +
               std::to_string(psus.indexInShelf[id] + 1);
    case EntityKind::PowerFeed:
        // "A busway B": the row's side-B busway.
        return rows.name[powerFeeds.row[id]] + " busway " + (powerFeeds.side[id] == 0 ? "A" : "B");
    }
    return {};
}

Vec3 Topology::position(EntityKind kind, EntityId id) const {
    auto trayPos = [&](EntityId tray) {
        Vec3 p = racks.position[computeTrays.rack[tray]];
        p.z = (computeSlots[computeTrays.indexInRack[tray]].bottomU + 0.5f) * kRackUnitM;
        return p;
    };
    switch (kind) {
    case EntityKind::Row:
        return racks.position[rows.firstRack[id]];
    case EntityKind::Rack:
        return racks.position[id];
    case EntityKind::ComputeTray:
        return trayPos(id);
    case EntityKind::Gpu:
        return gpus.position[id];
    case EntityKind::Cpu:
        return trayPos(cpus.tray[id]);
    case EntityKind::Dpu:
        return trayPos(dpus.tray[id]);
    case EntityKind::Nic:
        return gpus.position[nics.gpu[id]];
    case EntityKind::SwitchTray: {
        Vec3 p = racks.position[switchTrays.rack[id]];
        p.z = (switchSlots[switchTrays.indexInRack[id]].bottomU + 0.5f) * kRackUnitM;
        return p;
    }
    case EntityKind::NvlinkLink:
        return gpus.position[nvlinkLinks.gpu[id]];
    case EntityKind::Leaf:
        return leaves.position[id];
    case EntityKind::Spine:
        return spines.position[id];
    case EntityKind::FabricLink:
        return fabricLinks.kind[id] == FabricLinkKind::NicToLeaf
                   ? leaves.position[fabricLinks.to[id]]
                   : spines.position[fabricLinks.to[id]];
    case EntityKind::Cdu:
        return cdus.position[id];
    case EntityKind::Pump:
        return cdus.position[pumps.cdu[id]];
    case EntityKind::CoolingLoop:
        return cdus.position[coolingLoops.cdu[id]];
    case EntityKind::PowerShelf:
    case EntityKind::Psu: {
        const EntityId shelf = kind == EntityKind::Psu ? psus.shelf[id] : id;
        Vec3 p = racks.position[powerShelves.rack[shelf]];
        const auto index = powerShelves.indexInRack[shelf];
        if (index < powerShelfSlots.size())
            p.z = (powerShelfSlots[index].bottomU + 0.5f) * kRackUnitM;
        return p;
    }
    case EntityKind::PowerFeed: {
        // Overhead, above the row's middle, A towards the front and B towards the back.
        const EntityId row = powerFeeds.row[id];
        const Vec3 a = racks.position[rows.firstRack[row]];
        const Vec3 b = racks.position[rows.firstRack[row] + rows.rackCount[row] - 1];
        const float dy =
            static_cast<float>(m_spec.rack.depthM) * (powerFeeds.side[id] == 0 ? -0.3f : 0.3f);
        return {(a.x + b.x) / 2, a.y + dy, static_cast<float>(m_spec.rack.heightM) + 0.35f};
    }
    case EntityKind::Plane:
    case EntityKind::Rail:
    case EntityKind::Region:
    case EntityKind::StorageTier:
        return {};
    }
    return {};
}

} // namespace ft::model
