#include "camera_flight.h"

#include <algorithm>
#include <cmath>

namespace ft::views {

double easeInOut(double x) {
    x = std::clamp(x, 0.0, 1.0);
    return x < 0.5 ? 4 * x * x * x : 1 - std::pow(-2 * x + 2, 3) / 2;
}

CameraRig CameraFlight::at(double elapsed) const {
    if (seconds <= 0 || elapsed >= seconds) return to;
    const double e = easeInOut(elapsed / seconds);
    auto lerp = [e](double a, double b) { return a + (b - a) * e; };
    CameraRig rig = to;
    rig.focus = {static_cast<float>(lerp(from.focus.x, to.focus.x)),
                 static_cast<float>(lerp(from.focus.y, to.focus.y)),
                 static_cast<float>(lerp(from.focus.z, to.focus.z))};
    // The short way round.
    double turn = std::fmod(to.azimuthDeg - from.azimuthDeg, 360.0);
    if (turn > 180) turn -= 360;
    if (turn < -180) turn += 360;
    rig.azimuthDeg = from.azimuthDeg + turn * e;
    rig.elevationDeg = lerp(from.elevationDeg, to.elevationDeg);
    rig.viewAngleDeg = lerp(from.viewAngleDeg, to.viewAngleDeg);
    const double d0 = std::max(from.distance, 0.1), d1 = std::max(to.distance, 0.1);
    double d = std::exp(lerp(std::log(d0), std::log(d1)));
    // Across the hall from close up: rise on the way (up to half again the farther distance).
    const double dx = to.focus.x - from.focus.x, dy = to.focus.y - from.focus.y;
    const double travel = std::sqrt(dx * dx + dy * dy);
    const double hop = std::min(0.5, 0.5 * travel / std::max(d0, d1));
    d *= 1.0 + hop * std::sin(3.141592653589793 * e);
    rig.distance = d;
    return rig;
}

} // namespace ft::views
