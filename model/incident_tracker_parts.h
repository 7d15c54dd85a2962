#pragma once
// What the incident tracker's two halves share (internal to model/): its rule table's types
// (IncidentTracker::R, ::Rule), an open incident's working state (IncidentTracker::Open), and
// the timings and cause domains both use. incident_rules.cpp builds the rule table and reads the
// floor against the baselines; incident_tracker.cpp opens, grows, publishes and closes the
// incidents. Not thread-safe (one tracker per sim thread, as IncidentTracker itself).
#include "incident_tracker.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ft::model {
namespace incident_parts {

// How long a baseline remembers: long against a fault's first minutes, short against the
// hours a job mix takes to change.
inline constexpr double kBaselineTauS = 120.0;
// What a swinging channel is judged on: its average over a few of a job's steps.
inline constexpr double kRecentTauS = 10.0;
// An incident with nothing deviating and no alarm for this long is over.
inline constexpr TimeNs kQuietToClose = 120 * kNsPerSecond;
// Deviations alone (no alarm, no new effect) keep an incident open at most this long: the load
// under a frozen baseline changes with the job mix.
inline constexpr TimeNs kStaleOpen = TimeNs{30} * 60 * kNsPerSecond;
// How long a rack takes to settle into a job's new phase (a job ramps up in a minute).
inline constexpr TimeNs kJobSettle = 60 * kNsPerSecond;
// Republish moving figures (worst values) at most this often; structure changes at once.
inline constexpr TimeNs kRepublish = kNsPerSecond;

enum class Test : std::uint8_t {
    FallsTo, // value < baseline × a, baseline > b
    RisesBy, // value > baseline + a
    Ratio,   // value > baseline × a and value > baseline + b
    FlagOn,  // value ≥ 0.5 where the baseline was below
    FlagOff, // value < 0.5 where the baseline was at or above
    Above,   // value > a (an absolute limit)
};

// The cause domain of an entity kind, and of what a channel measures.
CauseDomain domainOfKind(EntityKind k);
CauseDomain domainOfChannel(ChannelId c);
// "A01: pump 1 tripped" -> "pump 1 tripped": what an event says, without whom.
inline std::string withoutName(const std::string& text) {
    const auto colon = text.find(": ");
    return colon == std::string::npos ? text : text.substr(colon + 2);
}

// Alarm titles are looked up by their text without making a string of each.
struct TitleHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

} // namespace incident_parts

// The rules, in the order of the table in the constructor.
enum class IncidentTracker::R : std::uint8_t {
    Flow,
    CduFlow,
    Supply,
    Return,
    Leak,
    GpuHot,
    Throttle,
    Clock,
    BuswayLoad,
    Redundancy,
    Capped,
    PoweredOff,
    Pace,
    NvlinkTraffic,
    RailTraffic,
    LinksDown,
    NvlinkOff,
    NvlinkErrors,
    RailLinks,
    Leaves,
    Respread,
    CacheDown,
    BucketReads,
    BucketErrors,
    LinkDown,
    Backlog,
    OldestPending,
};

struct IncidentTracker::Rule {
    EntityKind kind;
    ChannelId channel; // GpuSmClock on racks: the rack's mean clock, worked out per tick
    CauseDomain domain;
    incident_parts::Test test;
    float a, b;
    const char* what;         // printf: the worst value, then its baseline
    std::uint8_t roots;       // root domains it may follow directly (bits by CauseDomain)
    std::uint64_t after;      // effects it may follow (bits by R)
    bool alongJobs = false;   // also reaches the racks of the jobs the incident's racks run
    bool hurtsJobs = false;   // the racks it reaches slow their jobs
    bool smooth = false;      // judged on a ten-second average: the value swings with a job's steps
    bool followsLoad = false; // moves with the rack's own load: not read while its job settles
};

struct IncidentTracker::Open {
    std::size_t index = 0;                         // into m_incidents
    CauseDomain rootDomain = CauseDomain::Unknown; // the root entity's (Unknown: a rack's own)
    std::uint64_t present = 0;                     // bits by R: the effects in the chain so far
    std::vector<std::uint8_t> footprint, extended;
    bool floorWide = false;
    std::vector<int> stepOfRule;
    std::vector<float> worst, base;
    std::vector<std::vector<std::uint8_t>> reached; // [rule][entity], sized on first use
    std::unordered_map<std::string, int> eventSteps;
    std::unordered_map<std::string, int, incident_parts::TitleHash, std::equal_to<>>
        alarmSteps; // by title
    std::string rootAlarm;
    std::vector<std::uint8_t> reachedRack, hurtRack;
    TimeNs lastActive = 0, lastNew = 0, lastAlarm = 0;

    template <class Archive> void persist(Archive& ar) {
        ar(index, rootDomain, present, footprint, extended, floorWide, stepOfRule, worst, base,
           reached, eventSteps, alarmSteps, rootAlarm, reachedRack, hurtRack, lastActive, lastNew,
           lastAlarm);
    }
};

} // namespace ft::model
