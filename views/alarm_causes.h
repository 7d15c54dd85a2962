#pragma once
// Alarms grouped by cause, and what to look at for one. The same alarm on many racks of one CDU
// (cooling) or of one row (the rest), on many PSUs of a rack or pumps of a CDU, is one cause
// ("64 racks  Low coolant flow  (CDU BK2)"). The HUD lists causes; wall mode flies the camera to
// the worst one and frames every entity it names. Pure functions of a snapshot.
#include "floor_scene.h"
#include "model/snapshot.h"
#include "model/topology.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ft::views {

struct AlarmCause {
    const model::Alarm* worst = nullptr; // the longest-standing of the group
    std::size_t count = 0;
    std::string where; // the CDU, row or rack they share
    std::string key;   // severity|title|kind|where: stable while the cause lasts
    std::vector<model::EntityRef> entities;
};

// Critical first, then the oldest: what has been wrong longest comes first.
std::vector<AlarmCause> groupAlarms(const model::Topology& topology,
                                    std::span<const model::Alarm> alarms);

// What makes the named entities visible, as racks and equipment with a box: a row is its racks,
// a pump its CDU and the CDU's racks, a PSU or shelf its rack, a feed its row, a leaf the leaf
// and the racks cabled to it, a rail its leaves. Nothing for what has no place on the floor.
std::vector<model::EntityRef> focusEntities(const model::Topology& topology,
                                            std::span<const model::EntityRef> named);

// The box around the entities' boxes (as focusEntities expands them).
std::optional<FloorScene::Box> focusBox(const model::Topology& topology,
                                        std::span<const model::EntityRef> named);

} // namespace ft::views
