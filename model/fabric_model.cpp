#include "fabric_model.h"

#include "fabric_rates.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace ft::model {

using namespace fabric;

namespace {

template <typename F> void forTargets(const ScenarioEvent& ev, std::size_t count, F&& f) {
    if (!ev.targets.empty()) {
        for (EntityId e : ev.targets)
            f(e);
    } else if (ev.target) {
        f(ev.target->id);
    } else {
        for (std::size_t e = 0; e < count; ++e)
            f(static_cast<EntityId>(e));
    }
}

} // namespace

FabricModel::FabricModel(const Topology& t, TimeNs counterInterval)
    : m_topology(t), m_counterInterval(std::max<TimeNs>(counterInterval, 1)) {
    const auto& rk = t.spec().rack;
    m_portGBps = static_cast<float>(t.spec().fabric.portGbps) / 8.0f;
    m_nicsPerTray = static_cast<std::uint32_t>(rk.gpusPerTray * rk.nicsPerGpu);
    m_traysPerLeaf = static_cast<std::uint32_t>(std::max(1, t.spec().fabric.switchRadix / 2));
    const std::size_t nTrays = t.count(EntityKind::ComputeTray);
    const std::size_t nRacks = t.count(EntityKind::Rack);
    const std::size_t nNics = t.count(EntityKind::Nic);
    const std::size_t nLinks = t.count(EntityKind::FabricLink);
    m_railDown.assign(t.count(EntityKind::Rail), 0);
    m_leafLaneLoss.assign(t.count(EntityKind::Leaf), 0.0f);
    m_leafDropRate.assign(t.count(EntityKind::Leaf), 0.0f);
    m_flapDown.assign(nNics, 0);
    m_rackNvlinkOff.assign(nRacks, 0);
    m_rackNvlinkOffByScenario.assign(nRacks, 0);
    m_rackFlapNic.resize(nRacks);
    m_rackFlapWasDown.assign(nRacks, 0);
    for (std::size_t r = 0; r < nRacks; ++r)
        // The transceiver that fails validation: one NIC of the rack's first tray, on a rail
        // that differs from rack to rack.
        m_rackFlapNic[r] =
            static_cast<EntityId>(r * rk.computeTrays * m_nicsPerTray + r % m_nicsPerTray);
    m_trayCapacity.assign(nTrays, 0.0f);
    m_trayUniform.assign(nTrays, 1);
    m_trayNvlink.assign(nTrays, 0.0f);
    m_trayRail.assign(nTrays, 0.0f);
    m_trayRailGBps.assign(nTrays, 0.0f);
    m_trayPace.assign(nTrays, 1.0f);
    m_trayCross.assign(nTrays, 0.0f);
    m_rackPace.assign(nRacks, 1.0f);
    m_rackDown.assign(nRacks, 0);
    m_leafIn.assign(t.count(EntityKind::Leaf), 0.0f);
    m_leafUp.assign(t.count(EntityKind::Leaf), 0.0f);
    m_drops.assign(nLinks, 0.0);
    m_ecn.assign(nLinks, 0.0);
    m_pfc.assign(nLinks, 0.0);
    m_carrier.assign(nLinks, 0.0);
    m_current = freeBlock();
}

std::shared_ptr<DetailBlock> FabricModel::freeBlock() {
    // A block only this model holds can be rewritten; otherwise a new one (a consumer such as a
    // recorder queue still reads the old ones).
    for (auto& b : m_blocks)
        if (b.use_count() == 1 && b != m_current) return b;
    auto block = std::make_shared<DetailBlock>(kLastDetailChannel - kFirstDetailChannel + 1);
    for (ChannelId c = kFirstDetailChannel; c <= kLastDetailChannel; ++c)
        (*block)[c - kFirstDetailChannel].assign(m_topology.count(kChannels[c].kind), 0.0f);
    m_blocks.push_back(block);
    return block;
}

void FabricModel::overrideDetail(ChannelId c, EntityId e, float value) {
    auto& column = (*m_current)[c - kFirstDetailChannel];
    if (e < column.size()) column[e] = value;
}

float FabricModel::DetailInputs::nicCapacity(const Topology& t, EntityId nic,
                                             float portGBps) const {
    if (railDown[t.nics.rail[nic]] || flapDown[nic]) return 0.0f;
    return portGBps * (1.0f - leafLaneLoss[t.nics.leaf[nic]]);
}

LinkState FabricModel::DetailInputs::nicLinkState(const Topology& t, EntityId nic) const {
    if (railDown[t.nics.rail[nic]] || flapDown[nic]) return LinkState::Down;
    const EntityId leaf = t.nics.leaf[nic];
    return leafLaneLoss[leaf] > 0 || leafDropRate[leaf] > 0 ? LinkState::Degraded : LinkState::Up;
}

float FabricModel::nicCapacity(EntityId nic) const {
    const auto rail = m_topology.nics.rail[nic];
    if (m_railDown[rail] || m_flapDown[nic]) return 0.0f;
    return m_portGBps * (1.0f - m_leafLaneLoss[m_topology.nics.leaf[nic]]);
}

LinkState FabricModel::nicLinkState(EntityId nic) const {
    if (m_railDown[m_topology.nics.rail[nic]] || m_flapDown[nic]) return LinkState::Down;
    const EntityId leaf = m_topology.nics.leaf[nic];
    return m_leafLaneLoss[leaf] > 0 || m_leafDropRate[leaf] > 0 ? LinkState::Degraded
                                                                : LinkState::Up;
}

void FabricModel::apply(const ScenarioEvent& ev, TimeNs now, std::vector<Event>& events) {
    const Topology& t = m_topology;
    const EntityKind kind = scenarioActionTarget(ev.action);
    const std::string who = ev.target            ? t.name(ev.target->kind, ev.target->id)
                            : ev.targets.empty() ? std::string("all")
                                                 : std::to_string(ev.targets.size()) + " racks";
    std::string what = ev.note;
    switch (ev.action) {
    case ScenarioAction::RailDown:
        forTargets(ev, m_railDown.size(), [&](EntityId r) { m_railDown[r] = 1; });
        if (what.empty())
            what = "rail down: its NIC links are lost, traffic re-spreads over the other rails";
        break;
    case ScenarioAction::RailRestore:
        forTargets(ev, m_railDown.size(), [&](EntityId r) { m_railDown[r] = 0; });
        if (what.empty()) what = "rail restored";
        break;
    case ScenarioAction::LeafDegrade:
        forTargets(ev, m_leafLaneLoss.size(), [&](EntityId l) {
            m_leafLaneLoss[l] =
                static_cast<float>(std::clamp(ev.value > 0 ? ev.value : 0.5, 0.0, 0.95));
            m_leafDropRate[l] =
                static_cast<float>(std::clamp(ev.value2 > 0 ? ev.value2 : 1e-4, 0.0, 1.0));
        });
        if (what.empty()) what = "leaf degraded: lanes lost, packets dropped";
        break;
    case ScenarioAction::LeafRestore:
        forTargets(ev, m_leafLaneLoss.size(),
                   [&](EntityId l) { m_leafLaneLoss[l] = 0, m_leafDropRate[l] = 0; });
        if (what.empty()) what = "leaf healthy again";
        break;
    case ScenarioAction::LinkFlap: {
        const auto nNics = static_cast<EntityId>(t.count(EntityKind::Nic));
        forTargets(ev, nNics, [&](EntityId link) {
            if (link >= nNics) return; // leaf-spine bundles do not flap as a whole
            std::erase_if(m_flaps, [&](const Flap& f) { return f.link == link; });
            m_flaps.push_back({link, static_cast<float>(ev.value > 0 ? ev.value : 20.0),
                               static_cast<float>(ev.value2 > 0 ? ev.value2 : 2.0), now, false});
        });
        if (what.empty()) what = "link flapping";
        break;
    }
    case ScenarioAction::LinkStable:
        forTargets(ev, t.count(EntityKind::Nic), [&](EntityId link) {
            std::erase_if(m_flaps, [&](const Flap& f) { return f.link == link; });
            if (link < m_flapDown.size() && m_flapDown[link])
                m_flapDown[link] = 0, m_carrier[link] += 1;
        });
        if (what.empty()) what = "link stable";
        break;
    case ScenarioAction::NvlinkDisable:
    case ScenarioAction::NvlinkEnable: {
        const std::uint8_t off = ev.action == ScenarioAction::NvlinkDisable ? 1 : 0;
        forTargets(ev, m_rackNvlinkOffByScenario.size(),
                   [&](EntityId r) { m_rackNvlinkOffByScenario[r] = off; });
        if (what.empty())
            what = off ? "NVLink disabled: in-rack traffic forced onto the rails"
                       : "NVLink enabled again";
        break;
    }
    case ScenarioAction::NvlinkDegrade:
        forTargets(ev, t.count(EntityKind::NvlinkLink), [&](EntityId link) {
            auto it = std::ranges::find(m_nvlinkFaults, link, &NvlinkFault::link);
            if (it == m_nvlinkFaults.end())
                it = m_nvlinkFaults.insert(m_nvlinkFaults.end(), NvlinkFault{link, 0});
            it->crcPerS = static_cast<float>(ev.value > 0 ? ev.value : 50.0);
        });
        if (what.empty()) what = "NVLink link logging CRC errors";
        break;
    case ScenarioAction::NvlinkRestore:
        forTargets(ev, t.count(EntityKind::NvlinkLink), [&](EntityId link) {
            for (auto& f : m_nvlinkFaults)
                if (f.link == link) f.crcPerS = 0;
        });
        if (what.empty()) what = "NVLink link healthy again";
        break;
    default:
        return;
    }
    m_capacityDirty = true;
    events.push_back(
        {now, EventKind::ScenarioInjection,
         ev.target.value_or(EntityRef{kind, ev.targets.empty() ? 0 : ev.targets.front()}),
         Severity::Warning, who + ": " + what});
}

void FabricModel::updateLinkCapacities(TimeNs) {
    const std::size_t nTrays = m_trayCapacity.size();
    for (std::size_t tray = 0; tray < nTrays; ++tray) {
        const auto first = static_cast<EntityId>(tray * m_nicsPerTray);
        const float c0 = nicCapacity(first);
        float sum = c0;
        bool uniform = true;
        for (std::uint32_t i = 1; i < m_nicsPerTray; ++i) {
            const float c = nicCapacity(first + i);
            sum += c;
            uniform = uniform && c == c0;
        }
        m_trayCapacity[tray] = sum;
        m_trayUniform[tray] = uniform ? 1 : 0;
    }
    m_capacityDirty = false;
}

void FabricModel::step(Snapshot& state, const Holds& held, float dt,
                       const std::vector<TrayInput>& trays, const std::vector<RackInput>& racks,
                       bool detail) {
    const Topology& t = m_topology;
    const auto& rk = t.spec().rack;
    auto& v = state.values;
    m_now = state.time;
    const std::size_t nRacks = t.count(EntityKind::Rack);
    const std::size_t nTrays = t.count(EntityKind::ComputeTray);
    const std::size_t nLeaves = t.count(EntityKind::Leaf);

    // Links that flap: a scenario's flapping link, and the transceiver of a rack failing
    // multi-rack validation. Each change of carrier is one transition on the link's counter.
    for (Flap& f : m_flaps) {
        const double phase = std::fmod(toSeconds(m_now - f.since), static_cast<double>(f.periodS));
        const bool down = phase >= f.periodS - f.downS;
        if (down != f.down) {
            f.down = down;
            m_flapDown[f.link] = down ? 1 : 0;
            m_carrier[f.link] += 1;
            m_capacityDirty = true;
        }
    }
    for (std::size_t r = 0; r < nRacks; ++r) {
        const std::uint8_t flapping = racks[r].railFlapping ? 1 : 0;
        if (flapping != m_rackFlapWasDown[r]) {
            m_rackFlapWasDown[r] = flapping;
            const EntityId nic = m_rackFlapNic[r];
            m_flapDown[nic] = flapping;
            m_carrier[nic] += 1;
            m_capacityDirty = true;
        }
        m_rackNvlinkOff[r] = (racks[r].nvlinkOffByStage || m_rackNvlinkOffByScenario[r]) ? 1 : 0;
    }
    if (m_capacityDirty) updateLinkCapacities(m_now);

    // Trays: route what each tray sends over its NIC links that are up (NCCL's PXN sends a dead
    // rail's share through NVLink to a peer GPU whose NIC is up, so the tray's bytes re-spread),
    // then up to the leaves; the share bound for another leaf's trays goes on to the spines.
    std::ranges::fill(m_leafIn, 0.0f);
    std::ranges::fill(m_leafUp, 0.0f);
    std::ranges::fill(m_rackPace, 1.0f);
    const auto npt = m_nicsPerTray;
    float* const leafIn = m_leafIn.data();
    float* const leafUp = m_leafUp.data();
    const EntityId* const firstLeaf = t.rails.firstLeaf.data();
    // A group's trays are consecutive and its leaves (one per rail) are its own, so their sums
    // are kept here while its trays pass and added to the leaves after: the same additions in
    // the same order as adding in place, a vector of rails at a time.
    constexpr std::uint32_t kMaxNics = 16 * 8; // Topology::build: 16 GPUs a tray, 8 NICs a GPU
    std::array<float, kMaxNics> groupIn{}, groupUp{};
    std::uint32_t openGroup = 0;
    bool open = false;
    auto closeGroup = [&] {
        if (!open) return;
        for (std::uint32_t i = 0; i < npt; ++i) {
            leafIn[firstLeaf[i] + openGroup] += groupIn[i];
            leafUp[firstLeaf[i] + openGroup] += groupUp[i];
        }
        open = false;
    };
    // A tray's share of its peers behind other leaves: the same for the trays of a rack that
    // share a leaf group, so worked out once per rack and group.
    EntityId crossRack = 0;
    std::uint32_t crossGroup = 0;
    float cross = 0.0f;
    bool crossKnown = false;
    for (std::size_t tray = 0; tray < nTrays; ++tray) {
        const EntityId rack = t.computeTrays.rack[tray];
        const RackInput& ri = racks[rack];
        const TrayInput& in = trays[tray];
        const bool off = m_rackNvlinkOff[rack] != 0;
        const float want = in.railWant * kTbpsToGBps + (off ? in.nvlinkWant * kTBpsToGBps : 0.0f);
        const float cap = m_trayCapacity[tray];
        const float carried = std::min(want * in.pace, cap);
        m_trayRailGBps[tray] = carried;
        m_trayRail[tray] = carried / kTbpsToGBps;
        m_trayNvlink[tray] = off ? 0.0f : in.nvlinkWant * in.pace;
        // `want` is what the tray sends in its current phase (the workload already alternates
        // compute and all-reduce). When the links cannot carry it, the communication part of
        // each step stretches: step = compute + comm * (want / capacity).
        float pace = 1.0f;
        if (want > 0) {
            const float ratio = cap > 0 ? want / cap : 1e9f;
            if (ratio > 1.0f) pace = 1.0f / ((1.0f - kCommFraction) + kCommFraction * ratio);
        }
        m_trayPace[tray] = pace;
        m_rackPace[rack] = std::min(m_rackPace[rack], pace);

        const std::uint32_t group = static_cast<std::uint32_t>(tray) / m_traysPerLeaf;
        if (!crossKnown || rack != crossRack || group != crossGroup) {
            const std::size_t gBegin = static_cast<std::size_t>(group) * m_traysPerLeaf;
            const std::size_t gEnd = std::min(gBegin + m_traysPerLeaf, nTrays);
            const std::size_t pBegin = ri.peerFirstTray, pEnd = pBegin + ri.peerTrays;
            const std::size_t overlap = std::min(pEnd, gEnd) > std::max(pBegin, gBegin)
                                            ? std::min(pEnd, gEnd) - std::max(pBegin, gBegin)
                                            : 0;
            cross = ri.peerTrays > 0
                        ? 1.0f - static_cast<float>(overlap) / static_cast<float>(ri.peerTrays)
                        : 0.0f;
            crossRack = rack;
            crossGroup = group;
            crossKnown = true;
        }
        m_trayCross[tray] = cross;
        if (carried <= 0) continue;
        if (!open || group != openGroup) {
            closeGroup();
            std::fill_n(groupIn.begin(), npt, 0.0f);
            std::fill_n(groupUp.begin(), npt, 0.0f);
            openGroup = group;
            open = true;
        }
        if (m_trayUniform[tray] && npt == 8) {
            // Vera Rubin's eight rails: two vectors.
            const float share = carried / 8.0f, up = share * cross;
            for (std::uint32_t i = 0; i < 8; ++i) {
                groupIn[i] += share;
                groupUp[i] += up;
            }
        } else if (m_trayUniform[tray]) {
            const float share = carried / static_cast<float>(npt), up = share * cross;
            for (std::uint32_t i = 0; i < npt; ++i) {
                groupIn[i] += share;
                groupUp[i] += up;
            }
        } else {
            const auto firstNic = static_cast<EntityId>(tray * npt);
            for (std::uint32_t i = 0; i < npt; ++i) {
                const float share = carried * nicCapacity(firstNic + i) / cap;
                groupIn[i] += share;
                groupUp[i] += share * cross;
            }
        }
    }
    closeGroup();

    auto anyHeld = [&](ChannelId c) { return !(*held.until)[c].empty(); };
    auto put = [&](ChannelId c, EntityId e, float x, bool check) {
        if (!(check && held(c, e))) v[c][e] = x;
    };

    // GPUs: NVLink collectives inside the rack are symmetric, so each GPU receives what it sends.
    {
        const bool h1 = anyHeld(ch::GpuNvlinkTx), h2 = anyHeld(ch::GpuNvlinkRx);
        const int gpt = rk.gpusPerTray;
        for (std::size_t tray = 0; tray < nTrays; ++tray) {
            const float perGpu = m_trayNvlink[tray] * kTBpsToGBps / static_cast<float>(gpt);
            for (int i = 0; i < gpt; ++i) {
                const auto g = static_cast<EntityId>(tray * gpt + i);
                put(ch::GpuNvlinkTx, g, perGpu, h1);
                put(ch::GpuNvlinkRx, g, perGpu, h2);
            }
        }
    }

    // Leaves, spines, rails, planes.
    const bool hLeaf = anyHeld(ch::LeafThroughput) || anyHeld(ch::LeafUplink) ||
                       anyHeld(ch::LeafUtilization) || anyHeld(ch::LeafState);
    const std::size_t nRails = t.count(EntityKind::Rail);
    std::vector<float> railTx(nRails, 0.0f), railCap(nRails, 0.0f);
    const auto planes = static_cast<std::size_t>(t.spec().fabric.planes);
    std::vector<double> planeUp(planes, 0.0);
    for (std::size_t l = 0; l < nLeaves; ++l) {
        const auto leaf = static_cast<EntityId>(l);
        const auto rail = t.leaves.rail[l];
        const bool down = m_railDown[rail] != 0;
        const float cap = down ? 0.0f
                               : static_cast<float>(t.leaves.downlinks[l]) * m_portGBps *
                                     (1.0f - m_leafLaneLoss[l]);
        const float util = cap > 0 ? 100.0f * std::max(m_leafIn[l], m_leafUp[l]) / cap : 0.0f;
        const auto st = down                                               ? LinkState::Down
                        : (m_leafLaneLoss[l] > 0 || m_leafDropRate[l] > 0) ? LinkState::Degraded
                                                                           : LinkState::Up;
        put(ch::LeafThroughput, leaf, m_leafIn[l], hLeaf);
        put(ch::LeafUplink, leaf, m_leafUp[l], hLeaf);
        put(ch::LeafUtilization, leaf, util, hLeaf);
        put(ch::LeafState, leaf, static_cast<float>(st), hLeaf);
        railTx[rail] += m_leafIn[l];
        railCap[rail] += cap;
        planeUp[t.leaves.plane[l]] += m_leafUp[l];
    }
    const std::uint32_t spinesPerPlane = t.fabricSizing.spinesPerPlane;
    const float spineCap = static_cast<float>(t.spec().fabric.switchRadix) * m_portGBps;
    for (std::size_t s = 0; s < t.count(EntityKind::Spine); ++s) {
        const auto spine = static_cast<EntityId>(s);
        // ECMP spreads each leaf's uplink bytes evenly over the spines of its plane.
        const float tp = static_cast<float>(planeUp[t.spines.plane[s]] /
                                            std::max<std::uint32_t>(1, spinesPerPlane));
        put(ch::SpineThroughput, spine, tp, anyHeld(ch::SpineThroughput));
        put(ch::SpineUtilization, spine, 100.0f * tp / spineCap, anyHeld(ch::SpineUtilization));
    }
    std::vector<std::uint32_t> railDownLinks(nRails, 0);
    for (std::size_t r = 0; r < nRails; ++r)
        if (m_railDown[r]) railDownLinks[r] = static_cast<std::uint32_t>(nTrays);
    // Outside a whole-rail outage only the few flapping links are down: walk them directly.
    auto& rackDown = m_rackDown;
    std::ranges::fill(rackDown, 0u);
    auto countDown = [&](EntityId nic) {
        const auto rail = t.nics.rail[nic];
        if (!m_railDown[rail]) ++railDownLinks[rail];
        ++rackDown[t.computeTrays.rack[nic / npt]];
    };
    for (const Flap& f : m_flaps)
        if (f.down) countDown(f.link);
    for (std::size_t r = 0; r < nRacks; ++r)
        if (m_rackFlapWasDown[r] && std::ranges::none_of(m_flaps, [&](const Flap& f) {
                return f.down && f.link == m_rackFlapNic[r];
            }))
            countDown(m_rackFlapNic[r]);
    std::vector<float> planeTx(planes, 0.0f);
    for (std::size_t r = 0; r < nRails; ++r) {
        const auto rail = static_cast<EntityId>(r);
        const float tbps = railTx[r] / kTbpsToGBps;
        put(ch::RailThroughput, rail, tbps, anyHeld(ch::RailThroughput));
        put(ch::RailUtilization, rail, railCap[r] > 0 ? 100.0f * railTx[r] / railCap[r] : 0.0f,
            anyHeld(ch::RailUtilization));
        put(ch::RailLinksDown, rail, static_cast<float>(railDownLinks[r]),
            anyHeld(ch::RailLinksDown));
        planeTx[t.rails.plane[r]] += tbps;
    }
    for (std::size_t p = 0; p < planes; ++p)
        put(ch::PlaneThroughput, static_cast<EntityId>(p), planeTx[p],
            anyHeld(ch::PlaneThroughput));

    // Racks.
    for (std::size_t r = 0; r < nRacks; ++r) {
        const auto rack = static_cast<EntityId>(r);
        std::uint32_t down = rackDown[r];
        for (std::size_t rail = 0; rail < nRails; ++rail)
            if (m_railDown[rail]) down += static_cast<std::uint32_t>(rk.computeTrays);
        put(ch::RackFabricLinksDown, rack, static_cast<float>(down),
            anyHeld(ch::RackFabricLinksDown));
        put(ch::RackNvlinkDisabled, rack, static_cast<float>(m_rackNvlinkOff[r]),
            anyHeld(ch::RackNvlinkDisabled));
    }

    if (!detail) return;
    const auto interval = static_cast<float>(toSeconds(m_counterInterval));
    if (m_detailStamp == 0) {
        // The first block at once: there is nothing to show until it exists.
        m_building = freeBlock();
        freezeDetailInputs();
        writeDetailSlice(*m_building, 0.0f, 0, 1);
        publishDetail(state, 0.0f);
        return;
    }
    if (!m_building && m_now >= m_nextDetail) {
        // The block describes this tick: what the per-link values derive from is kept as it is
        // now, and the following ticks expand it slice by slice.
        m_building = freeBlock();
        m_slice = 0;
        freezeDetailInputs();
    }
    if (!m_building) return;
    // Spread over the interval's ticks: one slice of every link range per tick, published when
    // the last slice is in, so no tick carries the whole floor's per-link refresh.
    const auto slices = static_cast<std::size_t>(std::max(
        1.0, std::floor(static_cast<double>(m_counterInterval) / (static_cast<double>(dt) * 1e9) +
                        1e-6)));
    writeDetailSlice(*m_building, interval, m_slice, slices);
    if (++m_slice >= slices) publishDetail(state, interval);
}

} // namespace ft::model
