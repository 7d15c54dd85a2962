#pragma once
// A channel's value as the views show it: with its unit, a state in words, a counter as a
// number, a GPU's XID or throttle reasons spelled out; and as its coverage says (measured,
// stale, no data, modelled).
#include "model/channel_catalog.h"
#include "model/snapshot.h"

#include <string>

namespace ft::views {

// "74.2 °C", "1.84 kW", "XID 79, GPU fell off the bus (hardware: drain the node)".
std::string formatValue(float value, model::ChannelId channel);

// A channel's value for display as its coverage says: the value when measured ("… (stale)" when
// its source went quiet), "no data" when never measured, "≈ … (modelled)" when the model fills
// the gap. The demo shows plain values.
std::string formatCoveredValue(const model::Snapshot& snapshot, model::ChannelId channel,
                               model::EntityId entity, bool fillModelled);
// Where an entity's values come from, in words ("measured 3 s ago", "never measured: the model's
// values" ...); empty in the demo.
std::string describeCoverage(const model::Snapshot& snapshot, model::EntityKind kind,
                             model::EntityId entity);

} // namespace ft::views
