#pragma once
// The HUD's blocks that live in files of their own (hud.cpp draws them in order). UI thread,
// inside an ImGui frame.
#include "hud.h"

#include <imgui.h>
#include <vector>

namespace ft::views {

class ImGuiOverlay;

namespace hud {

// The live sources' lines, top left; returns the panel's bottom-right corner (the alarm panel
// keeps clear of it). hud_sources.cpp.
ImVec2 drawSourcePanel(const ImGuiOverlay& ov, const HudInput& in);
// "STALE 42 s" over each rack whose telemetry went quiet, through the label space.
void drawStaleBadges(const ImGuiOverlay& ov, const HudInput& in);

// The scenario's name and latest events, bottom right. hud_foot.cpp.
void drawEventPanel(const HudInput& in);
// A tour's or story's caption, at the foot of the middle, above any panel under it.
void drawCaption(const ImGuiOverlay& ov, const HudInput& in);

// A wall's slice screen (hud_wall.cpp): where the panels a screen drew stand on the wall, in
// the wall's pixels; the screen's own panels kept and the others hidden; the labels, drawn in
// the wall's pixels, moved onto the screen.
std::vector<ScreenRect> onWall(const HudInput::WallPlace& place,
                               const std::vector<ScreenRect>& panels, float width, float height);
void keepWallPanels(const HudInput::WallPlace& place, float width, float height);
void labelsOntoScreen(const HudInput::WallPlace& place);

} // namespace hud
} // namespace ft::views
