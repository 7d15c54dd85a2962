#pragma once
// SourceStatus: one live telemetry source as the HUD shows it. A plain struct so the app can
// fill it from its sources without the views knowing about importers.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ft::views {

// A host name the telemetry carries that the floor does not know, with the floor's nearest
// names (what the operator probably meant).
struct UnknownHostHint {
    std::string host;
    std::uint64_t samples = 0;
    std::vector<std::string> suggestions;
    bool operator==(const UnknownHostHint&) const = default;
};

// What one metric family of the source came to (per series): the channels it feeds and by
// which key its series were placed, why it is ignored, or why series were not placed.
struct FamilyStatus {
    std::string family;
    std::uint64_t series = 0, placed = 0, ignored = 0, noRule = 0;
    std::string channels; // "gpu.temperature, gpu.memory_temperature"
    std::string placedBy; // "UUID 144, host and index 8"
    std::string why;      // ignored: why; else the not-placed reasons with their series
    bool operator==(const FamilyStatus&) const = default;
};

struct SourceStatus {
    std::string name;   // "scrape 127.0.0.1:9400", "prometheus", "mqtt broker:1883"
    int level = 0;      // 0 up, 1 degraded or connecting, 2 down
    std::string detail; // "12,480 samples/s, 0.4 s ago" or the last error
    std::vector<UnknownHostHint> unknownHosts; // on a source's first target only
    // What the equipment reports is wrong ("Critical: Pump '2' has failed. (/redfish/v1/...)").
    std::vector<std::string> conditions;
    // Equipment the rules named that the floor does not have ("cdu 'CDU Z9'"), with samples.
    std::vector<std::pair<std::string, std::uint64_t>> unresolved;
    // Lines used as written that break the format's specification, and the latest in words.
    std::uint64_t formatWarnings = 0;
    std::string lastFormatWarning;
    std::vector<FamilyStatus> families; // the mapping report, on a source's first target only
    bool operator==(const SourceStatus&) const = default;
};

} // namespace ft::views
