#include "alert_history.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ft::importers {

model::Labels alertLabels(const std::vector<std::pair<std::string, std::string>>& series) {
    model::Labels out;
    for (const auto& [k, v] : series)
        if (k != "__name__" && k != "alertstate") out.emplace_back(k, v);
    std::ranges::sort(out);
    return out;
}

std::string labelsFingerprint(const model::Labels& labels) {
    std::uint64_t h = 14695981039346656037ull;
    auto mix = [&](std::string_view s) {
        for (const char c : s)
            h = (h ^ static_cast<std::uint8_t>(c)) * 1099511628211ull;
        h = (h ^ 0xffu) * 1099511628211ull; // a separator no label holds
    };
    for (const auto& [k, v] : labels) {
        mix(k);
        mix(v);
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

AlertHistory::AlertHistory(const model::Topology& topology, SeverityMap severity,
                           std::string source)
    : m_index(topology), m_severity(std::move(severity)), m_source(std::move(source)) {}

void AlertHistory::addFiring(const PromqlResult& answer) {
    for (const auto& s : answer.series) {
        model::Labels labels = alertLabels(s.labels);
        const std::string fp = labelsFingerprint(labels);
        auto [it, fresh] = m_series.try_emplace(fp);
        Series& series = it->second;
        if (fresh) {
            model::ExternalAlert& a = series.alert;
            a.source = m_source;
            a.fingerprint = fp;
            a.labels = std::move(labels);
            a.name = std::string(a.label("alertname"));
            a.state = model::AlertState::Firing;
            a.severity = severityOf(a, m_severity);
            AlertPlace place = placeAlert(a.labels, m_index);
            a.entities = std::move(place.entities);
            a.placedBy = std::move(place.by);
        }
        for (const auto& [time, value] : s.points)
            if (std::isfinite(value) && value != 0) series.points.push_back(time);
        std::ranges::sort(series.points);
        series.points.erase(std::ranges::unique(series.points).begin(), series.points.end());
    }
}

void AlertHistory::addActiveSince(const PromqlResult& answer) {
    for (const auto& s : answer.series) {
        if (s.points.empty()) continue;
        const double seconds = s.points.back().second;
        if (!std::isfinite(seconds) || seconds <= 0 || seconds > 1e11) continue;
        m_activeSince[labelsFingerprint(alertLabels(s.labels))] =
            static_cast<model::TimeNs>(seconds * 1e9);
    }
}

std::shared_ptr<const model::AlertBoard> AlertHistory::changedAt(model::TimeNs time,
                                                                 model::TimeNs step) {
    std::vector<const Series*> firing;
    for (const auto& [fp, s] : m_series) {
        const auto after = std::ranges::upper_bound(s.points, time);
        if (after == s.points.begin()) continue;
        if (time - *(after - 1) < step) firing.push_back(&s);
    }
    if (m_any && firing == m_last) return nullptr;
    m_any = true;
    m_last = firing;
    auto board = std::make_shared<model::AlertBoard>();
    for (const Series* s : firing) {
        model::ExternalAlert a = s->alert;
        // When it became active: ALERTS_FOR_STATE's word, else the first point of this run.
        const auto at = std::ranges::upper_bound(s->points, time) - 1;
        auto first = at;
        while (first != s->points.begin() && *first - *(first - 1) <= step)
            --first;
        a.startsAt = *first;
        if (const auto since = m_activeSince.find(a.fingerprint); since != m_activeSince.end())
            a.startsAt = std::min(a.startsAt, since->second);
        board->alerts.push_back(std::move(a));
    }
    std::ranges::stable_sort(board->alerts, {}, &model::ExternalAlert::startsAt);
    return board;
}

} // namespace ft::importers
