#pragma once
// Snapshot: the value of every channel of every entity at one instant, with the racks'
// lifecycle states and the active alarms. Built by the sim thread, published as
// std::shared_ptr<const Snapshot>, then never modified: any thread may read it.
#include "channel_catalog.h"
#include "timestamp.h"

#include <cstdint>
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
    EntityKind kind = EntityKind::Rack;
    EntityId entity = 0;
    ChannelId channel = 0;
    Severity severity = Severity::Warning;
    float value = 0;
    float threshold = 0;
    TimeNs since = 0;
};

struct Snapshot {
    TimeNs time = 0;
    std::uint64_t tick = 0;
    std::vector<std::vector<float>> values; // [channel id][entity id]
    std::vector<RackLifecycle> rackLifecycle;
    std::vector<Alarm> alarms;

    std::span<const float> channel(ChannelId id) const { return values[id]; }
    float value(ChannelId id, EntityId entity) const { return values[id][entity]; }
};

} // namespace ft::model
