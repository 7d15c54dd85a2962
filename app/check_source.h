#pragma once
// --check-source SOURCE: one page of a source read onto the floor through the mapping rules,
// and what became of each metric family: the channels it feeds and how its samples were placed
// (by UUID, by host and index), why it is ignored, or why its samples were not placed (an
// unknown host with the floor's nearest names, a GPU past its tray, no rule, an invalid
// reading) — what an operator checks before pointing the twin at an exporter.
#include "command_line.h"

#include <expected>
#include <nlohmann/json.hpp>
#include <string>

namespace ft::app {

// SOURCE is scrape=URL (one GET, with --token-file/--user/--ca-file as for --source) or the
// path of a saved exposition page; the floor is --floor / --inventory's.
std::expected<nlohmann::json, std::string> checkSource(const Options& o);

} // namespace ft::app
