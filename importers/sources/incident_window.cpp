// The incident window (--import-window, File > Import incident window): a time window pulled
// from a Prometheus-compatible server with /api/v1/query_range in bounded slices, driven through
// the twin tick by tick into a recording, with the floor's alerts of that window
// (ALERTS{alertstate="firing"}, ALERTS_FOR_STATE) as they fired and resolved.
#include "importers/floor/floor_file.h"
#include "importers/mapping/alert_history.h"
#include "importers/recording/recording_writer.h"
#include "model/sim_model.h"
#include "promql_api.h"
#include "promql_source.h"

#include <algorithm>
#include <filesystem>
#include <thread>
#include <unordered_set>

namespace ft::importers {

using promql_api::apiCall;
using promql_api::ApiCall;
using promql_api::apiSeconds;
using promql_api::failureOf;
using promql_api::MappedAnswer;
using promql_api::mapResult;

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

    // The floor's alerts over the window, from the server's own ALERTS series. A server that
    // answers with none had none firing (an empty board); one that cannot answer leaves the
    // recording without a board, as a floor without alerting.
    AlertHistory alertHistory(*topology, options.alertSeverity,
                              "prometheus " + promql_api::baseUrl(server.url) + " (ALERTS)");
    bool alertsAnswered = false;
    auto fetchAlerts = [&](model::TimeNs s0, model::TimeNs s1) {
        struct Query {
            const char* expr;
            bool firing; // ALERTS (which fire when), else ALERTS_FOR_STATE (since when)
        };
        for (const auto& [expr, firing] :
             {Query{"ALERTS{alertstate=\"firing\"}", true}, Query{"ALERTS_FOR_STATE", false}}) {
            const ApiCall c = apiCall(server.url, "query_range",
                                      {{"query", expr},
                                       {"start", apiSeconds(s0)},
                                       {"end", apiSeconds(s1)},
                                       {"step", apiSeconds(step)}});
            ++stats.requests;
            HttpResult r = requestBlocking(client, c.url, http, cancel, c.body,
                                           c.body.empty() ? std::string{}
                                                          : "application/x-www-form-urlencoded");
            bool serverSide = false;
            auto parsed = !r.ok() ? std::unexpected(Error{failureOf(r, serverSide), {}, 0, 0, {}})
                          : r.truncated
                              ? std::unexpected(Error{"answer cut at the size cap", {}, 0, 0, {}})
                              : parsePromqlResponse(r.body);
            if (!parsed) {
                stats.lastError = std::string(expr) + ": " + parsed.error().message;
                ++stats.errors;
                continue;
            }
            if (firing) {
                alertHistory.addFiring(*parsed);
                alertsAnswered = true;
            } else {
                alertHistory.addActiveSince(*parsed);
            }
        }
    };
    constexpr std::uint16_t kAlertsSource = 0xFFFE; // the window's alerts, as one source

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
            if (alertsAnswered)
                if (auto board = alertHistory.changedAt(sim.time() + options.tick, step)) {
                    model::SampleBatch b;
                    b.source = kAlertsSource;
                    b.alerts = std::move(board);
                    sim.apply(b);
                }
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
        if (!cancelled()) fetchAlerts(s0, s1);
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
    stats.alerts = alertHistory.alerts();
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
