#include "layer_registry.h"

#include "layers/alerts/alert_layer.h"
#include "layers/jobs/job_layer.h"
#include "layers/lifecycle/lifecycle_layer.h"
#include "layers/nvlink/nvlink_layer.h"
#include "layers/power/power_layer.h"
#include "layers/racks/rack_layer.h"
#include "layers/rails/rail_layer.h"
#include "layers/storage/storage_layer.h"
#include "layers/thermal/thermal_layer.h"

namespace ft::views {

namespace {

template <class L> LayerType entry() {
    return {L::kInfo, [](const model::Topology& topology, vtkRenderer* renderer) {
                return std::make_unique<L>(topology, renderer);
            }};
}

std::vector<LayerType>& registry() {
    // Also the order of the HUD's panels and the layers panel's boxes.
    static std::vector<LayerType> types{
        entry<RackLayer>(),  entry<ThermalLayer>(), entry<StorageLayer>(),
        entry<RailLayer>(),  entry<NvlinkLayer>(),  entry<LifecycleLayer>(),
        entry<PowerLayer>(), entry<JobLayer>(),     entry<AlertLayer>(),
    };
    return types;
}

} // namespace

const std::vector<LayerType>& layerTypes() {
    return registry();
}

void registerLayerType(LayerType type) {
    registry().push_back(std::move(type));
}

const LayerInfo* findLayerInfo(std::string_view id) {
    for (const auto& t : layerTypes())
        if (t.info.id == id) return &t.info;
    return nullptr;
}

std::vector<std::string> layerIds() {
    std::vector<std::string> ids;
    for (const auto& t : layerTypes())
        ids.emplace_back(t.info.id);
    return ids;
}

} // namespace ft::views
