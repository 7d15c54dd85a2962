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
    RackDeltaTemperature,
    RackSupplyPressure,
    RackReturnPressure,
    RackDeltaPressure,
    RackValvePosition,
    RackHeatRemoved,
    RackLeakDetected,
    RackPowerOn,
    RackNvlinkThroughput,
    RackRailThroughput,
    CduSupplyTemperature,
    CduReturnTemperature,
    CduHeatLoad,
    CduFlow,
    CduDeltaTemperature,
    CduDeltaPressure,
    CduSetpoint,
    CduCoolantLevel,
    CduPrimarySupplyTemperature,
    CduPrimaryReturnTemperature,
    CduPrimaryFlow,
    PumpSpeed,
    PumpHealth,
    LoopSupplyTemperature,
    LoopReturnTemperature,
    LoopFlow,
    LoopHeatRemoved,
    RowRoomTemperature,
    RowHumidity,
    RackLifecycleProgress,
    RackLinkFlaps,
    TrayValidation,
    RackLifecycleState,
    CacheUsed,
    CacheHitRatio,
    CacheRead,
    CacheLatencyP50,
    CacheLatencyP99,
    RackCacheHitRatio,
    RackStorageRead,
    RackCheckpointWrite,
    TierBytes,
    TierObjects,
    TierInflow,
    RegionRead,
    RegionWrite,
    RegionRequests,
    RegionErrors,
    RegionMigration,
    RegionBacklog,
    RegionOldestPending,
    RegionLinkCapacity,
    RegionWrittenTotal,
    RegionMigratedTotal,
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
    {"gpu.sm_clock", "MHz", EntityKind::Gpu, 2000, 2600, 0, 2600, "GPU SM clock"},
    {"cpu.utilization", "%", EntityKind::Cpu, 0, 100, 0, 100, "CPU utilization"},
    {"cpu.power", "W", EntityKind::Cpu, 0, 300, 0, 350, "CPU package power"},
    {"cpu.temperature", "°C", EntityKind::Cpu, 20, 85, 40, 95, "CPU package temperature"},
    {"compute_tray.power", "W", EntityKind::ComputeTray, 0, 8500, 0, 9000, "Compute tray power"},
    {"switch_tray.power", "W", EntityKind::SwitchTray, 0, 1200, 0, 1200, "NVLink switch tray power"},
    {"rack.power", "kW", EntityKind::Rack, 0, 200, 0, 220, "Rack IT power"},
    {"rack.gpu_temperature_max", "°C", EntityKind::Rack, 20, 85, 40, 95, "Hottest GPU in the rack"},
    {"rack.gpu_temperature_mean", "°C", EntityKind::Rack, 20, 80, 40, 95, "Mean GPU temperature"},
    {"rack.gpu_utilization", "%", EntityKind::Rack, 0, 100, 0, 100, "Mean GPU utilization"},
    {"rack.SupplyTemperatureCelsius", "°C", EntityKind::Rack, 40, 47, 35, 65, "Manifold supply temperature"},
    {"rack.ReturnTemperatureCelsius", "°C", EntityKind::Rack, 40, 60, 35, 65, "Manifold return temperature"},
    {"rack.FlowLitersPerMinute", "L/min", EntityKind::Rack, 120, 400, 0, 400, "Manifold coolant flow"},
    {"rack.DeltaTemperatureCelsius", "K", EntityKind::Rack, 3, 14, 0, 25, "Manifold ΔT (return - supply)"},
    {"rack.SupplyPressurekPa", "kPa", EntityKind::Rack, 150, 400, 0, 450, "Manifold supply pressure"},
    {"rack.ReturnPressurekPa", "kPa", EntityKind::Rack, 50, 300, 0, 450, "Manifold return pressure"},
    {"rack.DeltaPressurekPa", "kPa", EntityKind::Rack, 60, 250, 0, 300, "Manifold differential pressure"},
    {"rack.ValvePositionPercent", "%", EntityKind::Rack, 10, 100, 0, 100, "Rack control valve opening"},
    {"rack.HeatRemovedkW", "kW", EntityKind::Rack, 0, 200, 0, 220, "Heat removed by the rack loop"},
    {"rack.LeakDetected", "", EntityKind::Rack, 0, 0, 0, 1, "Leak detected"},
    {"rack.PowerOn", "", EntityKind::Rack, 1, 1, 0, 1, "Rack powered (Racky)"},
    {"rack.nvlink_throughput", "TB/s", EntityKind::Rack, 0, 260, 0, 260, "NVLink traffic inside the rack"},
    {"rack.rail_throughput", "Tb/s", EntityKind::Rack, 0, 116, 0, 116, "Scale-out traffic on the rails"},
    {"cdu.SupplyTemperatureCelsius", "°C", EntityKind::Cdu, 40, 47, 35, 65, "CDU secondary supply temperature"},
    {"cdu.ReturnTemperatureCelsius", "°C", EntityKind::Cdu, 40, 60, 35, 65, "CDU secondary return temperature"},
    {"cdu.HeatRemovedkW", "kW", EntityKind::Cdu, 0, 2000, 0, 2200, "Heat removed by the CDU"},
    {"cdu.FlowLitersPerMinute", "L/min", EntityKind::Cdu, 500, 3200, 0, 3200, "CDU secondary flow"},
    {"cdu.DeltaTemperatureCelsius", "K", EntityKind::Cdu, 3, 14, 0, 25, "CDU secondary ΔT"},
    {"cdu.DeltaPressurekPa", "kPa", EntityKind::Cdu, 100, 250, 0, 300, "CDU secondary differential pressure"},
    {"cdu.SupplyTemperatureControlCelsius", "°C", EntityKind::Cdu, 40, 47, 35, 65, "CDU supply setpoint"},
    {"cdu.CoolantLevelPercent", "%", EntityKind::Cdu, 60, 100, 0, 100, "CDU reservoir level"},
    {"cdu.PrimarySupplyTemperatureCelsius", "°C", EntityKind::Cdu, 20, 38, 15, 50, "Facility water supply to the CDU"},
    {"cdu.PrimaryReturnTemperatureCelsius", "°C", EntityKind::Cdu, 20, 50, 15, 60, "Facility water return from the CDU"},
    {"cdu.PrimaryFlowLitersPerMinute", "L/min", EntityKind::Cdu, 0, 4000, 0, 4000, "Facility water flow"},
    {"pump.PumpSpeedPercent", "%", EntityKind::Pump, 20, 95, 0, 100, "Pump speed"},
    {"pump.Health", "", EntityKind::Pump, 0, 0, 0, 2, "Pump health"},
    {"cooling_loop.SupplyTemperatureCelsius", "°C", EntityKind::CoolingLoop, 20, 47, 15, 65, "Loop supply temperature"},
    {"cooling_loop.ReturnTemperatureCelsius", "°C", EntityKind::CoolingLoop, 20, 60, 15, 65, "Loop return temperature"},
    {"cooling_loop.FlowLitersPerMinute", "L/min", EntityKind::CoolingLoop, 0, 4000, 0, 4000, "Loop flow"},
    {"cooling_loop.HeatRemovedkW", "kW", EntityKind::CoolingLoop, 0, 2000, 0, 2200, "Heat carried by the loop"},
    {"row.TemperatureCelsius", "°C", EntityKind::Row, 18, 30, 15, 40, "Room temperature at the row"},
    {"row.HumidityPercent", "%", EntityKind::Row, 20, 70, 0, 100, "Room humidity at the row"},
    {"rack.lifecycle_progress", "%", EntityKind::Rack, 0, 100, 0, 100, "Progress through the current lifecycle stage"},
    {"rack.link_flaps", "", EntityKind::Rack, 0, 0, 0, 10, "Rail link flaps seen in validation"},
    {"compute_tray.validation", "", EntityKind::ComputeTray, 0, 10, 0, 25, "Node validation state of the tray"},
    {"rack.lifecycle_state", "", EntityKind::Rack, 7, 7, 0, 11, "Lifecycle state (index into the state list)"},
    {"compute_tray.cache_used", "TB", EntityKind::ComputeTray, 0, 30, 0, 30, "Local NVMe object cache used"},
    {"compute_tray.cache_hit_ratio", "%", EntityKind::ComputeTray, 95, 100, 80, 100, "Object cache hit ratio"},
    {"compute_tray.cache_read", "GB/s", EntityKind::ComputeTray, 0, 28, 0, 28, "Object reads served to the tray"},
    {"compute_tray.read_latency_p50", "ms", EntityKind::ComputeTray, 0, 5, 0, 20, "Object read latency, median"},
    {"compute_tray.read_latency_p99", "ms", EntityKind::ComputeTray, 0, 20, 0, 80, "Object read latency, 99th percentile"},
    {"rack.cache_hit_ratio", "%", EntityKind::Rack, 95, 100, 80, 100, "Object cache hit ratio of the rack"},
    {"rack.storage_read", "GB/s", EntityKind::Rack, 0, 500, 0, 500, "Dataset reads by the rack"},
    {"rack.checkpoint_write", "GB/s", EntityKind::Rack, 0, 100, 0, 100, "Checkpoint writes by the rack"},
    {"storage_tier.bytes", "TB", EntityKind::StorageTier, 0, 1e9, 0, 20000, "Bytes in the tier"},
    {"storage_tier.objects", "M", EntityKind::StorageTier, 0, 1e9, 0, 1000, "Objects in the tier (millions)"},
    {"storage_tier.inflow", "TB/day", EntityKind::StorageTier, 0, 1e9, 0, 2000, "Bytes aging into the tier (per aged day)"},
    {"region.bucket_read", "GB/s", EntityKind::Region, 0, 1e6, 0, 2000, "Bucket reads (cache misses)"},
    {"region.write", "GB/s", EntityKind::Region, 0, 1e6, 0, 2000, "Writes landing in the region"},
    {"region.requests", "k/s", EntityKind::Region, 0, 1e6, 0, 1000, "Object requests"},
    {"region.errors", "/s", EntityKind::Region, 0, 1, 0, 100, "Failed requests"},
    {"region.migration", "GB/s", EntityKind::Region, 0, 1e6, 0, 100, "Data migrating to the remote region"},
    {"region.backlog", "TB", EntityKind::Region, 0, 20, 0, 200, "Written here, not yet in the remote region"},
    {"region.oldest_pending", "s", EntityKind::Region, 0, 300, 0, 3600, "Age of the oldest byte waiting to migrate"},
    {"region.link_capacity", "GB/s", EntityKind::Region, 1, 1e6, 0, 100, "Inter-region link capacity"},
    {"region.written_total", "TB", EntityKind::Region, 0, 1e9, 0, 1e6, "Bytes written here since the start"},
    {"region.migrated_total", "TB", EntityKind::Region, 0, 1e9, 0, 1e6, "Bytes migrated from here since the start"},
}};

constexpr const ChannelInfo& channelInfo(ChannelId id) { return kChannels[id]; }

constexpr std::optional<ChannelId> findChannel(std::string_view name) {
    for (std::size_t i = 0; i < kChannels.size(); ++i)
        if (kChannels[i].name == name) return static_cast<ChannelId>(i);
    return std::nullopt;
}

} // namespace ft::model
