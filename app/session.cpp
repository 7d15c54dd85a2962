#include "session.h"

#include "floor_loading.h"
#include "importers/floor/floor_file.h"
#include "importers/floor/scenario_file.h"
#include "importers/sources/alert_pusher.h"
#include "live_sources.h"
#include "source_kinds.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <filesystem>

namespace ft::app {

Session::~Session() {
    for (auto& s : sources)
        s->stop(); // nothing more into the queue
    for (auto& s : outputs)
        s->stop();
    if (sim) sim->stop(); // no more publishes into the recorder
    if (recorder) recorder->close();
    if (replay) replay->stop();
}

std::expected<std::unique_ptr<Session>, std::string>
makeSimSession(const Options& o, bool realtimeStart, bool blockingRecorder,
               const ScenarioSource& scenarioSource) {
    auto session = std::make_unique<Session>();
    auto topology = loadTopology(o.floor, o.inventory, {o.tokenFile, o.caFile, o.insecure});
    if (!topology) return std::unexpected(topology.error());
    session->topology = *topology;
    auto scenario =
        scenarioSource ? scenarioSource(**topology) : loadScenario(o.scenario, **topology);
    if (!scenario) return std::unexpected(scenario.error());
    model::SimConfig config;
    config.seed = o.seed;
    const bool live = !o.sources.empty();
    if (o.alertmanagerWrite && !hasAlertingSource(o))
        return std::unexpected("--alertmanager-write acts through an alerting source: add " +
                               alertingSourceList());
    if (o.followScheduler && !hasSchedulerSource(o))
        return std::unexpected("--follow-scheduler needs a scheduler: --source " +
                               schedulerSourceList());
    if (live) {
        // Live telemetry: the twin runs on the wall clock, keeps each measured value until the
        // next one arrives, and calls a rack stale when its data stops.
        realtimeStart = true;
        config.telemetry = true;
        config.followScheduler = o.followScheduler;
        config.measurementHold = static_cast<model::TimeNs>(24) * 3600 * model::kNsPerSecond;
        config.staleAfter = 15 * model::kNsPerSecond;
        if (!o.staleAfter.empty() &&
            (!model::parseDuration(o.staleAfter, config.staleAfter) || config.staleAfter <= 0))
            return std::unexpected("--stale-after: '" + o.staleAfter +
                                   "' is not a duration such as 15s");
    }
    if (realtimeStart) {
        // The live demo starts at the wall-clock time; screenshots, tests and headless runs use
        // the fixed default start so that they are repeatable.
        const auto now = std::chrono::system_clock::now().time_since_epoch();
        auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now).count();
        // A wall's screens each run their own simulator: started on the same whole minute,
        // with the same seed, they hold the same floor at the same moment.
        if (!o.wallGroup.empty() && !live) seconds -= seconds % 60;
        config.startTime = seconds * model::kNsPerSecond;
    }
    const std::string scenarioName = scenario->name;
    session->sim = std::make_unique<model::SimCore>(*topology, config, std::move(*scenario));
    session->sourceLabel = live ? "LIVE TELEMETRY" : "SIMULATOR";
    session->floorPath = o.floor;
    session->inventoryPath = o.inventory;
    for (const auto& source : o.sources)
        session->sourceSpecs.push_back(withoutCredentials(source));
    if (live) {
        auto* core = session->sim.get();
        auto sources = makeLiveSources(
            o, *topology, [core](model::SampleBatch b) { return core->submit(std::move(b)); });
        if (!sources) return std::unexpected(sources.error());
        session->sources = std::move(*sources);
        session->suggester = std::make_unique<importers::HostSuggester>(**topology);
    }
    if (!o.alertmanagerPush.empty()) {
        auto target = importers::parseAlertmanagerSpec(o.alertmanagerPush);
        if (!target) return std::unexpected("--alertmanager-push " + target.error());
        auto http = sourceHttpOptions(o);
        if (!http) return std::unexpected(http.error());
        target->http = *http;
        auto interval = pushIntervalOf(o);
        if (!interval) return std::unexpected(interval.error());
        auto* core = session->sim.get();
        session->outputs.push_back(std::make_unique<importers::AlertPusher>(
            std::move(*target), *interval, *topology, [core] { return core->latest(); }));
    }
    if (!o.record.empty()) {
        importers::RecordingInfo info;
        info.source = live ? "live telemetry"
                           : "simulator, seed " + std::to_string(o.seed) +
                                 (scenarioName.empty() ? "" : ", scenario " + scenarioName);
        info.floorJson = importers::floorSpecToJson((*topology)->spec());
        info.seed = o.seed;
        info.scenario = scenarioName;
        if (!scenarioSource && !o.scenario.empty())
            if (auto text = scenarioText(o.scenario)) info.scenarioSource = *text;
        info.tick = config.step;
        info.telemetry = config.telemetry;
        info.staleAfter = config.staleAfter;
        auto writer = importers::RecordingWriter::create(o.record, *topology, info);
        if (!writer) return std::unexpected(writer.error().toString());
        session->recorder = std::move(*writer);
        session->recorder->setBlocking(blockingRecorder);
        session->recordingPath = o.record;
        auto* recorder = session->recorder.get();
        // Everything published from here on is recorded, including the first snapshot.
        recorder->push(session->sim->latest());
        session->sim->setPublishHook(
            [recorder](const std::shared_ptr<const model::Snapshot>& s) { recorder->push(s); });
        // A simulator's state now and then, so a fork of this recording need not re-run it all
        // (a model filling in telemetry cannot be forked: no keyframes for it).
        if (!live)
            session->sim->setKeyframeHook(importers::kKeyframeEvery,
                                          [recorder](model::TimeNs t, std::vector<std::byte> s) {
                                              recorder->pushKeyframe(t, std::move(s));
                                          });
    }
    return session;
}

std::expected<std::unique_ptr<Session>, std::string> makeReplaySession(const std::string& path) {
    auto reader = importers::RecordingReader::open(path);
    if (!reader) return std::unexpected(reader.error().toString());
    auto session = std::make_unique<Session>();
    session->topology = (*reader)->topology();
    session->replay = std::make_unique<importers::ReplayTransport>(std::move(*reader));
    session->sourceLabel = std::filesystem::path(path).filename().string();
    session->recordingPath = path;
    return session;
}

model::TimeNs Session::beginTime() const {
    return replay ? replay->beginTime() : sim ? sim->startTime() : 0;
}

std::shared_ptr<const model::Snapshot> Session::compareAt(model::TimeNs time) {
    if (!compare) return nullptr;
    const model::TimeNs at = compare->beginTime() + (time - beginTime()) + compareOffset;
    if (at < compare->beginTime() || at > compare->endTime()) return nullptr;
    compare->seek(at);
    return compare->renderNow();
}

std::expected<void, std::string> attachCompare(Session& session, const std::string& path,
                                               const std::string& offset) {
    model::TimeNs shift = 0;
    if (!offset.empty()) {
        const bool negative = offset.starts_with('-');
        if (!model::parseDuration(negative ? offset.substr(1) : offset, shift))
            return std::unexpected("--compare-offset: '" + offset +
                                   "' is not a duration such as 10m or -30s");
        if (negative) shift = -shift;
    }
    auto reader = importers::RecordingReader::open(path);
    if (!reader) return std::unexpected(reader.error().toString());
    // The same floor: every kind's count, and the racks by name.
    const auto& a = *session.topology;
    const auto b = (*reader)->topology();
    for (std::size_t k = 0; k < model::kEntityKindCount; ++k) {
        const auto kind = static_cast<model::EntityKind>(k);
        if (a.count(kind) != b->count(kind))
            return std::unexpected(path + ": a different floor (" + std::to_string(b->count(kind)) +
                                   " " + std::string(model::entityKindName(kind)) + " entities, " +
                                   "this one has " + std::to_string(a.count(kind)) +
                                   "): compare recordings of the same floor");
    }
    if (a.racks.name != b->racks.name)
        return std::unexpected(path + ": its racks have other names: compare recordings of the "
                                      "same floor");
    session.compare = std::make_unique<importers::ReplayTransport>(std::move(*reader));
    session.compareOffset = shift;
    session.comparePath = path;
    return {};
}

namespace {

// "+h:mm:ss" of a time since a recording's start, for the window's label.
std::string sinceStart(model::TimeNs at) {
    const auto secs = static_cast<long long>(model::toSeconds(at));
    char when[32];
    std::snprintf(when, sizeof when, "+%lld:%02lld:%02lld", secs / 3600, secs / 60 % 60, secs % 60);
    return when;
}

// A fork of measured data: nothing recorded can be re-run, so the simulator starts at the moment
// on its own settled state and takes every measured value there as its own; the rest is the
// model's, and the session says which channels were measured.
std::expected<std::unique_ptr<Session>, std::string>
forkMeasurements(const Options& o, importers::RecordingReader& reader, model::TimeNs at) {
    auto session = std::make_unique<Session>();
    session->topology = reader.topology();
    model::Snapshot measured;
    const model::TimeNs moment = reader.startTime() + at;
    if (auto read = reader.snapshotAt(moment, measured); !read)
        return std::unexpected(read.error().toString());
    model::SimConfig config;
    config.seed = o.seed;
    config.startTime = measured.time;
    session->sim = std::make_unique<model::SimCore>(session->topology, config);
    const auto taken = session->sim->initialiseFrom(measured);
    for (model::ChannelId c = 0; c < model::ch::Count; ++c)
        if (taken[c] > 0) {
            session->forkMeasuredChannels.emplace_back(model::kChannels[c].name);
            session->forkMeasuredValues += taken[c];
        }
    if (!o.scenario.empty()) {
        auto more = loadScenario(o.scenario, *session->topology);
        if (!more) return std::unexpected(more.error());
        session->sim->addScenario(*more, 0);
    }
    session->sourceLabel = "FORK (modelled from " + std::to_string(session->forkMeasuredValues) +
                           " measured values) of " +
                           std::filesystem::path(o.replay).filename().string() + " at " +
                           sinceStart(at) + (o.scenario.empty() ? "" : " with " + o.scenario);
    session->forkedFrom = o.replay;
    session->forkAt = measured.time;
    session->forkResumedAt = measured.time;
    session->forkFromMeasurements = true;
    return session;
}

} // namespace

std::expected<std::unique_ptr<Session>, std::string> makeForkSession(const Options& o) {
    model::TimeNs at = 0;
    if (!model::parseDuration(o.forkAt, at))
        return std::unexpected("--fork-at: '" + o.forkAt + "' is not a time such as 90s or 10m");
    auto reader = importers::RecordingReader::open(o.replay);
    if (!reader) return std::unexpected(reader.error().toString());
    const auto& info = (*reader)->info();
    const model::TimeNs start = (*reader)->startTime();
    if (start + at > (*reader)->endTime())
        return std::unexpected("--fork-at " + o.forkAt + ": past the end of " + o.replay + " (" +
                               std::to_string(model::toSeconds((*reader)->endTime() - start)) +
                               " s long)");
    if (info.telemetry) return forkMeasurements(o, **reader, at);
    if (info.source.rfind("simulator", 0) != 0)
        return std::unexpected(o.replay + ": not a recording of the simulator (" + info.source +
                               "): nothing to re-run");
    auto session = std::make_unique<Session>();
    session->topology = (*reader)->topology();
    // The recorded run's own actions: from the scenario file it kept, or a bundled one by name.
    model::Scenario recorded;
    if (!info.scenarioSource.empty()) {
        auto parsed = importers::parseScenarioFile(
            info.scenarioSource, o.replay + " (recorded scenario)", *session->topology);
        if (!parsed) return std::unexpected(parsed.error().toString());
        recorded = std::move(*parsed);
    } else if (!info.scenario.empty()) {
        auto bundled = loadScenario(info.scenario, *session->topology);
        if (!bundled)
            return std::unexpected(
                o.replay + ": its scenario '" + info.scenario +
                "' is not kept in the recording nor bundled: " + bundled.error());
        recorded = std::move(*bundled);
    }
    // The simulator is deterministic: the recorded run again, from its newest keyframe before
    // the fork's moment (or from its start), is exactly the state it had there.
    model::SimConfig config;
    config.seed = info.seed;
    config.startTime = start;
    config.step = info.tick;
    session->forkResumedAt = start;
    auto keyframe = (*reader)->keyframeAtOrBefore(start + at);
    if (!keyframe) {
        session->forkKeyframeNote = keyframe.error().toString();
    } else if (*keyframe) {
        model::SimConfig restored = config;
        restored.settle = false; // restoring overwrites it all
        auto sim = std::make_unique<model::SimCore>(session->topology, restored, recorded);
        if (auto r = sim->restore((**keyframe).state)) {
            session->sim = std::move(sim);
            session->forkResumedAt = (**keyframe).time;
        } else {
            session->forkKeyframeNote = r.error();
        }
    }
    if (!session->forkKeyframeNote.empty())
        std::fprintf(stderr, "fork: %s: %s; re-running the recording from its start\n",
                     o.replay.c_str(), session->forkKeyframeNote.c_str());
    if (!session->sim)
        session->sim =
            std::make_unique<model::SimCore>(session->topology, config, std::move(recorded));
    session->sim->runUntil(start + at);
    if (!o.scenario.empty()) {
        auto more = loadScenario(o.scenario, *session->topology);
        if (!more) return std::unexpected(more.error());
        session->sim->addScenario(*more, at);
    }
    session->sourceLabel = "FORK of " + std::filesystem::path(o.replay).filename().string() +
                           " at " + sinceStart(at) +
                           (o.scenario.empty() ? "" : " with " + o.scenario);
    session->forkedFrom = o.replay;
    session->forkAt = start + at;
    return session;
}

} // namespace ft::app
