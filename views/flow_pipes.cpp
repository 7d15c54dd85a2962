#include "flow_pipes.h"

#include <QFile>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <unordered_map>
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

static void initShaderResources() {
    Q_INIT_RESOURCE(shaders);
}

namespace ft::views {

namespace {
constexpr int kSides = 6;
constexpr int kVerts = 2 * kSides;

// Scene renderer -> the renderer its moving pipes go into (GUI thread only).
std::unordered_map<vtkRenderer*, vtkRenderer*>& flowRenderers() {
    static std::unordered_map<vtkRenderer*, vtkRenderer*> map;
    return map;
}

vtkRenderer* flowRendererOf(vtkRenderer* scene) {
    const auto it = flowRenderers().find(scene);
    return it == flowRenderers().end() ? scene : it->second;
}

// Every FlowPipes, for markTiles (GUI thread only).
std::vector<const FlowPipes*>& allPipes() {
    static std::vector<const FlowPipes*> pipes;
    return pipes;
}

std::string shaderText(const char* name) {
    QFile f(QString(":/shaders/") + name);
    if (!f.open(QIODevice::ReadOnly)) qFatal("floortwin: shader %s missing from the build", name);
    return f.readAll().toStdString();
}
} // namespace

std::uint64_t FlowPipes::s_shapeGeneration = 0;

void FlowPipes::setFlowRenderer(vtkRenderer* scene, vtkRenderer* flows) {
    if (flows)
        flowRenderers()[scene] = flows;
    else
        flowRenderers().erase(scene);
}

FlowPipes::FlowPipes(vtkRenderer* renderer) : m_renderer(flowRendererOf(renderer)) {
    initShaderResources();
    clear();
    finish();
    vtkNew<vtkPolyDataMapper> mapper;
    mapper->SetInputData(m_pipes);
    mapper->SetScalarModeToUsePointData();
    mapper->SetColorModeToDirectScalars();
    mapper->ScalarVisibilityOn();
    for (const char* attribute : {"flowCoord", "flowSpeed", "flowOffset", "flowAlarm"})
        mapper->MapDataArrayToVertexAttribute(attribute, attribute,
                                              vtkDataObject::FIELD_ASSOCIATION_POINTS, -1);
    m_actor->SetMapper(mapper);
    m_actor->GetProperty()->SetAmbient(0.35);
    m_actor->GetProperty()->SetDiffuse(0.75);
    m_actor->GetProperty()->SetSpecular(0.25);
    m_actor->GetProperty()->SetSpecularPower(20);
    m_actor->GetProperty()->BackfaceCullingOn();
    m_actor->PickableOff();
    vtkShaderProperty* sp = m_actor->GetShaderProperty();
    sp->AddVertexShaderReplacement("//VTK::Normal::Dec", true, shaderText("flow_vertex_dec.glsl"),
                                   false);
    sp->AddVertexShaderReplacement("//VTK::Normal::Impl", true, shaderText("flow_vertex_impl.glsl"),
                                   false);
    sp->AddFragmentShaderReplacement("//VTK::Normal::Dec", true,
                                     shaderText("flow_fragment_dec.glsl"), false);
    sp->AddFragmentShaderReplacement("//VTK::Color::Impl", true,
                                     shaderText("flow_fragment_impl.glsl"), false);
    sp->GetVertexCustomUniforms()->SetUniformf("flowTime", 0.0f);
    sp->GetFragmentCustomUniforms()->SetUniformf("flowFlash", 0.0f);
    m_actor->VisibilityOff();
    m_renderer->AddActor(m_actor);
    allPipes().push_back(this);
}

FlowPipes::~FlowPipes() {
    m_renderer->RemoveActor(m_actor);
    std::erase(allPipes(), this);
    ++s_shapeGeneration;
}

void FlowPipes::clear() {
    vtkNew<vtkPoints> points;
    points->SetDataTypeToFloat();
    vtkNew<vtkFloatArray> normals;
    normals->SetNumberOfComponents(3);
    normals->SetName("normals");
    vtkNew<vtkFloatArray> coord;
    coord->SetName("flowCoord");
    vtkNew<vtkCellArray> polys;
    m_pipes->Initialize();
    m_pipes->SetPoints(points);
    m_pipes->SetPolys(polys);
    m_pipes->GetPointData()->SetNormals(normals);
    m_pipes->GetPointData()->AddArray(coord);
    m_segments = 0;
    m_segmentEnds.clear();
    m_segmentRadius.clear();
    ++s_shapeGeneration;
}

std::size_t FlowPipes::add(const model::Vec3& a, const model::Vec3& b, float radius) {
    auto* points = m_pipes->GetPoints();
    auto* normals = vtkFloatArray::SafeDownCast(m_pipes->GetPointData()->GetNormals());
    auto* coord = vtkFloatArray::SafeDownCast(m_pipes->GetPointData()->GetArray("flowCoord"));
    auto* polys = m_pipes->GetPolys();
    const float d[3] = {b.x - a.x, b.y - a.y, b.z - a.z};
    const float len = std::max(1e-4f, std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
    const float t[3] = {d[0] / len, d[1] / len, d[2] / len};
    // Two unit vectors perpendicular to the pipe.
    const float ref[3] = {std::abs(t[2]) > 0.9f ? 1.0f : 0.0f, 0.0f,
                          std::abs(t[2]) > 0.9f ? 0.0f : 1.0f};
    float u[3] = {t[1] * ref[2] - t[2] * ref[1], t[2] * ref[0] - t[0] * ref[2],
                  t[0] * ref[1] - t[1] * ref[0]};
    const float un = std::max(1e-6f, std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]));
    for (float& x : u)
        x /= un;
    const float w[3] = {t[1] * u[2] - t[2] * u[1], t[2] * u[0] - t[0] * u[2],
                        t[0] * u[1] - t[1] * u[0]};
    const vtkIdType base = points->GetNumberOfPoints();
    for (int end = 0; end < 2; ++end) {
        const model::Vec3& p = end == 0 ? a : b;
        for (int s = 0; s < kSides; ++s) {
            const float ang = 2.0f * std::numbers::pi_v<float> * static_cast<float>(s) / kSides;
            const float n[3] = {std::cos(ang) * u[0] + std::sin(ang) * w[0],
                                std::cos(ang) * u[1] + std::sin(ang) * w[1],
                                std::cos(ang) * u[2] + std::sin(ang) * w[2]};
            points->InsertNextPoint(p.x + radius * n[0], p.y + radius * n[1], p.z + radius * n[2]);
            normals->InsertNextTuple3(n[0], n[1], n[2]);
            coord->InsertNextValue(end == 0 ? 0.0f : len);
        }
    }
    for (int s = 0; s < kSides; ++s) {
        const int s1 = (s + 1) % kSides;
        const vtkIdType quad[4] = {base + s, base + s1, base + kSides + s1, base + kSides + s};
        polys->InsertNextCell(4, quad);
    }
    m_segmentEnds.push_back(a);
    m_segmentEnds.push_back(b);
    m_segmentRadius.push_back(radius);
    return m_segments++;
}

void FlowPipes::setRadius(std::size_t i, float radius) {
    if (std::abs(m_segmentRadius[i] - radius) < 1e-4f) return;
    m_segmentRadius[i] = radius;
    ++s_shapeGeneration;
    auto* points = vtkFloatArray::SafeDownCast(m_pipes->GetPoints()->GetData());
    const float* n =
        vtkFloatArray::SafeDownCast(m_pipes->GetPointData()->GetNormals())->GetPointer(0);
    float* p = points->GetPointer(0);
    for (int v = 0; v < kVerts; ++v) {
        const std::size_t k = i * kVerts + static_cast<std::size_t>(v);
        const model::Vec3& c = m_segmentEnds[2 * i + (v < kSides ? 0 : 1)];
        p[3 * k] = c.x + radius * n[3 * k];
        p[3 * k + 1] = c.y + radius * n[3 * k + 1];
        p[3 * k + 2] = c.z + radius * n[3 * k + 2];
    }
    m_pointsDirty = true;
}

void FlowPipes::finish() {
    const vtkIdType n = m_pipes->GetPoints()->GetNumberOfPoints();
    vtkNew<vtkUnsignedCharArray> colors;
    colors->SetNumberOfComponents(3);
    colors->SetName("colors");
    colors->SetNumberOfTuples(n);
    colors->FillValue(128);
    m_pipes->GetPointData()->SetScalars(colors);
    m_colors = colors;
    auto perVertex = [&](const char* name) {
        vtkNew<vtkFloatArray> a;
        a->SetName(name);
        a->SetNumberOfTuples(n);
        a->FillValue(0);
        m_pipes->GetPointData()->AddArray(a);
        return a.GetPointer();
    };
    ++s_shapeGeneration;
    m_speed = perVertex("flowSpeed");
    m_offset = perVertex("flowOffset");
    m_alarm = perVertex("flowAlarm");
    m_segmentSpeed.resize(m_segments, 0.0f);
    m_segmentOffset.resize(m_segments, 0.0f);
    m_pipes->Modified();
}

void FlowPipes::set(std::size_t i, Rgb c, float speed, std::uint8_t alarm) {
    // Keep the bands where they are when the speed changes: time * speed + offset is continuous.
    m_segmentOffset[i] = static_cast<float>(
        std::fmod(m_segmentOffset[i] + (m_segmentSpeed[i] - speed) * m_time, 6000.0));
    m_segmentSpeed[i] = speed;
    const std::size_t v0 = i * kVerts;
    unsigned char* p = m_colors->GetPointer(0) + v0 * 3;
    for (int v = 0; v < kVerts; ++v, p += 3) {
        p[0] = c.r;
        p[1] = c.g;
        p[2] = c.b;
    }
    std::fill_n(m_speed->GetPointer(0) + v0, kVerts, speed);
    std::fill_n(m_offset->GetPointer(0) + v0, kVerts, m_segmentOffset[i]);
    std::fill_n(m_alarm->GetPointer(0) + v0, kVerts, static_cast<float>(alarm));
}

void FlowPipes::commit() {
    if (m_pointsDirty) {
        m_pipes->GetPoints()->Modified();
        m_pointsDirty = false;
    }
    m_colors->Modified();
    m_speed->Modified();
    m_offset->Modified();
    m_alarm->Modified();
}

void FlowPipes::setVisible(bool visible) {
    const bool shown = visible && m_segments > 0;
    if (shown != m_shown) ++s_shapeGeneration;
    m_shown = shown;
    m_actor->SetVisibility(shown);
}

void FlowPipes::markTiles(const vtkRenderer* flows, const double m[16], int width, int height,
                          TileMask& mask) {
    // Rows of the matrix: x, y and w of clip space, and the lengths of their linear parts
    // (how far a world offset of one metre can move each).
    const auto norm = [m](std::ptrdiff_t row) {
        const double* r = m + 4 * row;
        return std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    };
    const double nx = norm(0), ny = norm(1), nw = norm(3);
    struct End {
        double x, y, w; // pixels from the top-left corner; clip w
        double ndcX, ndcY;
    };
    const auto project = [&](const model::Vec3& p) {
        const double cx = m[0] * p.x + m[1] * p.y + m[2] * p.z + m[3];
        const double cy = m[4] * p.x + m[5] * p.y + m[6] * p.z + m[7];
        const double cw = m[12] * p.x + m[13] * p.y + m[14] * p.z + m[15];
        End e{0, 0, cw, 0, 0};
        if (cw <= 0) return e;
        e.ndcX = cx / cw;
        e.ndcY = cy / cw;
        e.x = (e.ndcX + 1.0) * 0.5 * width;
        e.y = (1.0 - e.ndcY) * 0.5 * height;
        return e;
    };
    const double step = mask.tile;
    for (const FlowPipes* pipes : allPipes()) {
        if (pipes->m_renderer != flows || !pipes->m_shown) continue;
        for (std::size_t i = 0; i < pipes->m_segments; ++i) {
            const double r = pipes->m_segmentRadius[i];
            const End a = project(pipes->m_segmentEnds[2 * i]);
            const End b = project(pipes->m_segmentEnds[2 * i + 1]);
            // Clip w is linear along the pipe and |ndc| largest at an end: the nearest end and
            // the larger offsets bound every cross-section of the tube.
            const double nearW = std::min(a.w, b.w) - r * nw;
            if (nearW <= 1e-6) {
                mask.markAll();
                return;
            }
            const double ndcX = std::max(std::abs(a.ndcX), std::abs(b.ndcX));
            const double ndcY = std::max(std::abs(a.ndcY), std::abs(b.ndcY));
            // One pixel more: a pixel is drawn when its centre is inside.
            const double dx = r * (nx + ndcX * nw) / nearW * 0.5 * width + 1.0;
            const double dy = r * (ny + ndcY * nw) / nearW * 0.5 * height + 1.0;
            const double length = std::hypot(b.x - a.x, b.y - a.y);
            const int steps = std::max(1, static_cast<int>(std::ceil(length / step)));
            double px = a.x, py = a.y;
            for (int k = 1; k <= steps; ++k) {
                const double t = static_cast<double>(k) / steps;
                const double qx = a.x + (b.x - a.x) * t, qy = a.y + (b.y - a.y) * t;
                mask.markBox(static_cast<float>(std::min(px, qx) - dx),
                             static_cast<float>(std::min(py, qy) - dy),
                             static_cast<float>(std::max(px, qx) + dx),
                             static_cast<float>(std::max(py, qy) + dy));
                px = qx;
                py = qy;
            }
        }
    }
}

void FlowPipes::animate(double simSeconds, double wallSeconds) {
    m_time += simSeconds;
    m_flash = std::fmod(m_flash + wallSeconds, 0.8);
    vtkShaderProperty* sp = m_actor->GetShaderProperty();
    sp->GetVertexCustomUniforms()->SetUniformf("flowTime", static_cast<float>(m_time));
    sp->GetFragmentCustomUniforms()->SetUniformf("flowFlash", m_flash < 0.4 ? 1.0f : 0.0f);
}

} // namespace ft::views
