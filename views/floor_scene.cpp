#include "floor_scene.h"

#include "fabric_geometry.h"

#include <algorithm>
#include <cmath>
#include <vtkActor.h>
#include <vtkAppendPolyData.h>
#include <vtkCellArray.h>
#include <vtkCubeSource.h>
#include <vtkPlaneSource.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>

namespace ft::views {

using model::EntityKind;

FloorScene::FloorScene(const model::Topology& topology, vtkRenderer* renderer)
    : m_topology(topology), m_renderer(renderer) {
    const float margin = 4.0f;
    // Past the racks' +x edge stand the object stores (storage layer): keep floor under them.
    const float x0 = topology.boundsMin.x - margin, x1 = topology.boundsMax.x + margin + 12.0f;
    const float y0 = topology.boundsMin.y - margin, y1 = topology.boundsMax.y + margin;

    // The floor slab, a touch below z = 0 so the grid lines sit on it.
    vtkNew<vtkPlaneSource> slab;
    slab->SetOrigin(x0, y0, -0.01);
    slab->SetPoint1(x1, y0, -0.01);
    slab->SetPoint2(x0, y1, -0.01);
    vtkNew<vtkPolyDataMapper> slabMapper;
    slabMapper->SetInputConnection(slab->GetOutputPort());
    m_floor->SetMapper(slabMapper);
    // Unlit: the slab covers most of the screen, and per-pixel lighting of a flat floor is
    // fill-rate spent on nothing (llvmpipe pays for every fragment).
    m_floor->GetProperty()->SetColor(0.07, 0.085, 0.11);
    m_floor->GetProperty()->LightingOff();
    m_floor->PickableOff();
    renderer->AddActor(m_floor);

    // Raised-floor tiles, 0.6 m.
    vtkNew<vtkPoints> pts;
    vtkNew<vtkCellArray> lines;
    // Raised-floor tiles are 0.6 m; on large floors draw every fifth line so the grid stays calm.
    const float span = std::max(x1 - x0, y1 - y0);
    const float tile = span > 60.0f ? 3.0f : 0.6f;
    auto line = [&](float ax, float ay, float bx, float by) {
        const vtkIdType ids[2] = {pts->InsertNextPoint(ax, ay, 0.0),
                                  pts->InsertNextPoint(bx, by, 0.0)};
        lines->InsertNextCell(2, ids);
    };
    for (float x = std::floor(x0 / tile) * tile; x <= x1; x += tile)
        line(x, y0, x, y1);
    for (float y = std::floor(y0 / tile) * tile; y <= y1; y += tile)
        line(x0, y, x1, y);
    vtkNew<vtkPolyData> grid;
    grid->SetPoints(pts);
    grid->SetLines(lines);
    vtkNew<vtkPolyDataMapper> gridMapper;
    gridMapper->SetInputData(grid);
    m_grid->SetMapper(gridMapper);
    m_grid->GetProperty()->SetColor(0.16, 0.19, 0.24);
    m_grid->GetProperty()->LightingOff();
    m_grid->PickableOff();
    renderer->AddActor(m_grid);

    // CDUs: cabinets at the row ends, 0.8 m wide.
    vtkNew<vtkAppendPolyData> cdus;
    const auto& rk = topology.spec().rack;
    for (std::size_t c = 0; c < topology.count(EntityKind::Cdu); ++c) {
        const auto p = topology.cdus.position[c];
        vtkNew<vtkCubeSource> box;
        box->SetBounds(p.x - 0.3, p.x + 0.3, p.y - rk.depthM / 2, p.y + rk.depthM / 2, 0,
                       rk.heightM * 0.85);
        box->Update();
        cdus->AddInputData(box->GetOutput());
    }
    if (topology.count(EntityKind::Cdu) > 0) {
        vtkNew<vtkPolyDataMapper> cduMapper;
        cduMapper->SetInputConnection(cdus->GetOutputPort());
        m_cdus->SetMapper(cduMapper);
        m_cdus->GetProperty()->SetColor(0.16, 0.30, 0.34);
        m_cdus->GetProperty()->SetAmbient(0.4);
        m_cdus->GetProperty()->BackfaceCullingOn();
        m_cdus->PickableOff();
        renderer->AddActor(m_cdus);
    }

    vtkNew<vtkPolyDataMapper> outlineMapper;
    outlineMapper->SetInputData(m_outline);
    m_outlineActor->SetMapper(outlineMapper);
    m_outlineActor->GetProperty()->SetColor(1.0, 1.0, 1.0);
    m_outlineActor->GetProperty()->SetLineWidth(3.0);
    m_outlineActor->GetProperty()->LightingOff();
    m_outlineActor->PickableOff();
    m_outlineActor->VisibilityOff();
    renderer->AddActor(m_outlineActor);
}

FloorScene::~FloorScene() {
    m_renderer->RemoveActor(m_floor);
    m_renderer->RemoveActor(m_grid);
    m_renderer->RemoveActor(m_cdus);
    m_renderer->RemoveActor(m_outlineActor);
}

std::optional<FloorScene::Box> FloorScene::entityBox(const model::Topology& t,
                                                     model::EntityRef ref) {
    const auto& rk = t.spec().rack;
    const float hw = static_cast<float>(rk.widthM) / 2 * 0.96f,
                hd = static_cast<float>(rk.depthM) / 2;
    constexpr float U = model::Topology::kRackUnitM;
    auto rackBox = [&](model::EntityId rack) {
        const auto c = t.racks.position[rack];
        return Box{{c.x - hw, c.y - hd, 0}, {c.x + hw, c.y + hd, static_cast<float>(rk.heightM)}};
    };
    switch (ref.kind) {
    case EntityKind::Rack:
        return rackBox(ref.id);
    case EntityKind::ComputeTray: {
        Box b = rackBox(t.computeTrays.rack[ref.id]);
        const auto& s = t.computeSlots[t.computeTrays.indexInRack[ref.id]];
        b.min.z = s.bottomU * U;
        b.max.z = (s.bottomU + s.heightU) * U;
        return b;
    }
    case EntityKind::SwitchTray: {
        Box b = rackBox(t.switchTrays.rack[ref.id]);
        const auto& s = t.switchSlots[t.switchTrays.indexInRack[ref.id]];
        b.min.z = s.bottomU * U;
        b.max.z = (s.bottomU + s.heightU) * U;
        return b;
    }
    case EntityKind::Gpu: {
        Box b = *entityBox(t, {EntityKind::ComputeTray, t.gpus.tray[ref.id]});
        const float w = (b.max.x - b.min.x) / static_cast<float>(rk.gpusPerTray);
        b.min.x += w * t.gpus.indexInTray[ref.id];
        b.max.x = b.min.x + w;
        b.max.y = b.min.y + 0.05f; // the GPU's cell on the tray front
        return b;
    }
    case EntityKind::Leaf:
    case EntityKind::Spine: {
        const bool leaf = ref.kind == EntityKind::Leaf;
        const auto p = leaf ? t.leaves.position[ref.id] : t.spines.position[ref.id];
        const auto h = leaf ? FabricGeometry::leafHalfOn(t) : FabricGeometry::spineHalfOn(t);
        return Box{{p.x - h.x, p.y - h.y, p.z - h.z}, {p.x + h.x, p.y + h.y, p.z + h.z}};
    }
    case EntityKind::FabricLink:
        // A link is shown by the switch it goes up to.
        return t.fabricLinks.kind[ref.id] == model::Topology::FabricLinkKind::NicToLeaf
                   ? entityBox(t, {EntityKind::Leaf, t.fabricLinks.to[ref.id]})
                   : entityBox(t, {EntityKind::Spine, t.fabricLinks.to[ref.id]});
    case EntityKind::NvlinkLink:
        return entityBox(t, {EntityKind::Gpu, t.nvlinkLinks.gpu[ref.id]});
    case EntityKind::Cdu: {
        const auto p = t.cdus.position[ref.id];
        return Box{{p.x - 0.3f, p.y - hd, 0},
                   {p.x + 0.3f, p.y + hd, static_cast<float>(rk.heightM * 0.85)}};
    }
    default:
        return std::nullopt;
    }
}

void FloorScene::setBrightFloor(bool bright) {
    if (bright) {
        m_floor->GetProperty()->SetColor(0.40, 0.44, 0.50);
        m_grid->GetProperty()->SetColor(0.55, 0.60, 0.67);
    } else {
        m_floor->GetProperty()->SetColor(0.07, 0.085, 0.11);
        m_grid->GetProperty()->SetColor(0.16, 0.19, 0.24);
    }
}

void FloorScene::setSelection(std::optional<model::EntityRef> selection) {
    const auto box = selection ? entityBox(m_topology, *selection) : std::nullopt;
    if (!box) {
        m_outlineActor->VisibilityOff();
        return;
    }
    const float pad = 0.012f;
    const float x[2] = {box->min.x - pad, box->max.x + pad};
    const float y[2] = {box->min.y - pad, box->max.y + pad};
    const float z[2] = {box->min.z - pad, box->max.z + pad};
    vtkNew<vtkPoints> pts;
    for (int i = 0; i < 8; ++i)
        pts->InsertNextPoint(x[i & 1], y[(i >> 1) & 1], z[(i >> 2) & 1]);
    vtkNew<vtkCellArray> lines;
    const int edges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                              {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    for (const auto& e : edges) {
        const vtkIdType ids[2] = {e[0], e[1]};
        lines->InsertNextCell(2, ids);
    }
    m_outline->SetPoints(pts);
    m_outline->SetLines(lines);
    m_outline->Modified();
    m_outlineActor->VisibilityOn();
}

} // namespace ft::views
