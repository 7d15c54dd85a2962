#pragma once
// Floors the model tests run on: a generated floor of N racks, and the bundled demo floor.
#include "importers/floor_file.h"
#include "model/topology.h"

#include <QtGlobal>

#include <memory>

namespace ft::testing {

inline std::shared_ptr<const model::Topology> floorOf(const model::FloorSpec& spec) {
    auto t = model::Topology::build(spec);
    if (!t) qFatal("%s", t.error().c_str());
    return std::make_shared<const model::Topology>(std::move(*t));
}

inline std::shared_ptr<const model::Topology> floorOf(int racks) { return floorOf(importers::generateFloor(racks)); }

inline std::shared_ptr<const model::Topology> demoFloor() {
    auto spec = importers::loadFloor(FT_SOURCE_DIR "/resources/floors/demo.json");
    if (!spec) qFatal("%s", spec.error().toString().c_str());
    return floorOf(*spec);
}

} // namespace ft::testing
