#pragma once
// Resolves --floor (a file, a generate: spec, or nothing for the bundled demo) to a Topology.
#include "importers/floor/story_file.h"
#include "model/scenario.h"
#include "model/topology.h"

#include <atomic>
#include <expected>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ft::app {

// How to reach a NetBox server for --inventory netbox=URL.
struct InventoryAccess {
    std::string tokenFile; // --token-file: the API token
    std::string caFile;    // --ca-file
    bool insecure = false; // --insecure
    std::function<void(double)> progress;
    const std::atomic<bool>* cancel = nullptr;
};

std::expected<std::shared_ptr<const model::Topology>, std::string>
loadTopology(const std::string& floorArg, const std::string& inventory = {},
             const InventoryAccess& access = {});

// --inventory: an inventory as a floor spec — a CSV or TSV export, netbox=URL (NetBox's REST
// API, token from --token-file) or netbox-dump=DIR (the same pages saved as files) — with the
// rack model and the rest from --floor when one is given. `summary` gets what was read (hosts,
// racks, rows, halls; which header fed which column; devices left out by role).
std::expected<model::FloorSpec, std::string>
loadInventory(const std::string& inventory, const std::string& floorArg,
              nlohmann::ordered_json* summary = nullptr, const InventoryAccess& access = {});

// A bundled scenario by name (pump-failure, leak, ...) or a scenario file by path, with its
// targets resolved on `topology`. Empty name: no scenario.
// The text of a scenario file (bundled by name, or a path), for a recording to keep.
std::expected<std::string, std::string> scenarioText(const std::string& nameOrPath);
std::expected<model::Scenario, std::string> loadScenario(const std::string& nameOrPath,
                                                         const model::Topology& topology);
std::vector<std::string> bundledScenarios();

// A tour or demo: a bundled one by name ("noc", "vera-rubin-floor") or a file, its names
// resolved on `topology` and `layerIds`.
std::expected<importers::Story, std::string> loadStory(const std::string& nameOrPath,
                                                       const model::Topology& topology,
                                                       const std::vector<std::string>& layerIds);
// The recording a demo plays, if it plays one (its floor is the recording's).
std::optional<std::string> storyRecording(const std::string& nameOrPath);

} // namespace ft::app
