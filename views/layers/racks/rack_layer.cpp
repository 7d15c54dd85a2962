#include "rack_layer.h"

#include "views/hud.h"
#include "views/hud_style.h"
#include "views/imgui_overlay.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <vector>
#include <vtkActor.h>
#include <vtkCellArray.h>
#include <vtkFloatArray.h>
#include <vtkImageData.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkTexture.h>
#include <vtkUnsignedCharArray.h>

namespace ft::views {

using model::EntityId;
using model::EntityKind;

namespace {
constexpr Rgb kCabinet{28, 31, 36};
constexpr Rgb kPowerShelf{52, 56, 62};
constexpr Rgb kSwitchTray{58, 76, 112}; // NVLink switch trays: steel blue when not the metric
constexpr Rgb kNoData{90, 90, 90};
constexpr Rgb kEmptySlot{14, 15, 18};       // a compute slot without a tray: a dark gap
constexpr Rgb kShelfDegraded{230, 150, 40}; // a power shelf with PSUs out
constexpr Rgb kShelfDown{215, 45, 40};      // a power shelf with none delivering
constexpr int kMaxDetailRacks = 48;
constexpr double kMinPixelsPerUnit = 5.0; // a rack unit this tall on screen gets outlines
} // namespace

RackLayer::RackLayer(const model::Topology& topology, vtkRenderer* renderer)
    : Layer(kInfo), m_topology(topology), m_renderer(renderer), m_scale(model::ch::GpuTemperature) {
    const auto& rk = topology.spec().rack;
    m_cellW = rk.gpusPerTray;
    m_cellH = static_cast<int>(std::ceil(rk.heightM / model::Topology::kRackUnitM));
    const int racks = static_cast<int>(topology.count(EntityKind::Rack));
    m_cellsPerRow = std::max(1, std::min(racks, 2048 / m_cellW));
    m_atlasW = m_cellsPerRow * m_cellW;
    m_atlasH = ((racks + m_cellsPerRow - 1) / m_cellsPerRow) * m_cellH;
    // The "beacon": a band near the top of each rack front showing the rack aggregate.
    m_beaconEnd = m_cellH - 2;
    m_beaconBegin = std::max(0, m_beaconEnd - 4);

    m_atlas->SetDimensions(m_atlasW, m_atlasH, 1);
    m_atlas->AllocateScalars(VTK_UNSIGNED_CHAR, 3);
    m_texels = vtkUnsignedCharArray::SafeDownCast(m_atlas->GetPointData()->GetScalars());
    std::fill_n(m_texels->GetPointer(0), static_cast<std::size_t>(m_atlasW) * m_atlasH * 3, 0);
    m_texture->SetInputData(m_atlas);
    m_texture->InterpolateOff();
    m_texture->RepeatOff();
    m_texture->EdgeClampOn();

    buildGeometry();
    vtkNew<vtkPolyDataMapper> mapper;
    mapper->SetInputData(m_racks);
    mapper->ScalarVisibilityOff();
    m_rackActor->SetMapper(mapper);
    m_rackActor->SetTexture(m_texture);
    m_rackActor->GetProperty()->SetAmbient(0.45);
    m_rackActor->GetProperty()->SetDiffuse(0.7);
    m_rackActor->GetProperty()->SetSpecular(0.0);
    m_rackActor->GetProperty()->BackfaceCullingOn(); // closed boxes: back faces are never seen
    m_rackActor->PickableOff();
    renderer->AddActor(m_rackActor);

    vtkNew<vtkPolyDataMapper> detailMapper;
    detailMapper->SetInputData(m_detail);
    detailMapper->ScalarVisibilityOff();
    m_detailActor->SetMapper(detailMapper);
    m_detailActor->GetProperty()->SetColor(0.05, 0.06, 0.08);
    m_detailActor->GetProperty()->SetLineWidth(1.0);
    m_detailActor->GetProperty()->LightingOff();
    m_detailActor->PickableOff();
    m_detailActor->VisibilityOff();
    renderer->AddActor(m_detailActor);

    for (EntityId r = 0; r < static_cast<EntityId>(racks); ++r)
        for (int row = 0; row < m_cellH; ++row)
            for (int c = 0; c < m_cellW; ++c)
                setTexel(r, c, row, kCabinet, Coverage::Measured);
}

RackLayer::~RackLayer() {
    m_renderer->RemoveActor(m_rackActor);
    m_renderer->RemoveActor(m_detailActor);
}

void RackLayer::buildGeometry() {
    const auto& rk = m_topology.spec().rack;
    const auto racks = static_cast<EntityId>(m_topology.count(EntityKind::Rack));
    const float hw = static_cast<float>(rk.widthM) / 2 * 0.96f; // a small gap between racks
    const float hd = static_cast<float>(rk.depthM) / 2;
    const auto h = static_cast<float>(rk.heightM);

    vtkNew<vtkPoints> points;
    points->SetDataTypeToFloat();
    points->Allocate(static_cast<vtkIdType>(racks) * 20);
    vtkNew<vtkFloatArray> tcoords;
    tcoords->SetNumberOfComponents(2);
    tcoords->SetName("tcoords");
    tcoords->Allocate(static_cast<vtkIdType>(racks) * 40);
    vtkNew<vtkFloatArray> normals;
    normals->SetNumberOfComponents(3);
    normals->SetName("normals");
    vtkNew<vtkCellArray> quads;

    const float eps = 0.02f;
    auto texU = [&](EntityId r, float col) {
        return (static_cast<float>((r % m_cellsPerRow) * m_cellW) + col) /
               static_cast<float>(m_atlasW);
    };
    auto texV = [&](EntityId r, float row) {
        return (static_cast<float>((r / m_cellsPerRow) * m_cellH) + row) /
               static_cast<float>(m_atlasH);
    };
    for (EntityId r = 0; r < racks; ++r) {
        const model::Vec3 c = m_topology.racks.position[r];
        auto quad = [&](std::array<std::array<float, 3>, 4> p,
                        std::array<std::array<float, 2>, 4> t, std::array<float, 3> n) {
            vtkIdType ids[4];
            for (int i = 0; i < 4; ++i) {
                ids[i] = points->InsertNextPoint(c.x + p[i][0], c.y + p[i][1], p[i][2]);
                tcoords->InsertNextTuple2(t[i][0], t[i][1]);
                normals->InsertNextTuple3(n[0], n[1], n[2]);
            }
            quads->InsertNextCell(4, ids);
        };
        // Front (-y): the full cell, one texel column per GPU, one texel row per rack unit.
        const float u0 = texU(r, eps), u1 = texU(r, static_cast<float>(m_cellW) - eps);
        const float v0 = texV(r, eps), v1 = texV(r, h / model::Topology::kRackUnitM - eps);
        quad({{{-hw, -hd, 0}, {hw, -hd, 0}, {hw, -hd, h}, {-hw, -hd, h}}},
             {{{u0, v0}, {u1, v0}, {u1, v1}, {u0, v1}}}, {0, -1, 0});
        // Top: the rack aggregate (a beacon texel).
        const float bu = texU(r, 0.5f), bv = texV(r, static_cast<float>(m_beaconBegin) + 0.5f);
        quad({{{-hw, -hd, h}, {hw, -hd, h}, {hw, hd, h}, {-hw, hd, h}}},
             {{{bu, bv}, {bu, bv}, {bu, bv}, {bu, bv}}}, {0, 0, 1});
        // Sides and back: cabinet.
        const float cu = texU(r, 0.5f), cv = texV(r, 0.5f);
        const std::array<std::array<float, 2>, 4> cab{{{cu, cv}, {cu, cv}, {cu, cv}, {cu, cv}}};
        quad({{{hw, -hd, 0}, {hw, hd, 0}, {hw, hd, h}, {hw, -hd, h}}}, cab, {1, 0, 0});
        quad({{{-hw, hd, 0}, {-hw, -hd, 0}, {-hw, -hd, h}, {-hw, hd, h}}}, cab, {-1, 0, 0});
        quad({{{hw, hd, 0}, {-hw, hd, 0}, {-hw, hd, h}, {hw, hd, h}}}, cab, {0, 1, 0});
    }
    m_racks->SetPoints(points);
    m_racks->SetPolys(quads);
    m_racks->GetPointData()->SetTCoords(tcoords);
    m_racks->GetPointData()->SetNormals(normals);
}

void RackLayer::setTexel(EntityId rack, int column, int row, Rgb color, Coverage coverage) {
    const int x = static_cast<int>(rack % m_cellsPerRow) * m_cellW + column;
    const int y = static_cast<int>(rack / m_cellsPerRow) * m_cellH + row;
    unsigned char* p = m_texels->GetPointer(0) + (static_cast<std::size_t>(y) * m_atlasW + x) * 3;
    color = paintCoverage(color, coverage, (column + row) % 2 == 0);
    p[0] = static_cast<unsigned char>(static_cast<float>(color.r) * m_paintScale);
    p[1] = static_cast<unsigned char>(static_cast<float>(color.g) * m_paintScale);
    p[2] = static_cast<unsigned char>(static_cast<float>(color.b) * m_paintScale);
}

void RackLayer::fillRows(EntityId rack, int rowBegin, int rowEnd, Rgb color, Coverage coverage) {
    for (int row = std::max(0, rowBegin); row < std::min(rowEnd, m_cellH); ++row)
        for (int c = 0; c < m_cellW; ++c)
            setTexel(rack, c, row, color, coverage);
}

void RackLayer::setMetric(model::ChannelId channel) {
    m_metric = channel;
    m_scale = ColorScale(channel);
    // A rack shows its hottest GPU, its worst health, its most errors: the one to look at.
    using namespace model::ch;
    m_aggregateMax = model::kChannels[channel].name.find("temperature") != std::string_view::npos ||
                     channel == GpuHealth || channel == ComputeTraySchedulerState ||
                     channel == GpuXidCount || channel == GpuRemappedRowsCorrectable ||
                     channel == GpuRemappedRowsUncorrectable || channel == GpuRowRemapPending ||
                     channel == GpuRowRemapFailure || channel == GpuEccDoubleBit ||
                     channel == GpuEccSingleBit || channel == GpuPcieReplays;
}

void RackLayer::applyVisibility(bool visible) {
    m_rackActor->SetVisibility(visible);
    if (!visible) m_detailActor->VisibilityOff();
}

std::pair<float, Coverage> RackLayer::rackValue(const model::Snapshot& s, EntityId rack) const {
    const auto& info = model::kChannels[m_metric];
    const auto& rk = m_topology.spec().rack;
    const auto values = s.channel(m_metric);
    const bool fill = fillModelled();
    std::size_t count = 0;
    switch (info.kind) {
    case EntityKind::Rack:
        return {values[rack], coverageOf(s, m_metric, rack, fill)};
    case EntityKind::Gpu:
        count = static_cast<std::size_t>(rk.computeTrays) * rk.gpusPerTray;
        break;
    case EntityKind::Cpu:
        count = static_cast<std::size_t>(rk.computeTrays) * rk.cpusPerTray;
        break;
    case EntityKind::ComputeTray:
        count = static_cast<std::size_t>(rk.computeTrays);
        break;
    case EntityKind::SwitchTray:
        count = static_cast<std::size_t>(rk.switchTrays);
        break;
    case EntityKind::Cdu: {
        const EntityId cdu = m_topology.racks.cdu[rack];
        return {values[cdu], coverageOf(s, m_metric, cdu, fill)};
    }
    default:
        return {NAN, Coverage::NoData};
    }
    // The rack's max or mean over its measured members; over the model's values only when
    // none was measured and the user asked for them.
    const std::size_t first = rack * count;
    auto fold = [&](Coverage want) -> std::optional<float> {
        const bool byMax = m_aggregateMax && !m_baseline; // a difference: its mean
        float acc = byMax ? -1e30f : 0.0f;
        std::size_t n = 0;
        for (std::size_t i = first; i < first + count; ++i) {
            const Coverage c = coverageOf(s, m_metric, static_cast<EntityId>(i), fill);
            if (c != want) continue;
            acc = byMax ? std::max(acc, values[i]) : acc + values[i];
            ++n;
        }
        if (n == 0) return std::nullopt;
        return byMax ? acc : acc / static_cast<float>(n);
    };
    for (const Coverage c : {Coverage::Measured, Coverage::Stale, Coverage::Modelled})
        if (auto v = fold(c)) return {*v, c};
    return {NAN, Coverage::NoData};
}

void RackLayer::paintRack(const model::Snapshot& s, EntityId rack) {
    const auto& rk = m_topology.spec().rack;
    const auto& info = model::kChannels[m_metric];
    const auto values = s.channel(m_metric);
    const bool fill = fillModelled();
    const auto [rackV, rackCov] = rackValue(s, rack);
    const Rgb aggregate = mapValue(rackV);
    const bool uniformMetric = info.kind == EntityKind::Rack || info.kind == EntityKind::Cdu;
    auto cov = [&](std::size_t e) {
        return coverageOf(s, m_metric, static_cast<EntityId>(e), fill);
    };

    for (int t = 0; t < rk.computeTrays; ++t) {
        const int row = static_cast<int>(m_topology.computeSlots[t].bottomU);
        const std::size_t tray = static_cast<std::size_t>(rack) * rk.computeTrays + t;
        for (int c = 0; c < m_cellW; ++c) {
            Rgb color = kNoData;
            Coverage coverage = Coverage::Measured;
            if (uniformMetric) {
                color = aggregate;
                coverage = rackCov;
            } else if (info.kind == EntityKind::Gpu) {
                const std::size_t g = tray * rk.gpusPerTray + c;
                color = mapValue(values[g]);
                coverage = cov(g);
            } else if (info.kind == EntityKind::Cpu && rk.cpusPerTray > 0) {
                const std::size_t cpu = tray * rk.cpusPerTray + c * rk.cpusPerTray / rk.gpusPerTray;
                color = mapValue(values[cpu]);
                coverage = cov(cpu);
            } else if (info.kind == EntityKind::ComputeTray) {
                color = mapValue(values[tray]);
                coverage = cov(tray);
            } else if (info.kind == EntityKind::SwitchTray)
                color = kCabinet;
            if (!m_topology.trayInstalled(static_cast<EntityId>(tray))) {
                color = kEmptySlot; // no tray in this slot: nothing to measure or model
                coverage = Coverage::Measured;
            }
            setTexel(rack, c, row, color, coverage);
        }
    }
    for (int sw = 0; sw < rk.switchTrays; ++sw) {
        const int row = static_cast<int>(m_topology.switchSlots[sw].bottomU);
        const std::size_t id = static_cast<std::size_t>(rack) * rk.switchTrays + sw;
        if (uniformMetric)
            fillRows(rack, row, row + 1, aggregate, rackCov);
        else if (info.kind == EntityKind::SwitchTray)
            fillRows(rack, row, row + 1, mapValue(values[id]), cov(id));
        else
            fillRows(rack, row, row + 1, kSwitchTray, Coverage::Measured);
    }
    // Power shelves: grey while all their PSUs deliver, amber with some out, red with none.
    const auto psusOk = s.channel(model::ch::ShelfPsusOk);
    const auto perShelf = static_cast<float>(m_topology.spec().power.psusPerShelf);
    for (std::size_t k = 0; k < m_topology.powerShelfSlots.size(); ++k) {
        const int row = static_cast<int>(m_topology.powerShelfSlots[k].bottomU);
        const std::size_t shelf =
            static_cast<std::size_t>(rack) * m_topology.powerShelfSlots.size() + k;
        const float ok = shelf < psusOk.size() ? psusOk[shelf] : perShelf;
        const bool whole = !(ok < perShelf);
        const Rgb color = whole ? kPowerShelf : ok > 0 ? kShelfDegraded : kShelfDown;
        fillRows(rack, row, row + 1, color,
                 whole ? Coverage::Measured
                       : coverageOf(s, model::ch::ShelfPsusOk, static_cast<EntityId>(shelf),
                                    fillModelled()));
    }
    fillRows(rack, m_beaconBegin, m_beaconEnd, aggregate, rackCov);
}

void RackLayer::setBaseline(const std::shared_ptr<const model::Snapshot>& baseline,
                            const std::string& label) {
    m_baseline = baseline;
    m_baselineLabel = label;
}

float RackLayer::differenceRange() const {
    return std::max(1e-3f, (m_scale.max() - m_scale.min()) / 4.0f);
}

Rgb RackLayer::mapValue(float value) const {
    if (!m_baseline) return m_scale.map(value);
    // Diverging: blue below the baseline, a neutral grey where they agree, red above. With a
    // colour-vision-safe palette, that palette's two ends instead.
    const float t = std::clamp(0.5f + 0.5f * value / differenceRange(), 0.0f, 1.0f);
    if (ColorScale::currentPalette() != Palette::Turbo) return ColorScale::palette(t);
    const Rgb lo{40, 110, 230}, mid{150, 154, 162}, hi{235, 60, 45};
    const Rgb& a = t < 0.5f ? lo : mid;
    const Rgb& b = t < 0.5f ? mid : hi;
    const float u = t < 0.5f ? t * 2 : (t - 0.5f) * 2;
    auto mix = [u](std::uint8_t x, std::uint8_t y) {
        return static_cast<std::uint8_t>(static_cast<float>(x) +
                                         (static_cast<float>(y) - static_cast<float>(x)) * u);
    };
    return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

const model::Snapshot& RackLayer::differenceOf(const model::Snapshot& a) {
    const model::Snapshot& b = *m_baseline;
    model::Snapshot& d = m_difference;
    const auto kind = model::kChannels[m_metric].kind;
    const auto k = static_cast<std::size_t>(kind);
    d.time = a.time;
    d.tick = a.tick;
    d.values.resize(a.values.size());
    d.values[model::ch::ShelfPsusOk] = a.values[model::ch::ShelfPsusOk];
    // Only what both sides measured has a difference; the rest is no data.
    d.telemetry = true;
    d.staleAfter = std::numeric_limits<model::TimeNs>::max() / 4;
    d.measuredChannels.reset();
    d.measuredChannels.set(m_metric);
    d.measuredChannels.set(model::ch::ShelfPsusOk);
    const auto av = a.channel(m_metric), bv = b.channel(m_metric);
    auto& out = d.values[m_metric];
    out.assign(av.size(), 0.0f);
    for (std::size_t i = 0; i < d.measuredAt.size(); ++i)
        d.measuredAt[i].assign(m_topology.count(static_cast<EntityKind>(i)), a.time);
    auto& at = d.measuredAt[k];
    for (EntityId e = 0; e < av.size(); ++e) {
        const bool both = e < bv.size() && a.measured(m_metric, e) && b.measured(m_metric, e);
        out[e] = both ? av[e] - bv[e] : 0.0f;
        if (!both) at[e] = 0;
    }
    return d;
}

void RackLayer::update(const model::Snapshot& snapshot_) {
    const model::Snapshot& snapshot =
        m_baseline && !model::isDetailChannel(m_metric) ? differenceOf(snapshot_) : snapshot_;
    const auto racks = static_cast<EntityId>(m_topology.count(EntityKind::Rack));
    for (EntityId r = 0; r < racks; ++r) {
        m_paintScale = r < m_emphasis.size() ? m_emphasis[r] : 1.0f;
        paintRack(snapshot, r);
    }
    m_paintScale = 1.0f;
    m_texels->Modified();
    m_atlas->Modified();
}

void RackLayer::updateDetail(const CameraView& camera) {
    const model::Vec3& focus = camera.rig.focus;
    const double cameraDistance = camera.rig.distance, pixelsPerMetre = camera.pixelsPerMetre;
    if (!visible() || pixelsPerMetre * model::Topology::kRackUnitM < kMinPixelsPerUnit ||
        cameraDistance > 60.0) {
        m_detailActor->VisibilityOff();
        return;
    }
    // The racks nearest the focal point, up to a fixed budget.
    const auto racks = static_cast<EntityId>(m_topology.count(EntityKind::Rack));
    std::vector<std::pair<float, EntityId>> byDistance;
    byDistance.reserve(racks);
    for (EntityId r = 0; r < racks; ++r) {
        const auto p = m_topology.racks.position[r];
        const float dx = p.x - focus.x, dy = p.y - focus.y;
        byDistance.emplace_back(dx * dx + dy * dy, r);
    }
    const std::size_t n = std::min<std::size_t>(kMaxDetailRacks, byDistance.size());
    std::partial_sort(byDistance.begin(), byDistance.begin() + static_cast<std::ptrdiff_t>(n),
                      byDistance.end());
    std::vector<EntityId> chosen;
    for (std::size_t i = 0; i < n; ++i)
        chosen.push_back(byDistance[i].second);
    std::sort(chosen.begin(), chosen.end());
    m_detailActor->VisibilityOn();
    if (chosen == m_detailRacks) return;
    m_detailRacks = chosen;

    const auto& rk = m_topology.spec().rack;
    const float hw = static_cast<float>(rk.widthM) / 2 * 0.96f;
    const float y = -static_cast<float>(rk.depthM) / 2 - 0.004f;
    constexpr float U = model::Topology::kRackUnitM;
    vtkNew<vtkPoints> points;
    vtkNew<vtkCellArray> lines;
    auto segment = [&](float x0, float z0, float x1, float z1, const model::Vec3& c) {
        const vtkIdType a = points->InsertNextPoint(c.x + x0, c.y + y, z0);
        const vtkIdType b = points->InsertNextPoint(c.x + x1, c.y + y, z1);
        const vtkIdType ids[2] = {a, b};
        lines->InsertNextCell(2, ids);
    };
    for (EntityId r : chosen) {
        const auto c = m_topology.racks.position[r];
        // Tray boundaries, and the GPU divisions of each compute tray.
        for (const auto& s : m_topology.computeSlots) {
            segment(-hw, s.bottomU * U, hw, s.bottomU * U, c);
            for (int g = 1; g < rk.gpusPerTray; ++g) {
                const float x =
                    -hw + 2 * hw * static_cast<float>(g) / static_cast<float>(rk.gpusPerTray);
                segment(x, s.bottomU * U, x, (s.bottomU + s.heightU) * U, c);
            }
        }
        for (const auto& s : m_topology.switchSlots)
            segment(-hw, s.bottomU * U, hw, s.bottomU * U, c);
        for (const auto& s : m_topology.powerShelfSlots) {
            segment(-hw, s.bottomU * U, hw, s.bottomU * U, c);
            segment(-hw, (s.bottomU + 1) * U, hw, (s.bottomU + 1) * U, c);
        }
        const float beaconLo = static_cast<float>(m_beaconBegin) * U;
        segment(-hw, beaconLo, hw, beaconLo, c);
    }
    m_detail->SetPoints(points);
    m_detail->SetLines(lines);
    m_detail->Modified();
}

} // namespace ft::views
