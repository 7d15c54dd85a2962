#pragma once
// MappingRules: how a metric name and its labels become one of the twin's entities and channels,
// read from a rules file (resources/mappings/*.json). Loading checks everything it can — channel
// names against the catalog, entity kinds, that each rule can name its entity, patterns — and
// a bad file gives one Error with file, line, column and key. The rules are immutable once
// loaded; a SeriesMapper applies them to samples.
//
// A rules file:
//   {
//     "format": "floortwin-mapping/1",
//     "name": "dcgm-exporter",
//     "description": "...",
//     "defaults": { "host": ["Hostname", "hostname", "instance={host}:*"], "gpu": ["gpu"] },
//     "rules": [
//       { "metric": ["DCGM_FI_DEV_GPU_TEMP", "dcgm_gpu_temp"], "channel": "gpu.temperature",
//         "entity": { "kind": "gpu" }, "valid": [-40, 200] },
//       { "metric": "DCGM_FI_PROF_NVLINK_L{link}_TX_BYTES", "channel": "nvlink_link.tx",
//         "entity": { "kind": "nvlink_link" }, "scale": 1e-9 },
//       { "metric": "node_infiniband_port_data_transmitted_bytes_total",
//         "channel": "fabric_link.tx",
//         "entity": { "kind": "fabric_link", "nic": ["device=mlx5_{nic}"] },
//         "match": { "port": "1" }, "rate": true, "scale": 1e-9 }
//     ]
//   }
//
// Rule keys: "metric" (a LabelPattern or a list of them; captures feed the entity), "channel"
// (a catalog name), "entity" ("kind", then per capture field a list of sources, each "label" —
// the whole value — or "label=pattern"; "index_base": {"port": 1} for 1-based numbering),
// "match" (label -> pattern that must match; "" means the label is absent or empty, a leading
// '!' negates), "scale" and "offset" (value * scale + offset, after "rate"), "rate" (counter ->
// per-second rate), "counter" (a counter passed through as is), "valid" ([min, max] on the raw
// value; outside it, or NaN, the sample is dropped — DCGM's "blank" sentinels live up there),
// "fallback" (used only while no non-fallback rule feeds the same channel and entity),
// "continue" (keep matching later rules after this one), "to_end_channel" (see below),
// "comment" (ignored). A rule with "ignore": "why" instead of "channel" and "entity" matches
// series that are known and left out on purpose ("metric", "match" and "comment" only): they
// are counted as ignored, with the reason, not as unmapped.
//
// Capture fields and how each entity kind is found, first way that has all its fields:
//   every kind     name                        a display name or id (EntityNameIndex)
//   gpu            host + gpu                  gpu = index in the tray, from 0
//   nvlink_link    host + gpu + link           link = 0 .. switch trays - 1
//   compute_tray   host
//   nic            host + nic                  nic = index in the tray, from 0
//   fabric_link    host + nic                  the NIC -> leaf link
//                  leaf [+ rail] + port        a leaf switch port; with rail, leaf is the index
//                                              within the rail; ports below radix/2 face the NICs
//   rack           rack | host | bmc           rack name, the rack of the host's tray, or the
//                                              rack a management address belongs to (the floor
//                                              file's rack "bmc" list, else a host's BMC)
//   power_shelf    (rack | host | bmc) + shelf shelf = number within the rack, from 1
//   psu            ... + shelf + psu           psu = number within the shelf, from 1
//   cdu            bmc | cdu                   the CDU whose controller has that address
//                                              (floor file cooling.cdu_bmc), else by name
//   pump           (bmc | cdu) + pump | pump   pump = number within the CDU, from 1
// "host" is a host name from the floor's host_pattern; a domain suffix is ignored.
// "to_end_channel": a leaf port sees a link from either end — an uplink is the 'from' end of
// leaf -> spine, a port facing a NIC the 'to' end of NIC -> leaf — so "out of the port" is tx on
// an uplink and rx on a NIC-facing port. "channel" is used at a 'from' end, this at a 'to' end.
#include "importers/formats/error.h"
#include "label_pattern.h"
#include "model/channel_catalog.h"

#include <array>
#include <cstdint>
#include <expected>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ft::importers {

enum class CaptureField : std::uint8_t {
    Name,
    Host,
    Gpu,
    Link,
    Nic,
    Rack,
    Leaf,
    Rail,
    Port,
    Cdu,
    Pump,
    Uuid, // a GPU's UUID (dcgm-exporter's UUID label), looked up in the floor's host table
    Bmc,  // a management address: the rack whose controller or host BMC it is
    Shelf,
    Psu,
    Pci // a GPU's PCI address (dcgm-exporter's pci_bus_id), through the tray model's table
};
inline constexpr std::size_t kCaptureFieldCount = 16;
inline constexpr std::array<std::string_view, kCaptureFieldCount> kCaptureFieldNames{
    "name", "host", "gpu",  "link", "nic", "rack",  "leaf", "rail",
    "port", "cdu",  "pump", "uuid", "bmc", "shelf", "psu",  "pci"};
std::optional<CaptureField> captureFieldFromName(std::string_view name);

// Where a capture field's value comes from: the whole value of a label, or a pattern over it
// whose captures may also fill other fields. Label "__name__" is the metric name.
struct CaptureSource {
    std::string label;
    std::optional<LabelPattern> pattern;
    // For each of the pattern's captures, the field it fills.
    std::vector<CaptureField> fields;
};

struct EntitySpec {
    model::EntityKind kind = model::EntityKind::Gpu;
    std::array<std::vector<CaptureSource>, kCaptureFieldCount> sources;
    std::array<int, kCaptureFieldCount> indexBase{};
};

struct LabelMatcher {
    std::string label;
    LabelPattern pattern; // empty pattern: the label must be absent or empty
    bool negate = false;
};

enum class ValueTransform : std::uint8_t { Gauge, Counter, Rate };

struct MappingRule {
    std::vector<LabelPattern> metrics;
    // For each metric pattern, the field each of its captures fills.
    std::vector<std::vector<CaptureField>> metricFields;
    std::vector<LabelMatcher> matchers;
    model::ChannelId channel = 0;
    std::optional<model::ChannelId> toEndChannel;
    EntitySpec entity;
    ValueTransform transform = ValueTransform::Gauge;
    double scale = 1.0;
    double offset = 0.0;
    double validMin = -std::numeric_limits<double>::infinity();
    double validMax = std::numeric_limits<double>::infinity();
    bool fallback = false;
    bool continueMatching = false;
    // Non-empty: the series this rule matches are known and left out on purpose, and this says
    // why (a MIG instance's series, a fan on a liquid-cooled GPU); such a rule has no channel.
    std::string ignore;
    int line = 0; // where the rule starts in its file, for messages
    int column = 0;
};

struct MappingRules {
    std::string name;
    std::string description;
    std::string file;
    std::vector<MappingRule> rules;
};

std::expected<MappingRules, Error> parseMappingRules(std::string_view text,
                                                     const std::string& file = {});
std::expected<MappingRules, Error> loadMappingRules(const std::string& path);

} // namespace ft::importers
