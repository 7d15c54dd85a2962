#include "hud.h"

#include "imgui_overlay.h"
#include "rack_layer.h"
#include "lifecycle_style.h"
#include "model/lifecycle.h"
#include "nvlink_layer.h"
#include "rail_layer.h"
#include "storage_layer.h"
#include "thermal_layer.h"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace ft::views {

using model::EntityKind;

namespace {

ImU32 toImColor(Rgb c, int alpha = 255) { return IM_COL32(c.r, c.g, c.b, alpha); }
const ImVec4 kMuted(0.62f, 0.68f, 0.76f, 1.0f);
const ImVec4 kCritical(1.0f, 0.33f, 0.30f, 1.0f);
const ImVec4 kWarning(1.0f, 0.75f, 0.25f, 1.0f);
const ImVec4 kGood(0.45f, 0.85f, 0.55f, 1.0f);
constexpr ImGuiWindowFlags kPanel = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoInputs |
                                    ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                                    ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav;

void drawSourcePanel(const ImGuiOverlay& ov, const HudInput& in) {
    const auto& s = *in.snapshot;
    const auto& sum = *in.summary;
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
    if (in.replay) ImGui::TextColored(ImVec4(0.45f, 0.7f, 1.0f, 1.0f), "%s", in.paused ? "REPLAY (paused)" : "REPLAY");
    else ImGui::TextColored(in.paused ? kWarning : kGood, "%s", in.paused ? "PAUSED" : "LIVE");
    ImGui::SameLine();
    ImGui::TextColored(kMuted, "%s  %gx", in.sourceLabel.c_str(), in.speed);
    if (in.frameMs) {
        ImGui::SameLine();
        ImGui::TextColored(kMuted, "  %.0f fps (%.1f ms)", 1000.0 / std::max(*in.frameMs, 0.1), *in.frameMs);
    }
    ImGui::Separator();
    const auto& t = *in.topology;
    ImGui::Text("%zu racks   %zu GPUs   %.2f MW IT", t.count(EntityKind::Rack), t.count(EntityKind::Gpu), sum.itPowerMw);
    ImGui::Text("GPU util %.0f %%   hottest GPU %.1f °C", sum.meanGpuUtilization, sum.hottestGpuC);
    ImGui::TextColored(kMuted, "  %s", t.name(EntityKind::Gpu, sum.hottestGpu).c_str());
    if (!in.sources.empty()) {
        // Each live source with its health: an operator must see at once which feed is dead.
        ImGui::Separator();
        ImGui::PushFont(ov.smallFont());
        for (const auto& src : in.sources) {
            const ImVec4 c = src.level == 0 ? kGood : src.level == 1 ? kWarning : kCritical;
            ImGui::TextColored(c, "%s %s", src.level == 0 ? "UP  " : src.level == 1 ? "SLOW" : "DOWN", src.name.c_str());
            ImGui::SameLine();
            ImGui::TextColored(kMuted, " %s", src.detail.c_str());
        }
        std::size_t stale = 0, measured = 0;
        for (model::EntityId r = 0; r < t.count(EntityKind::Rack); ++r) {
            stale += s.rackStale(r) ? 1 : 0;
            measured += r < s.rackMeasuredAt.size() && s.rackMeasuredAt[r] > 0 ? 1 : 0;
        }
        if (stale > 0) ImGui::TextColored(kCritical, "%zu of %zu racks STALE (no data for %.0f s)", stale, measured, model::toSeconds(s.staleAfter));
        else ImGui::TextColored(kMuted, "%zu racks measured, %zu modelled", measured, t.count(EntityKind::Rack) - measured);
        ImGui::PopFont();
    }
    ImGui::End();
}

void drawStaleBadges(const ImGuiOverlay& ov, const HudInput& in) {
    const auto& s = *in.snapshot;
    const auto& t = *in.topology;
    if (s.rackMeasuredAt.empty()) return;
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
        std::snprintf(label, sizeof label, "STALE %.0f s", model::toSeconds(s.time - s.rackMeasuredAt[r]));
        const ImVec2 size = ImGui::CalcTextSize(label);
        dl->AddRectFilled(ImVec2(sp->x - size.x / 2 - 4, sp->y - size.y - 3), ImVec2(sp->x + size.x / 2 + 4, sp->y + 1), IM_COL32(60, 62, 70, 230), 3);
        dl->AddText(ImVec2(sp->x - size.x / 2, sp->y - size.y - 1), IM_COL32(255, 200, 120, 255), label);
        ++drawn;
    }
    ImGui::PopFont();
}

float drawAlarmPanel(const ImGuiOverlay& ov, const HudInput& in) {
    const auto& alarms = in.snapshot->alarms;
    ImGui::SetNextWindowPos(ImVec2(in.width - 16, 16), 0, ImVec2(1, 0));
    ImGui::Begin("##alarms", nullptr, kPanel);
    const auto& sum = *in.summary;
    ImGui::PushFont(ov.largeFont());
    if (alarms.empty()) ImGui::TextColored(kGood, "No active alarms");
    else {
        if (sum.criticalAlarms) ImGui::TextColored(kCritical, "%zu CRITICAL", sum.criticalAlarms);
        if (sum.criticalAlarms && sum.warningAlarms) ImGui::SameLine();
        if (sum.warningAlarms) ImGui::TextColored(kWarning, "%zu WARNING", sum.warningAlarms);
    }
    ImGui::PopFont();
    // Critical first, then the oldest: what has been wrong longest stays on top.
    std::vector<const model::Alarm*> sorted;
    for (const auto& a : alarms) sorted.push_back(&a);
    std::ranges::sort(sorted, [](const model::Alarm* a, const model::Alarm* b) {
        if (a->severity != b->severity) return a->severity > b->severity;
        return a->since < b->since;
    });
    const std::size_t shown = std::min<std::size_t>(sorted.size(), in.wall ? 8 : 6);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& a = *sorted[i];
        ImGui::TextColored(a.severity == model::Severity::Critical ? kCritical : kWarning, "%s",
                           a.severity == model::Severity::Critical ? "CRIT" : "WARN");
        ImGui::SameLine();
        ImGui::Text("%-8s %s", in.topology->name(a.kind, a.entity).c_str(), std::string(a.title).c_str());
        // State channels (leak, power, pump health) say it all in the title; measured ones
        // show the value against its limit.
        if (!model::kChannels[a.channel].unit.empty()) {
            ImGui::SameLine();
            ImGui::Text(" %s", formatValue(a.value, a.channel).c_str());
            ImGui::SameLine();
            ImGui::TextColored(kMuted, "(limit %s)", formatValue(a.threshold, a.channel).c_str());
        }
    }
    if (sorted.size() > shown) ImGui::TextColored(kMuted, "+ %zu more", sorted.size() - shown);
    const float bottom = ImGui::GetWindowPos().y + ImGui::GetWindowHeight();
    ImGui::End();
    return bottom;
}

float drawLegend(const ImGuiOverlay& ov, const HudInput& in) {
    const auto& scale = in.racks->scale();
    const auto channel = in.racks->metric();
    const auto& info = model::kChannels[channel];
    const float scale0 = ImGui::GetIO().FontGlobalScale;
    const float barW = (in.wall ? 520.0f : 360.0f) * scale0, barH = (in.wall ? 26.0f : 18.0f) * scale0;
    ImGui::SetNextWindowPos(ImVec2(16, in.height - 16), 0, ImVec2(0, 1));
    ImGui::Begin("##legend", nullptr, kPanel);
    ImGui::Text("%s (%s)", std::string(info.description).c_str(), std::string(info.unit).c_str());
    ImGui::TextColored(kMuted, "rack tops: %s per rack · fronts: per %s", in.racks->aggregatesByMax() ? "max" : "mean",
                       std::string(model::entityKindName(info.kind)).c_str());
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    constexpr int kSteps = 64;
    for (int i = 0; i < kSteps; ++i) {
        const float a = p.x + barW * static_cast<float>(i) / kSteps, b = p.x + barW * static_cast<float>(i + 1) / kSteps;
        dl->AddRectFilled(ImVec2(a, p.y), ImVec2(b + 0.5f, p.y + barH),
                          toImColor(ColorScale::palette((static_cast<float>(i) + 0.5f) / kSteps)));
    }
    // Normal-range marker: where the channel's normal maximum sits on the scale.
    const float nx = p.x + barW * std::clamp((info.normalMax - scale.min()) / (scale.max() - scale.min()), 0.0f, 1.0f);
    dl->AddLine(ImVec2(nx, p.y - 3), ImVec2(nx, p.y + barH + 3), IM_COL32(255, 255, 255, 230), 2.0f);
    ImGui::Dummy(ImVec2(barW, barH + 2));
    ImGui::PushFont(ov.smallFont());
    constexpr int kTicks = 5;
    const ImVec2 tp = ImGui::GetCursorScreenPos();
    for (int i = 0; i <= kTicks; ++i) {
        const float v = scale.min() + (scale.max() - scale.min()) * static_cast<float>(i) / kTicks;
        char label[32];
        std::snprintf(label, sizeof label, "%.0f", v);
        const float w = ImGui::CalcTextSize(label).x;
        const float x = tp.x + barW * static_cast<float>(i) / kTicks - (i == 0 ? 0 : (i == kTicks ? w : w / 2));
        dl->AddText(ImVec2(x, tp.y), IM_COL32(220, 226, 235, 255), label);
    }
    ImGui::Dummy(ImVec2(barW, ImGui::GetTextLineHeight()));
    ImGui::TextColored(kMuted, "white mark: normal limit %s", formatValue(info.normalMax, channel).c_str());
    ImGui::PopFont();
    const float height = ImGui::GetWindowHeight();
    ImGui::End();
    return height;
}

void drawCoolantLegend(const ImGuiOverlay& ov, const HudInput& in, float below) {
    const float scale0 = ImGui::GetIO().FontGlobalScale;
    const float barW = (in.wall ? 420.0f : 300.0f) * scale0, barH = (in.wall ? 22.0f : 14.0f) * scale0;
    // Stacked above the metric legend, bottom left.
    ImGui::SetNextWindowPos(ImVec2(16, in.height - 24 - below), 0, ImVec2(0, 1));
    ImGui::Begin("##coolant", nullptr, kPanel);
    ImGui::TextUnformatted("Coolant temperature (°C)");
    ImGui::TextColored(kMuted, "pipes: supply front, return back; bands move with the flow");
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    constexpr int kSteps = 48;
    const float span = ThermalLayer::kScaleMax - ThermalLayer::kScaleMin;
    for (int i = 0; i < kSteps; ++i) {
        const float a = p.x + barW * static_cast<float>(i) / kSteps, b = p.x + barW * static_cast<float>(i + 1) / kSteps;
        const float c = ThermalLayer::kScaleMin + span * (static_cast<float>(i) + 0.5f) / kSteps;
        dl->AddRectFilled(ImVec2(a, p.y), ImVec2(b + 0.5f, p.y + barH), toImColor(ThermalLayer::coolantColor(c)));
    }
    ImGui::Dummy(ImVec2(barW, barH + 2));
    ImGui::PushFont(ov.smallFont());
    const ImVec2 tp = ImGui::GetCursorScreenPos();
    for (float c = ThermalLayer::kScaleMin; c <= ThermalLayer::kScaleMax + 0.1f; c += 10.0f) {
        char label[16];
        std::snprintf(label, sizeof label, "%.0f", c);
        const float w = ImGui::CalcTextSize(label).x;
        const float x = tp.x + barW * (c - ThermalLayer::kScaleMin) / span - w / 2;
        dl->AddText(ImVec2(std::clamp(x, tp.x, tp.x + barW - w), tp.y), IM_COL32(220, 226, 235, 255), label);
    }
    ImGui::Dummy(ImVec2(barW, ImGui::GetTextLineHeight()));
    ImGui::PopFont();
    ImGui::End();
}

void drawLifecycleLegend(const ImGuiOverlay& ov, const HudInput& in, float top) {
    // Every state with its colour and how many racks are in it; states nobody is in are muted.
    std::array<int, 12> counts{};
    for (auto st : in.snapshot->rackLifecycle) ++counts[static_cast<std::size_t>(st)];
    // Under the alarm list, top right, in the small font: it is a key, not news.
    ImGui::SetNextWindowPos(ImVec2(in.width - 16, top + 8), 0, ImVec2(1, 0));
    ImGui::Begin("##lifecycle", nullptr, kPanel);
    ImGui::TextUnformatted("Rack lifecycle");
    ImGui::PushFont(ov.smallFont());
    if (in.lifecycleFilter)
        ImGui::TextColored(kWarning, "showing only: %s", std::string(model::lifecycleTitle(*in.lifecycleFilter)).c_str());
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (std::size_t i = 0; i < counts.size(); ++i) {
        const auto st = static_cast<model::RackLifecycle>(i);
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float h = ImGui::GetTextLineHeight();
        dl->AddRectFilled(ImVec2(p.x, p.y + 2), ImVec2(p.x + h * 1.4f, p.y + h - 2), toImColor(lifecycleColor(st), counts[i] ? 255 : 90), 3.0f);
        ImGui::Dummy(ImVec2(h * 1.6f, h));
        ImGui::SameLine();
        const ImVec4 colour = counts[i] ? ImVec4(0.9f, 0.93f, 0.97f, 1) : kMuted;
        ImGui::TextColored(colour, "%-26s %d", std::string(model::lifecycleTitle(st)).c_str(), counts[i]);
    }
    ImGui::TextColored(kMuted, "cap over each rack: state; bright part = stage progress");
    ImGui::PopFont();
    ImGui::End();
}

float drawStoragePanel(const ImGuiOverlay& ov, const HudInput& in, float top) {
    const auto& s = *in.snapshot;
    const auto& t = *in.topology;
    namespace ch = model::ch;
    // Labels on the stores: region, then each tier's bytes.
    ImDrawList* dl = ImGui::GetBackgroundDrawList();
    ImGui::PushFont(ov.smallFont());
    const std::size_t nTiers = t.spec().storage.tiers.size();
    for (model::EntityId region = 0; region < t.count(model::EntityKind::Region); ++region)
        for (std::size_t k = 0; k < nTiers; ++k) {
            auto p = in.storage->tierTop(region, static_cast<int>(k));
            p.z += 0.15f;
            const auto sp = in.project(p);
            if (!sp) continue;
            char label[96];
            const float tb = s.value(ch::TierBytes, static_cast<model::EntityId>(region * nTiers + k));
            std::snprintf(label, sizeof label, "%s %.1f PB", t.spec().storage.tiers[k].c_str(), tb / 1000.0f);
            const ImVec2 size = ImGui::CalcTextSize(label);
            dl->AddRectFilled(ImVec2(sp->x - size.x / 2 - 3, sp->y - size.y - 2), ImVec2(sp->x + size.x / 2 + 3, sp->y + 1), IM_COL32(8, 12, 18, 180), 3);
            dl->AddText(ImVec2(sp->x - size.x / 2, sp->y - size.y - 1), toImColor(StorageLayer::tierColor(static_cast<int>(k))), label);
            if (k == 0) {
                auto rp = in.storage->tierTop(region, 0);
                rp.z = 4.2f;
                if (const auto q = in.project(rp)) {
                    const std::string name = t.spec().storage.regions[region] + (region == 0 ? " (local)" : " (remote)");
                    dl->AddText(ImVec2(q->x, q->y), IM_COL32(225, 232, 242, 255), name.c_str());
                }
            }
        }
    ImGui::PopFont();
    // The figures an operator asks first.
    float read = 0, hitWeighted = 0, writes = 0;
    for (model::EntityId r = 0; r < t.count(model::EntityKind::Rack); ++r) {
        read += s.value(ch::RackStorageRead, r);
        hitWeighted += s.value(ch::RackStorageRead, r) * s.value(ch::RackCacheHitRatio, r);
        writes += s.value(ch::RackCheckpointWrite, r);
    }
    float p99 = 0;
    for (model::EntityId tray = 0; tray < t.count(model::EntityKind::ComputeTray); ++tray) p99 = std::max(p99, s.value(ch::CacheLatencyP99, tray));
    ImGui::SetNextWindowPos(ImVec2(in.width - 16, top + 8), 0, ImVec2(1, 0));
    ImGui::Begin("##storage", nullptr, kPanel);
    ImGui::TextUnformatted("Object storage");
    ImGui::PushFont(ov.smallFont());
    ImGui::Text("dataset reads %.1f GB/s   cache hit %.2f %%", read, read > 0 ? hitWeighted / read : 0.0f);
    ImGui::Text("bucket reads %.1f GB/s   worst read p99 %.1f ms", s.value(ch::RegionRead, 0), p99);
    ImGui::Text("checkpoint writes %.1f GB/s", writes);
    if (t.count(model::EntityKind::Region) > 1) {
        const float backlog = s.value(ch::RegionBacklog, 0);
        const ImVec4 c = backlog < 2 ? kGood : backlog < 10 ? kWarning : kCritical;
        ImGui::TextColored(c, "to %s: %.1f GB/s of %.1f, backlog %.1f TB, oldest %.0f s", t.spec().storage.regions[1].c_str(),
                           s.value(ch::RegionMigration, 0), s.value(ch::RegionLinkCapacity, 0), backlog, s.value(ch::RegionOldestPending, 0));
    }
    ImGui::TextColored(kMuted, "bars on racks: read rate, colour = cache hit ratio");
    ImGui::PopFont();
    const float bottom = ImGui::GetWindowPos().y + ImGui::GetWindowHeight();
    ImGui::End();
    return bottom;
}

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
            const bool gateFailure = it->kind == model::EventKind::Lifecycle && it->severity == model::Severity::Critical;
            if (it->kind != model::EventKind::ScenarioInjection && it->kind != model::EventKind::Protection && !gateFailure) continue;
            const std::string when = model::formatUtc(it->time).substr(11, 8);
            ImGui::TextColored(kMuted, "%s", when.c_str());
            ImGui::SameLine();
            // One line per event, cut to the panel: the board and the dump have the full text.
            std::string text = it->text;
            const float room = std::max(200.0f, in.width * 0.45f);
            while (text.size() > 8 && ImGui::CalcTextSize(text.c_str()).x > room) text.resize(text.size() - 4);
            if (text.size() < it->text.size()) text += "…";
            ImGui::TextColored(it->kind != model::EventKind::ScenarioInjection ? kCritical : ImVec4(0.9f, 0.93f, 0.97f, 1), "%s", text.c_str());
            ++shown;
        }
    if (shown == 0) ImGui::TextColored(kMuted, "no events yet");
    ImGui::End();
}

void drawLabels(const ImGuiOverlay& ov, const HudInput& in) {
    if (!in.project) return;
    const auto& t = *in.topology;
    ImDrawList* dl = ImGui::GetBackgroundDrawList();
    // Row signs hang above the start of each row. Signs that would overlap one already drawn
    // are skipped, so a 75-row floor stays readable from afar.
    std::vector<ImVec4> drawn;
    auto overlaps = [&](const ImVec4& r) {
        for (const auto& o : drawn)
            if (r.x < o.z && o.x < r.z && r.y < o.w && o.y < r.w) return true;
        return false;
    };
    const bool manyRows = t.count(EntityKind::Row) > 12;
    ImGui::PushFont(manyRows ? ov.bodyFont() : ov.largeFont());
    for (std::size_t r = 0; r < t.count(EntityKind::Row); ++r) {
        auto p = t.racks.position[t.rows.firstRack[r]];
        p.z = static_cast<float>(t.spec().rack.heightM) + 0.7f;
        const auto s = in.project(p);
        if (!s) continue;
        const std::string label = manyRows ? t.rows.name[r] : "Row " + t.rows.name[r];
        const ImVec2 size = ImGui::CalcTextSize(label.c_str());
        const ImVec4 rect(s->x - size.x / 2 - 6, s->y - size.y - 4, s->x + size.x / 2 + 6, s->y + 2);
        if (overlaps(rect)) continue;
        drawn.push_back(rect);
        dl->AddRectFilled(ImVec2(rect.x, rect.y), ImVec2(rect.z, rect.w), IM_COL32(20, 60, 90, 215), 4.0f);
        dl->AddRect(ImVec2(rect.x, rect.y), ImVec2(rect.z, rect.w), IM_COL32(90, 160, 210, 230), 4.0f);
        dl->AddText(ImVec2(s->x - size.x / 2, s->y - size.y - 2), IM_COL32(235, 242, 250, 255), label.c_str());
    }
    ImGui::PopFont();
    // Rack and CDU names when the camera is close enough to read them.
    if (in.cameraDistance > 45.0 || t.count(EntityKind::Rack) == 0) return;
    ImGui::PushFont(ov.smallFont());
    for (model::EntityId c = 0; c < t.count(EntityKind::Cdu); ++c) {
        auto p = t.cdus.position[c];
        p.z = static_cast<float>(t.spec().rack.heightM) * 0.85f + 0.12f;
        const auto s = in.project(p);
        if (!s || s->x < 0 || s->y < 0 || s->x > in.width || s->y > in.height) continue;
        const std::string name = t.name(EntityKind::Cdu, c);
        const ImVec2 size = ImGui::CalcTextSize(name.c_str());
        dl->AddText(ImVec2(s->x - size.x / 2, s->y - size.y - 1), IM_COL32(120, 200, 210, 255), name.c_str());
    }
    for (model::EntityId r = 0; r < t.count(EntityKind::Rack); ++r) {
        auto p = t.racks.position[r];
        p.z = static_cast<float>(t.spec().rack.heightM) + 0.12f;
        const auto s = in.project(p);
        if (!s || s->x < 0 || s->y < 0 || s->x > in.width || s->y > in.height) continue;
        std::string name = t.racks.name[r];
        if (in.lifecycle && in.cameraDistance < 30.0 && r < in.snapshot->rackLifecycle.size() &&
            in.snapshot->rackLifecycle[r] != model::RackLifecycle::Production) {
            // Stage and progress at a glance.
            char badge[64];
            std::snprintf(badge, sizeof badge, "  %s %.0f%%", std::string(lifecycleShort(in.snapshot->rackLifecycle[r])).c_str(),
                          in.snapshot->value(model::ch::RackLifecycleProgress, r));
            name += badge;
        }
        if (in.thermal && in.cameraDistance < 30.0) {
            // ΔT and heat at a glance.
            char badge[64];
            std::snprintf(badge, sizeof badge, "  ΔT %.1f K  %.0f kW", in.snapshot->value(model::ch::RackDeltaTemperature, r),
                          in.snapshot->value(model::ch::RackHeatRemoved, r));
            name += badge;
        }
        const ImVec2 size = ImGui::CalcTextSize(name.c_str());
        dl->AddRectFilled(ImVec2(s->x - size.x / 2 - 4, s->y - size.y - 2), ImVec2(s->x + size.x / 2 + 4, s->y + 1),
                          IM_COL32(8, 12, 18, 170), 3.0f);
        dl->AddText(ImVec2(s->x - size.x / 2, s->y - size.y - 1), IM_COL32(230, 236, 245, 255), name.c_str());
    }
    ImGui::PopFont();
}

void drawTooltip(const HudInput& in) {
    if (!in.hover) return;
    const auto& t = *in.topology;
    const auto& s = *in.snapshot;
    const auto ref = *in.hover;
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(t.name(ref.kind, ref.id).c_str());
    for (model::ChannelId c = 0; c < model::kChannels.size(); ++c)
        if (model::kChannels[c].kind == ref.kind)
            ImGui::TextColored(kMuted, "%s  %s", std::string(model::kChannels[c].description).c_str(),
                               formatValue(s.value(c, ref.id), c).c_str());
    if (ref.kind == EntityKind::Gpu) ImGui::TextColored(kMuted, "host %s", t.hostName(t.gpus.tray[ref.id]).c_str());
    ImGui::EndTooltip();
}

} // namespace

FloorSummary summarize(const model::Topology& t, const model::Snapshot& s) {
    FloorSummary sum;
    for (float kw : s.channel(model::ch::RackPower)) sum.itPowerMw += kw / 1000.0;
    const auto temps = s.channel(model::ch::GpuTemperature);
    if (!temps.empty()) {
        const auto it = std::ranges::max_element(temps);
        sum.hottestGpuC = *it;
        sum.hottestGpu = static_cast<model::EntityId>(it - temps.begin());
    }
    const auto util = s.channel(model::ch::RackGpuUtilization);
    for (float u : util) sum.meanGpuUtilization += u;
    if (!util.empty()) sum.meanGpuUtilization /= static_cast<float>(util.size());
    for (const auto& a : s.alarms) (a.severity == model::Severity::Critical ? sum.criticalAlarms : sum.warningAlarms)++;
    (void)t;
    return sum;
}

std::string formatValue(float value, model::ChannelId channel) {
    const auto& info = model::kChannels[channel];
    char buf[48];
    if (!std::isfinite(value)) return "no data";
    if (info.unit.empty()) {
        // State channels: say the state.
        if (channel == model::ch::PumpHealth) return value < 0.5f ? "OK" : (value < 1.5f ? "degraded" : "failed");
        if (channel == model::ch::RackPowerOn) return value > 0.5f ? "on" : "off";
        if (channel == model::ch::TrayValidation) {
            const int v = static_cast<int>(value);
            if (v == 0) return "not validating";
            if (v == 10) return "passed";
            if (v >= 20 && v < 20 + static_cast<int>(model::kNodeCheckTitles.size()))
                return "failed: " + std::string(model::kNodeCheckTitles[v - 20]);
            if (v >= 1 && v <= static_cast<int>(model::kNodeCheckTitles.size())) return "running: " + std::string(model::kNodeCheckTitles[v - 1]);
            return "pending";
        }
        if (channel == model::ch::RackLinkFlaps) return std::to_string(static_cast<int>(value));
        if (channel == model::ch::RackLifecycleState) {
            const int v = static_cast<int>(value);
            return v >= 0 && v < static_cast<int>(model::kLifecycleTitles.size()) ? std::string(model::kLifecycleTitles[v]) : "?";
        }
        return value > 0.5f ? "yes" : "no";
    }
    const float mag = std::abs(value);
    const int decimals = mag >= 1000 ? 0 : (mag >= 100 ? 0 : 1);
    std::snprintf(buf, sizeof buf, "%.*f %s", decimals, value, std::string(info.unit).c_str());
    return buf;
}

float drawFabricPanel(const ImGuiOverlay& ov, const HudInput& in, float top) {
    // Where the bytes move, in the figures a network operator reads first: per plane and rail
    // throughput and load, links down, NVLink in total and racks running with it disabled.
    const auto& s = *in.snapshot;
    const auto& t = *in.topology;
    namespace ch = model::ch;
    using model::EntityKind;
    const float scale0 = ImGui::GetIO().FontGlobalScale;
    ImGui::SetNextWindowPos(ImVec2(in.width - 16, top + 8), 0, ImVec2(1, 0));
    ImGui::Begin("##fabric", nullptr, kPanel);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    if (in.rails) {
        float total = 0;
        for (model::EntityId p = 0; p < t.count(EntityKind::Plane); ++p) total += s.value(ch::PlaneThroughput, p);
        ImGui::Text("Rail fabric  %.1f Tb/s", total);
        ImGui::PushFont(ov.smallFont());
        // One cell per rail: its load on the utilization scale, with the figure inside.
        const float cell = (in.wall ? 76.0f : 52.0f) * scale0, h = ImGui::GetTextLineHeight() + 6;
        ImVec2 p = ImGui::GetCursorScreenPos();
        std::uint32_t down = 0;
        for (model::EntityId r = 0; r < t.count(EntityKind::Rail); ++r) {
            const float util = s.value(ch::RailUtilization, r);
            const float linksDown = s.value(ch::RailLinksDown, r);
            down += static_cast<std::uint32_t>(linksDown);
            const bool dead = linksDown >= static_cast<float>(t.count(EntityKind::ComputeTray));
            const ImVec2 a(p.x + static_cast<float>(r) * (cell + 3), p.y), b(a.x + cell, a.y + h);
            dl->AddRectFilled(a, b, toImColor(dead ? RailLayer::kDown : RailLayer::utilizationColor(util)), 3);
            char label[24];
            std::snprintf(label, sizeof label, dead ? "R%u off" : "R%u %.0f%%", static_cast<unsigned>(r), util);
            dl->AddText(ImVec2(a.x + 3, a.y + 3), dead || util > 40 ? IM_COL32(15, 15, 20, 255) : IM_COL32(240, 244, 250, 255), label);
        }
        ImGui::Dummy(ImVec2(static_cast<float>(t.count(EntityKind::Rail)) * (cell + 3), h + 2));
        for (model::EntityId pl = 0; pl < t.count(EntityKind::Plane); ++pl) ImGui::Text("plane %u: %.1f Tb/s   ", static_cast<unsigned>(pl), s.value(ch::PlaneThroughput, pl));
        float spineMax = 0;
        for (model::EntityId sp = 0; sp < t.count(EntityKind::Spine); ++sp) spineMax = std::max(spineMax, s.value(ch::SpineUtilization, sp));
        float leafMax = 0;
        for (model::EntityId l = 0; l < t.count(EntityKind::Leaf); ++l) leafMax = std::max(leafMax, s.value(ch::LeafUtilization, l));
        ImGui::Text("busiest leaf %.0f %%, busiest spine %.0f %%", leafMax, spineMax);
        ImGui::TextColored(down > 0 ? kCritical : kGood, down > 0 ? "%u NIC links down" : "all NIC links up", down);
        // The utilization scale (square root: low loads stay apart).
        const float barW = (in.wall ? 420.0f : 300.0f) * scale0, barH = (in.wall ? 18.0f : 12.0f) * scale0;
        p = ImGui::GetCursorScreenPos();
        constexpr int kSteps = 48;
        for (int i = 0; i < kSteps; ++i) {
            const float x0 = p.x + barW * static_cast<float>(i) / kSteps, x1 = p.x + barW * static_cast<float>(i + 1) / kSteps;
            const float u = 100.0f * (static_cast<float>(i) + 0.5f) / kSteps;
            dl->AddRectFilled(ImVec2(x0, p.y), ImVec2(x1 + 0.5f, p.y + barH), toImColor(RailLayer::utilizationColor(u)));
        }
        ImGui::Dummy(ImVec2(barW, barH + 2));
        ImGui::TextColored(kMuted, "link utilization 0 - 100 %%; width = load, bands = direction, red = down");
        ImGui::PopFont();
    }
    if (in.nvlink) {
        float nv = 0, errors = 0;
        int disabled = 0;
        for (model::EntityId r = 0; r < t.count(EntityKind::Rack); ++r) {
            nv += s.value(ch::RackNvlinkThroughput, r);
            errors += s.value(ch::RackNvlinkErrors, r);
            disabled += s.value(ch::RackNvlinkDisabled, r) > 0.5f ? 1 : 0;
        }
        ImGui::Text("NVLink  %.0f TB/s inside racks", nv);
        ImGui::PushFont(ov.smallFont());
        if (disabled > 0) ImGui::TextColored(kWarning, "%d racks with NVLink disabled (traffic on the rails)", disabled);
        if (errors > 0) ImGui::TextColored(kWarning, "%.0f NVLink errors (CRC, replay, recovery)", errors);
        const float barW = (in.wall ? 420.0f : 300.0f) * scale0, barH = (in.wall ? 18.0f : 12.0f) * scale0;
        const ImVec2 p = ImGui::GetCursorScreenPos();
        constexpr int kSteps = 48;
        for (int i = 0; i < kSteps; ++i) {
            const float x0 = p.x + barW * static_cast<float>(i) / kSteps, x1 = p.x + barW * static_cast<float>(i + 1) / kSteps;
            dl->AddRectFilled(ImVec2(x0, p.y), ImVec2(x1 + 0.5f, p.y + barH), toImColor(NvlinkLayer::loadColor((static_cast<float>(i) + 0.5f) / kSteps)));
        }
        ImGui::Dummy(ImVec2(barW, barH + 2));
        ImGui::TextColored(kMuted, "switch-tray glow: 0 - %.0f TB/s per rack; select a rack for its links", t.spec().rack.nvlinkTBpsPerRack);
        ImGui::PopFont();
    }
    const float bottom = ImGui::GetWindowPos().y + ImGui::GetWindowHeight();
    ImGui::End();
    return bottom;
}

void drawHud(const ImGuiOverlay& overlay, const HudInput& in) {
    if (!in.topology || !in.snapshot || !in.racks || !in.summary) return;
    drawLabels(overlay, in);
    drawSourcePanel(overlay, in);
    drawStaleBadges(overlay, in);
    const float alarmBottom = drawAlarmPanel(overlay, in);
    const float legendHeight = drawLegend(overlay, in);
    if (in.thermal) drawCoolantLegend(overlay, in, legendHeight);
    const float storageBottom = in.storage ? drawStoragePanel(overlay, in, alarmBottom) : alarmBottom;
    const float fabricBottom = in.rails || in.nvlink ? drawFabricPanel(overlay, in, storageBottom) : storageBottom;
    if (in.lifecycle || in.lifecycleFilter) drawLifecycleLegend(overlay, in, fabricBottom);
    drawEventPanel(in);
    drawTooltip(in);
}

} // namespace ft::views
