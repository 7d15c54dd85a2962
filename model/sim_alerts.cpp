// SimModel and the floor's own alerting (Alertmanager sources): nothing here is modelled. Each
// source sends its whole list at every poll; the lists are merged into the snapshot's board, and
// what changed since a source's previous list is an event on the timeline: an alert fired (or
// arrived muted), resolved, was silenced, inhibited or unsilenced.
#include "external_alert.h"
#include "sim_model.h"

#include <algorithm>
#include <iterator>
#include <unordered_map>

namespace ft::model {

namespace {

// "GpuXidErrors on a01-n03: GPU fell off the bus" (the summary when the rule gives one).
std::string alertWords(const ExternalAlert& a, const Topology& t) {
    std::string out = a.name.empty() ? std::string("alert") : a.name;
    if (!a.entities.empty()) out += " on " + t.name(a.entities.front().kind, a.entities.front().id);
    const std::string_view summary = a.annotation("summary");
    if (!summary.empty()) out += ": " + std::string(summary);
    return out;
}

std::string silenceWords(const ExternalAlert& a) {
    if (a.state == AlertState::Inhibited) return " (inhibited by another alert)";
    if (a.silences.empty()) return a.mutedBy.empty() ? std::string() : " (mute time interval)";
    const SilenceNote& s = a.silences.front();
    std::string out = " by " + (s.createdBy.empty() ? std::string("someone") : s.createdBy);
    if (s.endsAt > 0) out += " until " + formatUtc(s.endsAt).substr(0, 16);
    if (!s.comment.empty()) out += ": " + s.comment;
    return out;
}

} // namespace

void SimModel::applyAlerts(std::uint16_t source, const std::shared_ptr<const AlertBoard>& board) {
    std::shared_ptr<const AlertBoard>& slot = m_alertsBySource[source];
    std::unordered_map<std::string_view, const ExternalAlert*> before;
    if (slot)
        for (const auto& a : slot->alerts)
            before.emplace(a.fingerprint, &a);
    const TimeNs at = m_state.time;
    // A source's first list on a big floor, or a storm: one event says how many changed
    // instead of thousands that would push every other event out of the log.
    constexpr std::size_t kEventsPerList = 200;
    std::vector<Event> events;
    auto event = [&](const ExternalAlert& a, Severity severity, std::string text) {
        const EntityRef where =
            a.entities.empty() ? EntityRef{EntityKind::Region, 0} : a.entities.front();
        events.push_back({at, EventKind::Alert, where, severity, std::move(text)});
    };
    for (const auto& a : board->alerts) {
        const auto it = before.find(a.fingerprint);
        const ExternalAlert* was = it == before.end() ? nullptr : it->second;
        if (was) before.erase(it);
        const std::string what = "Alertmanager: " + alertWords(a, *m_topology);
        if (!was) {
            if (alertMuted(a.state))
                event(a, Severity::Info,
                      what + " (" + std::string(alertStateName(a.state)) + silenceWords(a) + ")");
            else
                event(a, a.severity, what + " firing");
        } else if (was->state != a.state) {
            if (alertMuted(a.state))
                event(a, Severity::Info,
                      what + " " + std::string(alertStateName(a.state)) + silenceWords(a));
            else if (alertMuted(was->state))
                event(a, a.severity, what + " unsilenced: firing again");
        }
    }
    // What the new list lacks has resolved (or the source lost it: an alert never vanishes
    // from a list by itself while it fires).
    std::vector<const ExternalAlert*> gone;
    gone.reserve(before.size());
    for (const auto& [fp, a] : before)
        gone.push_back(a);
    std::ranges::sort(gone, {}, &ExternalAlert::startsAt);
    for (const ExternalAlert* a : gone)
        event(*a, Severity::Info, "Alertmanager: " + alertWords(*a, *m_topology) + " resolved");
    if (events.size() <= kEventsPerList) {
        std::ranges::move(events, std::back_inserter(m_appliedEvents));
    } else {
        std::size_t firing = 0;
        for (const auto& a : board->alerts)
            firing += a.state == AlertState::Firing ? 1 : 0;
        m_appliedEvents.push_back({at,
                                   EventKind::Alert,
                                   {EntityKind::Region, 0},
                                   Severity::Warning,
                                   "Alertmanager: " + std::to_string(events.size()) +
                                       " alerts changed; " + std::to_string(board->alerts.size()) +
                                       " listed, " + std::to_string(firing) + " firing"});
    }
    slot = board;

    auto merged = std::make_shared<AlertBoard>();
    for (const auto& [id, b] : m_alertsBySource) {
        if (!b) continue;
        merged->alerts.insert(merged->alerts.end(), b->alerts.begin(), b->alerts.end());
        merged->silences.insert(merged->silences.end(), b->silences.begin(), b->silences.end());
    }
    if (!m_state.externalAlerts || *m_state.externalAlerts != *merged)
        m_state.externalAlerts = std::move(merged);
}

} // namespace ft::model
