#pragma once
// Samples are how every source (simulator inputs, live importers, recordings) feeds the twin.
#include "channel_catalog.h"
#include "timestamp.h"

#include <string>
#include <utility>
#include <vector>

namespace ft::model {

struct Sample {
    TimeNs time = 0;
    ChannelId channel = 0;
    EntityId entity = 0;
    float value = 0;
};

struct SampleBatch {
    std::uint16_t source = 0;
    std::vector<Sample> samples;
    // The job each GPU now runs, from the telemetry's labels (dcgm-exporter's namespace/pod on
    // Kubernetes, hpc_job on Slurm); "" when its series carry none. Only changes.
    std::vector<std::pair<EntityId, std::string>> gpuJobs;
};

} // namespace ft::model
