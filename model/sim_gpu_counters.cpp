// SimModel and a GPU's own counters (dcgm-exporter's fields): nothing here is modelled. A
// measured counter may imply another value (an XID seen, the memory totals), and once a second
// each measured GPU's health is made of its counters (gpu_health.h).
#include "gpu_health.h"
#include "sim_model.h"

#include <algorithm>
#include <cmath>

namespace ft::model {

void SimModel::applyGpuCounter(const Sample& s, float before) {
    const EntityId gpu = s.entity;
    switch (s.channel) {
    case ch::GpuXid: {
        // The exporter repeats the last XID until the driver reloads: a new code is a new
        // event (the same code twice in a row cannot be told from one report).
        if (!(s.value > 0.0f) || s.value == before) return;
        Column& count = writableState(ch::GpuXidCount);
        count[gpu] += 1.0f;
        markChannelMeasured(ch::GpuXidCount);
        const int code = static_cast<int>(s.value);
        const XidClass kind = xidInfo(code).kind;
        const Severity severity = kind == XidClass::Hardware ? Severity::Critical
                                  : kind == XidClass::Driver ? Severity::Warning
                                                             : Severity::Info;
        m_appliedEvents.push_back(
            {std::clamp(s.time, m_state.time, m_state.time + m_config.step),
             EventKind::DeviceReport,
             {EntityKind::Gpu, gpu},
             severity,
             m_topology->name(EntityKind::Gpu, gpu) + ": " + describeXid(code)});
        return;
    }
    case ch::GpuMemoryUsed:
    case ch::GpuMemoryFree:
    case ch::GpuMemoryReserved:
    case ch::GpuMemoryTotal:
        deriveGpuMemory(gpu);
        return;
    default:
        return;
    }
}

void SimModel::deriveGpuMemory(EntityId gpu) {
    // dcgm-exporter reports used and free (and reserved, on recent versions); the total only
    // with the extra fields on. What was reported stays; the rest is made of it.
    if (!everMeasured(ch::GpuMemoryUsed, gpu) || !everMeasured(ch::GpuMemoryFree, gpu)) return;
    const auto value = [&](ChannelId c) { return m_state.values[c][gpu]; };
    const float reserved =
        everMeasured(ch::GpuMemoryReserved, gpu) ? value(ch::GpuMemoryReserved) : 0.0f;
    if (!everMeasured(ch::GpuMemoryTotal, gpu)) {
        writableState(ch::GpuMemoryTotal)[gpu] =
            value(ch::GpuMemoryUsed) + value(ch::GpuMemoryFree) + reserved;
        markChannelMeasured(ch::GpuMemoryTotal);
    }
    if (!everMeasured(ch::GpuMemoryUsedPercent, gpu)) {
        const float usable = value(ch::GpuMemoryTotal) - reserved;
        writableState(ch::GpuMemoryUsedPercent)[gpu] =
            usable > 0.0f ? 100.0f * value(ch::GpuMemoryUsed) / usable : 0.0f;
        markChannelMeasured(ch::GpuMemoryUsedPercent);
    }
}

void SimModel::stepGpuHealth() {
    if (!m_state.telemetry || !m_state.measuredChannels.test(ch::GpuHealth)) return;
    // Once a second of the floor's time is enough for what an operator reads off it.
    if (m_state.time / kNsPerSecond == (m_state.time - m_config.step) / kNsPerSecond) return;
    const Topology& t = *m_topology;
    const auto& gpuAt = m_state.measuredAt[static_cast<std::size_t>(EntityKind::Gpu)];
    const auto& trayAt = m_state.measuredAt[static_cast<std::size_t>(EntityKind::ComputeTray)];
    const auto fresh = [&](TimeNs at) { return at > 0 && m_state.time - at <= m_state.staleAfter; };
    const auto& v = m_state.values;
    Column* health = nullptr; // made writable at the first change
    for (EntityId g = 0; g < gpuAt.size(); ++g) {
        if (gpuAt[g] == 0) continue;
        const GpuCounters c{v[ch::GpuXid][g],
                            v[ch::GpuRemappedRowsUncorrectable][g],
                            v[ch::GpuRowRemapPending][g],
                            v[ch::GpuRowRemapFailure][g],
                            v[ch::GpuEccDoubleBit][g],
                            v[ch::GpuThrottleReasons][g],
                            !fresh(gpuAt[g]) && fresh(trayAt[t.gpus.tray[g]])};
        const GpuHealth now = gpuHealth(c);
        const auto was = static_cast<GpuHealth>(static_cast<int>(v[ch::GpuHealth][g]));
        if (now == was) continue;
        if (!health) health = &writableState(ch::GpuHealth);
        (*health)[g] = static_cast<float>(now);
        if (now == GpuHealth::Failing || now == GpuHealth::Lost)
            m_newEvents.push_back({m_state.time, EventKind::DeviceReport,
                                   EntityRef{EntityKind::Gpu, g}, Severity::Critical,
                                   t.name(EntityKind::Gpu, g) + " is " +
                                       std::string(healthName(now)) + ": " + healthReason(c)});
        // Thermal slowdown is the cold plate's doing: a cause of its own, and its end a recovery.
        const auto mask = [](float m) {
            return std::isfinite(m) && m > 0 ? static_cast<std::uint32_t>(m) : 0u;
        };
        constexpr std::uint32_t kThermal = throttle::kSwThermal | throttle::kHwThermal;
        const bool hot = now == GpuHealth::Degraded && (mask(c.throttleReasons) & kThermal) != 0;
        if (hot && was == GpuHealth::Healthy)
            m_newEvents.push_back({m_state.time, EventKind::DeviceReport,
                                   EntityRef{EntityKind::Gpu, g}, Severity::Warning,
                                   std::string(kColdPlateReport) + t.name(EntityKind::Gpu, g) +
                                       " holds its clocks down (" +
                                       describeThrottleReasons(mask(c.throttleReasons) & kThermal) +
                                       ")"});
        else if (now == GpuHealth::Healthy && was == GpuHealth::Degraded)
            m_newEvents.push_back({m_state.time, EventKind::DeviceReport,
                                   EntityRef{EntityKind::Gpu, g}, Severity::Info,
                                   t.name(EntityKind::Gpu, g) + " is healthy again"});
    }
}

} // namespace ft::model
