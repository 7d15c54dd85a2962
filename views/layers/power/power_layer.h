#pragma once
// PowerLayer: where the power comes from. Each row's two busways overhead (A over the fronts, B
// over the backs), a drop from each to every rack it feeds, coloured by the busway's load
// (tripped: dark red, still); on every rack a bar of its draw against its rated power with
// Racky's budget as a white bar across it (amber while Racky caps, red when the rack is dark);
// and, top right, the floor's power figures: IT and AC power, busway loads, racks capping,
// redundancy lost. Owned by FloorView; UI thread only.
#include "views/box_set.h"
#include "views/flow_pipes.h"
#include "views/layer.h"

class vtkRenderer;

namespace ft::views {

// The layer's panel (power_panel.cpp).
QWidget* makePowerPanel(FloorView& view);

class PowerLayer final : public Layer {
public:
    static constexpr LayerInfo kInfo{"power",
                                     "Rack power (busways, budgets, capping)",
                                     false,
                                     {"Power", "powerDock", PanelPlace::Side, &makePowerPanel}};
    PowerLayer(const model::Topology& topology, vtkRenderer* renderer);
    void update(const model::Snapshot& snapshot) override;
    bool animates() const override { return true; }
    void animate(double simSeconds, double wallSeconds) override;
    // The drops to the racks show on small floors, or on big ones when the camera is close.
    void updateDetail(const CameraView& camera) override;
    void drawHud(const ImGuiOverlay& overlay, const HudInput& in,
                 HudColumns& columns) const override;
    void decorateRackLabel(const HudInput& in, model::EntityId rack,
                           std::string& label) const override;

    // Busway load colours: green to 70 %, amber to 95 %, red over.
    static Rgb loadColor(float percent);

private:
    void applyVisibility(bool visible) override;

    const model::Topology& m_topology;
    FlowPipes m_feeds; // per busway: the run along the row
    FlowPipes m_drops; // per busway: one drop per rack
    bool m_showDrops = true;
    BoxSet m_bars;                        // per rack: the draw, then the budget marker
    std::vector<std::size_t> m_firstDrop; // per busway: its first drop pipe
};

} // namespace ft::views
