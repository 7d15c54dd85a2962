#pragma once
// The layers floortwin knows, in the order the layers panel, the View menu and the HUD show
// them. Adding a layer: a folder under views/layers/ (a Layer subclass with a static `kInfo`,
// its panel if it has one) and its entry in layer_registry.cpp. Any thread (the list is built once,
// then only read).
#include "layer.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

class vtkRenderer;

namespace ft::views {

struct LayerType {
    const LayerInfo& info;
    std::function<std::unique_ptr<Layer>(const model::Topology&, vtkRenderer*)> create;
};

const std::vector<LayerType>& layerTypes();
// Adds a layer type after the built-in ones (plug-ins, tests); views built afterwards have it.
// Call before any FloorView exists, from the UI thread.
void registerLayerType(LayerType type);
const LayerInfo* findLayerInfo(std::string_view id);
// "racks", "thermal", ...: the ids --layers accepts.
std::vector<std::string> layerIds();

} // namespace ft::views
