#include "promql_source.h"

#include "importers/floor/floor_file.h"
#include "importers/mapping/mapping_rules.h"
#include "importers/mapping/series_mapper.h"
#include "importers/net/secrets.h"
#include "importers/recording/recording_writer.h"
#include "model/sim_model.h"
#include "promql_api.h"

#include <QTimer>
#include <QUrl>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ranges>
#include <regex>
#include <thread>
#include <unordered_set>

namespace ft::importers {

namespace {

using model::EntityKind;
using promql_api::apiCall;
using promql_api::ApiCall;
using promql_api::failureOf;
using promql_api::MappedAnswer;
using promql_api::mapResult;

void issue(HttpClient& http, const ApiCall& c, const HttpOptions& options, HttpClient::Done done) {
    http.request(c.url, options, std::move(done), c.body,
                 c.body.empty() ? std::string{} : "application/x-www-form-urlencoded");
}

std::string hostPortOf(const std::string& url) {
    const QUrl u(QString::fromStdString(url));
    return u.host().toStdString() + ":" +
           std::to_string(u.port(u.scheme() == QLatin1String("https") ? 443 : 80));
}

} // namespace

PromqlSource::PromqlSource(PromqlConfig config, MappingRules rules,
                           std::shared_ptr<const model::Topology> topology, SubmitFn submit)
    : m_config(std::move(config)), m_topology(std::move(topology)),
      m_mapper(std::make_unique<SeriesMapper>(std::move(rules), *m_topology)),
      m_rackKeys(rackKeysOf(*m_topology)), m_submit(std::move(submit)), m_loop("promql") {
    m_health.name = "prometheus " + hostPortOf(m_config.url);
    m_health.url = redactUrl(m_config.url);
    m_health.targetsTotal = static_cast<int>(m_config.queries.size());
}

PromqlSource::~PromqlSource() {
    stop();
}

void PromqlSource::start() {
    if (m_loop.running()) return;
    m_loop.start([this] { setupOnThread(); });
}

void PromqlSource::stop() {
    m_loop.stop([this] { teardownOnThread(); });
}

std::vector<FamilyMapping> PromqlSource::mappingReport() const {
    std::lock_guard lock(m_mutex);
    return m_mapping;
}

std::vector<NameCount> PromqlSource::unknownHosts() const {
    std::lock_guard lock(m_mutex);
    return m_unknownHosts;
}

std::vector<SourceHealth> PromqlSource::health() const {
    std::lock_guard lock(m_mutex);
    return {m_health};
}

void PromqlSource::setupOnThread() {
    m_http = std::make_unique<HttpClient>();
    m_timer = std::make_unique<QTimer>();
    m_timer->setSingleShot(true);
    QObject::connect(m_timer.get(), &QTimer::timeout, m_loop.context(), [this] { startRound(); });
    m_pending = 0;
    m_timer->start(0);
}

void PromqlSource::teardownOnThread() {
    m_http.reset();
    m_timer.reset();
    m_pending = 0;
}

void PromqlSource::startRound() {
    if (m_pending > 0 || !m_http) return;
    if (m_config.queries.empty()) {
        std::lock_guard lock(m_mutex);
        m_health.state = SourceState::Down;
        m_health.lastError =
            "no queries to run (the mapping rules feed nothing this source can ask for)";
        return;
    }
    m_roundStarted = std::chrono::steady_clock::now();
    m_pending = m_config.queries.size();
    m_answered = m_failedTransport = m_failedQuery = 0;
    m_roundError.clear();
    m_roundWarning.clear();
    {
        std::lock_guard lock(m_mutex);
        ++m_health.polls;
    }
    HttpOptions options = m_config.http;
    options.timeout = m_config.timeout;
    for (std::size_t i = 0; i < m_config.queries.size(); ++i) {
        const ApiCall c = apiCall(m_config.url, "query", {{"query", m_config.queries[i].expr}});
        issue(*m_http, c, options, [this, i](const HttpResult& r) { finished(i, r); });
    }
}

void PromqlSource::finished(std::size_t index, const HttpResult& r) {
    const PromqlQuery& query = m_config.queries[index];
    std::optional<PromqlResult> result;
    if (r.ok() && !r.truncated) {
        auto parsed = parsePromqlResponse(r.body);
        if (parsed)
            result = std::move(*parsed);
        else {
            ++m_failedQuery;
            m_roundError = query.name + ": " + parsed.error().message;
        }
    } else if (r.truncated) {
        ++m_failedQuery;
        m_roundError = query.name + ": answer over " + std::to_string(m_config.http.maxBodyBytes) +
                       " bytes (ask for less: racks in detail instead of every device)";
    } else {
        bool serverSide = false;
        const std::string why = failureOf(r, serverSide);
        (serverSide ? m_failedTransport : m_failedQuery) += 1;
        m_roundError = serverSide ? why : query.name + ": " + why;
    }

    if (result && result->warningCount > 0 && m_roundWarning.empty()) {
        // Thanos/Mimir "partial response", a store that did not answer: the data may have holes.
        m_roundWarning = query.name + ": the server warns: " + result->warnings.front();
        if (result->warningCount > 1)
            m_roundWarning += " (and " + std::to_string(result->warningCount - 1) + " more)";
    }
    if (result) {
        ++m_answered;
        m_scratch.clear();
        const MappedAnswer a = mapResult(*result, query, *m_mapper, m_rackKeys, m_scratch);
        const std::uint64_t mapped = m_scratch.size();
        for (const auto& placed : m_mapper->takePlacements(r.receivedAt))
            m_scratch.push_back(placed);
        const std::uint64_t dropped =
            submitInBatches(m_submit, m_config.sourceId, m_scratch, m_config.maxBatchSamples);
        // The jobs and slices that changed; the mapping report every few seconds.
        auto mapping = m_mapper->handOnNews(m_submit, m_config.sourceId, m_mappingAt);
        std::lock_guard lock(m_mutex);
        if (mapping) m_mapping = std::move(*mapping);
        if (a.unmapped > 0) {
            m_unknownHosts = m_mapper->topUnknownHosts(10);
            m_health.unresolved = m_mapper->topUnresolved(10);
        }
        m_health.conditions.clear();
        for (const auto& moved : m_mapper->topMovedGpus(10))
            m_health.conditions.push_back("GPU moved? " + moved.name);
        m_health.samples += a.points;
        m_health.mapped += mapped;
        m_health.unmapped += a.unmapped;
        m_health.outOfOrder += a.outOfOrder;
        m_health.dropped += dropped;
        m_health.lastLatencyMs = r.latencyMs;
        m_health.lastSuccess = r.receivedAt;
    } else {
        std::lock_guard lock(m_mutex);
        ++m_health.errors;
        m_health.lastLatencyMs = r.latencyMs;
    }
    if (--m_pending == 0) endRound();
}

void PromqlSource::endRound() {
    const bool serverFailed = m_answered == 0 && m_failedTransport > 0;
    if (serverFailed)
        ++m_failures;
    else {
        m_failures = 0;
        m_everAnswered = true;
    }
    {
        std::lock_guard lock(m_mutex);
        m_health.targetsUp = static_cast<int>(m_answered);
        m_health.targetsTotal = static_cast<int>(m_config.queries.size());
        if (!m_roundError.empty())
            m_health.lastError = m_roundError;
        else if (!m_roundWarning.empty())
            m_health.lastError = m_roundWarning;
        if (serverFailed)
            m_health.state = m_failures >= m_config.downAfterFailures ? SourceState::Down
                             : m_everAnswered                         ? SourceState::Degraded
                                                                      : SourceState::Connecting;
        else
            m_health.state = m_answered == m_config.queries.size() && m_roundWarning.empty()
                                 ? SourceState::Up
                             : m_answered > 0 ? SourceState::Degraded
                                              : SourceState::Down;
    }
    if (!m_timer) return;
    if (serverFailed) {
        const int shift = std::min(m_failures - 1, 20);
        m_timer->start(std::max(m_config.interval,
                                std::min(m_config.maxBackoff, m_config.interval * (1L << shift))));
    } else {
        const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::steady_clock::now() - m_roundStarted);
        m_timer->start(std::max(std::chrono::milliseconds(0), m_config.interval - elapsed));
    }
}

} // namespace ft::importers
