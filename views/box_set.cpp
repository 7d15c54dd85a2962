#include "box_set.h"

#include <vtkActor.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkUnsignedCharArray.h>

namespace ft::views {

namespace {
constexpr int kFaces = 5; // no bottom
}

BoxSet::BoxSet(vtkRenderer* renderer, std::size_t boxes) : m_renderer(renderer) {
    vtkNew<vtkPoints> points;
    points->SetDataTypeToFloat();
    points->SetNumberOfPoints(static_cast<vtkIdType>(boxes * 8));
    for (vtkIdType i = 0; i < points->GetNumberOfPoints(); ++i)
        points->SetPoint(i, 0, 0, 0);
    vtkNew<vtkCellArray> quads;
    for (std::size_t box = 0; box < boxes; ++box) {
        const auto b = static_cast<vtkIdType>(box * 8);
        // Corners: bit 0 = x high, bit 1 = y high, bit 2 = z high; faces wind outwards.
        const vtkIdType faces[kFaces][4] = {{b + 4, b + 5, b + 7, b + 6},
                                            {b + 0, b + 1, b + 5, b + 4},
                                            {b + 2, b + 6, b + 7, b + 3},
                                            {b + 0, b + 4, b + 6, b + 2},
                                            {b + 1, b + 3, b + 7, b + 5}};
        for (const auto& f : faces)
            quads->InsertNextCell(4, f);
    }
    m_boxes->SetPoints(points);
    m_boxes->SetPolys(quads);
    vtkNew<vtkUnsignedCharArray> colors;
    colors->SetNumberOfComponents(3);
    colors->SetNumberOfTuples(static_cast<vtkIdType>(boxes * kFaces));
    colors->FillValue(100);
    m_boxes->GetCellData()->SetScalars(colors);
    m_colors = colors;
    vtkNew<vtkPolyDataMapper> mapper;
    mapper->SetInputData(m_boxes);
    mapper->SetScalarModeToUseCellData();
    mapper->SetColorModeToDirectScalars();
    m_actor->SetMapper(mapper);
    m_actor->GetProperty()->SetAmbient(0.5);
    m_actor->GetProperty()->SetDiffuse(0.6);
    m_actor->GetProperty()->BackfaceCullingOn();
    m_actor->PickableOff();
    m_actor->VisibilityOff();
    renderer->AddActor(m_actor);
}

BoxSet::~BoxSet() {
    m_renderer->RemoveActor(m_actor);
}

void BoxSet::set(std::size_t box, const model::Vec3& lo, const model::Vec3& hi, Rgb color) {
    auto* points = m_boxes->GetPoints();
    for (int i = 0; i < 8; ++i)
        points->SetPoint(static_cast<vtkIdType>(box * 8 + i), i & 1 ? hi.x : lo.x,
                         i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z);
    for (int f = 0; f < kFaces; ++f)
        m_colors->SetTypedTuple(static_cast<vtkIdType>(box * kFaces + f), &color.r);
}

void BoxSet::commit() {
    m_boxes->GetPoints()->Modified();
    m_colors->Modified();
}

void BoxSet::setVisible(bool visible) {
    m_actor->SetVisibility(visible);
}

} // namespace ft::views
