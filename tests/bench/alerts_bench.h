#pragma once
// Alertmanager at the size of a big floor's bad day: 10,000 alerts (on hosts of the 1,778-rack
// floor, a tenth naming hosts it lacks) and 1,000 silences muting some of them, served on
// 127.0.0.1 (tests/support/loopback_server.h) and read by the source's poll (both requests,
// parsing, silences, placement); and the frame with those alerts placed on the floor against the
// same floor without them, in interleaved blocks. The poll needs a QCoreApplication, the frames
// a QApplication and a display.
#include "views/floor_view.h"

#include <functional>
#include <string>

namespace ft {

using Figure = std::function<void(const std::string& name, double value, const char* unit)>;

// alerts.poll_ms.alerts10000 (median of whole polls), alerts.fetch_ms.alerts10000 (the same
// two requests, bodies only, taken in turn with the polls) and alerts.poll_vs_fetch.
void benchAlertPoll(const Figure& figure);
// alerts.frame_ms.racks1778.alerts10000 and .none, and alerts.frame_ratio.racks1778 (blocks of
// each in turn); `frameMs` is the benchmark's frame timer.
void benchAlertFrames(const Figure& figure,
                      const std::function<double(views::FloorView&, int)>& frameMs);

} // namespace ft
