#include "color_scale.h"

#include "model/gpu_health.h"
#include "model/scheduler_state.h"

#include <algorithm>
#include <cmath>

namespace ft::views {

namespace {

Palette g_palette = Palette::Turbo;

std::uint8_t channel(float x) {
    return static_cast<std::uint8_t>(std::lround(std::clamp(x, 0.0f, 1.0f) * 255.0f));
}

// Viridis, a degree-6 polynomial fit of matplotlib's table (dark violet -> teal -> yellow).
Rgb viridis(float t) {
    static constexpr float kC[7][3] = {{0.2777273272f, 0.0054073445f, 0.3340998053f},
                                       {0.1050930431f, 1.4046135299f, 1.3845901626f},
                                       {-0.3308618287f, 0.2148475595f, 0.0950951630f},
                                       {-4.6342304990f, -5.7991009734f, -19.3324409563f},
                                       {6.2282699363f, 14.1799333668f, 56.6905526007f},
                                       {4.7763849977f, -13.7451453777f, -65.3530326334f},
                                       {-5.4354558559f, 4.6458526122f, 26.3124352496f}};
    float rgb[3];
    for (int k = 0; k < 3; ++k) {
        float v = kC[6][k];
        for (int i = 5; i >= 0; --i)
            v = v * t + kC[i][k];
        rgb[k] = v;
    }
    return {channel(rgb[0]), channel(rgb[1]), channel(rgb[2])};
}

// Cividis (navy -> grey -> yellow: the same for the common colour-vision deficiencies), from
// five of its stops.
Rgb cividis(float t) {
    static constexpr float kStops[5][3] = {
        {0, 34, 78}, {65, 77, 107}, {124, 123, 120}, {188, 175, 111}, {254, 232, 56}};
    const float x = t * 4.0f;
    const int i = std::min(3, static_cast<int>(x));
    const float f = x - static_cast<float>(i);
    auto mix = [&](int k) { return (kStops[i][k] + (kStops[i + 1][k] - kStops[i][k]) * f) / 255; };
    return {channel(mix(0)), channel(mix(1)), channel(mix(2))};
}

} // namespace

std::optional<Palette> paletteFromName(std::string_view name) {
    for (std::size_t i = 0; i < kPaletteNames.size(); ++i)
        if (kPaletteNames[i] == name) return static_cast<Palette>(i);
    return std::nullopt;
}

void ColorScale::setPalette(Palette palette) {
    g_palette = palette;
}

Palette ColorScale::currentPalette() {
    return g_palette;
}

std::optional<Rgb> ColorScale::safe(float t) {
    if (g_palette == Palette::Turbo) return std::nullopt;
    t = std::clamp(t, 0.0f, 1.0f);
    return g_palette == Palette::Viridis ? viridis(t) : cividis(t);
}

ColorScale::ColorScale(model::ChannelId channel)
    : m_min(model::kChannels[channel].scaleMin), m_max(model::kChannels[channel].scaleMax),
      m_states(channel == model::ch::GpuHealth                   ? States::Health
               : channel == model::ch::ComputeTraySchedulerState ? States::Scheduler
                                                                 : States::None) {}

Rgb ColorScale::stateColor(model::ChannelId channel, int value) {
    return channel == model::ch::ComputeTraySchedulerState ? schedulerColor(value)
                                                           : healthColor(value);
}

std::span<const std::string_view> ColorScale::stateNames(model::ChannelId channel) {
    if (channel == model::ch::ComputeTraySchedulerState) return model::kSchedulerStateNames;
    return model::kGpuHealthNames;
}

Rgb ColorScale::schedulerColor(int state) {
    switch (state) {
    case 0:
        return {120, 135, 155};
    case 1:
        return {70, 190, 110};
    case 2:
        return {80, 150, 240};
    case 3:
        return {250, 200, 70};
    case 4:
        return {245, 130, 45};
    case 5:
        return {230, 60, 50};
    default:
        return {170, 90, 230};
    }
}

Rgb ColorScale::healthColor(int health) {
    switch (health) {
    case 0:
        return {70, 190, 110};
    case 1:
        return {250, 185, 60};
    case 2:
        return {230, 60, 50};
    default:
        return {170, 90, 230};
    }
}

Rgb ColorScale::palette(float t) {
    // Turbo colormap, polynomial approximation (Mikhailov 2019): perceptually ordered from dark
    // blue through green and yellow to dark red, readable across a room.
    t = std::clamp(t, 0.0f, 1.0f);
    if (const auto c = safe(t)) return *c;
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
    if (m_states == States::Health) return healthColor(static_cast<int>(std::lround(value)));
    if (m_states == States::Scheduler) return schedulerColor(static_cast<int>(std::lround(value)));
    return palette((value - m_min) / (m_max - m_min));
}

} // namespace ft::views
