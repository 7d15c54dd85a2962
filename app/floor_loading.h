#pragma once
// Resolves --floor (a file, a generate: spec, or nothing for the bundled demo) to a Topology.
#include "model/topology.h"

#include <expected>
#include <memory>
#include <string>

namespace ft::app {

std::expected<std::shared_ptr<const model::Topology>, std::string> loadTopology(const std::string& floorArg);

} // namespace ft::app
