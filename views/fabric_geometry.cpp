#include "fabric_geometry.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ft::views {

using model::EntityKind;
using model::Vec3;

namespace {
constexpr std::size_t kPerRackBundlesUpTo = 64; // racks: beyond this, bundle by row segment
constexpr std::size_t kSpineBundlesUpTo = 4096; // leaf-spine bundles drawn one by one up to this

// Closest distance between a ray and a segment, with the ray parameter at the closest point.
std::pair<float, float> raySegment(const Ray& ray, const Vec3& a, const Vec3& b) {
    const float ux = ray.direction.x, uy = ray.direction.y, uz = ray.direction.z;
    const float vx = b.x - a.x, vy = b.y - a.y, vz = b.z - a.z;
    const float wx = ray.origin.x - a.x, wy = ray.origin.y - a.y, wz = ray.origin.z - a.z;
    const float A = ux * ux + uy * uy + uz * uz, B = ux * vx + uy * vy + uz * vz,
                C = vx * vx + vy * vy + vz * vz;
    const float D = ux * wx + uy * wy + uz * wz, E = vx * wx + vy * wy + vz * wz;
    const float den = A * C - B * B;
    float s = den > 1e-9f ? (B * E - C * D) / den : 0.0f;
    float t = den > 1e-9f ? (A * E - B * D) / den : (C > 0 ? E / C : 0.0f);
    t = std::clamp(t, 0.0f, 1.0f);
    s = std::max(0.0f, (B * t - D) / std::max(A, 1e-9f));
    const float dx = wx + s * ux - t * vx, dy = wy + s * uy - t * vy, dz = wz + s * uz - t * vz;
    return {std::sqrt(dx * dx + dy * dy + dz * dz), s};
}
} // namespace

model::Vec3 FabricGeometry::leafHalfOn(const model::Topology& t) {
    const float spanX = std::max(1.0f, t.boundsMax.x - t.boundsMin.x);
    const std::uint32_t leavesPerRail = t.rails.leafCount.empty() ? 1 : t.rails.leafCount[0];
    return {std::min(0.3f, 0.4f * spanX / static_cast<float>(leavesPerRail)), 0.3f, 0.1f};
}

model::Vec3 FabricGeometry::spineHalfOn(const model::Topology& t) {
    const float spanX = std::max(1.0f, t.boundsMax.x - t.boundsMin.x);
    const std::uint32_t spines = std::max<std::uint32_t>(1, t.fabricSizing.spinesPerPlane);
    return {std::min(0.4f, 0.4f * spanX / static_cast<float>(spines)), 0.6f, 0.14f};
}

FabricGeometry FabricGeometry::build(const model::Topology& t) {
    FabricGeometry g;
    const auto& rk = t.spec().rack;
    const float spanX = std::max(1.0f, t.boundsMax.x - t.boundsMin.x);
    const std::uint32_t spines = std::max<std::uint32_t>(1, t.fabricSizing.spinesPerPlane);
    g.leafHalf = leafHalfOn(t);
    g.spineHalf = spineHalfOn(t);
    g.radiusScale = std::clamp(spanX / 30.0f, 1.0f, 2.5f);

    const std::size_t nRacks = t.count(EntityKind::Rack);
    const auto tpr = static_cast<std::uint32_t>(rk.computeTrays);
    const std::uint32_t traysPerLeaf =
        static_cast<std::uint32_t>(std::max(1, t.spec().fabric.switchRadix / 2));
    const int npt = rk.gpusPerTray * rk.nicsPerGpu;
    const bool perRack = nRacks <= kPerRackBundlesUpTo;
    const auto top = static_cast<float>(rk.heightM);
    // Segments of consecutive trays in one row (one rack on small floors) under one leaf group.
    struct Segment {
        model::EntityId firstTray;
        std::uint32_t trays;
        model::EntityId firstRack, lastRack;
    };
    std::vector<Segment> segments;
    for (std::size_t r = 0; r < nRacks; ++r) {
        for (std::uint32_t i = 0; i < tpr; ++i) {
            const auto tray = static_cast<model::EntityId>(r * tpr + i);
            const bool startNew = segments.empty() ||
                                  tray / traysPerLeaf != segments.back().firstTray / traysPerLeaf ||
                                  t.racks.row[r] != t.racks.row[segments.back().firstRack] ||
                                  (perRack && segments.back().firstRack != r);
            if (startNew)
                segments.push_back(
                    {tray, 0, static_cast<model::EntityId>(r), static_cast<model::EntityId>(r)});
            ++segments.back().trays;
            segments.back().lastRack = static_cast<model::EntityId>(r);
        }
    }
    for (const Segment& s : segments) {
        const Vec3 p0 = t.racks.position[s.firstRack], p1 = t.racks.position[s.lastRack];
        for (int rail = 0; rail < npt; ++rail) {
            const model::EntityId leaf = t.rails.firstLeaf[rail] + s.firstTray / traysPerLeaf;
            // The rails leave the rack top side by side across its depth.
            const float dy = (static_cast<float>(rail) - (npt - 1) / 2.0f) /
                             static_cast<float>(npt) * static_cast<float>(rk.depthM) * 0.8f;
            const Vec3 a{(p0.x + p1.x) / 2, (p0.y + p1.y) / 2 + dy, top};
            const Vec3 lp = t.leaves.position[leaf];
            // A riser climbs straight up from the rack (its colour is the rack's load on that
            // rail), then the bundle fans out to the leaf.
            const Vec3 m{a.x, a.y, top + 0.45f * (lp.z - g.leafHalf.z - top)};
            g.access.push_back({a,
                                m,
                                {lp.x, lp.y, lp.z - g.leafHalf.z},
                                s.firstTray,
                                s.trays,
                                static_cast<std::uint16_t>(rail),
                                leaf});
        }
    }

    const std::size_t nNics = t.count(EntityKind::Nic);
    const std::size_t nLinks = t.count(EntityKind::FabricLink);
    if (nLinks - nNics <= kSpineBundlesUpTo) {
        for (std::size_t l = nNics; l < nLinks; ++l) {
            const model::EntityId leaf = t.fabricLinks.from[l];
            const Vec3 lp = t.leaves.position[leaf], sp = t.spines.position[t.fabricLinks.to[l]];
            g.trunks.push_back({{lp.x, lp.y, lp.z + g.leafHalf.z},
                                {sp.x, sp.y, sp.z - g.spineHalf.z},
                                leaf,
                                static_cast<model::EntityId>(l),
                                false});
        }
    } else {
        // One trunk per leaf, to the spine of its plane nearest above it.
        std::vector<model::EntityId> firstBundle(t.count(EntityKind::Leaf), 0);
        for (std::size_t l = nLinks; l-- > nNics;)
            firstBundle[t.fabricLinks.from[l]] = static_cast<model::EntityId>(l);
        for (std::size_t leaf = 0; leaf < t.count(EntityKind::Leaf); ++leaf) {
            const Vec3 lp = t.leaves.position[leaf];
            const std::uint32_t plane = t.leaves.plane[leaf];
            const float fx = std::clamp((lp.x - t.boundsMin.x) / spanX, 0.0f, 0.9999f);
            const Vec3 sp =
                t.spines.position[plane * spines +
                                  static_cast<std::uint32_t>(fx * static_cast<float>(spines))];
            g.trunks.push_back({{lp.x, lp.y, lp.z + g.leafHalf.z},
                                {sp.x, sp.y, sp.z - g.spineHalf.z},
                                static_cast<model::EntityId>(leaf),
                                firstBundle[leaf],
                                true});
        }
    }
    return g;
}

std::optional<std::pair<PickResult, float>> FabricGeometry::pick(const model::Topology& t,
                                                                 const Ray& ray) const {
    float best = std::numeric_limits<float>::max();
    std::optional<PickResult> hit;
    auto take = [&](model::EntityRef ref, float d) {
        if (d >= best) return;
        best = d;
        PickResult r;
        r.entity = ref;
        r.point = {ray.origin.x + d * ray.direction.x, ray.origin.y + d * ray.direction.y,
                   ray.origin.z + d * ray.direction.z};
        hit = r;
    };
    for (std::size_t l = 0; l < t.count(EntityKind::Leaf); ++l) {
        const Vec3 p = t.leaves.position[l];
        if (auto d = hitBox(ray, {p.x - leafHalf.x, p.y - leafHalf.y, p.z - leafHalf.z},
                            {p.x + leafHalf.x, p.y + leafHalf.y, p.z + leafHalf.z}))
            take({EntityKind::Leaf, static_cast<model::EntityId>(l)}, *d);
    }
    for (std::size_t s = 0; s < t.count(EntityKind::Spine); ++s) {
        const Vec3 p = t.spines.position[s];
        if (auto d = hitBox(ray, {p.x - spineHalf.x, p.y - spineHalf.y, p.z - spineHalf.z},
                            {p.x + spineHalf.x, p.y + spineHalf.y, p.z + spineHalf.z}))
            take({EntityKind::Spine, static_cast<model::EntityId>(s)}, *d);
    }
    if (hit) return std::pair{*hit, best};
    // Bundles are thin: accept a near miss of a few centimetres (more on big floors).
    const float reach = 0.08f * radiusScale;
    const int npt = t.spec().rack.gpusPerTray * t.spec().rack.nicsPerGpu;
    for (const Access& a : access) {
        auto [dist, s] = raySegment(ray, a.a, a.m);
        if (const auto [d2, s2] = raySegment(ray, a.m, a.b); d2 < dist) dist = d2, s = s2;
        if (dist < reach)
            take({EntityKind::FabricLink,
                  static_cast<model::EntityId>(a.firstTray * static_cast<std::uint32_t>(npt) +
                                               a.rail)},
                 s);
    }
    for (const Trunk& tr : trunks) {
        const auto [dist, s] = raySegment(ray, tr.a, tr.b);
        if (dist < reach)
            take(tr.wholeLeaf ? model::EntityRef{EntityKind::Leaf, tr.leaf}
                              : model::EntityRef{EntityKind::FabricLink, tr.link},
                 s);
    }
    if (hit) return std::pair{*hit, best};
    return std::nullopt;
}

} // namespace ft::views
