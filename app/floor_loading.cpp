#include "floor_loading.h"

#include "importers/floor_file.h"

#include <QFile>

namespace ft::app {

std::expected<std::shared_ptr<const model::Topology>, std::string> loadTopology(const std::string& floorArg) {
    std::expected<model::FloorSpec, importers::Error> spec;
    if (floorArg.empty()) {
        QFile file(":/floors/demo.json");
        if (!file.open(QIODevice::ReadOnly)) return std::unexpected("the bundled demo floor is missing from this build");
        const QByteArray bytes = file.readAll();
        spec = importers::parseFloorFile(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
                                         "demo.json (bundled)");
    } else {
        spec = importers::loadFloor(floorArg);
    }
    if (!spec) return std::unexpected(spec.error().toString());
    auto topology = model::Topology::build(*spec);
    if (!topology) return std::unexpected((floorArg.empty() ? std::string("demo floor") : floorArg) + ": " + topology.error());
    return std::make_shared<const model::Topology>(std::move(*topology));
}

} // namespace ft::app
