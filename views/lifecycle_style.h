#pragma once
// Colours and short labels for rack lifecycle states, shared by the floor layer, the HUD
// legend and the lifecycle board so a state looks the same everywhere.
#include "color_scale.h"
#include "model/snapshot.h"

#include <array>
#include <string_view>

namespace ft::views {

inline constexpr std::array<Rgb, 12> kLifecycleColors{{
    {125, 128, 140}, // delivered
    {110, 175, 255}, // hardware detection
    {70, 120, 235},  // firmware update
    {60, 190, 195},  // power & cooling bring-up
    {160, 115, 245}, // node validation
    {205, 100, 225}, // rack validation
    {235, 95, 175},  // multi-rack validation
    {70, 200, 110},  // production
    {240, 70, 60},   // troubleshooting
    {250, 185, 50},  // re-validation
    {240, 135, 45},  // maintenance
    {65, 65, 70},    // decommissioned
}};
inline constexpr std::array<std::string_view, 12> kLifecycleShort{
    "DELIVERED",  "HW DETECT",  "FIRMWARE",     "PWR/COOL",    "NODE VAL",    "RACK VAL",
    "MULTI-RACK", "PRODUCTION", "TROUBLESHOOT", "RE-VALIDATE", "MAINTENANCE", "DECOMMISSIONED"};

inline Rgb lifecycleColor(model::RackLifecycle s) {
    return kLifecycleColors[static_cast<std::size_t>(s)];
}
inline std::string_view lifecycleShort(model::RackLifecycle s) {
    return kLifecycleShort[static_cast<std::size_t>(s)];
}

} // namespace ft::views
