#pragma once
// FloorScene: the static parts of the room (raised-floor grid, CDUs) and the selection outline.
// Owned by FloorView; UI thread only.
#include "model/entity_kind.h"
#include "model/topology.h"

#include <optional>
#include <vtkNew.h>

class vtkActor;
class vtkPolyData;
class vtkRenderer;

namespace ft::views {

class FloorScene {
public:
    FloorScene(const model::Topology& topology, vtkRenderer* renderer);
    ~FloorScene();

    void setSelection(std::optional<model::EntityRef> selection);
    // The floor slab and its grid: dark (standard, dim) or a light raised floor (bright).
    void setBrightFloor(bool bright);

    // Axis-aligned box of an entity (metres), for picking, outlining and framing.
    struct Box {
        model::Vec3 min, max;
    };
    static std::optional<Box> entityBox(const model::Topology& topology, model::EntityRef ref);

private:
    const model::Topology& m_topology;
    vtkRenderer* m_renderer;
    vtkNew<vtkActor> m_floor;
    vtkNew<vtkActor> m_grid;
    vtkNew<vtkActor> m_cdus;
    vtkNew<vtkPolyData> m_outline;
    vtkNew<vtkActor> m_outlineActor;
};

} // namespace ft::views
