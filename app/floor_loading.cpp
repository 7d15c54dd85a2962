#include "floor_loading.h"

#include "importers/floor_file.h"
#include "importers/scenario_file.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace ft::app {

std::expected<std::shared_ptr<const model::Topology>, std::string>
loadTopology(const std::string& floorArg) {
    std::expected<model::FloorSpec, importers::Error> spec;
    if (floorArg.empty()) {
        QFile file(":/floors/demo.json");
        if (!file.open(QIODevice::ReadOnly))
            return std::unexpected("the bundled demo floor is missing from this build");
        const QByteArray bytes = file.readAll();
        spec = importers::parseFloorFile(
            std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
            "demo.json (bundled)");
    } else {
        spec = importers::loadFloor(floorArg);
    }
    if (!spec) return std::unexpected(spec.error().toString());
    auto topology = model::Topology::build(*spec);
    if (!topology)
        return std::unexpected((floorArg.empty() ? std::string("demo floor") : floorArg) + ": " +
                               topology.error());
    return std::make_shared<const model::Topology>(std::move(*topology));
}

} // namespace ft::app

namespace ft::app {

std::vector<std::string> bundledScenarios() {
    std::vector<std::string> names;
    for (const QString& f : QDir(":/scenarios").entryList({"*.json"}, QDir::Files, QDir::Name))
        names.push_back(QFileInfo(f).completeBaseName().toStdString());
    return names;
}

std::expected<model::Scenario, std::string> loadScenario(const std::string& nameOrPath,
                                                         const model::Topology& topology) {
    if (nameOrPath.empty()) return model::Scenario{};
    const bool isPath = nameOrPath.find('/') != std::string::npos || nameOrPath.ends_with(".json");
    const QString path =
        isPath ? QString::fromStdString(nameOrPath)
               : QString(":/scenarios/%1.json").arg(QString::fromStdString(nameOrPath));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (isPath) return std::unexpected(nameOrPath + ": cannot open scenario file");
        std::string known;
        for (const auto& n : bundledScenarios())
            known += (known.empty() ? "" : ", ") + n;
        return std::unexpected("unknown scenario '" + nameOrPath + "' (bundled: " + known +
                               "; or give a file path)");
    }
    const QByteArray bytes = file.readAll();
    auto scenario = importers::parseScenarioFile(
        std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
        isPath ? nameOrPath : nameOrPath + ".json (bundled)", topology);
    if (!scenario) return std::unexpected(scenario.error().toString());
    return *scenario;
}

} // namespace ft::app
