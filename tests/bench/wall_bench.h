#pragma once
// Links into a running twin and a wall of screens, measured on the real binary (windows under
// the bench's display):
// - link.open_ms.racks1778: a link handed to a twin replaying the 1,778-rack floor, from the
//   second launch's send to the twin's answer (seek, select, frame, render), median of links
//   to different moments and racks, interleaved with empty links (link.open_ms.empty: the
//   socket and the parse alone) and their ratio;
// - wall.skew_ms.p99 / p50: four screens (2x2) on loopback touring a replay at 100x, each
//   follower's clock against the leader's at every state it hears (ms of the wall), the worst
//   follower's percentile; wall.bytes_per_s_per_screen: the busiest screen's traffic.
//   FT_WALL_SECONDS sets the run (default 20 s; the figure is 600).
#include "alerts_bench.h" // Figure

namespace ft {

void benchLinkOpen(const Figure& figure);
void benchWall(const Figure& figure);

} // namespace ft
