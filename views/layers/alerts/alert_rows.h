#pragma once
// What the inspector says of the pager's alerts on the selected entity and what it holds (a
// rack: every alert on its trays, GPUs, shelves; a tray: its GPUs'; a CDU: its pumps'), as
// (label, text) rows, the worst first: "Alert" (firing) or "Alert (silenced)" with the alert's
// name, severity, start and summary, and who muted it until when. Nothing without alerts there.
#include "model/external_alert.h"
#include "model/snapshot.h"
#include "model/topology.h"

#include <string>
#include <utility>
#include <vector>

namespace ft::views {

// The alerts on the entity and what it holds, the worst first.
std::vector<const model::ExternalAlert*>
alertsOn(const model::Snapshot& snap, const model::Topology& topology, model::EntityRef entity);

std::vector<std::pair<std::string, std::string>>
alertRows(const model::Snapshot& snap, const model::Topology& topology, model::EntityRef entity);

} // namespace ft::views
