#pragma once
// The catalog of every metric the twin knows: name, unit, entity kind and normal range.
// Channel ids are dense and stable within a build; recordings store the catalog by name.
#include "entity_kind.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ft::model {

using ChannelId = std::uint16_t;

// Ids of the channels the simulation core writes. Order matches kChannels below.
namespace ch {
enum : ChannelId {
    GpuUtilization,
    GpuPower,
    GpuTemperature,
    GpuSmClock,
    CpuUtilization,
    CpuPower,
    CpuTemperature,
    TrayPower,
    SwitchTrayPower,
    RackPower,
    RackGpuTempMax,
    RackGpuTempMean,
    RackGpuUtilization,
    RackSupplyTemperature,
    RackReturnTemperature,
    RackFlow,
    CduSupplyTemperature,
    CduReturnTemperature,
    CduHeatLoad,
    CduFlow,
    Count
};
} // namespace ch

struct ChannelInfo {
    std::string_view name;
    std::string_view unit;
    EntityKind kind;
    float normalMin;
    float normalMax;
    // Fixed colour-scale bounds for views, so colours mean the same thing on every floor.
    float scaleMin;
    float scaleMax;
    std::string_view description;
};

inline constexpr std::array<ChannelInfo, ch::Count> kChannels{{
    {"gpu.utilization", "%", EntityKind::Gpu, 0, 100, 0, 100, "GPU utilization (SM activity)"},
    {"gpu.power", "W", EntityKind::Gpu, 0, 1800, 0, 2000, "GPU board power"},
    {"gpu.temperature", "°C", EntityKind::Gpu, 20, 85, 40, 95, "GPU die temperature"},
    {"gpu.sm_clock", "MHz", EntityKind::Gpu, 1000, 2600, 0, 2600, "GPU SM clock"},
    {"cpu.utilization", "%", EntityKind::Cpu, 0, 100, 0, 100, "CPU utilization"},
    {"cpu.power", "W", EntityKind::Cpu, 0, 300, 0, 350, "CPU package power"},
    {"cpu.temperature", "°C", EntityKind::Cpu, 20, 85, 40, 95, "CPU package temperature"},
    {"compute_tray.power", "W", EntityKind::ComputeTray, 0, 8500, 0, 9000, "Compute tray power"},
    {"switch_tray.power", "W", EntityKind::SwitchTray, 0, 1200, 0, 1200, "NVLink switch tray power"},
    {"rack.power", "kW", EntityKind::Rack, 0, 200, 0, 220, "Rack IT power"},
    {"rack.gpu_temperature_max", "°C", EntityKind::Rack, 20, 85, 40, 95, "Hottest GPU in the rack"},
    {"rack.gpu_temperature_mean", "°C", EntityKind::Rack, 20, 80, 40, 95, "Mean GPU temperature"},
    {"rack.gpu_utilization", "%", EntityKind::Rack, 0, 100, 0, 100, "Mean GPU utilization"},
    {"rack.SupplyTemperatureCelsius", "°C", EntityKind::Rack, 40, 47, 35, 60, "Coolant supply temperature at the rack manifold"},
    {"rack.ReturnTemperatureCelsius", "°C", EntityKind::Rack, 40, 60, 35, 65, "Coolant return temperature at the rack manifold"},
    {"rack.FlowLitersPerMinute", "L/min", EntityKind::Rack, 150, 400, 0, 400, "Coolant flow through the rack manifold"},
    {"cdu.SupplyTemperatureCelsius", "°C", EntityKind::Cdu, 40, 47, 35, 60, "CDU secondary supply temperature"},
    {"cdu.ReturnTemperatureCelsius", "°C", EntityKind::Cdu, 40, 60, 35, 65, "CDU secondary return temperature"},
    {"cdu.HeatRemovedkW", "kW", EntityKind::Cdu, 0, 2000, 0, 2200, "Heat removed by the CDU"},
    {"cdu.FlowLitersPerMinute", "L/min", EntityKind::Cdu, 0, 3200, 0, 3200, "CDU secondary flow"},
}};

constexpr const ChannelInfo& channelInfo(ChannelId id) { return kChannels[id]; }

constexpr std::optional<ChannelId> findChannel(std::string_view name) {
    for (std::size_t i = 0; i < kChannels.size(); ++i)
        if (kChannels[i].name == name) return static_cast<ChannelId>(i);
    return std::nullopt;
}

} // namespace ft::model
