#pragma once
// What a GPU's own counters say about it, in the words an operator uses: the XID the driver
// last reported and what it means, why its clocks are held down, and its health.
//
// XIDs are grouped as NVIDIA's XID catalogue resolves them (docs.nvidia.com/deploy/xid-errors):
// an *application* XID is cured by restarting the job, a *driver* XID by resetting the GPU or
// reloading the driver, and a *hardware* XID means the node must be drained for service. The
// descriptions are ours, short enough for an inspector row.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace ft::model {

enum class XidClass : std::uint8_t { Application, Driver, Hardware, Unlisted };

struct XidInfo {
    int code = 0;
    XidClass kind = XidClass::Unlisted;
    std::string_view what;
};

// The catalogue's entry for `code` (kind Unlisted and an empty `what` for codes it lacks).
XidInfo xidInfo(int code);
// "application: restart the job", "driver: reset the GPU", "hardware: drain the node",
// "not in the catalogue".
std::string_view xidAction(XidClass kind);
// "XID 79, GPU fell off the bus (hardware: drain the node)"; "no XID" for 0.
std::string describeXid(int code);

// dcgm-exporter's clock throttle (clock event) reasons, as NVML numbers its bits.
namespace throttle {
inline constexpr std::uint32_t kIdle = 0x1;
inline constexpr std::uint32_t kApplicationClocks = 0x2;
inline constexpr std::uint32_t kSwPowerCap = 0x4;
inline constexpr std::uint32_t kHwSlowdown = 0x8;
inline constexpr std::uint32_t kSyncBoost = 0x10;
inline constexpr std::uint32_t kSwThermal = 0x20;
inline constexpr std::uint32_t kHwThermal = 0x40;
inline constexpr std::uint32_t kHwPowerBrake = 0x80;
inline constexpr std::uint32_t kDisplayClocks = 0x100;
// The reasons that mean something is wrong (heat, the board's power brake, a hardware
// slowdown), not a setting or a job that asks for less.
inline constexpr std::uint32_t kDegrading = kHwSlowdown | kSwThermal | kHwThermal | kHwPowerBrake;
} // namespace throttle

// "thermal slowdown, power cap"; "none" for 0.
std::string describeThrottleReasons(std::uint32_t mask);

// A GPU whose clocks its own temperature holds down (software or hardware thermal slowdown)
// while the coolant is fine says its cold plate does not take the heat away: the words its
// event starts with, so the incident tracker files it under cooling.
inline constexpr std::string_view kColdPlateReport = "cold plate: ";

enum class GpuHealth : std::uint8_t { Healthy = 0, Degraded = 1, Failing = 2, Lost = 3 };
inline constexpr std::array<std::string_view, 4> kGpuHealthNames{"healthy", "degraded", "failing",
                                                                 "lost"};
std::string_view healthName(GpuHealth h);

// One GPU's counters as measured (NaN or 0 where a counter was never reported).
struct GpuCounters {
    float xid = 0;
    float remappedUncorrectable = 0;
    float rowRemapPending = 0;
    float rowRemapFailure = 0;
    float eccDoubleBit = 0;
    float throttleReasons = 0;
    // Its series stopped while other GPUs of its host still answer.
    bool lost = false;
};

// Lost when its series are gone; failing on a hardware XID, an uncorrectable remap, a failed
// remap or a double-bit ECC error; degraded when throttled for heat or power, with a remap
// waiting for a reset, or after a driver XID; healthy otherwise.
GpuHealth gpuHealth(const GpuCounters& c);
// Why, in one line ("hardware XID 79, GPU fell off the bus"), empty when healthy.
std::string healthReason(const GpuCounters& c);

} // namespace ft::model
