#pragma once
// LifecycleLayer: a cap over every rack in its lifecycle state's colour, split to show progress
// through the current stage (bright: done, dark: to go). Two boxes per rack in one BoxSet.
// Owned by FloorView; UI thread only.
#include "box_set.h"
#include "model/snapshot.h"
#include "model/topology.h"

class vtkRenderer;

namespace ft::views {

class LifecycleLayer {
public:
    LifecycleLayer(const model::Topology& topology, vtkRenderer* renderer);
    void setVisible(bool visible);
    bool visible() const { return m_visible; }
    void update(const model::Snapshot& snapshot);

private:
    const model::Topology& m_topology;
    bool m_visible = false;
    BoxSet m_caps;
};

} // namespace ft::views
