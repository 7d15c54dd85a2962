// SimModel's rack totals (power, heat, GPU figures made of the measured GPUs) and alarms (raised
// from measured values only with telemetry), and the tick's events.
#include "sim_model.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <utility>

namespace ft::model {

void SimModel::stepRackTotals() {
    const Topology& t = *m_topology;
    const auto& rk = t.spec().rack;
    auto& v = m_state.values;
    const std::size_t nRacks = t.count(EntityKind::Rack);
    const int tpr = rk.computeTrays;
    const int gpr = rk.computeTrays * rk.gpusPerTray;
    // Each rack's GPU sums, in its GPUs' order, four racks side by side so that their chains of
    // additions overlap (each rack's sums are those of adding its GPUs one by one).
    m_rackGpuSums.resize(nRacks);
    {
        const float* const gpuUtil = v[ch::GpuUtilization].data();
        const float* const gpuTemp = v[ch::GpuTemperature].data();
        const auto perRack = static_cast<std::size_t>(gpr);
        constexpr std::size_t kSide = 4;
        std::size_t r = 0;
        for (; r + kSide <= nRacks; r += kSide) {
            std::array<float, kSide> util{}, tSum{}, tMax{};
            for (std::size_t i = 0; i < perRack; ++i)
                for (std::size_t k = 0; k < kSide; ++k) {
                    const std::size_t g = (r + k) * perRack + i;
                    util[k] += gpuUtil[g];
                    tMax[k] = std::max(tMax[k], gpuTemp[g]);
                    tSum[k] += gpuTemp[g];
                }
            for (std::size_t k = 0; k < kSide; ++k)
                m_rackGpuSums[r + k] = {util[k], tSum[k], tMax[k]};
        }
        for (; r < nRacks; ++r) {
            float util = 0, tSum = 0, tMax = 0;
            for (std::size_t i = 0; i < perRack; ++i) {
                const std::size_t g = r * perRack + i;
                util += gpuUtil[g];
                tMax = std::max(tMax, gpuTemp[g]);
                tSum += gpuTemp[g];
            }
            m_rackGpuSums[r] = {util, tSum, tMax};
        }
    }
    for (std::size_t r = 0; r < nRacks; ++r) {
        const auto id = static_cast<EntityId>(r);
        const bool powered = m_rackPowered[r] != 0;
        float power = 0, nvlink = 0, rail = 0;
        for (int i = 0; i < tpr; ++i) {
            power += v[ch::TrayPower][r * tpr + i];
            nvlink += m_fabric.trayNvlink(static_cast<EntityId>(r * tpr + i));
            rail += m_fabric.trayRail(static_cast<EntityId>(r * tpr + i));
        }
        auto [util, tSum, tMax] = m_rackGpuSums[r];
        util /= static_cast<float>(gpr);
        auto tCount = static_cast<float>(gpr);
        if (m_state.telemetry) {
            // Telemetry: the rack's GPU figures are made of its measured GPUs only, never a
            // modelled guess (rack.gpus_measured says how many); of none, they are no data.
            float mMax = 0, mSum = 0, mUtil = 0;
            int nTemp = 0, nUtil = 0, fresh = 0;
            const auto& gpuAt = m_state.measuredAt[static_cast<std::size_t>(EntityKind::Gpu)];
            for (int i = 0; i < gpr; ++i) {
                const auto g = static_cast<EntityId>(r * gpr + i);
                fresh += gpuAt[g] > 0 && m_state.time - gpuAt[g] <= m_state.staleAfter ? 1 : 0;
                if (held(ch::GpuUtilization, g)) {
                    mUtil += v[ch::GpuUtilization][g];
                    ++nUtil;
                }
                if (!held(ch::GpuTemperature, g)) continue;
                mMax = std::max(mMax, v[ch::GpuTemperature][g]);
                mSum += v[ch::GpuTemperature][g];
                ++nTemp;
            }
            m_rackGpuTempMeasured[r] = nTemp > 0 ? 1 : 0;
            constexpr float kNone = std::numeric_limits<float>::quiet_NaN();
            tMax = nTemp > 0 ? mMax : kNone;
            tSum = nTemp > 0 ? mSum : kNone;
            tCount = static_cast<float>(std::max(nTemp, 1));
            util = nUtil > 0 ? mUtil / static_cast<float>(nUtil) : kNone;
            v[ch::RackGpusMeasured][r] = static_cast<float>(fresh);
        }
        for (int s = 0; s < rk.switchTrays; ++s) {
            const std::size_t sw = r * rk.switchTrays + s;
            // NVLink switch power follows the traffic through it.
            const float load =
                std::min(1.0f, nvlink / std::max(1.0f, static_cast<float>(rk.nvlinkTBpsPerRack)));
            if (!held(ch::SwitchTrayPower, static_cast<EntityId>(sw)))
                v[ch::SwitchTrayPower][sw] =
                    powered ? static_cast<float>(rk.switchTrayW) * (0.45f + 0.55f * load) : 0.0f;
            power += v[ch::SwitchTrayPower][sw];
        }
        if (!held(ch::RackPower, id)) v[ch::RackPower][r] = power / 1000.0f;
        if (!held(ch::RackGpuUtilization, id)) v[ch::RackGpuUtilization][r] = util;
        if (!held(ch::RackGpuTempMax, id)) v[ch::RackGpuTempMax][r] = tMax;
        if (!held(ch::RackGpuTempMean, id)) v[ch::RackGpuTempMean][r] = tSum / tCount;
        if (!held(ch::RackNvlinkThroughput, id)) v[ch::RackNvlinkThroughput][r] = nvlink;
        if (!held(ch::RackRailThroughput, id)) v[ch::RackRailThroughput][r] = rail;
    }
}

bool SimModel::alarmFromMeasurement(ChannelId channel, EntityId e) const {
    if (held(channel, e)) return true;
    // Health is made of the GPU's counters, and says "lost" exactly when they stop.
    if (channel == ch::GpuHealth) return m_state.measuredTime(EntityKind::Gpu, e) > 0;
    // Rack totals the sim computes from measured GPU temperatures.
    if (channel == ch::RackGpuTempMax || channel == ch::RackGpuTempMean)
        return e < m_rackGpuTempMeasured.size() && m_rackGpuTempMeasured[e] != 0;
    return false;
}

void SimModel::evaluateAlarms() {
    m_state.alarms.clear();
    for (std::size_t r = 0; r < m_alarmRules.size(); ++r) {
        const AlarmRule& rule = m_alarmRules[r];
        const auto& values = m_state.values[rule.channel];
        auto& level = m_alarmLevel[r];
        auto& since = m_alarmSince[r];
        const float sign = rule.below ? -1.0f : 1.0f; // "below" rules mirror the thresholds
        const float quietBelow = std::min(sign * rule.warnAbove, sign * rule.criticalAbove);
        auto check = [&](std::size_t e) {
            // No alarm from a modelled value: with telemetry only measured ones count.
            const bool modelled =
                m_state.telemetry && !alarmFromMeasurement(rule.channel, static_cast<EntityId>(e));
            if (modelled && level[e] == 0) return;
            const float x = sign * values[e];
            const float warn = sign * rule.warnAbove, crit = sign * rule.criticalAbove;
            // Raise at once; clear only past the threshold minus the hysteresis.
            std::uint8_t want = 0;
            if (x > crit || (level[e] == 2 && x > crit - rule.hysteresis))
                want = 2;
            else if (x > warn || (level[e] >= 1 && x > warn - rule.hysteresis))
                want = 1;
            if (modelled) want = 0;
            const EntityRef ref{kChannels[rule.channel].kind, static_cast<EntityId>(e)};
            if (want != level[e] && !m_settling) {
                if (want > level[e])
                    m_newEvents.push_back({m_state.time, EventKind::AlarmRaised, ref,
                                           want == 2 ? Severity::Critical : Severity::Warning,
                                           m_topology->name(ref.kind, ref.id) + ": " +
                                               std::string(rule.title) +
                                               (want == 2 ? " (critical)" : " (warning)")});
                else if (want == 0)
                    m_newEvents.push_back({m_state.time, EventKind::AlarmCleared, ref,
                                           Severity::Warning,
                                           m_topology->name(ref.kind, ref.id) + ": " +
                                               std::string(rule.title) + " cleared"});
            }
            if (want != 0 && level[e] == 0) since[e] = m_state.time;
            level[e] = want;
            if (want == 0) return;
            m_state.alarms.push_back({rule.title, ref.kind, ref.id, rule.channel,
                                      want == 2 ? Severity::Critical : Severity::Warning, values[e],
                                      want == 2 ? rule.criticalAbove : rule.warnAbove, since[e]});
        };
        // Most entities are quiet (no alarm, under the warning threshold: nothing to do), and
        // 128k GPUs are checked a tick: a block of them at a time, vector code, and only a
        // block with anything else in it entity by entity.
        constexpr std::size_t kBlock = 64;
        const std::size_t n = values.size();
        for (std::size_t b = 0; b < n; b += kBlock) {
            const std::size_t end = std::min(n, b + kBlock);
            unsigned loud = 0;
            for (std::size_t e = b; e < end; ++e)
                loud |= static_cast<unsigned>(level[e] != 0) |
                        static_cast<unsigned>(sign * values[e] > quietBelow);
            if (loud == 0) continue;
            for (std::size_t e = b; e < end; ++e)
                check(e);
        }
    }
}

void SimModel::publishEvents() {
    m_state.lifecycleHistory = m_lifecycle.machine().sharedHistory();
    if (m_settling) {
        m_newEvents.clear();
        return;
    }
    for (const auto& e : m_newEvents)
        m_events.append(e);
    m_state.events = m_events.shared();
}

} // namespace ft::model
