#pragma once
// The alert board (model/external_alert.h) as a recording keeps it: one JSON document per change
// in the alert_sets table, so a replay shows Alertmanager's list as it stood at every moment. The
// reader refuses nothing it can use: a document that does not parse is skipped with why.
#include "model/external_alert.h"

#include <expected>
#include <string>
#include <string_view>

namespace ft::importers {

std::string alertBoardToJson(const model::AlertBoard& board);
std::expected<model::AlertBoard, std::string> alertBoardFromJson(std::string_view text);

} // namespace ft::importers
