#include "check_source.h"

#include "floor_loading.h"
#include "importers/formats/prometheus_text.h"
#include "importers/formats/telemetry_loader.h"
#include "importers/mapping/name_suggest.h"
#include "importers/mapping/series_mapper.h"
#include "importers/mapping/slurm_floor.h"
#include "importers/net/http_client.h"
#include "importers/sources/alertmanager_source.h"
#include "importers/sources/slurm_source.h"
#include "live_sources.h"
#include "source_kinds.h"

#include <chrono>
#include <fstream>
#include <sstream>

namespace ft::app {

using nlohmann::json;

namespace {

class ReportSink final : public importers::prom::SampleSink {
public:
    ReportSink(importers::SeriesMapper& mapper, model::TimeNs at) : m_mapper(mapper), m_at(at) {}
    void sample(const importers::prom::Sample& s) override {
        ++samples;
        m_out.clear();
        m_mapper.map(s, m_at, m_out);
    }
    void error(const importers::prom::ParseError& e) override {
        if (badLines++ < 10)
            problems.push_back("line " + std::to_string(e.line) + ":" + std::to_string(e.column) +
                               ": " + e.message);
    }
    std::uint64_t samples = 0, badLines = 0;
    std::vector<std::string> problems;

private:
    importers::SeriesMapper& m_mapper;
    model::TimeNs m_at;
    std::vector<model::Sample> m_out;
};

// A saved exposition page.
std::expected<std::string, std::string> readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::unexpected(path + ": cannot read the file");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// One exposition page through the mapping rules onto the floor: what became of each family.
std::expected<json, std::string> checkPage(const std::string& page, std::string_view presets,
                                           const Options& o, const model::Topology& topology);

} // namespace

std::expected<json, std::string> checkScrape(const std::string& target, std::string_view presets,
                                             const Options& o, const model::Topology& topology) {
    if (target.find(',') != std::string::npos)
        return std::unexpected("--check-source scrape=: one URL at a time");
    auto http = sourceHttpOptions(o);
    if (!http) return std::unexpected(http.error());
    const importers::HttpResult r = importers::requestBlocking(target, *http);
    if (!r.ok()) return std::unexpected(target + ": " + r.describeFailure());
    return checkPage(r.body, presets, o, topology);
}

std::expected<json, std::string> checkSlurm(const std::string& target, std::string_view,
                                            const Options& o, const model::Topology& topology) {
    auto config = importers::parseSlurmSpec(target);
    if (!config) return std::unexpected("--check-source " + config.error());
    auto http = sourceHttpOptions(o);
    if (!http) return std::unexpected(http.error());
    config->http = *http;
    config->user = http->basicUser;
    config->http.basicUser.clear();
    config->http.basicPassword.clear();
    std::string version;
    const importers::SlurmRead read = importers::readSlurmOnce(*config, nullptr, &version);
    if (!read.error.empty()) return std::unexpected(read.error);
    auto nodes = importers::parseSlurmJson(read.nodesBody, "nodes (" + read.where + ")");
    if (!nodes) return std::unexpected(nodes.error());
    auto jobs = importers::parseSlurmJson(read.jobsBody, "jobs (" + read.where + ")");
    if (!jobs) return std::unexpected(jobs.error());
    importers::EntityNameIndex index(topology);
    const importers::SlurmPlacement placed = importers::placeSlurm(*nodes, *jobs, index, 0);
    json byState = json::object();
    for (int s = 0; s < model::kSchedulerStates; ++s)
        if (placed.byState[static_cast<std::size_t>(s)] > 0)
            byState[std::string(model::kSchedulerStateNames[static_cast<std::size_t>(s)])] =
                placed.byState[static_cast<std::size_t>(s)];
    json out = json::array();
    for (const auto& n : placed.notes) {
        json one = {{"node", n.node},
                    {"tray", topology.name(model::EntityKind::ComputeTray, n.tray)},
                    {"host", topology.hostName(n.tray)},
                    {"state", n.state}};
        if (!n.reason.empty()) one["reason"] = n.reason;
        if (!n.jobs.empty()) one["jobs"] = n.jobs;
        out.push_back(std::move(one));
    }
    importers::HostSuggester suggester(topology);
    json unknown = json::array();
    for (const auto& n : placed.unknownNodes)
        unknown.push_back({{"node", n.name}, {"suggestions", suggester.suggest(n.name)}});
    json warnings = nodes->warnings;
    for (const auto& w : jobs->warnings)
        warnings.push_back(w);
    json report = {{"source", o.checkSource},
                   {"read", read.where},
                   {"slurm", nodes->release.empty() ? jobs->release : nodes->release},
                   {"api", nodes->plugin},
                   {"nodes", placed.nodes},
                   {"placed", placed.placed},
                   {"states", byState},
                   {"running_jobs", placed.runningJobs},
                   {"jobs_placed", placed.jobsPlaced},
                   {"placed_nodes", out},
                   {"unknown_nodes", unknown}};
    if (!warnings.empty()) report["warnings"] = warnings;
    if (!nodes->errors.empty() || !jobs->errors.empty()) {
        json errors = nodes->errors;
        for (const auto& e : jobs->errors)
            errors.push_back(e);
        report["errors"] = errors;
    }
    return report;
}

std::expected<json, std::string> checkAlertmanager(const std::string& target, std::string_view,
                                                   const Options& o,
                                                   const model::Topology& topology) {
    auto config = importers::parseAlertmanagerSpec(target);
    if (!config) return std::unexpected("--check-source " + config.error());
    auto http = sourceHttpOptions(o);
    if (!http) return std::unexpected(http.error());
    config->http = *http;
    auto severity = importers::parseSeverityMap(o.alertSeverity);
    if (!severity) return std::unexpected("--alert-severity " + severity.error());
    config->severity = *severity;
    importers::HttpClient client;
    importers::EntityNameIndex index(topology);
    const importers::AlertmanagerRead read =
        importers::readAlertmanagerOnce(*config, client, index);
    if (!read.error.empty()) return std::unexpected(read.error);
    json alerts = json::array(), unplaced = json::array();
    std::size_t placed = 0;
    for (const auto& a : read.answer.alerts) {
        json one = {{"alertname", a.name},
                    {"state", model::alertStateName(a.state)},
                    {"severity", model::severityWord(a.severity)},
                    {"fingerprint", a.fingerprint}};
        if (!a.entities.empty()) {
            ++placed;
            one["on"] = topology.name(a.entities.front().kind, a.entities.front().id);
            one["kind"] = model::entityKindName(a.entities.front().kind);
            one["by"] = a.placedBy;
        } else {
            one["not_placed"] = a.placedBy;
        }
        for (const auto& s : a.silences)
            one["silenced_by"].push_back(
                {{"id", s.id}, {"created_by", s.createdBy}, {"comment", s.comment}});
        (a.entities.empty() ? unplaced : alerts).push_back(std::move(one));
    }
    json report = {{"source", o.checkSource}, {"alerts", read.answer.alerts.size()},
                   {"placed", placed},        {"silences", read.answer.silences.size()},
                   {"placed_alerts", alerts}, {"unplaced_alerts", unplaced}};
    if (!read.answer.warnings.empty()) report["warnings"] = read.answer.warnings;
    return report;
}

std::expected<json, std::string> checkSource(const Options& o) {
    auto topology = loadTopology(o.floor, o.inventory, {o.tokenFile, o.caFile, o.insecure});
    if (!topology) return std::unexpected(topology.error());
    const std::string& source = o.checkSource;
    const auto eq = source.find('=');
    if (eq != std::string::npos && source.find('/') > eq) {
        const SourceKind* kind = findSourceKind(std::string_view(source).substr(0, eq));
        if (!kind || !kind->check)
            return std::unexpected("--check-source '" + source + "': expected " +
                                   checkableSourceList() +
                                   " or the path of a saved exposition page");
        return kind->check(source.substr(eq + 1), kind->rules, o, **topology);
    }
    auto page = readFile(source);
    if (!page) return std::unexpected(page.error());
    return checkPage(*page, importers::telemetryLoaderFor(source).rulesPreset(), o, **topology);
}

namespace {

std::expected<json, std::string> checkPage(const std::string& page, std::string_view presets,
                                           const Options& o, const model::Topology& topology) {
    auto rules = rulesFor(o, presets);
    if (!rules) return std::unexpected(rules.error());
    const std::string rulesName = rules->name;
    importers::SeriesMapper mapper(std::move(*rules), topology);
    mapper.keepFamilyReport(true);
    const auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    ReportSink sink(mapper, now);
    importers::prom::parse(page, sink);

    json families = json::array();
    std::uint64_t placed = 0, ignored = 0, notPlaced = 0;
    for (const auto& [name, f] : mapper.familyReport()) {
        json one = {{"family", name}, {"samples", f.samples}};
        if (f.ignored > 0) {
            one["ignored"] = f.ignoredWhy;
            ignored += f.ignored;
        }
        if (f.noRule > 0) one["no_rule"] = f.noRule;
        if (!f.channels.empty()) {
            json channels = json::array();
            for (const auto c : f.channels)
                channels.push_back(std::string(model::kChannels[c].name));
            one["channels"] = channels;
            one["placed"] = f.placed;
            one["placed_by"] = f.placedBy;
        }
        if (!f.notPlaced.empty()) one["not_placed"] = f.notPlaced;
        placed += f.placed;
        notPlaced += f.samples - f.placed - f.ignored;
        families.push_back(std::move(one));
    }
    // Why samples were not placed, across families, with the floor's nearest host names for
    // the hosts it does not know.
    importers::HostSuggester suggester(topology);
    json unknownHosts = json::array();
    for (const auto& h : mapper.topUnknownHosts(20))
        unknownHosts.push_back(
            {{"host", h.name}, {"samples", h.count}, {"suggestions", suggester.suggest(h.name)}});
    json moved = json::array();
    for (const auto& g : mapper.topMovedGpus(20))
        moved.push_back(g.name);
    json reasons = json::array();
    for (const auto& r : mapper.topUnresolved(20))
        reasons.push_back({{"reason", r.name}, {"samples", r.count}});
    const auto& stats = mapper.stats();
    json report = {{"source", o.checkSource},
                   {"mapping", rulesName},
                   {"samples", sink.samples},
                   {"placed", placed},
                   {"ignored", ignored},
                   {"not_placed", notPlaced},
                   {"bad_lines", sink.badLines},
                   {"families", families},
                   {"not_placed_reasons", reasons},
                   {"unknown_hosts", unknownHosts},
                   {"moved_gpus", moved},
                   {"exporter_pod_series", stats.exporterPodSeries}};
    if (!sink.problems.empty()) report["problems"] = sink.problems;
    return report;
}

} // namespace

} // namespace ft::app
