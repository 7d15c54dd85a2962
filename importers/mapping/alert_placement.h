#pragma once
// Where an Alertmanager alert lands on the floor, from its labels, by the rules the telemetry
// mapping places series with: a GPU by its UUID (dcgm-exporter's `UUID`, or `gpu_uuid`); a
// compute tray by its host (`Hostname`, `hostname`, `host`, `node`, `nodename`, or `instance`
// without its port, through the floor's host table), its GPU by the `gpu` index; a rack or CDU
// by a management address in `instance` (the floor file's BMC lists); and equipment named in
// rules' own labels: `rack`, `row`, `cdu`, `pdu` (a power feed or a rack's power shelf),
// `leaf`, `spine`. The most specific label that names something on this floor wins. An alert
// that names nothing is unplaced, with the labels that were tried. Pure C++ (no Qt).
#include "entity_name_index.h"
#include "model/external_alert.h"

#include <string>

namespace ft::importers {

struct AlertPlace {
    std::vector<model::EntityRef> entities; // empty: unplaced
    std::string by;                         // "UUID", "instance", "rack", ...; or why not
};

AlertPlace placeAlert(const model::Labels& labels, EntityNameIndex& index);

// Places every alert of `alerts` (entities and placedBy set).
void placeAlerts(std::vector<model::ExternalAlert>& alerts, EntityNameIndex& index);

} // namespace ft::importers
