#include "recording_import.h"

#include "importers/floor/floor_file.h"
#include "importers/mapping/name_suggest.h"
#include "model/sim_model.h"
#include "recording_writer.h"

#include <algorithm>
#include <filesystem>

namespace ft::importers {

using nlohmann::json;

namespace {

void removeRecording(const std::string& path) {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"})
        std::filesystem::remove(path + suffix, ec);
}

} // namespace

std::expected<std::uint64_t, Error>
recordSamples(const std::shared_ptr<const model::Topology>& topology,
              const std::vector<model::Sample>& samples, model::TimeNs tick,
              const std::string& source, const std::string& outPath,
              const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
    if (samples.empty())
        return std::unexpected(
            Error{"nothing to record: no sample mapped onto this floor", {}, 0, 0, {}});
    RecordingInfo info;
    info.source = source;
    info.floorJson = floorSpecToJson(topology->spec());
    info.tick = tick;
    info.telemetry = true;
    // Imported data goes stale when the model would take over again.
    info.staleAfter = std::max<model::TimeNs>(30 * model::kNsPerSecond, 3 * tick);
    auto writer = RecordingWriter::create(outPath, topology, info);
    if (!writer) return std::unexpected(writer.error());
    (*writer)->setBlocking(true);
    model::SimConfig config;
    config.startTime = samples.front().time / tick * tick;
    config.step = tick;
    config.telemetry = true;
    config.measurementHold = info.staleAfter;
    config.staleAfter = info.staleAfter;
    model::SimModel sim(topology, config);
    const model::TimeNs end = samples.back().time;
    std::size_t cursor = 0;
    std::uint64_t ticks = 0;
    while (sim.time() <= end) {
        if (cancel && cancel->load()) {
            (*writer)->close();
            removeRecording(outPath);
            return std::unexpected(Error{"cancelled", {}, 0, 0, {}});
        }
        model::SampleBatch batch;
        while (cursor < samples.size() && samples[cursor].time <= sim.time() + tick)
            batch.samples.push_back(samples[cursor++]);
        if (!batch.samples.empty()) sim.apply(batch);
        sim.step();
        auto snapshot = std::make_shared<model::Snapshot>();
        sim.copyTo(*snapshot);
        (*writer)->push(std::move(snapshot));
        ++ticks;
        if (progress && ticks % 64 == 0)
            progress(static_cast<double>(cursor) / static_cast<double>(samples.size()));
    }
    (*writer)->close();
    if (!(*writer)->error().empty())
        return std::unexpected(Error{(*writer)->error(), outPath, 0, 0, {}});
    return ticks;
}

std::expected<json, Error>
importFileToRecording(const TelemetryLoader& loader,
                      const std::shared_ptr<const model::Topology>& topology,
                      const FileImportRequest& request) {
    // Reading is the first half of the progress bar, recording the second.
    auto half = [&](double base) {
        return [progress = request.progress, base](double p) {
            if (progress) progress(base + 0.5 * p);
        };
    };
    TelemetryLoadRequest load;
    load.path = request.path;
    load.topology = topology.get();
    load.rules = request.rules;
    load.progress = half(0.0);
    load.cancel = request.cancel;
    auto loaded = loader.load(load);
    if (!loaded) return std::unexpected(loaded.error());
    if (loaded->report.cancelled || (request.cancel && request.cancel->load()))
        return std::unexpected(Error{"cancelled", {}, 0, 0, {}});
    auto& samples = loaded->samples;
    if (samples.empty() && !loaded->report.unknownHosts.empty()) {
        // Nothing landed: say which hosts the file names and what the floor calls them.
        HostSuggester suggester(*topology);
        std::string message = "nothing to record: no sample mapped onto this floor; hosts it "
                              "does not know:";
        for (std::size_t i = 0; i < loaded->report.unknownHosts.size() && i < 5; ++i) {
            const auto& h = loaded->report.unknownHosts[i];
            message += (i ? ", " : " ") + h.name + " (" + std::to_string(h.count) + " samples";
            const auto& near = suggester.suggest(h.name);
            if (!near.empty()) message += "; nearest " + near.front();
            message += ")";
        }
        return std::unexpected(Error{message, request.path, 0, 0, {}});
    }
    std::ranges::stable_sort(samples, {}, &model::Sample::time);
    auto ticks = recordSamples(topology, samples, request.tick, "import " + request.path,
                               request.outPath, half(0.5), request.cancel);
    if (!ticks) return std::unexpected(ticks.error());
    const auto& r = loaded->report;
    json source = {{"name", r.name},
                   {"format", std::string(loader.name())},
                   {"samples", r.samples},
                   {"mapped", r.mapped},
                   {"unmapped", r.unmapped},
                   {"bad_lines", r.badLines},
                   {"format_warnings", r.formatWarnings},
                   {"errors", 0},
                   {"problems", r.problems}};
    if (!r.warnings.empty()) source["warnings"] = r.warnings;
    if (r.scrapes > 0) source["scrapes"] = r.scrapes;
    // Hosts the floor lacks, with the names the operator probably meant.
    HostSuggester suggester(*topology);
    json hosts = json::array();
    for (const auto& h : r.unknownHosts)
        hosts.push_back(
            {{"host", h.name}, {"samples", h.count}, {"suggestions", suggester.suggest(h.name)}});
    source["unmapped_hosts"] = hosts;
    json summary;
    summary["sources"] = json::array({source});
    summary["unmapped_hosts"] = hosts;
    summary["ticks"] = *ticks;
    summary["recorded_samples"] = samples.size();
    summary["first_time"] = model::formatUtc(samples.front().time);
    summary["last_time"] = model::formatUtc(samples.back().time);
    summary["recording"] = request.outPath;
    return summary;
}

} // namespace ft::importers
