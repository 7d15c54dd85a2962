#pragma once
// Headless runs: --describe, --for, --dump-snapshot. No GUI objects; exit code returned.
#include "command_line.h"
#include "model/sim_core.h"
#include "session.h"

#include <nlohmann/json.hpp>

namespace ft::app {

nlohmann::ordered_json describeFloor(const model::Topology& topology);
// With a baseline (--compare): per channel also a `diff` array, snapshot − baseline, null where
// either side has no measured value.
nlohmann::ordered_json snapshotToJson(const model::Topology& topology,
                                      const model::Snapshot& snapshot,
                                      const model::Snapshot* baseline = nullptr);
int runHeadless(const Options& options, Session& session);

} // namespace ft::app
