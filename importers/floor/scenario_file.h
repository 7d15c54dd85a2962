#pragma once
// Scenario files (JSON) -> model::Scenario, with targets resolved against a floor. Errors name
// the file, line, column and key. Pure function over bytes.
#include "importers/formats/error.h"
#include "importers/formats/json_document.h"
#include "model/scenario.h"
#include "model/topology.h"

#include <expected>
#include <string>
#include <string_view>

namespace ft::importers {

std::expected<model::Scenario, Error>
parseScenarioFile(std::string_view text, const std::string& file, const model::Topology& topology);

// One event object ({"at", "action", "target", "value", "value2", "note"}); `path` names it in
// errors ("events[3]"). Without needAt the event takes its time from elsewhere (a demo's step)
// and must not carry one.
std::expected<model::ScenarioEvent, Error>
parseScenarioEvent(const JsonValue& item, const std::string& path, const std::string& file,
                   const model::Topology& topology, bool needAt);

} // namespace ft::importers
