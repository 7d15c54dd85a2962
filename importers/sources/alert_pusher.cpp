#include "alert_pusher.h"

#include "importers/net/http_client.h"
#include "importers/net/secrets.h"
#include "importers/net/wall_clock.h"

#include <algorithm>

namespace ft::importers {

namespace {

// Critical when a critical alarm stands on a rack the incident reached, else warning.
std::string severityOf(const model::Incident& inc, const model::Snapshot& s,
                       const model::Topology& t, std::optional<model::EntityId> rack) {
    for (const auto& a : s.alarms) {
        if (a.severity != model::Severity::Critical) continue;
        const auto r = a.kind == model::EntityKind::Rack ? std::optional(a.entity)
                                                         : t.rackOf(a.kind, a.entity);
        if (r && rack && *r == *rack) return "critical";
        if (a.kind == inc.root.kind && a.entity == inc.root.id) return "critical";
    }
    return "warning";
}

} // namespace

std::vector<PostedAlert> incidentAlerts(const model::Snapshot& s, const model::Topology& t,
                                        model::TimeNs now, model::TimeNs hold,
                                        std::map<std::uint32_t, bool>& open) {
    std::vector<PostedAlert> out;
    std::map<std::uint32_t, bool> nowOpen;
    if (!s.incidents) return out;
    for (const auto& inc : *s.incidents) {
        const bool isOpen = inc.end == 0;
        if (!isOpen && !open.contains(inc.id)) continue; // ended before we said anything
        const auto rack = inc.root.kind == model::EntityKind::Rack
                              ? std::optional(inc.root.id)
                              : t.rackOf(inc.root.kind, inc.root.id);
        PostedAlert a;
        a.labels = {{"alertname", "FloortwinCause"},
                    {"cause", std::string(model::causeDomainName(inc.domain))},
                    {"incident", std::to_string(inc.id)},
                    {"severity", severityOf(inc, s, t, rack)},
                    {"source", "floortwin"}};
        if (rack) {
            a.labels.emplace_back("rack", t.racks.name[*rack]);
            a.labels.emplace_back("row", t.name(model::EntityKind::Row, t.racks.row[*rack]));
        } else if (inc.root.kind == model::EntityKind::Cdu ||
                   inc.root.kind == model::EntityKind::Pump) {
            const auto cdu =
                inc.root.kind == model::EntityKind::Cdu ? inc.root.id : t.pumps.cdu[inc.root.id];
            a.labels.emplace_back("cdu", t.name(model::EntityKind::Cdu, cdu));
        }
        std::ranges::sort(a.labels);
        a.annotations = {{"summary", inc.rootText}, {"description", inc.summary()}};
        if (!inc.jobs.empty()) {
            std::string jobs;
            for (const auto& j : inc.jobs)
                jobs += (jobs.empty() ? "" : ", ") + j;
            a.annotations.emplace_back("jobs", jobs);
        }
        if (inc.racks > 0) a.annotations.emplace_back("racks", std::to_string(inc.racks));
        // The simulator may run ahead of the wall clock: Alertmanager's times are the wall's.
        a.startsAt = std::min(inc.start, now);
        a.endsAt = isOpen ? now + hold : now;
        out.push_back(std::move(a));
        if (isOpen) nowOpen[inc.id] = true;
    }
    open = std::move(nowOpen);
    return out;
}

AlertPusher::AlertPusher(AlertmanagerConfig target, std::chrono::milliseconds interval,
                         std::shared_ptr<const model::Topology> topology, Latest latest)
    : m_target(std::move(target)), m_interval(interval), m_topology(std::move(topology)),
      m_latest(std::move(latest)) {
    m_health.name = "push to " + alertmanagerName(m_target);
    m_health.url = redactUrl(m_target.url) + "/api/v2/alerts";
    m_health.targetsTotal = 1;
}

AlertPusher::~AlertPusher() {
    stop();
}

void AlertPusher::start() {
    m_poller.start(m_interval, [this] { return [this] { pushOnce(); }; });
}

void AlertPusher::stop() {
    m_poller.stop();
}

void AlertPusher::pushOnce() {
    const auto snap = m_latest ? m_latest() : nullptr;
    if (!snap) return;
    // Three intervals ahead: one lost push does not resolve a cause that still holds.
    const model::TimeNs hold =
        3 * std::chrono::duration_cast<std::chrono::nanoseconds>(m_interval).count();
    auto open = m_open;
    const auto alerts = incidentAlerts(*snap, *m_topology, wallNow(), hold, open);
    if (alerts.empty()) {
        m_open = std::move(open);
        std::lock_guard lock(m_mutex);
        if (m_health.state == SourceState::Connecting) m_health.state = SourceState::Up;
        return;
    }
    const auto started = std::chrono::steady_clock::now();
    const auto posted = postAlerts(m_target, alerts);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    std::lock_guard lock(m_mutex);
    ++m_health.polls;
    m_health.lastLatencyMs = ms;
    if (!posted) {
        // Kept as it was: the ended ones are sent again next time.
        ++m_health.errors;
        m_health.lastError = posted.error();
        m_health.state = SourceState::Down;
        m_health.targetsUp = 0;
        return;
    }
    m_open = std::move(open);
    m_health.samples += alerts.size();
    m_health.mapped += alerts.size();
    m_health.lastSuccess = wallNow();
    m_health.state = SourceState::Up;
    m_health.targetsUp = 1;
    m_health.conditions = {std::to_string(m_open.size()) + " open causes sent"};
}

std::vector<SourceHealth> AlertPusher::health() const {
    std::lock_guard lock(m_mutex);
    return {m_health};
}

} // namespace ft::importers
