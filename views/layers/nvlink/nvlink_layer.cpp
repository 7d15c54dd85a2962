#include "nvlink_layer.h"

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

Rgb NvlinkLayer::loadColor(float f) {
    // Deep violet when quiet, through magenta to a hot near-white at full NVLink bandwidth.
    f = std::clamp(f, 0.0f, 1.0f);
    if (const auto safe = ColorScale::safe(f)) return *safe;
    auto mix = [](float a, float b, float t) { return static_cast<std::uint8_t>(a + (b - a) * t); };
    if (f < 0.5f) {
        const float t = f / 0.5f;
        return {mix(95, 205, t), mix(70, 50, t), mix(190, 215, t)};
    }
    const float t = (f - 0.5f) / 0.5f;
    return {mix(205, 255, t), mix(50, 225, t), mix(215, 255, t)};
}

NvlinkLayer::NvlinkLayer(const model::Topology& topology, vtkRenderer* renderer)
    : Layer(kInfo), m_topology(topology), m_glow(renderer, topology.count(EntityKind::Rack)),
      m_links(renderer), m_lastErrors(topology.count(EntityKind::Rack), 0.0f) {}

void NvlinkLayer::applyVisibility(bool visible) {
    m_glow.setVisible(visible);
    m_links.setVisible(visible && m_focus.has_value());
}

void NvlinkLayer::setFocusRack(std::optional<model::EntityId> rack) {
    if (rack == m_focus) return;
    m_focus = rack;
    buildLinks();
    m_detailStamp = ~0ULL;
    m_links.setVisible(visible() && m_focus.has_value());
}

void NvlinkLayer::setSelection(std::optional<model::EntityRef> selection) {
    std::optional<model::EntityId> rack;
    if (selection) {
        const auto& t = m_topology;
        const auto id = selection->id;
        switch (selection->kind) {
        case EntityKind::Rack:
            rack = id;
            break;
        case EntityKind::ComputeTray:
            rack = t.computeTrays.rack[id];
            break;
        case EntityKind::Gpu:
            rack = t.gpus.rack[id];
            break;
        case EntityKind::SwitchTray:
            rack = t.switchTrays.rack[id];
            break;
        case EntityKind::NvlinkLink:
            rack = t.gpus.rack[t.nvlinkLinks.gpu[id]];
            break;
        default:
            break;
        }
    }
    setFocusRack(rack);
}

void NvlinkLayer::buildLinks() {
    m_links.clear();
    if (m_focus) {
        const model::Topology& t = m_topology;
        const auto& rk = t.spec().rack;
        const Vec3 c = t.racks.position[*m_focus];
        const float front = c.y - static_cast<float>(rk.depthM) / 2;
        const int gpr = rk.computeTrays * rk.gpusPerTray;
        for (int g = 0; g < gpr; ++g) {
            const auto gpu = static_cast<model::EntityId>(*m_focus * gpr + g);
            const Vec3 gp = t.gpus.position[gpu];
            for (int k = 0; k < rk.switchTrays; ++k) {
                const auto sw = static_cast<model::EntityId>(*m_focus * rk.switchTrays + k);
                const Vec3 sp = t.position(EntityKind::SwitchTray, sw);
                // The links are pulled out of the rack: from each GPU's cell on the front to its
                // switch tray, drawn as a node in a column standing in the aisle at the tray's
                // height, so the fan shows every link while the GPU faces stay visible.
                const float sx =
                    c.x + (static_cast<float>(k) - (rk.switchTrays - 1) / 2.0f) * 0.035f;
                m_links.add({gp.x, front - 0.01f, gp.z}, {sx, front - kAisleReach, sp.z}, 0.0013f);
            }
        }
    }
    m_links.finish();
}

void NvlinkLayer::update(const model::Snapshot& s) {
    const model::Topology& t = m_topology;
    const auto& rk = t.spec().rack;
    const float hw = static_cast<float>(rk.widthM) / 2 - 0.03f;
    const float u = model::Topology::kRackUnitM;
    // The switch trays sit together mid-rack: the glow covers their block.
    float bottom = 1e9f, top = 0;
    for (const auto& slot : t.switchSlots) {
        bottom = std::min(bottom, slot.bottomU * u);
        top = std::max(top, (slot.bottomU + slot.heightU) * u);
    }
    if (t.switchSlots.empty()) bottom = 0;
    const auto peak = static_cast<float>(rk.nvlinkTBpsPerRack);
    for (std::size_t r = 0; r < t.count(EntityKind::Rack); ++r) {
        const auto id = static_cast<model::EntityId>(r);
        const Vec3 c = t.racks.position[r];
        const float front = c.y - static_cast<float>(rk.depthM) / 2;
        Rgb color = s.value(ch::RackNvlinkDisabled, id) > 0.5f
                        ? kDisabled
                        : paintCoverage(loadColor(s.value(ch::RackNvlinkThroughput, id) / peak),
                                        coverageOf(s, ch::RackNvlinkThroughput, id, fillModelled()),
                                        r % 2 == 0);
        const float errors = s.value(ch::RackNvlinkErrors, id);
        if (errors > m_lastErrors[r]) color = {255, 60, 50};
        if (s.detailStamp != m_detailStamp) m_lastErrors[r] = errors;
        m_glow.set(r, {c.x - hw, front - 0.035f, bottom}, {c.x + hw, front - 0.006f, top}, color);
    }
    m_glow.commit();
    if (!m_focus || (s.detailStamp == m_detailStamp && m_paintedFill == fillModelled())) return;
    m_detailStamp = s.detailStamp;
    m_paintedFill = fillModelled();
    const std::size_t first =
        static_cast<std::size_t>(*m_focus) * rk.computeTrays * rk.gpusPerTray * rk.switchTrays;
    const float linkPeak =
        static_cast<float>(rk.nvlinkTBpsPerGpu) * 1000.0f / static_cast<float>(rk.switchTrays);
    for (std::size_t i = 0; i < m_links.size(); ++i) {
        const auto link = static_cast<model::EntityId>(first + i);
        const float state = s.value(ch::NvlinkState, link);
        const float tx = s.value(ch::NvlinkTx, link);
        const Coverage coverage = coverageOf(s, ch::NvlinkTx, link, fillModelled());
        const bool shown = coverage == Coverage::Measured || coverage == Coverage::Modelled;
        const Rgb color = state >= 3.0f
                              ? kDisabled
                              : paintCoverage(loadColor(tx / linkPeak), coverage, i % 2 == 0);
        const std::uint8_t alarm = coverage != Coverage::Measured ? 0
                                   : state >= 3.0f                ? 0
                                   : state >= 2.0f                ? 2
                                   : state >= 1.0f                ? 1
                                                                  : 0;
        m_links.set(i, color, shown ? 0.05f + 0.6f * tx / linkPeak : 0.0f, alarm);
    }
    m_links.commit();
}

void NvlinkLayer::animate(double simSeconds, double wallSeconds) {
    m_links.animate(simSeconds, wallSeconds);
}

void NvlinkLayer::drawHud(const ImGuiOverlay& ov, const HudInput& in, HudColumns& columns) const {
    if (!visible()) return;
    // NVLink in total, racks running with it disabled, errors, and the glow scale.
    const auto& s = *in.snapshot;
    const auto& t = *in.topology;
    namespace ch = model::ch;
    using model::EntityKind;
    const float scale0 = ImGui::GetIO().FontGlobalScale;
    hud::beginRightPanel("##nvlink", in.width, columns);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    float nv = 0, errors = 0;
    int disabled = 0;
    for (model::EntityId r = 0; r < t.count(EntityKind::Rack); ++r) {
        nv += s.value(ch::RackNvlinkThroughput, r);
        errors += s.value(ch::RackNvlinkErrors, r);
        disabled += s.value(ch::RackNvlinkDisabled, r) > 0.5f ? 1 : 0;
    }
    const bool noData =
        s.telemetry && !s.measuredChannels.test(ch::RackNvlinkThroughput) && !in.fillModelled;
    if (noData)
        ImGui::TextUnformatted("NVLink inside racks");
    else
        ImGui::Text("NVLink  %.0f TB/s inside racks", nv);
    ImGui::PushFont(ov.smallFont());
    if (!drawCoverageNote(in, ch::RackNvlinkThroughput, "NVLink counters")) {
        ImGui::PopFont();
        hud::endRightPanel(columns);
        return;
    }
    if (disabled > 0)
        ImGui::TextColored(hud::kWarning, "%d racks with NVLink disabled (traffic on the rails)",
                           disabled);
    if (errors > 0)
        ImGui::TextColored(hud::kWarning, "%.0f NVLink errors (CRC, replay, recovery)", errors);
    const float barW = (in.wall ? 420.0f * in.wallScale : 300.0f) * scale0,
                barH = (in.wall ? 18.0f * in.wallScale : 12.0f) * scale0;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    constexpr int kSteps = 48;
    for (int i = 0; i < kSteps; ++i) {
        const float x0 = p.x + barW * static_cast<float>(i) / kSteps,
                    x1 = p.x + barW * static_cast<float>(i + 1) / kSteps;
        dl->AddRectFilled(ImVec2(x0, p.y), ImVec2(x1 + 0.5f, p.y + barH),
                          hud::toImColor(loadColor((static_cast<float>(i) + 0.5f) / kSteps)));
    }
    ImGui::Dummy(ImVec2(barW, barH + 2));
    ImGui::TextColored(hud::kMuted,
                       "switch-tray glow: 0 - %.0f TB/s per rack; select a rack for its links",
                       t.spec().rack.nvlinkTBpsPerRack);
    ImGui::PopFont();
    hud::endRightPanel(columns);
}

} // namespace ft::views
