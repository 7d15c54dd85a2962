#pragma once
// The incidents of a whole recording: its moments walked in order (about one a second), its
// events and alarms fed to an IncidentTracker. What the window shows a replay with, worked out
// once in the background so that seeking and playing backwards show them as they stood.
#include "model/incident_tracker.h"

#include <atomic>
#include <expected>
#include <functional>
#include <string>
#include <vector>

namespace ft::importers {

// `progress` (0..1) is called now and then; `cancel` stops the walk (the result is then what
// was found so far).
std::expected<model::IncidentList, std::string>
recordingIncidents(const std::string& path, const std::atomic<bool>& cancel,
                   const std::function<void(double)>& progress = {});

} // namespace ft::importers
