#pragma once
// BoxSet: many axis-aligned boxes (no bottoms) in one actor, each with its own extent and colour,
// updated in place. For bars and caps over racks and blocks of the storage cluster.
// UI thread only.
#include "color_scale.h"
#include "model/topology.h"

#include <vtkNew.h>

class vtkActor;
class vtkPolyData;
class vtkRenderer;
class vtkUnsignedCharArray;

namespace ft::views {

class BoxSet {
public:
    BoxSet(vtkRenderer* renderer, std::size_t boxes);
    ~BoxSet();
    BoxSet(const BoxSet&) = delete;
    BoxSet& operator=(const BoxSet&) = delete;

    void set(std::size_t box, const model::Vec3& lo, const model::Vec3& hi, Rgb color);
    void commit();
    void setVisible(bool visible);

private:
    vtkRenderer* m_renderer;
    vtkNew<vtkPolyData> m_boxes;
    vtkNew<vtkActor> m_actor;
    vtkUnsignedCharArray* m_colors = nullptr;
};

} // namespace ft::views
