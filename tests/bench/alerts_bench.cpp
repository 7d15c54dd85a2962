#include "alerts_bench.h"

#include "importers/floor/floor_file.h"
#include "importers/formats/alertmanager_json.h"
#include "importers/mapping/alert_placement.h"
#include "importers/mapping/entity_name_index.h"
#include "importers/sources/alertmanager_source.h"
#include "model/external_alert.h"
#include "model/sim_core.h"
#include "support/loopback_server.h"

#include <QCoreApplication>
#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

namespace ft {

namespace {

using nlohmann::json;

double median(std::vector<double> v) {
    std::ranges::sort(v);
    return v.empty() ? 0 : v[v.size() / 2];
}

std::shared_ptr<const model::Topology> bigFloor() {
    auto built = model::Topology::build(importers::generateFloor(1778));
    if (!built) std::abort();
    return std::make_shared<const model::Topology>(std::move(*built));
}

// 10,000 alerts as /api/v2/alerts gives them and 1,000 silences: a few rules firing on many
// hosts, each alert with its labels, annotations and receivers; every tenth on a host the floor
// lacks; the silences each muting the alerts of one host.
std::pair<std::string, std::string> answers(const model::Topology& t) {
    const char* rules[] = {"GpuXidErrors", "GpuHot", "NodeDown", "NvlinkCrcErrors", "DiskFull"};
    json alerts = json::array(), silences = json::array();
    const std::size_t trays = t.count(model::EntityKind::ComputeTray);
    for (int i = 0; i < 10000; ++i) {
        const std::size_t tray = (static_cast<std::size_t>(i) * 7919) % trays;
        const std::string host = i % 10 == 9 ? "elsewhere-" + std::to_string(i)
                                             : t.hostName(static_cast<model::EntityId>(tray));
        const bool silenced = i % 10 == 3;
        char fp[17];
        std::snprintf(fp, sizeof fp, "%016x", i * 2654435761u);
        json a = {{"labels",
                   {{"alertname", rules[i % 5]},
                    {"instance", host + ":9400"},
                    {"Hostname", host},
                    {"gpu", std::to_string(i % 4)},
                    {"job", "dcgm-exporter"},
                    {"severity", i % 3 == 0 ? "critical" : "warning"}}},
                  {"annotations",
                   {{"summary", std::string(rules[i % 5]) + " on " + host},
                    {"runbook_url", "https://runbooks.example.net/" + std::string(rules[i % 5])}}},
                  {"startsAt", "2026-12-07T03:22:41.123Z"},
                  {"endsAt", "2026-12-07T04:22:41.123Z"},
                  {"updatedAt", "2026-12-07T03:27:41.123Z"},
                  {"generatorURL", "http://prometheus:9090/graph?g0.expr=x"},
                  {"fingerprint", fp},
                  {"receivers", json::array({{{"name", "noc"}}})},
                  {"status",
                   {{"state", silenced ? "suppressed" : "active"},
                    {"silencedBy",
                     silenced ? json::array({"s-" + std::to_string(i % 1000)}) : json::array()},
                    {"inhibitedBy", json::array()}}}};
        alerts.push_back(std::move(a));
    }
    for (int s = 0; s < 1000; ++s)
        silences.push_back({{"id", "s-" + std::to_string(s)},
                            {"status", {{"state", "active"}}},
                            {"createdBy", "noc-" + std::to_string(s % 7)},
                            {"comment", "planned work CHG-" + std::to_string(4000 + s)},
                            {"startsAt", "2026-12-07T01:00:00.000Z"},
                            {"endsAt", "2026-12-07T09:00:00.000Z"},
                            {"updatedAt", "2026-12-07T01:00:00.000Z"},
                            {"matchers", json::array({{{"name", "instance"},
                                                       {"value", "x" + std::to_string(s)},
                                                       {"isRegex", false},
                                                       {"isEqual", true}}})}});
    return {alerts.dump(), silences.dump()};
}

} // namespace

void benchAlertPoll(const Figure& figure) {
    const auto floor = bigFloor();
    const auto [alertsBody, silencesBody] = answers(*floor);
    testing::PageServer server([&](const testing::PageServer::Request& r) {
        if (r.target.starts_with("/api/v2/alerts"))
            return testing::PageServer::Response{200, alertsBody, "application/json"};
        return testing::PageServer::Response{200, silencesBody, "application/json"};
    });
    importers::AlertmanagerConfig config =
        *importers::parseAlertmanagerSpec("http://127.0.0.1:" + std::to_string(server.port()));
    importers::HttpClient client;
    importers::EntityNameIndex index(*floor);
    std::vector<double> poll, fetch;
    std::size_t placed = 0;
    for (int round = 0; round < 12; ++round) {
        auto t0 = std::chrono::steady_clock::now();
        const auto read = importers::readAlertmanagerOnce(config, client, index);
        auto t1 = std::chrono::steady_clock::now();
        if (!read.error.empty() || read.answer.alerts.size() != 10000) {
            std::fprintf(stderr, "floortwin-bench: alerts poll failed: %s\n", read.error.c_str());
            std::exit(1);
        }
        placed = static_cast<std::size_t>(std::ranges::count_if(
            read.answer.alerts, [](const auto& a) { return !a.entities.empty(); }));
        // The same two requests, bodies only: what the network and HTTP cost of it.
        auto t2 = std::chrono::steady_clock::now();
        importers::HttpOptions o;
        o.maxBodyBytes = 256u << 20;
        (void)importers::requestBlocking(client, config.url + "/api/v2/alerts?active=true", o);
        (void)importers::requestBlocking(client, config.url + "/api/v2/silences", o);
        auto t3 = std::chrono::steady_clock::now();
        if (round < 2) continue; // warm-up: the index's tables, the connection
        poll.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        fetch.push_back(std::chrono::duration<double, std::milli>(t3 - t2).count());
    }
    // Where a poll goes: the parse of the alerts' answer, and the placement of what it read.
    std::vector<double> parse, place;
    for (int round = 0; round < 7; ++round) {
        auto t0 = std::chrono::steady_clock::now();
        auto parsed = importers::parseAlertmanagerAlerts(alertsBody, "bench");
        auto t1 = std::chrono::steady_clock::now();
        importers::placeAlerts(parsed->alerts, index);
        auto t2 = std::chrono::steady_clock::now();
        parse.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        place.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
    }
    figure("alerts.parse_ms.alerts10000", median(parse), "ms");
    figure("alerts.place_ms.alerts10000", median(place), "ms");
    figure("alerts.poll_ms.alerts10000", median(poll), "ms");
    figure("alerts.fetch_ms.alerts10000", median(fetch), "ms");
    figure("alerts.poll_vs_fetch", median(poll) / median(fetch), "x");
    figure("alerts.answer_mb.alerts10000", static_cast<double>(alertsBody.size()) / 1e6, "MB");
    figure("alerts.placed.alerts10000", static_cast<double>(placed), "alerts");
}

void benchAlertFrames(const Figure& figure,
                      const std::function<double(views::FloorView&, int)>& frameMs) {
    const auto floor = bigFloor();
    model::SimCore core(floor, {});
    // The alerts as the source would deliver them: read from the same answers, placed.
    const auto [alertsBody, silencesBody] = answers(*floor);
    auto parsed = importers::parseAlertmanagerAlerts(alertsBody, "bench");
    auto silences = importers::parseAlertmanagerSilences(silencesBody, "bench");
    importers::attachSilences(parsed->alerts, silences->silences);
    importers::EntityNameIndex index(*floor);
    auto board = std::make_shared<model::AlertBoard>();
    for (auto& a : parsed->alerts) {
        a.severity = importers::severityOf(a, {});
        board->alerts.push_back(std::move(a));
    }
    importers::placeAlerts(board->alerts, index);
    auto with = std::make_shared<model::Snapshot>(*core.latest());
    with->externalAlerts = board;
    auto without = std::make_shared<model::Snapshot>(*core.latest());
    without->externalAlerts = std::make_shared<model::AlertBoard>();
    auto viewOf = [&](const std::shared_ptr<const model::Snapshot>& snap) {
        auto view = std::make_unique<views::FloorView>(floor, [snap] { return snap; });
        view->setFinishEachFrame(true);
        view->setShowFrameStats(false);
        view->resize(1280, 720);
        view->show();
        QCoreApplication::processEvents();
        view->setLayerVisible("alerts", true);
        return view;
    };
    auto a = viewOf(with), b = viewOf(without);
    std::vector<double> withMs, withoutMs;
    for (int block = 0; block < 4; ++block) {
        b->hide();
        a->show();
        QCoreApplication::processEvents();
        withMs.push_back(frameMs(*a, 20));
        a->hide();
        b->show();
        QCoreApplication::processEvents();
        withoutMs.push_back(frameMs(*b, 20));
    }
    figure("alerts.frame_ms.racks1778.alerts10000", median(withMs), "ms");
    figure("alerts.frame_ms.racks1778.none", median(withoutMs), "ms");
    figure("alerts.frame_ratio.racks1778", median(withMs) / median(withoutMs), "x");
}

} // namespace ft
