#pragma once
// ThermalLayer: the cooling plant drawn over the floor. From every CDU a supply and a return
// riser climb to headers that run overhead along its racks, with drops into each rack. Pipes
// are coloured by coolant temperature on a fixed scale and carry moving bands
// (shaders/flow_*.glsl) whose speed follows the flow in that pipe; pipes of racks in a cooling
// alarm flash. Two actors: risers and headers always, rack drops only when the camera is close
// enough to see them (level of detail). Arrays change at snapshot rate; animation is uniforms.
// Owned by FloorView; UI thread only.
#include "model/snapshot.h"
#include "model/topology.h"
#include "views/color_scale.h"
#include "views/flow_pipes.h"
#include "views/layer.h"

#include <array>
#include <memory>
#include <vector>

class vtkRenderer;

namespace ft::views {

// The layer's panel (cooling_panel.cpp).
QWidget* makeCoolingPanel(FloorView& view);

class ThermalLayer final : public Layer {
public:
    static constexpr LayerInfo kInfo{
        "thermal",
        "Cooling loops (CDUs, pipes, flow)",
        false,
        {"Cooling", "coolingDock", PanelPlace::Side, &makeCoolingPanel}};
    ThermalLayer(const model::Topology& topology, vtkRenderer* renderer);
    ~ThermalLayer() override;

    // Colours, flow rates and alarms from a snapshot.
    void update(const model::Snapshot& snapshot) override;
    bool animates() const override { return true; }
    // Moves the flow bands by `simSeconds` of coolant travel; `wallSeconds` drives the alarm
    // flash so it stays visible when paused. Only shader uniforms change: no array uploads.
    void animate(double simSeconds, double wallSeconds) override;
    // Level of detail: rack drops show when the camera is within reach of them.
    void updateDetail(const CameraView& camera) override;
    // The coolant scale, over the metric legend; ΔT and heat on the rack labels.
    void drawHud(const ImGuiOverlay& overlay, const HudInput& in,
                 HudColumns& columns) const override;
    void decorateRackLabel(const HudInput& in, model::EntityId rack,
                           std::string& label) const override;

    // Coolant colours: deep blue (cold) through cyan and amber to red (hot), fixed °C bounds.
    static Rgb coolantColor(float celsius);
    static constexpr float kScaleMin = 30.0f;
    static constexpr float kScaleMax = 70.0f;

private:
    float shownFlow(const model::Snapshot& s, model::ChannelId channel, model::EntityId e,
                    float flow) const;
    struct Segment {
        enum Kind : std::uint8_t { Riser, Header, Drop };
        Kind kind = Header;
        bool supply = true;
        model::EntityId cdu = 0;
        model::EntityId rack = 0; // drops: the rack they feed
    };
    void applyVisibility(bool visible) override;
    void build();

    const model::Topology& m_topology;
    bool m_showDrops = true;
    float m_designRackFlow = 1;
    // Risers and headers (always), and the rack drops (a level of detail on big floors); each
    // pipe's Segment, by the pipe's index in its FlowPipes.
    std::unique_ptr<FlowPipes> m_mains, m_drops;
    std::vector<Segment> m_mainSegments, m_dropSegments;
};

} // namespace ft::views
