#include "alert_rows.h"

#include "alert_layer.h"

#include <algorithm>

namespace ft::views {

namespace {

using model::EntityKind;

// Whether `inside` is `entity` or part of it.
bool within(const model::Topology& t, model::EntityRef inside, model::EntityRef entity) {
    if (inside == entity) return true;
    switch (entity.kind) {
    case EntityKind::Rack:
        return t.rackOf(inside.kind, inside.id) == entity.id;
    case EntityKind::ComputeTray:
        return inside.kind == EntityKind::Gpu &&
               inside.id / static_cast<model::EntityId>(t.spec().rack.gpusPerTray) == entity.id;
    case EntityKind::Cdu:
        return inside.kind == EntityKind::Pump && t.pumps.cdu[inside.id] == entity.id;
    default:
        return false;
    }
}

} // namespace

std::vector<const model::ExternalAlert*>
alertsOn(const model::Snapshot& snap, const model::Topology& t, model::EntityRef entity) {
    std::vector<const model::ExternalAlert*> here;
    if (!snap.externalAlerts) return here;
    for (const auto& a : snap.externalAlerts->alerts)
        if (std::ranges::any_of(a.entities, [&](const auto& e) { return within(t, e, entity); }))
            here.push_back(&a);
    std::ranges::stable_sort(here, [](const auto* a, const auto* b) { return worseAlert(*a, *b); });
    return here;
}

std::vector<std::pair<std::string, std::string>>
alertRows(const model::Snapshot& snap, const model::Topology& t, model::EntityRef entity) {
    std::vector<std::pair<std::string, std::string>> rows;
    for (const auto* a : alertsOn(snap, t, entity)) {
        const bool muted = model::alertMuted(a->state);
        std::string text = a->name + " [" + std::string(model::severityWord(a->severity)) + "]";
        if (!a->entities.empty() && a->entities.front() != entity)
            text += " on " + t.name(a->entities.front().kind, a->entities.front().id);
        if (a->startsAt > 0) text += ", since " + model::formatUtc(a->startsAt).substr(0, 16);
        if (const auto summary = a->annotation("summary"); !summary.empty())
            text += ": " + std::string(summary);
        if (!a->silences.empty()) {
            const auto& s = a->silences.front();
            text += " — silenced by " + (s.createdBy.empty() ? std::string("?") : s.createdBy) +
                    " until " + model::formatUtc(s.endsAt).substr(0, 16);
            if (!s.comment.empty()) text += " (" + s.comment + ")";
        }
        rows.emplace_back(muted ? "Alert (" + std::string(model::alertStateName(a->state)) + ")"
                                : std::string("Alert"),
                          std::move(text));
    }
    return rows;
}

} // namespace ft::views
