#include "lifecycle_layer.h"

#include "lifecycle_style.h"

#include <vtkActor.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkUnsignedCharArray.h>

#include <algorithm>

namespace ft::views {

using model::EntityKind;

namespace {
constexpr int kFacesPerBox = 5; // no bottom
constexpr float kCapLow = 0.03f, kCapHigh = 0.16f;
} // namespace

LifecycleLayer::LifecycleLayer(const model::Topology& topology, vtkRenderer* renderer)
    : m_topology(topology), m_renderer(renderer) {
    const std::size_t racks = topology.count(EntityKind::Rack);
    vtkNew<vtkPoints> points;
    points->SetDataTypeToFloat();
    points->SetNumberOfPoints(static_cast<vtkIdType>(racks * 16));
    vtkNew<vtkCellArray> quads;
    for (std::size_t r = 0; r < racks; ++r)
        for (int box = 0; box < 2; ++box) {
            const vtkIdType b = static_cast<vtkIdType>(r * 16 + box * 8);
            // Corners: bit 0 = x high, bit 1 = y high, bit 2 = z high.
            const vtkIdType faces[kFacesPerBox][4] = {{b + 4, b + 5, b + 7, b + 6}, {b + 0, b + 1, b + 5, b + 4},
                                                      {b + 2, b + 6, b + 7, b + 3}, {b + 0, b + 4, b + 6, b + 2},
                                                      {b + 1, b + 3, b + 7, b + 5}};
            for (const auto& f : faces) quads->InsertNextCell(4, f);
        }
    m_caps->SetPoints(points);
    m_caps->SetPolys(quads);
    vtkNew<vtkUnsignedCharArray> colors;
    colors->SetNumberOfComponents(3);
    colors->SetNumberOfTuples(static_cast<vtkIdType>(racks * 2 * kFacesPerBox));
    colors->FillValue(100);
    m_caps->GetCellData()->SetScalars(colors);
    m_colors = colors;

    vtkNew<vtkPolyDataMapper> mapper;
    mapper->SetInputData(m_caps);
    mapper->SetScalarModeToUseCellData();
    mapper->SetColorModeToDirectScalars();
    m_actor->SetMapper(mapper);
    m_actor->GetProperty()->SetAmbient(0.5);
    m_actor->GetProperty()->SetDiffuse(0.6);
    m_actor->PickableOff();
    m_actor->VisibilityOff();
    renderer->AddActor(m_actor);
}

LifecycleLayer::~LifecycleLayer() { m_renderer->RemoveActor(m_actor); }

void LifecycleLayer::setVisible(bool visible) {
    m_visible = visible;
    m_actor->SetVisibility(visible);
}

void LifecycleLayer::update(const model::Snapshot& s) {
    const auto& rk = m_topology.spec().rack;
    const float hw = static_cast<float>(rk.widthM) / 2 * 0.9f, hd = static_cast<float>(rk.depthM) / 2 * 0.9f;
    const float top = static_cast<float>(rk.heightM);
    auto* points = m_caps->GetPoints();
    const std::size_t racks = m_topology.count(EntityKind::Rack);
    for (std::size_t r = 0; r < racks && r < s.rackLifecycle.size(); ++r) {
        const auto c = m_topology.racks.position[r];
        const float progress = std::clamp(s.value(model::ch::RackLifecycleProgress, static_cast<model::EntityId>(r)) / 100.0f, 0.0f, 1.0f);
        const float split = c.x - hw + 2 * hw * progress;
        const float xs[2][2] = {{c.x - hw, split}, {split, c.x + hw}};
        for (int box = 0; box < 2; ++box)
            for (int i = 0; i < 8; ++i)
                points->SetPoint(static_cast<vtkIdType>(r * 16 + box * 8 + i), xs[box][i & 1], i & 2 ? c.y + hd : c.y - hd,
                                 top + (i & 4 ? kCapHigh : kCapLow));
        const Rgb done = lifecycleColor(s.rackLifecycle[r]);
        const Rgb todo{static_cast<std::uint8_t>(done.r * 0.35), static_cast<std::uint8_t>(done.g * 0.35), static_cast<std::uint8_t>(done.b * 0.35)};
        for (int box = 0; box < 2; ++box)
            for (int f = 0; f < kFacesPerBox; ++f) {
                const Rgb col = box == 0 ? done : todo;
                m_colors->SetTypedTuple(static_cast<vtkIdType>((r * 2 + box) * kFacesPerBox + f), &col.r);
            }
    }
    points->Modified();
    m_colors->Modified();
}

} // namespace ft::views
