#include "incident_tracker.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <unordered_map>

namespace ft::model {

namespace {

// How long a baseline remembers: long against a fault's first minutes, short against the
// hours a job mix takes to change.
constexpr double kBaselineTauS = 120.0;
// What a swinging channel is judged on: its average over a few of a job's steps.
constexpr double kRecentTauS = 10.0;
// An incident with nothing deviating and no alarm for this long is over.
constexpr TimeNs kQuietToClose = 120 * kNsPerSecond;
// Deviations alone (no alarm, no new effect) keep an incident open at most this long: the load
// under a frozen baseline changes with the job mix.
constexpr TimeNs kStaleOpen = TimeNs{30} * 60 * kNsPerSecond;
// How long a rack takes to settle into a job's new phase (a job ramps up in a minute).
constexpr TimeNs kJobSettle = 60 * kNsPerSecond;
// Republish moving figures (worst values) at most this often; structure changes at once.
constexpr TimeNs kRepublish = kNsPerSecond;

enum class Test : std::uint8_t {
    FallsTo, // value < baseline × a, baseline > b
    RisesBy, // value > baseline + a
    Ratio,   // value > baseline × a and value > baseline + b
    FlagOn,  // value ≥ 0.5 where the baseline was below
    FlagOff, // value < 0.5 where the baseline was at or above
    Above,   // value > a (an absolute limit)
};

CauseDomain domainOfKind(EntityKind k) {
    switch (k) {
    case EntityKind::Pump:
    case EntityKind::Cdu:
    case EntityKind::CoolingLoop:
        return CauseDomain::Cooling;
    case EntityKind::PowerFeed:
    case EntityKind::Psu:
    case EntityKind::PowerShelf:
    case EntityKind::Row: // a site power cap targets the whole floor
        return CauseDomain::Power;
    case EntityKind::Rail:
    case EntityKind::Leaf:
    case EntityKind::Spine:
    case EntityKind::FabricLink:
    case EntityKind::NvlinkLink:
    case EntityKind::Nic:
    case EntityKind::Plane:
    case EntityKind::SwitchTray:
        return CauseDomain::Fabric;
    case EntityKind::Region:
    case EntityKind::StorageTier:
        return CauseDomain::Storage;
    case EntityKind::Gpu:
    case EntityKind::Cpu:
    case EntityKind::ComputeTray:
        return CauseDomain::Compute;
    default:
        return CauseDomain::Unknown;
    }
}

CauseDomain domainOfChannel(ChannelId c) {
    switch (c) {
    case ch::RackSupplyTemperature:
    case ch::RackReturnTemperature:
    case ch::RackFlow:
    case ch::RackDeltaTemperature:
    case ch::RackSupplyPressure:
    case ch::RackReturnPressure:
    case ch::RackDeltaPressure:
    case ch::RackValvePosition:
    case ch::RackHeatRemoved:
    case ch::RackLeakDetected:
        return CauseDomain::Cooling;
    case ch::RackGpuTempMax:
    case ch::RackGpuTempMean:
    case ch::GpuTemperature:
    case ch::GpuSmClock:
        return CauseDomain::Compute;
    case ch::RackGpuUtilization:
    case ch::GpuUtilization:
        return CauseDomain::Jobs;
    case ch::RackPower:
    case ch::RackPowerOn:
    case ch::RackPowerBudget:
    case ch::RackPowerInput:
    case ch::RackGpuPowerCap:
    case ch::RackPowerCapping:
    case ch::RackPowerRedundant:
        return CauseDomain::Power;
    case ch::RackNvlinkThroughput:
    case ch::RackRailThroughput:
    case ch::RackNvlinkErrors:
    case ch::RackFabricLinksDown:
    case ch::RackNvlinkDisabled:
    case ch::RackLinkFlaps:
        return CauseDomain::Fabric;
    case ch::RackCacheHitRatio:
    case ch::RackStorageRead:
    case ch::RackCheckpointWrite:
        return CauseDomain::Storage;
    default:
        return domainOfKind(kChannels[c].kind);
    }
}

// "A01: pump 1 tripped" -> "pump 1 tripped": what an event says, without whom.
std::string withoutName(const std::string& text) {
    const auto colon = text.find(": ");
    return colon == std::string::npos ? text : text.substr(colon + 2);
}

} // namespace

std::string_view causeDomainName(CauseDomain d) {
    static constexpr std::array<std::string_view, 7> names{"cooling", "power", "fabric", "storage",
                                                           "compute", "jobs",  "unknown"};
    return names[static_cast<std::size_t>(d)];
}

std::string Incident::summary() const {
    std::string out = "root cause: " + rootText;
    for (const auto& s : chain) {
        out += " \xe2\x86\x92 " + s.what;
        if (s.entities.size() > 1 && (s.kind == EntityKind::Rack || s.channel == kNoChannel))
            out += " (" + std::to_string(s.entities.size()) + " " +
                   std::string(entityKindName(s.kind)) + "s)";
    }
    return out;
}

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

IncidentList incidentsAt(const IncidentList& incidents, TimeNs time) {
    IncidentList out;
    for (const auto& shared : incidents.items()) {
        const Incident& inc = *shared;
        if (inc.start > time) continue;
        const bool over =
            inc.end != 0 && inc.end <= time &&
            std::ranges::all_of(inc.chain, [time](auto& s) { return s.time <= time; }) &&
            std::ranges::all_of(inc.recovery, [time](auto& r) { return r.first <= time; });
        if (over) {
            out.push_back(shared);
            continue;
        }
        auto i = std::make_shared<Incident>(inc);
        std::erase_if(i->chain, [time](const IncidentStep& s) { return s.time > time; });
        std::erase_if(i->recovery, [time](const auto& r) { return r.first > time; });
        if (i->end > time) i->end = 0;
        out.push_back(std::move(i));
    }
    return out;
}

struct IncidentTracker::Rule {
    EntityKind kind;
    ChannelId channel; // GpuSmClock on racks: the rack's mean clock, worked out per tick
    CauseDomain domain;
    Test test;
    float a, b;
    const char* what;         // printf: the worst value, then its baseline
    std::uint8_t roots;       // root domains it may follow directly (bits by CauseDomain)
    std::uint64_t after;      // effects it may follow (bits by R)
    bool alongJobs = false;   // also reaches the racks of the jobs the incident's racks run
    bool hurtsJobs = false;   // the racks it reaches slow their jobs
    bool smooth = false;      // judged on a ten-second average: the value swings with a job's steps
    bool followsLoad = false; // moves with the rack's own load: not read while its job settles
};

namespace {
// Alarm titles are looked up by their text without making a string of each.
struct TitleHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
} // namespace

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
    std::unordered_map<std::string, int, TitleHash, std::equal_to<>> alarmSteps; // by title
    std::string rootAlarm;
    std::vector<std::uint8_t> reachedRack, hurtRack;
    TimeNs lastActive = 0, lastNew = 0, lastAlarm = 0;

    template <class Archive> void persist(Archive& ar) {
        ar(index, rootDomain, present, footprint, extended, floorWide, stepOfRule, worst, base,
           reached, eventSteps, alarmSteps, rootAlarm, reachedRack, hurtRack, lastActive, lastNew,
           lastAlarm);
    }
};

IncidentTracker::IncidentTracker(std::shared_ptr<const Topology> topology)
    : m_topology(std::move(topology)) {
    const Topology& t = *m_topology;
    const auto limit = static_cast<float>(t.spec().rack.gpuMaxTempC);
    using D = CauseDomain;
    using K = EntityKind;
    // Each effect follows either the root's own domain (`roots`) or an effect already in the
    // chain (`after`): a GPU gets hotter after the coolant does, a job slows after its GPUs
    // throttle, its links go down or its caches fail. What no cause in the chain explains (a
    // job ending on its own) stays out of it.
    constexpr auto dom = [](std::initializer_list<D> ds) {
        std::uint8_t m = 0;
        for (const D d : ds)
            m |= static_cast<std::uint8_t>(1u << static_cast<unsigned>(d));
        return m;
    };
    constexpr auto after = [](std::initializer_list<R> rs) {
        std::uint64_t m = 0;
        for (const R r : rs)
            m |= std::uint64_t{1} << static_cast<unsigned>(r);
        return m;
    };
    const std::uint8_t rack = dom({D::Unknown}); // a rack's own fault (leak, cache, NVLink)
    m_rules = {
        // Cooling.
        {K::Rack, ch::RackFlow, D::Cooling, Test::FallsTo, 0.7f, 5.0f,
         "coolant flow down to %.0f L/min (from %.0f)", dom({D::Cooling}) | rack, 0},
        {K::Cdu, ch::CduFlow, D::Cooling, Test::FallsTo, 0.7f, 20.0f,
         "CDU flow down to %.0f L/min (from %.0f)", dom({D::Cooling}), 0},
        {K::Rack, ch::RackSupplyTemperature, D::Cooling, Test::RisesBy, 3.0f, 0,
         "coolant supply up to %.1f \xc2\xb0"
         "C (from %.1f)",
         dom({D::Cooling}), 0},
        {K::Rack, ch::RackReturnTemperature, D::Cooling, Test::RisesBy, 8.0f, 0,
         "return coolant up to %.1f \xc2\xb0"
         "C (from %.1f)",
         dom({D::Cooling}) | rack, 0},
        {K::Rack, ch::RackLeakDetected, D::Cooling, Test::FlagOn, 0, 0, "leak detected", rack, 0},
        // GPUs.
        {K::Rack, ch::RackGpuTempMax, D::Compute, Test::RisesBy, 6.0f, 0,
         "GPUs hotter: up to %.1f \xc2\xb0"
         "C (from %.1f)",
         0, after({R::Flow, R::CduFlow, R::Supply, R::Return, R::Leak}), false, false, false, true},
        {K::Rack, ch::RackGpuTempMax, D::Compute, Test::Above, limit, 0,
         "GPUs past their thermal limit (%.1f \xc2\xb0"
         "C): clocks throttle",
         0, after({R::GpuHot}), false, true},
        {K::Rack, ch::GpuSmClock, D::Compute, Test::FallsTo, 0.97f, 100.0f,
         "GPU clocks down to %.0f MHz (from %.0f)", 0, after({R::Throttle, R::Capped}), true, true,
         true, true},
        // Power.
        {K::PowerFeed, ch::FeedLoad, D::Power, Test::Ratio, 1.3f, 10.0f,
         "busway load up to %.0f %% (from %.0f)", dom({D::Power}), 0},
        {K::Rack, ch::RackPowerRedundant, D::Power, Test::FlagOff, 0, 0, "power redundancy lost",
         dom({D::Power}), 0},
        {K::Rack, ch::RackPowerCapping, D::Power, Test::FlagOn, 0, 0, "GPU power capped by Racky",
         dom({D::Power}), 0},
        {K::Rack, ch::RackPowerOn, D::Power, Test::FlagOff, 0, 0, "racks powered off",
         dom({D::Power}) | rack, after({R::Throttle, R::Leak}), false, true},
        // What the jobs do.
        {K::Rack, ch::RackGpuUtilization, D::Jobs, Test::FallsTo, 0.8f, 20.0f,
         "job pace down: GPU utilization %.0f %% (from %.0f)", 0,
         after({R::Throttle, R::Clock, R::PoweredOff, R::LinksDown, R::NvlinkOff, R::CacheDown}),
         true, true, true, true},
        {K::Rack, ch::RackNvlinkThroughput, D::Fabric, Test::FallsTo, 0.7f, 1.0f,
         "NVLink traffic down to %.1f TB/s (from %.1f)", 0,
         after({R::Pace, R::PoweredOff, R::NvlinkOff}), true, false, true, true},
        {K::Rack, ch::RackRailThroughput, D::Fabric, Test::FallsTo, 0.7f, 1.0f,
         "rail traffic down to %.1f TB/s (from %.1f)", 0, after({R::Pace, R::PoweredOff}), true,
         false, true, true},
        // Fabric.
        {K::Rack, ch::RackFabricLinksDown, D::Fabric, Test::RisesBy, 0.5f, 0,
         "NIC links down: %.0f per rack", dom({D::Fabric}), 0},
        {K::Rack, ch::RackNvlinkDisabled, D::Fabric, Test::FlagOn, 0, 0, "NVLink disabled",
         dom({D::Fabric}) | rack, 0},
        {K::Rack, ch::RackNvlinkErrors, D::Fabric, Test::Ratio, 5.0f, 1.0f,
         "NVLink errors up to %.0f/s (from %.0f)", dom({D::Fabric}) | rack, 0},
        {K::Rail, ch::RailLinksDown, D::Fabric, Test::RisesBy, 0.5f, 0, "%.0f rail links down",
         dom({D::Fabric}), 0},
        {K::Leaf, ch::LeafState, D::Fabric, Test::RisesBy, 0.5f, 0, "leaves down or degraded",
         dom({D::Fabric}), 0},
        // Rails: a rail's share of the fabric's traffic (traffic moving between rails).
        {K::Rail, ch::RailThroughput, D::Fabric, Test::Ratio, 1.07f, 0,
         "traffic re-spread onto the other rails: %.1f %% of it each (from %.1f)", 0,
         after({R::RailLinks, R::LinksDown, R::Leaves}), false, false, true},
        // Storage.
        {K::Rack, ch::RackCacheHitRatio, D::Storage, Test::FallsTo, 0.8f, 10.0f,
         "cache hit ratio down to %.0f %% (from %.0f)", rack, 0, false, false, true},
        {K::Region, ch::RegionRead, D::Storage, Test::Ratio, 3.0f, 2.0f,
         "bucket reads up to %.1f GB/s (from %.1f)", 0, after({R::CacheDown}), false, false, true,
         true},
        {K::Region, ch::RegionErrors, D::Storage, Test::Ratio, 5.0f, 1.0f,
         "bucket request errors up to %.1f/s (from %.1f)", 0, after({R::BucketReads, R::LinkDown}),
         false, false, true, true},
        {K::Region, ch::RegionLinkCapacity, D::Storage, Test::FallsTo, 0.5f, 1.0f,
         "inter-region link down to %.1f GB/s (from %.1f)", dom({D::Storage}), 0},
        {K::Region, ch::RegionBacklog, D::Storage, Test::Ratio, 1.5f, 0.5f,
         "migration backlog up to %.1f TB (from %.1f)", 0, after({R::LinkDown})},
        {K::Region, ch::RegionOldestPending, D::Storage, Test::RisesBy, 120.0f, 0,
         "oldest pending write %.0f s old", 0, after({R::LinkDown})},
    };
    m_baseline.resize(m_rules.size());
    m_recent.resize(m_rules.size());
    m_frozen.assign(t.count(EntityKind::Rack), 0);
    m_jobChange.assign(t.count(EntityKind::Rack), 0);
    if (m_rules.size() != static_cast<std::size_t>(R::OldestPending) + 1)
        throw std::logic_error("IncidentTracker: the rule table and its names disagree");
    m_rackClock.assign(t.count(EntityKind::Rack), 0.0f);
    m_shared = std::make_shared<const IncidentList>();
}

IncidentTracker::~IncidentTracker() = default;
IncidentTracker::IncidentTracker(IncidentTracker&&) noexcept = default;
IncidentTracker& IncidentTracker::operator=(IncidentTracker&&) noexcept = default;

void IncidentTracker::setJobs(std::span<const std::uint32_t> jobOfRack,
                              std::span<const std::uint64_t> phase, JobName name) {
    // A rack whose job changed phase swings on its own for a while: no effect is read from it,
    // and its baseline follows it, until the new phase has settled.
    if (m_jobPhase.size() == phase.size())
        for (std::size_t r = 0; r < phase.size() && r < m_jobChange.size(); ++r)
            if (phase[r] != m_jobPhase[r]) m_jobChange[r] = m_last + kJobSettle;
    if (!std::ranges::equal(jobOfRack, m_jobOfRack)) {
        m_jobOfRack.assign(jobOfRack.begin(), jobOfRack.end());
        m_jobsMoved = true;
    }
    m_jobPhase.assign(phase.begin(), phase.end());
    m_jobName = std::move(name);
}

void IncidentTracker::setJobNames(const std::shared_ptr<const std::vector<std::string>>& rackJobs) {
    if (!rackJobs || rackJobs == m_namedJobs) return;
    m_namedJobs = rackJobs;
    std::vector<std::uint32_t> job(rackJobs->size(), 0);
    for (std::size_t r = 0; r < job.size(); ++r) {
        const std::string& name = (*rackJobs)[r];
        if (name.empty()) continue;
        auto [it, fresh] =
            m_jobIds.try_emplace(name, static_cast<std::uint32_t>(m_jobNames.size() + 1));
        if (fresh) m_jobNames.push_back(name);
        job[r] = it->second;
    }
    const std::vector<std::uint64_t> phase(job.begin(), job.end());
    setJobs(job, phase, [this](std::uint32_t j) {
        return j > 0 && j <= m_jobNames.size() ? m_jobNames[j - 1] : std::string();
    });
}

float IncidentTracker::sample(const Snapshot& s, std::size_t rule, EntityId e) const {
    const Rule& r = m_rules[rule];
    if (r.kind == EntityKind::Rack && r.channel == ch::GpuSmClock) return m_rackClock[e];
    const float v = s.values[r.channel][e];
    if (r.channel == ch::RailThroughput) {
        float total = 0;
        for (const float x : s.values[ch::RailThroughput])
            total += x;
        return total > 0 ? 100.0f * v / total : 0.0f;
    }
    return v;
}

void IncidentTracker::footprintOf(EntityRef ref, std::vector<std::uint8_t>& racks,
                                  bool& floorWide) const {
    const Topology& t = *m_topology;
    auto cdu = [&](EntityId c) {
        for (std::uint32_t i = 0; i < t.cdus.rackCount[c]; ++i)
            racks[t.cdus.firstRack[c] + i] = 1;
    };
    auto row = [&](EntityId r) {
        for (std::uint32_t i = 0; i < t.rows.rackCount[r]; ++i)
            racks[t.rows.firstRack[r] + i] = 1;
    };
    if (ref.id >= t.count(ref.kind)) {
        floorWide = true;
        return;
    }
    switch (ref.kind) {
    case EntityKind::Cdu:
        cdu(ref.id);
        return;
    case EntityKind::Pump:
        cdu(t.pumps.cdu[ref.id]);
        return;
    case EntityKind::CoolingLoop:
        cdu(t.coolingLoops.cdu[ref.id]);
        return;
    case EntityKind::PowerFeed:
        row(t.powerFeeds.row[ref.id]);
        return;
    case EntityKind::Leaf:
        for (std::size_t n = 0; n < t.nics.leaf.size(); ++n)
            if (t.nics.leaf[n] == ref.id) racks[t.gpus.rack[t.nics.gpu[n]]] = 1;
        return;
    case EntityKind::FabricLink:
        if (t.fabricLinks.kind[ref.id] == Topology::FabricLinkKind::NicToLeaf) {
            racks[t.gpus.rack[t.nics.gpu[t.fabricLinks.from[ref.id]]]] = 1;
            return;
        }
        floorWide = true; // a leaf-spine bundle carries every rack's traffic under its leaf
        return;
    case EntityKind::Rail:
    case EntityKind::Plane:
    case EntityKind::Spine:
    case EntityKind::Region:
    case EntityKind::StorageTier:
    case EntityKind::Row:
        // Every tray has a NIC on every rail; every rack reads and writes the object store; a
        // row-kind target is the site (a power cap).
        if (ref.kind == EntityKind::Row && t.rows.rackCount.size() > 1 && ref.id > 0) {
            row(ref.id);
            return;
        }
        floorWide = true;
        return;
    default:
        if (const auto rack = t.rackOf(ref.kind, ref.id)) racks[*rack] = 1;
        return;
    }
}

IncidentTracker::Open* IncidentTracker::covering(EntityRef ref) {
    if (m_open.empty()) return nullptr;
    const Topology& t = *m_topology;
    // Inside a rack: the oldest open incident whose footprint holds the rack.
    const auto rack = ref.kind == EntityKind::Rack && ref.id < m_frozen.size()
                          ? std::optional<EntityId>(ref.id)
                          : t.rackOf(ref.kind, ref.id);
    if (rack) {
        for (auto& o : m_open)
            if (o.footprint[*rack]) return &o;
        return nullptr;
    }
    // Floor-level entities (a rail, a leaf, a region) go to an incident of their own domain
    // that spans the floor first; else to the oldest whose footprint they serve.
    const CauseDomain d = domainOfKind(ref.kind);
    for (auto& o : m_open)
        if (o.floorWide && m_incidents[o.index].domain == d) return &o;
    m_scratch.assign(m_frozen.size(), 0);
    bool floorWide = false;
    footprintOf(ref, m_scratch, floorWide);
    if (floorWide) {
        // A floor-level entity (a region, a rail): an incident of its own domain, else one that
        // spans the floor.
        for (auto& o : m_open)
            if (m_incidents[o.index].domain == d) return &o;
        for (auto& o : m_open)
            if (o.floorWide) return &o;
        return nullptr;
    }
    for (auto& o : m_open) {
        if (o.floorWide && m_incidents[o.index].domain == d) return &o;
        for (std::size_t r = 0; r < m_scratch.size(); ++r)
            if (m_scratch[r] && o.footprint[r]) return &o;
    }
    return nullptr;
}

void IncidentTracker::startIncident(const Event& e, const char* kind, TimeNs now) {
    Incident inc;
    inc.id = static_cast<std::uint32_t>(m_incidents.size() + 1);
    inc.start = e.time;
    inc.root = e.entity;
    inc.rootKind = kind;
    inc.rootText = e.text;
    inc.domain = domainOfKind(e.entity.kind);
    m_incidents.push_back(std::move(inc));
    Open o;
    o.index = m_incidents.size() - 1;
    o.footprint.assign(m_frozen.size(), 0);
    footprintOf(e.entity, o.footprint, o.floorWide);
    if (o.floorWide) std::ranges::fill(o.footprint, 1);
    o.extended = o.footprint;
    o.stepOfRule.assign(m_rules.size(), -1);
    o.worst.assign(m_rules.size(), 0);
    o.base.assign(m_rules.size(), 0);
    o.reached.resize(m_rules.size());
    o.reachedRack.assign(m_frozen.size(), 0);
    o.hurtRack.assign(m_frozen.size(), 0);
    o.rootDomain = m_incidents.back().domain;
    o.lastActive = o.lastNew = now;
    m_open.push_back(std::move(o));
    refreshJobs(m_open.back());
    m_changed = true;
}

void IncidentTracker::addEventStep(Open& o, const Event& e, CauseDomain domain) {
    Incident& inc = m_incidents[o.index];
    const std::string what = withoutName(e.text);
    // Events that differ only in their figures ("caps its GPUs at 1536 W", "… 1534 W") are one
    // step.
    std::string key = std::string(entityKindName(e.entity.kind)) + "|";
    for (const char c : what)
        if (c < '0' || c > '9') key += c;
    auto [it, fresh] = o.eventSteps.try_emplace(key, static_cast<int>(inc.chain.size()));
    if (fresh) inc.chain.push_back({e.time, domain, e.entity.kind, {}, kNoChannel, what});
    auto& ents = inc.chain[static_cast<std::size_t>(it->second)].entities;
    if (std::ranges::find(ents, e.entity.id) == ents.end() && ents.size() < kMaxStepEntities)
        ents.push_back(e.entity.id);
    if (const auto rack = m_topology->rackOf(e.entity.kind, e.entity.id)) o.reachedRack[*rack] = 1;
    if (inc.domain == CauseDomain::Unknown) inc.domain = domain;
    o.lastNew = o.lastActive = e.time;
    m_changed = true;
}

void IncidentTracker::refreshJobs(Open& o) {
    // The racks of every named job that runs on the footprint: its effects on pace spread to
    // them.
    o.extended = o.footprint;
    if (m_jobOfRack.size() != o.footprint.size() || o.floorWide || !m_jobName) return;
    std::vector<std::uint32_t> jobs;
    for (std::size_t r = 0; r < o.footprint.size(); ++r)
        if (o.footprint[r]) jobs.push_back(m_jobOfRack[r]);
    std::ranges::sort(jobs);
    jobs.erase(std::unique(jobs.begin(), jobs.end()), jobs.end());
    std::erase_if(jobs, [this](std::uint32_t j) { return m_jobName(j).empty(); });
    for (std::size_t r = 0; r < o.footprint.size(); ++r)
        if (std::ranges::binary_search(jobs, m_jobOfRack[r])) o.extended[r] = 1;
}

void IncidentTracker::observe(const Snapshot& s, std::span<const Event> newEvents) {
    const Topology& t = *m_topology;
    const TimeNs now = s.time;
    const float dt = m_started ? static_cast<float>(toSeconds(now - m_last)) : 0.0f;
    if (m_started && now < m_last) {
        // Time went backwards (a replay was rewound): start over from here.
        auto jobs = std::move(m_jobOfRack);
        auto phases = std::move(m_jobPhase);
        auto name = std::move(m_jobName);
        *this = IncidentTracker(m_topology);
        m_jobOfRack = std::move(jobs);
        m_jobPhase = std::move(phases);
        m_jobName = std::move(name);
        m_changed = true;
    }
    // The racks' mean SM clock, for the clock rule.
    {
        const auto& clock = s.values[ch::GpuSmClock];
        const std::size_t perRack =
            static_cast<std::size_t>(t.spec().rack.computeTrays) * t.spec().rack.gpusPerTray;
        for (std::size_t r = 0; r < m_rackClock.size(); ++r) {
            float sum = 0;
            const std::size_t first = r * perRack, last = std::min(clock.size(), first + perRack);
            for (std::size_t g = first; g < last; ++g)
                sum += clock[g];
            m_rackClock[r] = last > first ? sum / static_cast<float>(last - first) : 0.0f;
        }
    }

    // Events first: a fault starts an incident or joins the one that covers it.
    for (const Event& e : newEvents) {
        if (e.kind == EventKind::Lifecycle || e.kind == EventKind::AlarmCleared ||
            e.kind == EventKind::AlarmRaised)
            continue; // alarms are read from the snapshot below
        Open* o = covering(e.entity);
        if (e.severity == Severity::Info) {
            if (o) {
                m_incidents[o->index].recovery.emplace_back(e.time, e.text);
                o->lastNew = e.time;
                m_changed = true;
            }
            continue;
        }
        const CauseDomain d = domainOfKind(e.entity.kind);
        if (o)
            addEventStep(*o, e, d == CauseDomain::Unknown ? m_incidents[o->index].domain : d);
        else if (e.kind == EventKind::ScenarioInjection || e.severity == Severity::Critical)
            startIncident(e, e.kind == EventKind::ScenarioInjection ? "scenario" : "protection",
                          now);
    }
    // Alarms: each joins the incident that covers it, or is the root of a new one.
    for (const Alarm& a : s.alarms) {
        const EntityRef ref{a.kind, a.entity};
        Open* o = covering(ref);
        if (!o) {
            startIncident({a.since, EventKind::AlarmRaised, ref, a.severity,
                           m_topology->name(a.kind, a.entity) + ": " + std::string(a.title)},
                          "alarm", now);
            Incident& inc = m_incidents.back();
            if (inc.domain == CauseDomain::Unknown) inc.domain = domainOfChannel(a.channel);
            o = &m_open.back();
            o->rootDomain = inc.domain;
            o->rootAlarm = a.title;
            continue; // the root itself
        }
        o->lastAlarm = o->lastActive = now;
        Incident& inc = m_incidents[o->index];
        if (o->rootAlarm == a.title && inc.root == ref) continue;
        auto it = o->alarmSteps.find(a.title);
        if (it == o->alarmSteps.end()) {
            it = o->alarmSteps.emplace(std::string(a.title), static_cast<int>(inc.chain.size()))
                     .first;
            inc.chain.push_back({std::max(a.since, inc.start),
                                 domainOfChannel(a.channel),
                                 a.kind,
                                 {},
                                 a.channel,
                                 "alarm: " + std::string(a.title)});
            o->lastNew = now;
            m_changed = true;
        }
        auto& ents = inc.chain[static_cast<std::size_t>(it->second)].entities;
        if (ents.size() < kMaxStepEntities && std::ranges::find(ents, a.entity) == ents.end()) {
            ents.push_back(a.entity);
            o->lastNew = now;
            m_changed = true;
            if (a.kind == EntityKind::Rack)
                o->reachedRack[a.entity] = 1;
            else if (const auto rack = m_topology->rackOf(a.kind, a.entity))
                o->reachedRack[*rack] = 1;
        }
    }

    // The swinging channels' recent averages.
    const float recentAlpha = std::clamp(static_cast<float>(dt / kRecentTauS), 0.0f, 1.0f);
    for (std::size_t r = 0; r < m_rules.size(); ++r) {
        if (!m_rules[r].smooth) continue;
        auto& recent = m_recent[r];
        const std::size_t n = t.count(m_rules[r].kind);
        if (recent.size() != n) {
            recent.resize(n);
            for (std::size_t e = 0; e < n; ++e)
                recent[e] = sample(s, r, static_cast<EntityId>(e));
            continue;
        }
        for (std::size_t e = 0; e < n; ++e)
            recent[e] += (sample(s, r, static_cast<EntityId>(e)) - recent[e]) * recentAlpha;
    }
    if (m_started) scanRules(s);
    updateBaselines(s, dt);
    closeQuiet(s);
    m_started = true;
    m_last = now;
    if (m_changed || (!m_open.empty() && now - m_lastPublish >= kRepublish)) {
        // Fill in the moving parts: worst values in the words, racks reached, jobs hurt.
        for (auto& o : m_open) {
            Incident& inc = m_incidents[o.index];
            for (std::size_t r = 0; r < m_rules.size(); ++r) {
                if (o.stepOfRule[r] < 0) continue;
                char buf[160];
                std::snprintf(buf, sizeof buf, m_rules[r].what, static_cast<double>(o.worst[r]),
                              static_cast<double>(o.base[r]));
                inc.chain[static_cast<std::size_t>(o.stepOfRule[r])].what = buf;
            }
            inc.racks = static_cast<std::size_t>(std::ranges::count(o.reachedRack, 1));
            if (m_jobName && m_jobOfRack.size() == o.hurtRack.size()) {
                std::vector<std::uint32_t> jobs;
                for (std::size_t r = 0; r < o.hurtRack.size(); ++r)
                    if (o.hurtRack[r]) jobs.push_back(m_jobOfRack[r]);
                std::ranges::sort(jobs);
                jobs.erase(std::unique(jobs.begin(), jobs.end()), jobs.end());
                for (const auto j : jobs) {
                    std::string name = m_jobName(j);
                    if (!name.empty() && std::ranges::find(inc.jobs, name) == inc.jobs.end())
                        inc.jobs.push_back(std::move(name));
                }
            }
        }
        // Closed incidents published once closed never change: only the rest are copied.
        m_published.resize(m_incidents.size());
        m_final.resize(m_incidents.size(), 0);
        std::vector<std::uint8_t> open(m_incidents.size(), 0);
        for (const auto& o : m_open)
            open[o.index] = 1;
        for (std::size_t i = 0; i < m_incidents.size(); ++i) {
            if (m_final[i]) continue;
            auto copy = std::make_shared<Incident>(m_incidents[i]);
            std::ranges::stable_sort(copy->chain, {}, &IncidentStep::time);
            m_published[i] = std::move(copy);
            m_final[i] = open[i] ? 0 : 1;
        }
        m_shared = std::make_shared<const IncidentList>(m_published);
        m_changed = false;
        m_lastPublish = now;
    }
}

void IncidentTracker::scanRules(const Snapshot& s) {
    if (m_open.empty()) return;
    const Topology& t = *m_topology;
    if (m_jobsMoved)
        for (auto& o : m_open)
            refreshJobs(o);
    m_jobsMoved = false;
    for (std::size_t r = 0; r < m_rules.size(); ++r) {
        const Rule& rule = m_rules[r];
        const auto& base = m_baseline[r];
        const std::size_t n = std::min(base.size(), t.count(rule.kind));
        // With telemetry only what was measured is read: the model's fill-ins are no effect.
        const bool rackClock = rule.kind == EntityKind::Rack && rule.channel == ch::GpuSmClock;
        for (std::size_t e = 0; e < n; ++e) {
            const auto id = static_cast<EntityId>(e);
            if (s.telemetry && !(rackClock ? s.measuredChannels.test(ch::GpuSmClock) &&
                                                 s.measured(EntityKind::Rack, id)
                                           : s.measured(rule.channel, id)))
                continue;
            const float v = rule.smooth && e < m_recent[r].size()
                                ? m_recent[r][e]
                                : sample(s, r, static_cast<EntityId>(e));
            const float b = base[e];
            bool off = false;
            switch (rule.test) {
            case Test::FallsTo:
                off = b > rule.b && v < b * rule.a;
                break;
            case Test::RisesBy:
                off = v > b + rule.a;
                break;
            case Test::Ratio:
                off = v > b * rule.a && v > b + rule.b;
                break;
            case Test::FlagOn:
                off = v >= 0.5f && b < 0.5f;
                break;
            case Test::FlagOff:
                off = v < 0.5f && b >= 0.5f;
                break;
            case Test::Above:
                off = v > rule.a;
                break;
            }
            if (!off) continue;
            // Whose is it: a rack by footprint (or the jobs on it), anything else by what it
            // serves.
            auto allowed = [&](const Open& c) {
                return (rule.roots & (1u << static_cast<unsigned>(c.rootDomain))) != 0 ||
                       (rule.after & c.present) != 0 || (c.present >> r & 1u) != 0;
            };
            Open* o = nullptr;
            if (rule.kind == EntityKind::Rack) {
                if (rule.followsLoad && m_jobChange[e] > s.time) continue; // its job's own swing
                for (auto& c : m_open)
                    if ((rule.alongJobs ? c.extended : c.footprint)[e] && allowed(c)) {
                        o = &c;
                        break;
                    }
            } else {
                o = covering({rule.kind, static_cast<EntityId>(e)});
                if (o && !allowed(*o)) o = nullptr;
            }
            if (!o) continue;
            Incident& inc = m_incidents[o->index];
            // What moves with load follows the cause; it does not keep the incident open.
            if (!rule.followsLoad) o->lastActive = s.time;
            auto& reached = o->reached[r];
            if (reached.empty()) reached.assign(n, 0);
            const bool worse = rule.test == Test::FallsTo ? v < o->worst[r] : v > o->worst[r];
            if (o->stepOfRule[r] < 0) {
                o->present |= std::uint64_t{1} << r;
                o->stepOfRule[r] = static_cast<int>(inc.chain.size());
                inc.chain.push_back({s.time, rule.domain, rule.kind, {}, rule.channel, ""});
                if (rule.kind == EntityKind::Rack && rule.channel == ch::GpuSmClock)
                    inc.chain.back().channel = ch::GpuSmClock;
                o->worst[r] = v;
                o->base[r] = b;
                if (inc.domain == CauseDomain::Unknown) inc.domain = rule.domain;
                // A rack's own fault is of the domain its first effect shows.
                if (o->rootDomain == CauseDomain::Unknown) o->rootDomain = rule.domain;
                m_changed = true;
            } else if (worse) {
                o->worst[r] = v;
                o->base[r] = b;
            }
            if (!reached[e]) {
                reached[e] = 1;
                auto& ents = inc.chain[static_cast<std::size_t>(o->stepOfRule[r])].entities;
                if (ents.size() < kMaxStepEntities) ents.push_back(static_cast<EntityId>(e));
                o->lastNew = s.time;
                m_changed = true;
            }
            if (rule.kind == EntityKind::Rack) {
                o->reachedRack[e] = 1;
                if (rule.hurtsJobs) o->hurtRack[e] = 1;
            }
        }
    }
}

void IncidentTracker::updateBaselines(const Snapshot& s, float dt) {
    const Topology& t = *m_topology;
    std::ranges::fill(m_frozen, 0);
    for (const auto& o : m_open)
        for (std::size_t r = 0; r < m_frozen.size(); ++r)
            m_frozen[r] |= o.extended[r];
    const bool anyOpen = !m_open.empty();
    const float alpha = std::clamp(static_cast<float>(dt / kBaselineTauS), 0.0f, 1.0f);
    for (std::size_t r = 0; r < m_rules.size(); ++r) {
        const Rule& rule = m_rules[r];
        auto& base = m_baseline[r];
        const std::size_t n = t.count(rule.kind);
        if (rule.kind != EntityKind::Rack &&
            (rule.channel >= s.values.size() || s.values[rule.channel].size() < n))
            continue;
        if (base.size() != n) {
            base.resize(n);
            for (std::size_t e = 0; e < n; ++e)
                base[e] = sample(s, r, static_cast<EntityId>(e));
            continue;
        }
        // Floor-level entities hold their baseline while any incident is open; racks while one
        // covers them.
        if (rule.kind != EntityKind::Rack && anyOpen) continue;
        for (std::size_t e = 0; e < n; ++e) {
            const float v = sample(s, r, static_cast<EntityId>(e));
            if (rule.kind == EntityKind::Rack && m_jobChange[e] > s.time && rule.followsLoad) {
                // Its job is changing phase: the baseline is what it does now.
                base[e] = rule.smooth && e < m_recent[r].size() ? m_recent[r][e] : v;
                continue;
            }
            if (rule.kind == EntityKind::Rack && m_frozen[e]) continue;
            base[e] += (v - base[e]) * alpha;
        }
    }
}

void IncidentTracker::closeQuiet(const Snapshot& s) {
    for (std::size_t i = 0; i < m_open.size();) {
        Open& o = m_open[i];
        const bool quiet = s.time - o.lastActive >= kQuietToClose;
        const bool stale = s.time - std::max(o.lastNew, o.lastAlarm) >= kStaleOpen;
        if (quiet || stale) {
            m_incidents[o.index].end = quiet ? o.lastActive : s.time;
            m_open.erase(m_open.begin() + static_cast<std::ptrdiff_t>(i));
            m_changed = true;
            continue;
        }
        ++i;
    }
}

// Keyframes: the published list is kept as it was published (it may lag the incidents by up to
// kRepublish), so a restored tracker shows and republishes exactly what the saved one would.
template <class Archive> void IncidentTracker::members(Archive& ar) {
    ar(m_baseline, m_recent, m_rackClock, m_scratch, m_frozen, m_jobOfRack, m_jobsMoved, m_jobPhase,
       m_jobChange, m_incidents, m_open, m_final, m_changed, m_last, m_lastPublish, m_started);
}

void IncidentTracker::persist(StateWriter& ar) {
    members(ar);
    std::vector<std::optional<Incident>> published;
    published.reserve(m_published.size());
    for (const auto& p : m_published)
        published.push_back(p ? std::optional<Incident>(*p) : std::nullopt);
    ar(published);
}

void IncidentTracker::persist(StateReader& ar) {
    members(ar);
    std::vector<std::optional<Incident>> published;
    ar(published);
    m_published.clear();
    for (auto& p : published)
        m_published.push_back(p ? std::make_shared<const Incident>(std::move(*p)) : nullptr);
    for (const auto& o : m_open)
        if (o.index >= m_incidents.size()) ar.fail();
    m_shared = std::make_shared<const IncidentList>(m_published);
}

} // namespace ft::model
