#pragma once
// Holds: which channel values were measured recently enough that the models must not overwrite
// them. A view over SimModel's per-channel "held until" arrays; sim thread only.
#include "channel_catalog.h"
#include "timestamp.h"

#include <vector>

namespace ft::model {

struct Holds {
    const std::vector<std::vector<TimeNs>>* until = nullptr;
    TimeNs now = 0;
    // Does any entity of `c` have a measured value held? (Most runs hold nothing: a loop can
    // ask this once and skip the per-entity check.)
    bool any(ChannelId c) const { return !(*until)[c].empty(); }
    bool operator()(ChannelId c, EntityId e) const {
        const auto& v = (*until)[c];
        return !v.empty() && v[e] > now;
    }
};

} // namespace ft::model
