#include "floor_view.h"

#include "floor_scene.h"
#include "flow_pipes.h"
#include "layer_registry.h"
#include "model/incident_tracker.h"
#include "transport_observer.h"

#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QSurfaceFormat>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vtkAutoInit.h>
#include <vtkCallbackCommand.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkOpenGLState.h>
#include <vtkProp.h>
#include <vtkPropCollection.h>
#include <vtkRenderer.h>

// VTK's object factories for the rendering modules this view draws with (what CMake's
// vtk_module_autoinit would do through a header named by its absolute build path in every
// compile line, which no other clone's compiler cache could then serve).
VTK_MODULE_INIT(vtkRenderingOpenGL2);
VTK_MODULE_INIT(vtkRenderingUI);

namespace ft::views {

using model::EntityKind;

FloorView::FloorView(std::shared_ptr<const model::Topology> topology, SnapshotSource source,
                     QWidget* parent)
    : QOpenGLWidget(parent), m_topology(std::move(topology)), m_source(std::move(source)) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setMinimumSize(320, 200);
    m_renderWindow = vtkSmartPointer<vtkGenericOpenGLRenderWindow>::New();
    m_renderer->SetBackground(0.035, 0.045, 0.065);
    m_renderer->SetBackground2(0.10, 0.13, 0.18);
    m_renderer->GradientBackgroundOn();
    m_renderWindow->AddRenderer(m_renderer);
    // The moving pipes draw on a layer of their own over the still scene, with its camera and
    // its depth, so the still scene's picture can be reused while only they move.
    m_renderWindow->SetNumberOfLayers(2);
    m_flowRenderer->SetLayer(1);
    m_flowRenderer->PreserveColorBufferOn();
    m_flowRenderer->PreserveDepthBufferOn();
    m_flowRenderer->SetActiveCamera(m_renderer->GetActiveCamera());
    m_flowRenderer->InteractiveOff();
    m_renderWindow->AddRenderer(m_flowRenderer);
    FlowPipes::setFlowRenderer(m_renderer, m_flowRenderer);
    auto restore = vtkSmartPointer<vtkCallbackCommand>::New();
    restore->SetClientData(this);
    restore->SetCallback([](vtkObject*, unsigned long, void* client, void*) {
        auto* self = static_cast<FloorView*>(client);
        // Pipes pass the depth test where they are as deep as what is there: drawn again over
        // their own last frame, they cover it (restoreStill). Whole frames test alike, so
        // where two pipes meet the same one wins either way.
        self->m_renderWindow->GetState()->vtkglDepthFunc(GL_LEQUAL);
        if (!self->m_renderer->GetDraw()) self->restoreStill();
    });
    m_flowRenderer->AddObserver(vtkCommand::StartEvent, restore);
    m_renderWindow->SetMultiSamples(0);
    m_clock.start();

    // The scene and its layers need no GL context until the first render.
    m_scene = std::make_unique<FloorScene>(*m_topology, m_renderer);
    for (const auto& type : layerTypes()) {
        auto layer = type.create(*m_topology, m_renderer);
        layer->setMetric(m_metric);
        layer->setVisible(type.info.visibleByDefault);
        layer->setChangedCallback([this] { refreshLayers(); });
        m_layers.push_back(std::move(layer));
    }

    connect(&m_frameTimer, &QTimer::timeout, this, [this] {
        const auto before = m_snapshot;
        refreshSnapshot();
        // Render on demand: new data, or something moving to draw.
        const bool moving = m_animated && std::ranges::any_of(m_layers, [](const auto& l) {
                                return l->visible() && l->animates();
                            });
        if (m_snapshot != before || moving) update();
    });
    m_frameTimer.start(33);
}

void FloorView::setDefaultSurfaceFormat() {
    QSurfaceFormat format;
    format.setRenderableType(QSurfaceFormat::OpenGL);
    format.setVersion(3, 2);
    format.setProfile(QSurfaceFormat::CoreProfile);
    format.setDepthBufferSize(24);
    format.setStencilBufferSize(8);
    format.setAlphaBufferSize(8);
    format.setSamples(0); // no multisampling: llvmpipe pays for every sample
    format.setSwapInterval(0);
    QSurfaceFormat::setDefaultFormat(format);
}

FloorView::~FloorView() {
    makeCurrent();
    m_layers.clear();
    m_scene.reset();
    FlowPipes::setFlowRenderer(m_renderer, nullptr);
    if (m_kept) m_kept->release();
    if (m_glReady) m_renderWindow->ReleaseGraphicsResources(m_renderWindow);
    m_overlay.shutdown();
    doneCurrent();
}

void FloorView::initializeGL() {
    // VTK renders into the context Qt made current; it must never try to create or switch one.
    auto isCurrent = vtkSmartPointer<vtkCallbackCommand>::New();
    isCurrent->SetClientData(this);
    isCurrent->SetCallback([](vtkObject*, unsigned long, void* client, void* callData) {
        auto* self = static_cast<FloorView*>(client);
        *static_cast<bool*>(callData) = QOpenGLContext::currentContext() == self->context();
    });
    m_renderWindow->AddObserver(vtkCommand::WindowIsCurrentEvent, isCurrent);
    auto makeCurrentCb = vtkSmartPointer<vtkCallbackCommand>::New();
    makeCurrentCb->SetClientData(this);
    makeCurrentCb->SetCallback([](vtkObject*, unsigned long, void* client, void*) {
        auto* self = static_cast<FloorView*>(client);
        if (QOpenGLContext::currentContext() != self->context()) self->makeCurrent();
    });
    m_renderWindow->AddObserver(vtkCommand::WindowMakeCurrentEvent, makeCurrentCb);
    m_renderWindow->SetOwnContext(false);
    m_renderWindow->SetIsDirect(true);
    m_renderWindow->SetSupportsOpenGL(true);
    m_renderWindow->SetForceMaximumHardwareLineWidth(1);
    m_renderWindow->SetFrameBlitModeToBlitToCurrent();
    m_renderWindow->SetReadyForRendering(false);
    if (!m_renderWindow->InitializeFromCurrentContext()) {
        qWarning("floortwin: VTK could not use the OpenGL context (needs OpenGL 3.2 core)");
        return;
    }
    m_renderWindow->SetReadyForRendering(true);
    // A new context: nothing kept is in it.
    if (m_kept) m_kept->release();
    m_kept = std::make_unique<KeptPicture>(m_renderWindow);
    m_stillValid = false;
    m_renderHolds = Holds::Nothing;

    m_hudScale = hudScaleFor();
    m_overlay.initialize(m_hudScale);
    m_glReady = true;
    if (!m_cameraSet) resetCamera();
    applyCamera();
    refreshSnapshot();
}

void FloorView::resizeGL(int, int) {
    m_projectionValid = false;
    if (m_wall) {
        // Called with the context current: rebuild the fonts in place when the size calls for it.
        const float scale = hudScaleFor();
        if (std::abs(scale - m_hudScale) >= 0.05f) {
            m_hudScale = scale;
            m_overlay.shutdown();
            m_overlay.initialize(scale);
        }
    }
    if (!m_cameraSet)
        resetCamera();
    else
        applyCamera();
}

void FloorView::setBaselineSource(BaselineSource source, const std::string& label) {
    m_baselineSource = std::move(source);
    m_baselineLabel = label;
    updateBaseline();
    refreshLayers();
}

void FloorView::updateBaseline() {
    m_baseline = m_baselineSource && m_snapshot ? m_baselineSource(m_snapshot->time) : nullptr;
    for (const auto& l : m_layers)
        l->setBaseline(m_baseline, m_baselineLabel);
}

void FloorView::setIncidents(std::shared_ptr<const model::IncidentList> incidents) {
    m_allIncidents = std::move(incidents);
    if (m_allIncidents && m_snapshot)
        m_incidentsNow = model::incidentsAt(*m_allIncidents, m_snapshot->time);
    ++m_hudGeneration;
    emit snapshotChanged();
    update();
}

const model::IncidentList* FloorView::incidents() const {
    if (m_allIncidents) return &m_incidentsNow;
    return m_snapshot && m_snapshot->incidents ? m_snapshot->incidents.get() : nullptr;
}

void FloorView::refreshSnapshot() {
    auto latest = m_source ? m_source() : nullptr;
    if (!latest || latest == m_snapshot) return;
    m_snapshot = std::move(latest);
    ++m_hudGeneration;
    m_summary = summarize(*m_topology, *m_snapshot);
    if (m_allIncidents) m_incidentsNow = model::incidentsAt(*m_allIncidents, m_snapshot->time);
    if (m_baselineSource) updateBaseline();
    updateEmphasis();
    for (const auto& l : m_layers)
        l->update(*m_snapshot);
    emit snapshotChanged();
}

void FloorView::refreshLayers() {
    ++m_hudGeneration;
    if (m_snapshot) {
        updateEmphasis();
        for (const auto& l : m_layers)
            l->update(*m_snapshot);
    }
    update();
}

void FloorView::updateEmphasis() {
    if (!m_snapshot) return;
    std::vector<float> emphasis;
    for (const auto& l : m_layers)
        l->shadeRacks(*m_snapshot, emphasis);
    for (const auto& l : m_layers)
        l->setRackEmphasis(emphasis);
}

Layer* FloorView::layer(std::string_view id) const {
    for (const auto& l : m_layers)
        if (l->id() == id) return l.get();
    return nullptr;
}

bool FloorView::layerVisible(std::string_view id) const {
    const Layer* l = layer(id);
    return l && l->visible();
}

bool FloorView::setLayerVisible(std::string_view id, bool visible) {
    Layer* l = layer(id);
    if (!l) return false;
    if (l->visible() == visible) return true;
    l->setVisible(visible);
    emit layerVisibilityChanged(QString::fromUtf8(id.data(), static_cast<int>(id.size())), visible);
    if (!m_cameraSet) resetCamera(); // some layers stand beside or above the floor: frame them
    refreshLayers();                 // a layer can shade the racks
    return true;
}

void FloorView::paintGL() {
    if (!m_glReady) return;
    // Until someone moves the camera, the overview follows the widget's shape (docks and
    // layouts settle after the first resize).
    if (!m_cameraSet && (m_fittedFor != size() || panelsMovedSinceFit())) resetCamera();
    const double dpr = devicePixelRatioF();
    const int pw = static_cast<int>(width() * dpr), ph = static_cast<int>(height() * dpr);
    m_renderWindow->SetSize(pw, ph);
    m_renderWindow->SetPosition(0, 0);
    const double now = static_cast<double>(m_clock.nsecsElapsed()) / 1e6;
    const double dt = m_frameStep ? *m_frameStep : (m_lastFrameAt > 0 ? now - m_lastFrameAt : 16.0);
    QElapsedTimer cost;
    cost.start();
    m_lastFrameAt = now;
    const double speed = m_transport ? m_transport->speed() : 1.0;
    const bool paused = m_transport && m_transport->paused();
    const bool reverse = m_transport && m_transport->reverse();
    if (m_animated) {
        // Played backwards, the flow bands run backwards too.
        const double simSeconds =
            paused ? 0.0 : std::min(dt, 200.0) / 1000.0 * speed * (reverse ? -1.0 : 1.0);
        for (const auto& l : m_layers)
            if (l->visible() && l->animates()) l->animate(simSeconds, dt / 1000.0);
    }

    // The HUD's inputs, and whether the last HUD can be drawn again (decided before the scene:
    // a frame that reuses it may restore the kept picture with that HUD baked in).
    const bool hudShown = m_overlay.initialized() && m_snapshot && m_sceneVisible && m_hudVisible;
    HudInput in;
    HudKey key;
    bool same = false, reuse = false;
    if (hudShown) {
        in.topology = m_topology.get();
        in.snapshot = m_snapshot.get();
        in.incidents = incidents();
        in.layers = &m_layers;
        in.summary = &m_summary;
        in.sourceLabel = m_sourceLabel;
        in.speed = speed;
        in.paused = paused;
        in.replay = m_transport && m_transport->isReplay();
        in.reverse = reverse;
        in.fillModelled = m_fillModelled;
        if (!m_showFrameStats) {
            m_shownFrameMs.reset();
            m_shownRedraws.reset();
        } else if (m_frameCosts.size() > 2 && now - m_shownStatsAt >= 500) {
            std::vector<double> sorted(m_frameCosts.begin(), m_frameCosts.end());
            std::ranges::sort(sorted);
            m_shownFrameMs = sorted[sorted.size() / 2];
            const double span = std::accumulate(m_frameTimes.begin() + 1, m_frameTimes.end(), 0.0);
            m_shownRedraws.reset();
            if (span > 0)
                m_shownRedraws = 1000.0 * static_cast<double>(m_frameTimes.size() - 1) / span;
            m_shownStatsAt = now;
        }
        in.frameMs = m_shownFrameMs;
        in.redrawsPerSecond = m_shownRedraws;
        in.dimScene = m_theme == DisplayTheme::Dim ? 0.3f : 0.0f;
        in.hudAlpha = m_theme == DisplayTheme::Dim ? 0.82f : 1.0f;
        in.panelAlpha = m_theme == DisplayTheme::Bright ? 0.94f : 0.82f;
        in.caption = m_caption;
        in.focus = m_focus;
        in.panels = &m_panels;
        in.sourcesArea = &m_sourcesArea;
        in.hover = m_hover;
        in.selection = m_selection;
        in.width = static_cast<float>(width());
        in.height = static_cast<float>(height());
        in.cameraDistance = m_rig.distance;
        in.wall = m_wall;
        in.wallScale = m_hudScale / ImGuiOverlay::kWallScale;
        if (m_sourceStatus) in.sources = m_sourceStatus();
        key = HudKey{.generation = m_hudGeneration,
                     .layersShown = {},
                     .scene = stillStamp(),
                     .width = width(),
                     .height = height(),
                     .dpr = dpr,
                     .mouse = m_mouse,
                     .hover = in.hover,
                     .selection = in.selection,
                     .sourceLabel = in.sourceLabel,
                     .caption = in.caption,
                     .focus = in.focus,
                     .sources = in.sources,
                     .speed = in.speed,
                     .paused = in.paused,
                     .replay = in.replay,
                     .reverse = in.reverse,
                     .fillModelled = in.fillModelled,
                     .wall = in.wall,
                     .frameMs = in.frameMs,
                     .redrawsPerSecond = in.redrawsPerSecond,
                     .theme = m_theme,
                     .hudScale = m_hudScale};
        key.layersShown.reserve(m_layers.size());
        for (const auto& l : m_layers)
            key.layersShown.push_back(l->visible());
    }
    // The same inputs as the last two builds (ImGui sizes auto-sized panels from the frame
    // before): draw that HUD again rather than build it, for at most m_hudMaxAgeMs (what the
    // HUD shows of the clock: ages, the frame rate). The key holds every input the HUD draws,
    // so a frame asked for by anything else (an expose, the pipes moving) reuses it whether or
    // not something moves.
    const auto decideReuse = [&] {
        same = hudShown && m_hudSameBuilds > 0 && key == m_hudKey;
        reuse = m_reuseHud && m_animated && same && m_hudSameBuilds >= 2 &&
                now - m_hudBuiltAt < m_hudMaxAgeMs && m_overlay.hasLastFrame();
    };
    decideReuse();
    // The baked picture holds this very HUD over this very still scene and these pipes.
    m_restoreBaked = reuse && m_reuseStill && !m_stillBroken && m_stillValid &&
                     key.scene == m_stillStamp && m_bake == bakeNow(pw, ph);

    vtkOpenGLState* state = m_renderWindow->GetState();
    state->Reset();
    state->Push();
    const int stillRendersBefore = m_stillRenders;
    renderScene(pw, ph); // drops m_restoreBaked when it had to draw the still scene anew
    state->Pop();
    // Drawing the still scene may touch its props (a shader built): the key takes the stamp
    // after it. A frame that restored the baked picture drew no still scene, so its stamp and
    // its decision stand.
    if (hudShown && !m_restoreBaked) {
        key.scene = stillStamp();
        decideReuse();
    }

    // The HUD goes into Qt's framebuffer, over what VTK blitted there.
    auto* gl = context()->functions();
    gl->glBindFramebuffer(GL_FRAMEBUFFER, defaultFramebufferObject());
    gl->glViewport(0, 0, pw, ph);
    m_frameTimes.push_back(dt);
    if (m_frameTimes.size() > 30) m_frameTimes.pop_front();

    m_hudDt += dt;
    // Benchmarks: the scene finished first, so the HUD's own cost (building it, or drawing
    // the last one again, and its rasterising) is timed apart.
    if (m_finishEachFrame) gl->glFinish();
    QElapsedTimer hudCost;
    hudCost.start();
    if (hudShown) {
        // Reused over the baked picture: only the tiles under pipes are composited.
        if (reuse && !m_overlay.redrawLastFrame(m_restoreBaked ? &m_pipeTiles : nullptr, true))
            reuse = false;
        if (!reuse) {
            updateProjection();
            in.project = [this](const model::Vec3& p) { return project(p); };
            const auto mx = static_cast<float>(m_mouse.x()), my = static_cast<float>(m_mouse.y());
            if (!m_animated) {
                // A repeatable single frame: let ImGui measure its windows first.
                m_overlay.beginFrame(width(), height(), static_cast<float>(dpr), 0.0f, mx, my);
                drawHud(m_overlay, in);
                m_overlay.discardFrame();
            }
            m_overlay.beginFrame(width(), height(), static_cast<float>(dpr),
                                 static_cast<float>(std::min(m_hudDt, 1000.0) / 1000.0), mx, my);
            drawHud(m_overlay, in);
            m_overlay.endFrame();
            m_hudSameBuilds = same ? m_hudSameBuilds + 1 : 1;
            m_hudKey = std::move(key);
            m_hudBuiltAt = now;
            m_hudDt = 0;
            ++m_hudBuilds;
        }
        // A HUD that is likely to be shown again over a still scene that held this frame (not
        // while the camera flies): bake it into the kept picture for the frames to come.
        if (m_reuseHud && m_animated && !m_restoreBaked && m_reuseStill && !m_stillBroken &&
            m_stillValid && m_stillRenders == stillRendersBefore && m_overlay.cached())
            bakeHud(pw, ph);
    }
    // What the frame cost: finished, so the figure covers the rasteriser's work too.
    if (m_finishEachFrame || m_showFrameStats) gl->glFinish();
    m_lastHudMs = static_cast<double>(hudCost.nsecsElapsed()) / 1e6;
    m_frameCosts.push_back(static_cast<double>(cost.nsecsElapsed()) / 1e6);
    if (m_frameCosts.size() > 30) m_frameCosts.pop_front();
    emit frameDrawn(m_frameCosts.back());
    // A single frame (a screenshot) whose HUD showed its panels only now: drawn once more,
    // framed beside them.
    if (!m_animated && !m_refitting && panelsMovedSinceFit()) {
        m_refitting = true;
        paintGL();
        m_refitting = false;
        return;
    }
    if (!m_firstFrameSent) {
        m_firstFrameSent = true;
        emit firstFrame();
    }
}

void FloorView::setMetric(model::ChannelId channel) {
    m_metric = channel;
    for (const auto& l : m_layers)
        l->setMetric(channel);
    refreshLayers();
}

void FloorView::setFillModelled(bool fill) {
    if (fill == m_fillModelled) return;
    m_fillModelled = fill;
    for (const auto& l : m_layers)
        l->setFillModelled(fill);
    emit fillModelledChanged(fill);
    refreshLayers();
}

void FloorView::setSelection(std::optional<model::EntityRef> selection) {
    if (selection == m_selection) return;
    m_selection = selection;
    if (m_scene) m_scene->setSelection(selection);
    for (const auto& l : m_layers)
        l->setSelection(selection);
    emit selectionChanged();
    refreshLayers();
}

void FloorView::setSceneVisible(bool visible) {
    m_sceneVisible = visible;
    for (vtkRenderer* renderer : {m_renderer.GetPointer(), m_flowRenderer.GetPointer()}) {
        vtkPropCollection* props = renderer->GetViewProps();
        props->InitTraversal();
        while (vtkProp* prop = props->GetNextProp())
            prop->SetVisibility(visible);
    }
    if (visible)
        for (const auto& l : m_layers)
            l->reapplyVisibility();
    if (visible && m_scene) m_scene->setSelection(m_selection);
    update();
}

void FloorView::setTransport(model::Transport* transport) {
    m_transport = transport;
    m_transportObserver.reset();
    if (transport) {
        m_transportObserver = std::make_unique<TransportObserver>(*transport, nullptr);
        connect(m_transportObserver.get(), &TransportObserver::changed, this, [this] { update(); });
    }
    update();
}

float FloorView::hudScaleFor() const {
    // A wall is read from metres away: 1.84x at 1080 lines, growing with the screen (twice
    // that on a 4K wall) — in logical pixels, so the device pixel ratio comes on top.
    if (!m_wall) return 1.0f;
    return std::clamp(ImGuiOverlay::kWallScale * static_cast<float>(height()) / 1080.0f, 1.3f,
                      4.0f);
}

void FloorView::applyHudScale() {
    const float scale = hudScaleFor();
    if (std::abs(scale - m_hudScale) < 0.05f && m_overlay.initialized()) return;
    m_hudScale = scale;
    if (!m_glReady) return;
    makeCurrent();
    m_overlay.shutdown();
    m_overlay.initialize(scale);
    doneCurrent();
}

void FloorView::setWallMode(bool wall) {
    if (m_wall == wall) return;
    m_wall = wall;
    applyHudScale();
    update();
}

void FloorView::setTheme(DisplayTheme theme) {
    m_theme = theme;
    m_stillValid = false; // the background is not in stillStamp()
    switch (theme) {
    case DisplayTheme::Standard:
        m_renderer->SetBackground(0.035, 0.045, 0.065);
        m_renderer->SetBackground2(0.10, 0.13, 0.18);
        break;
    case DisplayTheme::Dim:
        m_renderer->SetBackground(0.010, 0.012, 0.018);
        m_renderer->SetBackground2(0.035, 0.045, 0.060);
        break;
    case DisplayTheme::Bright:
        m_renderer->SetBackground(0.22, 0.26, 0.32);
        m_renderer->SetBackground2(0.45, 0.51, 0.59);
        break;
    }
    if (m_scene) m_scene->setBrightFloor(theme == DisplayTheme::Bright);
    update();
}

void FloorView::setPalette(Palette palette) {
    ColorScale::setPalette(palette);
    refreshLayers();
}

} // namespace ft::views
