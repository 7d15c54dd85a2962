#pragma once
// Scenario files (JSON) -> model::Scenario, with targets resolved against a floor. Errors name
// the file, line, column and key. Pure function over bytes.
#include "error.h"
#include "model/scenario.h"
#include "model/topology.h"

#include <expected>
#include <string>
#include <string_view>

namespace ft::importers {

std::expected<model::Scenario, Error>
parseScenarioFile(std::string_view text, const std::string& file, const model::Topology& topology);

} // namespace ft::importers
