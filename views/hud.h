#pragma once
// The heads-up display drawn with Dear ImGui over the floor: source and time, floor summary,
// alarm list, the colour legend, row and rack labels, and the hover tooltip. Pure drawing from
// the inputs it is given; UI thread, between ImGuiOverlay::beginFrame and endFrame.
#include "source_status.h"
#include "color_scale.h"
#include "model/snapshot.h"
#include "model/topology.h"

#include <functional>
#include <optional>
#include <string>

namespace ft::views {

class ImGuiOverlay;
class RackLayer;
class StorageLayer;

struct FloorSummary {
    double itPowerMw = 0;
    float hottestGpuC = 0;
    model::EntityId hottestGpu = 0;
    float meanGpuUtilization = 0;
    std::size_t criticalAlarms = 0;
    std::size_t warningAlarms = 0;
};

FloorSummary summarize(const model::Topology& topology, const model::Snapshot& snapshot);

struct ScreenPoint {
    float x = 0, y = 0;
};

struct HudInput {
    const model::Topology* topology = nullptr;
    const model::Snapshot* snapshot = nullptr;
    const RackLayer* racks = nullptr;
    const FloorSummary* summary = nullptr;
    std::string sourceLabel;
    double speed = 1.0;
    bool paused = false;
    bool replay = false;
    std::optional<double> frameMs; // shown when set (not in screenshots: they must be repeatable)
    std::optional<model::EntityRef> hover;
    std::optional<model::EntityRef> selection;
    float width = 0, height = 0;
    double cameraDistance = 0;
    bool wall = false;
    bool thermal = false; // the cooling layer is on: coolant legend and ΔT badges
    bool lifecycle = false; // the lifecycle layer is on: state legend and stage badges
    const StorageLayer* storage = nullptr; // the storage layer, when on: store labels and figures
    bool rails = false;  // the rail layer is on: fabric panel with utilization scale and per-rail load
    bool nvlink = false; // the NVLink layer is on: NVLink figures and glow scale
    std::vector<SourceStatus> sources; // live sources and their health (empty: simulator/replay)
    std::optional<model::RackLifecycle> lifecycleFilter;
    std::function<std::optional<ScreenPoint>(const model::Vec3&)> project;
};

void drawHud(const ImGuiOverlay& overlay, const HudInput& in);

// "74.2 °C", "1.84 kW": a value with its channel's unit, for labels and the inspector.
std::string formatValue(float value, model::ChannelId channel);

} // namespace ft::views
