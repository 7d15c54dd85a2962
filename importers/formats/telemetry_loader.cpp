#include "telemetry_loader.h"

#include "bms_message.h"
#include "importers/mapping/series_mapper.h"
#include "long_format_import.h"
#include "prometheus_text.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace ft::importers {

namespace {

std::string fileLabel(const std::string& path) {
    return "file " + std::filesystem::path(path).filename().string();
}

// The hooks of the line-oriented importers, reporting to a request's progress and cancel.
ImportHooks hooksFor(const TelemetryLoadRequest& r, std::vector<model::Sample>& out) {
    ImportHooks hooks;
    hooks.onBatch = [&out](model::SampleBatch&& b) {
        out.insert(out.end(), b.samples.begin(), b.samples.end());
    };
    hooks.onProgress = [progress = r.progress](std::uint64_t done, std::uint64_t total) {
        if (progress && total > 0) progress(static_cast<double>(done) / static_cast<double>(total));
    };
    hooks.cancel = r.cancel;
    return hooks;
}

void takeProblems(const ImportReport& from, TelemetryLoadReport& to) {
    for (const auto& p : from.problems)
        to.problems.push_back(p.toString());
    to.badLines = from.badLines;
    to.cancelled = from.cancelled;
}

// time,entity,channel,value as CSV or JSON lines, naming entities and channels directly.
class LongFormatLoader final : public TelemetryLoader {
public:
    std::string_view name() const override {
        return "long-format CSV / JSON lines (time, entity, channel, value)";
    }
    std::vector<std::string_view> extensions() const override {
        return {".csv", ".jsonl", ".ndjson"};
    }
    std::expected<LoadedTelemetry, Error> load(const TelemetryLoadRequest& r) const override {
        LoadedTelemetry out;
        auto report = importLongFormatFile(r.path, *r.topology, hooksFor(r, out.samples));
        if (!report) return std::unexpected(report.error());
        out.report.name = fileLabel(r.path);
        out.report.samples = report->samples + report->badLines;
        out.report.mapped = report->samples;
        takeProblems(*report, out.report);
        return out;
    }
};

// A capture of the building-management bus, as `mosquitto_sub -v -t 'BMS/#'` writes it.
class BmsCaptureLoader final : public TelemetryLoader {
public:
    std::string_view name() const override { return "BMS bus capture (mosquitto_sub -v)"; }
    std::vector<std::string_view> extensions() const override { return {".bms", ".mqtt"}; }
    std::string_view rulesPreset() const override { return "bms"; }
    std::expected<LoadedTelemetry, Error> load(const TelemetryLoadRequest& r) const override {
        if (!r.rules)
            return std::unexpected(Error{"a BMS capture needs mapping rules", r.path, 0, 0, {}});
        LoadedTelemetry out;
        BmsMapper mapper(*r.rules, *r.topology);
        auto report = importBmsCaptureFile(r.path, mapper, hooksFor(r, out.samples));
        if (!report) return std::unexpected(report.error());
        out.report.name = fileLabel(r.path);
        const auto& st = mapper.mapper().stats();
        out.report.samples = mapper.stats().values;
        out.report.mapped = st.mapped;
        // Values no rule placed, and those whose metadata never came.
        out.report.unmapped = mapper.stats().unmapped + mapper.stats().held;
        takeProblems(*report, out.report);
        return out;
    }
};

// Prometheus text (0.0.4 or OpenMetrics), one scrape or many, mapped with the exporter presets.
// Samples without timestamps get their scrape's time: the file's modification time for the
// last scrape, 15 s earlier for each one before (a first, fast pass counts the scrapes).
class ExpositionDumpLoader final : public TelemetryLoader {
public:
    std::string_view name() const override { return "Prometheus text dump (0.0.4, OpenMetrics)"; }
    std::vector<std::string_view> extensions() const override {
        return {".prom", ".om", ".txt", ".metrics"};
    }
    std::string_view rulesPreset() const override { return "dcgm-exporter+switch-ports"; }
    std::expected<LoadedTelemetry, Error> load(const TelemetryLoadRequest& r) const override {
        if (!r.rules)
            return std::unexpected(
                Error{"an exposition dump needs mapping rules", r.path, 0, 0, {}});
        std::ifstream in(r.path, std::ios::binary);
        if (!in) return std::unexpected(Error{"cannot read the file", r.path, 0, 0, {}});
        std::ostringstream ss;
        ss << in.rdbuf();
        const std::string text = ss.str();
        if (r.progress) r.progress(0.2);
        if (r.cancel && r.cancel->load()) {
            LoadedTelemetry out;
            out.report.cancelled = true;
            return out;
        }
        SeriesMapper mapper(*r.rules, *r.topology);
        Counter counter;
        const auto scrapes = static_cast<std::uint32_t>(prom::parse(text, counter).scrapes);
        struct stat fileStat {};
        const model::TimeNs fileTime =
            ::stat(r.path.c_str(), &fileStat) == 0
                ? static_cast<model::TimeNs>(fileStat.st_mtim.tv_sec) * model::kNsPerSecond +
                      fileStat.st_mtim.tv_nsec
                : std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
        Sink sink(mapper, fileTime, scrapes);
        prom::parse(text, sink);
        LoadedTelemetry out;
        out.samples = std::move(sink.out);
        const auto& st = mapper.stats();
        out.report.name = fileLabel(r.path);
        out.report.samples = sink.samples;
        out.report.mapped = st.mapped;
        out.report.unmapped = st.unmapped + st.unresolved;
        out.report.badLines = sink.badLines;
        out.report.formatWarnings = sink.warningCount;
        out.report.warnings = std::move(sink.warnings);
        out.report.scrapes = sink.scrapes;
        out.report.problems = std::move(sink.problems);
        out.report.unknownHosts = mapper.topUnknownHosts(10);
        if (r.progress) r.progress(1.0);
        return out;
    }

private:
    class Counter final : public prom::SampleSink {
    public:
        void sample(const prom::Sample&) override {}
    };
    class Sink final : public prom::SampleSink {
    public:
        Sink(SeriesMapper& mapper, model::TimeNs lastScrape, std::uint32_t totalScrapes)
            : m_mapper(mapper), m_lastScrape(lastScrape),
              m_total(std::max<std::uint32_t>(1, totalScrapes)) {}
        void sample(const prom::Sample& s) override {
            ++samples;
            const auto k = std::min(scrapes, m_total - 1);
            const model::TimeNs when =
                s.timestampNs.value_or(m_lastScrape - static_cast<model::TimeNs>(m_total - 1 - k) *
                                                          15 * model::kNsPerSecond);
            m_mapper.map(s.name, s.labels, s.value, when, out);
        }
        void error(const prom::ParseError& e) override {
            ++badLines;
            if (problems.size() < 20)
                problems.push_back("line " + std::to_string(e.line) + ":" +
                                   std::to_string(e.column) + ": " + e.message);
        }
        void warning(const prom::ParseError& w) override {
            ++warningCount;
            if (warnings.size() < 20)
                warnings.push_back("line " + std::to_string(w.line) + ":" +
                                   std::to_string(w.column) + ": " + w.message);
        }
        void endScrape() override { ++scrapes; }
        std::vector<model::Sample> out;
        std::uint64_t samples = 0, badLines = 0, warningCount = 0;
        std::uint32_t scrapes = 0;
        std::vector<std::string> problems, warnings;

    private:
        SeriesMapper& m_mapper;
        model::TimeNs m_lastScrape;
        std::uint32_t m_total;
    };
};

} // namespace

const std::vector<std::unique_ptr<TelemetryLoader>>& telemetryLoaders() {
    static const auto loaders = [] {
        std::vector<std::unique_ptr<TelemetryLoader>> all;
        all.push_back(std::make_unique<LongFormatLoader>());
        all.push_back(std::make_unique<BmsCaptureLoader>());
        all.push_back(
            std::make_unique<ExpositionDumpLoader>()); // last: it takes what nobody claims
        return all;
    }();
    return loaders;
}

const TelemetryLoader& telemetryLoaderFor(const std::string& path) {
    const std::string ext = std::filesystem::path(path).extension().string();
    for (const auto& loader : telemetryLoaders()) {
        const auto endings = loader->extensions();
        if (std::ranges::find(endings, std::string_view(ext)) != endings.end()) return *loader;
    }
    return *telemetryLoaders().back();
}

std::string telemetryFilePatterns() {
    std::string out;
    for (const auto& loader : telemetryLoaders())
        for (auto ext : loader->extensions())
            out += (out.empty() ? "*" : " *") + std::string(ext);
    return out;
}

} // namespace ft::importers
