#pragma once
// Snapshot: the value of every channel of every entity at one instant, with the racks'
// lifecycle states and the active alarms. Built by the sim thread, published as
// std::shared_ptr<const Snapshot>, then never modified: any thread may read it.
#include "channel_catalog.h"
#include "timestamp.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <span>
#include <vector>

namespace ft::model {

enum class RackLifecycle : std::uint8_t {
    Delivered,
    HardwareDetection,
    FirmwareUpdate,
    PowerCoolingBringUp,
    NodeValidation,
    RackValidation,
    MultiRackValidation,
    Production,
    Troubleshooting,
    Revalidation,
    Maintenance,
    Decommissioned,
};

enum class Severity : std::uint8_t { Warning, Critical };

struct Alarm {
    std::string_view title; // what is wrong, in an operator's words (static text)
    EntityKind kind = EntityKind::Rack;
    EntityId entity = 0;
    ChannelId channel = 0;
    Severity severity = Severity::Warning;
    float value = 0;
    float threshold = 0;
    TimeNs since = 0;
};

struct LifecycleTransition; // lifecycle.h

// Something that happened, for event lists and timelines.
enum class EventKind : std::uint8_t { ScenarioInjection, Protection, AlarmRaised, AlarmCleared, Lifecycle };

struct Event {
    TimeNs time = 0;
    EventKind kind = EventKind::ScenarioInjection;
    EntityRef entity;
    Severity severity = Severity::Warning;
    std::string text;
};

struct Snapshot {
    TimeNs time = 0;
    std::uint64_t tick = 0;
    std::vector<std::vector<float>> values; // [channel id][entity id]
    // Which refresh of the per-link fabric channels `values` holds (they change once per counter
    // interval; a recycled snapshot that already holds them skips the copy).
    std::uint64_t detailStamp = 0;
    std::vector<RackLifecycle> rackLifecycle;
    std::vector<Alarm> alarms;
    // Every event so far (bounded), shared between snapshots until a new one happens.
    std::shared_ptr<const std::vector<Event>> events;
    std::string scenario; // name of the running scenario, empty when none
    // Every lifecycle transition so far with its reason, shared until the next one.
    std::shared_ptr<const std::vector<LifecycleTransition>> lifecycleHistory;

    std::span<const float> channel(ChannelId id) const { return values[id]; }
    float value(ChannelId id, EntityId entity) const { return values[id][entity]; }
};

} // namespace ft::model
