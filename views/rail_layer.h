#pragma once
// RailLayer: the Spectrum-X scale-out fabric over the floor. Leaf switches hang in one row per
// rail (planes stacked), spines above them, both coloured by utilization (dark red when down,
// amber when degraded). Link bundles run from the racks up to their rail's leaf and from the
// leaves up to the spines; colour and width show utilization, moving bands (shaders/flow_*.glsl)
// show direction and rate, and bundles with a link down flash red, with drops or a degraded
// link amber. Bundling follows FabricGeometry's level of detail. Per-link colours change when
// the snapshot's counters refresh (once a second), switch colours every snapshot.
// Owned by FloorView; UI thread only.
#include "box_set.h"
#include "fabric_geometry.h"
#include "flow_pipes.h"
#include "model/snapshot.h"
#include "model/topology.h"

class vtkRenderer;

namespace ft::views {

class RailLayer {
public:
    RailLayer(const model::Topology& topology, vtkRenderer* renderer);
    void setVisible(bool visible);
    bool visible() const { return m_visible; }
    void update(const model::Snapshot& snapshot);
    void animate(double simSeconds, double wallSeconds);
    // Rack-to-leaf bundles show on small floors, or on big ones when the camera is close.
    void updateDetail(double cameraDistance);
    const FabricGeometry& geometry() const { return m_geometry; }

    // Utilization colours (0-100 %), shared by the layer, the legend and the fabric panel.
    static Rgb utilizationColor(float percent);
    static constexpr Rgb kDown{150, 24, 24};

private:
    const model::Topology& m_topology;
    FabricGeometry m_geometry;
    bool m_visible = false;
    bool m_showAccess = true;
    BoxSet m_switches; // leaves, then spines
    FlowPipes m_access, m_trunks;
    std::uint64_t m_detailStamp = ~0ULL;
    std::vector<float> m_accessDrops, m_trunkDrops; // drop counters at the last refresh
};

} // namespace ft::views
