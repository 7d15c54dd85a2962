#pragma once
// LifecycleLayer: a cap over every rack in its lifecycle state's colour, split to show progress
// through the current stage (bright: done, dark: to go). Two boxes per rack in one BoxSet.
// Owned by FloorView; UI thread only.
#include "model/snapshot.h"
#include "model/topology.h"
#include "views/box_set.h"
#include "views/layer.h"

class vtkRenderer;

namespace ft::views {

// The layer's panel (lifecycle_board.cpp).
QWidget* makeLifecycleBoard(FloorView& view);

class LifecycleLayer final : public Layer {
public:
    static constexpr LayerInfo kInfo{
        "lifecycle",
        "Lifecycle states (bring-up, validation)",
        false,
        {"Lifecycle board", "lifecycleDock", PanelPlace::Bottom, &makeLifecycleBoard}};
    LifecycleLayer(const model::Topology& topology, vtkRenderer* renderer);
    void update(const model::Snapshot& snapshot) override;

    // Show only racks in one lifecycle state (the others fade, with the layer on or off);
    // nothing: show all.
    void setFilter(std::optional<model::RackLifecycle> state);
    std::optional<model::RackLifecycle> filter() const { return m_filter; }

    // Racks the filter leaves out fade; with the layer on, racks out of production are dimmed
    // so the ones at work stand out.
    void shadeRacks(const model::Snapshot& snapshot, std::vector<float>& emphasis) const override;
    // The state key with counts, top right (also while a filter is set); stage on rack labels.
    void drawHud(const ImGuiOverlay& overlay, const HudInput& in,
                 HudColumns& columns) const override;
    int rackLabelUrgency(const HudInput& in, model::EntityId rack) const override;
    void decorateRackLabel(const HudInput& in, model::EntityId rack,
                           std::string& label) const override;

private:
    void applyVisibility(bool visible) override;

    const model::Topology& m_topology;
    BoxSet m_caps;
    std::optional<model::RackLifecycle> m_filter;
};

} // namespace ft::views
