#include "session.h"

#include "floor_loading.h"
#include "importers/floor_file.h"

#include <chrono>
#include <filesystem>

namespace ft::app {

Session::~Session() {
    if (sim) sim->stop();       // no more publishes into the recorder
    if (recorder) recorder->close();
    if (replay) replay->stop();
}

std::expected<std::unique_ptr<Session>, std::string> makeSimSession(const Options& o, bool realtimeStart, bool blockingRecorder) {
    auto session = std::make_unique<Session>();
    auto topology = loadTopology(o.floor);
    if (!topology) return std::unexpected(topology.error());
    session->topology = *topology;
    auto scenario = loadScenario(o.scenario, **topology);
    if (!scenario) return std::unexpected(scenario.error());
    model::SimConfig config;
    config.seed = o.seed;
    if (realtimeStart) {
        // The live demo starts at the wall-clock time; screenshots, tests and headless runs use
        // the fixed default start so that they are repeatable.
        const auto now = std::chrono::system_clock::now().time_since_epoch();
        config.startTime = std::chrono::duration_cast<std::chrono::seconds>(now).count() * model::kNsPerSecond;
    }
    const std::string scenarioName = scenario->name;
    session->sim = std::make_unique<model::SimCore>(*topology, config, std::move(*scenario));
    session->sourceLabel = "SIMULATOR";
    if (!o.record.empty()) {
        importers::RecordingInfo info;
        info.source = "simulator, seed " + std::to_string(o.seed) + (scenarioName.empty() ? "" : ", scenario " + scenarioName);
        info.floorJson = importers::floorSpecToJson((*topology)->spec());
        info.seed = o.seed;
        info.scenario = scenarioName;
        info.tick = config.step;
        auto writer = importers::RecordingWriter::create(o.record, *topology, info);
        if (!writer) return std::unexpected(writer.error().toString());
        session->recorder = std::move(*writer);
        session->recorder->setBlocking(blockingRecorder);
        session->recordingPath = o.record;
        auto* recorder = session->recorder.get();
        // Everything published from here on is recorded, including the first snapshot.
        recorder->push(session->sim->latest());
        session->sim->setPublishHook([recorder](const std::shared_ptr<const model::Snapshot>& s) { recorder->push(s); });
    }
    return session;
}

std::expected<std::unique_ptr<Session>, std::string> makeReplaySession(const std::string& path) {
    auto reader = importers::RecordingReader::open(path);
    if (!reader) return std::unexpected(reader.error().toString());
    auto session = std::make_unique<Session>();
    session->topology = (*reader)->topology();
    session->replay = std::make_unique<importers::ReplaySource>(std::move(*reader));
    session->sourceLabel = std::filesystem::path(path).filename().string();
    return session;
}

} // namespace ft::app
