#include "camera_rig.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace ft::views {

namespace {
constexpr double kDeg = std::numbers::pi / 180.0;
}

void CameraRig::orbit(double dAz, double dEl) {
    azimuthDeg = std::fmod(azimuthDeg + dAz, 360.0);
    elevationDeg = std::clamp(elevationDeg + dEl, 4.0, 89.5);
}

model::Vec3 CameraRig::position() const {
    const double az = azimuthDeg * kDeg, el = elevationDeg * kDeg;
    return {static_cast<float>(focus.x + distance * std::cos(el) * std::sin(az)),
            static_cast<float>(focus.y - distance * std::cos(el) * std::cos(az)),
            static_cast<float>(focus.z + distance * std::sin(el))};
}

void CameraRig::pan(double rightFraction, double upFraction) {
    const double az = azimuthDeg * kDeg, el = elevationDeg * kDeg;
    const double visible = 2.0 * distance * std::tan(viewAngleDeg * kDeg / 2.0);
    // Screen right on the floor, and screen up projected onto the floor (pan stays level).
    const double rx = std::cos(az), ry = std::sin(az);
    const double fx = -std::sin(az), fy = std::cos(az);
    const double upScale = 1.0 / std::max(std::sin(el), 0.25);
    focus.x += static_cast<float>(visible *
                                  (rightFraction * rx + upFraction * upScale * fx * std::sin(el)));
    focus.y += static_cast<float>(visible *
                                  (rightFraction * ry + upFraction * upScale * fy * std::sin(el)));
}

void CameraRig::zoom(double factor, double minDistance, double maxDistance) {
    distance = std::clamp(distance * factor, minDistance, maxDistance);
}

void CameraRig::frame(const model::Vec3& lo, const model::Vec3& hi, double aspect) {
    focus = {(lo.x + hi.x) / 2, (lo.y + hi.y) / 2, (lo.z + hi.z) / 2};
    const double dx = hi.x - lo.x, dy = hi.y - lo.y, dz = hi.z - lo.z;
    const double radius = 0.5 * std::sqrt(dx * dx + dy * dy + dz * dz);
    const double half = viewAngleDeg * kDeg / 2.0;
    const double fitV = radius / std::sin(half);
    const double fitH = radius / std::sin(std::atan(std::tan(half) * std::max(aspect, 0.1)));
    distance = std::max(std::max(fitV, fitH) * 0.92, 1.5);
    fitDistance(lo, hi, aspect);
}

namespace {

// The camera's frame for its angles: view direction f (camera to focus), screen right r, up u.
struct Axes {
    double f[3], r[3], u[3];
};

Axes axesOf(const CameraRig& rig) {
    const double az = rig.azimuthDeg * kDeg, el = rig.elevationDeg * kDeg;
    // As in FloorView::applyCamera.
    Axes a{{-std::cos(el) * std::sin(az), std::cos(el) * std::cos(az), -std::sin(el)}, {}, {}};
    double up[3] = {0, 0, 1};
    if (rig.elevationDeg > 89) up[0] = -std::sin(az), up[1] = std::cos(az), up[2] = 0;
    const double* f = a.f;
    a.r[0] = f[1] * up[2] - f[2] * up[1];
    a.r[1] = f[2] * up[0] - f[0] * up[2];
    a.r[2] = f[0] * up[1] - f[1] * up[0];
    const double rn = std::sqrt(a.r[0] * a.r[0] + a.r[1] * a.r[1] + a.r[2] * a.r[2]);
    for (double& c : a.r)
        c /= rn;
    a.u[0] = a.r[1] * f[2] - a.r[2] * f[1];
    a.u[1] = a.r[2] * f[0] - a.r[0] * f[2];
    a.u[2] = a.r[0] * f[1] - a.r[1] * f[0];
    return a;
}

// Every corner of the box in front of a camera at `pos` and inside the window (NDC).
bool boxInside(const Axes& a, const double pos[3], const model::Vec3& lo, const model::Vec3& hi,
               double tanH, double tanV, const CameraRig::Window& w) {
    for (int i = 0; i < 8; ++i) {
        const double c[3] = {i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z};
        const double v[3] = {c[0] - pos[0], c[1] - pos[1], c[2] - pos[2]};
        const double z = v[0] * a.f[0] + v[1] * a.f[1] + v[2] * a.f[2];
        if (z < 0.2) return false;
        const double x = (v[0] * a.r[0] + v[1] * a.r[1] + v[2] * a.r[2]) / (z * tanH);
        const double y = (v[0] * a.u[0] + v[1] * a.u[1] + v[2] * a.u[2]) / (z * tanV);
        if (x < w.x0 || x > w.x1 || y < w.y0 || y > w.y1) return false;
    }
    return true;
}

// The smallest distance in [0.5, 1e5] at which `fits` holds (it holds from there on out).
template <class Fits> double closestFitting(Fits fits) {
    double near = 0.5, far = 1.0;
    while (!fits(far) && far < 1e5)
        far *= 2;
    for (int i = 0; i < 40; ++i) {
        const double mid = 0.5 * (near + far);
        (fits(mid) ? far : near) = mid;
    }
    return far;
}

} // namespace

void CameraRig::fitDistance(const model::Vec3& lo, const model::Vec3& hi, double aspect,
                            double margin) {
    const Axes a = axesOf(*this);
    const double tanV = std::tan(viewAngleDeg * kDeg / 2.0), tanH = tanV * std::max(aspect, 0.1);
    const Window w{-margin, margin, -margin, margin};
    distance = closestFitting([&](double d) {
        const double pos[3] = {focus.x - d * a.f[0], focus.y - d * a.f[1], focus.z - d * a.f[2]};
        return boxInside(a, pos, lo, hi, tanH, tanV, w);
    });
}

void CameraRig::fitWindow(const model::Vec3& lo, const model::Vec3& hi, double aspect, Window w) {
    const Axes a = axesOf(*this);
    const double tanV = std::tan(viewAngleDeg * kDeg / 2.0), tanH = tanV * std::max(aspect, 0.1);
    const double cx = (w.x0 + w.x1) / 2, cy = (w.y0 + w.y1) / 2;
    const double centre[3] = {(lo.x + hi.x) / 2.0, (lo.y + hi.y) / 2.0, (lo.z + hi.z) / 2.0};
    // At distance d the focus sits off the box's centre so that the centre projects to (cx, cy).
    auto focusAt = [&](double d, double out[3]) {
        for (int k = 0; k < 3; ++k)
            out[k] = centre[k] - cx * d * tanH * a.r[k] - cy * d * tanV * a.u[k];
    };
    distance = closestFitting([&](double d) {
        double f[3];
        focusAt(d, f);
        const double pos[3] = {f[0] - d * a.f[0], f[1] - d * a.f[1], f[2] - d * a.f[2]};
        return boxInside(a, pos, lo, hi, tanH, tanV, w);
    });
    double f[3];
    focusAt(distance, f);
    focus = {static_cast<float>(f[0]), static_cast<float>(f[1]), static_cast<float>(f[2])};
}

CameraRig::Window CameraRig::projected(const model::Vec3& lo, const model::Vec3& hi,
                                       double aspect) const {
    const Axes a = axesOf(*this);
    const double tanV = std::tan(viewAngleDeg * kDeg / 2.0), tanH = tanV * std::max(aspect, 0.1);
    const model::Vec3 p = position();
    Window w{1e9, -1e9, 1e9, -1e9};
    for (int i = 0; i < 8; ++i) {
        const double v[3] = {(i & 1 ? hi.x : lo.x) - p.x, (i & 2 ? hi.y : lo.y) - p.y,
                             (i & 4 ? hi.z : lo.z) - p.z};
        const double z = v[0] * a.f[0] + v[1] * a.f[1] + v[2] * a.f[2];
        if (z < 0.2) continue;
        const double x = (v[0] * a.r[0] + v[1] * a.r[1] + v[2] * a.r[2]) / (z * tanH);
        const double y = (v[0] * a.u[0] + v[1] * a.u[1] + v[2] * a.u[2]) / (z * tanV);
        w.x0 = std::min(w.x0, x), w.x1 = std::max(w.x1, x);
        w.y0 = std::min(w.y0, y), w.y1 = std::max(w.y1, y);
    }
    return w;
}

bool CameraRig::largeFloor(const model::Topology& t) {
    return t.count(model::EntityKind::Rack) > 200;
}

std::pair<model::Vec3, model::Vec3> CameraRig::overviewBox(const model::Topology& t, float extraX,
                                                           bool fabric) {
    model::Vec3 lo = t.boundsMin, hi = t.boundsMax;
    hi.x += extraX;
    if (fabric) {
        // The leaves and spines hang above the floor and reach past the rows: frame them too.
        for (const auto& p : t.leaves.position)
            lo.y = std::min(lo.y, p.y), hi.y = std::max(hi.y, p.y), hi.z = std::max(hi.z, p.z);
        for (const auto& p : t.spines.position)
            lo.y = std::min(lo.y, p.y - 1.0f), hi.y = std::max(hi.y, p.y + 1.0f),
            hi.z = std::max(hi.z, p.z);
    }
    return {lo, hi};
}

CameraRig CameraRig::overview(const model::Topology& t, double aspect, float extraX, bool fabric) {
    CameraRig rig;
    const auto [lo, hi] = overviewBox(t, extraX, fabric);
    rig.frame(lo, hi, aspect);
    rig.focus.z = fabric ? hi.z * 0.45f : 0.4f;
    // Large floors read better from higher up.
    if (largeFloor(t)) rig.elevationDeg = 55.0;
    // Leave the top-left HUD panel clear: the floor sits a little right of and below centre.
    rig.pan(-0.06, 0.05);
    rig.fitDistance(lo, hi, aspect, 0.9);
    return rig;
}

CameraRig CameraRig::top(const model::Topology& t, double aspect) {
    CameraRig rig;
    rig.azimuthDeg = 0.0;
    rig.elevationDeg = 89.5;
    rig.frame(t.boundsMin, t.boundsMax, aspect);
    rig.focus.z = 0;
    return rig;
}

} // namespace ft::views
