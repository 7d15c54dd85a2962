#pragma once
// NvlinkLayer: the scale-up domain inside each rack. At floor scale every rack's block of
// NVLink switch trays glows with the rack's NVLink load (grey when NVLink is disabled, red when
// its links log errors). At rack scale (a rack, or something in it, is selected) the rack's
// GPU <-> switch-tray links are drawn in front of it, one thin tube per link, coloured by the
// bytes on it, with moving bands for the traffic and flashing when a link is degraded or down.
// Owned by FloorView; UI thread only.
#include "model/snapshot.h"
#include "model/topology.h"
#include "views/box_set.h"
#include "views/flow_pipes.h"
#include "views/layer.h"

#include <optional>

class vtkRenderer;

namespace ft::views {

class NvlinkLayer final : public Layer {
public:
    static constexpr LayerInfo kInfo{"nvlink", "NVLink (switch trays; links of the selected rack)"};
    NvlinkLayer(const model::Topology& topology, vtkRenderer* renderer);
    // Rack scale: whatever is selected inside a rack shows that rack's links one by one.
    void setSelection(std::optional<model::EntityRef> selection) override;
    // The rack whose links are drawn one by one (nothing: floor scale only).
    void setFocusRack(std::optional<model::EntityId> rack);
    std::optional<model::EntityId> focusRack() const { return m_focus; }
    void update(const model::Snapshot& snapshot) override;
    bool animates() const override { return true; }
    void animate(double simSeconds, double wallSeconds) override;
    void drawHud(const ImGuiOverlay& overlay, const HudInput& in,
                 HudColumns& columns) const override;

    static Rgb loadColor(float fraction); // 0..1 of the rack's NVLink bandwidth
    static constexpr Rgb kDisabled{72, 74, 84};
    static constexpr float kAisleReach =
        0.7f; // how far in front of the rack the switch nodes stand

private:
    void applyVisibility(bool visible) override;
    void buildLinks();

    const model::Topology& m_topology;
    std::optional<model::EntityId> m_focus;
    BoxSet m_glow; // one per rack
    FlowPipes m_links;
    std::vector<float> m_lastErrors; // per rack, to flash while errors grow
    std::uint64_t m_detailStamp = ~0ULL;
    bool m_paintedFill = false;
};

} // namespace ft::views
