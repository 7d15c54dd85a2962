#pragma once
// Layer: one domain drawn over the floor (racks, cooling, lifecycle, storage, NVLink, rails...).
// The lifecycle follows rviz2's Display: a layer is built once per floor (its VTK actors added
// to the renderer), shown or hidden, fed every new snapshot, animated every frame while it
// animates, told when the camera moves, asked for its HUD panels and for what a ray hits.
// A layer owns its visibility: the layers panel, menus, settings and --layers all go through
// FloorView::setLayerVisible and observe FloorView::layerVisibilityChanged.
// New layers register in layer_registry.cpp. Owned by FloorView; UI thread only.
#include "camera_rig.h"
#include "floor_picker.h"
#include "model/snapshot.h"
#include "model/topology.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

class QWidget;

namespace ft::views {

class FloorView;
class ImGuiOverlay;
struct HudInput;

// Where the window docks a layer's panel: beside the floor (tabbed with the inspector) or
// under it (tabbed with the timeline).
enum class PanelPlace : std::uint8_t { Side, Bottom };

// A layer's panel: the window builds a dock for each layer that has one, in the registry's
// order, and brings it forward when the layer is switched on. `make` returns the panel, which
// follows the view (its snapshots, selection and history) by itself.
struct LayerPanel {
    std::string_view title;    // the dock's title, e.g. "Cooling"
    std::string_view dockName; // the dock's object name, which the saved window layout keys on
    PanelPlace place = PanelPlace::Side;
    QWidget* (*make)(FloorView& view) = nullptr; // null: the layer has no panel
};

struct LayerInfo {
    std::string_view id;    // --layers name and settings key, e.g. "thermal"
    std::string_view title; // layers panel and View menu, e.g. "Cooling loops (CDUs, pipes, flow)"
    bool visibleByDefault = false;
    LayerPanel panel = {};
};

// What the camera shows, in one form for every layer's level of detail.
struct CameraView {
    const CameraRig& rig;
    double pixelsPerMetre = 1; // screen pixels per metre at the focal distance
};

// Room a layer needs in the automatic overview beyond the racks.
struct OverviewExtent {
    float extraX = 0;    // metres past the floor's +x edge (things standing beside the floor)
    bool fabric = false; // switches hanging above the floor
};

// Where layers stack their HUD panels: the right column grows down from under the alarm
// list, the left column grows up from the bottom edge.
struct HudColumns {
    float rightTop = 0;
    float leftBottom = 0;
};

class Layer {
public:
    explicit Layer(const LayerInfo& info) : m_info(info), m_visible(info.visibleByDefault) {}
    virtual ~Layer() = default;
    Layer(const Layer&) = delete;
    Layer& operator=(const Layer&) = delete;

    const LayerInfo& info() const { return m_info; }
    std::string_view id() const { return m_info.id; }

    void setVisible(bool visible) {
        m_visible = visible;
        applyVisibility(visible);
    }
    bool visible() const { return m_visible; }
    // Shows the actors again as the layer's visibility says (after a caller hid every prop).
    void reapplyVisibility() { applyVisibility(m_visible); }

    // A new snapshot: recolour, resize, move (VTK arrays updated in place).
    virtual void update(const model::Snapshot& snapshot) = 0;
    // Whether animate() moves anything, so the view keeps drawing frames while the layer shows.
    virtual bool animates() const { return false; }
    // Every frame: `simSeconds` of simulated travel, `wallSeconds` of real time (alarm flashes
    // keep flashing while paused). Shader uniforms only, no array uploads.
    virtual void animate(double simSeconds, double wallSeconds) {}
    // The camera moved: level of detail.
    virtual void updateDetail(const CameraView& camera) {}
    // The channel that colours the floor changed.
    virtual void setMetric(model::ChannelId channel) {}
    // A baseline to compare with (--compare): the snapshot of the baseline at the moment of the
    // next update, or null. A layer that can show A − B does so while one is set.
    virtual void setBaseline(const std::shared_ptr<const model::Snapshot>& baseline,
                             const std::string& label) {}
    // The selection changed (a layer may draw more of what is selected).
    virtual void setSelection(std::optional<model::EntityRef> selection) {}
    virtual OverviewExtent overviewExtent() const { return {}; }

    // Per-rack brightness other layers draw with (1 = normal): a layer may dim racks it wants
    // out of the way; `emphasis` is empty (all 1) or one value per rack.
    virtual void shadeRacks(const model::Snapshot& snapshot, std::vector<float>& emphasis) const {}
    // ...and a layer that draws the racks uses it.
    virtual void setRackEmphasis(const std::vector<float>& emphasis) {}

    // The HUD: legends and panels stacked in `columns`, labels over the scene. Called for every
    // layer, visible or not (a filter can need its key while the layer is off).
    virtual void drawHud(const ImGuiOverlay& overlay, const HudInput& in,
                         HudColumns& columns) const {}
    // Text appended to a rack's name label when the camera is close.
    virtual void decorateRackLabel(const HudInput& in, model::EntityId rack,
                                   std::string& label) const {}
    // How much a rack's label matters to this layer (0: no more than its name): labels that
    // matter more ask for their screen space first.
    virtual int rackLabelUrgency(const HudInput& in, model::EntityId rack) const { return 0; }

    // What `ray` hits of this layer's own geometry, and where along the ray (0 = origin).
    virtual std::optional<std::pair<PickResult, float>> pick(const Ray& ray) const {
        return std::nullopt;
    }

    // With telemetry, draw never-measured entities with the model's values (marked modelled)
    // instead of as no data. The view calls update() again after changing it.
    void setFillModelled(bool fill) { m_fillModelled = fill; }
    bool fillModelled() const { return m_fillModelled; }

    // The view calls this when a layer's own settings change what other layers draw.
    void setChangedCallback(std::function<void()> changed) { m_changed = std::move(changed); }

protected:
    virtual void applyVisibility(bool visible) = 0;
    void changed() const {
        if (m_changed) m_changed();
    }

private:
    const LayerInfo& m_info;
    bool m_visible;
    bool m_fillModelled = false;
    std::function<void()> m_changed;
};

} // namespace ft::views
