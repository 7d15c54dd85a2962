#pragma once
// Snapshot: the value of every channel of every entity at one instant, with the racks'
// lifecycle states and the active alarms. Built by the sim thread, published as
// std::shared_ptr<const Snapshot>, then never modified: any thread may read it.
#include "channel_catalog.h"
#include "column.h"
#include "shared_log.h"
#include "timestamp.h"

#include <array>
#include <bitset>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
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

// Info: an event that is not a fault (a repair, a restore, planned work); never an alarm's.
enum class Severity : std::uint8_t { Warning, Critical, Info };

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
class IncidentList;         // incident_tracker.h
struct NodeNote;            // sample.h
struct AlertBoard;          // external_alert.h

// Something that happened, for event lists and timelines.
enum class EventKind : std::uint8_t {
    ScenarioInjection,
    Protection,
    AlarmRaised,
    AlarmCleared,
    Lifecycle,
    DeviceReport, // what a device reported about itself (a GPU's XID)
    Scheduler,    // what the workload scheduler says of a node (drained, down, back)
    Alert         // the floor's own alerting: an alert fired, resolved, was silenced or not
};

constexpr std::string_view eventKindName(EventKind k) {
    switch (k) {
    case EventKind::ScenarioInjection:
        return "scenario";
    case EventKind::Protection:
        return "protection";
    case EventKind::AlarmRaised:
        return "alarm_raised";
    case EventKind::AlarmCleared:
        return "alarm_cleared";
    case EventKind::Lifecycle:
        return "lifecycle";
    case EventKind::DeviceReport:
        return "device_report";
    case EventKind::Scheduler:
        return "scheduler";
    case EventKind::Alert:
        return "alert";
    }
    return "?";
}

struct Event {
    TimeNs time = 0;
    EventKind kind = EventKind::ScenarioInjection;
    EntityRef entity;
    Severity severity = Severity::Warning;
    std::string text;

    template <class Archive> void persist(Archive& ar) { ar(time, kind, entity, severity, text); }
};
using EventLog = SharedLog<Event>;
using LifecycleLog = SharedLog<LifecycleTransition>;

// The per-link fabric channels (NVLink and fabric links: over a million entities each on a big
// floor) change once per counter interval, not every tick. They live in a block of their own
// that is immutable once published and shared by every snapshot until the next refresh.
inline constexpr ChannelId kFirstDetailChannel = ch::NvlinkTx;
inline constexpr ChannelId kLastDetailChannel = ch::FabricState;
constexpr bool isDetailChannel(ChannelId c) {
    return c >= kFirstDetailChannel && c <= kLastDetailChannel;
}
using DetailBlock = std::vector<Column>; // [channel - kFirstDetailChannel][entity id]

struct Snapshot {
    TimeNs time = 0;
    std::uint64_t tick = 0;
    // [channel id][entity id]. The detail channels' columns here stay empty: read every channel
    // through channel()/value(), which look in `detail` for those. A published snapshot's large
    // columns share their buffers with the simulator's state of that tick (column.h).
    std::vector<Column> values;
    std::shared_ptr<const DetailBlock> detail;
    // Counts the refreshes of `detail` (views redo per-link work only when it changes).
    std::uint64_t detailStamp = 0;
    std::vector<RackLifecycle> rackLifecycle;
    // Telemetry (a live source, or a recording of live or imported data): the values come from
    // measurements and the model only fills the gaps between them. False for the demo.
    bool telemetry = false;
    // [entity kind][entity]: when the entity's newest measured value was taken, 0 = never. Sized
    // for every kind when `telemetry`, empty otherwise. A compute tray counts as measured when
    // anything in it is, a rack when anything in it or its manifold is: their totals are made of
    // those values.
    std::array<std::vector<TimeNs>, kEntityKindCount> measuredAt;
    // Telemetry: the channels any measurement has reached (a rack total counts when the values it
    // is made of do). A measured entity's other channels are still the model's.
    std::bitset<ch::Count> measuredChannels;
    // How old a measurement may get before its entity is shown as stale rather than healthy.
    TimeNs staleAfter = 0;

    TimeNs measuredTime(EntityKind kind, EntityId e) const {
        const auto& at = measuredAt[static_cast<std::size_t>(kind)];
        return e < at.size() ? at[e] : 0;
    }
    // True when the entity's values come from a measurement (always, in the demo).
    bool measured(EntityKind kind, EntityId e) const {
        return !telemetry || measuredTime(kind, e) > 0;
    }
    // True when this channel's value for the entity comes from a measurement.
    bool measured(ChannelId channel, EntityId e) const {
        return !telemetry || (channel < ch::Count && measuredChannels.test(channel) &&
                              measuredTime(kChannels[channel].kind, e) > 0);
    }
    // Measured once, but not for longer than staleAfter: its source went quiet.
    bool stale(EntityKind kind, EntityId e) const {
        const TimeNs at = measuredTime(kind, e);
        return telemetry && at > 0 && time - at > staleAfter;
    }
    bool rackStale(EntityId rack) const { return stale(EntityKind::Rack, rack); }
    std::vector<Alarm> alarms;
    // Every event so far (the newest few thousand from a simulator), shared between snapshots
    // until a new one happens; its endSeq() counts every event ever, so a reader that keeps it
    // finds the new ones with since().
    std::shared_ptr<const EventLog> events;
    // The incidents so far, each a cause chain (the sim's tracker; null where nobody tracks them).
    std::shared_ptr<const IncidentList> incidents;
    std::string scenario; // name of the running scenario, empty when none
    // Each rack's job as operators name it ("" = none: idle capacity, out of service, or no job
    // label on its GPUs), shared until one changes; null where nobody knows (a recording made
    // before jobs were kept).
    std::shared_ptr<const std::vector<std::string>> rackJobs;
    // What the scheduler says of each compute tray's node (by tray; null where no scheduler
    // source runs), shared until one changes. Replays have the state channel and the events.
    std::shared_ptr<const std::vector<NodeNote>> nodeNotes;
    // Each GPU's MIG slices in words, one line a slice ("" = not partitioned, or not reported);
    // null where no source reported any.
    std::shared_ptr<const std::vector<std::string>> gpuSlices;
    // The alerts of the floor's own alerting (Alertmanager sources, or a recording of them),
    // shared until they change; null where no alerting source runs.
    std::shared_ptr<const AlertBoard> externalAlerts;
    // Every lifecycle transition so far with its reason, shared until the next one.
    std::shared_ptr<const LifecycleLog> lifecycleHistory;

    std::span<const float> channel(ChannelId id) const {
        if (isDetailChannel(id))
            return detail ? std::span<const float>((*detail)[id - kFirstDetailChannel])
                          : std::span<const float>();
        return values[id];
    }
    float value(ChannelId id, EntityId entity) const { return channel(id)[entity]; }
    // For producers building a snapshot (the sim, a recording reader): a channel to write into.
    // A shared detail block is copied first, so published snapshots never change.
    Column& writable(ChannelId id) {
        if (!isDetailChannel(id)) return values[id];
        if (!detail || detail.use_count() > 1) {
            auto own =
                detail
                    ? std::make_shared<DetailBlock>(*detail)
                    : std::make_shared<DetailBlock>(kLastDetailChannel - kFirstDetailChannel + 1);
            detail = own;
        }
        return const_cast<DetailBlock&>(*detail)[id - kFirstDetailChannel];
    }
};

} // namespace ft::model
