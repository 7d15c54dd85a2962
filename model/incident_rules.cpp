// The incident tracker's rules: which effect each one reads (an entity kind's channel against
// its own baseline), which causes it may follow, the baselines that move with the load and hold
// still under an incident, and the scan that adds what deviates to the open incident it belongs
// to. The bookkeeping of the incidents themselves is in incident_tracker.cpp.
#include "incident_tracker_parts.h"

#include <algorithm>
#include <stdexcept>

namespace ft::model {
using namespace incident_parts;

namespace incident_parts {

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

} // namespace incident_parts

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

} // namespace ft::model
