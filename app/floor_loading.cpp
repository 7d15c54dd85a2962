#include "floor_loading.h"

#include "importers/floor/floor_file.h"
#include "importers/floor/inventory_csv.h"
#include "importers/floor/scenario_file.h"
#include "importers/floor/story_file.h"
#include "importers/net/netbox_client.h"
#include "importers/net/secrets.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <chrono>
#include <iostream>
#include <optional>

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
                                                           nlohmann::ordered_json* summary,
                                                           const InventoryAccess& access) {
    model::FloorSpec base; // the NVL72 defaults, or --floor's rack model, fabric, cooling, storage
    if (!floorArg.empty()) {
        auto spec = importers::loadFloor(floorArg);
        if (!spec) return std::unexpected(spec.error().toString());
        base = *spec;
    }
    std::expected<importers::Inventory, importers::Error> inv;
    std::optional<importers::NetboxReport> netbox;
    if (inventory.starts_with("netbox=") || inventory.starts_with("netbox-dump=")) {
        const bool dump = inventory.starts_with("netbox-dump=");
        const std::string where = inventory.substr(inventory.find('=') + 1);
        if (where.empty())
            return std::unexpected("--inventory " + inventory +
                                   ": expected netbox=https://netbox.example or netbox-dump=DIR");
        std::expected<importers::NetboxObjects, importers::Error> objects;
        if (dump) {
            objects = importers::loadNetboxDump(where);
        } else {
            importers::NetboxFetchOptions fetch;
            if (!access.tokenFile.empty()) {
                auto token = importers::readSecretFile(access.tokenFile, "--token-file");
                if (!token) return std::unexpected(token.error());
                if (!token->warning.empty())
                    std::cerr << "floortwin: warning: " << token->warning << "\n";
                fetch.token = std::move(token->value);
            }
            fetch.http.caFile = access.caFile;
            fetch.http.insecureSkipVerify = access.insecure;
            fetch.http.timeout = std::chrono::milliseconds(30000);
            fetch.progress = access.progress;
            fetch.cancel = access.cancel;
            // The HTTP client needs a Qt application; a command-line run may not have one yet.
            std::optional<QCoreApplication> app;
            static int argc = 1;
            static char name[] = "floortwin";
            static char* argv[] = {name, nullptr};
            if (!QCoreApplication::instance()) app.emplace(argc, argv);
            objects = importers::fetchNetbox(where, fetch);
        }
        if (!objects) return std::unexpected(objects.error().toString());
        netbox.emplace();
        inv = importers::netboxInventory(*objects, base, "netbox", &*netbox);
    } else {
        inv = importers::loadInventoryCsv(inventory, base);
    }
    if (!inv) return std::unexpected(inv.error().toString());
    if (summary) {
        (*summary)["inventory"] = inventory;
        (*summary)["hosts"] = inv->hosts;
        (*summary)["racks"] = inv->racks;
        (*summary)["rows"] = inv->rows;
        (*summary)["halls"] = inv->halls;
        if (netbox) {
            (*summary)["devices"] = netbox->devices;
            (*summary)["devices_not_compute"] = netbox->ignoredByRole;
            (*summary)["devices_unracked"] = netbox->unracked;
            (*summary)["racks_on_floor_plan"] = netbox->racksPlaced;
        } else {
            nlohmann::ordered_json columns = nlohmann::ordered_json::object();
            for (const auto& [column, header] : inv->columns)
                columns[column] = header;
            (*summary)["columns"] = columns;
        }
    }
    return inv->spec;
}

std::expected<std::shared_ptr<const model::Topology>, std::string>
loadTopology(const std::string& floorArg, const std::string& inventory,
             const InventoryAccess& access) {
    std::expected<model::FloorSpec, importers::Error> spec;
    if (!inventory.empty()) {
        auto fromInventory = loadInventory(inventory, floorArg, nullptr, access);
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

std::expected<std::string, std::string> scenarioText(const std::string& nameOrPath) {
    const bool isPath = nameOrPath.find('/') != std::string::npos || nameOrPath.ends_with(".json");
    QFile file(isPath ? QString::fromStdString(nameOrPath)
                      : QString(":/scenarios/%1.json").arg(QString::fromStdString(nameOrPath)));
    if (!file.open(QIODevice::ReadOnly)) return std::unexpected(nameOrPath + ": cannot open");
    const QByteArray bytes = file.readAll();
    return std::string(bytes.constData(), static_cast<std::size_t>(bytes.size()));
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

namespace {

// A tour's or demo's text and the name errors give it: a bundled one by name, or a file.
std::expected<std::pair<std::string, std::string>, std::string>
readStory(const std::string& nameOrPath) {
    const bool isPath = nameOrPath.find('/') != std::string::npos || nameOrPath.ends_with(".json");
    QString path = QString::fromStdString(nameOrPath);
    if (!isPath) {
        path = QString(":/tours/%1.json").arg(QString::fromStdString(nameOrPath));
        if (!QFile::exists(path))
            path = QString(":/demos/%1.json").arg(QString::fromStdString(nameOrPath));
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (isPath) return std::unexpected(nameOrPath + ": cannot open the tour or demo file");
        std::string known;
        for (const auto* dir : {":/tours", ":/demos"})
            for (const auto& f : QDir(dir).entryList({"*.json"}, QDir::Files, QDir::Name))
                known +=
                    (known.empty() ? "" : ", ") + QFileInfo(f).completeBaseName().toStdString();
        return std::unexpected("unknown tour or demo '" + nameOrPath + "' (bundled: " + known +
                               "; or give a file path)");
    }
    const QByteArray bytes = file.readAll();
    return std::pair{bytes.toStdString(), isPath ? nameOrPath : nameOrPath + ".json (bundled)"};
}

} // namespace

std::expected<importers::Story, std::string> loadStory(const std::string& nameOrPath,
                                                       const model::Topology& topology,
                                                       const std::vector<std::string>& layerIds) {
    auto text = readStory(nameOrPath);
    if (!text) return std::unexpected(text.error());
    auto story = importers::parseStoryFile(text->first, text->second, topology, layerIds);
    if (!story) return std::unexpected(story.error().toString());
    return *story;
}

std::optional<std::string> storyRecording(const std::string& nameOrPath) {
    auto text = readStory(nameOrPath);
    if (!text) return std::nullopt;
    return importers::storyRecording(text->first, text->second);
}

} // namespace ft::app
