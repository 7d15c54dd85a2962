#include "live_sources.h"

#include "importers/floor_file.h"
#include "importers/long_format_import.h"
#include "importers/mqtt_source.h"
#include "importers/prometheus_text.h"
#include "importers/promql_source.h"
#include "importers/recording_writer.h"
#include "importers/scrape_source.h"
#include "importers/series_mapper.h"
#include "model/sim_model.h"

#include <QFile>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ft::app {

using nlohmann::json;

namespace {

model::TimeNs wallNow() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::expected<std::string, std::string> readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::unexpected("cannot read " + path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::expected<importers::HttpOptions, std::string> httpOptions(const Options& o) {
    importers::HttpOptions http;
    if (!o.tokenFile.empty()) {
        auto token = readText(o.tokenFile);
        if (!token) return std::unexpected("--token-file: " + token.error());
        std::string t = *token;
        while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
        http.bearerToken = t;
    }
    http.caFile = o.caFile;
    http.insecureSkipVerify = o.insecure;
    return http;
}

std::expected<std::chrono::milliseconds, std::string> intervalOf(const Options& o, std::chrono::milliseconds fallback) {
    if (o.interval.empty()) return fallback;
    model::TimeNs ns = 0;
    if (!model::parseDuration(o.interval, ns) || ns < 100 * model::kNsPerMs) return std::unexpected("--interval: '" + o.interval + "' is not a duration of at least 100ms");
    return std::chrono::milliseconds(ns / model::kNsPerMs);
}

// Drives a SimModel through `samples` (sorted by time) tick by tick and records every tick:
// measured channels carry the imported values, the rest is the model's.
std::expected<std::uint64_t, std::string> recordSamples(std::shared_ptr<const model::Topology> topology, const std::vector<model::Sample>& samples,
                                                        model::TimeNs tick, const std::string& source, const std::string& outPath,
                                                        const std::function<void(double)>& progress, const std::atomic<bool>* cancel) {
    if (samples.empty()) return std::unexpected("nothing to record: no sample mapped onto this floor");
    importers::RecordingInfo info;
    info.source = source;
    info.floorJson = importers::floorSpecToJson(topology->spec());
    info.tick = tick;
    auto writer = importers::RecordingWriter::create(outPath, topology, info);
    if (!writer) return std::unexpected(writer.error().toString());
    (*writer)->setBlocking(true);
    model::SimConfig config;
    config.startTime = samples.front().time / tick * tick;
    config.step = tick;
    config.measurementHold = std::max<model::TimeNs>(30 * model::kNsPerSecond, 3 * tick);
    model::SimModel sim(topology, config);
    const model::TimeNs end = samples.back().time;
    std::size_t cursor = 0;
    std::uint64_t ticks = 0;
    while (sim.time() <= end) {
        if (cancel && cancel->load()) {
            (*writer)->close();
            std::error_code ec;
            for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(outPath + suffix, ec);
            return std::unexpected("cancelled");
        }
        model::SampleBatch batch;
        while (cursor < samples.size() && samples[cursor].time <= sim.time() + tick) batch.samples.push_back(samples[cursor++]);
        if (!batch.samples.empty()) sim.apply(batch);
        sim.step();
        auto snapshot = std::make_shared<model::Snapshot>();
        sim.copyTo(*snapshot);
        (*writer)->push(std::move(snapshot));
        ++ticks;
        if (progress && ticks % 64 == 0) progress(0.5 + 0.5 * static_cast<double>(cursor) / static_cast<double>(samples.size()));
    }
    (*writer)->close();
    if (!(*writer)->error().empty()) return std::unexpected((*writer)->error());
    return ticks;
}

// Prometheus text dumps: every scrape in the file, mapped with the exporter presets. Samples
// without timestamps get their scrape's time: the file's modification time for the last scrape,
// `interval` earlier for each one before.
class ScrapeCounter final : public importers::prom::SampleSink {
public:
    void sample(const importers::prom::Sample&) override {}
};

class DumpSink final : public importers::prom::SampleSink {
public:
    DumpSink(importers::SeriesMapper& mapper, model::TimeNs lastScrape, std::uint32_t totalScrapes)
        : m_mapper(mapper), m_lastScrape(lastScrape), m_total(std::max<std::uint32_t>(1, totalScrapes)) {}
    void sample(const importers::prom::Sample& s) override {
        ++samples;
        const auto k = std::min(scrapes, m_total - 1);
        const model::TimeNs when = s.timestampNs.value_or(m_lastScrape - static_cast<model::TimeNs>(m_total - 1 - k) * 15 * model::kNsPerSecond);
        m_mapper.map(s.name, s.labels, s.value, when, m_out);
    }
    void error(const importers::prom::ParseError& e) override {
        ++badLines;
        if (problems.size() < 20) problems.push_back("line " + std::to_string(e.line) + ":" + std::to_string(e.column) + ": " + e.message);
    }
    void endScrape() override { ++scrapes; }
    std::vector<model::Sample> m_out;
    std::uint64_t samples = 0, badLines = 0;
    std::uint32_t scrapes = 0;
    std::vector<std::string> problems;

private:
    importers::SeriesMapper& m_mapper;
    model::TimeNs m_lastScrape;
    std::uint32_t m_total;
};

} // namespace

std::expected<importers::MappingRules, std::string> loadRules(const std::string& presetOrFile) {
    QFile preset(QString(":/mappings/%1.json").arg(QString::fromStdString(presetOrFile)));
    if (preset.open(QIODevice::ReadOnly)) {
        const QByteArray bytes = preset.readAll();
        auto rules = importers::parseMappingRules(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), presetOrFile + ".json");
        if (!rules) return std::unexpected(rules.error().toString());
        return *rules;
    }
    auto rules = importers::loadMappingRules(presetOrFile);
    if (!rules) return std::unexpected(rules.error().toString());
    return *rules;
}

std::expected<importers::MappingRules, std::string> rulesFor(const Options& o, const std::string& kind) {
    if (!o.mapping.empty()) return loadRules(o.mapping);
    if (kind == "mqtt") return loadRules("bms");
    // Exporters and Prometheus carry GPU metrics and, on a real floor, switch port counters.
    auto rules = loadRules("dcgm-exporter");
    if (!rules) return rules;
    auto ports = loadRules("switch-ports");
    if (!ports) return std::unexpected(ports.error());
    rules->name += " + " + ports->name;
    rules->rules.insert(rules->rules.end(), ports->rules.begin(), ports->rules.end());
    return rules;
}

std::expected<std::vector<std::unique_ptr<importers::LiveSource>>, std::string>
makeLiveSources(const Options& o, std::shared_ptr<const model::Topology> topology, importers::SubmitFn submit) {
    std::vector<std::unique_ptr<importers::LiveSource>> sources;
    auto http = httpOptions(o);
    if (!http) return std::unexpected(http.error());
    std::uint16_t id = 1;
    for (const auto& text : o.sources) {
        auto spec = parseSourceSpec(text);
        if (!spec) return std::unexpected(spec.error());
        auto rules = rulesFor(o, spec->kind);
        if (!rules) return std::unexpected(rules.error());
        if (spec->kind == "scrape") {
            auto urls = importers::parseScrapeSpec(spec->target);
            if (!urls) return std::unexpected("--source scrape=: " + urls.error());
            importers::ScrapeConfig config;
            config.urls = *urls;
            auto interval = intervalOf(o, std::chrono::milliseconds(1000));
            if (!interval) return std::unexpected(interval.error());
            config.interval = *interval;
            config.http = *http;
            config.sourceId = id++;
            sources.push_back(std::make_unique<importers::ScrapeSource>(config, std::move(*rules), topology, submit));
        } else if (spec->kind == "prometheus") {
            importers::PromqlConfig config;
            config.url = spec->target;
            auto interval = intervalOf(o, std::chrono::milliseconds(5000));
            if (!interval) return std::unexpected(interval.error());
            config.interval = *interval;
            config.http = *http;
            config.sourceId = id++;
            // Per-rack aggregation on the server for big floors; raw device series on small ones.
            importers::QuerySetOptions qs;
            qs.perDevice = topology->count(model::EntityKind::Gpu) <= 4096;
            config.queries = importers::buildQuerySet(*rules, *topology, qs);
            sources.push_back(std::make_unique<importers::PromqlSource>(config, std::move(*rules), topology, submit));
        } else {
            auto brokers = importers::parseMqttSpec(spec->target);
            if (!brokers) return std::unexpected("--source mqtt=: " + brokers.error());
            importers::MqttConfig config;
            config.brokers = *brokers;
            config.sourceId = id++;
            config.caFile = o.caFile;
            config.insecureSkipVerify = o.insecure;
            sources.push_back(std::make_unique<importers::MqttSource>(config, *rules, topology, submit));
        }
    }
    return sources;
}

std::vector<views::SourceStatus> sourceStatus(const std::vector<std::unique_ptr<importers::LiveSource>>& sources) {
    std::vector<views::SourceStatus> out;
    const model::TimeNs now = wallNow();
    for (const auto& source : sources)
        for (const auto& h : source->health()) {
            views::SourceStatus s;
            s.name = h.name;
            s.level = h.state == importers::SourceState::Up ? 0 : h.state == importers::SourceState::Down ? 2 : 1;
            char detail[160];
            if (h.state == importers::SourceState::Down || (h.state != importers::SourceState::Up && !h.lastError.empty()))
                std::snprintf(detail, sizeof detail, "%s", h.lastError.empty() ? "no answer yet" : h.lastError.c_str());
            else if (h.lastSuccess > 0)
                std::snprintf(detail, sizeof detail, "%llu mapped, %llu unmapped, %.1f s ago, %.0f ms",
                              static_cast<unsigned long long>(h.mapped), static_cast<unsigned long long>(h.unmapped),
                              model::toSeconds(std::max<model::TimeNs>(0, now - h.lastSuccess)), h.lastLatencyMs);
            else
                std::snprintf(detail, sizeof detail, "connecting");
            s.detail = detail;
            if (s.detail.size() > 90) s.detail = s.detail.substr(0, 87) + "...";
            out.push_back(std::move(s));
        }
    return out;
}

json sourcesJson(const std::vector<std::unique_ptr<importers::LiveSource>>& sources) {
    json out = json::array();
    for (const auto& source : sources)
        for (const auto& h : source->health())
            out.push_back({{"name", h.name},
                           {"url", h.url},
                           {"state", std::string(importers::sourceStateName(h.state))},
                           {"samples", h.samples},
                           {"mapped", h.mapped},
                           {"unmapped", h.unmapped},
                           {"bad_lines", h.badLines},
                           {"errors", h.errors},
                           {"dropped", h.dropped},
                           {"out_of_order", h.outOfOrder},
                           {"polls", h.polls},
                           {"last_error", h.lastError}});
    return out;
}

std::expected<json, std::string> importFileToRecording(const Options& o, std::shared_ptr<const model::Topology> topology, const std::string& file,
                                                       const std::string& outPath, const std::function<void(double)>& progress,
                                                       const std::atomic<bool>* cancel) {
    model::TimeNs tick = model::kNsPerSecond;
    if (!o.step.empty() && (!model::parseDuration(o.step, tick) || tick <= 0)) return std::unexpected("--step: '" + o.step + "' is not a duration");
    const std::string ext = std::filesystem::path(file).extension().string();
    std::vector<model::Sample> samples;
    json source = {{"name", "file " + std::filesystem::path(file).filename().string()}};
    if (ext == ".csv" || ext == ".jsonl" || ext == ".ndjson") {
        importers::ImportHooks hooks;
        hooks.onBatch = [&](model::SampleBatch&& b) { samples.insert(samples.end(), b.samples.begin(), b.samples.end()); };
        hooks.onProgress = [&](std::uint64_t done, std::uint64_t total) {
            if (progress && total > 0) progress(0.5 * static_cast<double>(done) / static_cast<double>(total));
        };
        hooks.cancel = cancel;
        auto report = importers::importLongFormatFile(file, *topology, hooks);
        if (!report) return std::unexpected(report.error().toString());
        if (report->cancelled) return std::unexpected("cancelled");
        json problems = json::array();
        for (const auto& p : report->problems) problems.push_back(p.toString());
        source.update({{"samples", report->samples + report->badLines}, {"mapped", report->samples}, {"unmapped", 0},
                       {"bad_lines", report->badLines}, {"errors", 0}, {"problems", problems}});
    } else {
        // Prometheus text (0.0.4 or OpenMetrics), one scrape or many.
        auto text = readText(file);
        if (!text) return std::unexpected(text.error());
        if (progress) progress(0.1);
        auto rules = rulesFor(o, "scrape");
        if (!rules) return std::unexpected(rules.error());
        importers::SeriesMapper mapper(std::move(*rules), *topology);
        // Scrapes without timestamps: the last at the file's modification time, 15 s apart (a
        // first, fast pass counts the scrapes).
        ScrapeCounter counter;
        const auto scrapes = static_cast<std::uint32_t>(importers::prom::parse(*text, counter).scrapes);
        struct stat fileStat {};
        const model::TimeNs fileTime = ::stat(file.c_str(), &fileStat) == 0 ? static_cast<model::TimeNs>(fileStat.st_mtim.tv_sec) * model::kNsPerSecond + fileStat.st_mtim.tv_nsec
                                                                      : wallNow();
        DumpSink sink(mapper, fileTime, scrapes);
        importers::prom::parse(*text, sink);
        samples = std::move(sink.m_out);
        const auto& st = mapper.stats();
        source.update({{"samples", sink.samples}, {"mapped", st.mapped}, {"unmapped", st.unmapped + st.unresolved}, {"bad_lines", sink.badLines},
                       {"errors", 0}, {"scrapes", sink.scrapes}, {"problems", sink.problems}});
        if (progress) progress(0.5);
    }
    std::ranges::stable_sort(samples, {}, &model::Sample::time);
    auto ticks = recordSamples(topology, samples, tick, "import " + file, outPath, progress, cancel);
    if (!ticks) return std::unexpected(ticks.error());
    json summary;
    summary["sources"] = json::array({source});
    summary["ticks"] = *ticks;
    summary["recorded_samples"] = samples.size();
    summary["first_time"] = model::formatUtc(samples.front().time);
    summary["last_time"] = model::formatUtc(samples.back().time);
    summary["recording"] = outPath;
    return summary;
}

std::expected<json, std::string> importWindowToRecording(const Options& o, std::shared_ptr<const model::Topology> topology, const std::string& window,
                                                         const std::string& outPath, const std::function<void(double)>& progress,
                                                         const std::atomic<bool>* cancel) {
    const auto comma = window.find(',');
    if (comma == std::string::npos) return std::unexpected("--import-window: expected FROM,TO (RFC 3339), got '" + window + "'");
    const auto from = importers::parseTimeText(window.substr(0, comma));
    const auto to = importers::parseTimeText(window.substr(comma + 1));
    if (!from || !to) return std::unexpected("--import-window: FROM and TO must be times such as 2026-11-30T10:00:00Z, got '" + window + "'");
    model::TimeNs step = 15 * model::kNsPerSecond;
    if (!o.step.empty() && (!model::parseDuration(o.step, step) || step <= 0)) return std::unexpected("--step: '" + o.step + "' is not a duration");
    std::string url;
    for (const auto& s : o.sources)
        if (s.starts_with("prometheus=")) url = s.substr(11);
    auto http = httpOptions(o);
    if (!http) return std::unexpected(http.error());
    auto rules = rulesFor(o, "prometheus");
    if (!rules) return std::unexpected(rules.error());
    importers::PromqlConfig server;
    server.url = url;
    server.http = *http;
    importers::QuerySetOptions qs;
    qs.perDevice = topology->count(model::EntityKind::Gpu) <= 4096;
    server.queries = importers::buildQuerySet(*rules, *topology, qs);
    importers::IncidentImportOptions options;
    options.tick = std::min(step, 5 * model::kNsPerSecond);
    auto stats = importers::importIncidentWindow(server, *from, *to, step, *rules, topology, outPath, progress, cancel, options);
    if (!stats) return std::unexpected(stats.error().toString());
    json summary;
    summary["sources"] = json::array({{{"name", "prometheus " + url},
                                       {"samples", stats->samples},
                                       {"mapped", stats->mapped},
                                       {"unmapped", stats->unmapped},
                                       {"bad_lines", 0},
                                       {"errors", stats->errors},
                                       {"requests", stats->requests},
                                       {"series", stats->series}}});
    summary["ticks"] = stats->ticks;
    summary["recorded_samples"] = stats->mapped;
    summary["first_time"] = model::formatUtc(*from);
    summary["last_time"] = model::formatUtc(*to);
    summary["recording"] = outPath;
    return summary;
}

} // namespace ft::app
