#pragma once
// StorageLayer: where data flows. A bar on every rack (height: dataset read rate, colour: cache
// hit ratio), the object store of each region beside the floor as one block per tier (height:
// bytes), and animated flows whose width follows the rate: rows to the local store, tier to tier
// as objects age, and the local store to the remote region (coloured by the migration backlog,
// flashing when it is large). Owned by FloorView; UI thread only.
#include "box_set.h"
#include "flow_pipes.h"
#include "model/snapshot.h"
#include "model/topology.h"

class vtkRenderer;

namespace ft::views {

class StorageLayer {
public:
    StorageLayer(const model::Topology& topology, vtkRenderer* renderer);
    void setVisible(bool visible);
    bool visible() const { return m_visible; }
    void update(const model::Snapshot& snapshot);
    void animate(double simSeconds, double wallSeconds);

    // Where a region's tier block stands (for labels): centre of its top face.
    model::Vec3 tierTop(model::EntityId region, int tier) const;
    static Rgb hitRatioColor(float percent);
    static Rgb tierColor(int tier);

private:
    model::Vec3 tierBase(model::EntityId region, int tier) const;

    const model::Topology& m_topology;
    bool m_visible = false;
    BoxSet m_bars;  // one per rack
    BoxSet m_tiers; // regions x tiers
    FlowPipes m_flows;
    std::vector<float> m_tierHeight;
};

} // namespace ft::views
