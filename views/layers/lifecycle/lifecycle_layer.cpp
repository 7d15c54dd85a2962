#include "lifecycle_layer.h"

#include "model/lifecycle.h"
#include "views/hud.h"
#include "views/hud_style.h"
#include "views/imgui_overlay.h"
#include "views/lifecycle_style.h"

#include <algorithm>
#include <array>
#include <cstdio>

namespace ft::views {

using model::EntityKind;

namespace {
constexpr float kCapLow = 0.03f, kCapHigh = 0.16f;
} // namespace

LifecycleLayer::LifecycleLayer(const model::Topology& topology, vtkRenderer* renderer)
    : Layer(kInfo), m_topology(topology), m_caps(renderer, topology.count(EntityKind::Rack) * 2) {}

void LifecycleLayer::applyVisibility(bool visible) {
    m_caps.setVisible(visible);
}

void LifecycleLayer::update(const model::Snapshot& s) {
    const auto& rk = m_topology.spec().rack;
    const float hw = static_cast<float>(rk.widthM) / 2 * 0.9f,
                hd = static_cast<float>(rk.depthM) / 2 * 0.9f;
    const auto top = static_cast<float>(rk.heightM);
    for (std::size_t r = 0; r < m_topology.count(EntityKind::Rack) && r < s.rackLifecycle.size();
         ++r) {
        const auto c = m_topology.racks.position[r];
        const float progress = std::clamp(
            s.value(model::ch::RackLifecycleProgress, static_cast<model::EntityId>(r)) / 100.0f,
            0.0f, 1.0f);
        const float split = c.x - hw + 2 * hw * progress;
        const Rgb done = lifecycleColor(s.rackLifecycle[r]);
        const Rgb todo{static_cast<std::uint8_t>(done.r * 0.35),
                       static_cast<std::uint8_t>(done.g * 0.35),
                       static_cast<std::uint8_t>(done.b * 0.35)};
        m_caps.set(r * 2, {c.x - hw, c.y - hd, top + kCapLow}, {split, c.y + hd, top + kCapHigh},
                   done);
        m_caps.set(r * 2 + 1, {split, c.y - hd, top + kCapLow},
                   {c.x + hw, c.y + hd, top + kCapHigh}, todo);
    }
    m_caps.commit();
}

void LifecycleLayer::setFilter(std::optional<model::RackLifecycle> state) {
    m_filter = state;
    changed();
}

void LifecycleLayer::shadeRacks(const model::Snapshot& s, std::vector<float>& emphasis) const {
    if (!m_filter && !visible()) return;
    emphasis.resize(s.rackLifecycle.size(), 1.0f);
    for (std::size_t r = 0; r < s.rackLifecycle.size(); ++r) {
        const auto st = s.rackLifecycle[r];
        if (m_filter)
            emphasis[r] *= st == *m_filter ? 1.0f : 0.18f;
        else if (st != model::RackLifecycle::Production)
            emphasis[r] *= 0.55f;
    }
}

int LifecycleLayer::rackLabelUrgency(const HudInput& in, model::EntityId r) const {
    // A rack being troubleshot is news; a rack on its way through bring-up is a stage.
    return visible() && in.cameraDistance < 30.0 && r < in.snapshot->rackLifecycle.size() &&
                   in.snapshot->rackLifecycle[r] == model::RackLifecycle::Troubleshooting
               ? 1
               : 0;
}

void LifecycleLayer::decorateRackLabel(const HudInput& in, model::EntityId r,
                                       std::string& label) const {
    if (!visible() || in.cameraDistance >= 30.0 || r >= in.snapshot->rackLifecycle.size() ||
        in.snapshot->rackLifecycle[r] == model::RackLifecycle::Production)
        return;
    // Stage and progress at a glance.
    char badge[64];
    std::snprintf(badge, sizeof badge, "  %s %.0f%%",
                  std::string(lifecycleShort(in.snapshot->rackLifecycle[r])).c_str(),
                  in.snapshot->value(model::ch::RackLifecycleProgress, r));
    label += badge;
}

void LifecycleLayer::drawHud(const ImGuiOverlay& ov, const HudInput& in,
                             HudColumns& columns) const {
    if (!visible() && !m_filter) return;
    // Every state with its colour and how many racks are in it; states nobody is in are muted.
    std::array<int, 12> counts{};
    for (auto st : in.snapshot->rackLifecycle)
        ++counts[static_cast<std::size_t>(st)];
    // Under the alarm list, top right, in the small font: it is a key, not news.
    hud::beginRightPanel("##lifecycle", in.width, columns);
    ImGui::TextUnformatted("Rack lifecycle");
    ImGui::PushFont(ov.smallFont());
    if (m_filter)
        ImGui::TextColored(hud::kWarning, "showing only: %s",
                           std::string(model::lifecycleTitle(*m_filter)).c_str());
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (std::size_t i = 0; i < counts.size(); ++i) {
        const auto st = static_cast<model::RackLifecycle>(i);
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float h = ImGui::GetTextLineHeight();
        dl->AddRectFilled(ImVec2(p.x, p.y + 2), ImVec2(p.x + h * 1.4f, p.y + h - 2),
                          hud::toImColor(lifecycleColor(st), counts[i] ? 255 : 90), 3.0f);
        ImGui::Dummy(ImVec2(h * 1.6f, h));
        ImGui::SameLine();
        const ImVec4 colour = counts[i] ? ImVec4(0.9f, 0.93f, 0.97f, 1) : hud::kMuted;
        ImGui::TextColored(colour, "%-26s %d", std::string(model::lifecycleTitle(st)).c_str(),
                           counts[i]);
    }
    ImGui::TextColored(hud::kMuted, "cap over each rack: state; bright part = stage progress");
    ImGui::PopFont();
    hud::endRightPanel(columns);
}

} // namespace ft::views
