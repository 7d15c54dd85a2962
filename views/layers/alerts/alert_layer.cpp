#include "alert_layer.h"

#include "alerts_panel.h"
#include "views/alarm_causes.h"
#include "views/hud.h"
#include "views/hud_style.h"
#include "views/imgui_overlay.h"

#include <algorithm>

namespace ft::views {

using model::AlertState;
using model::EntityKind;
using model::Severity;

const LayerInfo AlertLayer::kInfo{
    "alerts",
    "Alerts (Alertmanager's, on their racks)",
    false,
    {"Alerts", "alertsDock", PanelPlace::Side,
     [](FloorView& view) -> QWidget* { return new AlertsPanel(&view); }}};

namespace {
constexpr float kLow = 0.42f, kHigh = 0.92f; // over the top, clear of its name label
constexpr Rgb kMutedColor{96, 102, 114};

int rank(const model::ExternalAlert& a) {
    const int muted = model::alertMuted(a.state) ? 3 : 0;
    const int severity = a.severity == Severity::Critical  ? 0
                         : a.severity == Severity::Warning ? 1
                                                           : 2;
    return muted + severity;
}

ImVec4 toVec4(Rgb c) {
    return {c.r / 255.0f, c.g / 255.0f, c.b / 255.0f, 1.0f};
}

std::string age(model::TimeNs now, model::TimeNs since) {
    if (since <= 0 || now <= since) return {};
    const auto s = (now - since) / model::kNsPerSecond;
    if (s < 120) return std::to_string(s) + "s";
    if (s < 7200) return std::to_string(s / 60) + "m";
    if (s < 172800) return std::to_string(s / 3600) + "h";
    return std::to_string(s / 86400) + "d";
}
} // namespace

bool worseAlert(const model::ExternalAlert& a, const model::ExternalAlert& b) {
    const int ra = rank(a), rb = rank(b);
    return ra != rb ? ra < rb : a.startsAt < b.startsAt;
}

Rgb AlertLayer::severityColor(const model::ExternalAlert& a) {
    if (model::alertMuted(a.state)) return kMutedColor;
    switch (a.severity) {
    case Severity::Critical:
        return {230, 60, 120};
    case Severity::Warning:
        return {235, 200, 60};
    case Severity::Info:
        return {140, 170, 200};
    }
    return kMutedColor;
}

AlertLayer::AlertLayer(const model::Topology& topology, vtkRenderer* renderer)
    : Layer(kInfo), m_topology(topology),
      m_beacons(renderer, topology.count(EntityKind::Rack) + topology.count(EntityKind::Cdu)),
      m_worst(topology.count(EntityKind::Rack) + topology.count(EntityKind::Cdu), -1),
      m_count(m_worst.size(), 0) {
    m_beacons.setVisible(visible());
}

void AlertLayer::applyVisibility(bool visible) {
    m_beacons.setVisible(visible);
}

const model::ExternalAlert* AlertLayer::rackAlert(model::EntityId rack) const {
    if (!m_board || rack >= m_topology.count(EntityKind::Rack) || m_worst[rack] < 0) return nullptr;
    return &m_board->alerts[static_cast<std::size_t>(m_worst[rack])];
}

void AlertLayer::update(const model::Snapshot& s) {
    if (s.externalAlerts == m_board && !m_worst.empty() && m_board) return;
    m_board = s.externalAlerts;
    std::ranges::fill(m_worst, -1);
    std::ranges::fill(m_count, 0);
    const std::size_t racks = m_topology.count(EntityKind::Rack);
    // Where an alert's beacon stands: its rack; a CDU's (or its pump's) own box; the racks of
    // a row, a busway, a leaf or spine (focusEntities' reach); nothing for the rest (the lists
    // still name them).
    auto mark = [&](std::size_t slot, std::size_t alert) {
        ++m_count[slot];
        int& w = m_worst[slot];
        if (w < 0 ||
            worseAlert(m_board->alerts[alert], m_board->alerts[static_cast<std::size_t>(w)]))
            w = static_cast<int>(alert);
    };
    if (m_board)
        for (std::size_t i = 0; i < m_board->alerts.size(); ++i)
            for (const auto& e : m_board->alerts[i].entities) {
                if (const auto rack = m_topology.rackOf(e.kind, e.id)) {
                    mark(*rack, i);
                } else if (e.kind == EntityKind::Rack && e.id < racks) {
                    mark(e.id, i);
                } else if (e.kind == EntityKind::Cdu || e.kind == EntityKind::Pump) {
                    const auto cdu = e.kind == EntityKind::Cdu ? e.id : m_topology.pumps.cdu[e.id];
                    mark(racks + cdu, i);
                } else {
                    for (const auto& r : focusEntities(m_topology, std::vector{e}))
                        if (r.kind == EntityKind::Rack) mark(r.id, i);
                }
            }
    const auto& rk = m_topology.spec().rack;
    const float hw = static_cast<float>(rk.widthM) * 0.18f,
                hd = static_cast<float>(rk.depthM) * 0.18f;
    const auto top = static_cast<float>(rk.heightM);
    for (std::size_t slot = 0; slot < m_worst.size(); ++slot) {
        const bool isRack = slot < racks;
        const auto c =
            isRack ? m_topology.racks.position[slot] : m_topology.cdus.position[slot - racks];
        // A CDU cabinet stands 0.85 of a rack high (floor_scene.cpp).
        const float base = isRack ? top : top * 0.85f;
        const auto* a =
            m_worst[slot] < 0 ? nullptr : &m_board->alerts[static_cast<std::size_t>(m_worst[slot])];
        if (!a) { // nothing to say: a box of no size inside the cabinet
            m_beacons.set(slot, {c.x, c.y, 0.01f}, {c.x, c.y, 0.01f}, kMutedColor);
            continue;
        }
        m_beacons.set(slot, {c.x - hw, c.y - hd, base + kLow}, {c.x + hw, c.y + hd, base + kHigh},
                      severityColor(*a));
    }
    m_beacons.commit();
}

void AlertLayer::decorateRackLabel(const HudInput& in, model::EntityId rack,
                                   std::string& label) const {
    const auto* a = visible() ? rackAlert(rack) : nullptr;
    if (!a) return;
    label += "  " + a->name;
    if (model::alertMuted(a->state))
        label += " (" + std::string(model::alertStateName(a->state)) + ")";
    if (rack < m_count.size() && m_count[rack] > 1)
        label += " +" + std::to_string(m_count[rack] - 1);
}

int AlertLayer::rackLabelUrgency(const HudInput& in, model::EntityId rack) const {
    const auto* a = visible() ? rackAlert(rack) : nullptr;
    if (!a || model::alertMuted(a->state)) return 0;
    return a->severity == Severity::Critical ? 2 : 1;
}

void AlertLayer::drawHud(const ImGuiOverlay& ov, const HudInput& in, HudColumns& columns) const {
    if (!visible()) return;
    hud::beginRightPanel("##alertmanager", in.width, columns);
    ImGui::TextUnformatted("Alertmanager");
    ImGui::PushFont(ov.smallFont());
    const auto& board = in.snapshot->externalAlerts;
    if (!board) {
        ImGui::TextColored(hud::kMuted, "no alerting source (--source alertmanager=URL)");
        ImGui::PopFont();
        hud::endRightPanel(columns);
        return;
    }
    std::size_t firing = 0, critical = 0, muted = 0, unplaced = 0;
    std::vector<const model::ExternalAlert*> order;
    for (const auto& a : board->alerts) {
        firing += a.state == AlertState::Firing ? 1 : 0;
        critical += a.state == AlertState::Firing && a.severity == Severity::Critical ? 1 : 0;
        muted += model::alertMuted(a.state) ? 1 : 0;
        unplaced += a.entities.empty() ? 1 : 0;
        order.push_back(&a);
    }
    std::ranges::stable_sort(order,
                             [](const auto* a, const auto* b) { return worseAlert(*a, *b); });
    if (board->alerts.empty())
        ImGui::TextColored(hud::kMuted, "no alerts");
    else
        ImGui::Text("%zu firing (%zu critical)   %zu silenced or inhibited", firing, critical,
                    muted);
    const model::TimeNs now = in.snapshot->time;
    // The HUD's list, the worst first; a small view keeps the floor and counts the rest.
    const std::size_t kRows = in.height < 800 ? 3 : 8;
    for (std::size_t i = 0; i < order.size() && i < kRows; ++i) {
        const auto& a = *order[i];
        const ImVec4 colour = toVec4(severityColor(a));
        const char* tag = model::alertMuted(a.state)         ? "MUTE"
                          : a.severity == Severity::Critical ? "CRIT"
                          : a.severity == Severity::Warning  ? "WARN"
                                                             : "INFO";
        ImGui::TextColored(colour, "%s", tag);
        ImGui::SameLine();
        const std::string where =
            a.entities.empty() ? std::string("not on this floor")
                               : m_topology.name(a.entities.front().kind, a.entities.front().id);
        ImGui::TextColored(model::alertMuted(a.state) ? hud::kMuted : ImVec4(0.9f, 0.93f, 0.97f, 1),
                           "%-24s %s", a.name.c_str(), where.c_str());
        ImGui::SameLine();
        ImGui::TextColored(hud::kMuted, "%s", age(now, a.startsAt).c_str());
        if (a.state == AlertState::Silenced && !a.silences.empty()) {
            const auto& s = a.silences.front();
            ImGui::TextColored(hud::kMuted, "      silenced by %s until %s",
                               s.createdBy.empty() ? "?" : s.createdBy.c_str(),
                               model::formatUtc(s.endsAt).substr(5, 11).c_str());
        }
    }
    if (order.size() > kRows)
        ImGui::TextColored(hud::kMuted, "+ %zu more alerts", order.size() - kRows);
    if (unplaced)
        ImGui::TextColored(hud::kMuted, "%zu name nothing on this floor (Alerts panel)", unplaced);
    ImGui::TextColored(hud::kMuted, "beacon over a rack: its worst alert (grey: muted)");
    ImGui::PopFont();
    hud::endRightPanel(columns);
}

} // namespace ft::views
