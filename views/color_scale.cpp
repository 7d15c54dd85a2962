#include "color_scale.h"

#include <algorithm>
#include <cmath>

namespace ft::views {

ColorScale::ColorScale(model::ChannelId channel)
    : m_min(model::kChannels[channel].scaleMin), m_max(model::kChannels[channel].scaleMax) {}

Rgb ColorScale::palette(float t) {
    // Turbo colormap, polynomial approximation (Mikhailov 2019): perceptually ordered from dark
    // blue through green and yellow to dark red, readable across a room.
    t = std::clamp(t, 0.0f, 1.0f);
    const float t2 = t * t, t3 = t2 * t, t4 = t3 * t, t5 = t4 * t;
    const float r = 0.13572138f + 4.61539260f * t - 42.66032258f * t2 + 132.13108234f * t3 -
                    152.94239396f * t4 + 59.28637943f * t5;
    const float g = 0.09140261f + 2.19418839f * t + 4.84296658f * t2 - 14.18503333f * t3 +
                    4.27729857f * t4 + 2.82956604f * t5;
    const float b = 0.10667330f + 12.64194608f * t - 60.58204836f * t2 + 110.36276771f * t3 -
                    89.90310912f * t4 + 27.34824973f * t5;
    auto c = [](float x) {
        return static_cast<std::uint8_t>(std::lround(std::clamp(x, 0.0f, 1.0f) * 255.0f));
    };
    return {c(r), c(g), c(b)};
}

Rgb ColorScale::map(float value) const {
    if (!std::isfinite(value)) return {90, 90, 90};
    return palette((value - m_min) / (m_max - m_min));
}

} // namespace ft::views
