#pragma once
// Resolves --floor (a file, a generate: spec, or nothing for the bundled demo) to a Topology.
#include "model/scenario.h"
#include "model/topology.h"

#include <expected>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ft::app {

std::expected<std::shared_ptr<const model::Topology>, std::string>
loadTopology(const std::string& floorArg, const std::string& inventory = {});

// --inventory: an inventory (a CSV or TSV export) as a floor spec, with the rack model and the
// rest from --floor when one is given. `columns` gets which header fed which column.
std::expected<model::FloorSpec, std::string>
loadInventory(const std::string& inventory, const std::string& floorArg,
              nlohmann::ordered_json* summary = nullptr);

// A bundled scenario by name (pump-failure, leak, ...) or a scenario file by path, with its
// targets resolved on `topology`. Empty name: no scenario.
std::expected<model::Scenario, std::string> loadScenario(const std::string& nameOrPath,
                                                         const model::Topology& topology);
std::vector<std::string> bundledScenarios();

} // namespace ft::app
