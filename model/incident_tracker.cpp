#include "gpu_health.h"
#include "incident_tracker_parts.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <unordered_map>

namespace ft::model {

using namespace incident_parts;

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

CauseDomain IncidentTracker::domainOf(const Event& e) {
    // A GPU that its own heat slows (gpu_health.h) speaks for its cold plate.
    if (e.kind == EventKind::DeviceReport && e.text.starts_with(kColdPlateReport))
        return CauseDomain::Cooling;
    return domainOfKind(e.entity.kind);
}

void IncidentTracker::startIncident(const Event& e, const char* kind, TimeNs now) {
    Incident inc;
    inc.id = static_cast<std::uint32_t>(m_incidents.size() + 1);
    inc.start = e.time;
    inc.root = e.entity;
    inc.rootKind = kind;
    inc.rootText = e.text;
    inc.domain = domainOf(e);
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
        // The pager's alerts are shown beside the twin's causes, never taken for one of them.
        if (e.kind == EventKind::Alert) continue;
        // A GPU's report of its job's own fault (an application XID) is no incident.
        if (e.kind == EventKind::DeviceReport && e.severity == Severity::Info) continue;
        Open* o = covering(e.entity);
        if (e.severity == Severity::Info) {
            if (o) {
                m_incidents[o->index].recovery.emplace_back(e.time, e.text);
                o->lastNew = e.time;
                m_changed = true;
            }
            continue;
        }
        const CauseDomain d = domainOf(e);
        if (o)
            addEventStep(*o, e, d == CauseDomain::Unknown ? m_incidents[o->index].domain : d);
        else if (e.kind == EventKind::ScenarioInjection || e.severity == Severity::Critical ||
                 d == CauseDomain::Cooling)
            startIncident(e,
                          e.kind == EventKind::ScenarioInjection ? "scenario"
                          : e.kind == EventKind::DeviceReport    ? "device"
                          : e.kind == EventKind::Scheduler       ? "scheduler"
                                                                 : "protection",
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
