#include "floor_picker.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace ft::views {

using model::EntityKind;

// Slab test; returns the entry distance along the ray, or nothing.
std::optional<float> hitBox(const Ray& ray, const model::Vec3& lo, const model::Vec3& hi) {
    float tmin = 0.0f, tmax = std::numeric_limits<float>::max();
    const float o[3] = {ray.origin.x, ray.origin.y, ray.origin.z};
    const float d[3] = {ray.direction.x, ray.direction.y, ray.direction.z};
    const float a[3] = {lo.x, lo.y, lo.z};
    const float b[3] = {hi.x, hi.y, hi.z};
    for (int i = 0; i < 3; ++i) {
        if (std::abs(d[i]) < 1e-12f) {
            if (o[i] < a[i] || o[i] > b[i]) return std::nullopt;
            continue;
        }
        float t0 = (a[i] - o[i]) / d[i], t1 = (b[i] - o[i]) / d[i];
        if (t0 > t1) std::swap(t0, t1);
        tmin = std::max(tmin, t0);
        tmax = std::min(tmax, t1);
        if (tmin > tmax) return std::nullopt;
    }
    return tmin;
}

std::optional<PickResult> pickFloor(const model::Topology& t, const Ray& ray) {
    const auto& rk = t.spec().rack;
    const float hw = static_cast<float>(rk.widthM) / 2, hd = static_cast<float>(rk.depthM) / 2;
    const auto h = static_cast<float>(rk.heightM);
    float best = std::numeric_limits<float>::max();
    std::optional<model::EntityId> bestRack;
    for (model::EntityId r = 0; r < t.count(EntityKind::Rack); ++r) {
        const auto c = t.racks.position[r];
        if (auto d = hitBox(ray, {c.x - hw, c.y - hd, 0}, {c.x + hw, c.y + hd, h});
            d && *d < best) {
            best = *d;
            bestRack = r;
        }
    }
    if (!bestRack) {
        // CDUs stand at the row ends.
        for (model::EntityId c = 0; c < t.count(EntityKind::Cdu); ++c) {
            const auto p = t.cdus.position[c];
            if (auto d = hitBox(ray, {p.x - 0.3f, p.y - hd, 0}, {p.x + 0.3f, p.y + hd, h * 0.85f});
                d && *d < best) {
                best = *d;
                PickResult cdu;
                cdu.entity = {EntityKind::Cdu, c};
                cdu.point = {ray.origin.x + *d * ray.direction.x,
                             ray.origin.y + *d * ray.direction.y,
                             ray.origin.z + *d * ray.direction.z};
                return cdu;
            }
        }
        return std::nullopt;
    }
    const auto c = t.racks.position[*bestRack];
    PickResult result;
    result.rack = *bestRack;
    result.entity = {EntityKind::Rack, *bestRack};
    result.point = {ray.origin.x + best * ray.direction.x, ray.origin.y + best * ray.direction.y,
                    ray.origin.z + best * ray.direction.z};
    // Only a hit on the front face resolves to a tray: that is where trays are drawn.
    if (std::abs(result.point.y - (c.y - hd)) > 1e-3f) return result;
    const float z = result.point.z / model::Topology::kRackUnitM;
    for (std::size_t i = 0; i < t.computeSlots.size(); ++i) {
        const auto& s = t.computeSlots[i];
        if (z < s.bottomU || z >= s.bottomU + s.heightU) continue;
        const auto tray =
            static_cast<model::EntityId>(static_cast<std::size_t>(*bestRack) * rk.computeTrays + i);
        const float fx = std::clamp((result.point.x - (c.x - hw)) / (2 * hw), 0.0f, 0.9999f);
        const int gpu = static_cast<int>(fx * static_cast<float>(rk.gpusPerTray));
        result.entity = {EntityKind::Gpu,
                         static_cast<model::EntityId>(tray * rk.gpusPerTray + gpu)};
        return result;
    }
    for (std::size_t i = 0; i < t.switchSlots.size(); ++i) {
        const auto& s = t.switchSlots[i];
        if (z >= s.bottomU && z < s.bottomU + s.heightU) {
            result.entity = {EntityKind::SwitchTray,
                             static_cast<model::EntityId>(
                                 static_cast<std::size_t>(*bestRack) * rk.switchTrays + i)};
            return result;
        }
    }
    return result;
}

} // namespace ft::views
