// SimModel's jobs: the scenario's actions as they come due, the jobs named by labels and by the
// scheduler, each job's pace, and each rack's job for the views and the recording.
#include "sim_model.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <utility>

namespace ft::model {

void SimModel::updateLabelJobs() {
    // Each rack runs the job most of its labelled GPUs carry (1-based into m_labelJobNames).
    m_labelJobsChanged = false;
    const Topology& t = *m_topology;
    const std::size_t racks = t.count(EntityKind::Rack);
    m_labelRackJob.assign(racks, 0);
    m_labelRackPhase.assign(racks, 0);
    std::unordered_map<std::string, std::uint32_t> ids;
    for (std::uint32_t i = 0; i < m_labelJobNames.size(); ++i)
        ids.emplace(m_labelJobNames[i], i + 1);
    // GPUs are stored rack by rack: count each rack's labels as its GPUs go by.
    std::vector<std::pair<std::uint32_t, int>> votes;
    auto decide = [&](std::size_t rack) {
        int best = 0;
        for (const auto& [job, n] : votes)
            if (n > best || (n == best && job < m_labelRackJob[rack])) {
                best = n;
                m_labelRackJob[rack] = job;
            }
        m_labelRackPhase[rack] = m_labelRackJob[rack];
        votes.clear();
    };
    std::size_t current = 0;
    for (EntityId g = 0; g < m_gpuJobLabel.size(); ++g) {
        const EntityId rack = t.gpus.rack[g];
        if (rack != current) {
            decide(current);
            current = rack;
        }
        if (m_gpuJobLabel[g].empty()) continue;
        auto [it, fresh] =
            ids.try_emplace(m_gpuJobLabel[g], static_cast<std::uint32_t>(ids.size() + 1));
        if (fresh) m_labelJobNames.push_back(m_gpuJobLabel[g]);
        auto v = std::ranges::find(votes, it->second, &std::pair<std::uint32_t, int>::first);
        if (v == votes.end())
            votes.emplace_back(it->second, 1);
        else
            ++v->second;
    }
    if (current < racks) decide(current);
    std::vector<std::string> names(racks);
    for (std::size_t r = 0; r < racks; ++r)
        if (m_labelRackJob[r] > 0) names[r] = m_labelJobNames[m_labelRackJob[r] - 1];
    publishRackJobs(std::move(names));
}

std::string SimModel::jobName(std::uint32_t j) const {
    const auto& jobs = m_workload.jobs();
    if (j >= jobs.size() || jobs[j].kind == JobKind::Idle) return {};
    const Job& job = jobs[j];
    const auto& names = m_topology->racks.name;
    std::string out = job.kind == JobKind::Training ? "training job " : "inference service ";
    out += std::to_string(j + 1) + " (" + names[job.firstRack];
    if (job.rackCount > 1) out += "\u2013" + names[job.firstRack + job.rackCount - 1];
    return out + ")";
}

void SimModel::runScenario() {
    while (m_nextScenarioEvent < m_scenario.events.size() &&
           m_config.startTime + m_scenario.events[m_nextScenarioEvent].at <= m_state.time) {
        const ScenarioEvent& ev = m_scenario.events[m_nextScenarioEvent];
        const std::size_t before = m_newEvents.size();
        if (ev.action == ScenarioAction::BringUp || ev.action == ScenarioAction::Drain)
            m_lifecycle.apply(ev, m_state.time, m_newEvents);
        else if (ev.action == ScenarioAction::RegionLink ||
                 ev.action == ScenarioAction::CacheLoss ||
                 ev.action == ScenarioAction::CacheRestore) {
            m_storage.apply(ev, m_state.time, m_newEvents);
            m_newEvents.push_back(
                {m_state.time, EventKind::ScenarioInjection,
                 ev.target.value_or(EntityRef{scenarioActionTarget(ev.action), 0}),
                 Severity::Warning,
                 (ev.target ? m_topology->name(ev.target->kind, ev.target->id) + ": "
                            : std::string("all: ")) +
                     (ev.note.empty() ? std::string(scenarioActionName(ev.action)) : ev.note)});
        } else if (scenarioActionTarget(ev.action) == EntityKind::PowerFeed ||
                   scenarioActionTarget(ev.action) == EntityKind::Psu ||
                   ev.action == ScenarioAction::PowerCap ||
                   ev.action == ScenarioAction::PowerCapLift) {
            m_power.apply(ev, m_state, m_newEvents);
        } else if (scenarioActionTarget(ev.action) == EntityKind::Rail ||
                   scenarioActionTarget(ev.action) == EntityKind::Leaf ||
                   scenarioActionTarget(ev.action) == EntityKind::FabricLink ||
                   scenarioActionTarget(ev.action) == EntityKind::NvlinkLink ||
                   ev.action == ScenarioAction::NvlinkDisable ||
                   ev.action == ScenarioAction::NvlinkEnable) {
            m_fabric.apply(ev, m_state.time, m_newEvents);
        } else
            m_thermal.apply(ev, m_state, m_newEvents);
        // Repairs and planned work are not faults: incident tracking and event lists tell them
        // apart by their severity.
        if (scenarioActionRecovers(ev.action, ev.value))
            for (std::size_t i = before; i < m_newEvents.size(); ++i)
                if (m_newEvents[i].kind == EventKind::ScenarioInjection)
                    m_newEvents[i].severity = Severity::Info;
        ++m_nextScenarioEvent;
    }
}

void SimModel::updateJobPace() {
    // A synchronous training job runs at the pace of its slowest GPU; a job with a rack down
    // stalls. Inference replicas run independently.
    const auto& jobs = m_workload.jobs();
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        const Job& job = jobs[j];
        float pace = 1.0f;
        if (job.kind == JobKind::Training)
            for (std::uint32_t i = 0; i < job.rackCount; ++i) {
                const EntityId r = job.firstRack + i;
                if (!lifecycleInService(m_lifecycle.state(r))) continue; // not part of the job
                pace = std::min({pace, m_thermal.rackPowered(r) ? m_rackMinThrottle[r] : 0.0f,
                                 m_fabric.rackPace(r)});
            }
        m_jobPace[j] = pace;
    }
}

void SimModel::publishRackJobs(std::vector<std::string> names) {
    if (!m_state.rackJobs || *m_state.rackJobs != names)
        m_state.rackJobs = std::make_shared<const std::vector<std::string>>(std::move(names));
}

void SimModel::updateRackJobs() {
    // Cheap to check every tick (a key per rack); names are made only when a key moved.
    const std::size_t racks = m_rackJobKey.size();
    bool moved = !m_state.rackJobs;
    for (EntityId r = 0; r < racks; ++r) {
        const std::uint32_t job = m_workload.jobOfRack(r);
        const std::uint32_t key =
            lifecycleInService(m_lifecycle.state(r)) && m_workload.jobs()[job].kind != JobKind::Idle
                ? job + 1
                : 0;
        moved |= key != m_rackJobKey[r];
        m_rackJobKey[r] = key;
    }
    if (!moved) return;
    std::vector<std::string> names(racks);
    std::unordered_map<std::uint32_t, std::string> byJob;
    for (EntityId r = 0; r < racks; ++r) {
        if (m_rackJobKey[r] == 0) continue;
        auto [it, fresh] = byJob.try_emplace(m_rackJobKey[r]);
        if (fresh) it->second = jobName(m_rackJobKey[r] - 1);
        names[r] = it->second;
    }
    publishRackJobs(std::move(names));
}

} // namespace ft::model
