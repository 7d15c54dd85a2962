#pragma once
// The import pipeline: telemetry from a file (any registered TelemetryLoader) into a .ftrec
// recording. The samples drive a SimModel tick by tick and every tick is recorded, so the
// measured channels carry the imported values and the rest is the model's, exactly as a live
// run records. Runs on the caller's thread (an import worker); no Qt. A cancelled or failed
// import removes its partial file.
#include "importers/formats/error.h"
#include "importers/formats/telemetry_loader.h"

#include <atomic>
#include <cstdint>
#include <expected>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ft::importers {

// Drives a SimModel through `samples` (sorted by time) at `tick` and records every tick into
// `outPath`. `progress` gets 0..1; returns the ticks written.
std::expected<std::uint64_t, Error>
recordSamples(const std::shared_ptr<const model::Topology>& topology,
              const std::vector<model::Sample>& samples, model::TimeNs tick,
              const std::string& source, const std::string& outPath,
              const std::function<void(double)>& progress = {},
              const std::atomic<bool>* cancel = nullptr);

struct FileImportRequest {
    std::string path;
    std::string outPath;
    model::TimeNs tick = model::kNsPerSecond;
    const MappingRules* rules = nullptr; // for loaders with a rulesPreset()
    std::function<void(double)> progress;
    const std::atomic<bool>* cancel = nullptr;
};

// Loads `request.path` with `loader` and records it. The summary is what a headless run
// prints: {sources: [{name, samples, mapped, unmapped, bad_lines, errors, problems...}], ticks,
// recorded_samples, first_time, last_time, recording}.
std::expected<nlohmann::json, Error>
importFileToRecording(const TelemetryLoader& loader,
                      const std::shared_ptr<const model::Topology>& topology,
                      const FileImportRequest& request);

} // namespace ft::importers
