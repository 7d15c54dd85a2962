#include "power_layer.h"

#include "views/coverage.h"
#include "views/hud.h"
#include "views/hud_style.h"
#include "views/imgui_overlay.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <imgui.h>

namespace ft::views {

using model::EntityId;
using model::EntityKind;
using model::Vec3;
namespace ch = model::ch;

namespace {
constexpr float kBarFull = 1.4f; // m of bar at the rack's rated power
constexpr Rgb kTripped{110, 24, 28};
constexpr Rgb kDark{200, 40, 40};
constexpr Rgb kDraw{80, 190, 170};
constexpr Rgb kCapped{245, 170, 50};
constexpr Rgb kBudget{235, 238, 245};
} // namespace

Rgb PowerLayer::loadColor(float percent) {
    const float t = std::clamp(percent / 100.0f, 0.0f, 1.2f);
    if (const auto safe = ColorScale::safe(t / 1.2f)) return *safe;
    if (t < 0.7f) return {70, static_cast<std::uint8_t>(150 + 80 * t), 110};
    if (t < 0.95f) return {static_cast<std::uint8_t>(150 + 380 * (t - 0.7f)), 200, 60};
    return {240, static_cast<std::uint8_t>(std::max(40.0f, 170 - 500 * (t - 0.95f))), 45};
}

PowerLayer::PowerLayer(const model::Topology& topology, vtkRenderer* renderer)
    : Layer(kInfo), m_topology(topology), m_feeds(renderer), m_drops(renderer),
      m_bars(renderer, 2 * topology.count(EntityKind::Rack)) {
    const auto& t = topology;
    const auto height = static_cast<float>(t.spec().rack.heightM);
    // Busways (one pipe each); their drops, busway by busway, in their own set (they fade out
    // from afar on a big floor).
    for (EntityId f = 0; f < t.count(EntityKind::PowerFeed); ++f) {
        const EntityId row = t.powerFeeds.row[f];
        const Vec3 a = t.racks.position[t.rows.firstRack[row]];
        const Vec3 b = t.racks.position[t.rows.firstRack[row] + t.rows.rackCount[row] - 1];
        const Vec3 mid = t.position(EntityKind::PowerFeed, f);
        const float half = static_cast<float>(t.spec().rack.widthM) / 2;
        m_feeds.add({a.x - half, mid.y, mid.z}, {b.x + half, mid.y, mid.z}, 0.06f);
    }
    for (EntityId f = 0; f < t.count(EntityKind::PowerFeed); ++f) {
        m_firstDrop.push_back(m_drops.size());
        const EntityId row = t.powerFeeds.row[f];
        const Vec3 mid = t.position(EntityKind::PowerFeed, f);
        for (std::uint32_t i = 0; i < t.rows.rackCount[row]; ++i) {
            const Vec3 p = t.racks.position[t.rows.firstRack[row] + i];
            m_drops.add({p.x, mid.y, mid.z}, {p.x, mid.y, height + 0.02f}, 0.025f);
        }
    }
    m_feeds.finish();
    m_drops.finish();
    applyVisibility(visible());
}

void PowerLayer::applyVisibility(bool visible) {
    m_feeds.setVisible(visible);
    m_drops.setVisible(visible && m_showDrops);
    m_bars.setVisible(visible);
}

void PowerLayer::updateDetail(const CameraView& camera) {
    // 3,500 animated drops on a 1,778-rack floor cost more than the rest of the layer and read
    // as a haze from afar; the busways and the bars carry the overview there.
    m_showDrops = m_topology.count(EntityKind::Rack) <= 256 || camera.rig.distance < 70.0;
    m_drops.setVisible(visible() && m_showDrops);
}

void PowerLayer::update(const model::Snapshot& s) {
    const auto& t = m_topology;
    const bool fill = fillModelled();
    const auto height = static_cast<float>(t.spec().rack.heightM);
    for (EntityId f = 0; f < t.count(EntityKind::PowerFeed); ++f) {
        const float load = s.value(ch::FeedLoad, f);
        const bool tripped = s.value(ch::FeedState, f) >= 2.0f;
        const Coverage c = coverageOf(s, ch::FeedLoad, f, fill);
        const Rgb color = tripped ? kTripped : paintCoverage(loadColor(load), c, f % 2 == 0);
        const bool moving = !tripped && (c == Coverage::Measured || c == Coverage::Modelled);
        const float speed = moving ? 0.2f + 1.6f * std::clamp(load / 100.0f, 0.0f, 1.2f) : 0.0f;
        const std::uint8_t alarm = tripped || c != Coverage::Measured ? 0
                                   : load > 100.0f                    ? 2
                                   : load > 95.0f                     ? 1
                                                                      : 0;
        m_feeds.set(f, color, speed, alarm);
        const EntityId row = t.powerFeeds.row[f];
        for (std::uint32_t i = 0; i < t.rows.rackCount[row]; ++i)
            m_drops.set(m_firstDrop[f] + i, color, speed, alarm);
    }
    m_feeds.commit();
    m_drops.commit();
    const float w = static_cast<float>(t.spec().rack.widthM) * 0.18f;
    for (EntityId r = 0; r < t.count(EntityKind::Rack); ++r) {
        const Vec3 p = t.racks.position[r];
        const float rated = std::max(1.0f, t.racks.ratedPowerKw[r]);
        const float draw = std::max(0.0f, s.value(ch::RackPower, r));
        const float budget = s.value(ch::RackPowerBudget, r);
        const Coverage c = coverageOf(s, ch::RackPower, r, fill);
        Rgb color = s.value(ch::RackPowerOn, r) < 0.5f        ? kDark
                    : s.value(ch::RackPowerCapping, r) > 0.5f ? kCapped
                                                              : kDraw;
        color = paintCoverage(color, c, r % 2 == 0);
        const float x = p.x - static_cast<float>(t.spec().rack.widthM) * 0.3f;
        const float y = p.y - static_cast<float>(t.spec().rack.depthM) * 0.25f;
        const float top = height + 0.02f + kBarFull * std::min(draw / rated, 1.3f);
        m_bars.set(std::size_t{2} * r, {x - w / 2, y - w / 2, height + 0.02f},
                   {x + w / 2, y + w / 2, top}, color);
        // Racky's budget: a thin slab across the bar (at the top when it is the rated power).
        const float b = height + 0.02f + kBarFull * std::clamp(budget / rated, 0.0f, 1.3f);
        const bool dark = s.value(ch::RackPowerOn, r) < 0.5f;
        const bool shown = std::isfinite(budget) && c != Coverage::NoData && !dark;
        m_bars.set(std::size_t{2} * r + 1, {x - w, y - w, shown ? b : height},
                   {x + w, y + w, shown ? b + 0.025f : height}, kBudget);
    }
    m_bars.commit();
}

void PowerLayer::animate(double simSeconds, double wallSeconds) {
    if (!visible()) return;
    m_feeds.animate(simSeconds, wallSeconds);
    if (m_showDrops) m_drops.animate(simSeconds, wallSeconds);
}

void PowerLayer::decorateRackLabel(const HudInput& in, EntityId rack, std::string& label) const {
    if (!visible() || in.cameraDistance >= 30.0) return;
    const auto& s = *in.snapshot;
    char buf[96];
    if (s.value(ch::RackPowerOn, rack) < 0.5f)
        std::snprintf(buf, sizeof buf, "  DARK");
    else
        std::snprintf(buf, sizeof buf, "  %.0f / %.0f kW%s", s.value(ch::RackPower, rack),
                      s.value(ch::RackPowerBudget, rack),
                      s.value(ch::RackPowerCapping, rack) > 0.5f ? " CAPPED" : "");
    label += buf;
}

void PowerLayer::drawHud(const ImGuiOverlay& ov, const HudInput& in, HudColumns& columns) const {
    if (!visible()) return;
    const auto& s = *in.snapshot;
    const auto& t = *in.topology;
    hud::beginRightPanel("##power", in.width, columns);
    double it = 0, ac = 0;
    int capping = 0, dark = 0, notRedundant = 0;
    for (EntityId r = 0; r < t.count(EntityKind::Rack); ++r) {
        it += s.value(ch::RackPower, r);
        ac += s.value(ch::RackPowerInput, r);
        capping += s.value(ch::RackPowerCapping, r) > 0.5f ? 1 : 0;
        dark += s.value(ch::RackPowerOn, r) < 0.5f ? 1 : 0;
        notRedundant += s.value(ch::RackPowerRedundant, r) < 0.5f ? 1 : 0;
    }
    ImGui::Text("Rack power  %.2f MW IT  %.2f MW in", it / 1000.0, ac / 1000.0);
    ImGui::PushFont(ov.smallFont());
    if (drawCoverageNote(in, ch::RackPower, "rack power")) {
        if (capping > 0) ImGui::TextColored(hud::kWarning, "%d racks capped by Racky", capping);
        if (notRedundant > 0)
            ImGui::TextColored(hud::kWarning, "%d racks without 2N redundancy", notRedundant);
        if (dark > 0) ImGui::TextColored(hud::kCritical, "%d racks without power", dark);
        if (capping == 0 && notRedundant == 0 && dark == 0)
            ImGui::TextColored(hud::kGood, "every rack 2N, none capped");
        // Busways, worst first (at most six lines).
        std::vector<EntityId> feeds(t.count(EntityKind::PowerFeed));
        for (EntityId f = 0; f < feeds.size(); ++f)
            feeds[f] = f;
        auto worse = [&](EntityId a, EntityId b) {
            const float sa = s.value(ch::FeedState, a) * 1000 + s.value(ch::FeedLoad, a);
            const float sb = s.value(ch::FeedState, b) * 1000 + s.value(ch::FeedLoad, b);
            return sa > sb;
        };
        std::ranges::sort(feeds, worse);
        for (std::size_t i = 0; i < feeds.size() && i < 6; ++i) {
            const EntityId f = feeds[i];
            const bool tripped = s.value(ch::FeedState, f) >= 2.0f;
            const float load = s.value(ch::FeedLoad, f);
            const ImVec4 c = tripped ? hud::kCritical : load > 95 ? hud::kWarning : hud::kMuted;
            if (tripped)
                ImGui::TextColored(c, "%s  TRIPPED", t.name(EntityKind::PowerFeed, f).c_str());
            else
                ImGui::TextColored(c, "%s  %.0f %%  %.0f kW  %.0f A",
                                   t.name(EntityKind::PowerFeed, f).c_str(), load,
                                   s.value(ch::FeedPower, f), s.value(ch::FeedCurrent, f));
        }
        ImGui::TextColored(hud::kMuted,
                           "bars: draw vs rated, white: Racky's budget, amber: capped");
    }
    ImGui::PopFont();
    hud::endRightPanel(columns);
}

} // namespace ft::views
