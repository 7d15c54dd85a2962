#include "source_kinds.h"

#include "check_source.h"
#include "importers/sources/alertmanager_source.h"
#include "importers/sources/mqtt_source.h"
#include "importers/sources/promql_source.h"
#include "importers/sources/redfish_source.h"
#include "importers/sources/scrape_source.h"
#include "importers/sources/slurm_source.h"
#include "live_sources.h"

#include <algorithm>

namespace ft::app {

namespace {

using namespace std::chrono_literals;

BuiltSource buildScrape(const std::string& target, const SourceBuild& b) {
    auto urls = importers::parseScrapeSpec(target);
    if (!urls) return std::unexpected("--source scrape=: " + urls.error());
    auto rules = rulesFor(b.options, b.rules);
    if (!rules) return std::unexpected(rules.error());
    importers::ScrapeConfig config;
    config.urls = *urls;
    config.interval = b.interval;
    config.http = b.http;
    config.sourceId = b.sourceId;
    return std::make_unique<importers::ScrapeSource>(config, std::move(*rules), b.topology,
                                                     b.submit);
}

BuiltSource buildPrometheus(const std::string& target, const SourceBuild& b) {
    auto rules = rulesFor(b.options, b.rules);
    if (!rules) return std::unexpected(rules.error());
    importers::PromqlConfig config;
    config.url = target;
    config.interval = b.interval;
    config.http = b.http;
    config.sourceId = b.sourceId;
    // Per-rack aggregation on the server for big floors; raw device series on small ones.
    importers::QuerySetOptions qs;
    qs.perDevice = b.topology->count(model::EntityKind::Gpu) <= 4096;
    config.queries = importers::buildQuerySet(*rules, *b.topology, qs);
    return std::make_unique<importers::PromqlSource>(config, std::move(*rules), b.topology,
                                                     b.submit);
}

BuiltSource buildMqtt(const std::string& target, const SourceBuild& b) {
    auto brokers = importers::parseMqttSpec(target);
    if (!brokers) return std::unexpected("--source mqtt=: " + brokers.error());
    auto rules = rulesFor(b.options, b.rules);
    if (!rules) return std::unexpected(rules.error());
    importers::MqttConfig config;
    config.brokers = *brokers;
    config.sourceId = b.sourceId;
    config.caFile = b.options.caFile;
    config.insecureSkipVerify = b.options.insecure;
    config.username = b.http.basicUser;
    config.password = b.http.basicPassword;
    return std::make_unique<importers::MqttSource>(config, *rules, b.topology, b.submit);
}

BuiltSource buildRedfish(const std::string& target, const SourceBuild& b) {
    auto services = importers::parseRedfishSpec(target);
    if (!services) return std::unexpected("--source redfish=: " + services.error());
    auto rules = rulesFor(b.options, b.rules);
    if (!rules) return std::unexpected(rules.error());
    importers::RedfishConfig config;
    config.services = *services;
    config.interval = b.interval;
    // Redfish logs in itself (a session, or Basic where there is no session service).
    config.http = b.http;
    config.http.bearerToken.clear();
    config.http.basicUser.clear();
    config.http.basicPassword.clear();
    config.sourceId = b.sourceId;
    if (!b.http.basicUser.empty()) {
        config.auth = importers::RedfishAuth::Session;
        config.user = b.http.basicUser;
        config.password = b.http.basicPassword;
    } else if (!b.http.bearerToken.empty()) {
        config.auth = importers::RedfishAuth::Token;
        config.token = b.http.bearerToken;
    }
    return std::make_unique<importers::RedfishSource>(config, std::move(*rules), b.topology,
                                                      b.submit);
}

BuiltSource buildSlurm(const std::string& target, const SourceBuild& b) {
    auto config = importers::parseSlurmSpec(target);
    if (!config) return std::unexpected("--source " + config.error());
    config->interval = b.interval;
    config->http = b.http; // the token goes as slurmrestd's own header
    config->user = b.http.basicUser;
    config->http.basicUser.clear();
    config->http.basicPassword.clear();
    config->sourceId = b.sourceId;
    return std::make_unique<importers::SlurmSource>(std::move(*config), b.topology, b.submit);
}

BuiltSource buildAlertmanager(const std::string& target, const SourceBuild& b) {
    auto config = importers::parseAlertmanagerSpec(target);
    if (!config) return std::unexpected("--source " + config.error());
    auto severity = importers::parseSeverityMap(b.options.alertSeverity);
    if (!severity) return std::unexpected("--alert-severity " + severity.error());
    config->severity = std::move(*severity);
    config->interval = b.interval;
    config->http = b.http;
    config->sourceId = b.sourceId;
    return std::make_unique<importers::AlertmanagerSource>(std::move(*config), b.topology,
                                                           b.submit);
}

const SourceKind kKinds[] = {
    {"scrape", "scrape=URL[,URL...]",
     "poll exporters (dcgm-exporter: host -> http://host:9400/metrics)", 1s,
     "dcgm-exporter+switch-ports", buildScrape, checkScrape},
    {"prometheus", "prometheus=URL",
     "a Prometheus HTTP API (also Thanos, Mimir, VictoriaMetrics);\nthe queries aggregate per "
     "rack on the server",
     5s, "dcgm-exporter+switch-ports", buildPrometheus, nullptr, true},
    {"mqtt", "mqtt=HOST[:PORT][,HOST[:PORT]...]",
     "the building-management bus (BMS/v1/PUB/Value/Rack/...)", 0s, "bms", buildMqtt},
    {"redfish", "redfish=URL[,URL...]",
     "Redfish services of CDUs, power shelves, PDUs and busways\n(host -> "
     "https://host/redfish/v1; --source may be given several times)",
     10s, "redfish", buildRedfish},
    {"slurm", "slurm=commands|URL|FILE,FILE",
     "the workload scheduler: each node's state, reason and jobs\n(commands: sinfo and squeue "
     "--json from PATH, or commands:DIR;\nURL: slurmrestd; FILEs: their saved answers)",
     10s, "", buildSlurm, checkSlurm, false, true},
    {"alertmanager", "alertmanager=URL",
     "Alertmanager's alerts and silences, each on its rack, GPU or CDU\n(http://host:9093; "
     "--source may be given several times)",
     5s, "", buildAlertmanager, checkAlertmanager, false, false, true, "alerts"},
};

std::string listed(const std::vector<std::string>& items) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
    return out;
}

} // namespace

std::span<const SourceKind> sourceKinds() {
    return kKinds;
}

const SourceKind* findSourceKind(std::string_view scheme) {
    const auto it = std::ranges::find(kKinds, scheme, &SourceKind::scheme);
    return it == std::end(kKinds) ? nullptr : &*it;
}

std::string sourceSyntaxList() {
    std::vector<std::string> forms;
    for (const auto& k : kKinds)
        forms.emplace_back(k.syntax);
    return listed(forms);
}

std::optional<SourceSpec> windowSourceOf(const Options& o) {
    for (const auto& text : o.sources)
        if (auto spec = parseSourceSpec(text); spec && findSourceKind(spec->kind)->importsWindows)
            return *spec;
    return std::nullopt;
}

const SourceKind& windowSourceKind() {
    return *std::ranges::find_if(kKinds, &SourceKind::importsWindows);
}

std::string windowSourceList() {
    std::vector<std::string> forms;
    for (const auto& k : kKinds)
        if (k.importsWindows) forms.emplace_back(k.syntax);
    return listed(forms);
}

bool hasSchedulerSource(const Options& o) {
    return std::ranges::any_of(o.sources, [](const std::string& text) {
        const auto spec = parseSourceSpec(text);
        return spec && findSourceKind(spec->kind)->schedules;
    });
}

std::string schedulerSourceList() {
    std::vector<std::string> forms;
    for (const auto& k : kKinds)
        if (k.schedules) forms.emplace_back(k.syntax);
    return listed(forms);
}

bool hasAlertingSource(const Options& o) {
    return std::ranges::any_of(o.sources, [](const std::string& text) {
        const auto spec = parseSourceSpec(text);
        return spec && findSourceKind(spec->kind)->alerting;
    });
}

std::string alertingSourceList() {
    std::vector<std::string> forms;
    for (const auto& k : kKinds)
        if (k.alerting) forms.emplace_back(k.syntax);
    return listed(forms);
}

std::vector<std::string> sourceLayers(const Options& o) {
    std::vector<std::string> out;
    for (const auto& text : o.sources)
        if (const auto spec = parseSourceSpec(text))
            if (const auto layer = findSourceKind(spec->kind)->layer;
                !layer.empty() && std::ranges::find(out, layer) == out.end())
                out.emplace_back(layer);
    return out;
}

std::string sourceIntervalList() {
    std::string out;
    for (const auto& k : kKinds)
        if (k.interval.count() > 0)
            out += (out.empty() ? "" : ", ") + std::to_string(k.interval.count() / 1000) + "s " +
                   std::string(k.scheme);
    return out;
}

std::string checkableSourceList() {
    std::vector<std::string> forms;
    for (const auto& k : kKinds)
        if (k.check) forms.emplace_back(k.syntax);
    return listed(forms);
}

} // namespace ft::app
