#include "gpu_health.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace ft::model {

namespace {

using enum XidClass;

// The XIDs a data-centre GPU reports, sorted by code.
constexpr std::array kXids{
    XidInfo{8, Application, "GPU stopped processing (channel timeout)"},
    XidInfo{13, Application, "graphics engine exception"},
    XidInfo{31, Application, "GPU memory page fault"},
    XidInfo{32, Driver, "invalid or corrupted push buffer"},
    XidInfo{38, Driver, "driver firmware error"},
    XidInfo{43, Application, "GPU stopped processing"},
    XidInfo{45, Application, "channel cleaned up after earlier errors"},
    XidInfo{46, Hardware, "GPU stopped processing (fatal)"},
    XidInfo{48, Hardware, "double-bit ECC error"},
    XidInfo{56, Driver, "display engine error"},
    XidInfo{57, Hardware, "error programming the memory interface"},
    XidInfo{58, Hardware, "unstable memory interface"},
    XidInfo{61, Driver, "internal micro-controller warning"},
    XidInfo{62, Hardware, "internal micro-controller halted"},
    XidInfo{63, Driver, "row remap recorded: reset the GPU to apply it"},
    XidInfo{64, Hardware, "row remap failed"},
    XidInfo{68, Driver, "video processor exception"},
    XidInfo{69, Driver, "graphics engine class error"},
    XidInfo{74, Hardware, "NVLink error"},
    XidInfo{79, Hardware, "GPU fell off the bus"},
    XidInfo{92, Hardware, "high single-bit ECC error rate"},
    XidInfo{94, Application, "contained ECC error: the job that touched it stopped"},
    XidInfo{95, Hardware, "uncontained ECC error"},
    XidInfo{109, Application, "context switch timeout"},
    XidInfo{119, Driver, "GSP firmware did not answer in time"},
    XidInfo{120, Driver, "GSP firmware error"},
    XidInfo{121, Hardware, "C2C link error (CPU to GPU)"},
    XidInfo{136, Driver, "GPU recovery in progress"},
    XidInfo{137, Application, "NVLink fabric address fault"},
    XidInfo{140, Hardware, "unrecovered ECC error"},
    XidInfo{143, Hardware, "GPU initialisation failed"},
    XidInfo{144, Hardware, "NVLink: fatal link error"},
    XidInfo{145, Hardware, "NVLink: receive link error"},
    XidInfo{146, Hardware, "NVLink: transmit link error"},
    XidInfo{147, Hardware, "NVLink: link training failed"},
    XidInfo{148, Hardware, "NVLink: network port error"},
    XidInfo{149, Hardware, "NVLink: network interface error"},
    XidInfo{150, Hardware, "NVLink: fabric manager error"},
    XidInfo{154, Hardware, "recovery action changed: read the GPU's recovery action"},
};
static_assert(std::ranges::is_sorted(kXids, {}, &XidInfo::code));

} // namespace

XidInfo xidInfo(int code) {
    const auto* it = std::ranges::lower_bound(kXids, code, {}, &XidInfo::code);
    if (it != kXids.end() && it->code == code) return *it;
    return {code, Unlisted, {}};
}

std::string_view xidAction(XidClass kind) {
    switch (kind) {
    case Application:
        return "application: restart the job";
    case Driver:
        return "driver: reset the GPU";
    case Hardware:
        return "hardware: drain the node";
    case Unlisted:
        break;
    }
    return "not in the catalogue";
}

std::string describeXid(int code) {
    if (code == 0) return "no XID";
    const XidInfo info = xidInfo(code);
    std::string s = "XID " + std::to_string(code);
    if (!info.what.empty()) s += ", " + std::string(info.what);
    return s + " (" + std::string(xidAction(info.kind)) + ")";
}

std::string describeThrottleReasons(std::uint32_t mask) {
    static constexpr std::array<std::pair<std::uint32_t, std::string_view>, 9> kWords{{
        {throttle::kHwThermal, "hardware thermal slowdown"},
        {throttle::kSwThermal, "thermal slowdown"},
        {throttle::kHwPowerBrake, "power brake"},
        {throttle::kHwSlowdown, "hardware slowdown"},
        {throttle::kSwPowerCap, "power cap"},
        {throttle::kSyncBoost, "sync boost"},
        {throttle::kApplicationClocks, "application clocks"},
        {throttle::kDisplayClocks, "display clocks"},
        {throttle::kIdle, "idle"},
    }};
    std::string s;
    std::uint32_t known = 0;
    for (const auto& [bit, word] : kWords) {
        known |= bit;
        if ((mask & bit) == 0) continue;
        if (!s.empty()) s += ", ";
        s += word;
    }
    if ((mask & ~known) != 0) s += std::string(s.empty() ? "" : ", ") + "other reasons";
    return s.empty() ? "none" : s;
}

std::string_view healthName(GpuHealth h) {
    const auto i = static_cast<std::size_t>(h);
    return i < kGpuHealthNames.size() ? kGpuHealthNames[i] : "unknown";
}

namespace {

bool positive(float v) {
    return std::isfinite(v) && v > 0.0f;
}
std::uint32_t maskOf(float v) {
    return std::isfinite(v) && v > 0.0f && v < 4.3e9f ? static_cast<std::uint32_t>(v) : 0u;
}
int xidOf(float v) {
    return std::isfinite(v) && v > 0.0f && v < 1e6f ? static_cast<int>(v) : 0;
}

} // namespace

GpuHealth gpuHealth(const GpuCounters& c) {
    if (c.lost) return GpuHealth::Lost;
    const int xid = xidOf(c.xid);
    const XidClass kind = xid ? xidInfo(xid).kind : Application;
    if ((xid && kind == Hardware) || positive(c.remappedUncorrectable) ||
        positive(c.rowRemapFailure) || positive(c.eccDoubleBit))
        return GpuHealth::Failing;
    if ((maskOf(c.throttleReasons) & throttle::kDegrading) != 0 || positive(c.rowRemapPending) ||
        (xid && (kind == Driver || kind == Unlisted)))
        return GpuHealth::Degraded;
    return GpuHealth::Healthy;
}

std::string healthReason(const GpuCounters& c) {
    if (c.lost) return "its series stopped while its host still answers";
    std::string why;
    auto add = [&](const std::string& s) { why += (why.empty() ? "" : "; ") + s; };
    const int xid = xidOf(c.xid);
    if (xid && xidInfo(xid).kind != Application) add(describeXid(xid));
    if (positive(c.remappedUncorrectable)) add("rows remapped after uncorrectable errors");
    if (positive(c.rowRemapFailure)) add("a row remap failed");
    if (positive(c.eccDoubleBit)) add("double-bit ECC errors");
    if (positive(c.rowRemapPending)) add("a row remap waits for a GPU reset");
    if (const std::uint32_t m = maskOf(c.throttleReasons) & throttle::kDegrading)
        add("throttled: " + describeThrottleReasons(m));
    return why;
}

} // namespace ft::model
