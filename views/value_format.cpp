#include "value_format.h"

#include "coverage.h"
#include "model/gpu_health.h"
#include "model/lifecycle.h"
#include "model/scheduler_state.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace ft::views {

namespace {

// Unitless channels that count (errors, flaps, links): a number, not yes or no.
bool countsEvents(model::ChannelId c) {
    using namespace model::ch;
    switch (c) {
    case RackLinkFlaps:
    case ShelfPsusOk:
    case NvlinkCrcErrors:
    case NvlinkReplayErrors:
    case NvlinkRecoveryErrors:
    case FabricDrops:
    case FabricEcnMarks:
    case FabricPfcPauses:
    case FabricCarrierTransitions:
    case RailLinksDown:
    case RackNvlinkErrors:
    case RackFabricLinksDown:
        return true;
    default:
        return false;
    }
}

} // namespace

std::string formatValue(float value, model::ChannelId channel) {
    const auto& info = model::kChannels[channel];
    char buf[48];
    if (!std::isfinite(value)) return "no data";
    if (info.unit.empty()) {
        // State channels: say the state.
        if (channel == model::ch::PumpHealth)
            return value < 0.5f ? "OK" : (value < 1.5f ? "degraded" : "failed");
        if (channel == model::ch::RackPowerOn) return value > 0.5f ? "on" : "off";
        if (channel == model::ch::TrayValidation) {
            const int v = static_cast<int>(value);
            if (v == 0) return "not validating";
            if (v == 10) return "passed";
            if (v >= 20 && v < 20 + static_cast<int>(model::kNodeCheckTitles.size()))
                return "failed: " + std::string(model::kNodeCheckTitles[v - 20]);
            if (v >= 1 && v <= static_cast<int>(model::kNodeCheckTitles.size()))
                return "running: " + std::string(model::kNodeCheckTitles[v - 1]);
            return "pending";
        }
        if (channel == model::ch::PsuState)
            return value < 0.5f ? "OK" : (value < 1.5f ? "no input (feed down)" : "failed");
        if (channel == model::ch::FeedState)
            return value < 0.5f ? "OK" : (value < 1.5f ? "overloaded (breaker timing)" : "tripped");
        if (channel == model::ch::RackLifecycleState) {
            const int v = static_cast<int>(value);
            return v >= 0 && v < static_cast<int>(model::kLifecycleTitles.size())
                       ? std::string(model::kLifecycleTitles[v])
                       : "?";
        }
        if (channel == model::ch::GpuPlacedBy) {
            const int v = static_cast<int>(value);
            return v == 1   ? "its UUID"
                   : v == 2 ? "host and PCI address"
                   : v == 3 ? "host and GPU index"
                            : "?";
        }
        if (channel == model::ch::ComputeTraySchedulerState)
            return std::string(model::schedulerStateName(static_cast<model::SchedulerState>(
                std::clamp(static_cast<int>(value), 0, model::kSchedulerStates - 1))));
        if (channel == model::ch::GpuHealth)
            return std::string(model::healthName(
                static_cast<model::GpuHealth>(std::clamp(static_cast<int>(value), 0, 3))));
        if (countsEvents(channel)) return std::to_string(static_cast<long long>(value));
        return value > 0.5f ? "yes" : "no";
    }
    // The GPU's own counters: what they say, in words.
    if (info.unit == "code") return model::describeXid(static_cast<int>(value));
    if (info.unit == "mask")
        return model::describeThrottleReasons(static_cast<std::uint32_t>(std::max(0.0f, value)));
    if (info.unit == "P") return "P" + std::to_string(static_cast<int>(value));
    if (info.unit == "count") return std::to_string(static_cast<long long>(value));
    if (info.unit == "rows") return std::to_string(static_cast<long long>(value)) + " rows";
    const float mag = std::abs(value);
    const int decimals = mag >= 1000 ? 0 : (mag >= 100 ? 0 : 1);
    std::snprintf(buf, sizeof buf, "%.*f %s", decimals, value, std::string(info.unit).c_str());
    return buf;
}

std::string formatCoveredValue(const model::Snapshot& s, model::ChannelId channel,
                               model::EntityId entity, bool fillModelled) {
    const float v = s.value(channel, entity);
    switch (coverageOf(s, channel, entity, fillModelled)) {
    case Coverage::Measured:
        return formatValue(v, channel);
    case Coverage::Stale:
        return formatValue(v, channel) + " (stale)";
    case Coverage::NoData:
        return "no data";
    case Coverage::Modelled:
        return "≈ " + formatValue(v, channel) + " (modelled)";
    }
    return formatValue(v, channel);
}

std::string describeCoverage(const model::Snapshot& s, model::EntityKind kind,
                             model::EntityId entity) {
    if (!s.telemetry) return {};
    const model::TimeNs at = s.measuredTime(kind, entity);
    if (at == 0) return "never measured: any value shown is the model's";
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s %.0f s ago",
                  s.stale(kind, entity) ? "STALE, last measured" : "measured",
                  std::max(0.0, model::toSeconds(s.time - at)));
    return buf;
}

} // namespace ft::views
