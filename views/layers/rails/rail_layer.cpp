#include "rail_layer.h"

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
constexpr float kAccessRadius = 0.018f;
constexpr float kTrunkRadius = 0.035f;
std::uint8_t alarmOf(float state, float drops) {
    if (state >= 2.0f) return 2;
    return state >= 1.0f || drops > 0 ? 1 : 0;
}
} // namespace

Rgb RailLayer::utilizationColor(float percent) {
    // Cool slate when idle, through teal and green to amber and red as links fill.
    // A square-root scale: the loads fabrics mostly run at (a few % to 60 %) get most of the
    // colours.
    return ColorScale::palette(0.1f + 0.9f * std::sqrt(std::clamp(percent / 100.0f, 0.0f, 1.0f)));
}

RailLayer::RailLayer(const model::Topology& topology, vtkRenderer* renderer)
    : Layer(kInfo), m_topology(topology), m_geometry(FabricGeometry::build(topology)),
      m_switches(renderer, topology.count(EntityKind::Leaf) + topology.count(EntityKind::Spine)),
      m_access(renderer), m_trunks(renderer), m_railTrunks(renderer) {
    const float k = m_geometry.radiusScale;
    // Two pipes per access bundle: the riser, then the run to the leaf.
    for (const auto& a : m_geometry.access) {
        m_access.add(a.a, a.m, kAccessRadius * k);
        m_access.add(a.m, a.b, kAccessRadius * k);
    }
    m_access.finish();
    for (const auto& tr : m_geometry.trunks)
        m_trunks.add(tr.a, tr.b, kTrunkRadius * k * (tr.wholeLeaf ? 1.6f : 1.0f));
    m_trunks.finish();
    // The far view of a big floor: one trunk per rail, from the middle of its leaves to the
    // middle of its plane's spines, instead of one per leaf (a thousand crossing the hall).
    const auto nRails = topology.count(EntityKind::Rail);
    for (std::size_t r = 0; r < nRails; ++r) {
        Vec3 a{0, 0, 0}, b{0, 0, 0};
        const auto first = topology.rails.firstLeaf[r];
        const auto n = topology.rails.leafCount[r];
        for (std::uint32_t i = 0; i < n; ++i) {
            const Vec3 p = topology.leaves.position[first + i];
            a = {a.x + p.x / static_cast<float>(n), a.y + p.y / static_cast<float>(n),
                 a.z + p.z / static_cast<float>(n)};
        }
        std::size_t spines = 0;
        for (std::size_t sp = 0; sp < topology.count(EntityKind::Spine); ++sp)
            if (topology.spines.plane[sp] == topology.rails.plane[r]) {
                const Vec3 p = topology.spines.position[sp];
                b = {b.x + p.x, b.y + p.y, b.z + p.z};
                ++spines;
            }
        if (spines > 0)
            b = {b.x / static_cast<float>(spines), b.y / static_cast<float>(spines),
                 b.z / static_cast<float>(spines)};
        m_railTrunks.add(a, b, kTrunkRadius * k * 6.0f);
    }
    m_railTrunks.finish();
    m_accessDrops.assign(m_geometry.access.size(), -1.0f);
    m_trunkDrops.assign(m_geometry.trunks.size(), -1.0f);
}

void RailLayer::applyVisibility(bool visible) {
    m_switches.setVisible(visible);
    m_access.setVisible(visible && m_showAccess);
    m_trunks.setVisible(visible && m_showAccess);
    m_railTrunks.setVisible(visible && !m_showAccess);
}

std::optional<std::pair<PickResult, float>> RailLayer::pick(const Ray& ray) const {
    return m_geometry.pick(m_topology, ray);
}

void RailLayer::updateDetail(const CameraView& camera) {
    // Level of detail: on a big floor the thousands of rack-to-leaf bundles only mean something
    // (and only pay for their pixels) once the camera is close enough to tell racks apart; the
    // switches and leaf-to-spine trunks carry the overview.
    // Straight down, the bundles lie on top of each other, a carpet over the racks that costs a
    // third of the frame and reads as nothing: the per-rail trunks say the same from there.
    m_showAccess =
        (m_topology.count(model::EntityKind::Rack) <= 256 || camera.rig.distance < 70.0) &&
        camera.rig.elevationDeg < 80.0;
    m_access.setVisible(visible() && m_showAccess);
    // The same distance swaps the per-leaf trunks for one per rail.
    m_trunks.setVisible(visible() && m_showAccess);
    m_railTrunks.setVisible(visible() && !m_showAccess);
}

void RailLayer::update(const model::Snapshot& s) {
    const model::Topology& t = m_topology;
    const bool fill = fillModelled();
    const std::size_t nLeaves = t.count(EntityKind::Leaf);
    auto stateColor = [](float state, float util) {
        if (state >= 2.0f) return kDown;
        Rgb c = utilizationColor(util);
        if (state >= 1.0f)
            c = {static_cast<std::uint8_t>((c.r + 255) / 2),
                 static_cast<std::uint8_t>((c.g + 170) / 2), static_cast<std::uint8_t>(c.b / 3)};
        return c;
    };
    const Vec3 lh = m_geometry.leafHalf, sh = m_geometry.spineHalf;
    for (std::size_t l = 0; l < nLeaves; ++l) {
        const auto id = static_cast<model::EntityId>(l);
        const Vec3 p = t.leaves.position[l];
        m_switches.set(
            l, {p.x - lh.x, p.y - lh.y, p.z - lh.z}, {p.x + lh.x, p.y + lh.y, p.z + lh.z},
            paintCoverage(stateColor(s.value(ch::LeafState, id), s.value(ch::LeafUtilization, id)),
                          coverageOf(s, ch::LeafUtilization, id, fill), l % 2 == 0));
    }
    for (std::size_t sp = 0; sp < t.count(EntityKind::Spine); ++sp) {
        const auto id = static_cast<model::EntityId>(sp);
        const Vec3 p = t.spines.position[sp];
        m_switches.set(nLeaves + sp, {p.x - sh.x, p.y - sh.y, p.z - sh.z},
                       {p.x + sh.x, p.y + sh.y, p.z + sh.z},
                       paintCoverage(utilizationColor(s.value(ch::SpineUtilization, id)),
                                     coverageOf(s, ch::SpineUtilization, id, fill), sp % 2 == 0));
    }
    m_switches.commit();

    // The per-rail trunks: the rail's utilization and links down, every snapshot.
    for (model::EntityId r = 0; r < t.count(EntityKind::Rail); ++r) {
        const float util = s.value(ch::RailUtilization, r);
        const float down = s.value(ch::RailLinksDown, r);
        const Coverage coverage = coverageOf(s, ch::RailUtilization, r, fill);
        const bool shown = coverage == Coverage::Measured || coverage == Coverage::Modelled;
        m_railTrunks.set(
            r, paintCoverage(stateColor(down > 0 ? 1.0f : 0.0f, util), coverage, r % 2 == 0),
            shown ? 0.4f + 4.0f * util / 100.0f : 0.0f,
            coverage == Coverage::Measured && down > 0 ? 1 : 0);
    }
    m_railTrunks.commit();

    // Bundles follow the per-link counters, which refresh once a second.
    if (s.detailStamp == m_detailStamp && m_paintedFill == fill) return;
    m_detailStamp = s.detailStamp;
    m_paintedFill = fill;
    const auto& rk = t.spec().rack;
    const auto npt = static_cast<std::uint32_t>(rk.gpusPerTray * rk.nicsPerGpu);
    const float port = static_cast<float>(t.spec().fabric.portGbps) / 8.0f;
    const float k = m_geometry.radiusScale;
    const auto tx = s.channel(ch::FabricTx);
    const auto state = s.channel(ch::FabricState);
    const auto drops = s.channel(ch::FabricDrops);
    for (std::size_t i = 0; i < m_geometry.access.size(); ++i) {
        const auto& a = m_geometry.access[i];
        // Over the bundle's measured links only; the model's when none was and the user asks.
        float carried = 0, worst = 0, dropped = 0;
        std::uint32_t links = 0;
        Coverage coverage = Coverage::NoData;
        for (const Coverage want : {Coverage::Measured, Coverage::Stale, Coverage::Modelled}) {
            for (std::uint32_t j = 0; j < a.trays; ++j) {
                const std::size_t nic = (a.firstTray + j) * npt + a.rail;
                if (coverageOf(s, ch::FabricTx, static_cast<model::EntityId>(nic), fill) != want)
                    continue;
                carried += tx[nic];
                worst = std::max(worst, state[nic]);
                dropped += drops[nic];
                ++links;
            }
            if (links > 0) {
                coverage = want;
                break;
            }
        }
        const float util = links > 0 ? 100.0f * carried / (port * static_cast<float>(links)) : 0.0f;
        // Drops are counters: flash while they grow.
        const float newDrops = m_accessDrops[i] >= 0 ? dropped - m_accessDrops[i] : 0.0f;
        m_accessDrops[i] = dropped;
        const bool shown = coverage == Coverage::Measured || coverage == Coverage::Modelled;
        for (std::size_t p = 2 * i; p < 2 * i + 2; ++p) {
            m_access.set(p, paintCoverage(stateColor(worst, util), coverage, p % 2 == 0),
                         shown ? 0.25f + 3.5f * util / 100.0f : 0.0f,
                         coverage == Coverage::Measured ? alarmOf(worst, newDrops) : 0);
            m_access.setRadius(p,
                               kAccessRadius * k * (0.45f + 1.8f * std::min(1.0f, util / 100.0f)));
        }
    }
    m_access.commit();
    for (std::size_t i = 0; i < m_geometry.trunks.size(); ++i) {
        const auto& tr = m_geometry.trunks[i];
        float util = 0, st = 0, dropped = 0;
        Coverage coverage = Coverage::Measured;
        if (tr.wholeLeaf) {
            const float cap = static_cast<float>(t.leaves.downlinks[tr.leaf]) * port;
            util = cap > 0 ? 100.0f * s.value(ch::LeafUplink, tr.leaf) / cap : 0.0f;
            st = s.value(ch::LeafState, tr.leaf);
            coverage = coverageOf(s, ch::LeafUplink, tr.leaf, fill);
        } else {
            util = s.value(ch::FabricUtilization, tr.link);
            st = state[tr.link];
            dropped = drops[tr.link];
            coverage = coverageOf(s, ch::FabricTx, tr.link, fill);
        }
        const float newDrops = m_trunkDrops[i] >= 0 ? dropped - m_trunkDrops[i] : 0.0f;
        m_trunkDrops[i] = dropped;
        const bool shown = coverage == Coverage::Measured || coverage == Coverage::Modelled;
        m_trunks.set(i, paintCoverage(stateColor(st, util), coverage, i % 2 == 0),
                     shown ? 0.4f + 4.0f * util / 100.0f : 0.0f,
                     coverage == Coverage::Measured ? alarmOf(st, newDrops) : 0);
        m_trunks.setRadius(i, kTrunkRadius * k * (tr.wholeLeaf ? 1.6f : 1.0f) *
                                  (0.45f + 1.8f * std::min(1.0f, util / 100.0f)));
    }
    m_trunks.commit();
}

void RailLayer::animate(double simSeconds, double wallSeconds) {
    m_access.animate(simSeconds, wallSeconds);
    m_trunks.animate(simSeconds, wallSeconds);
    m_railTrunks.animate(simSeconds, wallSeconds);
}

void RailLayer::drawHud(const ImGuiOverlay& ov, const HudInput& in, HudColumns& columns) const {
    if (!visible()) return;
    // Where the bytes move between racks, in the figures a network operator reads first: per plane
    // and rail throughput and load, the busiest switches, links down.
    const auto& s = *in.snapshot;
    const auto& t = *in.topology;
    namespace ch = model::ch;
    using model::EntityKind;
    const float scale0 = ImGui::GetIO().FontGlobalScale;
    hud::beginRightPanel("##rails", in.width, columns);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    float total = 0;
    for (model::EntityId p = 0; p < t.count(EntityKind::Plane); ++p)
        total += s.value(ch::PlaneThroughput, p);
    if (in.snapshot->telemetry && !in.snapshot->measuredChannels.test(ch::FabricTx) &&
        !in.fillModelled)
        ImGui::TextUnformatted("Rail fabric");
    else
        ImGui::Text("Rail fabric  %.1f Tb/s", total);
    ImGui::PushFont(ov.smallFont());
    if (!drawCoverageNote(in, ch::FabricTx, "NIC link counters")) {
        ImGui::PopFont();
        hud::endRightPanel(columns);
        return;
    }
    // One cell per rail: its load on the utilization scale, with the figure inside.
    const float cell = (in.wall ? 76.0f * in.wallScale : 52.0f) * scale0,
                h = ImGui::GetTextLineHeight() + 6;
    ImVec2 p = ImGui::GetCursorScreenPos();
    std::uint32_t down = 0;
    for (model::EntityId r = 0; r < t.count(EntityKind::Rail); ++r) {
        const float util = s.value(ch::RailUtilization, r);
        const float linksDown = s.value(ch::RailLinksDown, r);
        down += static_cast<std::uint32_t>(linksDown);
        const bool dead = linksDown >= static_cast<float>(t.count(EntityKind::ComputeTray));
        const ImVec2 a(p.x + static_cast<float>(r) * (cell + 3), p.y), b(a.x + cell, a.y + h);
        dl->AddRectFilled(a, b, hud::toImColor(dead ? kDown : utilizationColor(util)), 3);
        char label[24];
        std::snprintf(label, sizeof label, dead ? "R%u off" : "R%u %.0f%%",
                      static_cast<unsigned>(r), util);
        dl->AddText(ImVec2(a.x + 3, a.y + 3),
                    dead || util > 40 ? IM_COL32(15, 15, 20, 255) : IM_COL32(240, 244, 250, 255),
                    label);
    }
    ImGui::Dummy(ImVec2(static_cast<float>(t.count(EntityKind::Rail)) * (cell + 3), h + 2));
    for (model::EntityId pl = 0; pl < t.count(EntityKind::Plane); ++pl)
        ImGui::Text("plane %u: %.1f Tb/s   ", static_cast<unsigned>(pl),
                    s.value(ch::PlaneThroughput, pl));
    float spineMax = 0;
    for (model::EntityId sp = 0; sp < t.count(EntityKind::Spine); ++sp)
        spineMax = std::max(spineMax, s.value(ch::SpineUtilization, sp));
    float leafMax = 0;
    for (model::EntityId l = 0; l < t.count(EntityKind::Leaf); ++l)
        leafMax = std::max(leafMax, s.value(ch::LeafUtilization, l));
    ImGui::Text("busiest leaf %.0f %%, busiest spine %.0f %%", leafMax, spineMax);
    ImGui::TextColored(down > 0 ? hud::kCritical : hud::kGood,
                       down > 0 ? "%u NIC links down" : "all NIC links up", down);
    // The utilization scale (square root: low loads stay apart).
    const float barW = (in.wall ? 420.0f * in.wallScale : 300.0f) * scale0,
                barH = (in.wall ? 18.0f * in.wallScale : 12.0f) * scale0;
    p = ImGui::GetCursorScreenPos();
    constexpr int kSteps = 48;
    for (int i = 0; i < kSteps; ++i) {
        const float x0 = p.x + barW * static_cast<float>(i) / kSteps,
                    x1 = p.x + barW * static_cast<float>(i + 1) / kSteps;
        const float u = 100.0f * (static_cast<float>(i) + 0.5f) / kSteps;
        dl->AddRectFilled(ImVec2(x0, p.y), ImVec2(x1 + 0.5f, p.y + barH),
                          hud::toImColor(utilizationColor(u)));
    }
    ImGui::Dummy(ImVec2(barW, barH + 2));
    ImGui::TextColored(hud::kMuted,
                       "link utilization 0 - 100 %%; width = load, bands = direction, red = down");
    ImGui::PopFont();
    hud::endRightPanel(columns);
}

} // namespace ft::views
