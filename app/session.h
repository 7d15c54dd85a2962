#pragma once
// Session: what one window runs on — a floor, and either the simulator (optionally recorded to
// a .ftrec) or a recording being replayed. Owned by main; the window borrows it.
#include "command_line.h"
#include "importers/mapping/name_suggest.h"
#include "importers/recording/recording_writer.h"
#include "importers/recording/replay_transport.h"
#include "importers/sources/live_source.h"
#include "model/sim_core.h"

#include <expected>
#include <functional>
#include <memory>
#include <string>

namespace ft::app {

struct Session {
    std::shared_ptr<const model::Topology> topology;
    std::unique_ptr<model::SimCore> sim;
    std::unique_ptr<importers::ReplayTransport> replay;
    std::unique_ptr<importers::RecordingWriter> recorder;
    // Live telemetry feeding the sim core (--source); started with startSources().
    std::vector<std::unique_ptr<importers::LiveSource>> sources;
    // Nearest floor host names for the unknown hosts the sources report (UI thread).
    std::unique_ptr<importers::HostSuggester> suggester;
    // What the twin sends out (--alertmanager-push): started and stopped with the sources, but
    // not one of them (the floor is not live because of it).
    std::vector<std::unique_ptr<importers::LiveSource>> outputs;
    void startSources() {
        for (auto& s : sources)
            s->start();
        for (auto& s : outputs)
            s->start();
    }
    std::string recordingPath; // --record target, or the recording replayed
    // What the run was opened from (a simulator or live run), for links to it: the floor
    // file or inventory as given, the sources without credentials.
    std::string floorPath, inventoryPath;
    std::vector<std::string> sourceSpecs;
    std::string sourceLabel; // for the HUD: "SIMULATOR", "LIVE TELEMETRY", "REPLAY cooling.ftrec"

    // --compare: the baseline recording, driven by this session's clock.
    std::unique_ptr<importers::ReplayTransport> compare;
    model::TimeNs compareOffset = 0; // the baseline's clock runs this far ahead
    std::string comparePath;
    // A what-if fork: the recording it forked and the moment (else empty / 0).
    std::string forkedFrom;
    model::TimeNs forkAt = 0;
    // Where the fork's run started: the recording's keyframe it restored (else its start), and
    // why a keyframe could not be used (empty when one was, or the recording has none).
    model::TimeNs forkResumedAt = 0;
    std::string forkKeyframeNote;
    // A fork of measured data: the simulator took these channels' measured values (this many
    // in all) at the moment; everything else it models.
    bool forkFromMeasurements = false;
    std::vector<std::string> forkMeasuredChannels;
    std::size_t forkMeasuredValues = 0;
    // The baseline at the moment `time` of this session (the same time since the start, plus
    // the offset); null without a baseline or outside it.
    std::shared_ptr<const model::Snapshot> compareAt(model::TimeNs time);
    model::TimeNs beginTime() const;

    model::Transport& transport() {
        return replay ? static_cast<model::Transport&>(*replay) : *sim;
    }
    ~Session();
};

// The simulator on the floor and scenario the options name; with --record, a recorder fed by
// the sim thread (blocking = never drop, for headless runs).
// `scenario`, when given, replaces --scenario (a demo's actions): it gets the floor and returns
// the scenario or an error.
using ScenarioSource =
    std::function<std::expected<model::Scenario, std::string>(const model::Topology&)>;
std::expected<std::unique_ptr<Session>, std::string>
makeSimSession(const Options& options, bool realtimeStart, bool blockingRecorder,
               const ScenarioSource& scenario = {});
std::expected<std::unique_ptr<Session>, std::string> makeReplaySession(const std::string& path);
// --replay A --fork-at T [--scenario S]: the simulator in the state of A's run at T (A's newest
// keyframe before T restored, or A's start, then run on to T: exact, the simulator being
// deterministic), S's actions added from T on. A recording of measured data has nothing to
// re-run: the simulator starts at T from its own settled state with every value measured at T
// taken as its own (Session says which channels those were).
std::expected<std::unique_ptr<Session>, std::string> makeForkSession(const Options& options);
// Opens `path` as the session's baseline: a recording of the same floor (its racks by name).
// `offset`: a duration ("10m", "-30s"), empty for none.
std::expected<void, std::string> attachCompare(Session& session, const std::string& path,
                                               const std::string& offset);

} // namespace ft::app
