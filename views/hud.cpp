#include "hud.h"

#include "alarm_causes.h"
#include "coverage.h"
#include "hud_parts.h"
#include "hud_style.h"
#include "imgui_overlay.h"
#include "layer.h"
#include "model/incident_tracker.h"
#include "model/lifecycle.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <imgui.h>
#include <imgui_internal.h>
#include <string_view>
#include <unordered_map>

namespace ft::views {

using model::EntityKind;

namespace {

using hud::kCritical;
using hud::kGood;
using hud::kMuted;
using hud::kPanel;
using hud::kWarning;

// The incidents still open, newest first: the root, then what it led to, then the jobs it hurt.
void drawOpenIncidents(const HudInput& in) {
    const auto* incidents = in.incidents;
    if (!incidents) return;
    int drawn = 0;
    for (auto it = incidents->rbegin(); it != incidents->rend() && drawn < (in.wall ? 2 : 1);
         ++it) {
        if (it->end != 0) continue;
        ImGui::Separator();
        ImGui::TextColored(kWarning, "ROOT CAUSE");
        ImGui::SameLine();
        ImGui::TextUnformatted(it->rootText.c_str());
        std::string chain;
        int steps = 0;
        for (const auto& st : it->chain) {
            if (st.what.starts_with("alarm: ")) continue; // the alarm list shows those
            if (steps++ == 6) {
                chain += " \u2192 \u2026";
                break;
            }
            chain += (chain.empty() ? "\u2192 " : " \u2192 ") + st.what;
            if (st.entities.size() > 1)
                chain += " (" + std::to_string(st.entities.size()) + " " +
                         std::string(model::entityKindName(st.kind)) + "s)";
        }
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + ImGui::GetFontSize() * 30);
        if (!chain.empty()) ImGui::TextWrapped("%s", chain.c_str());
        if (!it->jobs.empty()) {
            std::string jobs = it->jobs[0];
            if (it->jobs.size() > 1) jobs += " + " + std::to_string(it->jobs.size() - 1) + " more";
            ImGui::TextColored(kMuted, "jobs hurt: %s", jobs.c_str());
        }
        ImGui::PopTextWrapPos();
        ++drawn;
    }
}

float drawAlarmPanel(const ImGuiOverlay& ov, const HudInput& in, ImVec2 sourceCorner) {
    const auto& alarms = in.snapshot->alarms;
    // Top right; below the source panel where the view is too narrow for both side by side
    // and tall enough to keep the lower panels clear (its size from the last frame: a panel's
    // own size is known only once drawn).
    float top = 16;
    if (const ImGuiWindow* last = ImGui::FindWindowByName("##alarms");
        last && in.width - 16 - last->Size.x < sourceCorner.x + 8 &&
        sourceCorner.y + 8 + last->Size.y <= 0.6f * in.height)
        top = sourceCorner.y + 8;
    ImGui::SetNextWindowPos(ImVec2(in.width - 16, top), 0, ImVec2(1, 0));
    ImGui::Begin("##alarms", nullptr, kPanel);
    const auto& sum = *in.summary;
    if (in.focus) {
        // The alarm the camera went to, large, with what it names and how long it has lasted.
        ImGui::PushFont(ov.largeFont());
        ImGui::TextColored(in.focus->critical ? kCritical : kWarning, "%s",
                           in.focus->critical ? "CRITICAL" : "WARNING");
        ImGui::SameLine();
        ImGui::TextUnformatted(in.focus->title.c_str());
        ImGui::PopFont();
        ImGui::TextUnformatted(in.focus->detail.c_str());
        if (in.focus->of > 1)
            ImGui::TextColored(kMuted, "critical cause %d of %d, worst first", in.focus->index,
                               in.focus->of);
        ImGui::Separator();
    }
    ImGui::PushFont(ov.largeFont());
    if (alarms.empty())
        ImGui::TextColored(kGood, "No active alarms");
    else {
        if (sum.criticalAlarms) ImGui::TextColored(kCritical, "%zu CRITICAL", sum.criticalAlarms);
        if (sum.criticalAlarms && sum.warningAlarms) ImGui::SameLine();
        if (sum.warningAlarms) ImGui::TextColored(kWarning, "%zu WARNING", sum.warningAlarms);
    }
    ImGui::PopFont();
    // One line per cause ("64 racks  Low coolant flow  (CDU BK2)"); a cause on one entity
    // names the entity.
    const auto& t = *in.topology;
    const auto causes = groupAlarms(t, alarms);
    const std::size_t shown =
        std::min<std::size_t>(causes.size(), in.focus ? 3 : (in.wall ? 8 : 6));
    for (std::size_t i = 0; i < shown; ++i) {
        const AlarmCause& c = causes[i];
        const auto& a = *c.worst;
        ImGui::TextColored(a.severity == model::Severity::Critical ? kCritical : kWarning, "%s",
                           a.severity == model::Severity::Critical ? "CRIT" : "WARN");
        ImGui::SameLine();
        if (c.count == 1) {
            ImGui::Text("%-8s %s", t.name(a.kind, a.entity).c_str(), std::string(a.title).c_str());
        } else {
            const std::string kind(model::entityKindName(a.kind));
            ImGui::Text("%zu %ss  %s", c.count,
                        kind == "psu"           ? "PSU"
                        : kind == "power_shelf" ? "shelve"
                                                : kind.c_str(),
                        std::string(a.title).c_str());
            ImGui::SameLine();
            ImGui::TextColored(kMuted, "(%s)", c.where.c_str());
        }
        // State channels (leak, power, pump health) say it all in the title; measured ones
        // show the value against its limit (the longest-standing of the group's).
        if (!model::kChannels[a.channel].unit.empty()) {
            ImGui::SameLine();
            ImGui::Text(" %s", formatValue(a.value, a.channel).c_str());
            ImGui::SameLine();
            ImGui::TextColored(kMuted, "(limit %s)", formatValue(a.threshold, a.channel).c_str());
        }
    }
    if (causes.size() > shown)
        ImGui::TextColored(kMuted, "+ %zu more causes (%zu alarms)", causes.size() - shown,
                           alarms.size());
    drawOpenIncidents(in);
    const float bottom = ImGui::GetWindowPos().y + ImGui::GetWindowHeight();
    ImGui::End();
    return bottom;
}

// Row signs hang above the start of each row; first claim on the label space.
void drawRowSigns(const ImGuiOverlay& ov, const HudInput& in) {
    if (!in.project || !in.labels) return;
    const auto& t = *in.topology;
    ImDrawList* dl = ImGui::GetBackgroundDrawList();
    const bool manyRows = t.count(EntityKind::Row) > 12;
    ImGui::PushFont(manyRows ? ov.bodyFont() : ov.largeFont());
    for (std::size_t r = 0; r < t.count(EntityKind::Row); ++r) {
        const std::string label = manyRows ? t.rows.name[r] : "Row " + t.rows.name[r];
        const ImVec2 size = ImGui::CalcTextSize(label.c_str());
        // Over the row's first rack; where a panel or another sign is there, over its middle
        // rack, then its last: a row keeps its name on screen while any of them is free.
        const auto first = t.rows.firstRack[r], count = t.rows.rackCount[r];
        for (const auto rack : {first, first + count / 2, first + count - 1}) {
            auto p = t.racks.position[rack];
            p.z = static_cast<float>(t.spec().rack.heightM) + 0.7f;
            const auto s = in.project(p);
            if (!s) continue;
            const ImVec4 rect(s->x - size.x / 2 - 6, s->y - size.y - 4, s->x + size.x / 2 + 6,
                              s->y + 2);
            if (!in.labels->place(rect.x, rect.y, rect.z, rect.w)) continue;
            dl->AddRectFilled(ImVec2(rect.x, rect.y), ImVec2(rect.z, rect.w),
                              IM_COL32(20, 60, 90, 215), 4.0f);
            dl->AddRect(ImVec2(rect.x, rect.y), ImVec2(rect.z, rect.w), IM_COL32(90, 160, 210, 230),
                        4.0f);
            dl->AddText(ImVec2(s->x - size.x / 2, s->y - size.y - 2), IM_COL32(235, 242, 250, 255),
                        label.c_str());
            break;
        }
    }
    ImGui::PopFont();
}

// Rack and CDU names when the camera is close enough to read them; last claim on the space.
void drawRackLabels(const ImGuiOverlay& ov, const HudInput& in) {
    if (!in.project || !in.labels) return;
    const auto& t = *in.topology;
    if (in.cameraDistance > 45.0 || t.count(EntityKind::Rack) == 0) return;
    ImDrawList* dl = ImGui::GetBackgroundDrawList();
    ImGui::PushFont(ov.smallFont());
    for (model::EntityId c = 0; c < t.count(EntityKind::Cdu); ++c) {
        auto p = t.cdus.position[c];
        p.z = static_cast<float>(t.spec().rack.heightM) * 0.85f + 0.12f;
        const auto s = in.project(p);
        if (!s) continue;
        const std::string name = t.name(EntityKind::Cdu, c);
        const ImVec2 size = ImGui::CalcTextSize(name.c_str());
        if (!in.labels->place(s->x - size.x / 2, s->y - size.y - 1, s->x + size.x / 2, s->y))
            continue;
        dl->AddText(ImVec2(s->x - size.x / 2, s->y - size.y - 1), IM_COL32(120, 200, 210, 255),
                    name.c_str());
    }
    // The racks that have something to say ask first: in alarm (critical, then warning), then
    // those a layer calls urgent (a rack being troubleshot), then those a layer decorates (a
    // lifecycle stage, a job, a power state), then plain names.
    struct Candidate {
        int priority;
        model::EntityId rack;
        ScreenPoint at;
        std::string name;
    };
    std::vector<std::uint8_t> alarm(t.count(EntityKind::Rack), 0);
    for (const auto& a : in.snapshot->alarms)
        if (const auto rack = t.rackOf(a.kind, a.entity))
            alarm[*rack] = std::max<std::uint8_t>(alarm[*rack],
                                                  a.severity == model::Severity::Critical ? 2 : 1);
    std::vector<Candidate> racks;
    for (model::EntityId r = 0; r < t.count(EntityKind::Rack); ++r) {
        auto p = t.racks.position[r];
        p.z = static_cast<float>(t.spec().rack.heightM) + 0.12f;
        const auto s = in.project(p);
        if (!s) continue;
        std::string name = t.racks.name[r];
        if (in.layers)
            for (const auto& layer : *in.layers)
                layer->decorateRackLabel(in, r, name);
        int urgency = 0;
        if (in.layers)
            for (const auto& layer : *in.layers)
                urgency += layer->rackLabelUrgency(in, r);
        const bool decorated = name.size() != t.racks.name[r].size();
        racks.push_back({-(4 * alarm[r] + 2 * std::min(urgency, 1) + (decorated ? 1 : 0)), r, *s,
                         std::move(name)});
    }
    std::ranges::stable_sort(racks, {}, &Candidate::priority);
    for (const auto& c : racks) {
        const ScreenPoint* s = &c.at;
        const std::string& name = c.name;
        const ImVec2 size = ImGui::CalcTextSize(name.c_str());
        // Over the rack; where a neighbour's label (or a panel) is, a line or two higher on a
        // leader (long labels of close racks stack in steps), then the same beside it to the
        // left or right; where all are taken, not at all.
        float y = s->y, x = s->x;
        bool placed = false;
        for (int level = 0; level < 3 && !placed; ++level, y -= size.y + 3)
            for (const float dx : {0.0f, -(size.x / 2 + 6), size.x / 2 + 6}) {
                if (level == 0 && dx != 0) continue; // beside it only on a leader
                x = s->x + dx;
                if (in.labels->place(x - size.x / 2 - 4, y - size.y - 2, x + size.x / 2 + 4,
                                     y + 1)) {
                    placed = true;
                    break;
                }
            }
        if (!placed) continue;
        y += size.y + 3; // the loop stepped past the level it placed on
        if (y != s->y)
            dl->AddLine(ImVec2(x, y + 1), ImVec2(s->x, s->y), IM_COL32(160, 170, 185, 150));
        dl->AddRectFilled(ImVec2(x - size.x / 2 - 4, y - size.y - 2),
                          ImVec2(x + size.x / 2 + 4, y + 1), IM_COL32(8, 12, 18, 170), 3.0f);
        dl->AddText(ImVec2(x - size.x / 2, y - size.y - 1), IM_COL32(230, 236, 245, 255),
                    name.c_str());
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
    if (const std::string where = describeCoverage(s, ref.kind, ref.id); !where.empty())
        ImGui::TextColored(s.measuredTime(ref.kind, ref.id) > 0 ? kGood : kWarning, "%s",
                           where.c_str());
    for (const model::ChannelId c : model::allChannels())
        if (model::kChannels[c].kind == ref.kind && listed(s, c))
            ImGui::TextColored(kMuted, "%s  %s",
                               std::string(model::kChannels[c].description).c_str(),
                               formatCoveredValue(s, c, ref.id, in.fillModelled).c_str());
    if (ref.kind == EntityKind::Gpu)
        ImGui::TextColored(kMuted, "host %s", t.hostName(t.gpus.tray[ref.id]).c_str());
    ImGui::EndTooltip();
}

} // namespace

FloorSummary summarize(const model::Topology& t, const model::Snapshot& s) {
    FloorSummary sum;
    sum.telemetry = s.telemetry;
    {
        const auto& spec = t.spec();
        std::size_t trays = spec.hosts.size();
        if (spec.hosts.empty())
            for (const auto installed : t.racks.traysInstalled)
                trays += installed;
        sum.gpusKnown = trays * static_cast<std::size_t>(spec.rack.gpusPerTray);
    }
    const auto temps = s.channel(model::ch::GpuTemperature);
    const auto util = s.channel(model::ch::GpuUtilization);
    const auto power = s.channel(model::ch::GpuPower);
    if (!s.telemetry) {
        for (float kw : s.channel(model::ch::RackPower))
            sum.itPowerMw += kw / 1000.0;
        if (!temps.empty()) {
            const auto it = std::ranges::max_element(temps);
            sum.hottestGpuC = *it;
            sum.hottestGpu = static_cast<model::EntityId>(it - temps.begin());
        }
        const auto rackUtil = s.channel(model::ch::RackGpuUtilization);
        for (float u : rackUtil)
            sum.meanGpuUtilization += u;
        if (!rackUtil.empty()) sum.meanGpuUtilization /= static_cast<float>(rackUtil.size());
        sum.gpusMeasured = t.count(EntityKind::Gpu);
        sum.racksMeasured = t.count(EntityKind::Rack);
    } else {
        // Over what was measured, and only that.
        sum.hottestGpuC = NAN;
        double watts = 0, utilSum = 0;
        for (model::EntityId g = 0; g < temps.size(); ++g) {
            if (s.measuredTime(EntityKind::Gpu, g) == 0) continue;
            ++sum.gpusMeasured;
            if (std::isfinite(temps[g]) && !(temps[g] <= sum.hottestGpuC)) {
                sum.hottestGpuC = temps[g];
                sum.hottestGpu = g;
            }
            if (g < power.size() && std::isfinite(power[g])) watts += power[g];
            if (g < util.size() && std::isfinite(util[g])) utilSum += util[g];
        }
        // A GPU measured for its temperature only has the model's power: no data, not a total.
        const bool powerMeasured = s.measuredChannels.test(model::ch::GpuPower);
        const bool utilMeasured = s.measuredChannels.test(model::ch::GpuUtilization);
        if (!s.measuredChannels.test(model::ch::GpuTemperature)) sum.hottestGpuC = NAN;
        sum.itPowerMw = sum.gpusMeasured > 0 && powerMeasured ? watts / 1e6 : NAN;
        sum.meanGpuUtilization =
            sum.gpusMeasured > 0 && utilMeasured
                ? static_cast<float>(utilSum / static_cast<double>(sum.gpusMeasured))
                : NAN;
        for (model::EntityId r = 0; r < t.count(EntityKind::Rack); ++r) {
            sum.racksMeasured += s.measuredTime(EntityKind::Rack, r) > 0 ? 1 : 0;
            sum.racksStale += s.rackStale(r) ? 1 : 0;
        }
    }
    for (const auto& a : s.alarms)
        (a.severity == model::Severity::Critical ? sum.criticalAlarms : sum.warningAlarms)++;
    return sum;
}

bool drawCoverageNote(const HudInput& in, model::ChannelId channel, const char* what) {
    const auto& s = *in.snapshot;
    if (!s.telemetry) return true;
    if (!s.measuredChannels.test(channel)) {
        if (in.fillModelled) {
            ImGui::TextColored(kWarning, "MODELLED: %s not measured", what);
            return true;
        }
        ImGui::TextColored(kMuted, "no data: %s not measured", what);
        return false;
    }
    const auto kind = model::kChannels[channel].kind;
    const auto n = static_cast<model::EntityId>(in.topology->count(kind));
    std::size_t measured = 0;
    for (model::EntityId e = 0; e < n; ++e)
        measured += s.measuredTime(kind, e) > 0 ? 1 : 0;
    ImGui::TextColored(measured == n ? kGood : kWarning, "measured: %zu of %u %ss%s", measured,
                       static_cast<unsigned>(n), std::string(model::entityKindName(kind)).c_str(),
                       measured == n ? ""
                                     : (in.fillModelled ? " (rest modelled)" : " (rest no data)"));
    return true;
}

void drawHud(const ImGuiOverlay& overlay, const HudInput& given) {
    if (!given.topology || !given.snapshot || !given.summary) return;
    HudInput in = given;
    // A wall's screen: labels in the whole wall's pixels (moved onto the screen at the end).
    const auto& wall = in.wallPlace;
    const float labelsW = wall ? wall->wallWidth : in.width,
                labelsH = wall ? wall->wallHeight : in.height;
    if (wall) {
        ImGui::GetBackgroundDrawList()->PushClipRect(ImVec2(0, 0), ImVec2(labelsW, labelsH), false);
        in.project = [local = given.project, place = *wall](const model::Vec3& p) {
            auto s = local(p);
            if (s) {
                s->x += place.offsetX;
                s->y += place.offsetY;
            }
            return s;
        };
    }
    // One label space per frame: row signs first, the layers' labels, then rack names.
    ScreenLabels labels(labelsW, labelsH);
    ImGuiStyle& style = ImGui::GetStyle();
    style.Alpha = in.hudAlpha;
    style.Colors[ImGuiCol_WindowBg].w = in.panelAlpha;
    if (in.dimScene > 0)
        ImGui::GetBackgroundDrawList()->AddRectFilled(
            ImVec2(0, 0), ImVec2(labelsW, labelsH),
            IM_COL32(0, 0, 0, static_cast<int>(std::clamp(in.dimScene, 0.0f, 1.0f) * 255)));
    if (!in.labels) {
        in.labels = &labels;
        // The HUD's panels (as the last build placed them; a single frame is measured first)
        // claim their space before any label: a label never hides under a panel. On a wall,
        // every screen's panels where they stand on the wall.
        if (in.panels)
            for (const auto& c :
                 wall ? hud::onWall(*wall, *in.panels, in.width, in.height) : *in.panels)
                labels.claim(c.x0, c.y0, c.x1, c.y1);
    }
    drawRowSigns(overlay, in);
    const ImVec2 sourceCorner = hud::drawSourcePanel(overlay, in);
    hud::drawStaleBadges(overlay, in);
    HudColumns columns;
    columns.rightTop = drawAlarmPanel(overlay, in, sourceCorner);
    columns.leftBottom = in.height - 16;
    if (in.layers)
        for (const auto& layer : *in.layers)
            layer->drawHud(overlay, in, columns);
    drawRackLabels(overlay, in);
    if (!in.focus) hud::drawEventPanel(in); // the focus banner says what is happening
    hud::drawCaption(overlay, in);
    drawTooltip(in);
    if (in.panels) {
        in.panels->clear();
        for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
            // The HUD's panels only: not ImGui's implicit debug window, not tooltips. (On a
            // wall, every screen's, before this screen leaves the others' out.)
            if (w->Active && !w->Hidden && (w->Flags & ImGuiWindowFlags_NoDecoration) &&
                !(w->Flags & ImGuiWindowFlags_Tooltip))
                in.panels->push_back(
                    {w->Pos.x, w->Pos.y, w->Pos.x + w->Size.x, w->Pos.y + w->Size.y});
    }
    if (wall) {
        hud::keepWallPanels(*wall, in.width, in.height);
        hud::labelsOntoScreen(*wall);
    }
}

} // namespace ft::views
