#include "promql_source.h"

#include "importers/floor/floor_file.h"
#include "importers/mapping/mapping_rules.h"
#include "importers/mapping/series_mapper.h"
#include "importers/net/secrets.h"
#include "importers/recording/recording_writer.h"
#include "model/sim_model.h"

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

using json = nlohmann::json;
using model::EntityKind;

// Past this a query goes in a POST body: proxies in front of Thanos and Mimir cut long URLs.
constexpr std::size_t kMaxGetUrl = 4000;

// "1790000000.250": the API's seconds with millisecond precision.
std::string apiSeconds(model::TimeNs t) {
    const long long ms = t / model::kNsPerMs;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%lld.%03lld", ms / 1000, std::llabs(ms % 1000));
    return buf;
}

std::string baseUrl(const std::string& url) {
    std::string b = url;
    while (!b.empty() && b.back() == '/')
        b.pop_back();
    return b;
}

struct ApiCall {
    std::string url;
    std::string body; // empty: GET
};

ApiCall apiCall(const std::string& base, const std::string& endpoint,
                const std::vector<std::pair<std::string, std::string>>& params) {
    std::string form;
    for (const auto& [k, v] : params)
        form += (form.empty() ? "" : "&") + k + "=" + urlEncode(v);
    const std::string url = baseUrl(base) + "/api/v1/" + endpoint;
    if (url.size() + 1 + form.size() <= kMaxGetUrl) return {url + "?" + form, {}};
    return {url, form};
}

void issue(HttpClient& http, const ApiCall& c, const HttpOptions& options, HttpClient::Done done) {
    http.request(c.url, options, std::move(done), c.body,
                 c.body.empty() ? std::string{} : "application/x-www-form-urlencoded");
}

// What one API answer yields, mapped; shared by the live source and the importer.
struct MappedAnswer {
    std::uint64_t points = 0, mapped = 0, unmapped = 0, outOfOrder = 0;
};

MappedAnswer mapResult(const PromqlResult& result, const PromqlQuery& query, SeriesMapper& mapper,
                       const std::unordered_map<std::string, model::EntityId>& rackKeys,
                       std::vector<model::Sample>& out) {
    MappedAnswer a;
    const MapperStats before = mapper.stats();
    std::vector<prom::Label> labels;
    for (const PromqlSeries& s : result.series) {
        a.points += s.points.size();
        if (query.channel) {
            const model::ChannelId channel = *query.channel;
            std::optional<model::EntityId> rack;
            for (const auto& [k, v] : s.labels)
                if (k == query.rackLabel)
                    if (auto it = rackKeys.find(v); it != rackKeys.end()) rack = it->second;
            for (const auto& [time, value] : s.points) {
                if (!rack || !std::isfinite(value)) {
                    ++a.unmapped;
                    continue;
                }
                out.push_back(
                    {time, channel, *rack, static_cast<float>(value * query.scale + query.offset)});
                ++a.mapped;
            }
            continue;
        }
        std::string_view metric;
        labels.clear();
        for (const auto& [k, v] : s.labels) {
            if (k == "__name__")
                metric = v;
            else
                labels.push_back({k, v});
        }
        for (const auto& [time, value] : s.points)
            a.mapped += mapper.map(metric, labels, value, time, out);
    }
    const MapperStats& after = mapper.stats();
    a.unmapped += (after.unmapped - before.unmapped) + (after.unresolved - before.unresolved) +
                  (after.invalid - before.invalid);
    a.outOfOrder += after.outOfOrder - before.outOfOrder;
    return a;
}

// The API's own words for a failed answer, else the transport's or the HTTP status.
std::string failureOf(const HttpResult& r, bool& serverSide) {
    serverSide = r.status == 0 || r.status >= 500 || r.status == 429;
    if (!r.error.empty() || r.status == 0) return r.describeFailure();
    if (auto parsed = parsePromqlResponse(r.body); !parsed)
        return "HTTP " + std::to_string(r.status) + ": " + parsed.error().message;
    return r.describeFailure();
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

std::expected<IncidentImportStats, Error>
importIncidentWindow(const PromqlConfig& server, model::TimeNs from, model::TimeNs to,
                     model::TimeNs step, const MappingRules& rules,
                     const std::shared_ptr<const model::Topology>& topology,
                     const std::string& outPath, const std::function<void(double)>& progress,
                     const std::atomic<bool>* cancel, const IncidentImportOptions& options) {
    auto fail = [&](std::string message) {
        return std::unexpected(Error{std::move(message), outPath, 0, 0, {}});
    };
    if (to <= from)
        return fail("the window is empty (from " + model::formatUtc(from) + " to " +
                    model::formatUtc(to) + ")");
    if (step <= 0 || options.tick <= 0) return fail("the step and the tick must be positive");
    if (server.queries.empty()) return fail("no queries to import (build them with buildQuerySet)");
    auto cancelled = [&] { return cancel && cancel->load(); };

    IncidentImportStats stats;
    SeriesMapper mapper(rules, *topology);
    const auto rackKeys = rackKeysOf(*topology);

    RecordingInfo info;
    info.source =
        "prometheus " + server.url + ", " + model::formatUtc(from) + " to " + model::formatUtc(to);
    info.floorJson = floorSpecToJson(topology->spec());
    info.tick = options.tick;
    info.telemetry = true;
    // A measured value must hold until the next point arrives, however coarse the step.
    info.staleAfter = std::max<model::TimeNs>(30 * model::kNsPerSecond, 3 * step);
    // A short queue: the writer blocks the import rather than holding many floor-sized snapshots.
    auto created = RecordingWriter::create(outPath, topology, info, 8);
    if (!created) return std::unexpected(created.error());
    std::unique_ptr<RecordingWriter> writer = std::move(*created);
    writer->setBlocking(true); // every tick matters more than pace here
    auto discard = [&] {
        writer->close();
        std::error_code ec;
        for (const char* suffix : {"", "-wal", "-shm"})
            std::filesystem::remove(outPath + suffix, ec);
    };

    model::SimConfig config;
    config.startTime = from;
    config.step = options.tick;
    config.telemetry = true;
    config.measurementHold = info.staleAfter;
    config.staleAfter = info.staleAfter;
    model::SimModel sim(topology, config);

    HttpOptions http = server.http;
    http.timeout = server.timeout;
    HttpClient client; // one for the whole import: its connections are reused
    // Slice k asks for the points from + (k*P + i) * step, i < P: every request is bounded to P
    // points per series, and no point is asked for twice.
    const auto perSlice =
        static_cast<model::TimeNs>(std::max<std::size_t>(options.pointsPerRequest, 1));
    const model::TimeNs points = (to - from) / step + 1;
    const auto slices = static_cast<std::size_t>((points + perSlice - 1) / perSlice);
    std::unordered_set<std::uint64_t> seriesSeen;
    std::vector<model::Sample> pending; // fetched, not yet applied; sorted by time
    std::size_t cursor = 0;
    bool started = false;

    auto pushState = [&] {
        auto snapshot = std::make_shared<model::Snapshot>();
        sim.copyTo(*snapshot);
        writer->push(std::move(snapshot));
        ++stats.ticks;
    };
    auto applyUpTo = [&](model::TimeNs limit) {
        model::SampleBatch batch;
        while (cursor < pending.size() && pending[cursor].time <= limit)
            batch.samples.push_back(pending[cursor++]);
        if (!batch.samples.empty()) sim.apply(batch);
    };
    // Steps the twin through every tick that ends by `limit` (all samples up to it are known).
    auto advanceTo = [&](model::TimeNs limit) {
        while (sim.time() < to && sim.time() + options.tick <= limit) {
            applyUpTo(sim.time() + options.tick);
            sim.step();
            pushState();
        }
        pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(cursor));
        cursor = 0;
    };

    std::uint64_t failedRequests = 0;
    for (std::size_t k = 0; k < slices; ++k) {
        const model::TimeNs s0 = from + static_cast<model::TimeNs>(k) * perSlice * step;
        const model::TimeNs s1 = std::min(to, s0 + (perSlice - 1) * step);
        const std::size_t before = pending.size();
        for (std::size_t q = 0; q < server.queries.size(); ++q) {
            const PromqlQuery& query = server.queries[q];
            const ApiCall c = apiCall(server.url, "query_range",
                                      {{"query", query.expr},
                                       {"start", apiSeconds(s0)},
                                       {"end", apiSeconds(s1)},
                                       {"step", apiSeconds(step)}});
            std::optional<PromqlResult> result;
            for (int attempt = 0; attempt <= options.retries && !result; ++attempt) {
                if (cancelled()) break;
                if (attempt > 0) {
                    // Back off before retrying a failing server, still listening for cancel.
                    for (int i = 0; i < 10 * attempt && !cancelled(); ++i)
                        std::this_thread::sleep_for(std::chrono::milliseconds(100));
                }
                ++stats.requests;
                HttpResult r = requestBlocking(
                    client, c.url, http, cancel, c.body,
                    c.body.empty() ? std::string{} : "application/x-www-form-urlencoded");
                if (r.ok() && !r.truncated) {
                    if (auto parsed = parsePromqlResponse(r.body))
                        result = std::move(*parsed);
                    else {
                        stats.lastError = query.name + ": " + parsed.error().message;
                        break; // the server answered: asking again gives the same answer
                    }
                } else if (r.truncated) {
                    stats.lastError = query.name + ": answer over " +
                                      std::to_string(http.maxBodyBytes) +
                                      " bytes (use fewer points per request)";
                    break;
                } else {
                    bool serverSide = false;
                    stats.lastError = query.name + ": " + failureOf(r, serverSide);
                    if (!serverSide) break;
                }
            }
            if (cancelled()) {
                discard();
                return fail("import cancelled");
            }
            if (!result) {
                ++stats.errors;
                ++failedRequests;
                continue;
            }
            for (const PromqlSeries& s : result->series) {
                std::string key = std::to_string(q);
                for (const auto& [n, v] : s.labels)
                    key += "\x1f" + n + "=" + v;
                seriesSeen.insert(std::hash<std::string>{}(key));
            }
            const MappedAnswer a = mapResult(*result, query, mapper, rackKeys, pending);
            stats.samples += a.points;
            stats.unmapped += a.unmapped;
            if (progress)
                progress((static_cast<double>(k) +
                          static_cast<double>(q + 1) / static_cast<double>(server.queries.size())) /
                         static_cast<double>(slices));
        }
        stats.mapped += pending.size() - before;
        std::stable_sort(
            pending.begin(), pending.end(),
            [](const model::Sample& a, const model::Sample& b) { return a.time < b.time; });
        if (!started) {
            // The first frame already shows what was measured at the window's start.
            applyUpTo(from);
            pushState();
            started = true;
        }
        advanceTo(s1);
    }
    if (started) {
        advanceTo(to);
        applyUpTo(to);
    }
    stats.series = seriesSeen.size();
    if (failedRequests == server.queries.size() * slices) {
        discard();
        return fail("no data from " + server.url + ": " + stats.lastError);
    }
    writer->close();
    if (!writer->error().empty()) return fail(writer->error());
    if (progress) progress(1.0);
    return stats;
}

} // namespace ft::importers
