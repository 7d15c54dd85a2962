#pragma once
// The heads-up display drawn with Dear ImGui over the floor: source and time, floor summary,
// alarm list, the colour legend, row and rack labels, and the hover tooltip. Pure drawing from
// the inputs it is given; UI thread, between ImGuiOverlay::beginFrame and endFrame.
#include "color_scale.h"
#include "model/snapshot.h"
#include "model/topology.h"
#include "screen_labels.h"
#include "source_status.h"
#include "value_format.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ft::views {

class ImGuiOverlay;
class Layer;

// The floor's totals. With telemetry they are taken over measured entities only (a modelled GPU
// is never the hottest one, a modelled rack adds no power); `telemetry` says so, and NaN means
// nothing was measured.
struct FloorSummary {
    bool telemetry = false;
    double itPowerMw = 0; // racks' IT power (the demo) or measured GPU power (telemetry)
    float hottestGpuC = 0;
    model::EntityId hottestGpu = 0;
    float meanGpuUtilization = 0;
    std::size_t gpusMeasured = 0, racksMeasured = 0, racksStale = 0;
    // The GPUs the floor knows are there: its inventory's hosts, or the installed trays' GPUs
    // (a rack's slots that hold nothing are not GPUs that went unmeasured).
    std::size_t gpusKnown = 0;
    std::size_t criticalAlarms = 0;
    std::size_t warningAlarms = 0;
};

FloorSummary summarize(const model::Topology& topology, const model::Snapshot& snapshot);

struct ScreenPoint {
    float x = 0, y = 0;
};

// A HUD panel's place on the screen (logical pixels), as drawn in the last frame.
struct ScreenRect {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool overlaps(const ScreenRect& o) const {
        return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1;
    }
    bool operator==(const ScreenRect&) const = default;
};

// The alarm the camera is framing (wall mode), shown large with its cause.
struct HudFocus {
    bool critical = true;
    std::string title;     // "Low coolant flow"
    std::string detail;    // "8 racks on CDU A1 · worst A05 2.1 L/min (limit 4.0) · for 3 min"
    int index = 1, of = 1; // the cause shown of the critical causes
    bool operator==(const HudFocus&) const = default;
};

struct HudInput {
    const model::Topology* topology = nullptr;
    const model::Snapshot* snapshot = nullptr;
    // Every layer, in registry order: each draws its own legend, panels and label badges.
    const std::vector<std::unique_ptr<Layer>>* layers = nullptr;
    const FloorSummary* summary = nullptr;
    std::string sourceLabel;
    double speed = 1.0;
    bool paused = false;
    bool replay = false;
    bool reverse = false; // a replay playing backwards
    // What a frame costs to draw (render and HUD, finished), shown when set (not in screenshots:
    // they must be repeatable); the redraw rate beside it, as frames are drawn on demand.
    std::optional<double> frameMs;
    std::optional<double> redrawsPerSecond;
    std::string caption;           // a tour's or demo's caption, large at the foot of the view
    std::string warning;           // FloorView::setWarning
    std::optional<HudFocus> focus; // wall mode: the alarm the camera flew to
    // The incidents as of this snapshot (the sim's own, or a replay's worked out from it).
    const model::IncidentList* incidents = nullptr;
    std::vector<ScreenRect>* panels = nullptr; // out: every panel drawn this frame
    // out: where the live sources' lines are (a click there opens their mapping report); empty
    // when none are drawn.
    ScreenRect* sourcesArea = nullptr;
    // Display theme: the scene dimmed by this much (a dark NOC), panels this opaque.
    float dimScene = 0;
    float panelAlpha = 0.82f;
    float hudAlpha = 1.0f;
    std::optional<model::EntityRef> hover;
    std::optional<model::EntityRef> selection;
    float width = 0, height = 0;
    double cameraDistance = 0;
    bool wall = false;
    float wallScale = 1.0f;    // wall mode: sizes relative to a 1080-line wall (2 on a 4K wall)
    bool fillModelled = false; // telemetry gaps drawn with the model's values
    std::vector<SourceStatus> sources; // live sources and their health (empty: simulator/replay)
    std::function<std::optional<ScreenPoint>(const model::Vec3&)> project;
    // The frame's label space: every label over the scene asks it first (drawHud sets it).
    ScreenLabels* labels = nullptr;
    // A wall's slice screen: the HUD is laid out over the whole wall — each panel shows on the
    // screen at its corner or edge of the wall (the title on the top left screen, the alarms on
    // the top right, the legends bottom left, the events bottom right, the caption at the foot
    // of the middle), the labels over the scene on every screen.
    // The labels are laid out in the whole wall's pixels, the same on every screen, so that a
    // label is drawn once, where it falls, even across a seam.
    struct WallPlace {
        int col = 0, row = 0, cols = 1, rows = 1;
        // This screen's top left corner in the wall's pixels, the wall's size, and the step from
        // one screen to the next (a screen and a bezel), all in this screen's pixels.
        float offsetX = 0, offsetY = 0, wallWidth = 0, wallHeight = 0, strideX = 0, strideY = 0;
        bool operator==(const WallPlace&) const = default;
    };
    std::optional<WallPlace> wallPlace;
};

void drawHud(const ImGuiOverlay& overlay, const HudInput& in);

// For a HUD panel whose figures are made of `channel`: with telemetry, a line saying how much of
// it was measured, or that it has no data ("no data: `what` not measured"). Returns whether the
// panel should show its figures (always in the demo; when measured, or modelled on request).
bool drawCoverageNote(const HudInput& in, model::ChannelId channel, const char* what);

} // namespace ft::views
