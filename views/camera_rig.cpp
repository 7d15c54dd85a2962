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

void CameraRig::fitDistance(const model::Vec3& lo, const model::Vec3& hi, double aspect,
                            double margin) {
    const double az = azimuthDeg * kDeg, el = elevationDeg * kDeg;
    // View direction (from camera to focus) and screen axes, as in FloorView::applyCamera.
    const double f[3] = {-std::cos(el) * std::sin(az), std::cos(el) * std::cos(az), -std::sin(el)};
    double up[3] = {0, 0, 1};
    if (elevationDeg > 89) up[0] = -std::sin(az), up[1] = std::cos(az), up[2] = 0;
    double r[3] = {f[1] * up[2] - f[2] * up[1], f[2] * up[0] - f[0] * up[2],
                   f[0] * up[1] - f[1] * up[0]};
    const double rn = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    for (double& c : r)
        c /= rn;
    const double u[3] = {r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2],
                         r[0] * f[1] - r[1] * f[0]};
    const double tanV = std::tan(viewAngleDeg * kDeg / 2.0), tanH = tanV * std::max(aspect, 0.1);
    auto fits = [&](double d) {
        const double pos[3] = {focus.x - d * f[0], focus.y - d * f[1], focus.z - d * f[2]};
        for (int i = 0; i < 8; ++i) {
            const double c[3] = {i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z};
            const double v[3] = {c[0] - pos[0], c[1] - pos[1], c[2] - pos[2]};
            const double z = v[0] * f[0] + v[1] * f[1] + v[2] * f[2];
            if (z < 0.2) return false;
            const double x = v[0] * r[0] + v[1] * r[1] + v[2] * r[2];
            const double y = v[0] * u[0] + v[1] * u[1] + v[2] * u[2];
            if (std::abs(x) > margin * z * tanH || std::abs(y) > margin * z * tanV) return false;
        }
        return true;
    };
    double near = 0.5, far = 1.0;
    while (!fits(far) && far < 1e5)
        far *= 2;
    for (int i = 0; i < 40; ++i) {
        const double mid = 0.5 * (near + far);
        (fits(mid) ? far : near) = mid;
    }
    distance = far;
}

CameraRig CameraRig::overview(const model::Topology& t, double aspect, float extraX, bool fabric) {
    CameraRig rig;
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
    rig.frame(lo, hi, aspect);
    rig.focus.z = fabric ? hi.z * 0.45f : 0.4f;
    // Large floors read better from higher up.
    if (t.count(model::EntityKind::Rack) > 200) rig.elevationDeg = 55.0;
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
