#include "alarm_causes.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace ft::views {

using model::EntityKind;
using model::EntityRef;

namespace {

bool isCooling(model::ChannelId c) {
    return c == model::ch::RackFlow || c == model::ch::RackSupplyTemperature ||
           c == model::ch::RackDeltaTemperature || c == model::ch::RackLeakDetected;
}

void addRacksOfRow(const model::Topology& t, model::EntityId row, std::vector<EntityRef>& out) {
    for (std::uint32_t i = 0; i < t.rows.rackCount[row]; ++i)
        out.push_back({EntityKind::Rack, t.rows.firstRack[row] + i});
}

void addCdu(const model::Topology& t, model::EntityId cdu, std::vector<EntityRef>& out) {
    out.push_back({EntityKind::Cdu, cdu});
    for (std::uint32_t i = 0; i < t.cdus.rackCount[cdu]; ++i)
        out.push_back({EntityKind::Rack, t.cdus.firstRack[cdu] + i});
}

void addLeaf(const model::Topology& t, model::EntityId leaf, std::vector<EntityRef>& out) {
    out.push_back({EntityKind::Leaf, leaf});
    std::unordered_set<model::EntityId> racks;
    for (std::size_t n = 0; n < t.nics.leaf.size(); ++n)
        if (t.nics.leaf[n] == leaf) racks.insert(t.gpus.rack[t.nics.gpu[n]]);
    std::vector<model::EntityId> sorted(racks.begin(), racks.end());
    std::ranges::sort(sorted);
    for (const auto r : sorted)
        out.push_back({EntityKind::Rack, r});
}

} // namespace

std::vector<AlarmCause> groupAlarms(const model::Topology& t,
                                    std::span<const model::Alarm> alarms) {
    std::vector<AlarmCause> causes;
    std::unordered_map<std::string, std::size_t> byKey;
    for (const auto& a : alarms) {
        std::string where;
        switch (a.kind) {
        case EntityKind::Rack:
            where = isCooling(a.channel) ? t.name(EntityKind::Cdu, t.racks.cdu[a.entity])
                                         : "row " + t.rows.name[t.racks.row[a.entity]];
            break;
        case EntityKind::Psu:
        case EntityKind::PowerShelf:
            where = t.racks.name[*t.rackOf(a.kind, a.entity)];
            break;
        case EntityKind::Pump:
            where = t.name(EntityKind::Cdu, t.pumps.cdu[a.entity]);
            break;
        default:
            where = t.name(a.kind, a.entity);
            break;
        }
        std::string key = std::to_string(static_cast<int>(a.severity)) + "|" +
                          std::string(a.title) + "|" + std::string(model::entityKindName(a.kind)) +
                          "|" + where;
        auto [it, fresh] = byKey.try_emplace(key, causes.size());
        if (fresh) causes.push_back({&a, 0, where, std::move(key), {}});
        AlarmCause& c = causes[it->second];
        ++c.count;
        c.entities.push_back({a.kind, a.entity});
        if (a.since < c.worst->since) c.worst = &a;
    }
    std::ranges::sort(causes, [](const AlarmCause& a, const AlarmCause& b) {
        if (a.worst->severity != b.worst->severity) return a.worst->severity > b.worst->severity;
        if (a.worst->since != b.worst->since) return a.worst->since < b.worst->since;
        return a.key < b.key;
    });
    return causes;
}

std::vector<EntityRef> focusEntities(const model::Topology& t, std::span<const EntityRef> named) {
    std::vector<EntityRef> out;
    for (const auto& ref : named) {
        if (ref.id >= t.count(ref.kind)) continue;
        switch (ref.kind) {
        case EntityKind::Row:
            addRacksOfRow(t, ref.id, out);
            break;
        case EntityKind::Cdu:
            addCdu(t, ref.id, out);
            break;
        case EntityKind::Pump:
            addCdu(t, t.pumps.cdu[ref.id], out);
            break;
        case EntityKind::CoolingLoop:
            addCdu(t, t.coolingLoops.cdu[ref.id], out);
            break;
        case EntityKind::PowerFeed:
            addRacksOfRow(t, t.powerFeeds.row[ref.id], out);
            break;
        case EntityKind::Leaf:
            addLeaf(t, ref.id, out);
            break;
        case EntityKind::Rail:
            for (std::uint32_t i = 0; i < t.rails.leafCount[ref.id]; ++i)
                out.push_back({EntityKind::Leaf, t.rails.firstLeaf[ref.id] + i});
            break;
        case EntityKind::FabricLink:
            if (t.fabricLinks.kind[ref.id] == model::Topology::FabricLinkKind::NicToLeaf) {
                out.push_back(
                    {EntityKind::Rack, t.gpus.rack[t.nics.gpu[t.fabricLinks.from[ref.id]]]});
                out.push_back({EntityKind::Leaf, t.fabricLinks.to[ref.id]});
            } else {
                out.push_back({EntityKind::Leaf, t.fabricLinks.from[ref.id]});
                out.push_back({EntityKind::Spine, t.fabricLinks.to[ref.id]});
            }
            break;
        default:
            if (FloorScene::entityBox(t, ref))
                out.push_back(ref);
            else if (const auto rack = t.rackOf(ref.kind, ref.id))
                out.push_back({EntityKind::Rack, *rack});
            break;
        }
    }
    std::ranges::sort(out, [](const EntityRef& a, const EntityRef& b) {
        return a.kind != b.kind ? a.kind < b.kind : a.id < b.id;
    });
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::optional<FloorScene::Box> focusBox(const model::Topology& t,
                                        std::span<const EntityRef> named) {
    std::optional<FloorScene::Box> box;
    for (const auto& ref : focusEntities(t, named)) {
        const auto b = FloorScene::entityBox(t, ref);
        if (!b) continue;
        if (!box) {
            box = b;
            continue;
        }
        box->min = {std::min(box->min.x, b->min.x), std::min(box->min.y, b->min.y),
                    std::min(box->min.z, b->min.z)};
        box->max = {std::max(box->max.x, b->max.x), std::max(box->max.y, b->max.y),
                    std::max(box->max.z, b->max.z)};
    }
    return box;
}

} // namespace ft::views
