#include "headless_run.h"

#include "live_sources.h"
#include "model/external_alert.h"
#include "model/incident_tracker.h"
#include "model/lifecycle.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <thread>

namespace ft::app {

using json = nlohmann::ordered_json;
using model::EntityKind;

static std::string isoTime(model::TimeNs t) {
    std::string s = model::formatUtc(t, true); // "YYYY-MM-DD HH:MM:SS.mmm UTC"
    s[10] = 'T';
    return s.substr(0, 23) + "Z";
}

json describeFloor(const model::Topology& t) {
    const auto& s = t.spec();
    json j;
    j["name"] = s.name;
    auto n = [&](EntityKind k) { return t.count(k); };
    j["rows"] = n(EntityKind::Row);
    j["racks"] = n(EntityKind::Rack);
    j["gpus"] = n(EntityKind::Gpu);
    j["cpus"] = n(EntityKind::Cpu);
    j["compute_trays"] = n(EntityKind::ComputeTray);
    j["hosts"] = t.hostCount();
    {
        // "compute_trays" and "gpus" above are the racks' slots. What is there: the trays the
        // floor file says are installed and, on an inventory floor, the hosts it lists.
        const auto gpusPerTray = static_cast<std::size_t>(s.rack.gpusPerTray);
        std::size_t installed = 0, known = 0;
        for (model::EntityId tray = 0; tray < n(EntityKind::ComputeTray); ++tray) {
            installed += t.trayInstalled(tray) ? 1 : 0;
            known += !t.hostName(tray).empty() ? 1 : 0;
        }
        j["counts"] = {{"compute_trays",
                        {{"slots", n(EntityKind::ComputeTray)},
                         {"installed", installed},
                         {"known_hosts", s.hosts.empty() ? installed : known}}},
                       {"gpus",
                        {{"slots", n(EntityKind::Gpu)},
                         {"installed", installed * gpusPerTray},
                         {"known", (s.hosts.empty() ? installed : known) * gpusPerTray}}}};
    }
    {
        std::size_t uuids = 0;
        for (const auto& u : t.gpus.uuid)
            uuids += u.empty() ? 0 : 1;
        j["gpu_uuids"] = uuids;
        std::size_t notProduction = 0;
        for (auto st : t.racks.initialLifecycle)
            notProduction +=
                st != static_cast<std::uint8_t>(model::RackLifecycle::Production) ? 1 : 0;
        j["racks_not_in_production"] = notProduction;
    }
    j["switch_trays"] = n(EntityKind::SwitchTray);
    j["nics"] = n(EntityKind::Nic);
    j["dpus"] = n(EntityKind::Dpu);
    j["planes"] = n(EntityKind::Plane);
    j["rails"] = n(EntityKind::Rail);
    j["leaves"] = n(EntityKind::Leaf);
    j["spines"] = n(EntityKind::Spine);
    j["fabric_links"] = n(EntityKind::FabricLink);
    j["nvlink_links"] = n(EntityKind::NvlinkLink);
    j["cdus"] = n(EntityKind::Cdu);
    j["cooling_loops"] = n(EntityKind::CoolingLoop);
    j["regions"] = n(EntityKind::Region);
    j["storage_tiers"] = n(EntityKind::StorageTier);
    j["power_shelves"] = n(EntityKind::PowerShelf);
    j["psus"] = n(EntityKind::Psu);
    j["power_feeds"] = n(EntityKind::PowerFeed);
    j["channels"] = model::kChannels.size();

    json byKind = json::object();
    for (const auto& c : model::kChannels)
        byKind[std::string(model::entityKindName(c.kind))].push_back(c.name);
    j["channels_by_kind"] = byKind;

    j["rack_model"] = {{"model", s.rack.model},
                       {"compute_trays", s.rack.computeTrays},
                       {"switch_trays", s.rack.switchTrays},
                       {"gpus_per_tray", s.rack.gpusPerTray},
                       {"cpus_per_tray", s.rack.cpusPerTray},
                       {"nics_per_gpu", s.rack.nicsPerGpu},
                       {"gpu_tdp_w", s.rack.gpuTdpW},
                       {"rated_power_kw", s.rack.ratedPowerKw},
                       {"nvlink_tbps_per_gpu", s.rack.nvlinkTBpsPerGpu},
                       {"nvlink_tbps_per_rack", s.rack.nvlinkTBpsPerRack}};
    j["fabric"] = {{"planes", s.fabric.planes},
                   {"switch_radix", s.fabric.switchRadix},
                   {"port_gbps", s.fabric.portGbps},
                   {"endpoints_per_plane", t.fabricSizing.endpointsPerPlane},
                   {"max_endpoints_per_plane", t.fabricSizing.maxEndpointsPerPlane},
                   {"leaves_per_plane", t.fabricSizing.leavesPerPlane},
                   {"spines_per_plane", t.fabricSizing.spinesPerPlane}};
    j["cooling"] = {{"racks_per_cdu", s.cooling.racksPerCdu},
                    {"supply_setpoint_c", s.cooling.supplySetpointC},
                    {"flow_lpm_per_kw", s.cooling.flowLpmPerKw},
                    {"cdu_capacity_kw", s.cooling.cduCapacityKw}};
    j["storage"] = {{"regions", s.storage.regions}, {"tiers", s.storage.tiers}};
    j["host_pattern"] = s.hostPattern;
    j["first_host"] = t.count(EntityKind::ComputeTray) ? t.hostName(0) : "";
    j["floor_size_m"] = {t.boundsMax.x - t.boundsMin.x, t.boundsMax.y - t.boundsMin.y};
    return j;
}

json snapshotToJson(const model::Topology& t, const model::Snapshot& snap,
                    const model::Snapshot* baseline) {
    json j;
    j["time"] = isoTime(snap.time);
    j["time_ns"] = snap.time;
    if (baseline) j["baseline_time"] = isoTime(baseline->time);
    j["tick"] = snap.tick;
    json kinds = json::object();
    for (std::size_t k = 0; k < model::kEntityKindCount; ++k) {
        const auto kind = static_cast<EntityKind>(k);
        json entry;
        entry["count"] = t.count(kind);
        json channels = json::object();
        for (std::size_t c = 0; c < model::kChannels.size(); ++c)
            if (model::kChannels[c].kind == kind) {
                const auto id = static_cast<model::ChannelId>(c);
                const auto v = snap.channel(id);
                if (!snap.telemetry) {
                    channels[std::string(model::kChannels[c].name)] =
                        std::vector<float>(v.begin(), v.end());
                    continue;
                }
                // Telemetry: what was not measured is null, never the model's value.
                json values = json::array();
                for (model::EntityId e = 0; e < v.size(); ++e)
                    if (snap.measured(id, e) && std::isfinite(v[e]))
                        values.push_back(v[e]);
                    else
                        values.push_back(nullptr);
                channels[std::string(model::kChannels[c].name)] = std::move(values);
            }
        if (!channels.empty()) entry["channels"] = channels;
        if (baseline && !channels.empty()) {
            json diff = json::object();
            for (std::size_t c = 0; c < model::kChannels.size(); ++c) {
                if (model::kChannels[c].kind != kind) continue;
                const auto id = static_cast<model::ChannelId>(c);
                const auto a = snap.channel(id), b = baseline->channel(id);
                json d = json::array();
                for (model::EntityId e = 0; e < a.size(); ++e)
                    if (e < b.size() && snap.measured(id, e) && baseline->measured(id, e))
                        d.push_back(a[e] - b[e]);
                    else
                        d.push_back(nullptr);
                diff[std::string(model::kChannels[c].name)] = std::move(d);
            }
            entry["diff"] = std::move(diff);
        }
        if (snap.telemetry && t.count(kind) > 0) {
            // Seconds since each entity's newest measured value; null: never measured.
            json ages = json::array();
            for (model::EntityId e = 0; e < t.count(kind); ++e) {
                const model::TimeNs at = snap.measuredTime(kind, e);
                if (at > 0)
                    ages.push_back(std::max(0.0, model::toSeconds(snap.time - at)));
                else
                    ages.push_back(nullptr);
            }
            entry["measured_age_s"] = std::move(ages);
        }
        kinds[std::string(model::entityKindName(kind))] = entry;
    }
    j["entities"] = kinds;
    json lifecycle = json::array();
    for (auto state : snap.rackLifecycle)
        lifecycle.push_back(model::lifecycleName(state));
    j["rack_lifecycle"] = lifecycle;
    json alarms = json::array();
    for (const auto& a : snap.alarms)
        alarms.push_back(
            {{"title", a.title},
             {"entity_kind", model::entityKindName(a.kind)},
             {"entity", a.entity},
             {"name", t.name(a.kind, a.entity)},
             {"channel", model::kChannels[a.channel].name},
             {"severity", a.severity == model::Severity::Critical ? "critical" : "warning"},
             {"value", a.value},
             {"threshold", a.threshold},
             {"since", isoTime(a.since)}});
    j["alarms"] = alarms;
    // The floor's own alerting (Alertmanager sources): beside the twin's alarms, never in them.
    if (snap.externalAlerts) {
        json alerts = json::array();
        for (const auto& a : snap.externalAlerts->alerts) {
            json one = {{"alertname", a.name},
                        {"state", model::alertStateName(a.state)},
                        {"severity", model::severityWord(a.severity)},
                        {"source", a.source},
                        {"since", isoTime(a.startsAt)}};
            if (a.entities.empty())
                one["not_placed"] = a.placedBy;
            else
                one["on"] = t.name(a.entities.front().kind, a.entities.front().id);
            for (const auto& s : a.silences)
                one["silenced_by"].push_back({{"created_by", s.createdBy},
                                              {"until", isoTime(s.endsAt)},
                                              {"comment", s.comment}});
            alerts.push_back(std::move(one));
        }
        j["external_alerts"] = alerts;
    }
    json events = json::array();
    if (snap.events)
        for (const auto& e : *snap.events)
            events.push_back({{"time", isoTime(e.time)},
                              {"kind", model::eventKindName(e.kind)},
                              {"entity_kind", model::entityKindName(e.entity.kind)},
                              {"entity", e.entity.id},
                              {"text", e.text}});
    j["events"] = events;
    j["scenario"] = snap.scenario;
    json transitions = json::array();
    if (snap.lifecycleHistory)
        for (const auto& tr : *snap.lifecycleHistory)
            transitions.push_back({{"time", isoTime(tr.time)},
                                   {"rack", t.racks.name[tr.rack]},
                                   {"from", model::lifecycleName(tr.from)},
                                   {"to", model::lifecycleName(tr.to)},
                                   {"failure", tr.failure},
                                   {"reason", tr.reason}});
    j["lifecycle_transitions"] = transitions;
    return j;
}

json incidentsJson(const model::Topology& t, const model::IncidentList& incidents) {
    json out = json::array();
    auto names = [&](EntityKind kind, std::span<const model::EntityId> ids) {
        json list = json::array();
        for (const auto id : ids)
            list.push_back(t.name(kind, id));
        return list;
    };
    for (const auto& inc : incidents) {
        json chain = json::array();
        for (const auto& step : inc.chain)
            chain.push_back(
                {{"time", isoTime(step.time)},
                 {"domain", model::causeDomainName(step.domain)},
                 {"entity_kind", model::entityKindName(step.kind)},
                 {"entities", names(step.kind, step.entities)},
                 {"count", step.entities.size()},
                 {"channel", step.channel == model::kNoChannel
                                 ? json(nullptr)
                                 : json(std::string(model::kChannels[step.channel].name))},
                 {"what", step.what}});
        json recovery = json::array();
        for (const auto& [time, text] : inc.recovery)
            recovery.push_back({{"time", isoTime(time)}, {"text", text}});
        out.push_back({{"id", inc.id},
                       {"start", isoTime(inc.start)},
                       {"end", inc.end > 0 ? json(isoTime(inc.end)) : json(nullptr)},
                       {"domain", model::causeDomainName(inc.domain)},
                       {"root",
                        {{"time", isoTime(inc.start)},
                         {"entity_kind", model::entityKindName(inc.root.kind)},
                         {"entity", t.name(inc.root.kind, inc.root.id)},
                         {"kind", inc.rootKind},
                         {"text", inc.rootText}}},
                       {"chain", chain},
                       {"racks", inc.racks},
                       {"jobs_affected", inc.jobs},
                       {"recovery", recovery},
                       {"summary", inc.summary()}});
    }
    return out;
}

namespace {

// What a headless run produced: its last moment and what led there, for the summary.
struct HeadlessRun {
    std::shared_ptr<const model::Snapshot> snap;
    std::shared_ptr<const model::IncidentList> replayIncidents; // a replay's, tracked here
    model::TimeNs first = 0;
    std::uint64_t ticks = 0, produced = 0;
    std::string sourceName = "simulator";
};

// A replay walked tick by tick from `at` for `duration` (or just the moment decoded), its
// incidents tracked over the frames walked. Returns an exit status, 0 when it went well.
int walkReplay(Session& session, model::TimeNs at, model::TimeNs duration, HeadlessRun& run) {
    const auto& topology = session.topology;
    // Walk the recording tick by tick from --at for --for (or just decode the moment).
    auto& replay = *session.replay;
    run.sourceName = "replay";
    run.first = replay.beginTime() + at;
    replay.seek(run.first);
    run.snap = replay.renderNow();
    // The replay's incidents, tracked over the frames walked (the recording's own events).
    model::IncidentTracker tracker(topology);
    std::uint64_t seenEvents = run.snap->events ? run.snap->events->endSeq() : 0;
    tracker.setJobNames(run.snap->rackJobs); // the jobs it hurt, by the names recorded
    tracker.observe(*run.snap, {});
    const model::TimeNs end = std::min(replay.endTime(), run.first + duration);
    for (model::TimeNs t = run.first + replay.tickLength(); duration > 0 && t <= end;
         t += replay.tickLength()) {
        replay.seek(t);
        run.snap = replay.renderNow();
        if (run.snap->events && run.snap->events->endSeq() >= seenEvents) {
            tracker.setJobNames(run.snap->rackJobs);
            tracker.observe(*run.snap, run.snap->events->copySince(seenEvents));
            seenEvents = run.snap->events->endSeq();
        }
        ++run.ticks;
        for (const auto& c : run.snap->values)
            run.produced += c.size();
    }
    if (!replay.lastError().empty()) {
        std::cerr << "floortwin: " << replay.lastError() << "\n";
        return 1;
    }
    for (const auto& w : replay.reader().warnings())
        std::cerr << "floortwin: warning: " << w << "\n";
    run.replayIncidents = tracker.shared();
    return 0;
}

// The simulator run for `duration`: as fast as it goes, paced (--realtime), or on the wall
// clock while live sources feed it.
void runSimulator(const Options& o, Session& session, model::TimeNs duration, HeadlessRun& run) {
    auto& core = *session.sim;
    run.first = core.latest()->time;
    if (!session.sources.empty()) {
        // Live sources run on the wall clock: --for is that much real time.
        core.start(1.0);
        session.startSources();
        const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(duration);
        while (std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        for (auto& s : session.sources)
            s->stop();
        for (auto& s : session.outputs)
            s->stop();
        core.stop();
    } else if (o.realtime) {
        // Paced like a live run (a recorder can be killed mid-way and lose only the tail).
        core.start(o.speed);
        session.startSources(); // what the twin sends out (--alertmanager-push)
        while (core.latest()->time < run.first + duration)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        for (auto& s : session.outputs)
            s->stop();
        core.stop();
    } else {
        core.runUntil(run.first + duration);
    }
    run.snap = core.latest();
    run.ticks = core.stats().ticks;
    std::size_t valuesPerTick = 0;
    for (const auto& c : run.snap->values)
        valuesPerTick += c.size();
    run.produced = run.ticks * valuesPerTick;
}

// The JSON summary a headless run prints.
json summaryOf(Session& session, const HeadlessRun& run, std::uint64_t recorded,
               std::uint64_t dropped) {
    const auto& topology = session.topology;
    json summary;
    if (!session.outputs.empty()) summary["outputs"] = sourcesJson(session.outputs, nullptr);
    if (!session.sources.empty()) {
        summary["sources"] = sourcesJson(session.sources, session.suggester.get());
        summary["unmapped_hosts"] =
            unmappedHostsJson(unknownHostsOf(session.sources), session.suggester.get());
        std::size_t measured = 0, stale = 0;
        for (model::EntityId r = 0; r < topology->count(EntityKind::Rack); ++r) {
            measured += run.snap->measuredTime(EntityKind::Rack, r) > 0 ? 1 : 0;
            stale += run.snap->rackStale(r) ? 1 : 0;
        }
        summary["racks_measured"] = measured;
        summary["racks_stale"] = stale;
        summary["samples_applied"] = session.sim->stats().samplesApplied;
        summary["batches_dropped"] = session.sim->stats().batchesDropped;
    } else
        summary["sources"] = json::array({{{"name", run.sourceName},
                                           {"samples", run.produced},
                                           {"mapped", run.produced},
                                           {"unmapped", 0},
                                           {"bad_lines", 0},
                                           {"format_warnings", 0},
                                           {"errors", 0}}});
    summary["ticks"] = run.ticks;
    summary["recorded_samples"] = recorded;
    if (session.recorder) summary["recording_dropped_snapshots"] = dropped;
    summary["first_time"] = isoTime(run.first);
    summary["last_time"] = isoTime(run.snap->time);
    if (session.sim) summary["mean_tick_ms"] = session.sim->stats().meanTickMs;
    summary["alarms"] = run.snap->alarms.size();
    summary["events"] =
        run.snap->events ? run.snap->events->endSeq() : 0; // every one, not the newest kept
    if (!run.snap->scenario.empty()) summary["scenario"] = run.snap->scenario;
    if (!session.forkedFrom.empty())
        summary["fork"] = {{"from", session.forkedFrom},
                           {"at", isoTime(session.forkAt)},
                           {"resumed_at", isoTime(session.forkResumedAt)},
                           {"keyframe_note", session.forkKeyframeNote}};
    if (session.forkFromMeasurements)
        summary["fork"]["from_measurements"] = {
            {"channels", session.forkMeasuredChannels},
            {"values", session.forkMeasuredValues},
            {"modelled", "every value not measured at the moment, and the pumps, valves, jobs "
                         "and throttling behind all of them"}};
    if (session.compare) {
        const auto base = session.compareAt(run.snap->time);
        summary["compare"] = {{"file", session.comparePath},
                              {"offset_s", model::toSeconds(session.compareOffset)},
                              {"baseline_time", base ? json(isoTime(base->time)) : json(nullptr)}};
    }
    if (const auto& incidents = run.replayIncidents ? run.replayIncidents : run.snap->incidents)
        summary["incidents"] = incidentsJson(*topology, *incidents);
    return summary;
}

} // namespace

int runHeadless(const Options& o, Session& session) {
    const auto& topology = session.topology;
    if (o.describe) {
        std::cout << describeFloor(*topology).dump(2) << "\n";
        if (o.forDuration.empty() && o.dumpSnapshot.empty()) return 0;
    }
    model::TimeNs duration = 0, at = 0;
    if (!o.forDuration.empty() && !model::parseDuration(o.forDuration, duration)) {
        std::cerr << "floortwin: --for: '" << o.forDuration
                  << "' is not a duration (e.g. 90s, 10m, 1h)\n";
        return 2;
    }
    if (!o.at.empty() && !model::parseDuration(o.at, at)) {
        std::cerr << "floortwin: --at: '" << o.at << "' is not a time (e.g. 90s, 10m)\n";
        return 2;
    }
    if (o.forDuration.empty() && o.dumpSnapshot.empty()) {
        std::cerr
            << "floortwin: --headless needs --describe, --for DURATION or --dump-snapshot FILE\n";
        return 2;
    }
    HeadlessRun run;
    if (session.replay) {
        if (const int rc = walkReplay(session, at, duration, run); rc != 0) return rc;
    } else {
        runSimulator(o, session, duration, run);
    }
    const auto& snap = run.snap;
    if (!o.dumpSnapshot.empty()) {
        std::ofstream out(o.dumpSnapshot);
        if (!out) {
            std::cerr << "floortwin: cannot write " << o.dumpSnapshot << "\n";
            return 1;
        }
        const auto base = session.compareAt(snap->time);
        if (session.compare && !base) {
            std::cerr << "floortwin: --compare: " << session.comparePath << " has no moment "
                      << "matching " << isoTime(snap->time) << " (check --compare-offset)\n";
            return 1;
        }
        out << snapshotToJson(*topology, *snap, base.get()).dump() << "\n";
    }
    std::uint64_t recorded = 0, dropped = 0;
    if (session.recorder) {
        session.recorder->close();
        recorded = session.recorder->stats().samples;
        dropped = session.recorder->stats().dropped;
        if (!session.recorder->error().empty()) {
            std::cerr << "floortwin: " << session.recorder->error() << "\n";
            return 1;
        }
    }
    std::cout << summaryOf(session, run, recorded, dropped).dump(2) << "\n";
    return 0;
}

} // namespace ft::app
