#include "live_sources.h"

#include "importers/formats/long_format_import.h"
#include "importers/net/secrets.h"
#include "importers/net/wall_clock.h"
#include "importers/recording/recording_import.h"
#include "importers/sources/promql_source.h"
#include "source_kinds.h"

#include <QFile>
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

namespace ft::app {

using nlohmann::json;

namespace {

// The credentials every HTTP source gets: --token-file's bearer token, or --user with
// --password-file (Basic for exporters and Prometheus, a session login for Redfish, the broker
// login for MQTT). Secrets come only from files; a file others can read gets a warning.
std::expected<importers::HttpOptions, std::string> httpOptions(const Options& o) {
    importers::HttpOptions http;
    if (!o.tokenFile.empty()) {
        auto token = importers::readSecretFile(o.tokenFile, "--token-file");
        if (!token) return std::unexpected(token.error());
        if (!token->warning.empty()) std::cerr << "floortwin: warning: " << token->warning << "\n";
        http.bearerToken = std::move(token->value);
    }
    if (!o.user.empty()) {
        if (o.passwordFile.empty())
            return std::unexpected("--user needs --password-file (the password is not taken on "
                                   "the command line)");
        auto password = importers::readSecretFile(o.passwordFile, "--password-file");
        if (!password) return std::unexpected(password.error());
        if (!password->warning.empty())
            std::cerr << "floortwin: warning: " << password->warning << "\n";
        http.basicUser = o.user;
        http.basicPassword = std::move(password->value);
    }
    http.caFile = o.caFile;
    http.insecureSkipVerify = o.insecure;
    return http;
}

std::expected<std::chrono::milliseconds, std::string>
intervalOf(const Options& o, std::chrono::milliseconds fallback) {
    if (o.interval.empty()) return fallback;
    model::TimeNs ns = 0;
    if (!model::parseDuration(o.interval, ns) || ns < 100 * model::kNsPerMs)
        return std::unexpected("--interval: '" + o.interval +
                               "' is not a duration of at least 100ms");
    return std::chrono::milliseconds(ns / model::kNsPerMs);
}

} // namespace

std::expected<std::chrono::milliseconds, std::string> pushIntervalOf(const Options& o) {
    return intervalOf(o, std::chrono::milliseconds(15000));
}

std::expected<importers::HttpOptions, std::string> sourceHttpOptions(const Options& o) {
    return httpOptions(o);
}

std::expected<importers::MappingRules, std::string> loadRules(const std::string& presetOrFile) {
    QFile preset(QString(":/mappings/%1.json").arg(QString::fromStdString(presetOrFile)));
    if (preset.open(QIODevice::ReadOnly)) {
        const QByteArray bytes = preset.readAll();
        auto rules = importers::parseMappingRules(
            std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
            presetOrFile + ".json");
        if (!rules) return std::unexpected(rules.error().toString());
        return *rules;
    }
    auto rules = importers::loadMappingRules(presetOrFile);
    if (!rules) return std::unexpected(rules.error().toString());
    return *rules;
}

std::expected<importers::MappingRules, std::string> rulesFor(const Options& o,
                                                             std::string_view presets) {
    if (!o.mapping.empty()) return loadRules(o.mapping);
    std::optional<importers::MappingRules> merged;
    for (std::size_t at = 0; at < presets.size();) {
        const std::size_t plus = std::min(presets.find('+', at), presets.size());
        auto rules = loadRules(std::string(presets.substr(at, plus - at)));
        if (!rules) return std::unexpected(rules.error());
        if (!merged) {
            merged = std::move(*rules);
        } else {
            merged->name += " + " + rules->name;
            merged->rules.insert(merged->rules.end(), rules->rules.begin(), rules->rules.end());
        }
        at = plus + 1;
    }
    if (!merged) return std::unexpected("no mapping rules named");
    return std::move(*merged);
}

std::expected<std::vector<std::unique_ptr<importers::LiveSource>>, std::string>
makeLiveSources(const Options& o, const std::shared_ptr<const model::Topology>& topology,
                const importers::SubmitFn& submit) {
    std::vector<std::unique_ptr<importers::LiveSource>> sources;
    auto http = httpOptions(o);
    if (!http) return std::unexpected(http.error());
    std::uint16_t id = 1;
    for (const auto& text : o.sources) {
        auto spec = parseSourceSpec(text);
        if (!spec) return std::unexpected(spec.error());
        // Every user of the machine can read a command line (ps): no credentials in URLs.
        for (std::size_t at = 0; at <= spec->target.size();) {
            const std::size_t comma = std::min(spec->target.find(',', at), spec->target.size());
            const std::string_view url = std::string_view(spec->target).substr(at, comma - at);
            if (importers::urlHasUserInfo(url))
                return std::unexpected(
                    "--source " + spec->kind + "=" + importers::redactUrl(url) +
                    ": credentials in the URL are not taken (every user of this machine can read "
                    "a command line); use --user and --password-file, or --token-file");
            at = comma + 1;
        }
        const SourceKind& kind = *findSourceKind(spec->kind); // parseSourceSpec knows it
        auto interval = intervalOf(o, kind.interval);
        if (!interval) return std::unexpected(interval.error());
        auto source =
            kind.build(spec->target, {o, kind.rules, *http, *interval, topology, submit, id++});
        if (!source) return std::unexpected(source.error());
        sources.push_back(std::move(*source));
    }
    return sources;
}

std::vector<importers::NameCount>
unknownHostsOf(const std::vector<std::unique_ptr<importers::LiveSource>>& sources) {
    std::map<std::string, std::uint64_t> merged;
    for (const auto& source : sources)
        for (const auto& h : source->unknownHosts())
            merged[h.name] += h.count;
    std::vector<importers::NameCount> out;
    out.reserve(merged.size());
    for (auto& [name, count] : merged)
        out.push_back({name, count});
    std::ranges::stable_sort(out, [](const auto& a, const auto& b) { return a.count > b.count; });
    return out;
}

json unmappedHostsJson(const std::vector<importers::NameCount>& hosts,
                       importers::HostSuggester* suggester, std::size_t limit) {
    json out = json::array();
    for (std::size_t i = 0; i < hosts.size() && i < limit; ++i) {
        json one = {{"host", hosts[i].name}, {"samples", hosts[i].count}};
        if (suggester) one["suggestions"] = suggester->suggest(hosts[i].name);
        out.push_back(std::move(one));
    }
    return out;
}

namespace {

std::string joined(const std::vector<importers::NameCount>& list, const char* between) {
    std::string out;
    for (const auto& n : list)
        out += (out.empty() ? "" : between) + n.name + " (" + std::to_string(n.count) + ")";
    return out;
}

views::FamilyStatus familyStatus(const importers::FamilyMapping& f) {
    views::FamilyStatus s;
    s.family = f.family;
    s.series = f.series;
    s.placed = f.placed;
    s.ignored = f.ignored;
    s.noRule = f.noRule;
    for (const auto& c : f.channels)
        s.channels += (s.channels.empty() ? "" : ", ") + c;
    s.placedBy = joined(f.placedBy, ", ");
    s.why = f.ignored > 0 ? f.ignoredWhy : joined(f.notPlaced, "; ");
    return s;
}

} // namespace

std::vector<views::SourceStatus>
sourceStatus(const std::vector<std::unique_ptr<importers::LiveSource>>& sources,
             importers::HostSuggester* suggester) {
    std::vector<views::SourceStatus> out;
    const model::TimeNs now = importers::wallNow();
    for (const auto& source : sources) {
        const std::size_t first = out.size();
        for (const auto& h : source->health()) {
            views::SourceStatus s;
            s.name = h.name;
            s.level = h.state == importers::SourceState::Up     ? 0
                      : h.state == importers::SourceState::Down ? 2
                                                                : 1;
            char detail[160];
            if (h.state == importers::SourceState::Down ||
                (h.state != importers::SourceState::Up && !h.lastError.empty()))
                std::snprintf(detail, sizeof detail, "%s",
                              h.lastError.empty() ? "no answer yet" : h.lastError.c_str());
            else if (h.lastSuccess > 0)
                std::snprintf(detail, sizeof detail,
                              "%llu mapped, %llu unmapped, %.1f s ago, %.0f ms",
                              static_cast<unsigned long long>(h.mapped),
                              static_cast<unsigned long long>(h.unmapped),
                              model::toSeconds(std::max<model::TimeNs>(0, now - h.lastSuccess)),
                              h.lastLatencyMs);
            else
                std::snprintf(detail, sizeof detail, "connecting");
            s.detail = detail;
            if (s.detail.size() > 90) s.detail = s.detail.substr(0, 87) + "...";
            s.conditions = h.conditions;
            s.formatWarnings = h.formatWarnings;
            s.lastFormatWarning = h.lastFormatWarning;
            for (const auto& u : h.unresolved)
                s.unresolved.emplace_back(u.name, u.count);
            out.push_back(std::move(s));
        }
        if (out.size() > first) {
            for (const auto& h : source->unknownHosts())
                out[first].unknownHosts.push_back(
                    {h.name, h.count,
                     suggester ? suggester->suggest(h.name) : std::vector<std::string>{}});
            for (const auto& f : source->mappingReport())
                out[first].families.push_back(familyStatus(f));
        }
    }
    return out;
}

json sourcesJson(const std::vector<std::unique_ptr<importers::LiveSource>>& sources,
                 importers::HostSuggester* suggester) {
    json out = json::array();
    for (const auto& source : sources) {
        const std::size_t first = out.size();
        for (const auto& h : source->health()) {
            json one = {{"name", h.name},
                        {"url", h.url},
                        {"state", std::string(importers::sourceStateName(h.state))},
                        {"samples", h.samples},
                        {"mapped", h.mapped},
                        {"unmapped", h.unmapped},
                        {"bad_lines", h.badLines},
                        {"format_warnings", h.formatWarnings},
                        {"errors", h.errors},
                        {"dropped", h.dropped},
                        {"out_of_order", h.outOfOrder},
                        {"polls", h.polls},
                        {"last_error", h.lastError}};
            if (!h.lastFormatWarning.empty()) one["last_format_warning"] = h.lastFormatWarning;
            if (!h.conditions.empty()) one["conditions"] = h.conditions;
            if (!h.unresolved.empty()) {
                json list = json::array();
                for (const auto& u : h.unresolved)
                    list.push_back({{"entity", u.name}, {"samples", u.count}});
                one["unresolved"] = std::move(list);
            }
            out.push_back(std::move(one));
        }
        if (out.size() > first) {
            out[first]["unmapped_hosts"] = unmappedHostsJson(source->unknownHosts(), suggester);
            // The mapping report, per family over the series seen (as the Sources panel has it).
            json families = json::array();
            for (const auto& f : source->mappingReport()) {
                const views::FamilyStatus st = familyStatus(f);
                json one = {{"family", st.family}, {"series", st.series}, {"placed", st.placed}};
                if (!st.channels.empty()) one["channels"] = st.channels;
                if (!st.placedBy.empty()) one["placed_by"] = st.placedBy;
                if (f.ignored > 0) one["ignored"] = st.why;
                if (f.noRule > 0) one["no_rule"] = f.noRule;
                if (!f.notPlaced.empty()) one["not_placed"] = joined(f.notPlaced, "; ");
                families.push_back(std::move(one));
            }
            if (!families.empty()) out[first]["families"] = std::move(families);
        }
    }
    return out;
}

std::expected<json, std::string>
importFileToRecording(const Options& o, const std::shared_ptr<const model::Topology>& topology,
                      const std::string& file, const std::string& outPath,
                      const std::function<void(double)>& progress,
                      const std::atomic<bool>* cancel) {
    importers::FileImportRequest request;
    if (!o.step.empty() && (!model::parseDuration(o.step, request.tick) || request.tick <= 0))
        return std::unexpected("--step: '" + o.step + "' is not a duration");
    const auto& loader = importers::telemetryLoaderFor(file);
    std::optional<importers::MappingRules> rules;
    if (!loader.rulesPreset().empty()) {
        auto loaded = o.mapping.empty() ? rulesFor(o, loader.rulesPreset()) : loadRules(o.mapping);
        if (!loaded) return std::unexpected(loaded.error());
        rules = std::move(*loaded);
    }
    request.path = file;
    request.outPath = outPath;
    request.rules = rules ? &*rules : nullptr;
    request.progress = progress;
    request.cancel = cancel;
    auto summary = importers::importFileToRecording(loader, topology, request);
    if (!summary) return std::unexpected(summary.error().toString());
    return *summary;
}

std::expected<json, std::string>
importWindowToRecording(const Options& o, const std::shared_ptr<const model::Topology>& topology,
                        const std::string& window, const std::string& outPath,
                        const std::function<void(double)>& progress,
                        const std::atomic<bool>* cancel) {
    const auto comma = window.find(',');
    if (comma == std::string::npos)
        return std::unexpected("--import-window: expected FROM,TO (RFC 3339), got '" + window +
                               "'");
    const auto from = importers::parseTimeText(window.substr(0, comma));
    const auto to = importers::parseTimeText(window.substr(comma + 1));
    if (!from || !to)
        return std::unexpected(
            "--import-window: FROM and TO must be times such as 2026-11-30T10:00:00Z, got '" +
            window + "'");
    model::TimeNs step = 15 * model::kNsPerSecond;
    if (!o.step.empty() && (!model::parseDuration(o.step, step) || step <= 0))
        return std::unexpected("--step: '" + o.step + "' is not a duration");
    const auto source = windowSourceOf(o);
    if (!source)
        return std::unexpected("--import-window pulls from a server: add --source " +
                               windowSourceList());
    const std::string& url = source->target;
    auto http = httpOptions(o);
    if (!http) return std::unexpected(http.error());
    auto rules = rulesFor(o, findSourceKind(source->kind)->rules);
    if (!rules) return std::unexpected(rules.error());
    importers::PromqlConfig server;
    server.url = url;
    server.http = *http;
    importers::QuerySetOptions qs;
    qs.perDevice = topology->count(model::EntityKind::Gpu) <= 4096;
    server.queries = importers::buildQuerySet(*rules, *topology, qs);
    importers::IncidentImportOptions options;
    options.tick = std::min(step, 5 * model::kNsPerSecond);
    auto severity = importers::parseSeverityMap(o.alertSeverity);
    if (!severity) return std::unexpected("--alert-severity " + severity.error());
    options.alertSeverity = std::move(*severity);
    auto stats = importers::importIncidentWindow(server, *from, *to, step, *rules, topology,
                                                 outPath, progress, cancel, options);
    if (!stats) return std::unexpected(stats.error().toString());
    json summary;
    summary["sources"] = json::array({{{"name", "prometheus " + url},
                                       {"samples", stats->samples},
                                       {"mapped", stats->mapped},
                                       {"unmapped", stats->unmapped},
                                       {"bad_lines", 0},
                                       {"format_warnings", 0},
                                       {"errors", stats->errors},
                                       {"requests", stats->requests},
                                       {"series", stats->series}}});
    summary["alerts"] = stats->alerts;
    summary["ticks"] = stats->ticks;
    summary["recorded_samples"] = stats->mapped;
    summary["first_time"] = model::formatUtc(*from);
    summary["last_time"] = model::formatUtc(*to);
    summary["recording"] = outPath;
    return summary;
}

} // namespace ft::app
