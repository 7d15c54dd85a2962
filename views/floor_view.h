#pragma once
// FloorView: the 3D floor in a Qt 6 QOpenGLWidget. VTK renders through a
// vtkGenericOpenGLRenderWindow sharing the widget's context; the ImGui HUD draws after VTK in
// the same context. A frame timer takes the newest snapshot (never waiting on the sim thread)
// and renders only when something changed. UI thread only.
#include "camera_rig.h"
#include "color_scale.h"
#include "floor_picker.h"
#include "history_window.h"
#include "hud.h"
#include "imgui_overlay.h"
#include "kept_picture.h"
#include "layer.h"
#include "model/incident_tracker.h"
#include "model/snapshot.h"
#include "model/topology.h"
#include "model/transport.h"
#include "tile_mask.h"

#include <QElapsedTimer>
#include <QOpenGLWidget>
#include <QTimer>
#include <array>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>
#include <vtkNew.h>
#include <vtkSmartPointer.h>

class vtkGenericOpenGLRenderWindow;
class vtkRenderer;

namespace ft::views {

class FloorScene;
class TransportObserver;

// How the view suits its room: standard; dim for a dark NOC (the scene and HUD toned down);
// bright for a lit room or a projector (a lighter floor, opaque panels).
enum class DisplayTheme : std::uint8_t { Standard, Dim, Bright };
inline constexpr std::array<std::string_view, 3> kThemeNames{"standard", "dim", "bright"};

class FloorView : public QOpenGLWidget {
    Q_OBJECT
public:
    using SnapshotSource = std::function<std::shared_ptr<const model::Snapshot>()>;

    FloorView(std::shared_ptr<const model::Topology> topology, SnapshotSource source,
              QWidget* parent = nullptr);
    // The OpenGL format VTK needs (3.2 core, no multisampling); call before QApplication.
    static void setDefaultSurfaceFormat();
    ~FloorView() override;

    void setMetric(model::ChannelId channel);
    // With telemetry: draw never-measured entities with the model's values, marked modelled
    // (desaturated, hatched), instead of as no data.
    void setFillModelled(bool fill);
    bool fillModelled() const { return m_fillModelled; }
    model::ChannelId colourMetric() const { return m_metric; }

    // The layers, built from the registry (layer_registry.h) in its order. Each layer owns its
    // visibility; switch it here so the view reframes and the panels hear of it.
    const std::vector<std::unique_ptr<Layer>>& layers() const { return m_layers; }
    Layer* layer(std::string_view id) const;
    template <class L> L* layer() const {
        for (const auto& l : m_layers)
            if (auto* typed = dynamic_cast<L*>(l.get())) return typed;
        return nullptr;
    }
    // False when there is no layer of that id.
    bool setLayerVisible(std::string_view id, bool visible);
    bool layerVisible(std::string_view id) const;
    // Video: each frame is `ms` after the last for animation, whatever the wall clock says
    // (nothing: the wall clock).
    void setFrameStep(std::optional<double> ms) { m_frameStep = ms; }
    // Off for screenshots and tests: flow bands stand still so pictures are repeatable.
    void setAnimated(bool animated) { m_animated = animated; }
    void setSelection(std::optional<model::EntityRef> selection);
    std::optional<model::EntityRef> selection() const { return m_selection; }
    void setSourceLabel(const std::string& label) { m_sourceLabel = label; }
    // --compare: the baseline at a moment of what is shown (null outside it); `label` names it.
    // The floor then shows A − B of the metric. An empty source ends the comparison.
    using BaselineSource =
        std::function<std::shared_ptr<const model::Snapshot>(model::TimeNs time)>;
    void setBaselineSource(BaselineSource source, const std::string& label);
    const std::shared_ptr<const model::Snapshot>& baseline() const { return m_baseline; }
    // The one history every chart reads its past from: a replay's recording (none in a live
    // run, whose charts hold what they saw). Panels back-fill from it after a seek, on opening
    // and while playing backwards.
    void setHistorySource(ChannelHistory past) { m_past = std::move(past); }
    bool hasPast() const { return static_cast<bool>(m_past); }
    // A channel's values at `time` as the view shows them (with telemetry, NaN where nothing was
    // measured, unless fillModelled); false where there is no past (a live run, outside the
    // recording).
    bool pastChannel(model::ChannelId channel, model::TimeNs time, std::vector<float>& out) const {
        return m_past && m_past(channel, time, m_fillModelled, out);
    }
    // A replay's incidents, worked out over the whole recording: shown as they stood at each
    // moment. Without them the snapshots' own (the simulator's) are shown.
    void setIncidents(std::shared_ptr<const model::IncidentList> incidents);
    // The incidents as of the snapshot shown (null: nobody tracks them).
    const model::IncidentList* incidents() const;
    // Live sources' health for the HUD, asked once per frame.
    // The same, for panels (empty without live sources).
    std::vector<SourceStatus> sourceStatuses() const {
        return m_sourceStatus ? m_sourceStatus() : std::vector<SourceStatus>{};
    }
    void setSourceStatus(std::function<std::vector<SourceStatus>()> provider) {
        m_sourceStatus = std::move(provider);
    }
    // Where speed, pause and live/replay are read (nothing: 1x, running, live); the view
    // repaints when they change.
    void setTransport(model::Transport* transport);
    model::Transport* transport() const { return m_transport; }
    // The HUD over the scene (benchmarks measure the scene alone with it off).
    void setHudVisible(bool on) {
        m_hudVisible = on;
        update();
    }
    void setShowFrameStats(bool show) { m_showFrameStats = show; }
    void setWallMode(bool wall);
    void setTheme(DisplayTheme theme);
    DisplayTheme theme() const { return m_theme; }
    // The palette every colour scale uses (ColorScale::setPalette), recolouring now.
    void setPalette(Palette palette);
    // Benchmarks: glFinish at the end of every frame so timings cover the GPU work.
    void setFinishEachFrame(bool finish) { m_finishEachFrame = finish; }
    // Between frames where nothing but the moving pipes changed (same camera, same data, same
    // size), the still scene's picture is reused and only the pipes are drawn over it. On by
    // default; off for comparisons. stillRenders() counts the frames that drew the still scene.
    void setReuseStillScene(bool reuse);
    int stillRenders() const { return m_stillRenders; }
    // Frames that copied the kept picture back under the pipes.
    int stillRestores() const { return m_stillRestores; }
    // The HUD baked into the kept picture where no moving pipe runs (with the still scene and
    // the HUD both reused): such frames composite the HUD only on the tiles under pipes.
    // hudBakes() counts the bakes, hudTilesComposited() the tiles the last frame composited.
    int hudBakes() const { return m_hudBakes; }
    std::size_t hudTilesComposited() const { return m_overlay.compositedTiles(); }
    // Between frames whose HUD inputs are the same (snapshot, incidents, layer settings, camera,
    // still scene, size, mouse, hover, selection, theme, caption, sources' health, transport)
    // while something moves on screen, the last HUD is drawn again without being built; it is built
    // anew at least every half second (setHudMaxAgeMs: tests on slow builds). On by default; off
    // for comparisons. hudBuilds() counts the frames that built it.
    void setReuseHud(bool reuse) {
        m_reuseHud = reuse;
        update();
    }
    int hudBuilds() const { return m_hudBuilds; }
    // Each built HUD is rasterised once into a texture and composited from it (on the screen
    // tiles it covers) until the next build; off rasterises it straight into every frame, for
    // comparisons. hudTiles(): the tiles (ImGuiOverlay::kTile pixels) the last one covers.
    void setHudTexture(bool texture) {
        m_overlay.setCached(texture);
        m_hudKey = {};
        update();
    }
    std::size_t hudTiles() const { return m_overlay.coveredTiles(); }
    // What the last frame's HUD cost, ms (with setFinishEachFrame: its rasterising too).
    double lastHudMs() const { return m_lastHudMs; }
    void setHudMaxAgeMs(double ms) { m_hudMaxAgeMs = ms; }
    // Benchmarks: hide every actor and the HUD, leaving the same pipeline drawing an empty scene.
    void setSceneVisible(bool visible);

    // A tour's or demo's caption over the scene (empty: none).
    void setCaption(std::string caption) {
        if (caption == m_caption) return;
        m_caption = std::move(caption);
        update();
    }
    const std::string& caption() const { return m_caption; }
    // Something the operator must know about what is being kept (a recording that lost
    // snapshots or stopped), shown in the title block in the warning colour (empty: none).
    void setWarning(std::string warning) {
        if (warning == m_warning) return;
        m_warning = std::move(warning);
        update();
    }
    const std::string& warning() const { return m_warning; }
    // Wall mode: the alarm the camera is framing, shown large in the alarm panel.
    void setFocus(std::optional<HudFocus> focus) {
        if (focus == m_focus) return;
        m_focus = std::move(focus);
        update();
    }
    const std::optional<HudFocus>& focus() const { return m_focus; }
    // The HUD's panels as drawn in the last frame (logical pixels), for framing beside them.
    const std::vector<ScreenRect>& hudPanels() const { return m_panels; }
    // Where the HUD drew the live sources' lines last (a click there: sourcesRequested()).
    const ScreenRect& sourcesArea() const { return m_sourcesArea; }

    // A wall's screen: draw this part of one wide view (nothing: the whole view). aspect(),
    // the framings and the labels then work in the whole wall's terms.
    // `place`: the screen's place on the wall, for laying out the HUD over the whole wall
    // (HudInput::WallPlace, its lengths in screens: a 2x1 wall is 2 screens wide).
    void setSlice(std::optional<ViewSlice> slice, std::optional<HudInput::WallPlace> place = {});
    const std::optional<ViewSlice>& slice() const { return m_slice; }

    void resetCamera();
    void topView();
    // The camera resetCamera() would place (the floor and what the visible layers add to it).
    CameraRig overviewRig() const;
    double aspect() const;
    void frameSelection();
    const CameraRig& camera() const { return m_rig; }
    void setCamera(const CameraRig& rig);

    std::shared_ptr<const model::Snapshot> snapshot() const { return m_snapshot; }
    const model::Topology& topology() const { return *m_topology; }
    // Pulls the newest snapshot now (the frame timer does this on its own).
    void refreshSnapshot();
    // World point -> widget coordinates (logical pixels), or nothing when behind the camera.
    std::optional<ScreenPoint> project(const model::Vec3& world) const;
    std::optional<PickResult> pickAt(double x, double y) const;

signals:
    void layerVisibilityChanged(const QString& id, bool visible);
    void selectionChanged();
    void snapshotChanged();
    void firstFrame();
    void fillModelledChanged(bool fill);
    // The live sources' lines in the HUD were clicked: show their mapping report.
    void sourcesRequested();
    // Someone used the mouse or keyboard on the view (a tour pauses for them).
    void userInteracted();
    // A frame was drawn; what it cost (ms, finished when frame figures are shown).
    void frameDrawn(double ms);

protected:
    void initializeGL() override;
    void resizeGL(int w, int h) override;
    void paintGL() override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void leaveEvent(QEvent* e) override;

private:
    void applyCamera();
    void updateProjection() const;
    float hudScaleFor() const;
    void applyHudScale();
    // Brings every layer up to the current snapshot (after a change that alters what they draw).
    void refreshLayers();
    void updateEmphasis();

    std::shared_ptr<const model::Topology> m_topology;
    SnapshotSource m_source;
    std::shared_ptr<const model::IncidentList> m_allIncidents;
    model::IncidentList m_incidentsNow; // m_allIncidents at the snapshot's time
    BaselineSource m_baselineSource;
    ChannelHistory m_past;
    std::string m_baselineLabel;
    std::shared_ptr<const model::Snapshot> m_baseline;
    void updateBaseline();
    std::shared_ptr<const model::Snapshot> m_snapshot;
    bool m_fillModelled = false;
    FloorSummary m_summary;

    vtkSmartPointer<vtkGenericOpenGLRenderWindow> m_renderWindow;
    vtkNew<vtkRenderer> m_renderer;     // the still scene (layer 0)
    vtkNew<vtkRenderer> m_flowRenderer; // pipes whose bands move every frame (layer 1)
    // The still scene's last picture (colour and depth), and what it was drawn from; beside it
    // the same with the HUD baked in where no pipe runs.
    std::unique_ptr<KeptPicture> m_kept;
    vtkMTimeType m_stillStamp = 0;
    int m_stillW = 0, m_stillH = 0;
    bool m_stillValid = false, m_reuseStill = true, m_stillBroken = false;
    int m_keptGeneration = 0; // moves with every picture kept
    // What VTK's render framebuffer holds as it is: a kept picture, and over it the pipes of
    // one shape (FlowPipes::shapeGeneration) or none. A frame that shows that picture with no
    // pipes, or draws the same pipes over it again, need not copy the picture back: the pipes
    // are opaque, drawn where they were at the depth they wrote (their pass tests with LEQUAL),
    // so they cover exactly their last frame's pixels with this frame's colours and bands.
    enum class Holds { Nothing, Still, Baked };
    Holds m_renderHolds = Holds::Nothing;
    std::optional<std::uint64_t> m_heldPipes;
    int m_heldBake = -1; // which bake (m_hudBakes) a held Baked picture is
    int m_stillRenders = 0, m_stillRestores = 0;
    // The HUD baked into the kept picture on the tiles no pipe touches: which picture, HUD,
    // pipes and size it holds. While all hold, a frame that reuses the HUD restores the baked
    // picture and composites the HUD only on the tiles under pipes (m_pipeTiles).
    struct Bake {
        int kept = -1, hudBuild = -1;
        std::uint64_t pipes = 0;
        int width = 0, height = 0;
        bool operator==(const Bake&) const = default;
    };
    Bake m_bake;
    Bake bakeNow(int pw, int ph) const;
    int m_hudBakes = 0;
    bool m_restoreBaked = false; // this frame's restore: the baked picture
    TileMask m_pipeTiles;        // the tiles the visible pipes may touch
    Bake m_pipeTilesFor;         // kept picture (camera), pipes and size of m_pipeTiles
    void bakeHud(int pw, int ph);
    bool flowsVisible() const;
    void renderScene(int pw, int ph);
    vtkMTimeType stillStamp() const;
    bool keepStill(int pw, int ph);
    void restoreStill();
    std::unique_ptr<FloorScene> m_scene;
    std::vector<std::unique_ptr<Layer>> m_layers;
    ImGuiOverlay m_overlay;
    bool m_glReady = false;
    bool m_firstFrameSent = false;

    CameraRig m_rig;
    std::optional<ViewSlice> m_slice;
    std::optional<HudInput::WallPlace> m_wallPlace;
    bool m_cameraSet = false;               // the user (or a caller) placed the camera: keep it
    QSize m_fittedFor;                      // widget size the automatic overview was framed for
    std::vector<ScreenRect> m_fittedPanels; // and the HUD's panels it kept clear of
    bool m_refitting = false;
    bool panelsMovedSinceFit() const;
    model::ChannelId m_metric{model::ch::GpuTemperature};
    bool m_animated = true;
    std::optional<double> m_frameStep;
    std::optional<model::EntityRef> m_selection;
    std::optional<model::EntityRef> m_hover;
    std::string m_sourceLabel = "SIMULATOR";
    bool m_hudVisible = true;
    std::function<std::vector<SourceStatus>()> m_sourceStatus;
    model::Transport* m_transport = nullptr;
    std::unique_ptr<TransportObserver> m_transportObserver;
    bool m_showFrameStats = true;
    bool m_wall = false;
    DisplayTheme m_theme = DisplayTheme::Standard;
    float m_hudScale = 1.0f; // the overlay's font scale (wall: grows with the screen)
    bool m_finishEachFrame = false;
    bool m_sceneVisible = true;

    QTimer m_frameTimer;
    QElapsedTimer m_clock;
    double m_lastFrameAt = 0;
    std::deque<double> m_frameTimes; // ms between recent frames
    std::deque<double> m_frameCosts; // ms each recent frame took to draw
    std::string m_caption;
    std::string m_warning;
    std::optional<HudFocus> m_focus;
    std::vector<ScreenRect> m_panels;
    ScreenRect m_sourcesArea; // the HUD's source lines, as last drawn
    QPoint m_pressPos, m_lastPos;
    Qt::MouseButton m_dragButton = Qt::NoButton;
    bool m_dragged = false;
    QPointF m_mouse{-1, -1};
    // What the last built HUD was drawn from: equal keys draw the same HUD.
    struct HudKey {
        std::uint64_t generation = 0; // m_hudGeneration
        std::vector<bool> layersShown;
        vtkMTimeType scene = 0; // the camera and every visible prop (stillStamp)
        int width = 0, height = 0;
        double dpr = 1;
        QPointF mouse;
        std::optional<model::EntityRef> hover, selection;
        std::string sourceLabel, caption, warning;
        std::optional<HudFocus> focus;
        std::vector<SourceStatus> sources;
        double speed = 1;
        bool paused = false, replay = false, reverse = false, fillModelled = false, wall = false;
        std::optional<double> frameMs, redrawsPerSecond;
        DisplayTheme theme = DisplayTheme::Standard;
        float hudScale = 1;
        // The panels the last build drew, which claim their space before any label: labels
        // settle with them (one build after the panels do).
        std::vector<ScreenRect> panels;
        bool operator==(const HudKey&) const = default;
    };
    HudKey m_hudKey;
    // The frame's steps (floor_view_frame.cpp).
    void animateLayers(double dt);
    void updateFrameStats(double now);
    HudInput hudInputNow();
    HudKey hudKeyOf(const HudInput& in, double dpr) const;
    void buildHud(HudInput& in, HudKey key, bool same, double now, double dpr);
    // Moves with every new snapshot, incident list and layer refresh (metric, palette,
    // baseline, a layer's own settings): what the HUD shows of them.
    std::uint64_t m_hudGeneration = 0;
    bool m_reuseHud = true;
    double m_hudMaxAgeMs = 500;
    int m_hudBuilds = 0;
    double m_lastHudMs = 0;
    int m_hudSameBuilds = 0;    // builds in a row from m_hudKey (ImGui's sizes settle in two)
    double m_hudBuiltAt = -1e9; // m_clock ms
    double m_hudDt = 0;         // ms since the last build, for ImGui's clock
    // The frame-cost figure shown, held for half a second (a figure that changes every frame
    // would rebuild the HUD every frame, and nobody reads it at 60 Hz).
    std::optional<double> m_shownFrameMs, m_shownRedraws;
    double m_shownStatsAt = -1e9;
    mutable double m_projection[16] = {};
    mutable bool m_projectionValid = false;
};

} // namespace ft::views
