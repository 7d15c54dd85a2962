#pragma once
// ColorScale: maps a channel's value to a colour on a fixed, legible scale (Turbo palette),
// so that a colour means the same value on every floor and every run.
#include "model/channel_catalog.h"

#include <array>
#include <cstdint>

namespace ft::views {

struct Rgb {
    std::uint8_t r = 0, g = 0, b = 0;
};

class ColorScale {
public:
    explicit ColorScale(model::ChannelId channel);
    ColorScale(float min, float max) : m_min(min), m_max(max) {}

    Rgb map(float value) const;
    float min() const { return m_min; }
    float max() const { return m_max; }
    // Colour at a position 0..1 along the scale.
    static Rgb palette(float t);

private:
    float m_min = 0, m_max = 1;
};

} // namespace ft::views
