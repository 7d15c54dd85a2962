#pragma once
// --check-source SOURCE: one page of a source read onto the floor through the mapping rules,
// and what became of each metric family: the channels it feeds and how its samples were placed
// (by UUID, by host and index), why it is ignored, or why its samples were not placed (an
// unknown host with the floor's nearest names, a GPU past its tray, no rule, an invalid
// reading) — what an operator checks before pointing the twin at an exporter.
#include "command_line.h"
#include "model/topology.h"

#include <expected>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ft::app {

// SOURCE is KIND=TARGET for a kind of source whose registry entry has a check (scrape=URL: one
// GET, with --token-file/--user/--ca-file as for --source; slurm=...: one read of the
// scheduler), or the path of a saved exposition page; the floor is --floor / --inventory's.
std::expected<nlohmann::json, std::string> checkSource(const Options& o);

// The checks of the source registry's kinds (SourceKind::check), with the kind's mapping presets.
// scrape=URL: one page through the mapping rules onto the floor, per metric family.
std::expected<nlohmann::json, std::string> checkScrape(const std::string& target,
                                                       std::string_view presets, const Options& o,
                                                       const model::Topology& topology);
// slurm=...: one read of the scheduler placed on the floor: each node's state and where it went,
// the nodes the floor lacks (with its nearest host names), the jobs running and where.
std::expected<nlohmann::json, std::string> checkSlurm(const std::string& target,
                                                      std::string_view presets, const Options& o,
                                                      const model::Topology& topology);

// alertmanager=URL: one read of the alerts and silences, each alert with its state, severity and
// where it landed (or why it names nothing on this floor).
std::expected<nlohmann::json, std::string> checkAlertmanager(const std::string& target,
                                                             std::string_view presets,
                                                             const Options& o,
                                                             const model::Topology& topology);

} // namespace ft::app
