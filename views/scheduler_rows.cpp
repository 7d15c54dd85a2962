#include "scheduler_rows.h"

#include "coverage.h"
#include "model/sample.h"
#include "model/scheduler_state.h"
#include "value_format.h"

#include <array>
#include <ranges>

namespace ft::views {

namespace {

using model::EntityKind;
constexpr auto kChannel = model::ch::ComputeTraySchedulerState;

bool reported(const model::Snapshot& snap, model::EntityId tray) {
    return listed(snap, kChannel) && coverageOf(snap, kChannel, tray, false) != Coverage::NoData;
}

const model::NodeNote* noteOf(const model::Snapshot& snap, model::EntityId tray) {
    if (!snap.nodeNotes || tray >= snap.nodeNotes->size()) return nullptr;
    const model::NodeNote& n = (*snap.nodeNotes)[tray];
    return n.node.empty() ? nullptr : &n;
}

// Without notes (a replay): the newest thing the scheduler said of the node.
std::string lastEvent(const model::Snapshot& snap, model::EntityId tray) {
    if (!snap.events) return {};
    std::string text;
    for (const auto& e : snap.events->since(0))
        if (e.kind == model::EventKind::Scheduler && e.entity.kind == EntityKind::ComputeTray &&
            e.entity.id == tray)
            text = e.text;
    return text;
}

model::SchedulerState stateOf(const model::Snapshot& snap, model::EntityId tray) {
    return static_cast<model::SchedulerState>(
        std::clamp(static_cast<int>(snap.value(kChannel, tray)), 0, model::kSchedulerStates - 1));
}

} // namespace

Rows schedulerRows(const model::Snapshot& snap, const model::Topology& t, model::EntityRef entity) {
    Rows rows;
    if (entity.kind == EntityKind::ComputeTray) {
        const auto tray = entity.id;
        if (!reported(snap, tray)) return rows;
        const model::NodeNote* note = noteOf(snap, tray);
        std::string state = note && !note->state.empty()
                                ? note->state
                                : std::string(model::schedulerStateName(stateOf(snap, tray)));
        if (coverageOf(snap, kChannel, tray, false) == Coverage::Stale) state += " (stale)";
        rows.emplace_back("Scheduler", state);
        if (note && note->node != t.hostName(tray)) rows.emplace_back("Node", note->node);
        if (note) {
            if (!note->reason.empty()) rows.emplace_back("Reason", note->reason);
            rows.emplace_back("Jobs", note->jobs.empty() ? "none" : note->jobs);
        } else if (const std::string said = lastEvent(snap, tray); !said.empty()) {
            rows.emplace_back("Last word", said);
        }
        return rows;
    }
    if (entity.kind != EntityKind::Rack) return rows;
    const auto per = static_cast<model::EntityId>(t.spec().rack.computeTrays);
    std::array<int, model::kSchedulerStates> count{};
    int nodes = 0;
    std::string out;
    for (model::EntityId tray = entity.id * per; tray < (entity.id + 1) * per; ++tray) {
        if (!reported(snap, tray)) continue;
        ++nodes;
        const auto st = stateOf(snap, tray);
        ++count[static_cast<std::size_t>(st)];
        if (!model::schedulerOutOfService(st)) continue;
        const model::NodeNote* note = noteOf(snap, tray);
        std::string words = (note ? note->node : t.hostName(tray)) + " " +
                            std::string(model::schedulerStateName(st));
        if (note && !note->reason.empty()) words += ": " + note->reason;
        out += out.empty() ? words : "\n" + words;
    }
    if (nodes == 0) return rows;
    std::string summary;
    for (int s = model::kSchedulerStates - 1; s >= 0; --s)
        if (count[static_cast<std::size_t>(s)] > 0)
            summary += (summary.empty() ? "" : ", ") + std::to_string(count[s]) + " " +
                       std::string(model::kSchedulerStateNames[static_cast<std::size_t>(s)]);
    rows.emplace_back("Scheduler", summary + " (of " + std::to_string(nodes) + " nodes)");
    if (!out.empty()) rows.emplace_back("Out of service", out);
    return rows;
}

} // namespace ft::views
