#pragma once
// FabricGeometry: where the scale-out fabric is drawn. Leaf switches hang in rows above the
// floor (one row per rail, planes stacked), spines above them; link bundles run from the racks
// up to their rail's leaf and from every leaf up to the spines of its plane. Bundling is the
// level of detail: on small floors one bundle per rack and rail, and one per leaf-spine link;
// on big floors one bundle per row segment under a leaf, and one trunk per leaf. Shared by the
// rail layer (drawing) and picking, so what is drawn is what is picked. Pure geometry; any thread.
#include "floor_picker.h"
#include "model/topology.h"

#include <optional>
#include <vector>

namespace ft::views {

struct FabricGeometry {
    // Rack(s) -> leaf: the NIC links of trays [firstTray, firstTray + trays) on `rail`.
    struct Access {
        model::Vec3 a, m, b; // rack top, top of the riser, leaf
        model::EntityId firstTray = 0;
        std::uint32_t trays = 0;
        std::uint16_t rail = 0;
        model::EntityId leaf = 0;
    };
    // Leaf -> spine: one bundle link (`link` is its FabricLink id), or on big floors the whole
    // uplink of the leaf drawn as one trunk (`link` is the leaf's first bundle).
    struct Trunk {
        model::Vec3 a, b;
        model::EntityId leaf = 0;
        model::EntityId link = 0;
        bool wholeLeaf = false;
    };

    std::vector<Access> access;
    std::vector<Trunk> trunks;
    model::Vec3 leafHalf{0.3f, 0.3f, 0.1f};
    model::Vec3 spineHalf{0.4f, 0.6f, 0.14f};
    float radiusScale = 1.0f; // bundles get thicker on big floors so the overview still shows them

    static FabricGeometry build(const model::Topology& topology);
    // Switch box half-sizes on this floor (leaves shrink on floors with many leaves per rail).
    static model::Vec3 leafHalfOn(const model::Topology& topology);
    static model::Vec3 spineHalfOn(const model::Topology& topology);

    // The switch or bundle a ray hits first (with its distance along the ray), if any.
    std::optional<std::pair<PickResult, float>> pick(const model::Topology& topology,
                                                     const Ray& ray) const;
};

} // namespace ft::views
