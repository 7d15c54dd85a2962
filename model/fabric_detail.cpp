// FabricModel's per-link detail: every NVLink and NIC link's counters, written in slices on
// the tick so a big floor's detail costs a little each tick (fabric_model.h).
#include "fabric_model.h"
#include "fabric_rates.h"

#include <algorithm>
#include <cmath>

namespace ft::model {

using namespace fabric;

void FabricModel::publishDetail(Snapshot& state, float interval) {
    const Topology& t = m_topology;
    DetailBlock& d = *m_building;
    auto col = [&](ChannelId c) { return d[c - kFirstDetailChannel].data(); };
    float* st = col(ch::NvlinkState);
    std::vector<float> rackErr(t.count(EntityKind::Rack), 0.0f);
    for (NvlinkFault& f : m_nvlinkFaults) {
        const double crc = f.crcPerS * interval;
        f.crc += crc;
        f.replay += crc * 0.92; // most CRC errors are recovered by a replay
        f.recoveryDebt += crc / 5000.0;
        while (f.recoveryDebt >= 1.0)
            f.recovery += 1, f.recoveryDebt -= 1.0;
        col(ch::NvlinkCrcErrors)[f.link] = static_cast<float>(f.crc);
        col(ch::NvlinkReplayErrors)[f.link] = static_cast<float>(f.replay);
        col(ch::NvlinkRecoveryErrors)[f.link] = static_cast<float>(f.recovery);
        if (f.crcPerS > 0 && st[f.link] == 0.0f)
            st[f.link] = static_cast<float>(LinkState::Degraded);
        const EntityId rack = t.gpus.rack[t.nvlinkLinks.gpu[f.link]];
        rackErr[rack] += static_cast<float>(f.crc + f.replay + f.recovery);
    }
    for (std::size_t r = 0; r < rackErr.size(); ++r)
        state.values[ch::RackNvlinkErrors][r] = rackErr[r];
    m_current = std::move(m_building);
    m_building.reset();
    m_detailTime = m_frozen.time;
    m_slice = 0;
    // Refresh on whole intervals of wall time, as exporters scraped on a schedule do.
    m_nextDetail = (m_now / m_counterInterval + 1) * m_counterInterval;
    ++m_detailStamp;
}

void FabricModel::freezeDetailInputs() {
    DetailInputs& in = m_frozen;
    in.time = m_now;
    in.trayNvlink.assign(m_trayNvlink.begin(), m_trayNvlink.end());
    in.trayRailGBps.assign(m_trayRailGBps.begin(), m_trayRailGBps.end());
    in.trayCapacity.assign(m_trayCapacity.begin(), m_trayCapacity.end());
    in.leafUp.assign(m_leafUp.begin(), m_leafUp.end());
    in.leafLaneLoss.assign(m_leafLaneLoss.begin(), m_leafLaneLoss.end());
    in.leafDropRate.assign(m_leafDropRate.begin(), m_leafDropRate.end());
    in.railDown.assign(m_railDown.begin(), m_railDown.end());
    in.flapDown.assign(m_flapDown.begin(), m_flapDown.end());
    in.rackNvlinkOff.assign(m_rackNvlinkOff.begin(), m_rackNvlinkOff.end());
}

void FabricModel::writeDetailSlice(DetailBlock& d, float interval, std::size_t slice,
                                   std::size_t slices) {
    const DetailInputs& in = m_frozen;
    const Topology& t = m_topology;
    const auto& rk = t.spec().rack;
    const std::size_t nTrays = t.count(EntityKind::ComputeTray);
    const std::size_t nNics = t.count(EntityKind::Nic);
    const std::size_t nLinks = t.count(EntityKind::FabricLink);
    const int gpt = rk.gpusPerTray;
    const int links = rk.switchTrays;
    // This slice's share of each range.
    auto part = [&](std::size_t first, std::size_t last) {
        const std::size_t n = last - first;
        return std::pair{first + n * slice / slices, first + n * (slice + 1) / slices};
    };

    // Every entry of every detail channel is written below (or stays zero for links that never
    // logged an error), so a recycled block needs no clearing.
    auto col = [&](ChannelId c) { return d[c - kFirstDetailChannel].data(); };
    // NVLink: each GPU spreads its bytes evenly over its links to the switch trays.
    float* tx = col(ch::NvlinkTx);
    float* rx = col(ch::NvlinkRx);
    float* st = col(ch::NvlinkState);
    const auto [trayFirst, trayLast] = part(0, nTrays);
    for (std::size_t tray = trayFirst; tray < trayLast; ++tray) {
        const float perLink = in.trayNvlink[tray] * kTBpsToGBps / static_cast<float>(gpt * links);
        const float state = in.rackNvlinkOff[t.computeTrays.rack[tray]]
                                ? static_cast<float>(LinkState::Disabled)
                                : 0.0f;
        const std::size_t first = tray * gpt * links,
                          last = first + static_cast<std::size_t>(gpt * links);
        std::fill(tx + first, tx + last, perLink);
        std::fill(rx + first, rx + last, perLink);
        std::fill(st + first, st + last, state);
    }

    // Fabric links: NIC -> leaf (id == NIC id), then leaf -> spine bundles.
    float* const util = col(ch::FabricUtilization);
    float* const drops = col(ch::FabricDrops);
    float* const ecn = col(ch::FabricEcnMarks);
    float* const pfc = col(ch::FabricPfcPauses);
    float* const carrier = col(ch::FabricCarrierTransitions);
    float* const fabricTx = col(ch::FabricTx);
    float* const fabricRx = col(ch::FabricRx);
    float* const fabricState = col(ch::FabricState);
    auto counters = [&](std::size_t link, float carried, float cap, float dropRate) {
        const float u = cap > 0 ? carried / cap : 0.0f;
        // Most links run below the marking threshold and drop nothing: skip the arithmetic.
        if (u > 0.7f || dropRate > 0) {
            const double pps = static_cast<double>(carried) * 1e9 / kPacketBytes;
            m_ecn[link] += pps * ecnProbability(u) * interval;
            m_pfc[link] += static_cast<double>(pfcPausesPerS(u)) * interval;
            m_drops[link] += pps * dropRate * interval;
        }
        util[link] = 100.0f * u;
        drops[link] = static_cast<float>(m_drops[link]);
        ecn[link] = static_cast<float>(m_ecn[link]);
        pfc[link] = static_cast<float>(m_pfc[link]);
        carrier[link] = static_cast<float>(m_carrier[link]);
    };
    const auto npt = m_nicsPerTray;
    const auto [nicFirst, nicLast] = part(0, nNics);
    for (std::size_t nic = nicFirst; nic < nicLast; ++nic) {
        const std::size_t tray = nic / npt;
        const auto id = static_cast<EntityId>(nic);
        const float cap = in.nicCapacity(t, id, m_portGBps);
        const float carried =
            in.trayCapacity[tray] > 0 ? in.trayRailGBps[tray] * cap / in.trayCapacity[tray] : 0.0f;
        // Collectives are symmetric: a NIC receives about what it sends.
        fabricTx[nic] = carried;
        fabricRx[nic] = carried;
        fabricState[nic] = static_cast<float>(in.nicLinkState(t, id));
        counters(nic, carried, cap, in.leafDropRate[t.nics.leaf[nic]]);
    }
    const auto [upFirst, upLast] = part(nNics, nLinks);
    for (std::size_t link = upFirst; link < upLast; ++link) {
        const EntityId leaf = t.fabricLinks.from[link];
        const float lanes = t.fabricLinks.lanes[link];
        const float total =
            static_cast<float>(std::max<std::uint32_t>(1, t.leaves.downlinks[leaf]));
        const bool down = in.railDown[t.leaves.rail[leaf]] != 0;
        const float cap = down ? 0.0f : lanes * m_portGBps * (1.0f - in.leafLaneLoss[leaf]);
        const float carried = in.leafUp[leaf] * lanes / total;
        fabricTx[link] = carried;
        fabricRx[link] = carried;
        fabricState[link] = static_cast<float>(
            down                                                       ? LinkState::Down
            : (in.leafLaneLoss[leaf] > 0 || in.leafDropRate[leaf] > 0) ? LinkState::Degraded
                                                                       : LinkState::Up);
        counters(link, carried, cap, in.leafDropRate[leaf]);
    }
}

} // namespace ft::model
