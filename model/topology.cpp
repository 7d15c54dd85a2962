#include "topology.h"

#include "lifecycle.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

namespace ft::model {
namespace {

std::string padded(std::uint64_t value, int width) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%0*llu", width, static_cast<unsigned long long>(value));
    return buf;
}

std::string validate(const FloorSpec& s) {
    if (s.rows.empty()) return "the floor has no rows";
    for (const auto& r : s.rows) {
        if (r.racks <= 0 && r.rackList.empty()) return "row '" + r.name + "' has no racks";
        for (const auto& rack : r.rackList) {
            if (rack.name.empty()) return "row '" + r.name + "' has a rack without a name";
            if (rack.computeTrays > s.rack.computeTrays)
                return "rack '" + rack.name + "' has " + std::to_string(rack.computeTrays) +
                       " compute trays; the rack model has " + std::to_string(s.rack.computeTrays);
            if (!rack.lifecycle.empty() && !lifecycleFromName(rack.lifecycle))
                return "rack '" + rack.name + "': unknown lifecycle state '" + rack.lifecycle + "'";
        }
    }
    const auto& k = s.rack;
    if (k.computeTrays <= 0 || k.computeTrays > 255) return "rack.compute_trays must be 1..255";
    if (k.computeTraysAboveSwitches < 0 || k.computeTraysAboveSwitches > k.computeTrays)
        return "rack.compute_trays_above_switches must be 0..compute_trays";
    if (k.switchTrays <= 0 || k.switchTrays > 255) return "rack.switch_trays must be 1..255";
    if (k.gpusPerTray <= 0 || k.gpusPerTray > 16) return "rack.gpus_per_tray must be 1..16";
    if (k.cpusPerTray < 0 || k.dpusPerTray < 0) return "rack CPU and DPU counts must be >= 0";
    if (k.nicsPerGpu <= 0 || k.nicsPerGpu > 8) return "rack.nics_per_gpu must be 1..8";
    if (k.widthM <= 0 || k.depthM <= 0 || k.heightM <= 0) return "rack dimensions must be > 0";
    const int nicsPerTray = k.gpusPerTray * k.nicsPerGpu;
    if (s.fabric.planes <= 0 || nicsPerTray % s.fabric.planes != 0)
        return "fabric.planes must divide the NICs per tray (" + std::to_string(nicsPerTray) + ")";
    if (s.fabric.switchRadix < 2 || s.fabric.switchRadix % 2 != 0)
        return "fabric.switch_radix must be an even number >= 2";
    if (s.cooling.racksPerCdu <= 0) return "cooling.racks_per_cdu must be > 0";
    if (s.cooling.pumpsPerCdu <= 0 || s.cooling.pumpsPerCdu > 8)
        return "cooling.pumps_per_cdu must be 1..8";
    if (s.storage.regions.empty() || s.storage.tiers.size() != 4)
        return "storage needs at least one region and exactly four tiers (hot, warm, cold, archive "
               "by age)";
    if (!(0 < s.storage.warmAfterDays && s.storage.warmAfterDays < s.storage.coldAfterDays &&
          s.storage.coldAfterDays < s.storage.archiveAfterDays &&
          s.storage.archiveAfterDays <= 3650))
        return "storage tier ages must satisfy 0 < warm_after_days < cold_after_days < "
               "archive_after_days <= 3650";
    return {};
}

std::string lower(std::string s) {
    for (auto& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

} // namespace

// The host table onto the trays: each host names its rack and tray slot; no two hosts share a
// name (as DNS would have it, ignoring case), a tray, or a GPU UUID.
std::string Topology::placeHosts(const FloorSpec& spec, Topology& t) {
    if (spec.hosts.empty()) return {};
    const auto& rk = spec.rack;
    const std::size_t nTrays = t.computeTrays.rack.size();
    t.computeTrays.host.assign(nTrays, {});
    t.computeTrays.bmc.assign(nTrays, {});
    t.gpus.uuid.assign(t.gpus.tray.size(), {});
    std::unordered_map<std::string, EntityId> rackByName;
    for (EntityId r = 0; r < t.racks.name.size(); ++r)
        rackByName.emplace(t.racks.name[r], r);
    std::unordered_map<std::string, std::string> hostNames, uuids;
    for (const auto& h : spec.hosts) {
        if (h.name.empty()) return "a host without a name (rack '" + h.rack + "')";
        if (auto [it, fresh] = hostNames.emplace(lower(h.name), h.name); !fresh)
            return "host '" + h.name + "' is listed twice";
        const auto rack = rackByName.find(h.rack);
        if (rack == rackByName.end())
            return "host '" + h.name + "': no rack '" + h.rack + "' on this floor";
        if (h.tray < 1 || h.tray > rk.computeTrays)
            return "host '" + h.name + "': tray " + std::to_string(h.tray) + " is outside rack '" +
                   h.rack + "' (compute trays 1.." + std::to_string(rk.computeTrays) + ")";
        const std::size_t tray =
            static_cast<std::size_t>(rack->second) * rk.computeTrays + (h.tray - 1);
        if (!t.computeTrays.host[tray].empty())
            return "hosts '" + t.computeTrays.host[tray] + "' and '" + h.name +
                   "' both sit in rack '" + h.rack + "' tray " + std::to_string(h.tray);
        t.computeTrays.host[tray] = h.name;
        t.computeTrays.bmc[tray] = h.bmc;
        if (h.gpuUuids.size() > static_cast<std::size_t>(rk.gpusPerTray))
            return "host '" + h.name + "' lists " + std::to_string(h.gpuUuids.size()) +
                   " GPU UUIDs; a tray has " + std::to_string(rk.gpusPerTray) + " GPUs";
        for (std::size_t g = 0; g < h.gpuUuids.size(); ++g) {
            if (h.gpuUuids[g].empty()) continue;
            if (auto [it, fresh] = uuids.emplace(lower(h.gpuUuids[g]), h.name); !fresh)
                return "GPU UUID '" + h.gpuUuids[g] + "' is listed for hosts '" + it->second +
                       "' and '" + h.name + "'";
            t.gpus.uuid[tray * rk.gpusPerTray + g] = h.gpuUuids[g];
        }
    }
    return {};
}

std::size_t Topology::hostCount() const {
    return m_spec.hosts.empty() ? computeTrays.rack.size() : m_spec.hosts.size();
}

std::expected<Topology, std::string> Topology::build(const FloorSpec& spec) {
    if (auto err = validate(spec); !err.empty()) return std::unexpected(err);

    Topology t;
    t.m_spec = spec;
    const auto& rk = spec.rack;
    const int nicsPerTray = rk.gpusPerTray * rk.nicsPerGpu;

    // Rack layout, top to bottom: power shelves, compute trays, switch trays, compute trays,
    // power shelves; centred in a 48U rack.
    {
        const int topShelves = rk.powerShelves / 2;
        const int bottomShelves = rk.powerShelves - topShelves;
        const int units = rk.powerShelves + rk.computeTrays + rk.switchTrays;
        float u = static_cast<float>((std::max(units, 48) + units + 1) / 2); // top of the stack
        auto take = [&](std::vector<RackSlot>& into, int n) {
            for (int i = 0; i < n; ++i) {
                u -= 1.0f;
                into.push_back({u, 1.0f});
            }
        };
        take(t.powerShelfSlots, topShelves);
        take(t.computeSlots, rk.computeTraysAboveSwitches);
        take(t.switchSlots, rk.switchTrays);
        take(t.computeSlots, rk.computeTrays - rk.computeTraysAboveSwitches);
        take(t.powerShelfSlots, bottomShelves);
    }

    // Rows and racks: generated rows count their racks; explicit rows name them and may leave
    // slots empty.
    EntityId rackId = 0;
    std::unordered_map<std::string, std::string> rowOfRack; // rack name -> row (duplicates)
    for (std::size_t r = 0; r < spec.rows.size(); ++r) {
        const auto& row = spec.rows[r];
        t.rows.name.push_back(row.name);
        t.rows.firstRack.push_back(rackId);
        std::vector<RackSpec> list = row.rackList;
        if (list.empty())
            for (int i = 0; i < row.racks; ++i)
                list.push_back({row.name + padded(static_cast<std::uint64_t>(i) + 1, 2), i});
        t.rows.rackCount.push_back(static_cast<std::uint32_t>(list.size()));
        int slot = -1;
        std::unordered_set<int> taken;
        for (std::size_t i = 0; i < list.size(); ++i, ++rackId) {
            const RackSpec& rs = list[i];
            if (auto [it, fresh] = rowOfRack.emplace(rs.name, row.name); !fresh)
                return std::unexpected("rack '" + rs.name + "' is named twice (rows '" +
                                       it->second + "' and '" + row.name + "')");
            slot = rs.slot >= 0 ? rs.slot : slot + 1;
            if (!taken.insert(slot).second)
                return std::unexpected("row '" + row.name + "': rack '" + rs.name +
                                       "' stands in slot " + std::to_string(slot + 1) +
                                       ", which another rack already takes");
            t.racks.name.push_back(rs.name);
            t.racks.row.push_back(static_cast<EntityId>(r));
            t.racks.indexInRow.push_back(static_cast<std::uint32_t>(i));
            t.racks.position.push_back(
                {static_cast<float>(row.x + slot * rk.widthM), static_cast<float>(row.y), 0.0f});
            t.racks.traysInstalled.push_back(static_cast<std::uint8_t>(
                rs.computeTrays >= 0 ? rs.computeTrays : rk.computeTrays));
            t.racks.ratedPowerKw.push_back(
                static_cast<float>(rs.ratedPowerKw > 0 ? rs.ratedPowerKw : rk.ratedPowerKw));
            t.racks.initialLifecycle.push_back(
                static_cast<std::uint8_t>(rs.lifecycle.empty() ? RackLifecycle::Production
                                                               : *lifecycleFromName(rs.lifecycle)));
        }
    }
    const std::size_t nRacks = rackId;

    t.boundsMin = {1e30f, 1e30f, 0};
    t.boundsMax = {-1e30f, -1e30f, static_cast<float>(rk.heightM)};
    for (const auto& p : t.racks.position) {
        t.boundsMin.x = std::min(t.boundsMin.x, p.x - float(rk.widthM / 2));
        t.boundsMin.y = std::min(t.boundsMin.y, p.y - float(rk.depthM / 2));
        t.boundsMax.x = std::max(t.boundsMax.x, p.x + float(rk.widthM / 2));
        t.boundsMax.y = std::max(t.boundsMax.y, p.y + float(rk.depthM / 2));
    }

    // Trays, GPUs, CPUs, DPUs.
    const std::size_t nTrays = nRacks * rk.computeTrays;
    const std::size_t nGpus = nTrays * rk.gpusPerTray;
    t.computeTrays.rack.resize(nTrays);
    t.computeTrays.indexInRack.resize(nTrays);
    t.gpus.tray.resize(nGpus);
    t.gpus.rack.resize(nGpus);
    t.gpus.indexInTray.resize(nGpus);
    t.gpus.position.resize(nGpus);
    const float faceY = -static_cast<float>(rk.depthM) / 2.0f - 0.01f;
    for (std::size_t tray = 0; tray < nTrays; ++tray) {
        const auto rack = static_cast<EntityId>(tray / rk.computeTrays);
        const auto idx = static_cast<std::uint8_t>(tray % rk.computeTrays);
        t.computeTrays.rack[tray] = rack;
        t.computeTrays.indexInRack[tray] = idx;
        const Vec3 rp = t.racks.position[rack];
        const float z = (t.computeSlots[idx].bottomU + 0.5f) * kRackUnitM;
        for (int g = 0; g < rk.gpusPerTray; ++g) {
            const std::size_t gpu = tray * rk.gpusPerTray + g;
            t.gpus.tray[gpu] = static_cast<EntityId>(tray);
            t.gpus.rack[gpu] = rack;
            t.gpus.indexInTray[gpu] = static_cast<std::uint8_t>(g);
            const float fx = (static_cast<float>(g) + 0.5f) / static_cast<float>(rk.gpusPerTray);
            t.gpus.position[gpu] = {rp.x + (fx - 0.5f) * 0.8f * static_cast<float>(rk.widthM),
                                    rp.y + faceY, z};
        }
    }
    if (auto err = placeHosts(spec, t); !err.empty()) return std::unexpected(err);
    t.cpus.tray.resize(nTrays * rk.cpusPerTray);
    for (std::size_t i = 0; i < t.cpus.tray.size(); ++i)
        t.cpus.tray[i] = static_cast<EntityId>(i / rk.cpusPerTray);
    t.dpus.tray.resize(nTrays * rk.dpusPerTray);
    for (std::size_t i = 0; i < t.dpus.tray.size(); ++i)
        t.dpus.tray[i] = static_cast<EntityId>(i / rk.dpusPerTray);

    // NVLink switch trays and GPU <-> switch tray links.
    const std::size_t nSwitch = nRacks * rk.switchTrays;
    t.switchTrays.rack.resize(nSwitch);
    t.switchTrays.indexInRack.resize(nSwitch);
    for (std::size_t s = 0; s < nSwitch; ++s) {
        t.switchTrays.rack[s] = static_cast<EntityId>(s / rk.switchTrays);
        t.switchTrays.indexInRack[s] = static_cast<std::uint8_t>(s % rk.switchTrays);
    }
    const std::size_t nNvlink = nGpus * rk.switchTrays;
    t.nvlinkLinks.gpu.resize(nNvlink);
    t.nvlinkLinks.switchTray.resize(nNvlink);
    for (std::size_t l = 0; l < nNvlink; ++l) {
        const std::size_t gpu = l / rk.switchTrays;
        const std::size_t sw =
            static_cast<std::size_t>(t.gpus.rack[gpu]) * rk.switchTrays + l % rk.switchTrays;
        t.nvlinkLinks.gpu[l] = static_cast<EntityId>(gpu);
        t.nvlinkLinks.switchTray[l] = static_cast<EntityId>(sw);
    }

    // Fabric: NIC i of every tray -> rail i; rail i -> plane i % planes. Each plane is a
    // non-blocking two-tier Clos: a leaf has k/2 ports down and k/2 up, so a plane holds at
    // most k^2/2 endpoints, needs ceil(N/(k/2)) leaves (counted per rail, since leaves are
    // rail-dedicated) and ceil(N/k) spines.
    const int planes = spec.fabric.planes;
    const auto k = static_cast<std::uint32_t>(spec.fabric.switchRadix);
    const std::size_t nNics = nGpus * rk.nicsPerGpu;
    const std::size_t perRail = nTrays; // one NIC of each tray per rail
    const std::size_t perPlane = nNics / planes;
    t.fabricSizing.endpointsPerPlane = static_cast<std::uint32_t>(perPlane);
    t.fabricSizing.maxEndpointsPerPlane = k * k / 2;
    if (perPlane > t.fabricSizing.maxEndpointsPerPlane)
        return std::unexpected(
            "the fabric cannot be non-blocking two-tier: " + std::to_string(perPlane) +
            " endpoints per plane exceed k^2/2 = " +
            std::to_string(t.fabricSizing.maxEndpointsPerPlane) + " for switch radix " +
            std::to_string(k) + "; raise fabric.switch_radix or fabric.planes");
    const auto leavesPerRail = static_cast<std::uint32_t>((perRail + k / 2 - 1) / (k / 2));
    const auto spinesPerPlane = static_cast<std::uint32_t>((perPlane + k - 1) / k);
    t.fabricSizing.leavesPerPlane =
        leavesPerRail * static_cast<std::uint32_t>(nicsPerTray / planes);
    t.fabricSizing.spinesPerPlane = spinesPerPlane;

    const float fabricZ = static_cast<float>(rk.heightM) + 2.5f;
    const float spanX = t.boundsMax.x - t.boundsMin.x;
    const float midY = (t.boundsMin.y + t.boundsMax.y) / 2;
    // Rails stack across the floor's depth, over the racks (wider apart on deep floors).
    const float railPitch =
        std::clamp((t.boundsMax.y - t.boundsMin.y) / static_cast<float>(nicsPerTray), 0.6f, 2.5f);
    const std::size_t totalLeaves = static_cast<std::size_t>(leavesPerRail) * nicsPerTray;
    t.leaves.plane.reserve(totalLeaves);
    for (int rail = 0; rail < nicsPerTray; ++rail) {
        const int plane = rail % planes;
        t.rails.plane.push_back(static_cast<std::uint16_t>(plane));
        t.rails.firstLeaf.push_back(static_cast<EntityId>(t.leaves.plane.size()));
        t.rails.leafCount.push_back(leavesPerRail);
        for (std::uint32_t l = 0; l < leavesPerRail; ++l) {
            const std::size_t attached =
                std::min<std::size_t>(k / 2, perRail - static_cast<std::size_t>(l) * (k / 2));
            t.leaves.plane.push_back(static_cast<std::uint16_t>(plane));
            t.leaves.rail.push_back(static_cast<std::uint16_t>(rail));
            t.leaves.downlinks.push_back(static_cast<std::uint32_t>(attached));
            const float fx = (static_cast<float>(l) + 0.5f) / static_cast<float>(leavesPerRail);
            t.leaves.position.push_back(
                {t.boundsMin.x + fx * spanX,
                 midY + (static_cast<float>(rail) - (nicsPerTray - 1) / 2.0f) * railPitch,
                 fabricZ + static_cast<float>(plane) * 0.6f});
        }
    }
    for (int plane = 0; plane < planes; ++plane)
        for (std::uint32_t s = 0; s < spinesPerPlane; ++s) {
            const float fx = (static_cast<float>(s) + 0.5f) / static_cast<float>(spinesPerPlane);
            t.spines.plane.push_back(static_cast<std::uint16_t>(plane));
            t.spines.position.push_back(
                {t.boundsMin.x + fx * spanX,
                 midY + (static_cast<float>(plane) - (planes - 1) / 2.0f) * 3.0f, fabricZ + 3.0f});
        }

    t.nics.gpu.resize(nNics);
    t.nics.rail.resize(nNics);
    t.nics.leaf.resize(nNics);
    t.fabricLinks.kind.reserve(nNics + totalLeaves * spinesPerPlane);
    for (std::size_t nic = 0; nic < nNics; ++nic) {
        const std::size_t tray = nic / nicsPerTray;
        const int rail = static_cast<int>(nic % nicsPerTray);
        const auto leaf = static_cast<EntityId>(t.rails.firstLeaf[rail] + tray / (k / 2));
        t.nics.gpu[nic] = static_cast<EntityId>(tray * rk.gpusPerTray + rail / rk.nicsPerGpu);
        t.nics.rail[nic] = static_cast<std::uint16_t>(rail);
        t.nics.leaf[nic] = leaf;
        t.fabricLinks.kind.push_back(FabricLinkKind::NicToLeaf);
        t.fabricLinks.from.push_back(static_cast<EntityId>(nic));
        t.fabricLinks.to.push_back(leaf);
        t.fabricLinks.lanes.push_back(1);
    }
    // Leaf uplinks equal its used downlinks (1:1, non-blocking), spread evenly over the spines
    // of its plane; each leaf-spine pair is one link bundle.
    // The lanes left over after an even split go round-robin over the plane's spines, carried on
    // from leaf to leaf, so no spine uses more than its k ports.
    std::vector<std::uint32_t> nextSpare(static_cast<std::size_t>(planes), 0);
    for (std::size_t leaf = 0; leaf < t.leaves.plane.size(); ++leaf) {
        const std::uint32_t up = t.leaves.downlinks[leaf];
        const std::uint32_t plane = t.leaves.plane[leaf];
        const std::uint32_t spare = up % spinesPerPlane;
        const std::uint32_t from = nextSpare[plane];
        nextSpare[plane] = (from + spare) % spinesPerPlane;
        for (std::uint32_t s = 0; s < spinesPerPlane; ++s) {
            const bool getsSpare = (s + spinesPerPlane - from) % spinesPerPlane < spare;
            const std::uint32_t lanes = up / spinesPerPlane + (getsSpare ? 1 : 0);
            if (lanes == 0) continue;
            t.fabricLinks.kind.push_back(FabricLinkKind::LeafToSpine);
            t.fabricLinks.from.push_back(static_cast<EntityId>(leaf));
            t.fabricLinks.to.push_back(plane * spinesPerPlane + s);
            t.fabricLinks.lanes.push_back(static_cast<std::uint16_t>(lanes));
        }
    }

    // Cooling: CDUs at the start of each row, each serving racksPerCdu consecutive racks;
    // every CDU has a primary (facility) and a secondary (rack) loop.
    t.racks.cdu.resize(nRacks);
    for (std::size_t r = 0; r < t.rows.name.size(); ++r) {
        const std::uint32_t n = t.rows.rackCount[r];
        const auto per = static_cast<std::uint32_t>(spec.cooling.racksPerCdu);
        const std::uint32_t cdusInRow = (n + per - 1) / per;
        for (std::uint32_t c = 0; c < cdusInRow; ++c) {
            const auto id = static_cast<EntityId>(t.cdus.row.size());
            const EntityId first = t.rows.firstRack[r] + c * per;
            const std::uint32_t count = std::min(per, n - c * per);
            t.cdus.row.push_back(static_cast<EntityId>(r));
            t.cdus.firstRack.push_back(first);
            t.cdus.rackCount.push_back(count);
            const Vec3 p0 = t.racks.position[t.rows.firstRack[r]];
            t.cdus.position.push_back(
                {p0.x - static_cast<float>(rk.widthM) * (1.5f + 1.6f * c), p0.y, 0.0f});
            for (std::uint32_t i = 0; i < count; ++i)
                t.racks.cdu[first + i] = id;
            for (int p = 0; p < spec.cooling.pumpsPerCdu; ++p) {
                t.pumps.cdu.push_back(id);
                t.pumps.indexInCdu.push_back(static_cast<std::uint8_t>(p));
            }
            t.coolingLoops.cdu.push_back(id);
            t.coolingLoops.kind.push_back(LoopKind::Primary);
            t.coolingLoops.cdu.push_back(id);
            t.coolingLoops.kind.push_back(LoopKind::Secondary);
            t.boundsMin.x = std::min(t.boundsMin.x, t.cdus.position.back().x - 0.6f);
        }
    }

    for (std::size_t r = 0; r < spec.storage.regions.size(); ++r)
        for (const auto& tier : spec.storage.tiers) {
            t.storageTiers.region.push_back(static_cast<EntityId>(r));
            t.storageTiers.name.push_back(tier);
        }

    // Power: every row's two busways, every rack's shelves and their PSUs (even on A, odd on B).
    for (std::size_t r = 0; r < t.rows.name.size(); ++r) {
        double rated = spec.power.feedRatedKw;
        if (rated <= 0) {
            for (std::uint32_t i = 0; i < t.rows.rackCount[r]; ++i)
                rated += t.racks.ratedPowerKw[t.rows.firstRack[r] + i];
            rated *= spec.power.feedDiversity;
        }
        for (int side = 0; side < 2; ++side) {
            t.powerFeeds.row.push_back(static_cast<EntityId>(r));
            t.powerFeeds.side.push_back(static_cast<std::uint8_t>(side));
            t.powerFeeds.ratedKw.push_back(static_cast<float>(rated));
        }
    }
    for (EntityId rack = 0; rack < t.racks.name.size(); ++rack)
        for (int s = 0; s < rk.powerShelves; ++s) {
            const auto shelf = static_cast<EntityId>(t.powerShelves.rack.size());
            t.powerShelves.rack.push_back(rack);
            t.powerShelves.indexInRack.push_back(static_cast<std::uint8_t>(s));
            for (int p = 0; p < spec.power.psusPerShelf; ++p) {
                t.psus.shelf.push_back(shelf);
                t.psus.rack.push_back(rack);
                t.psus.side.push_back(static_cast<std::uint8_t>(p % 2));
                t.psus.feed.push_back(t.feedOf(t.racks.row[rack], p % 2));
                t.psus.indexInShelf.push_back(static_cast<std::uint8_t>(p));
            }
        }
    return t;
}

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
        if (!owner) return std::nullopt;
        return static_cast<EntityId>(*owner * per + std::stoul(tail));
    };
    const auto& rk = m_spec.rack;
    if (kind == EntityKind::Gpu) {
        if (const auto id = suffixIndex(" GPU ", EntityKind::ComputeTray,
                                        static_cast<std::size_t>(rk.gpusPerTray));
            id && *id % rk.gpusPerTray == gpus.indexInTray[*id])
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
        const unsigned long long id = std::stoull(nameOrId);
        if (id < n) return static_cast<EntityId>(id);
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
