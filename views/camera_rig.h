#pragma once
// CameraRig: an orbit camera around a focal point on the floor (z up), in the terms an
// operator uses: orbit, pan, zoom, reset, top view. Plain math; the view applies it to VTK.
#include "model/topology.h"

#include <utility>

namespace ft::views {

// One screen's part of a wall's one wide view: its rectangle in the wall's normalised device
// coordinates (-1..1, y up; bezels left out between screens) and the whole wall's aspect. A
// view drawing a slice frames and orbits as for the whole wall and shows only its part.
struct ViewSlice {
    double x0 = -1, x1 = 1, y0 = -1, y1 = 1;
    double wallAspect = 16.0 / 9.0;
    bool operator==(const ViewSlice&) const = default;
};

struct CameraRig {
    model::Vec3 focus;
    double distance = 30.0;
    double azimuthDeg = -25.0;  // 0: looking from the front of the rows (-y) towards +y
    double elevationDeg = 35.0; // 90: straight down
    double viewAngleDeg = 35.0;

    void orbit(double dAzimuthDeg, double dElevationDeg);
    // Pans by a fraction of the visible height, in screen directions.
    void pan(double rightFraction, double upFraction);
    void zoom(double factor, double minDistance, double maxDistance);
    model::Vec3 position() const;
    // Frames a box so all of it is visible, keeping the current angles.
    void frame(const model::Vec3& lo, const model::Vec3& hi, double aspect);
    // Keeps focus and angles; finds the closest distance at which every corner of the box lies
    // within `margin` (0..1) of the view's half-extent.
    void fitDistance(const model::Vec3& lo, const model::Vec3& hi, double aspect,
                     double margin = 0.92);
    // Keeps the angles; moves focus and distance so the box fills a part of the screen, given
    // in normalised device coordinates (-1..1, y up): the box's centre at the window's centre,
    // every corner inside it. Used to frame entities beside the HUD's panels.
    struct Window {
        double x0 = -1, x1 = 1, y0 = -1, y1 = 1;
    };
    void fitWindow(const model::Vec3& lo, const model::Vec3& hi, double aspect, Window window);
    // Where the box's corners land on the screen (NDC), for corners in front of the camera.
    Window projected(const model::Vec3& lo, const model::Vec3& hi, double aspect) const;

    // A floor seen whole from higher up and framed beside the HUD's right-hand panels (the
    // demo-sized floors are framed close, under the panels' corners).
    static bool largeFloor(const model::Topology& topology);
    // What the overview keeps in view: the floor, what stands past its +x edge, the fabric.
    static std::pair<model::Vec3, model::Vec3> overviewBox(const model::Topology& topology,
                                                           float extraX = 0, bool fabric = false);
    // extraX: room to keep in view past the floor's +x edge (the storage stores stand there).
    static CameraRig overview(const model::Topology& topology, double aspect, float extraX = 0,
                              bool fabric = false);
    static CameraRig top(const model::Topology& topology, double aspect);
};

} // namespace ft::views
