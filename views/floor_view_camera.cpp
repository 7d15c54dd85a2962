// FloorView's camera: the rig applied to VTK's camera, projection and picking, the overview and
// the framings, and the mouse and keyboard that steer it.
#include "floor_picker.h"
#include "floor_scene.h"
#include "floor_view.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vtkCamera.h>
#include <vtkMatrix4x4.h>
#include <vtkRenderer.h>
#include <vtkTransform.h>

namespace ft::views {

namespace {

// Where on the screen (NDC) the floor, now at `place`, can be framed clear of the HUD's panels
// (pixels, y down): the free rectangle in which it can be drawn largest. Nothing when no panel
// covers it now, or when the free space would shrink it below a third of its size (a floor
// that small is no better than one partly under a translucent panel).
std::optional<CameraRig::Window> clearOfPanels(const CameraRig::Window& place,
                                               const std::vector<ScreenRect>& panels, int width,
                                               int height) {
    const auto w = static_cast<float>(width);
    const auto h = static_cast<float>(height);
    if (w < 16 || h < 16) return std::nullopt;
    auto toPixels = [&](const CameraRig::Window& n) {
        return ScreenRect{
            static_cast<float>((n.x0 + 1) / 2 * w), static_cast<float>((1 - n.y1) / 2 * h),
            static_cast<float>((n.x1 + 1) / 2 * w), static_cast<float>((1 - n.y0) / 2 * h)};
    };
    const ScreenRect floor = toPixels(place);
    const float gap = 0.015f * std::min(w, h);
    std::vector<ScreenRect> taken;
    taken.reserve(panels.size());
    for (const auto& p : panels)
        taken.push_back({p.x0 - gap, p.y0 - gap, p.x1 + gap, p.y1 + gap});
    const ScreenRect shown{std::max(floor.x0, 0.0f), std::max(floor.y0, 0.0f),
                           std::min(floor.x1, w), std::min(floor.y1, h)};
    if (std::ranges::none_of(taken, [&](const ScreenRect& t) { return t.overlaps(shown); }))
        return std::nullopt;
    std::vector<float> xs{gap, w - gap}, ys{gap, h - gap};
    for (const auto& t : taken) {
        xs.insert(xs.end(), {t.x0, t.x1});
        ys.insert(ys.end(), {t.y0, t.y1});
    }
    std::erase_if(xs, [&](float x) { return x < gap || x > w - gap; });
    std::erase_if(ys, [&](float y) { return y < gap || y > h - gap; });
    const float fw = std::max(floor.x1 - floor.x0, 1.0f), fh = std::max(floor.y1 - floor.y0, 1.0f);
    float best = 0;
    ScreenRect bestRect;
    for (const float x0 : xs)
        for (const float x1 : xs) {
            if (x1 <= x0) continue;
            for (const float y0 : ys)
                for (const float y1 : ys) {
                    if (y1 <= y0) continue;
                    const ScreenRect r{x0, y0, x1, y1};
                    const float scale = std::min((x1 - x0) / fw, (y1 - y0) / fh);
                    if (scale <= best) continue;
                    if (std::ranges::any_of(taken,
                                            [&](const ScreenRect& t) { return t.overlaps(r); }))
                        continue;
                    best = scale;
                    bestRect = r;
                }
        }
    const float unshrunk = std::min(w / fw, h / fh); // the floor's scale with the whole view
    if (best <= 0 || best < unshrunk / 3) return std::nullopt;
    return CameraRig::Window{2.0 * bestRect.x0 / w - 1.0, 2.0 * bestRect.x1 / w - 1.0,
                             1.0 - 2.0 * bestRect.y1 / h, 1.0 - 2.0 * bestRect.y0 / h};
}

} // namespace

using model::EntityKind;

void FloorView::updateProjection() const {
    if (m_projectionValid) return;
    vtkCamera* cam = m_renderer->GetActiveCamera();
    const double aspect = height() > 0 ? static_cast<double>(width()) / height() : 1.0;
    vtkMatrix4x4* m = cam->GetCompositeProjectionTransformMatrix(aspect, -1, 1);
    for (int i = 0; i < 16; ++i)
        m_projection[i] = m->GetElement(i / 4, i % 4);
    m_projectionValid = true;
}

std::optional<ScreenPoint> FloorView::project(const model::Vec3& p) const {
    updateProjection();
    const double* m = m_projection;
    const double x = m[0] * p.x + m[1] * p.y + m[2] * p.z + m[3];
    const double y = m[4] * p.x + m[5] * p.y + m[6] * p.z + m[7];
    const double w = m[12] * p.x + m[13] * p.y + m[14] * p.z + m[15];
    if (w <= 1e-6) return std::nullopt;
    return ScreenPoint{static_cast<float>((x / w + 1.0) * 0.5 * width()),
                       static_cast<float>((1.0 - y / w) * 0.5 * height())};
}

std::optional<PickResult> FloorView::pickAt(double x, double y) const {
    updateProjection();
    vtkNew<vtkMatrix4x4> inv;
    inv->DeepCopy(m_projection);
    inv->Invert();
    const double ndcX = 2.0 * x / std::max(1, width()) - 1.0;
    const double ndcY = 1.0 - 2.0 * y / std::max(1, height());
    double nearP[4] = {ndcX, ndcY, -1.0, 1.0}, farP[4] = {ndcX, ndcY, 1.0, 1.0};
    double a[4], b[4];
    inv->MultiplyPoint(nearP, a);
    inv->MultiplyPoint(farP, b);
    for (int i = 0; i < 3; ++i) {
        a[i] /= a[3];
        b[i] /= b[3];
    }
    Ray ray{{static_cast<float>(a[0]), static_cast<float>(a[1]), static_cast<float>(a[2])},
            {static_cast<float>(b[0] - a[0]), static_cast<float>(b[1] - a[1]),
             static_cast<float>(b[2] - a[2])}};
    // Racks, then whatever the layers draw above or beside them: the first the ray meets wins.
    std::optional<PickResult> best = pickFloor(*m_topology, ray);
    float bestT = std::numeric_limits<float>::max();
    if (best) {
        const float dx = best->point.x - ray.origin.x, dy = best->point.y - ray.origin.y,
                    dz = best->point.z - ray.origin.z;
        const float len2 = ray.direction.x * ray.direction.x + ray.direction.y * ray.direction.y +
                           ray.direction.z * ray.direction.z;
        bestT = (dx * ray.direction.x + dy * ray.direction.y + dz * ray.direction.z) /
                std::max(len2, 1e-12f);
    }
    for (const auto& l : m_layers) {
        if (!l->visible()) continue;
        if (auto hit = l->pick(ray); hit && hit->second <= bestT) {
            best = hit->first;
            bestT = hit->second;
        }
    }
    return best;
}

void FloorView::applyCamera() {
    vtkCamera* cam = m_renderer->GetActiveCamera();
    const auto pos = m_rig.position();
    cam->SetFocalPoint(m_rig.focus.x, m_rig.focus.y, m_rig.focus.z);
    cam->SetPosition(pos.x, pos.y, pos.z);
    cam->SetViewUp(0, 0, 1);
    if (m_rig.elevationDeg > 89) {
        // Looking straight down: keep "up" on screen pointing along +y (the rows' depth).
        const double az = m_rig.azimuthDeg * M_PI / 180.0;
        cam->SetViewUp(-std::sin(az), std::cos(az), 0);
    }
    cam->SetViewAngle(m_rig.viewAngleDeg);
    double pixelsHigh = height(); // of the whole picture (a wall's, in this screen's pixels)
    if (m_slice) {
        // VTK's frustum has this screen's aspect; the wall's picture has the wall's. In clip
        // coordinates: x scaled to the wall's aspect, then this screen's rectangle of the wall
        // stretched to -1..1 (vtkCamera applies its user transform after the projection).
        const ViewSlice& s = *m_slice;
        const double screenAspect = height() > 0 ? static_cast<double>(width()) / height() : 1.0;
        const double sx = 2.0 / (s.x1 - s.x0), sy = 2.0 / (s.y1 - s.y0);
        vtkNew<vtkMatrix4x4> m;
        m->SetElement(0, 0, sx * screenAspect / s.wallAspect);
        m->SetElement(0, 3, -(s.x0 + s.x1) / (s.x1 - s.x0));
        m->SetElement(1, 1, sy);
        m->SetElement(1, 3, -(s.y0 + s.y1) / (s.y1 - s.y0));
        vtkNew<vtkTransform> t;
        t->SetMatrix(m);
        cam->SetUserTransform(t);
        pixelsHigh *= sy; // the wall is sy = 2 / (y1 - y0) screens high
    } else {
        cam->SetUserTransform(nullptr);
    }
    m_projectionValid = false;
    // Screen pixels per metre at the focal distance.
    const CameraView view{
        m_rig, pixelsHigh / (2.0 * m_rig.distance * std::tan(m_rig.viewAngleDeg * M_PI / 360.0))};
    for (const auto& l : m_layers)
        l->updateDetail(view);
    update();
}

void FloorView::setCamera(const CameraRig& rig) {
    m_rig = rig;
    m_cameraSet = true;
    applyCamera();
}

void FloorView::setSlice(std::optional<ViewSlice> slice, std::optional<HudInput::WallPlace> place) {
    if (slice == m_slice && place == m_wallPlace) return;
    m_slice = slice;
    m_wallPlace = slice ? place : std::nullopt;
    m_hudKey = {};
    applyCamera();
}

double FloorView::aspect() const {
    if (m_slice) return m_slice->wallAspect;
    return height() > 0 ? static_cast<double>(width()) / height() : 16.0 / 9.0;
}

CameraRig FloorView::overviewRig() const {
    OverviewExtent extent;
    for (const auto& l : m_layers)
        if (l->visible()) {
            const auto e = l->overviewExtent();
            extent.extraX = std::max(extent.extraX, e.extraX);
            extent.fabric = extent.fabric || e.fabric;
        }
    CameraRig rig = CameraRig::overview(*m_topology, aspect(), extent.extraX, extent.fabric);
    // The HUD's panels (title, alarms, legends, events, the layers' column) stand over the
    // corners and sides of the view: where they would cover the floor, it is framed in the
    // largest part of the screen they leave free. A wall's slices are laid out over the whole
    // wall and keep the plain overview.
    if (m_slice || m_panels.empty()) return rig;
    const auto [lo, hi] = CameraRig::overviewBox(*m_topology, extent.extraX, extent.fabric);
    if (const auto free =
            clearOfPanels(rig.projected(lo, hi, aspect()), m_panels, width(), height()))
        rig.fitWindow(lo, hi, aspect(), *free);
    return rig;
}

void FloorView::resetCamera() {
    m_rig = overviewRig();
    m_fittedFor = size();
    m_fittedPanels = m_panels;
    applyCamera();
}

bool FloorView::panelsMovedSinceFit() const {
    // The overview is framed beside the panels. A panel that grows or shrinks by a few pixels
    // (a figure's width) does not move the camera.
    if (m_cameraSet || m_slice) return false;
    if (m_panels.size() != m_fittedPanels.size()) return true;
    constexpr float kSlack = 24.0f;
    for (std::size_t i = 0; i < m_panels.size(); ++i) {
        const ScreenRect &a = m_panels[i], &b = m_fittedPanels[i];
        if (std::abs(a.x0 - b.x0) > kSlack || std::abs(a.x1 - b.x1) > kSlack ||
            std::abs(a.y0 - b.y0) > kSlack || std::abs(a.y1 - b.y1) > kSlack)
            return true;
    }
    return false;
}

void FloorView::topView() {
    m_rig = CameraRig::top(*m_topology, aspect());
    m_cameraSet = true;
    applyCamera();
}

void FloorView::frameSelection() {
    if (!m_selection) return;
    model::EntityRef ref = *m_selection;
    if (ref.kind == EntityKind::Gpu) ref = {EntityKind::ComputeTray, m_topology->gpus.tray[ref.id]};
    if (ref.kind == EntityKind::ComputeTray || ref.kind == EntityKind::SwitchTray) {
        // Frame the whole rack, looking at the selected unit.
        const auto box = FloorScene::entityBox(*m_topology, ref);
        const auto rack = ref.kind == EntityKind::ComputeTray
                              ? m_topology->computeTrays.rack[ref.id]
                              : m_topology->switchTrays.rack[ref.id];
        const auto rackBox = FloorScene::entityBox(*m_topology, {EntityKind::Rack, rack});
        m_rig.frame(rackBox->min, rackBox->max,
                    static_cast<double>(width()) / std::max(1, height()));
        m_rig.focus.z = (box->min.z + box->max.z) / 2;
    } else if (auto box = FloorScene::entityBox(*m_topology, ref)) {
        m_rig.frame(box->min, box->max, static_cast<double>(width()) / std::max(1, height()));
    }
    m_rig.azimuthDeg = std::clamp(m_rig.azimuthDeg, -40.0, 40.0);
    m_rig.elevationDeg = std::min(m_rig.elevationDeg, 30.0);
    m_cameraSet = true;
    applyCamera();
}

void FloorView::mousePressEvent(QMouseEvent* e) {
    emit userInteracted();
    m_pressPos = m_lastPos = e->position().toPoint();
    m_dragButton = e->button();
    m_dragged = false;
}

void FloorView::mouseMoveEvent(QMouseEvent* e) {
    const QPoint pos = e->position().toPoint();
    m_mouse = e->position();
    if (m_dragButton == Qt::NoButton) {
        const auto hit = pickAt(m_mouse.x(), m_mouse.y());
        const std::optional<model::EntityRef> hover =
            hit ? std::optional(hit->entity) : std::nullopt;
        if (hover != m_hover) {
            m_hover = hover;
            update();
        }
        return;
    }
    const QPoint d = pos - m_lastPos;
    m_lastPos = pos;
    if ((pos - m_pressPos).manhattanLength() > 4) m_dragged = true;
    if (!m_dragged) return;
    m_hover.reset();
    const bool panning = m_dragButton == Qt::RightButton || m_dragButton == Qt::MiddleButton ||
                         (e->modifiers() & Qt::ShiftModifier);
    if (panning)
        m_rig.pan(-d.x() / std::max(1.0, double(height())),
                  d.y() / std::max(1.0, double(height())));
    else
        m_rig.orbit(-d.x() * 0.35, d.y() * 0.25);
    m_cameraSet = true;
    applyCamera();
}

void FloorView::mouseReleaseEvent(QMouseEvent* e) {
    const auto x = static_cast<float>(e->position().x()), y = static_cast<float>(e->position().y());
    if (!m_dragged && e->button() == Qt::LeftButton && m_sourcesArea.x0 <= x &&
        x < m_sourcesArea.x1 && m_sourcesArea.y0 <= y && y < m_sourcesArea.y1) {
        m_dragButton = Qt::NoButton;
        emit sourcesRequested();
        return;
    }
    if (!m_dragged && e->button() == Qt::LeftButton) {
        const auto hit = pickAt(e->position().x(), e->position().y());
        setSelection(hit ? std::optional(hit->entity) : std::nullopt);
    }
    m_dragButton = Qt::NoButton;
    m_dragged = false;
}

void FloorView::mouseDoubleClickEvent(QMouseEvent* e) {
    if (const auto hit = pickAt(e->position().x(), e->position().y())) {
        setSelection(hit->entity);
        frameSelection();
    }
}

void FloorView::wheelEvent(QWheelEvent* e) {
    emit userInteracted();
    const double steps = e->angleDelta().y() / 120.0;
    const double maxDistance =
        4.0 * std::max<double>(m_topology->boundsMax.x - m_topology->boundsMin.x,
                               m_topology->boundsMax.y - m_topology->boundsMin.y) +
        20.0;
    m_rig.zoom(std::pow(0.88, steps), 1.2, maxDistance);
    m_cameraSet = true;
    applyCamera();
}

void FloorView::keyPressEvent(QKeyEvent* e) {
    emit userInteracted();
    switch (e->key()) {
    case Qt::Key_R:
        resetCamera();
        break;
    case Qt::Key_T:
        topView();
        break;
    case Qt::Key_F:
        frameSelection();
        break;
    case Qt::Key_Escape:
        setSelection(std::nullopt);
        break;
    case Qt::Key_Backspace:
    case Qt::Key_PageUp:
        // Up the hierarchy: GPU -> tray -> rack.
        if (m_selection && m_selection->kind == EntityKind::Gpu)
            setSelection(
                model::EntityRef{EntityKind::ComputeTray, m_topology->gpus.tray[m_selection->id]});
        else if (m_selection && m_selection->kind == EntityKind::ComputeTray)
            setSelection(
                model::EntityRef{EntityKind::Rack, m_topology->computeTrays.rack[m_selection->id]});
        else if (m_selection && m_selection->kind == EntityKind::SwitchTray)
            setSelection(
                model::EntityRef{EntityKind::Rack, m_topology->switchTrays.rack[m_selection->id]});
        break;
    default:
        QOpenGLWidget::keyPressEvent(e);
        return;
    }
}

void FloorView::leaveEvent(QEvent*) {
    m_mouse = QPointF(-1, -1);
    if (m_hover) {
        m_hover.reset();
        update();
    }
}

} // namespace ft::views
