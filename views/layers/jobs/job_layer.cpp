#include "job_layer.h"

#include "model/incident_tracker.h"
#include "views/hud.h"
#include "views/hud_style.h"
#include "views/imgui_overlay.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <set>

namespace ft::views {

using model::EntityKind;

namespace {
constexpr float kCapLow = 0.03f, kCapHigh = 0.12f;
constexpr Rgb kNoJob{48, 52, 60};
constexpr std::size_t kKeyRows = 12; // the biggest jobs by name; the rest counted
// Distinct, none close to the alarm reds or the no-job grey.
constexpr std::array<Rgb, 12> kPalette{{{78, 121, 167},
                                        {242, 142, 43},
                                        {89, 161, 79},
                                        {237, 201, 72},
                                        {176, 122, 161},
                                        {118, 183, 178},
                                        {255, 157, 167},
                                        {156, 117, 95},
                                        {23, 190, 207},
                                        {188, 189, 34},
                                        {174, 199, 232},
                                        {197, 176, 213}}};
} // namespace

JobLayer::JobLayer(const model::Topology& topology, vtkRenderer* renderer)
    : Layer(kInfo), m_topology(topology), m_caps(renderer, topology.count(EntityKind::Rack)),
      m_colors(topology.count(EntityKind::Rack), kNoJob) {
    m_caps.setVisible(visible());
}

Rgb JobLayer::jobColor(std::string_view job) {
    if (job.empty()) return kNoJob;
    // FNV-1a: the same name gets the same colour in every run and build.
    std::uint32_t h = 2166136261u;
    for (const char c : job)
        h = (h ^ static_cast<std::uint8_t>(c)) * 16777619u;
    return kPalette[h % kPalette.size()];
}

void JobLayer::applyVisibility(bool visible) {
    m_caps.setVisible(visible);
}

void JobLayer::update(const model::Snapshot& s) {
    if (s.rackJobs == m_jobs && m_jobs) return; // same jobs, same caps
    m_jobs = s.rackJobs;
    const auto& rk = m_topology.spec().rack;
    const float hw = static_cast<float>(rk.widthM) / 2 * 0.96f,
                hd = static_cast<float>(rk.depthM) / 2 * 0.96f;
    const auto top = static_cast<float>(rk.heightM);
    for (std::size_t r = 0; r < m_colors.size(); ++r) {
        m_colors[r] = m_jobs && r < m_jobs->size() ? jobColor((*m_jobs)[r]) : kNoJob;
        const auto c = m_topology.racks.position[r];
        m_caps.set(r, {c.x - hw, c.y - hd, top + kCapLow}, {c.x + hw, c.y + hd, top + kCapHigh},
                   m_colors[r]);
    }
    m_caps.commit();
}

void JobLayer::decorateRackLabel(const HudInput& in, model::EntityId r, std::string& label) const {
    if (!visible() || in.cameraDistance >= 30.0 || !in.snapshot->rackJobs ||
        r >= in.snapshot->rackJobs->size() || (*in.snapshot->rackJobs)[r].empty())
        return;
    label += "  " + (*in.snapshot->rackJobs)[r];
}

void JobLayer::drawHud(const ImGuiOverlay& ov, const HudInput& in, HudColumns& columns) const {
    if (!visible()) return;
    hud::beginRightPanel("##jobs", in.width, columns);
    ImGui::TextUnformatted("Jobs");
    ImGui::PushFont(ov.smallFont());
    const auto& jobs = in.snapshot->rackJobs;
    if (!jobs) {
        ImGui::TextColored(hud::kMuted, "no job information in this source");
        ImGui::PopFont();
        hud::endRightPanel(columns);
        return;
    }
    // Jobs an open incident slows or stops.
    std::set<std::string> hurt;
    if (in.incidents)
        for (const auto& inc : *in.incidents)
            if (inc.end == 0) hurt.insert(inc.jobs.begin(), inc.jobs.end());
    // Racks per job only when the jobs change, not every frame (a big floor has hundreds).
    if (jobs != m_countedJobs) {
        m_countedJobs = jobs;
        std::map<std::string, int> racks;
        m_idleRacks = 0;
        for (const auto& j : *jobs)
            j.empty() ? ++m_idleRacks : ++racks[j];
        m_jobRacks.assign(racks.begin(), racks.end());
    }
    const int none = m_idleRacks;
    auto order = m_jobRacks;
    // Hurt jobs first, then the biggest.
    std::ranges::stable_sort(order, [&](const auto& a, const auto& b) {
        const bool ha = hurt.contains(a.first), hb = hurt.contains(b.first);
        return ha != hb ? ha : a.second > b.second;
    });
    ImDrawList* dl = ImGui::GetWindowDrawList();
    auto row = [&](Rgb colour, const char* name, int count, bool warn) {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float h = ImGui::GetTextLineHeight();
        dl->AddRectFilled(ImVec2(p.x, p.y + 2), ImVec2(p.x + h * 1.4f, p.y + h - 2),
                          hud::toImColor(colour), 3.0f);
        ImGui::Dummy(ImVec2(h * 1.6f, h));
        ImGui::SameLine();
        const ImVec4 text = warn ? hud::kWarning : ImVec4(0.9f, 0.93f, 0.97f, 1);
        ImGui::TextColored(text, "%-34s %4d%s", name, count, warn ? "  HURT" : "");
    };
    for (std::size_t i = 0; i < order.size() && i < kKeyRows; ++i)
        row(jobColor(order[i].first), order[i].first.c_str(), order[i].second,
            hurt.contains(order[i].first));
    if (order.size() > kKeyRows) {
        int more = 0;
        for (std::size_t i = kKeyRows; i < order.size(); ++i)
            more += order[i].second;
        ImGui::TextColored(hud::kMuted, "+ %zu more jobs on %d racks", order.size() - kKeyRows,
                           more);
    }
    row(kNoJob, in.snapshot->telemetry ? "no job label" : "no job (idle, out of service)", none,
        false);
    ImGui::TextColored(hud::kMuted, "cap over each rack: its job");
    ImGui::PopFont();
    hud::endRightPanel(columns);
}

} // namespace ft::views
