#pragma once
// RailLayer: the Spectrum-X scale-out fabric over the floor. Leaf switches hang in one row per
// rail (planes stacked), spines above them, both coloured by utilization (dark red when down,
// amber when degraded). Link bundles run from the racks up to their rail's leaf and from the
// leaves up to the spines; colour and width show utilization, moving bands (shaders/flow_*.glsl)
// show direction and rate, and bundles with a link down flash red, with drops or a degraded
// link amber. Bundling follows FabricGeometry's level of detail. Per-link colours change when
// the snapshot's counters refresh (once a second), switch colours every snapshot.
// Owned by FloorView; UI thread only.
#include "model/snapshot.h"
#include "model/topology.h"
#include "views/box_set.h"
#include "views/fabric_geometry.h"
#include "views/flow_pipes.h"
#include "views/layer.h"

class vtkRenderer;

namespace ft::views {

// The layer's panel (fabric_panel.cpp).
QWidget* makeFabricPanel(FloorView& view);

class RailLayer final : public Layer {
public:
    static constexpr LayerInfo kInfo{"rails",
                                     "Rail fabric (leaves, spines, link bundles)",
                                     false,
                                     {"Fabric", "fabricDock", PanelPlace::Side, &makeFabricPanel}};
    RailLayer(const model::Topology& topology, vtkRenderer* renderer);
    void update(const model::Snapshot& snapshot) override;
    bool animates() const override { return true; }
    void animate(double simSeconds, double wallSeconds) override;
    // Rack-to-leaf bundles and per-leaf trunks show on small floors, or on big ones when the
    // camera is close; from afar a big floor shows one trunk per rail.
    void updateDetail(const CameraView& camera) override;
    // The switches hang above the floor: the overview frames them too.
    OverviewExtent overviewExtent() const override { return {0.0f, true}; }
    // Leaves, spines and bundles are picked as drawn.
    std::optional<std::pair<PickResult, float>> pick(const Ray& ray) const override;
    // Per-rail load cells, plane throughput, busiest switches and the utilization scale.
    void drawHud(const ImGuiOverlay& overlay, const HudInput& in,
                 HudColumns& columns) const override;
    const FabricGeometry& geometry() const { return m_geometry; }

    // Utilization colours (0-100 %), shared by the layer, the legend and the fabric panel.
    static Rgb utilizationColor(float percent);
    static constexpr Rgb kDown{150, 24, 24};

private:
    void applyVisibility(bool visible) override;

    const model::Topology& m_topology;
    FabricGeometry m_geometry;
    bool m_showAccess = true;
    BoxSet m_switches; // leaves, then spines
    FlowPipes m_access, m_trunks;
    FlowPipes m_railTrunks; // far view of a big floor: one per rail
    std::uint64_t m_detailStamp = ~0ULL;
    bool m_paintedFill = false;                     // fillModelled() the bundles were painted with
    std::vector<float> m_accessDrops, m_trunkDrops; // drop counters at the last refresh
};

} // namespace ft::views
