#include "workload_model.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace ft::model {
namespace {
constexpr float kTwoPi = 2.0f * std::numbers::pi_v<float>;
}

WorkloadModel::WorkloadModel(const Topology& topology, std::uint64_t seed, TimeNs start)
    : m_topology(topology), m_rng(mix64(seed ^ 0x776f726b6c6f6164ULL)) {
    const std::size_t nRacks = topology.count(EntityKind::Rack);
    m_rackJob.resize(nRacks);
    // Carve the floor into jobs of 1..8 neighbouring racks (training jobs span rows the way a
    // scheduler fills contiguous capacity).
    EntityId rack = 0;
    while (rack < nRacks) {
        Job job;
        job.firstRack = rack;
        job.rackCount = std::min<std::uint32_t>(static_cast<std::uint32_t>(m_rng.range(1, 8)),
                                                static_cast<std::uint32_t>(nRacks - rack));
        plan(job, start);
        // Jobs already running when the twin starts: spread their start into the past.
        const TimeNs len = job.end - job.start;
        job.start -= static_cast<TimeNs>(m_rng.uniform() * static_cast<double>(len));
        job.end = job.start + len;
        if (job.end <= start) job.end = start + len / 2;
        for (std::uint32_t i = 0; i < job.rackCount; ++i)
            m_rackJob[rack + i] = static_cast<std::uint32_t>(m_jobs.size());
        m_jobs.push_back(job);
        rack += job.rackCount;
    }
    const std::size_t nTrays = topology.count(EntityKind::ComputeTray);
    m_trayPhase.resize(nTrays);
    for (std::size_t t = 0; t < nTrays; ++t)
        m_trayPhase[t] = hashNoise(seed, 0x7472, t) * kTwoPi;
    refreshPhases();
}

void WorkloadModel::refreshPhases() {
    m_phaseSin.resize(m_trayPhase.size());
    m_phaseCos.resize(m_trayPhase.size());
    for (std::size_t t = 0; t < m_trayPhase.size(); ++t) {
        m_phaseSin[t] = std::sin(m_trayPhase[t]);
        m_phaseCos[t] = std::cos(m_trayPhase[t]);
    }
    m_cycle = replicaCycle(m_demandAt);
}

std::pair<float, float> WorkloadModel::replicaCycle(TimeNs now) const {
    const auto t = static_cast<float>(toSeconds(now % (86400 * kNsPerSecond)));
    const float a = kTwoPi * t / 240.0f;
    return {std::sin(a), std::cos(a)};
}

void WorkloadModel::plan(Job& job, TimeNs now) {
    const double r = m_rng.uniform();
    job.kind = r < 0.62 ? JobKind::Training : (r < 0.94 ? JobKind::Inference : JobKind::Idle);
    job.start = now;
    const double minutes = job.kind == JobKind::Idle ? m_rng.uniform(2, 8) : m_rng.uniform(15, 90);
    job.end = now + fromSeconds(minutes * 60.0);
    job.intensity = static_cast<float>(m_rng.uniform(0.8, 1.0));
    job.stepPeriodS = static_cast<float>(m_rng.uniform(1.2, 4.0));
    job.checkpointEveryS = static_cast<float>(m_rng.uniform(300, 900));
    job.burstLevel = 0;
    job.burstUntil = now;
}

void WorkloadModel::advance(TimeNs now) {
    for (auto& job : m_jobs) {
        if (now >= job.end) plan(job, now);
        if (job.kind == JobKind::Inference) {
            if (now >= job.burstUntil) job.burstLevel = 0;
            // Agent-like demand: a spike starts about once a minute and lasts 5-30 s.
            if (job.burstLevel == 0 && m_rng.uniform() < 0.0017) {
                job.burstLevel = static_cast<float>(m_rng.uniform(0.25, 0.5));
                job.burstUntil = now + fromSeconds(m_rng.uniform(5, 30));
            }
        }
    }
    // Demand is per job: worked out once a tick rather than for each of its trays.
    m_jobDemand.resize(m_jobs.size());
    for (std::size_t j = 0; j < m_jobs.size(); ++j)
        if (m_jobs[j].kind == JobKind::Inference) m_jobDemand[j] = demand(m_jobs[j], now);
    m_demandAt = now;
    m_cycle = replicaCycle(now);
}

float WorkloadModel::demand(const Job& job, TimeNs now) const {
    // Demand swings over ~45 minutes, phased per job.
    const auto t = static_cast<float>(toSeconds(now % (86400 * kNsPerSecond)));
    return 0.66f + 0.16f * std::sin(kTwoPi * t / 2700.0f + float(job.firstRack));
}

WorkloadModel::TrafficShare WorkloadModel::trayTraffic(EntityId tray, TimeNs now) const {
    const EntityId rack = m_topology.computeTrays.rack[tray];
    const Job& job = m_jobs[m_rackJob[rack]];
    switch (job.kind) {
    case JobKind::Idle:
        return {0.002f, 0.001f};
    case JobKind::Training: {
        const auto age = static_cast<float>(toSeconds(now - job.start));
        const float ramp = std::clamp(age / 60.0f, 0.05f, 1.0f);
        // Checkpoints stream state out over the network to storage.
        if (std::fmod(age, job.checkpointEveryS) > job.checkpointEveryS - 40.0f)
            return {0.02f, 0.35f};
        const float phase = std::fmod(age, job.stepPeriodS) / job.stepPeriodS;
        // All-reduce: NVLink-heavy inside the rack; on the rails only when the job spans racks.
        // Sharded data parallelism overlaps gradient reduce-scatter with the backward pass, so
        // the rails carry traffic through the compute phase too, then peak in the all-reduce.
        const bool multiRack = job.rackCount > 1;
        if (phase >= 0.72f) return {0.72f * ramp, (multiRack ? 0.62f : 0.03f) * ramp};
        return {0.09f * ramp, (multiRack ? 0.24f : 0.01f) * ramp};
    }
    case JobKind::Inference:
        // Disaggregated serving moves KV caches between prefill and decode replicas over the
        // rails; agents add chatty small requests.
        return inferenceTraffic(trayUtilization(tray, now));
    }
    return {};
}

bool WorkloadModel::checkpointing(EntityId tray, TimeNs now) const {
    const Job& job = m_jobs[m_rackJob[m_topology.computeTrays.rack[tray]]];
    if (job.kind != JobKind::Training) return false;
    const auto age = static_cast<float>(toSeconds(now - job.start));
    return std::fmod(age, job.checkpointEveryS) > job.checkpointEveryS - 40.0f;
}

float WorkloadModel::trayUtilization(EntityId tray, TimeNs now) const {
    const EntityId rack = m_topology.computeTrays.rack[tray];
    const Job& job = m_jobs[m_rackJob[rack]];
    const auto age = static_cast<float>(toSeconds(now - job.start));
    switch (job.kind) {
    case JobKind::Idle:
        return 0.03f;
    case JobKind::Training: {
        const float ramp = std::clamp(age / 60.0f, 0.05f, 1.0f); // job start-up
        // Checkpoint: all GPUs stall for ~40 s while state is written out.
        if (std::fmod(age, job.checkpointEveryS) > job.checkpointEveryS - 40.0f) return 0.12f;
        // Synchronous steps: compute at full load, then an all-reduce at lower SM activity.
        const float phase = std::fmod(age, job.stepPeriodS) / job.stepPeriodS;
        const float util = phase < 0.72f ? 0.97f : 0.58f;
        return util * job.intensity * ramp;
    }
    case JobKind::Inference: {
        // Demand swings over ~45 minutes, replicas are unevenly loaded, agents add spikes.
        const float jobDemand = now == m_demandAt ? m_jobDemand[m_rackJob[rack]] : demand(job, now);
        const auto [cycleSin, cycleCos] = now == m_demandAt ? m_cycle : replicaCycle(now);
        const float replica = 0.1f * (cycleSin * m_phaseCos[tray] + cycleCos * m_phaseSin[tray]);
        return std::clamp((jobDemand + replica + job.burstLevel) * job.intensity, 0.05f, 1.0f);
    }
    }
    return 0.0f;
}

} // namespace ft::model
