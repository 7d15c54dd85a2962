#pragma once
// The wall soak: the window in wall mode on the default floor with every layer on, the NOC tour
// flying its stops, the simulator at 100x and a recorder writing, for ten wall-clock minutes
// (FT_SOAK_SECONDS to shorten it). Figures: soak.rss_growth_percent (RSS at the end against
// after the first fifth of the run, two minutes of ten), soak.frame_ms_p99 and soak.frame_ms_max
// (what a frame costs to draw, finished), soak.frame_gap_ms_max (the longest wait between two
// frames while the tour keeps the camera moving: a frame stalled on a source, recorder or disk
// shows here) and soak.frames.
#include <functional>
#include <string>

namespace ft {

void benchSoak(const std::function<void(const std::string&, double, const char*)>& figure);

} // namespace ft
