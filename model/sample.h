#pragma once
// Samples are how every source (simulator inputs, live importers, recordings) feeds the twin.
#include "channel_catalog.h"
#include "timestamp.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ft::model {

struct AlertBoard; // external_alert.h

struct Sample {
    TimeNs time = 0;
    ChannelId channel = 0;
    EntityId entity = 0;
    float value = 0;
};

// What the workload scheduler says of a node beyond its state (a sample of
// compute_tray.scheduler_state carries that): its name there, the state and the reason in
// words, and the jobs on it.
struct NodeNote {
    EntityId tray = 0;
    std::string node;   // "a01-n03"
    std::string state;  // "idle + drain", as the scheduler words it
    std::string reason; // "XID 79 on GPU 2 (root, 2026-12-07 03:22)"; "" = none
    std::string jobs;   // "1234 train-llm (alice, gpu, since 03:22)"; "" = none
    bool operator==(const NodeNote&) const = default;
};

struct SampleBatch {
    std::uint16_t source = 0;
    std::vector<Sample> samples;
    // The job each GPU now runs, from the telemetry's labels (dcgm-exporter's namespace/pod on
    // Kubernetes, hpc_job on Slurm); "" when its series carry none. Only changes.
    std::vector<std::pair<EntityId, std::string>> gpuJobs;
    // The jobs above come from the scheduler: from then on they are the floor's jobs, and the
    // labels of other sources no longer name any.
    bool schedulerJobs = false;
    std::vector<NodeNote> nodeNotes; // only changes
    // Each MIG-partitioned GPU's slices in words, one line a slice ("GI 13 (1g.5gb): graphics
    // engine active 99.6 %"); only changes.
    std::vector<std::pair<EntityId, std::string>> gpuSlices;
    // An alerting source's whole list as of this poll (Alertmanager's alerts and silences),
    // replacing what the same source sent before; null: none in this batch.
    std::shared_ptr<const AlertBoard> alerts;
};

} // namespace ft::model
