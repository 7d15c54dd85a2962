// SimModel and the workload scheduler (a Slurm source): nothing here is modelled. Each node's
// state is a sample of compute_tray.scheduler_state; its words (state, reason, jobs) come as
// NodeNotes. A change of state is an event on the timeline; with SimConfig::followScheduler the
// racks' lifecycle follows the nodes.
#include "sample.h"
#include "scheduler_state.h"
#include "sim_model.h"

#include <algorithm>
#include <cmath>

namespace ft::model {

namespace {

SchedulerState stateOf(float value) {
    if (!std::isfinite(value)) return SchedulerState::Idle; // not reported: nothing to leave
    return static_cast<SchedulerState>(
        std::clamp(static_cast<int>(value), 0, kSchedulerStates - 1));
}

} // namespace

void SimModel::applyNodeNotes(const std::vector<NodeNote>& notes) {
    const std::size_t trays = m_topology->count(EntityKind::ComputeTray);
    if (m_nodeNotes.size() != trays) m_nodeNotes.resize(trays);
    bool changed = !m_state.nodeNotes;
    for (const NodeNote& n : notes) {
        if (n.tray >= trays || m_nodeNotes[n.tray] == n) continue;
        m_nodeNotes[n.tray] = n;
        changed = true;
    }
    if (changed) m_state.nodeNotes = std::make_shared<const std::vector<NodeNote>>(m_nodeNotes);
}

void SimModel::applySchedulerState(const Sample& s, float before, bool measuredBefore) {
    const EntityId tray = s.entity;
    const SchedulerState now = stateOf(s.value), was = stateOf(before);
    if (measuredBefore && now == was) return;
    const std::size_t racks = m_topology->count(EntityKind::Rack);
    if (m_schedulerDirty.size() != racks) m_schedulerDirty.assign(racks, 0);
    m_schedulerDirty[tray / static_cast<EntityId>(m_topology->spec().rack.computeTrays)] = 1;
    // The first word of a node in service is no news; one that is out already is.
    if (!measuredBefore && !schedulerOutOfService(now) && now != SchedulerState::Reserved) return;
    const NodeNote* note = tray < m_nodeNotes.size() ? &m_nodeNotes[tray] : nullptr;
    std::string text =
        note && !note->node.empty() ? note->node : m_topology->name(EntityKind::ComputeTray, tray);
    text += ": ";
    text += note && !note->state.empty() ? note->state : std::string(schedulerStateName(now));
    if (measuredBefore && !schedulerOutOfService(now) && schedulerOutOfService(was))
        text += " (back in service)";
    if (note && !note->reason.empty() && now != SchedulerState::Idle && now != SchedulerState::Busy)
        text += " — " + note->reason;
    const Severity severity = now == SchedulerState::Failed || now == SchedulerState::Down
                                  ? Severity::Critical
                              : schedulerOutOfService(now) ? Severity::Warning
                                                           : Severity::Info;
    // Busy and idle are the daily coming and going of jobs: only leaving and re-entering
    // service is news.
    const bool news = schedulerOutOfService(now) || schedulerOutOfService(was) ||
                      now == SchedulerState::Reserved || was == SchedulerState::Reserved;
    if (news)
        m_appliedEvents.push_back({std::clamp(s.time, m_state.time, m_state.time + m_config.step),
                                   EventKind::Scheduler,
                                   {EntityKind::ComputeTray, tray},
                                   severity,
                                   std::move(text)});
}

void SimModel::stepSchedulerLifecycle() {
    if (!m_config.followScheduler || m_schedulerDirty.empty()) return;
    const auto trays = static_cast<EntityId>(m_topology->spec().rack.computeTrays);
    const auto state = m_state.values[ch::ComputeTraySchedulerState];
    for (EntityId r = 0; r < m_schedulerDirty.size(); ++r) {
        if (!m_schedulerDirty[r]) continue;
        m_schedulerDirty[r] = 0;
        std::string out, maintenance;
        for (EntityId t = r * trays; t < (r + 1) * trays; ++t) {
            if (!everMeasured(ch::ComputeTraySchedulerState, t)) continue;
            const SchedulerState st = stateOf(state[t]);
            const NodeNote* note = t < m_nodeNotes.size() ? &m_nodeNotes[t] : nullptr;
            std::string words = note && !note->node.empty()
                                    ? note->node
                                    : m_topology->name(EntityKind::ComputeTray, t);
            words += " " + std::string(schedulerStateName(st));
            if (note && !note->reason.empty()) words += ": " + note->reason;
            std::string& list = schedulerOutOfService(st)        ? out
                                : st == SchedulerState::Reserved ? maintenance
                                                                 : words;
            if (&list == &words) continue;
            list += list.empty() ? words : ", " + words;
        }
        const bool isOut = !out.empty(), isMaint = !maintenance.empty();
        const std::string why =
            isOut     ? out
            : isMaint ? maintenance
                      : "every node of " + m_topology->racks.name[r] + " back in service";
        m_lifecycle.followScheduler(r, isOut, isMaint, why, m_state.time, m_newEvents);
    }
}

} // namespace ft::model
