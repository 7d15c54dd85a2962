#pragma once
// CameraFlight: a smooth move from one camera to another, for tours, alarm focus and demos. It
// eases in and out (no jump at either end), turns the short way round, zooms on a log scale and
// rises a little on long moves so the floor stays readable on the way. Plain math.
#include "camera_rig.h"

namespace ft::views {

// 0 -> 0, 1 -> 1, flat at both ends (cubic ease-in-out).
double easeInOut(double x);

struct CameraFlight {
    CameraRig from, to;
    double seconds = 3.0;

    // The camera `elapsed` seconds into the flight (`to` from `seconds` on).
    CameraRig at(double elapsed) const;
    bool done(double elapsed) const { return elapsed >= seconds; }
};

} // namespace ft::views
