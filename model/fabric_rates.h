#pragma once
// Unit factors and the congestion curves the fabric model shares between its step and its
// per-link detail (fabric_model.cpp, fabric_detail.cpp). Plain functions; any thread.
#include <algorithm>

namespace ft::model::fabric {

inline constexpr float kTbpsToGBps = 125.0f; // 1 Tb/s = 125 GB/s
inline constexpr float kTBpsToGBps = 1000.0f;

// ECN marks and PFC pauses as a congested RoCE fabric shows them: marking starts where queues
// build (~70 % load, as DCQCN's Kmin), pauses only near saturation.
inline float ecnProbability(float u) {
    if (u <= 0.7f) return 0.0f;
    const float x = std::min(1.0f, (u - 0.7f) / 0.3f);
    return 0.03f * x * x;
}
inline float pfcPausesPerS(float u) {
    return u <= 0.9f ? 0.0f : (u - 0.9f) * 2.0e5f;
}

} // namespace ft::model::fabric
