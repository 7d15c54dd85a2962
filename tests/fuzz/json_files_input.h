#pragma once
// One fuzz input for the JSON file formats people write by hand: floor files, scenario files,
// tours and demos. The first byte picks the parser (so one corpus and one dictionary serve all
// three), the rest is the file. Scenarios and stories are read against the demo floor; a floor
// that parses is built only when it is small enough to build quickly (a valid floor of a million
// racks is not a bug, just slow). Every error must carry a message, and every parsed story must
// answer its own questions (times, the scenario it makes) without crashing. Shared by the
// libFuzzer target and the regression test that replays tests/data/fuzz-regressions.
#include "importers/floor/floor_file.h"
#include "importers/floor/scenario_file.h"
#include "importers/floor/story_file.h"
#include "model/topology.h"
#include "support/test_paths.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace ft::fuzz {

inline const ft::model::Topology& demoFloor() {
    static const std::unique_ptr<ft::model::Topology> floor = [] {
        std::ifstream in(FT_SOURCE_PATH("/resources/floors/demo.json"));
        std::stringstream text;
        text << in.rdbuf();
        auto spec = ft::importers::parseFloorFile(text.str(), "demo.json");
        if (!spec) std::abort();
        auto t = ft::model::Topology::build(*spec);
        if (!t) std::abort();
        return std::make_unique<ft::model::Topology>(std::move(*t));
    }();
    return *floor;
}

inline const std::vector<std::string> kLayers{"racks",     "thermal", "rails", "nvlink",
                                              "lifecycle", "storage", "power"};

inline void mustSay(const ft::importers::Error& e) {
    if (e.toString().empty()) std::abort(); // an error says what is wrong
}

} // namespace ft::fuzz

namespace ft::fuzz {

inline void fuzzJsonFiles(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return;
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    switch (data[0] % 3) {
    case 0: {
        auto spec = ft::importers::parseFloorFile(text, "fuzz.json");
        if (!spec) {
            mustSay(spec.error());
            break;
        }
        double racks = 0;
        for (const auto& row : spec->rows)
            racks += row.racks;
        if (racks <= 64 && spec->rack.computeTrays <= 32 && spec->rack.gpusPerTray <= 8)
            (void)ft::model::Topology::build(*spec);
        break;
    }
    case 1: {
        auto scenario = ft::importers::parseScenarioFile(text, "fuzz.json", demoFloor());
        if (!scenario) mustSay(scenario.error());
        break;
    }
    default: {
        auto story = ft::importers::parseStoryFile(text, "fuzz.json", demoFloor(), kLayers);
        if (!story) {
            mustSay(story.error());
            break;
        }
        for (double t : {0.0, 1.0, 1e3, 1e9})
            (void)story->simSecondsAt(t), (void)story->stepAt(t);
        (void)story->scenario();
        (void)ft::importers::storyRecording(text, "fuzz.json");
        break;
    }
    }
}

} // namespace ft::fuzz
