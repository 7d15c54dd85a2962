#pragma once
// The scheduler's answers placed on the floor: each node Slurm knows is found among the floor's
// hosts (by its node name, else its host name, a domain ignored), and gives its compute tray a
// scheduler state (a sample of compute_tray.scheduler_state), a note in words (state, reason,
// jobs) and its GPUs the job they run. Nodes the floor lacks are counted by name, for the
// Sources panel and --check-source. Pure C++ (no Qt).
#include "entity_name_index.h"
#include "importers/formats/slurm_json.h"
#include "model/sample.h"
#include "name_count.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ft::importers {

struct SlurmPlacement {
    std::vector<model::Sample> samples;                           // one state per placed node
    std::vector<model::NodeNote> notes;                           // one per placed node
    std::vector<std::pair<model::EntityId, std::string>> gpuJobs; // every GPU of a placed node
    std::size_t nodes = 0, placed = 0, runningJobs = 0, jobsPlaced = 0;
    std::vector<NameCount> unknownNodes; // nodes the floor lacks (count 1 each), in Slurm's order
    std::array<std::size_t, model::kSchedulerStates> byState{}; // placed nodes per state
};

// A job as the floor names it: "1234 train-llm (alice)".
std::string slurmJobLabel(const SlurmJob& job);

// `nodes` from sinfo (or /nodes), `jobs` from squeue (or /jobs); `time` stamps the samples.
SlurmPlacement placeSlurm(const SlurmAnswer& nodes, const SlurmAnswer& jobs, EntityNameIndex& index,
                          model::TimeNs time);

} // namespace ft::importers
