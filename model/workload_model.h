#pragma once
// WorkloadModel: the job mix running on the floor. Racks are grouped into jobs (multi-rack
// training, bursty inference, idle capacity); jobs end and are replaced over time, so load
// moves across the floor. Gives the target utilization of every compute tray each tick.
// Owned and called by the sim thread only.
#include "random.h"
#include "timestamp.h"
#include "topology.h"

#include <utility>
#include <vector>

namespace ft::model {

enum class JobKind : std::uint8_t { Idle, Training, Inference };

struct Job {
    JobKind kind = JobKind::Idle;
    EntityId firstRack = 0;
    std::uint32_t rackCount = 0;
    TimeNs start = 0;
    TimeNs end = 0;
    float intensity = 1.0f;   // 0..1 scale of the job's load
    float stepPeriodS = 2.0f; // training: one compute + all-reduce step
    float checkpointEveryS = 600.0f;
    float burstLevel = 0.0f; // inference: current demand spike
    TimeNs burstUntil = 0;
};

class WorkloadModel {
public:
    WorkloadModel(const Topology& topology, std::uint64_t seed, TimeNs start);

    // Advances job lifetimes and bursts to time `now` (called once per tick, in order).
    void advance(TimeNs now);
    // Target utilization (0..1) of a compute tray at `now`.
    float trayUtilization(EntityId tray, TimeNs now) const;
    // Fractions of a GPU's peak NVLink and rail bandwidth the tray's job uses at `now`.
    struct TrafficShare {
        float nvlink = 0;
        float rail = 0;
    };
    TrafficShare trayTraffic(EntityId tray, TimeNs now) const;
    // An inference tray's traffic at utilization `util` (0..1): what trayTraffic gives for it,
    // for a caller that already has the tray's utilization.
    static TrafficShare inferenceTraffic(float util) { return {0.14f * util, 0.16f * util}; }
    // Is the tray's training job writing a checkpoint at `now`?
    bool checkpointing(EntityId tray, TimeNs now) const;

    const std::vector<Job>& jobs() const { return m_jobs; }
    std::uint32_t jobOfRack(EntityId rack) const { return m_rackJob[rack]; }
    const std::vector<std::uint32_t>& rackJobs() const { return m_rackJob; }

    // Keyframes (state_archive.h).
    template <class Archive> void persist(Archive& ar) {
        ar(m_rng, m_jobs, m_rackJob, m_trayPhase, m_jobDemand, m_demandAt);
        if constexpr (Archive::kReading) refreshPhases();
    }

private:
    void plan(Job& job, TimeNs now);
    float demand(const Job& job, TimeNs now) const;
    void refreshPhases();
    // The replicas' four-minute cycle at `now`: its sine and cosine.
    std::pair<float, float> replicaCycle(TimeNs now) const;

    const Topology& m_topology;
    Rng m_rng;
    std::vector<Job> m_jobs;
    std::vector<std::uint32_t> m_rackJob;
    std::vector<float> m_trayPhase; // per-tray replica imbalance, fixed
    // Its sine and cosine (from m_trayPhase), so a tray's replica load is
    // sin(cycle + phase) = sin(cycle) cos(phase) + cos(cycle) sin(phase): no sine per tray.
    std::vector<float> m_phaseSin, m_phaseCos;
    std::pair<float, float> m_cycle{0.0f, 1.0f}; // replicaCycle(m_demandAt)
    // Each inference job's demand (the same for all its trays) as of the last advance().
    std::vector<float> m_jobDemand;
    TimeNs m_demandAt = -1;
};

} // namespace ft::model
