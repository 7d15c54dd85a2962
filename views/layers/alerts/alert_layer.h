#pragma once
// AlertLayer: the floor's own alerting (Alertmanager) in place. Each rack with an alert on it,
// its trays or GPUs (and each CDU with one) gets a beacon over its top in the worst alert's colour
// — the pager's magenta for critical, yellow for warning, blue-grey for info — and grey when every
// alert on it is silenced or inhibited; its label names the alert. The HUD lists the alerts
// (critical first, then the oldest), muted ones with who silenced them and until when, and counts
// those that name nothing on this floor. Its panel (alerts_panel.h) shows Alertmanager's alerts
// beside the twin's own causes. Owned by FloorView; UI thread only.
#include "model/external_alert.h"
#include "model/snapshot.h"
#include "model/topology.h"
#include "views/box_set.h"
#include "views/layer.h"

#include <memory>
#include <string>
#include <vector>

class vtkRenderer;

namespace ft::views {

class AlertLayer final : public Layer {
public:
    static const LayerInfo kInfo;
    AlertLayer(const model::Topology& topology, vtkRenderer* renderer);
    void update(const model::Snapshot& snapshot) override;
    void drawHud(const ImGuiOverlay& overlay, const HudInput& in,
                 HudColumns& columns) const override;
    void decorateRackLabel(const HudInput& in, model::EntityId rack,
                           std::string& label) const override;
    int rackLabelUrgency(const HudInput& in, model::EntityId rack) const override;

    // The worst alert on each rack as the last update saw it (null: none).
    const model::ExternalAlert* rackAlert(model::EntityId rack) const;
    static Rgb severityColor(const model::ExternalAlert& alert);

private:
    void applyVisibility(bool visible) override;

    const model::Topology& m_topology;
    BoxSet m_beacons;
    std::shared_ptr<const model::AlertBoard> m_board; // as painted
    // Per rack, then per CDU: the worst alert (index into m_board, -1 none) and how many.
    std::vector<int> m_worst;
    std::vector<int> m_count;
};

// Which alert is worse: firing before muted, then critical, warning, info, then the older.
bool worseAlert(const model::ExternalAlert& a, const model::ExternalAlert& b);

} // namespace ft::views
