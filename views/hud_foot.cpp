// The foot of the view: the scenario's events (bottom right) and a story's caption (bottom
// centre, above whatever panel stands there).
#include "hud_parts.h"
#include "hud_style.h"
#include "imgui_overlay.h"

#include <algorithm>
#include <imgui.h>
#include <imgui_internal.h>
#include <string_view>

namespace ft::views::hud {

void drawEventPanel(const HudInput& in) {
    const auto& events = in.snapshot->events;
    if (in.snapshot->scenario.empty() && (!events || events->empty())) return;
    ImGui::SetNextWindowPos(ImVec2(in.width - 16, in.height - 16), 0, ImVec2(1, 1));
    ImGui::Begin("##events", nullptr, kPanel);
    if (!in.snapshot->scenario.empty()) {
        ImGui::TextColored(kWarning, "SCENARIO");
        ImGui::SameLine();
        ImGui::TextUnformatted(in.snapshot->scenario.c_str());
    }
    // The latest scenario steps and protections, newest first; alarm churn stays in the list above.
    int shown = 0;
    const int limit = in.wall ? 6 : 5;
    if (events)
        for (auto it = events->rbegin(); it != events->rend() && shown < limit; ++it) {
            const bool gateFailure = it->kind == model::EventKind::Lifecycle &&
                                     it->severity == model::Severity::Critical;
            if (it->kind != model::EventKind::ScenarioInjection &&
                it->kind != model::EventKind::Protection && !gateFailure)
                continue;
            const std::string when = model::formatUtc(it->time).substr(11, 8);
            ImGui::TextColored(kMuted, "%s", when.c_str());
            ImGui::SameLine();
            // One line per event, cut to the panel: the board and the dump have the full text.
            std::string text = it->text;
            const float room = std::max(200.0f, in.width * 0.45f);
            while (text.size() > 8 && ImGui::CalcTextSize(text.c_str()).x > room)
                text.resize(text.size() - 4);
            if (text.size() < it->text.size()) text += "…";
            ImGui::TextColored(it->kind != model::EventKind::ScenarioInjection
                                   ? kCritical
                                   : ImVec4(0.9f, 0.93f, 0.97f, 1),
                               "%s", text.c_str());
            ++shown;
        }
    if (shown == 0) ImGui::TextColored(kMuted, "no events yet");
    ImGui::End();
}

// A tour's or demo's caption: large, centred low on the screen.
void drawCaption(const ImGuiOverlay& ov, const HudInput& in) {
    if (in.caption.empty() || in.focus) return; // an alarm has the floor
    ImGui::PushFont(ov.largeFont());
    const float wrap = std::min(in.width * 0.6f, ImGui::CalcTextSize(in.caption.c_str()).x + 1);
    const ImVec2 size = ImGui::CalcTextSize(in.caption.c_str(), nullptr, false, wrap);
    // At the foot of the view, above any panel under it (the legends bottom left, the events
    // bottom right: on a wall's large text the caption reaches them).
    const ImVec2 pad = ImGui::GetStyle().WindowPadding;
    const float x0 = (in.width - size.x) / 2 - pad.x - 12,
                x1 = (in.width + size.x) / 2 + pad.x + 12;
    const float height = size.y + 2 * pad.y + 2;
    float bottom = in.height * 0.9f;
    for (bool moved = true; moved;) {
        moved = false;
        for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
            if (!w->Active || w->Hidden || (w->Flags & ImGuiWindowFlags_NoDecoration) == 0 ||
                (w->Flags & ImGuiWindowFlags_Tooltip) != 0 ||
                std::string_view(w->Name) == "##caption")
                continue;
            const bool under = w->Pos.x < x1 && w->Pos.x + w->Size.x > x0 &&
                               w->Pos.y < bottom + 12 && w->Pos.y + w->Size.y > bottom - height;
            if (under && w->Pos.y - 12 < bottom && w->Pos.y - 12 > height) {
                bottom = w->Pos.y - 12;
                moved = true;
            }
        }
    }
    ImGui::SetNextWindowPos(ImVec2(in.width / 2, bottom), 0, ImVec2(0.5f, 1));
    // Sized from the text now, not from the last frame (a new caption would be cut for a frame).
    ImGui::SetNextWindowSize(ImVec2(size.x + 2 * pad.x + 2, size.y + 2 * pad.y + 2));
    ImGui::Begin("##caption", nullptr, kPanel & ~ImGuiWindowFlags_AlwaysAutoResize);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap);
    ImGui::TextUnformatted(in.caption.c_str());
    ImGui::PopTextWrapPos();
    ImGui::End();
    ImGui::PopFont();
}

} // namespace ft::views::hud
