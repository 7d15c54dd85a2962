#pragma once
// The HUD's look, shared by the HUD and the layers that draw panels into it: text colours,
// the panel window flags, and Rgb -> ImGui colour. UI thread, inside an ImGui frame.
#include "color_scale.h"
#include "coverage.h"
#include "layer.h"

#include <imgui.h>

namespace ft::views::hud {

inline ImU32 toImColor(Rgb c, int alpha = 255) {
    return IM_COL32(c.r, c.g, c.b, alpha);
}
inline const ImVec4 kMuted(0.62f, 0.68f, 0.76f, 1.0f);
inline const ImVec4 kCritical(1.0f, 0.33f, 0.30f, 1.0f);
inline const ImVec4 kWarning(1.0f, 0.75f, 0.25f, 1.0f);
inline const ImVec4 kGood(0.45f, 0.85f, 0.55f, 1.0f);
inline const ImVec4 kText(0.9f, 0.93f, 0.97f, 1.0f);
constexpr ImGuiWindowFlags kPanel =
    ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_AlwaysAutoResize |
    ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav;

// A horizontal colour bar of `steps` cells from colourAt(0..1), at the cursor, then a dummy
// item of its size so the next line goes under it.
template <class ColourAt> void colourBar(float width, float height, int steps, ColourAt colourAt) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    for (int i = 0; i < steps; ++i) {
        const float a = p.x + width * static_cast<float>(i) / static_cast<float>(steps);
        const float b = p.x + width * static_cast<float>(i + 1) / static_cast<float>(steps);
        dl->AddRectFilled(
            ImVec2(a, p.y), ImVec2(b + 0.5f, p.y + height),
            toImColor(colourAt((static_cast<float>(i) + 0.5f) / static_cast<float>(steps))));
    }
    ImGui::Dummy(ImVec2(width, height + 2));
}

// A legend swatch painted as `coverage` paints `sample` (hatched stripes), then its label on the
// same line: how a legend says what no data, stale and modelled look like.
inline void coverageSwatch(Coverage coverage, Rgb sample, float size, const char* label) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    constexpr int kStripes = 6;
    for (int i = 0; i < kStripes; ++i) {
        const float a = p.x + size * static_cast<float>(i) / kStripes;
        dl->AddRectFilled(ImVec2(a, p.y), ImVec2(a + size / kStripes + 0.5f, p.y + size),
                          toImColor(paintCoverage(sample, coverage, i % 2 == 0)));
    }
    ImGui::Dummy(ImVec2(size, size));
    ImGui::SameLine();
    ImGui::TextColored(kMuted, "%s", label);
}

// A panel in the HUD's right column, under what is already stacked there; end it with
// endRightPanel, which moves the column's top below it.
inline void beginRightPanel(const char* id, float screenWidth, const HudColumns& columns) {
    ImGui::SetNextWindowPos(ImVec2(screenWidth - 16, columns.rightTop + 8), 0, ImVec2(1, 0));
    ImGui::Begin(id, nullptr, kPanel);
}
inline void endRightPanel(HudColumns& columns) {
    columns.rightTop = ImGui::GetWindowPos().y + ImGui::GetWindowHeight();
    ImGui::End();
}

} // namespace ft::views::hud
