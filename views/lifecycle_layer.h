#pragma once
// LifecycleLayer: a cap over every rack in its lifecycle state's colour, split to show progress
// through the current stage (bright: done, dark: to go). One actor, two boxes per rack, points
// and colours updated in place. Owned by FloorView; UI thread only.
#include "model/snapshot.h"
#include "model/topology.h"

#include <vtkNew.h>

class vtkActor;
class vtkPolyData;
class vtkRenderer;
class vtkUnsignedCharArray;

namespace ft::views {

class LifecycleLayer {
public:
    LifecycleLayer(const model::Topology& topology, vtkRenderer* renderer);
    ~LifecycleLayer();
    void setVisible(bool visible);
    bool visible() const { return m_visible; }
    void update(const model::Snapshot& snapshot);

private:
    const model::Topology& m_topology;
    vtkRenderer* m_renderer;
    bool m_visible = false;
    vtkNew<vtkPolyData> m_caps;
    vtkNew<vtkActor> m_actor;
    vtkUnsignedCharArray* m_colors = nullptr;
};

} // namespace ft::views
