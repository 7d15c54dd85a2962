#pragma once
// Floors the model tests run on (a generated floor of N racks, the bundled demo floor) and the
// bundled scenarios resolved on them.
#include "importers/floor/floor_file.h"
#include "importers/floor/scenario_file.h"
#include "model/topology.h"
#include "test_paths.h"

#include <QFile>
#include <QString>
#include <QtGlobal>
#include <memory>

namespace ft::testing {

inline std::shared_ptr<const model::Topology> floorOf(const model::FloorSpec& spec) {
    auto t = model::Topology::build(spec);
    if (!t) qFatal("%s", t.error().c_str());
    return std::make_shared<const model::Topology>(std::move(*t));
}

inline std::shared_ptr<const model::Topology> floorOf(int racks) {
    return floorOf(importers::generateFloor(racks));
}

inline std::shared_ptr<const model::Topology> demoFloor() {
    auto spec = importers::loadFloor(FT_SOURCE_PATH("/resources/floors/demo.json"));
    if (!spec) qFatal("%s", spec.error().toString().c_str());
    return floorOf(*spec);
}

// A scenario from resources/scenarios by name, its targets resolved on `topology`.
inline model::Scenario bundledScenario(const char* name, const model::Topology& topology) {
    QFile f(QString(FT_SOURCE_PATH("/resources/scenarios/%1.json")).arg(name));
    if (!f.open(QIODevice::ReadOnly)) qFatal("missing scenario %s", name);
    const QByteArray bytes = f.readAll();
    auto scenario = importers::parseScenarioFile(
        std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), name,
        topology);
    if (!scenario) qFatal("%s", scenario.error().toString().c_str());
    return *scenario;
}

} // namespace ft::testing
