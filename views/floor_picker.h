#pragma once
// FloorPicker: which rack, tray or GPU a ray from the camera hits. Exact ray/box tests against
// the racks (no GPU readback), then the hit point on the rack front picks the tray and GPU.
// Pure geometry over the Topology; any thread.
#include "model/entity_kind.h"
#include "model/topology.h"

#include <optional>

namespace ft::views {

struct Ray {
    model::Vec3 origin;
    model::Vec3 direction; // need not be normalised
};

struct PickResult {
    model::EntityRef entity;
    model::EntityId rack = 0;
    model::Vec3 point;
};

// Ray/box slab test: the entry distance along the ray (in units of `direction`), or nothing.
std::optional<float> hitBox(const Ray& ray, const model::Vec3& lo, const model::Vec3& hi);

std::optional<PickResult> pickFloor(const model::Topology& topology, const Ray& ray);

} // namespace ft::views
