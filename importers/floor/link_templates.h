#pragma once
// Links out of the twin: URL templates (the floor file's "links", the user's View > Links)
// filled for an entity at a moment, so that the inspector can open a host's Grafana dashboard,
// a rack's page in the DCIM or a runbook. A template is offered for an entity only when every
// placeholder it holds can be filled for it; values are percent-encoded.
//
// Placeholders: {host} (a tray's or GPU's host), {rack}, {row}, {cdu}, {gpu} (its index in its
// tray, as dcgm-exporter's "gpu" label), {uuid} / {gpu_uuid}, {bmc}, {tray} (its number in the
// rack, 1 = top), {entity} (the entity's name), {kind}, {id}; the moment {t} in epoch
// milliseconds (Grafana's from/to), {t-15m} / {t+1h} shifted, and {t:rfc3339} / {t:s} (seconds).
#include "model/entity_kind.h"
#include "model/timestamp.h"
#include "model/topology.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ft::importers {

struct LinkTemplate {
    std::string name; // shown as "Open in <name>"
    std::string url;
};

// The URL for `ref` at `time`, or nothing when a placeholder cannot be filled for it (a host
// for a rack, a UUID the floor does not know). `why` gets the placeholder that could not be.
std::optional<std::string> expandLinkTemplate(const std::string& url,
                                              const model::Topology& topology, model::EntityRef ref,
                                              model::TimeNs time, std::string* why = nullptr);
// A template's placeholders are all known ones (the floor file and View > Links check them);
// the error names the first unknown one.
std::optional<std::string> checkLinkTemplate(const std::string& url);

} // namespace ft::importers
