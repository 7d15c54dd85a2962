#pragma once
// StorageLayer: where data flows. A bar on every rack (height: dataset read rate, colour: cache
// hit ratio), the object store of each region beside the floor as one block per tier (height:
// bytes), and animated flows whose width follows the rate: rows to the local store, tier to tier
// as objects age, and the local store to the remote region (coloured by the migration backlog,
// flashing when it is large). Owned by FloorView; UI thread only.
#include "model/snapshot.h"
#include "model/topology.h"
#include "views/box_set.h"
#include "views/flow_pipes.h"
#include "views/layer.h"

class vtkRenderer;

namespace ft::views {

// The layer's panel (storage_panel.cpp).
QWidget* makeStoragePanel(FloorView& view);

class StorageLayer final : public Layer {
public:
    static constexpr LayerInfo kInfo{
        "storage",
        "Storage flows (caches, tiers, regions)",
        false,
        {"Storage", "storageDock", PanelPlace::Side, &makeStoragePanel}};
    StorageLayer(const model::Topology& topology, vtkRenderer* renderer);
    void update(const model::Snapshot& snapshot) override;
    bool animates() const override { return true; }
    void animate(double simSeconds, double wallSeconds) override;
    // The stores stand beside the floor: the overview frames them too.
    // Both regions' stores, which grow with the hall (m_scale).
    OverviewExtent overviewExtent() const override { return {14.0f * m_scale, false}; }
    // Labels on the stores and the storage figures, top right.
    void drawHud(const ImGuiOverlay& overlay, const HudInput& in,
                 HudColumns& columns) const override;

    // Where a region's tier block stands (for labels): centre of its top face.
    model::Vec3 tierTop(model::EntityId region, int tier) const;
    static Rgb hitRatioColor(float percent);
    static Rgb tierColor(int tier);

private:
    // update()'s parts: the racks' read bars, the tier blocks, the flows between them.
    void updateBars(const model::Snapshot& s);
    void updateTiers(const model::Snapshot& s);
    void updateFlows(const model::Snapshot& s);
    void applyVisibility(bool visible) override;
    model::Vec3 tierBase(model::EntityId region, int tier) const;

    const model::Topology& m_topology;
    BoxSet m_bars;  // one per rack
    BoxSet m_tiers; // regions x tiers
    FlowPipes m_flows;
    std::vector<float> m_tierHeight;
    float m_scale = 1; // the stores' size and spacing, grown with the hall
};

} // namespace ft::views
