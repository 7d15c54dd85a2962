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
    focus.x += static_cast<float>(visible * (rightFraction * rx + upFraction * upScale * fx * std::sin(el)));
    focus.y += static_cast<float>(visible * (rightFraction * ry + upFraction * upScale * fy * std::sin(el)));
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
}

CameraRig CameraRig::overview(const model::Topology& t, double aspect) {
    CameraRig rig;
    rig.frame(t.boundsMin, t.boundsMax, aspect);
    rig.focus.z = 0.4f;
    // Large floors read better from higher up.
    if (t.count(model::EntityKind::Rack) > 200) rig.elevationDeg = 55.0;
    // Leave the top-left HUD panel clear: the floor sits a little right of and below centre.
    rig.distance *= 1.08;
    rig.pan(-0.07, 0.06);
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
