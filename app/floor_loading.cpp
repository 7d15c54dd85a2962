#include "floor_loading.h"

#include "importers/floor_file.h"
#include "importers/inventory_csv.h"
#include "importers/scenario_file.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace ft::app {

namespace {

std::expected<model::FloorSpec, importers::Error> floorSpecOf(const std::string& floorArg) {
    if (!floorArg.empty()) return importers::loadFloor(floorArg);
    QFile file(":/floors/demo.json");
    if (!file.open(QIODevice::ReadOnly))
        return std::unexpected(
            importers::Error{"the bundled demo floor is missing from this build", {}, 0, 0, {}});
    const QByteArray bytes = file.readAll();
    return importers::parseFloorFile(
        std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
        "demo.json (bundled)");
}

} // namespace

std::expected<model::FloorSpec, std::string> loadInventory(const std::string& inventory,
                                                           const std::string& floorArg,
                                                           nlohmann::ordered_json* summary) {
    if (inventory.starts_with("netbox=") || inventory.starts_with("netbox-dump="))
        return std::unexpected("--inventory " + inventory.substr(0, inventory.find('=')) +
                               "=: NetBox inventories are not built yet; export the devices as CSV "
                               "and give that file");
    model::FloorSpec base; // the NVL72 defaults, or --floor's rack model, fabric, cooling, storage
    if (!floorArg.empty()) {
        auto spec = importers::loadFloor(floorArg);
        if (!spec) return std::unexpected(spec.error().toString());
        base = *spec;
    }
    auto inv = importers::loadInventoryCsv(inventory, base);
    if (!inv) return std::unexpected(inv.error().toString());
    if (summary) {
        (*summary)["inventory"] = inventory;
        (*summary)["hosts"] = inv->hosts;
        (*summary)["racks"] = inv->racks;
        (*summary)["rows"] = inv->rows;
        (*summary)["halls"] = inv->halls;
        nlohmann::ordered_json columns = nlohmann::ordered_json::object();
        for (const auto& [column, header] : inv->columns)
            columns[column] = header;
        (*summary)["columns"] = columns;
    }
    return inv->spec;
}

std::expected<std::shared_ptr<const model::Topology>, std::string>
loadTopology(const std::string& floorArg, const std::string& inventory) {
    std::expected<model::FloorSpec, importers::Error> spec;
    if (!inventory.empty()) {
        auto fromInventory = loadInventory(inventory, floorArg);
        if (!fromInventory) return std::unexpected(fromInventory.error());
        auto topology = model::Topology::build(*fromInventory);
        if (!topology) return std::unexpected(inventory + ": " + topology.error());
        return std::make_shared<const model::Topology>(std::move(*topology));
    }
    spec = floorSpecOf(floorArg);
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
