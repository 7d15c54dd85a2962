#pragma once
// FlowPipes: straight pipes drawn as lit tubes in one actor, each with its own colour, band
// speed and alarm flag, animated by shaders/flow_*.glsl (moving bands, alarm flashes). Layers
// build the pipes once (or again when their shape changes) and update colours and speeds in
// place; animation only changes shader uniforms. UI thread only.
#include "color_scale.h"
#include "model/topology.h"
#include "tile_mask.h"

#include <cstdint>
#include <vtkNew.h>

class vtkActor;
class vtkFloatArray;
class vtkPolyData;
class vtkRenderer;
class vtkUnsignedCharArray;

namespace ft::views {

class FlowPipes {
public:
    // Pipes made for `renderer` go into its flow renderer when one is registered: the floor
    // view draws what moves every frame apart from the still scene, whose picture it keeps.
    explicit FlowPipes(vtkRenderer* renderer);
    static void setFlowRenderer(vtkRenderer* scene, vtkRenderer* flows); // flows null: forget
    ~FlowPipes();
    FlowPipes(const FlowPipes&) = delete;
    FlowPipes& operator=(const FlowPipes&) = delete;

    // Geometry: clear, add pipes (flow runs from a to b), then finish.
    void clear();
    std::size_t add(const model::Vec3& a, const model::Vec3& b, float radius);
    void finish();
    std::size_t size() const { return m_segments; }

    // Per pipe: colour, band speed (m/s; bands stay continuous when it changes), alarm (0-2).
    void set(std::size_t pipe, Rgb color, float speed, std::uint8_t alarm = 0);
    // Thickens or thins a pipe in place (link bundles show utilization by width).
    void setRadius(std::size_t pipe, float radius);
    void commit(); // after the set() calls of a snapshot

    void setVisible(bool visible);
    void animate(double simSeconds, double wallSeconds);

    // Moves whenever any FlowPipes' shape or visibility changes (not its colours or bands):
    // what a mask from markTiles depends on, besides the camera and the frame's size.
    static std::uint64_t shapeGeneration() { return s_shapeGeneration; }
    // Marks every tile of `mask` that a visible pipe drawn by `flows` may touch, given the
    // camera's world-to-clip matrix (row-major) and the frame's size in framebuffer pixels.
    // Conservative: each tube is bounded by its axis widened by its radius as projected at its
    // nearest end; a tube reaching the camera's plane marks every tile.
    static void markTiles(const vtkRenderer* flows, const double worldToClip[16], int width,
                          int height, TileMask& mask);

private:
    vtkRenderer* m_renderer;
    vtkNew<vtkPolyData> m_pipes;
    vtkNew<vtkActor> m_actor;
    vtkUnsignedCharArray* m_colors = nullptr;
    vtkFloatArray* m_speed = nullptr;
    vtkFloatArray* m_offset = nullptr;
    vtkFloatArray* m_alarm = nullptr;
    std::size_t m_segments = 0;
    std::vector<float> m_segmentSpeed, m_segmentOffset, m_segmentRadius;
    std::vector<model::Vec3> m_segmentEnds; // a, b per pipe
    bool m_pointsDirty = false;
    bool m_shown = false;
    double m_time = 0, m_flash = 0;
    static std::uint64_t s_shapeGeneration;
};

} // namespace ft::views
