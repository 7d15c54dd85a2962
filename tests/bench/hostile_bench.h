#pragma once
// The twin on screen while the live source behind it is fed by servers that misbehave on
// purpose (tests/support/hostile_server.h): a scrape source polls one good dcgm-exporter and
// eight hostile targets (hang after the headers, a 1 GiB body, one byte a second, a cut chunk,
// a 1 GiB gzip bomb, HTTP 500 with HTML, a redirect loop, no TLS on https) into a running sim
// core, while a 1280x720 view with every layer draws and its HUD shows the sources' health.
// Compared with the same view and source over the good target alone. The source has the
// defaults of `--source scrape=` (1 s interval, 3 s deadline, 64 MiB cap, backoff to 30 s).
// Needs a QApplication.
#include <functional>
#include <string>

namespace ft {
namespace views {
class FloorView;
}

// Reports hostile.frame_ms.calm and .hostile (median frame, finished), hostile.frame_ratio
// (hostile / calm), hostile.peak_rss_growth_mb (this process's peak over its resident size
// before the hostile targets started), hostile.good_target_longest_gap_ms (between two pages
// of the good target while the others misbehaved; its interval is 1 s) and
// hostile.good_target_errors.
void benchHostile(
    const std::function<void(const std::string& name, double value, const char* unit)>& figure,
    const std::function<double(views::FloorView& view, int frames)>& frameMs);

} // namespace ft
