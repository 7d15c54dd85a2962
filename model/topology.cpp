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

} // namespace ft::model
