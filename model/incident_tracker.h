#pragma once
// IncidentTracker: groups what happens on the floor into incidents, each one cause chain — the
// root (the earliest cause: a fault injected or reported, a protection that acted, or an alarm
// nothing open explains) and every effect that followed inside its footprint, in time order,
// with the entities each reached and the jobs it hurt.
//
// It reads only snapshots and their events, so it works the same on the simulator, a live
// source and a replay. Effects are found two ways: events and alarms on the incident's
// entities, and channels that left their own baseline (a slow average per entity, frozen while
// an incident covers the entity) by more than normal load swings do. The causal order is the
// domains' own: cooling → GPU temperature → throttling → job pace → traffic; power → capping →
// clocks → job pace; fabric → links → traffic; storage → cache → bucket → backlog.
// One thread at a time (the sim thread, or whoever feeds the replay).
#include "channel_catalog.h"
#include "index_iterator.h"
#include "snapshot.h"
#include "state_archive.h"
#include "topology.h"

#include <functional>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace ft::model {

enum class CauseDomain : std::uint8_t { Cooling, Power, Fabric, Storage, Compute, Jobs, Unknown };
std::string_view causeDomainName(CauseDomain d);

inline constexpr ChannelId kNoChannel = ch::Count;

struct IncidentStep {
    TimeNs time = 0; // first seen
    CauseDomain domain = CauseDomain::Unknown;
    EntityKind kind = EntityKind::Rack;
    std::vector<EntityId> entities; // every entity it reached, in the order they were reached
    ChannelId channel = kNoChannel; // kNoChannel: an event, not a channel's deviation
    std::string what;               // "coolant flow down to 0 L/min (from 148)"

    template <class Archive> void persist(Archive& ar) {
        ar(time, domain, kind, entities, channel, what);
    }
};

struct Incident {
    std::uint32_t id = 0;
    TimeNs start = 0;
    TimeNs end = 0; // 0: still open
    EntityRef root;
    std::string rootKind; // "scenario", "protection" or "alarm"
    std::string rootText;
    CauseDomain domain = CauseDomain::Unknown;            // the root's
    std::vector<IncidentStep> chain;                      // in time order
    std::vector<std::pair<TimeNs, std::string>> recovery; // restores and repairs inside it
    std::vector<std::string> jobs;                        // jobs it slowed or stopped
    std::size_t racks = 0;                                // racks it reached
    // "root: … → … → …", for a HUD line.
    std::string summary() const;

    template <class Archive> void persist(Archive& ar) {
        ar(id, start, end, root, rootKind, rootText, domain, chain, recovery, jobs, racks);
    }
};

// The incidents in the order they began, each held by pointer: copying a list (a snapshot, a
// panel keeping what it shows) shares every incident, and a tracker republishing its list
// copies only the open ones.
class IncidentList {
public:
    using Items = std::vector<std::shared_ptr<const Incident>>;
    using iterator = IndexIterator<IncidentList, Incident>;
    using reverse_iterator = std::reverse_iterator<iterator>;

    IncidentList() = default;
    explicit IncidentList(Items items) : m_items(std::move(items)) {}
    std::size_t size() const { return m_items.size(); }
    bool empty() const { return m_items.empty(); }
    const Incident& operator[](std::size_t i) const { return *m_items[i]; }
    const Incident& back() const { return *m_items.back(); }
    iterator begin() const { return {this, 0}; }
    iterator end() const { return {this, size()}; }
    reverse_iterator rbegin() const { return reverse_iterator(end()); }
    reverse_iterator rend() const { return reverse_iterator(begin()); }
    void push_back(std::shared_ptr<const Incident> incident) {
        m_items.push_back(std::move(incident));
    }
    const Items& items() const { return m_items; }

private:
    Items m_items;
};

// The incidents as they stood at `time`: those begun by then, each cut to the steps seen by
// then and open if it ended later (a replay's full list, shown at a moment of it). Those over
// by then are shared, not copied.
IncidentList incidentsAt(const IncidentList& incidents, TimeNs time);

class IncidentTracker {
public:
    explicit IncidentTracker(std::shared_ptr<const Topology> topology);
    ~IncidentTracker();
    IncidentTracker(IncidentTracker&&) noexcept;
    IncidentTracker& operator=(IncidentTracker&&) noexcept;

    // The jobs on the floor, before each observe: which job each rack runs, a key of the phase
    // it is in (any change — a new job, a checkpoint starting or ending — means the rack swings
    // on its own for a while), and a job's name ("" = no job: idle capacity). Optional; without
    // it incidents name no jobs and do not spread along them.
    using JobName = std::function<std::string(std::uint32_t job)>;
    void setJobs(std::span<const std::uint32_t> jobOfRack, std::span<const std::uint64_t> phase,
                 JobName name);

    // The same from each rack's job name ("" = none), as replays have them (Snapshot::rackJobs):
    // a rack's phase changes only with its job. Null or the same list again: nothing changes.
    void setJobNames(const std::shared_ptr<const std::vector<std::string>>& rackJobs);

    // One tick: the snapshot and the events that happened since the last call.
    void observe(const Snapshot& s, std::span<const Event> newEvents);

    const std::vector<Incident>& incidents() const { return m_incidents; }
    // The incidents as of the last observe, shared; a new pointer only when they changed.
    std::shared_ptr<const IncidentList> shared() const { return m_shared; }

    // Keyframes (state_archive.h): what it has seen and the incidents so far. The jobs' names
    // are not kept: setJobs gives them again before the next observe.
    void persist(StateWriter& ar);
    void persist(StateReader& ar);

    // Racks past which incidents stop listing entities one by one (they still count them).
    static constexpr std::size_t kMaxStepEntities = 4096;

private:
    enum class R : std::uint8_t;
    struct Rule;
    struct Open; // per open incident: footprint and per-rule progress
    void startIncident(const Event& e, const char* kind, TimeNs now);
    static CauseDomain domainOf(const Event& e);
    void addEventStep(Open& o, const Event& e, CauseDomain domain);
    Open* covering(EntityRef ref);
    void footprintOf(EntityRef ref, std::vector<std::uint8_t>& racks, bool& floorWide) const;
    void scanRules(const Snapshot& s);
    void updateBaselines(const Snapshot& s, float dt);
    void closeQuiet(const Snapshot& s);
    void refreshJobs(Open& o);
    float sample(const Snapshot& s, std::size_t rule, EntityId e) const;
    template <class Archive> void members(Archive& ar); // what persist() keeps, both ways

    std::shared_ptr<const Topology> m_topology;
    std::vector<Rule> m_rules;
    std::vector<std::vector<float>> m_baseline; // [rule][entity]
    std::vector<std::vector<float>> m_recent;   // [rule][entity]: swinging channels, averaged
    std::vector<float> m_rackClock;             // this tick: mean SM clock per rack
    std::vector<std::uint8_t> m_scratch;        // a footprint being worked out
    std::vector<std::uint8_t> m_frozen;         // racks inside an open incident (or its jobs)
    std::vector<std::uint32_t> m_jobOfRack;
    bool m_jobsMoved = false; // since the open incidents' job racks were worked out
    std::vector<std::uint64_t> m_jobPhase;
    std::vector<TimeNs> m_jobChange; // per rack: its own swing settles by then
    JobName m_jobName;
    std::shared_ptr<const std::vector<std::string>> m_namedJobs; // setJobNames' last list
    std::unordered_map<std::string, std::uint32_t> m_jobIds;     // its names, 1-based
    std::vector<std::string> m_jobNames;
    std::vector<Incident> m_incidents;
    std::vector<Open> m_open;
    IncidentList::Items m_published;   // [incident]: its copy in the last list published
    std::vector<std::uint8_t> m_final; // [incident]: closed when published (never copied again)
    std::shared_ptr<const IncidentList> m_shared;
    bool m_changed = false;
    TimeNs m_last = 0, m_lastPublish = 0;
    bool m_started = false;
};

} // namespace ft::model
