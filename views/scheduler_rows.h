#pragma once
// What the inspector says of the scheduler's view of a compute tray (its node's state, the
// reason, the jobs on it) and of a rack (how many nodes in each state, and which are out of
// service and why), as (label, text) rows. From the live source's notes where there are any,
// else (a replay) from the state channel and the newest scheduler event of the node. Nothing
// where no scheduler reported the entity.
#include "model/snapshot.h"
#include "model/topology.h"

#include <string>
#include <utility>
#include <vector>

namespace ft::views {

using Rows = std::vector<std::pair<std::string, std::string>>;

Rows schedulerRows(const model::Snapshot& snap, const model::Topology& topology,
                   model::EntityRef entity);

} // namespace ft::views
