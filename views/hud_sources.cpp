// The HUD's live-source block and the stale badges (hud_parts.h).
#include "hud_parts.h"
#include "hud_style.h"
#include "imgui_overlay.h"
#include "screen_labels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <imgui.h>

namespace ft::views::hud {

using model::EntityKind;

namespace {

// The floor's totals: the simulator's, or with telemetry its coverage first, then totals over
// what was measured.
void drawTotals(const HudInput& in) {
    const auto& s = *in.snapshot;
    const auto& sum = *in.summary;
    const auto& t = *in.topology;
    if (!sum.telemetry) {
        ImGui::Text("%zu racks   %zu GPUs   %.2f MW IT", t.count(EntityKind::Rack),
                    t.count(EntityKind::Gpu), sum.itPowerMw);
        ImGui::Text("GPU util %.0f %%   hottest GPU %.1f °C", sum.meanGpuUtilization,
                    sum.hottestGpuC);
        ImGui::TextColored(kMuted, "  %s", t.name(EntityKind::Gpu, sum.hottestGpu).c_str());
    } else {
        // Telemetry: coverage first, then totals over what was measured.
        const bool none = sum.gpusMeasured == 0;
        ImGui::Text("%zu of %zu racks measured   %zu of %zu GPUs", sum.racksMeasured,
                    t.count(EntityKind::Rack), sum.gpusMeasured, sum.gpusKnown);
        if (sum.racksStale > 0)
            ImGui::TextColored(kCritical, "%zu of %zu racks STALE (no data for %.0f s)",
                               sum.racksStale, sum.racksMeasured, model::toSeconds(s.staleAfter));
        if (none)
            ImGui::TextColored(kMuted, "no GPU measured yet: totals have no data");
        else {
            auto figure = [](double v, const char* fmt) {
                if (!std::isfinite(v)) return std::string("no data");
                char buf[32];
                std::snprintf(buf, sizeof buf, fmt, v);
                return std::string(buf);
            };
            ImGui::Text("measured GPUs: power %s   util %s   hottest %s",
                        figure(sum.itPowerMw * 1000.0, "%.0f kW").c_str(),
                        figure(sum.meanGpuUtilization, "%.0f %%").c_str(),
                        figure(sum.hottestGpuC, "%.1f °C").c_str());
            if (std::isfinite(sum.hottestGpuC))
                ImGui::TextColored(kMuted, "  hottest: %s",
                                   t.name(EntityKind::Gpu, sum.hottestGpu).c_str());
        }
        ImGui::TextColored(kMuted, "%s",
                           in.fillModelled ? "unmeasured: model values, hatched"
                                           : "unmeasured: no data (grey, hatched)");
    }
}

// Each live source with its health: an operator must see at once which feed is dead.
void drawSourceLines(const ImGuiOverlay& ov, const HudInput& in) {
    if (in.sources.empty()) return;
    // Each live source with its health: an operator must see at once which feed is dead.
    ImGui::Separator();
    ImGui::PushFont(ov.smallFont());
    const float sourcesTop = ImGui::GetCursorScreenPos().y;
    for (const auto& src : in.sources) {
        const ImVec4 c = src.level == 0 ? kGood : src.level == 1 ? kWarning : kCritical;
        ImGui::TextColored(c, "%s %s",
                           src.level == 0   ? "UP  "
                           : src.level == 1 ? "SLOW"
                                            : "DOWN",
                           src.name.c_str());
        ImGui::SameLine();
        ImGui::TextColored(kMuted, " %s", src.detail.c_str());
        // Telemetry the floor cannot place: the inventory (or the exporter's labels) to fix.
        for (std::size_t i = 0; i < src.unknownHosts.size() && i < 3; ++i) {
            const auto& h = src.unknownHosts[i];
            ImGui::TextColored(kWarning, "   unknown host %s (%llu samples)", h.host.c_str(),
                               static_cast<unsigned long long>(h.samples));
            if (!h.suggestions.empty()) {
                std::string near;
                for (const auto& n : h.suggestions)
                    near += (near.empty() ? "" : ", ") + n;
                ImGui::SameLine();
                ImGui::TextColored(kMuted, " did you mean %s?", near.c_str());
            }
        }
        if (src.unknownHosts.size() > 3)
            ImGui::TextColored(kMuted, "   … %zu more unknown hosts (Sources panel)",
                               src.unknownHosts.size() - 3);
        // What the equipment itself says is wrong (Redfish conditions), worst first.
        for (std::size_t i = 0; i < src.conditions.size() && i < 2; ++i)
            ImGui::TextColored(src.conditions[i].starts_with("Critical") ? kCritical : kWarning,
                               "   %s", src.conditions[i].c_str());
        if (src.conditions.size() > 2)
            ImGui::TextColored(kMuted, "   … %zu more conditions (Sources panel)",
                               src.conditions.size() - 2);
        if (!src.unresolved.empty())
            ImGui::TextColored(kWarning, "   %zu equipment not on this floor, e.g. %s",
                               src.unresolved.size(), src.unresolved.front().first.c_str());
    }
    // Where the unmapped come from: a click on these lines opens the mapping report.
    if (!in.wall)
        ImGui::TextColored(kMuted, "   click for what each metric family became (Sources)");
    if (in.sourcesArea)
        *in.sourcesArea = {ImGui::GetWindowPos().x, sourcesTop,
                           ImGui::GetWindowPos().x + ImGui::GetWindowSize().x,
                           ImGui::GetCursorScreenPos().y};

    ImGui::PopFont();
}

} // namespace

ImVec2 drawSourcePanel(const ImGuiOverlay& ov, const HudInput& in) {
    const auto& s = *in.snapshot;
    ImGui::SetNextWindowPos(ImVec2(16, 16));
    ImGui::Begin("##source", nullptr, kPanel);
    ImGui::PushFont(ov.largeFont());
    ImGui::TextUnformatted("floortwin");
    ImGui::PopFont();
    ImGui::SameLine();
    ImGui::TextColored(kMuted, "  %s", in.topology->spec().name.c_str());
    const std::string time = model::formatUtc(s.time);
    ImGui::PushFont(ov.largeFont());
    ImGui::TextUnformatted(time.c_str());
    ImGui::PopFont();
    if (in.replay)
        ImGui::TextColored(ImVec4(0.45f, 0.7f, 1.0f, 1.0f), "%s",
                           in.paused    ? "REPLAY (paused)"
                           : in.reverse ? "REPLAY BACKWARDS"
                                        : "REPLAY");
    else
        ImGui::TextColored(in.paused ? kWarning : kGood, "%s", in.paused ? "PAUSED" : "LIVE");
    ImGui::SameLine();
    ImGui::TextColored(kMuted, "%s  %gx", in.sourceLabel.c_str(), in.speed);
    if (in.frameMs) {
        // The cost of a frame, not the redraw rate: frames are drawn when something changes.
        ImGui::SameLine();
        ImGui::TextColored(kMuted, "  frame %.1f ms", *in.frameMs);
        if (in.redrawsPerSecond) {
            ImGui::SameLine();
            ImGui::TextColored(kMuted, "· %.0f redraws/s", *in.redrawsPerSecond);
        }
    }
    if (!in.warning.empty()) ImGui::TextColored(kWarning, "%s", in.warning.c_str());
    ImGui::Separator();
    drawTotals(in);
    if (in.sourcesArea) *in.sourcesArea = {};
    drawSourceLines(ov, in);
    const ImVec2 corner(ImGui::GetWindowPos().x + ImGui::GetWindowSize().x,
                        ImGui::GetWindowPos().y + ImGui::GetWindowSize().y);
    ImGui::End();
    return corner;
}

void drawStaleBadges(const ImGuiOverlay& ov, const HudInput& in) {
    const auto& s = *in.snapshot;
    const auto& t = *in.topology;
    if (!s.telemetry) return;
    ImDrawList* dl = ImGui::GetBackgroundDrawList();
    ImGui::PushFont(ov.smallFont());
    int drawn = 0;
    for (model::EntityId r = 0; r < t.count(EntityKind::Rack) && drawn < 200; ++r) {
        if (!s.rackStale(r)) continue;
        auto p = t.racks.position[r];
        p.z = static_cast<float>(t.spec().rack.heightM) + 0.3f;
        const auto sp = in.project(p);
        if (!sp) continue;
        char label[48];
        std::snprintf(label, sizeof label, "STALE %.0f s",
                      model::toSeconds(s.time - s.measuredTime(EntityKind::Rack, r)));
        const ImVec2 size = ImGui::CalcTextSize(label);
        if (in.labels && !in.labels->place(sp->x - size.x / 2 - 4, sp->y - size.y - 3,
                                           sp->x + size.x / 2 + 4, sp->y + 1))
            continue;
        dl->AddRectFilled(ImVec2(sp->x - size.x / 2 - 4, sp->y - size.y - 3),
                          ImVec2(sp->x + size.x / 2 + 4, sp->y + 1), IM_COL32(60, 62, 70, 230), 3);
        dl->AddText(ImVec2(sp->x - size.x / 2, sp->y - size.y - 1), IM_COL32(255, 200, 120, 255),
                    label);
        ++drawn;
    }
    ImGui::PopFont();
}

} // namespace ft::views::hud
