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
    bool operator()(ChannelId c, EntityId e) const {
        const auto& v = (*until)[c];
        return !v.empty() && v[e] > now;
    }
};

} // namespace ft::model
