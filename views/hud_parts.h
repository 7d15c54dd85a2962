#pragma once
// The HUD's blocks that live in files of their own (hud.cpp draws them in order). UI thread,
// inside an ImGui frame.
#include "hud.h"

#include <imgui.h>

namespace ft::views {

class ImGuiOverlay;

namespace hud {

// The live sources' lines, top left; returns the panel's bottom-right corner (the alarm panel
// keeps clear of it). hud_sources.cpp.
ImVec2 drawSourcePanel(const ImGuiOverlay& ov, const HudInput& in);
// "STALE 42 s" over each rack whose telemetry went quiet, through the label space.
void drawStaleBadges(const ImGuiOverlay& ov, const HudInput& in);

} // namespace hud
} // namespace ft::views
