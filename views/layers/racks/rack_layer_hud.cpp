// RackLayer's HUD: the overview of a big floor (row tiles, the worst racks), the metric's
// legend and colour bar, the lifecycle states' key and the difference legend of a comparison.
#include "rack_layer.h"
#include "views/hud.h"
#include "views/hud_style.h"
#include "views/imgui_overlay.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace ft::views {

using model::EntityId;
using model::EntityKind;

void RackLayer::drawOverview(const ImGuiOverlay& ov, const HudInput& in) const {
    // From afar a big floor is rows, not racks: each row a tile with its worst value and how many
    // racks are over the normal limit, and the worst racks of the floor lifted out by name.
    const auto& t = m_topology;
    const auto nRacks = static_cast<EntityId>(t.count(EntityKind::Rack));
    if (!visible() || !in.snapshot || !in.project || !in.labels || nRacks <= 256 ||
        in.cameraDistance < 70.0)
        return;
    const auto& s = *in.snapshot;
    const auto& info = model::kChannels[m_metric];
    std::vector<std::pair<float, EntityId>> over;
    std::vector<float> value(nRacks, std::nanf(""));
    for (EntityId r = 0; r < nRacks; ++r) {
        const auto [v, coverage] = rackValue(s, r);
        if (coverage == Coverage::NoData || std::isnan(v)) continue;
        value[r] = v;
        if (v > info.normalMax) over.emplace_back(v, r);
    }
    std::ranges::sort(over, std::greater<>());
    ImDrawList* dl = ImGui::GetBackgroundDrawList();
    const auto top = static_cast<float>(t.spec().rack.heightM);
    ImGui::PushFont(ov.smallFont());
    // The worst racks first: they must not lose their place to a tile.
    for (std::size_t i = 0; i < over.size() && i < 6; ++i) {
        const EntityId r = over[i].second;
        auto p = t.racks.position[r];
        p.z = top;
        const auto a = in.project(p);
        if (!a) continue;
        const std::string text = t.racks.name[r] + "  " + formatValue(over[i].first, m_metric);
        const ImVec2 size = ImGui::CalcTextSize(text.c_str());
        const ImVec2 at(a->x + 14, a->y - 34);
        if (!in.labels->place(at.x - 4, at.y - 2, at.x + size.x + 4, at.y + size.y + 2)) continue;
        dl->AddLine(ImVec2(a->x, a->y), ImVec2(at.x - 4, at.y + size.y / 2),
                    IM_COL32(250, 110, 90, 230), 1.5f);
        dl->AddRectFilled(ImVec2(at.x - 4, at.y - 2), ImVec2(at.x + size.x + 4, at.y + size.y + 2),
                          IM_COL32(90, 20, 16, 230), 3.0f);
        dl->AddText(at, IM_COL32(255, 230, 220, 255), text.c_str());
    }
    for (EntityId row = 0; row < t.count(EntityKind::Row); ++row) {
        const EntityId first = t.rows.firstRack[row];
        const auto n = t.rows.rackCount[row];
        float worst = -1e30f;
        std::size_t measured = 0, above = 0;
        for (EntityId r = first; r < first + n; ++r) {
            if (std::isnan(value[r])) continue;
            ++measured;
            worst = std::max(worst, value[r]);
            above += value[r] > info.normalMax ? 1 : 0;
        }
        auto p = t.racks.position[first + n / 2];
        p.z = top + 0.3f;
        const auto a = in.project(p);
        if (!a) continue;
        const std::string text =
            measured == 0 ? std::string("no data")
                          : formatValue(worst, m_metric) +
                                (above > 0 ? "  " + std::to_string(above) + " over" : "");
        const ImVec2 size = ImGui::CalcTextSize(text.c_str());
        const float x0 = a->x - size.x / 2 - 4, y0 = a->y - size.y - 3;
        if (!in.labels->place(x0, y0, x0 + size.x + 8, a->y)) continue;
        const Rgb c = measured == 0 ? Rgb{70, 73, 80} : mapValue(worst);
        dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x0 + size.x + 8, a->y),
                          IM_COL32(c.r / 3, c.g / 3, c.b / 3, 215), 3.0f);
        dl->AddRect(ImVec2(x0, y0), ImVec2(x0 + size.x + 8, a->y), hud::toImColor(c), 3.0f);
        dl->AddText(ImVec2(x0 + 4, y0 + 1),
                    above > 0 ? IM_COL32(255, 200, 190, 255) : IM_COL32(230, 236, 245, 255),
                    text.c_str());
    }
    ImGui::PopFont();
}

void RackLayer::drawHud(const ImGuiOverlay& ov, const HudInput& in, HudColumns& columns) const {
    drawOverview(ov, in);
    const auto& scale = m_scale;
    const auto channel = m_metric;
    const auto& info = model::kChannels[channel];
    const float scale0 = ImGui::GetIO().FontGlobalScale;
    const float barW = (in.wall ? 520.0f * in.wallScale : 360.0f) * scale0,
                barH = (in.wall ? 26.0f * in.wallScale : 18.0f) * scale0;
    ImGui::SetNextWindowPos(ImVec2(16, columns.leftBottom), 0, ImVec2(0, 1));
    ImGui::Begin("##legend", nullptr, hud::kPanel);
    if (m_baseline) {
        drawDifferenceLegend(ov, barW, barH);
        columns.leftBottom -= ImGui::GetWindowHeight() + 8;
        ImGui::End();
        return;
    }
    if (scale.categorical()) {
        drawStateLegend(in, barW);
        columns.leftBottom -= ImGui::GetWindowHeight() + 8;
        ImGui::End();
        return;
    }
    ImGui::Text("%s (%s)", std::string(info.description).c_str(), std::string(info.unit).c_str());
    ImGui::TextColored(hud::kMuted, "rack tops: %s per rack · fronts: per %s",
                       m_aggregateMax ? "max" : "mean",
                       std::string(model::entityKindName(info.kind)).c_str());
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    constexpr int kSteps = 64;
    for (int i = 0; i < kSteps; ++i) {
        const float a = p.x + barW * static_cast<float>(i) / kSteps,
                    b = p.x + barW * static_cast<float>(i + 1) / kSteps;
        dl->AddRectFilled(
            ImVec2(a, p.y), ImVec2(b + 0.5f, p.y + barH),
            hud::toImColor(ColorScale::palette((static_cast<float>(i) + 0.5f) / kSteps)));
    }
    // Normal-range marker: where the channel's normal maximum sits on the scale.
    const float nx =
        p.x +
        barW * std::clamp((info.normalMax - scale.min()) / (scale.max() - scale.min()), 0.0f, 1.0f);
    dl->AddLine(ImVec2(nx, p.y - 3), ImVec2(nx, p.y + barH + 3), IM_COL32(255, 255, 255, 230),
                2.0f);
    ImGui::Dummy(ImVec2(barW, barH + 2));
    ImGui::PushFont(ov.smallFont());
    constexpr int kTicks = 5;
    const ImVec2 tp = ImGui::GetCursorScreenPos();
    for (int i = 0; i <= kTicks; ++i) {
        const float v = scale.min() + (scale.max() - scale.min()) * static_cast<float>(i) / kTicks;
        char label[32];
        std::snprintf(label, sizeof label, "%.0f", v);
        const float w = ImGui::CalcTextSize(label).x;
        const float x =
            tp.x + barW * static_cast<float>(i) / kTicks - (i == 0 ? 0 : (i == kTicks ? w : w / 2));
        dl->AddText(ImVec2(x, tp.y), IM_COL32(220, 226, 235, 255), label);
    }
    ImGui::Dummy(ImVec2(barW, ImGui::GetTextLineHeight()));
    ImGui::TextColored(hud::kMuted, "white mark: normal limit %s",
                       formatValue(info.normalMax, channel).c_str());
    if (in.snapshot && in.snapshot->telemetry) {
        // What is not a fresh measurement, keyed next to the scale it is never drawn in.
        const float sw = ImGui::GetTextLineHeight();
        const Rgb mid = ColorScale::palette(0.7f);
        hud::coverageSwatch(Coverage::NoData, mid, sw, "no data (never measured)");
        ImGui::SameLine(0, 18);
        hud::coverageSwatch(Coverage::Stale, mid, sw, "stale");
        if (fillModelled()) {
            ImGui::SameLine(0, 18);
            hud::coverageSwatch(Coverage::Modelled, mid, sw, "modelled, not measured");
        }
    }
    ImGui::PopFont();
    columns.leftBottom -= ImGui::GetWindowHeight() + 8;
    ImGui::End();
}

void RackLayer::drawStateLegend(const HudInput& in, float width) const {
    const bool scheduler = m_metric == model::ch::ComputeTraySchedulerState;
    ImGui::TextUnformatted(scheduler ? "Scheduler's node state, as Slurm reports it"
                                     : "GPU health, from each GPU's own counters");
    ImGui::TextColored(hud::kMuted, scheduler ? "rack tops: worst node · fronts: per tray"
                                              : "rack tops: worst GPU · fronts: per GPU");
    const float sw = ImGui::GetTextLineHeight();
    const auto names = ColorScale::stateNames(m_metric);
    const float lineStart = ImGui::GetCursorScreenPos().x;
    float lineEnd = lineStart;
    for (std::size_t h = 0; h < names.size(); ++h) {
        // As many to a line as the legend's width takes: it stays as narrow as the scale bars.
        const float itemW =
            sw + 6 + ImGui::CalcTextSize(names[h].data(), names[h].data() + names[h].size()).x;
        if (h > 0 && lineEnd + 18 + itemW - lineStart <= width) ImGui::SameLine(0, 18);
        const ImVec2 p = ImGui::GetCursorScreenPos();
        ImGui::GetWindowDrawList()->AddRectFilled(
            p, ImVec2(p.x + sw, p.y + sw),
            hud::toImColor(ColorScale::stateColor(m_metric, static_cast<int>(h))));
        ImGui::Dummy(ImVec2(sw, sw));
        ImGui::SameLine(0, 6);
        ImGui::TextUnformatted(names[h].data(), names[h].data() + names[h].size());
        lineEnd = ImGui::GetItemRectMax().x;
    }
    if (in.snapshot && in.snapshot->telemetry) {
        const Rgb mid = ColorScale::stateColor(m_metric, 0);
        hud::coverageSwatch(Coverage::NoData, mid, sw,
                            scheduler ? "no data (not a node the scheduler has)"
                                      : "no data (never measured)");
        ImGui::SameLine(0, 18);
        hud::coverageSwatch(Coverage::Stale, mid, sw, "stale");
    } else {
        ImGui::TextColored(hud::kMuted, scheduler ? "the simulator models no scheduler: a Slurm "
                                                    "source (--source slurm=...) or its recording"
                                                  : "the simulator models no GPU counters: live or "
                                                    "recorded telemetry only");
    }
}

void RackLayer::drawDifferenceLegend(const ImGuiOverlay& ov, float barW, float barH) const {
    const auto& info = model::kChannels[m_metric];
    ImGui::Text("A \u2013 B: %s (%s)", std::string(info.description).c_str(),
                std::string(info.unit).c_str());
    ImGui::TextColored(hud::kMuted, "B: %s at %s", m_baselineLabel.c_str(),
                       model::formatUtc(m_baseline->time).c_str());
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    constexpr int kSteps = 64;
    const float h = differenceRange();
    for (int i = 0; i < kSteps; ++i) {
        const float a = p.x + barW * static_cast<float>(i) / kSteps,
                    b = p.x + barW * static_cast<float>(i + 1) / kSteps;
        const float v = -h + 2 * h * (static_cast<float>(i) + 0.5f) / kSteps;
        dl->AddRectFilled(ImVec2(a, p.y), ImVec2(b + 0.5f, p.y + barH),
                          hud::toImColor(mapValue(v)));
    }
    ImGui::Dummy(ImVec2(barW, barH + 2));
    ImGui::PushFont(ov.smallFont());
    const ImVec2 tp = ImGui::GetCursorScreenPos();
    constexpr int kTicks = 4;
    for (int i = 0; i <= kTicks; ++i) {
        const float v = -h + 2 * h * static_cast<float>(i) / kTicks;
        char label[32];
        std::snprintf(label, sizeof label, "%+.*f", h < 5 ? 1 : 0, static_cast<double>(v));
        const float w = ImGui::CalcTextSize(label).x;
        const float x =
            tp.x + barW * static_cast<float>(i) / kTicks - (i == 0 ? 0 : (i == kTicks ? w : w / 2));
        dl->AddText(ImVec2(x, tp.y), IM_COL32(220, 226, 235, 255), label);
    }
    ImGui::Dummy(ImVec2(barW, ImGui::GetTextLineHeight()));
    const float sw = ImGui::GetTextLineHeight();
    hud::coverageSwatch(Coverage::NoData, mapValue(0), sw, "no data on either side");
    ImGui::PopFont();
}

} // namespace ft::views
