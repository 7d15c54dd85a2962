#include "thermal_layer.h"

#include <QFile>
#include <vtkActor.h>
#include <vtkCellArray.h>
#include <vtkFloatArray.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkShaderProperty.h>
#include <vtkUniforms.h>
#include <vtkUnsignedCharArray.h>

#include <algorithm>
#include <cmath>
#include <numbers>

static void initShaderResources() { Q_INIT_RESOURCE(shaders); }

namespace ft::views {

using model::EntityKind;
using model::Vec3;
namespace ch = model::ch;

namespace {
constexpr int kSides = 6;
constexpr float kHeaderRadius = 0.055f;
constexpr float kDropRadius = 0.035f;
constexpr float kHeaderRise = 0.45f; // headers run this far above the rack tops

std::string shaderText(const char* name) {
    QFile f(QString(":/shaders/") + name);
    if (!f.open(QIODevice::ReadOnly)) qFatal("floortwin: shader %s missing from the build", name);
    return f.readAll().toStdString();
}
} // namespace

Rgb ThermalLayer::coolantColor(float c) {
    struct Stop {
        float t;
        float r, g, b;
    };
    static constexpr Stop kStops[] = {{30, 0.10f, 0.20f, 0.75f}, {42, 0.15f, 0.55f, 1.00f}, {47, 0.30f, 0.85f, 0.95f},
                                      {52, 1.00f, 0.78f, 0.25f}, {58, 1.00f, 0.45f, 0.12f}, {64, 0.90f, 0.12f, 0.10f},
                                      {70, 1.00f, 0.85f, 0.85f}};
    if (!std::isfinite(c)) return {90, 90, 90};
    c = std::clamp(c, kStops[0].t, kStops[std::size(kStops) - 1].t);
    for (std::size_t i = 1; i < std::size(kStops); ++i)
        if (c <= kStops[i].t) {
            const Stop& a = kStops[i - 1];
            const Stop& b = kStops[i];
            const float f = (c - a.t) / (b.t - a.t);
            auto mix = [&](float x, float y) { return static_cast<std::uint8_t>(std::lround((x + (y - x) * f) * 255.0f)); };
            return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
        }
    return {255, 255, 255};
}

ThermalLayer::ThermalLayer(const model::Topology& topology, vtkRenderer* renderer)
    : m_topology(topology), m_renderer(renderer) {
    initShaderResources();
    m_designRackFlow = static_cast<float>(topology.spec().rack.ratedPowerKw * topology.spec().cooling.flowLpmPerKw);
    build();
    for (Part& part : m_parts) {
        vtkNew<vtkPolyDataMapper> mapper;
        mapper->SetInputData(part.pipes);
        mapper->SetScalarModeToUsePointData();
        mapper->SetColorModeToDirectScalars();
        mapper->ScalarVisibilityOn();
        for (const char* attribute : {"flowCoord", "flowSpeed", "flowOffset", "flowAlarm"})
            mapper->MapDataArrayToVertexAttribute(attribute, attribute, vtkDataObject::FIELD_ASSOCIATION_POINTS, -1);
        part.actor->SetMapper(mapper);
        part.actor->GetProperty()->SetAmbient(0.35);
        part.actor->GetProperty()->SetDiffuse(0.75);
        part.actor->GetProperty()->SetSpecular(0.25);
        part.actor->GetProperty()->SetSpecularPower(20);
        part.actor->GetProperty()->BackfaceCullingOn();
        part.actor->PickableOff();
        vtkShaderProperty* sp = part.actor->GetShaderProperty();
        sp->AddVertexShaderReplacement("//VTK::Normal::Dec", true, shaderText("flow_vertex_dec.glsl"), false);
        sp->AddVertexShaderReplacement("//VTK::Normal::Impl", true, shaderText("flow_vertex_impl.glsl"), false);
        sp->AddFragmentShaderReplacement("//VTK::Normal::Dec", true, shaderText("flow_fragment_dec.glsl"), false);
        sp->AddFragmentShaderReplacement("//VTK::Color::Impl", true, shaderText("flow_fragment_impl.glsl"), false);
        sp->GetVertexCustomUniforms()->SetUniformf("flowTime", 0.0f);
        sp->GetFragmentCustomUniforms()->SetUniformf("flowFlash", 0.0f);
        part.actor->VisibilityOff();
        renderer->AddActor(part.actor);
    }
}

ThermalLayer::~ThermalLayer() {
    for (Part& part : m_parts) m_renderer->RemoveActor(part.actor);
}

void ThermalLayer::addTube(Part& part, const Vec3& a, const Vec3& b, float radius) {
    const float coordStart = 0;
    auto* points = part.pipes->GetPoints();
    auto* normals = vtkFloatArray::SafeDownCast(part.pipes->GetPointData()->GetNormals());
    auto* coord = vtkFloatArray::SafeDownCast(part.pipes->GetPointData()->GetArray("flowCoord"));
    auto* polys = part.pipes->GetPolys();
    const float d[3] = {b.x - a.x, b.y - a.y, b.z - a.z};
    const float len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    const float t[3] = {d[0] / len, d[1] / len, d[2] / len};
    // Two unit vectors perpendicular to the pipe.
    const float ref[3] = {std::abs(t[2]) > 0.9f ? 1.0f : 0.0f, 0.0f, std::abs(t[2]) > 0.9f ? 0.0f : 1.0f};
    float u[3] = {t[1] * ref[2] - t[2] * ref[1], t[2] * ref[0] - t[0] * ref[2], t[0] * ref[1] - t[1] * ref[0]};
    const float un = std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (float& x : u) x /= un;
    const float w[3] = {t[1] * u[2] - t[2] * u[1], t[2] * u[0] - t[0] * u[2], t[0] * u[1] - t[1] * u[0]};
    const vtkIdType base = points->GetNumberOfPoints();
    for (int end = 0; end < 2; ++end) {
        const Vec3& p = end == 0 ? a : b;
        for (int s = 0; s < kSides; ++s) {
            const float ang = 2.0f * std::numbers::pi_v<float> * static_cast<float>(s) / kSides;
            const float n[3] = {std::cos(ang) * u[0] + std::sin(ang) * w[0], std::cos(ang) * u[1] + std::sin(ang) * w[1],
                                std::cos(ang) * u[2] + std::sin(ang) * w[2]};
            points->InsertNextPoint(p.x + radius * n[0], p.y + radius * n[1], p.z + radius * n[2]);
            normals->InsertNextTuple3(n[0], n[1], n[2]);
            coord->InsertNextValue(coordStart + (end == 0 ? 0.0f : len));
        }
    }
    for (int s = 0; s < kSides; ++s) {
        const int s1 = (s + 1) % kSides;
        const vtkIdType quad[4] = {base + s, base + s1, base + kSides + s1, base + kSides + s};
        polys->InsertNextCell(4, quad);
    }
}

void ThermalLayer::build() {
    const auto& rk = m_topology.spec().rack;
    const float top = static_cast<float>(rk.heightM);
    const float headerZ = top + kHeaderRise;
    for (Part& part : m_parts) {
        vtkNew<vtkPoints> points;
        points->SetDataTypeToFloat();
        vtkNew<vtkFloatArray> normals;
        normals->SetNumberOfComponents(3);
        normals->SetName("normals");
        vtkNew<vtkFloatArray> coord;
        coord->SetName("flowCoord");
        vtkNew<vtkCellArray> polys;
        part.pipes->SetPoints(points);
        part.pipes->SetPolys(polys);
        part.pipes->GetPointData()->SetNormals(normals);
        part.pipes->GetPointData()->AddArray(coord);
    }
    auto add = [&](Part& part, Segment seg, const Vec3& from, const Vec3& to, float radius) {
        part.segments.push_back(m_segments.size());
        m_segments.push_back(seg);
        addTube(part, from, to, radius);
    };
    for (model::EntityId c = 0; c < m_topology.count(EntityKind::Cdu); ++c) {
        const Vec3 cdu = m_topology.cdus.position[c];
        const auto first = m_topology.cdus.firstRack[c];
        const auto count = m_topology.cdus.rackCount[c];
        const float endX = m_topology.racks.position[first + count - 1].x;
        for (int supply = 1; supply >= 0; --supply) {
            // Supply pipes over the front half of the rack tops, return over the back half.
            // Flow runs CDU -> header -> down into the racks, and back up -> header -> CDU.
            const float y = cdu.y + (supply ? -0.2f : 0.2f);
            const Vec3 riserLo{cdu.x, y, top * 0.85f}, riserHi{cdu.x, y, headerZ}, headerEnd{endX, y, headerZ};
            const bool s = supply != 0;
            add(m_parts[0], {Segment::Riser, s, c, 0}, s ? riserLo : riserHi, s ? riserHi : riserLo, kHeaderRadius);
            add(m_parts[0], {Segment::Header, s, c, 0}, s ? riserHi : headerEnd, s ? headerEnd : riserHi, kHeaderRadius);
            for (std::uint32_t i = 0; i < count; ++i) {
                const model::EntityId r = first + i;
                const Vec3 p = m_topology.racks.position[r];
                const Vec3 hi{p.x, y, headerZ}, lo{p.x, y, top};
                add(m_parts[1], {Segment::Drop, s, c, r}, s ? hi : lo, s ? lo : hi, kDropRadius);
            }
        }
    }
    for (Part& part : m_parts) finishPart(part);
    m_baseColor.assign(m_segments.size(), {128, 128, 128});
    m_speed.assign(m_segments.size(), 0);
    m_offset.assign(m_segments.size(), 0);
    m_alarm.assign(m_segments.size(), 0);
    // Small floors always show every drop; big ones only up close.
    m_showDrops = m_topology.count(EntityKind::Rack) <= 200;
}

void ThermalLayer::finishPart(Part& part) {
    const vtkIdType nPoints = part.pipes->GetNumberOfPoints();
    vtkNew<vtkUnsignedCharArray> colors;
    colors->SetNumberOfComponents(3);
    colors->SetName("coolant");
    colors->SetNumberOfTuples(nPoints);
    colors->FillValue(128);
    part.pipes->GetPointData()->SetScalars(colors);
    part.colors = colors;
    auto perVertex = [&](const char* name) {
        vtkNew<vtkFloatArray> a;
        a->SetName(name);
        a->SetNumberOfTuples(nPoints);
        a->FillValue(0);
        part.pipes->GetPointData()->AddArray(a);
        return a.GetPointer();
    };
    part.speed = perVertex("flowSpeed");
    part.offset = perVertex("flowOffset");
    part.alarm = perVertex("flowAlarm");
}

void ThermalLayer::setVisible(bool visible) {
    m_visible = visible;
    m_parts[0].actor->SetVisibility(visible);
    m_parts[1].actor->SetVisibility(visible && m_showDrops);
}

void ThermalLayer::updateDetail(double cameraDistance) {
    if (m_topology.count(EntityKind::Rack) <= 200) return; // always detailed
    m_showDrops = cameraDistance < 60.0;
    m_parts[1].actor->SetVisibility(m_visible && m_showDrops);
}

void ThermalLayer::update(const model::Snapshot& s) {
    std::vector<std::uint8_t> rackAlarm(m_topology.count(EntityKind::Rack), 0);
    for (const auto& a : s.alarms)
        if (a.kind == EntityKind::Rack && (a.channel == ch::RackLeakDetected || a.channel == ch::RackFlow ||
                                           a.channel == ch::RackDeltaTemperature || a.channel == ch::RackSupplyTemperature))
            rackAlarm[a.entity] = std::max<std::uint8_t>(rackAlarm[a.entity], a.severity == model::Severity::Critical ? 2 : 1);

    for (Part& part : m_parts) {
        for (std::size_t k = 0; k < part.segments.size(); ++k) {
            const std::size_t i = part.segments[k];
            const Segment& seg = m_segments[i];
            float flow = 0, temp = 0, perDesign = m_designRackFlow;
            if (seg.kind == Segment::Drop) {
                flow = s.value(ch::RackFlow, seg.rack);
                temp = s.value(seg.supply ? ch::RackSupplyTemperature : ch::RackReturnTemperature, seg.rack);
                m_alarm[i] = rackAlarm[seg.rack];
            } else {
                // Risers and headers carry the whole CDU's flow at its supply or mixed return.
                flow = s.value(ch::CduFlow, seg.cdu);
                temp = s.value(seg.supply ? ch::CduSupplyTemperature : ch::CduReturnTemperature, seg.cdu);
                perDesign *= static_cast<float>(std::min(4u, m_topology.cdus.rackCount[seg.cdu]));
            }
            m_baseColor[i] = coolantColor(temp);
            // Bands move at 0.4 m/s per design rack-flow's worth of coolant (readable, not literal).
            const float speed = 0.4f * flow / perDesign;
            // Keep the bands where they are when the speed changes: time * speed + offset is continuous.
            m_offset[i] = static_cast<float>(std::fmod(m_offset[i] + (m_speed[i] - speed) * m_time, 6000.0));
            m_speed[i] = speed;
            const Rgb c = m_baseColor[i];
            const std::size_t v0 = k * static_cast<std::size_t>(2 * kSides);
            unsigned char* p = part.colors->GetPointer(0) + v0 * 3;
            for (int v = 0; v < 2 * kSides; ++v, p += 3) {
                p[0] = c.r;
                p[1] = c.g;
                p[2] = c.b;
            }
            std::fill_n(part.speed->GetPointer(0) + v0, 2 * kSides, m_speed[i]);
            std::fill_n(part.offset->GetPointer(0) + v0, 2 * kSides, m_offset[i]);
            std::fill_n(part.alarm->GetPointer(0) + v0, 2 * kSides, static_cast<float>(m_alarm[i]));
        }
        part.colors->Modified();
        part.speed->Modified();
        part.offset->Modified();
        part.alarm->Modified();
    }
}

void ThermalLayer::animate(double simSeconds, double wallSeconds) {
    if (!m_visible) return;
    m_time += simSeconds;
    m_flashClock = std::fmod(m_flashClock + wallSeconds, 0.8);
    for (Part& part : m_parts) {
        vtkShaderProperty* sp = part.actor->GetShaderProperty();
        sp->GetVertexCustomUniforms()->SetUniformf("flowTime", static_cast<float>(m_time));
        sp->GetFragmentCustomUniforms()->SetUniformf("flowFlash", m_flashClock < 0.4 ? 1.0f : 0.0f);
    }
}

} // namespace ft::views
