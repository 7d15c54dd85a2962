#pragma once
// Coverage: whether a value drawn for an entity was measured, and how to paint it when it was
// not. With telemetry (a live source, or a replay of live or imported data) an entity the
// telemetry never covered has no data: flat, neutral, hatched, in every layer. Only when the
// user asks (View -> Fill gaps with the model, --fill-modelled) are the model's values drawn for
// it, and then desaturated and hatched, never in the measured palette. The demo (no telemetry)
// is all "measured": the model is the data there. Header-only; any thread.
#include "color_scale.h"
#include "model/snapshot.h"

#include <cmath>
#include <cstdint>

namespace ft::views {

enum class Coverage : std::uint8_t {
    Measured, // a measurement, fresher than the snapshot's staleAfter
    Stale,    // measured once, but its source went quiet
    NoData,   // never measured, drawn as no data
    Modelled, // never measured, drawn with the model's value because the user asked
};

inline Coverage coverageOf(const model::Snapshot& s, model::EntityKind kind, model::EntityId e,
                           bool fillModelled) {
    if (!s.telemetry) return Coverage::Measured;
    const model::TimeNs at = s.measuredTime(kind, e);
    if (at == 0) return fillModelled ? Coverage::Modelled : Coverage::NoData;
    return s.time - at > s.staleAfter ? Coverage::Stale : Coverage::Measured;
}

// The same for one channel's value: a channel no measurement ever reached is the model's on
// every entity, however fresh the entity's other values are.
inline Coverage coverageOf(const model::Snapshot& s, model::ChannelId channel, model::EntityId e,
                           bool fillModelled) {
    if (!s.telemetry) return Coverage::Measured;
    if (channel >= model::ch::Count || !s.measuredChannels.test(channel))
        return fillModelled ? Coverage::Modelled : Coverage::NoData;
    // A total of nothing measured (a rack none of whose GPUs reported it) has no value at all:
    // no modelled stand-in either.
    if (const auto values = s.channel(channel); e < values.size() && !std::isfinite(values[e]))
        return Coverage::NoData;
    return coverageOf(s, model::kChannels[channel].kind, e, fillModelled);
}

// A value as the charts plot it: the measured value (or the model's, when the user asked to
// fill gaps and nothing was ever measured); NaN — a gap — for no data and for a stale value.
inline float shownValue(const model::Snapshot& s, model::ChannelId channel, model::EntityId e,
                        bool fillModelled) {
    const Coverage c = coverageOf(s, channel, e, fillModelled);
    return c == Coverage::Measured || c == Coverage::Modelled ? s.value(channel, e) : std::nanf("");
}

// Whether the views list a channel at all: a GPU's own counters only where telemetry reported
// them somewhere on the floor (the simulator does not model them: the demo lists none).
inline bool listed(const model::Snapshot& s, model::ChannelId channel) {
    return !model::telemetryOnly(channel) || (s.telemetry && s.measuredChannels.test(channel));
}

// "No data": two close neutral greys, alternated by the hatch.
inline constexpr Rgb kNoDataLight{70, 73, 80};
inline constexpr Rgb kNoDataDark{50, 52, 58};

// A colour from the measured palette, painted as its coverage says; `stripe` alternates the
// hatching (a diagonal index parity, a link's dash).
inline Rgb paintCoverage(Rgb c, Coverage coverage, bool stripe) {
    auto u8 = [](float v) { return static_cast<std::uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v)); };
    const float grey = 0.3f * c.r + 0.59f * c.g + 0.11f * c.b;
    switch (coverage) {
    case Coverage::Measured:
        return c;
    case Coverage::Stale: {
        // Stale is not healthy: washed-out grey with a trace of the value's brightness.
        const float v = (stripe ? 0.35f : 0.22f) * grey + 38.0f;
        return {u8(v), u8(v), u8(v + 10.0f)};
    }
    case Coverage::NoData:
        return stripe ? kNoDataLight : kNoDataDark;
    case Coverage::Modelled: {
        // A quarter of the hue left, dimmed, every other stripe darker still.
        const float k = stripe ? 0.62f : 0.42f;
        auto mix = [&](std::uint8_t ch) { return u8(k * (0.25f * ch + 0.75f * grey) + 18.0f); };
        return {mix(c.r), mix(c.g), mix(c.b)};
    }
    }
    return c;
}

} // namespace ft::views
