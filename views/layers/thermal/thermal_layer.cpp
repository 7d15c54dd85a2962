#include "thermal_layer.h"

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
constexpr float kHeaderRadius = 0.055f;
constexpr float kDropRadius = 0.035f;
constexpr float kHeaderRise = 0.45f; // headers run this far above the rack tops
} // namespace

Rgb ThermalLayer::coolantColor(float c) {
    struct Stop {
        float t;
        float r, g, b;
    };
    static constexpr Stop kStops[] = {{30, 0.10f, 0.20f, 0.75f}, {42, 0.15f, 0.55f, 1.00f},
                                      {47, 0.30f, 0.85f, 0.95f}, {52, 1.00f, 0.78f, 0.25f},
                                      {58, 1.00f, 0.45f, 0.12f}, {64, 0.90f, 0.12f, 0.10f},
                                      {70, 1.00f, 0.85f, 0.85f}};
    if (!std::isfinite(c)) return {90, 90, 90};
    if (const auto safe =
            ColorScale::safe((c - kStops[0].t) / (kStops[std::size(kStops) - 1].t - kStops[0].t)))
        return *safe;
    c = std::clamp(c, kStops[0].t, kStops[std::size(kStops) - 1].t);
    for (std::size_t i = 1; i < std::size(kStops); ++i)
        if (c <= kStops[i].t) {
            const Stop& a = kStops[i - 1];
            const Stop& b = kStops[i];
            const float f = (c - a.t) / (b.t - a.t);
            auto mix = [&](float x, float y) {
                return static_cast<std::uint8_t>(std::lround((x + (y - x) * f) * 255.0f));
            };
            return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
        }
    return {255, 255, 255};
}

ThermalLayer::ThermalLayer(const model::Topology& topology, vtkRenderer* renderer)
    : Layer(kInfo), m_topology(topology), m_mains(std::make_unique<FlowPipes>(renderer)),
      m_drops(std::make_unique<FlowPipes>(renderer)) {
    m_designRackFlow = static_cast<float>(topology.spec().rack.ratedPowerKw *
                                          topology.spec().cooling.flowLpmPerKw);
    build();
}

ThermalLayer::~ThermalLayer() = default;

void ThermalLayer::build() {
    const auto& rk = m_topology.spec().rack;
    const auto top = static_cast<float>(rk.heightM);
    const float headerZ = top + kHeaderRise;
    for (model::EntityId c = 0; c < m_topology.count(EntityKind::Cdu); ++c) {
        const Vec3 cdu = m_topology.cdus.position[c];
        const auto first = m_topology.cdus.firstRack[c];
        const auto count = m_topology.cdus.rackCount[c];
        const float endX = m_topology.racks.position[first + count - 1].x;
        for (int supply = 1; supply >= 0; --supply) {
            // Supply pipes over the front half of the rack tops, return over the back half.
            // Flow runs CDU -> header -> down into the racks, and back up -> header -> CDU.
            const float y = cdu.y + (supply ? -0.2f : 0.2f);
            const Vec3 riserLo{cdu.x, y, top * 0.85f}, riserHi{cdu.x, y, headerZ},
                headerEnd{endX, y, headerZ};
            const bool s = supply != 0;
            m_mains->add(s ? riserLo : riserHi, s ? riserHi : riserLo, kHeaderRadius);
            m_mainSegments.push_back({Segment::Riser, s, c, 0});
            m_mains->add(s ? riserHi : headerEnd, s ? headerEnd : riserHi, kHeaderRadius);
            m_mainSegments.push_back({Segment::Header, s, c, 0});
            for (std::uint32_t i = 0; i < count; ++i) {
                const model::EntityId r = first + i;
                const Vec3 p = m_topology.racks.position[r];
                const Vec3 hi{p.x, y, headerZ}, lo{p.x, y, top};
                m_drops->add(s ? hi : lo, s ? lo : hi, kDropRadius);
                m_dropSegments.push_back({Segment::Drop, s, c, r});
            }
        }
    }
    m_mains->finish();
    m_drops->finish();
    // Small floors always show every drop; big ones only up close.
    m_showDrops = m_topology.count(EntityKind::Rack) <= 200;
}

void ThermalLayer::applyVisibility(bool visible) {
    m_mains->setVisible(visible);
    m_drops->setVisible(visible && m_showDrops);
}

void ThermalLayer::updateDetail(const CameraView& camera) {
    if (m_topology.count(EntityKind::Rack) <= 200) return; // always detailed
    m_showDrops = camera.rig.distance < 60.0;
    m_drops->setVisible(visible() && m_showDrops);
}

float ThermalLayer::shownFlow(const model::Snapshot& s, model::ChannelId channel, model::EntityId e,
                              float flow) const {
    // Bands move only with a flow that was measured (or that the user asked the model for).
    const Coverage c = coverageOf(s, channel, e, fillModelled());
    return c == Coverage::Measured || c == Coverage::Modelled ? flow : 0.0f;
}

void ThermalLayer::update(const model::Snapshot& s) {
    std::vector<std::uint8_t> rackAlarm(m_topology.count(EntityKind::Rack), 0);
    for (const auto& a : s.alarms)
        if (a.kind == EntityKind::Rack &&
            (a.channel == ch::RackLeakDetected || a.channel == ch::RackFlow ||
             a.channel == ch::RackDeltaTemperature || a.channel == ch::RackSupplyTemperature))
            rackAlarm[a.entity] = std::max<std::uint8_t>(
                rackAlarm[a.entity], a.severity == model::Severity::Critical ? 2 : 1);
    // Bands move at 0.4 m/s per design rack-flow's worth of coolant (readable, not literal).
    for (std::size_t i = 0; i < m_mainSegments.size(); ++i) {
        // Risers and headers carry the whole CDU's flow at its supply or mixed return.
        const Segment& seg = m_mainSegments[i];
        const float flow = s.value(ch::CduFlow, seg.cdu);
        const float temp =
            s.value(seg.supply ? ch::CduSupplyTemperature : ch::CduReturnTemperature, seg.cdu);
        const float perDesign =
            m_designRackFlow * static_cast<float>(std::min(4u, m_topology.cdus.rackCount[seg.cdu]));
        const model::ChannelId tempChannel =
            seg.supply ? ch::CduSupplyTemperature : ch::CduReturnTemperature;
        m_mains->set(i,
                     paintCoverage(coolantColor(temp),
                                   coverageOf(s, tempChannel, seg.cdu, fillModelled()), i % 2 == 0),
                     shownFlow(s, ch::CduFlow, seg.cdu, flow) * 0.4f / perDesign);
    }
    for (std::size_t i = 0; i < m_dropSegments.size(); ++i) {
        const Segment& seg = m_dropSegments[i];
        const float flow = s.value(ch::RackFlow, seg.rack);
        const model::ChannelId tempChannel =
            seg.supply ? ch::RackSupplyTemperature : ch::RackReturnTemperature;
        const float temp = s.value(tempChannel, seg.rack);
        m_drops->set(i,
                     paintCoverage(coolantColor(temp),
                                   coverageOf(s, tempChannel, seg.rack, fillModelled()),
                                   i % 2 == 0),
                     shownFlow(s, ch::RackFlow, seg.rack, flow) * 0.4f / m_designRackFlow,
                     rackAlarm[seg.rack]);
    }
    m_mains->commit();
    m_drops->commit();
}

void ThermalLayer::animate(double simSeconds, double wallSeconds) {
    if (!visible()) return;
    m_mains->animate(simSeconds, wallSeconds);
    m_drops->animate(simSeconds, wallSeconds);
}

void ThermalLayer::drawHud(const ImGuiOverlay& ov, const HudInput& in, HudColumns& columns) const {
    if (!visible()) return;
    const float scale0 = ImGui::GetIO().FontGlobalScale;
    const float barW = (in.wall ? 420.0f * in.wallScale : 300.0f) * scale0,
                barH = (in.wall ? 22.0f * in.wallScale : 14.0f) * scale0;
    // Stacked above the metric legend, bottom left.
    ImGui::SetNextWindowPos(ImVec2(16, columns.leftBottom), 0, ImVec2(0, 1));
    ImGui::Begin("##coolant", nullptr, hud::kPanel);
    ImGui::TextUnformatted("Coolant temperature (°C)");
    ImGui::TextColored(hud::kMuted, "pipes: supply front, return back; bands move with the flow");
    drawCoverageNote(in, ch::RackSupplyTemperature, "rack coolant temperatures");
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    constexpr int kSteps = 48;
    const float span = ThermalLayer::kScaleMax - ThermalLayer::kScaleMin;
    for (int i = 0; i < kSteps; ++i) {
        const float a = p.x + barW * static_cast<float>(i) / kSteps,
                    b = p.x + barW * static_cast<float>(i + 1) / kSteps;
        const float c = ThermalLayer::kScaleMin + span * (static_cast<float>(i) + 0.5f) / kSteps;
        dl->AddRectFilled(ImVec2(a, p.y), ImVec2(b + 0.5f, p.y + barH),
                          hud::toImColor(ThermalLayer::coolantColor(c)));
    }
    ImGui::Dummy(ImVec2(barW, barH + 2));
    ImGui::PushFont(ov.smallFont());
    const ImVec2 tp = ImGui::GetCursorScreenPos();
    for (float c = ThermalLayer::kScaleMin; c <= ThermalLayer::kScaleMax + 0.1f; c += 10.0f) {
        char label[16];
        std::snprintf(label, sizeof label, "%.0f", c);
        const float w = ImGui::CalcTextSize(label).x;
        const float x = tp.x + barW * (c - ThermalLayer::kScaleMin) / span - w / 2;
        dl->AddText(ImVec2(std::clamp(x, tp.x, tp.x + barW - w), tp.y),
                    IM_COL32(220, 226, 235, 255), label);
    }
    ImGui::Dummy(ImVec2(barW, ImGui::GetTextLineHeight()));
    ImGui::PopFont();
    columns.leftBottom -= ImGui::GetWindowHeight() + 8;
    ImGui::End();
}

void ThermalLayer::decorateRackLabel(const HudInput& in, model::EntityId rack,
                                     std::string& label) const {
    if (!visible() || in.cameraDistance >= 30.0) return;
    // ΔT and heat at a glance.
    const auto& s = *in.snapshot;
    if (!s.measured(ch::RackDeltaTemperature, rack) && !s.measured(ch::RackHeatRemoved, rack) &&
        !in.fillModelled)
        return; // nothing measured to show
    label += "  ΔT " + formatCoveredValue(s, ch::RackDeltaTemperature, rack, in.fillModelled) +
             "  " + formatCoveredValue(s, ch::RackHeatRemoved, rack, in.fillModelled);
}

} // namespace ft::views
