#pragma once
// ColorScale: maps a channel's value to a colour on a fixed, legible scale (Turbo palette),
// so that a colour means the same value on every floor and every run. For colour-vision
// deficiencies the whole view can switch to viridis or cividis: every scale, the layers' own
// included, then reads from dark to light in one hue ramp that needs no red-green distinction.
#include "model/channel_catalog.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace ft::views {

struct Rgb {
    std::uint8_t r = 0, g = 0, b = 0;
};

enum class Palette : std::uint8_t { Turbo, Viridis, Cividis };
inline constexpr std::array<std::string_view, 3> kPaletteNames{"turbo", "viridis", "cividis"};
std::optional<Palette> paletteFromName(std::string_view name);

class ColorScale {
public:
    // The palette every scale uses (UI thread; layers recolour on their next update).
    static void setPalette(Palette palette);
    static Palette currentPalette();
    // With a colour-vision-safe palette chosen: its colour at t (0..1) for a layer's own scale;
    // nothing with the standard palette (the layer keeps its own colours).
    static std::optional<Rgb> safe(float t);

    explicit ColorScale(model::ChannelId channel);
    ColorScale(float min, float max) : m_min(min), m_max(max) {}

    Rgb map(float value) const;
    // A scale of states rather than amounts (a GPU's health, a node's scheduler state): each
    // value its own colour.
    bool categorical() const { return m_states != States::None; }
    // The colour of state `value` of a categorical channel, and the states' names in order.
    static Rgb stateColor(model::ChannelId channel, int value);
    static std::span<const std::string_view> stateNames(model::ChannelId channel);
    // GPU health: healthy green, degraded amber, failing red, lost violet (whatever the palette:
    // states read as states, and the colour-vision-safe palettes keep them apart by lightness).
    static Rgb healthColor(int health);
    // The scheduler's node states: idle slate, busy green, maintenance blue, draining amber,
    // drained orange, down red, failed violet.
    static Rgb schedulerColor(int state);
    float min() const { return m_min; }
    float max() const { return m_max; }
    // Colour at a position 0..1 along the scale.
    static Rgb palette(float t);

private:
    float m_min = 0, m_max = 1;
    enum class States : std::uint8_t { None, Health, Scheduler };
    States m_states = States::None;
};

} // namespace ft::views
