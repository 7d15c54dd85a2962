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
