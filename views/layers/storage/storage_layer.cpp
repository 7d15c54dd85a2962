#include "storage_layer.h"

#include "views/coverage.h"
#include "views/hud.h"
#include "views/hud_style.h"
#include "views/imgui_overlay.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ft::views {

using model::EntityKind;
using model::Vec3;
namespace ch = model::ch;

namespace {
constexpr float kBlock = 1.2f; // tier block footprint, m
constexpr float kBlockPitch = 1.7f;
constexpr float kMaxBlockHeight = 3.2f;
constexpr float kRegionGap = 9.0f;    // between the local and remote stores
constexpr float kBarFullGBps = 40.0f; // a rack reading this much gets a full-height bar
} // namespace

Rgb StorageLayer::hitRatioColor(float percent) {
    // Red below 90 %, amber to 98 %, green at the 99.7 % a warm cache reaches.
    const float t = std::clamp((percent - 90.0f) / 9.7f, 0.0f, 1.0f);
    if (const auto safe = ColorScale::safe(t)) return *safe;
    const float r = t < 0.5f ? 1.0f : 1.0f - (t - 0.5f) * 1.6f,
                g = t < 0.5f ? 0.25f + t * 1.3f : 0.9f;
    return {static_cast<std::uint8_t>(r * 255), static_cast<std::uint8_t>(g * 255),
            static_cast<std::uint8_t>(60 + 60 * t)};
}

Rgb StorageLayer::tierColor(int tier) {
    static constexpr Rgb kTiers[] = {
        {235, 95, 60}, {240, 180, 60}, {90, 150, 235}, {140, 120, 190}};
    return kTiers[std::clamp(tier, 0, 3)];
}

namespace {

// The stores grow with the hall so they read beside it: the demo's size up to a floor about
// 25 m across, then in proportion (a 1,778-rack hall is ~8x).
float storeScale(const model::Topology& t) {
    const float extent = std::max(t.boundsMax.x - t.boundsMin.x, t.boundsMax.y - t.boundsMin.y);
    return std::max(1.0f, extent / 25.0f);
}

// How far behind the remote copy is, by the time the link needs for the backlog (scale-free:
// a checkpoint burst on a big floor is many TB but drains as fast): 0 fine, 1 slow, 2 behind
// (the "Remote copy falling behind" alarm).
int copyLag(float drainS) {
    return drainS < 300 ? 0 : drainS < 600 ? 1 : 2;
}

} // namespace

StorageLayer::StorageLayer(const model::Topology& topology, vtkRenderer* renderer)
    : Layer(kInfo), m_topology(topology), m_bars(renderer, topology.count(EntityKind::Rack)),
      m_tiers(renderer, topology.count(EntityKind::StorageTier)), m_flows(renderer),
      m_tierHeight(topology.count(EntityKind::StorageTier), 0.3f), m_scale(storeScale(topology)) {}

Vec3 StorageLayer::tierBase(model::EntityId region, int tier) const {
    // The stores stand beside the floor, past its last racks: the local one first.
    const float x =
        m_topology.boundsMax.x + 4.0f * m_scale + static_cast<float>(region) * kRegionGap * m_scale;
    const float midY = (m_topology.boundsMin.y + m_topology.boundsMax.y) / 2;
    return {x, midY + (static_cast<float>(tier) - 1.5f) * kBlockPitch * m_scale, 0.0f};
}

Vec3 StorageLayer::tierTop(model::EntityId region, int tier) const {
    Vec3 p = tierBase(region, tier);
    const std::size_t id =
        region * m_topology.spec().storage.tiers.size() + static_cast<std::size_t>(tier);
    p.z = id < m_tierHeight.size() ? m_tierHeight[id] : 0.3f;
    return p;
}

void StorageLayer::applyVisibility(bool visible) {
    m_bars.setVisible(visible);
    m_tiers.setVisible(visible);
    m_flows.setVisible(visible);
}

namespace {
struct Flow {
    Rgb color;
    float speed;
    std::uint8_t alarm;
};
} // namespace

void StorageLayer::update(const model::Snapshot& s) {
    updateBars(s);
    updateTiers(s);
    updateFlows(s);
}

void StorageLayer::updateBars(const model::Snapshot& s) {
    const auto top = static_cast<float>(m_topology.spec().rack.heightM);
    const bool fill = fillModelled();
    // Rack bars.
    for (model::EntityId r = 0; r < m_topology.count(EntityKind::Rack); ++r) {
        const Vec3 c = m_topology.racks.position[r];
        const float read = s.value(ch::RackStorageRead, r);
        const float h = 0.04f + 1.4f * std::min(1.0f, read / kBarFullGBps);
        const Coverage coverage = coverageOf(s, ch::RackStorageRead, r, fill);
        const bool shown = coverage == Coverage::Measured || coverage == Coverage::Modelled ||
                           coverage == Coverage::Stale;
        m_bars.set(r, {c.x - 0.12f, c.y + 0.15f, top + 0.02f},
                   {c.x + 0.12f, c.y + 0.39f, top + 0.02f + (shown ? h : 0.04f)},
                   paintCoverage(hitRatioColor(s.value(ch::RackCacheHitRatio, r)),
                                 coverageOf(s, ch::RackCacheHitRatio, r, fill), r % 2 == 0));
    }
    m_bars.commit();
}

void StorageLayer::updateTiers(const model::Snapshot& s) {
    const std::size_t nTiers = m_topology.spec().storage.tiers.size();
    const std::size_t regions = m_topology.count(EntityKind::Region);
    const bool fill = fillModelled();
    // Tier blocks: height by bytes, on one scale for both regions.
    float maxBytes = 1;
    for (std::size_t i = 0; i < m_topology.count(EntityKind::StorageTier); ++i)
        maxBytes = std::max(maxBytes, s.value(ch::TierBytes, static_cast<model::EntityId>(i)));
    for (model::EntityId region = 0; region < regions; ++region)
        for (std::size_t k = 0; k < nTiers; ++k) {
            const std::size_t id = region * nTiers + k;
            const Vec3 b = tierBase(region, static_cast<int>(k));
            m_tierHeight[id] =
                (0.15f + kMaxBlockHeight *
                             s.value(ch::TierBytes, static_cast<model::EntityId>(id)) / maxBytes) *
                m_scale;
            const float half = kBlock * m_scale / 2;
            m_tiers.set(
                id, {b.x - half, b.y - half, 0}, {b.x + half, b.y + half, m_tierHeight[id]},
                paintCoverage(tierColor(static_cast<int>(k)),
                              coverageOf(s, ch::TierBytes, static_cast<model::EntityId>(id), fill),
                              id % 2 == 0));
        }
    m_tiers.commit();
}

void StorageLayer::updateFlows(const model::Snapshot& s) {
    const std::size_t nTiers = m_topology.spec().storage.tiers.size();
    const std::size_t regions = m_topology.count(EntityKind::Region);
    const bool fill = fillModelled();
    // With telemetry: a flow or tier nobody measured is drawn as no data (thin, grey, still).
    auto paintFlow = [&](Flow f, Coverage c) {
        f.color = paintCoverage(f.color, c, false);
        if (c == Coverage::NoData || c == Coverage::Stale) f.speed = 0;
        if (c != Coverage::Measured) f.alarm = 0;
        return f;
    };
    // Flows: widths follow the rates, so the pipes are rebuilt (a few dozen).
    auto radius = [](float rate, float full) {
        return 0.03f + 0.16f * std::sqrt(std::clamp(rate / full, 0.0f, 1.0f));
    };
    auto rateColor = [](float rate, float full) {
        return ColorScale::palette(0.15f + 0.85f * std::clamp(rate / full, 0.0f, 1.0f));
    };
    m_flows.clear();
    std::vector<Flow> flows;
    const Vec3 hot0 = tierBase(0, 0);
    const float blockHalf = kBlock * m_scale / 2;
    // One pipe per row on a small floor; on a big one per group of rows (a pod of eight), from
    // the group's far end, so the hall is not crossed by a pipe per row.
    const auto nRows = static_cast<model::EntityId>(m_topology.count(EntityKind::Row));
    const model::EntityId group = nRows > 16 ? 8 : 1;
    for (model::EntityId g = 0; g < nRows; g += group) {
        float rate = 0, racks = 0, endX = -1e30f, y = 0;
        model::EntityId firstRack = m_topology.rows.firstRack[g];
        for (model::EntityId row = g; row < std::min(nRows, g + group); ++row) {
            const auto first = m_topology.rows.firstRack[row];
            const auto n = m_topology.rows.rackCount[row];
            for (std::uint32_t i = 0; i < n; ++i)
                rate += s.value(ch::RackStorageRead, first + i) +
                        s.value(ch::RackCheckpointWrite, first + i);
            racks += static_cast<float>(n);
            const Vec3 end = m_topology.racks.position[first + n - 1];
            endX = std::max(endX, end.x);
            y += end.y;
        }
        y /= static_cast<float>(std::min(nRows, g + group) - g);
        const float full = 40.0f * racks;
        m_flows.add({endX + 0.45f, y, 0.25f}, {hot0.x - blockHalf, hot0.y, 0.25f},
                    radius(rate, full) * (group > 1 ? m_scale * 0.5f : 1.0f));
        flows.push_back(paintFlow({rateColor(rate, full), 0.3f + rate / (20.0f * racks), 0},
                                  coverageOf(s, ch::RackStorageRead, firstRack, fill)));
    }
    for (model::EntityId region = 0; region < regions; ++region)
        for (std::size_t k = 0; k + 1 < nTiers; ++k) {
            // Objects aging from tier k into k+1 (TB per aged day).
            const float inflow =
                s.value(ch::TierInflow, static_cast<model::EntityId>(region * nTiers + k + 1));
            const Vec3 a = tierBase(region, static_cast<int>(k)),
                       b = tierBase(region, static_cast<int>(k + 1));
            m_flows.add({a.x, a.y + blockHalf, 0.2f * m_scale},
                        {b.x, b.y - blockHalf, 0.2f * m_scale}, radius(inflow, 500.0f) * m_scale);
            flows.push_back(
                paintFlow({tierColor(static_cast<int>(k + 1)), 0.2f + inflow / 200.0f, 0},
                          coverageOf(s, ch::TierInflow,
                                     static_cast<model::EntityId>(region * nTiers + k + 1), fill)));
        }
    if (regions > 1) {
        // Local to remote: the background migration, coloured by how far behind it is.
        const float migration = s.value(ch::RegionMigration, 0),
                    capacity = std::max(1.0f, s.value(ch::RegionLinkCapacity, 0));
        const int lag = copyLag(s.value(ch::RegionDrainTime, 0));
        const Vec3 a = tierTop(0, 0), b = tierBase(1, 0);
        m_flows.add({a.x + blockHalf, a.y, 1.6f * m_scale}, {b.x - blockHalf, b.y, 1.6f * m_scale},
                    radius(migration, capacity) * m_scale);
        const auto safe = ColorScale::safe(lag == 0 ? 0.15f : lag == 1 ? 0.6f : 1.0f);
        const Rgb colour = safe       ? *safe
                           : lag == 0 ? Rgb{90, 210, 120}
                           : lag == 1 ? Rgb{245, 185, 60}
                                      : Rgb{240, 80, 60};
        flows.push_back(
            paintFlow({colour, 0.2f + 2.0f * migration / capacity, static_cast<std::uint8_t>(lag)},
                      coverageOf(s, ch::RegionMigration, 0, fill)));
    }
    m_flows.finish();
    for (std::size_t i = 0; i < flows.size(); ++i)
        m_flows.set(i, flows[i].color, flows[i].speed, flows[i].alarm);
    m_flows.commit();
    m_flows.setVisible(visible());
}

void StorageLayer::animate(double simSeconds, double wallSeconds) {
    if (visible()) m_flows.animate(simSeconds, wallSeconds);
}

void StorageLayer::drawHud(const ImGuiOverlay& ov, const HudInput& in, HudColumns& columns) const {
    if (!visible()) return;
    const auto& s = *in.snapshot;
    const auto& t = *in.topology;
    namespace ch = model::ch;
    // Labels on the stores: region, then each tier's bytes.
    ImDrawList* dl = ImGui::GetBackgroundDrawList();
    ImGui::PushFont(ov.smallFont());
    const std::size_t nTiers = t.spec().storage.tiers.size();
    for (model::EntityId region = 0; region < t.count(model::EntityKind::Region); ++region) {
        auto rp = tierTop(region, 0);
        rp.z = 4.2f * m_scale;
        if (const auto q = in.project(rp)) {
            const std::string name =
                t.spec().storage.regions[region] + (region == 0 ? " (local)" : " (remote)");
            const ImVec2 size = ImGui::CalcTextSize(name.c_str());
            if (!in.labels || in.labels->place(q->x, q->y, q->x + size.x, q->y + size.y))
                dl->AddText(ImVec2(q->x, q->y), IM_COL32(225, 232, 242, 255), name.c_str());
        }
    }
    for (model::EntityId region = 0; region < t.count(model::EntityKind::Region); ++region)
        for (std::size_t k = 0; k < nTiers; ++k) {
            auto p = tierTop(region, static_cast<int>(k));
            p.z += 0.15f * m_scale;
            const auto sp = in.project(p);
            if (!sp) continue;
            char label[96];
            const auto tier = static_cast<model::EntityId>(region * nTiers + k);
            const float tb = s.value(ch::TierBytes, tier);
            const Coverage coverage = coverageOf(s, ch::TierBytes, tier, in.fillModelled);
            if (coverage == Coverage::NoData)
                std::snprintf(label, sizeof label, "%s: no data",
                              t.spec().storage.tiers[k].c_str());
            else
                std::snprintf(label, sizeof label, "%s %s%.1f PB%s",
                              t.spec().storage.tiers[k].c_str(),
                              coverage == Coverage::Modelled ? "≈ " : "", tb / 1000.0f,
                              coverage == Coverage::Modelled ? " (modelled)"
                              : coverage == Coverage::Stale  ? " (stale)"
                                                             : "");
            const ImVec2 size = ImGui::CalcTextSize(label);
            if (in.labels && !in.labels->place(sp->x - size.x / 2 - 3, sp->y - size.y - 2,
                                               sp->x + size.x / 2 + 3, sp->y + 1))
                continue;
            dl->AddRectFilled(ImVec2(sp->x - size.x / 2 - 3, sp->y - size.y - 2),
                              ImVec2(sp->x + size.x / 2 + 3, sp->y + 1), IM_COL32(8, 12, 18, 180),
                              3);
            dl->AddText(ImVec2(sp->x - size.x / 2, sp->y - size.y - 1),
                        hud::toImColor(tierColor(static_cast<int>(k))), label);
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
    for (model::EntityId tray = 0; tray < t.count(model::EntityKind::ComputeTray); ++tray)
        p99 = std::max(p99, s.value(ch::CacheLatencyP99, tray));
    hud::beginRightPanel("##storage", in.width, columns);
    ImGui::TextUnformatted("Object storage");
    ImGui::PushFont(ov.smallFont());
    if (!drawCoverageNote(in, ch::RackStorageRead, "storage clients")) {
        ImGui::PopFont();
        hud::endRightPanel(columns);
        return;
    }
    ImGui::Text("dataset reads %.1f GB/s   cache hit %.2f %%", read,
                read > 0 ? hitWeighted / read : 0.0f);
    ImGui::Text("bucket reads %.1f GB/s   worst read p99 %.1f ms", s.value(ch::RegionRead, 0), p99);
    ImGui::Text("checkpoint writes %.1f GB/s", writes);
    if (t.count(model::EntityKind::Region) > 1) {
        const float backlog = s.value(ch::RegionBacklog, 0);
        const int lag = copyLag(s.value(ch::RegionDrainTime, 0));
        const ImVec4 c = lag == 0 ? hud::kGood : lag == 1 ? hud::kWarning : hud::kCritical;
        ImGui::TextColored(c, "to %s: %.1f GB/s of %.1f, backlog %.1f TB, oldest %.0f s",
                           t.spec().storage.regions[1].c_str(), s.value(ch::RegionMigration, 0),
                           s.value(ch::RegionLinkCapacity, 0), backlog,
                           s.value(ch::RegionOldestPending, 0));
    }
    ImGui::TextColored(hud::kMuted, "bars on racks: read rate, colour = cache hit ratio");
    ImGui::PopFont();
    hud::endRightPanel(columns);
}

} // namespace ft::views
