#pragma once
// The alerts the floor's own alerting raised (Alertmanager), beside the twin's alarms: each with
// its labels and annotations as the rule wrote them, its state as Alertmanager reports it (firing,
// or suppressed by a silence or an inhibition, with the silence's author, end and comment), and
// where it lands on the floor. A source replaces its whole list at every poll; the simulator
// merges the lists of every source into one board that snapshots share until it changes, and a
// recording keeps each board with its time, so a replay shows the list as it was.
#include "entity_kind.h"
#include "snapshot.h"
#include "timestamp.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ft::model {

// Firing: active, nobody muted it. Silenced / Inhibited: suppressed (a silence matches it, or a
// firing alert inhibits it); a silenced alert that is also inhibited reads Silenced. Unprocessed:
// Alertmanager has not routed it yet.
enum class AlertState : std::uint8_t { Firing, Silenced, Inhibited, Unprocessed };

constexpr std::string_view alertStateName(AlertState s) {
    switch (s) {
    case AlertState::Firing:
        return "firing";
    case AlertState::Silenced:
        return "silenced";
    case AlertState::Inhibited:
        return "inhibited";
    case AlertState::Unprocessed:
        return "unprocessed";
    }
    return "?";
}

// "critical", "warning", "info": an alert's severity as Alertmanager's labels word it.
constexpr std::string_view severityWord(Severity s) {
    return s == Severity::Critical ? "critical" : s == Severity::Warning ? "warning" : "info";
}

constexpr bool alertMuted(AlertState s) {
    return s == AlertState::Silenced || s == AlertState::Inhibited;
}

using Labels = std::vector<std::pair<std::string, std::string>>; // sorted by name

// What a silence says, for the alerts it mutes: who, until when, why.
struct SilenceNote {
    std::string id;
    std::string createdBy;
    std::string comment;
    TimeNs startsAt = 0, endsAt = 0;
    std::string state; // "active", "pending", "expired"
    Labels matchers;   // name and the matcher in words ("=~ a01-.*", "= GpuXid")
    bool operator==(const SilenceNote&) const = default;
};

struct ExternalAlert {
    std::string source;      // "alertmanager 127.0.0.1:9093"
    std::string fingerprint; // Alertmanager's, stable while the alert lasts
    std::string name;        // the alertname label
    Severity severity = Severity::Warning;
    AlertState state = AlertState::Firing;
    Labels labels, annotations;
    std::string generatorUrl;
    TimeNs startsAt = 0, endsAt = 0, updatedAt = 0;
    std::vector<std::string> receivers;
    std::vector<std::string> silencedBy, inhibitedBy, mutedBy; // ids / fingerprints / intervals
    std::vector<SilenceNote> silences; // the silences of silencedBy this source knows
    // Where it lands (the most specific first); empty: it names nothing on this floor.
    std::vector<EntityRef> entities;
    std::string placedBy; // the label that placed it ("instance", "UUID", "rack"), or why not

    std::string_view label(std::string_view key) const {
        for (const auto& [k, v] : labels)
            if (k == key) return v;
        return {};
    }
    std::string_view annotation(std::string_view key) const {
        for (const auto& [k, v] : annotations)
            if (k == key) return v;
        return {};
    }
    bool operator==(const ExternalAlert&) const = default;
};

// One matcher of a silence the twin makes: equality, or a regular expression (Alertmanager's,
// anchored at both ends).
struct SilenceMatcher {
    std::string name, value;
    bool regex = false;
};

// Every source's alerts, by source then by when they started.
struct AlertBoard {
    std::vector<ExternalAlert> alerts;
    std::vector<SilenceNote> silences; // every silence the sources know (active and pending)
    bool operator==(const AlertBoard&) const = default;
};

} // namespace ft::model
