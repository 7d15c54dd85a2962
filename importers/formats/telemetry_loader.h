#pragma once
// TelemetryLoader: the interface every telemetry *file* format implements, next to LiveSource
// for streams (PlotJuggler's DataLoader/DataStreamer pair). A loader says which file names it
// reads and which mapping preset its samples need, and turns one file into twin samples sorted
// by time with a report of what it could not use. Loaders register in telemetry_loader.cpp;
// the File menu's filter, --import and the import pipeline (recording_import.h) ask the
// registry. Loading runs on the caller's thread (an import worker); no Qt.
#include "error.h"
#include "importers/mapping/mapping_rules.h"
#include "importers/mapping/name_count.h"
#include "model/sample.h"
#include "model/topology.h"

#include <atomic>
#include <cstdint>
#include <expected>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ft::importers {

struct TelemetryLoadRequest {
    std::string path;
    const model::Topology* topology = nullptr;
    // The rules for formats that carry metric names and labels (see rulesPreset()); the
    // caller resolves them (bundled presets or --mapping).
    const MappingRules* rules = nullptr;
    std::function<void(double)> progress; // 0..1 of the file read
    const std::atomic<bool>* cancel = nullptr;
};

// What a load kept and what it could not use, as the headless summary reports a source.
struct TelemetryLoadReport {
    std::string name;           // "file dump.prom"
    std::uint64_t samples = 0;  // samples (or lines) read
    std::uint64_t mapped = 0;   // ... that became twin samples
    std::uint64_t unmapped = 0; // ... that no rule matched or that named nothing on this floor
    std::uint64_t badLines = 0;
    // Lines used as written that break the format's specification (exposition dumps).
    std::uint64_t formatWarnings = 0;
    std::vector<std::string> warnings;   // the first of them: file:line:column, which rule
    std::uint64_t scrapes = 0;           // exposition dumps: scrapes in the file
    std::vector<std::string> problems;   // the first bad lines: file:line:column, what was expected
    std::vector<NameCount> unknownHosts; // host names the floor does not know, top 10
    bool cancelled = false;
};

struct LoadedTelemetry {
    std::vector<model::Sample> samples; // sorted by time
    TelemetryLoadReport report;
};

class TelemetryLoader {
public:
    virtual ~TelemetryLoader() = default;
    virtual std::string_view name() const = 0; // "Prometheus text (0.0.4, OpenMetrics)"
    // File name endings it reads, with the dot: ".csv", ".prom".
    virtual std::vector<std::string_view> extensions() const = 0;
    // The mapping preset its samples need ("dcgm-exporter", "bms"), empty when it needs none.
    virtual std::string_view rulesPreset() const { return {}; }
    virtual std::expected<LoadedTelemetry, Error>
    load(const TelemetryLoadRequest& request) const = 0;
};

const std::vector<std::unique_ptr<TelemetryLoader>>& telemetryLoaders();
// The loader for a file name (by its ending); Prometheus text for endings nobody claims, as
// exporters' dumps come as .txt, .metrics or nothing at all.
const TelemetryLoader& telemetryLoaderFor(const std::string& path);
// "*.csv *.jsonl ...": every ending a loader claims, for a file dialog.
std::string telemetryFilePatterns();

} // namespace ft::importers
