#pragma once
// ThermalLayer: the cooling plant drawn over the floor. From every CDU a supply and a return
// riser climb to headers that run overhead along its racks, with drops into each rack. Pipes
// are coloured by coolant temperature on a fixed scale and carry moving bands
// (shaders/flow_*.glsl) whose speed follows the flow in that pipe; pipes of racks in a cooling
// alarm flash. Two actors: risers and headers always, rack drops only when the camera is close
// enough to see them (level of detail). Arrays change at snapshot rate; animation is uniforms.
// Owned by FloorView; UI thread only.
#include "color_scale.h"
#include "model/snapshot.h"
#include "model/topology.h"

#include <vtkNew.h>

#include <array>
#include <vector>

class vtkActor;
class vtkFloatArray;
class vtkPolyData;
class vtkRenderer;
class vtkUnsignedCharArray;

namespace ft::views {

class ThermalLayer {
public:
    ThermalLayer(const model::Topology& topology, vtkRenderer* renderer);
    ~ThermalLayer();

    void setVisible(bool visible);
    bool visible() const { return m_visible; }
    // Colours, flow rates and alarms from a snapshot.
    void update(const model::Snapshot& snapshot);
    // Moves the flow bands by `simSeconds` of coolant travel; `wallSeconds` drives the alarm
    // flash so it stays visible when paused. Only shader uniforms change: no array uploads.
    void animate(double simSeconds, double wallSeconds);
    // Level of detail: rack drops show when the camera is within reach of them.
    void updateDetail(double cameraDistance);

    // Coolant colours: deep blue (cold) through cyan and amber to red (hot), fixed °C bounds.
    static Rgb coolantColor(float celsius);
    static constexpr float kScaleMin = 30.0f;
    static constexpr float kScaleMax = 70.0f;

private:
    struct Segment {
        enum Kind : std::uint8_t { Riser, Header, Drop };
        Kind kind = Header;
        bool supply = true;
        model::EntityId cdu = 0;
        model::EntityId rack = 0; // drops: the rack they feed
    };
    // One actor's worth of pipes.
    struct Part {
        std::vector<std::size_t> segments; // indices into m_segments, in vertex order
        vtkNew<vtkPolyData> pipes;
        vtkNew<vtkActor> actor;
        vtkUnsignedCharArray* colors = nullptr;
        vtkFloatArray* speed = nullptr;
        vtkFloatArray* offset = nullptr;
        vtkFloatArray* alarm = nullptr;
    };
    void build();
    void finishPart(Part& part);
    void addTube(Part& part, const model::Vec3& a, const model::Vec3& b, float radius);

    const model::Topology& m_topology;
    vtkRenderer* m_renderer;
    bool m_visible = false;
    bool m_showDrops = true;
    std::vector<Segment> m_segments;
    std::vector<Rgb> m_baseColor;      // per segment, from the last snapshot
    std::vector<float> m_speed;        // per segment, m/s of band travel
    std::vector<float> m_offset;       // per segment, keeps bands continuous across speed changes
    std::vector<std::uint8_t> m_alarm; // per segment: rack in a cooling alarm (0, 1, 2)
    double m_time = 0;                 // animation clock, s (advances with simulated time)
    double m_flashClock = 0;           // wall clock, s
    float m_designRackFlow = 1;
    std::array<Part, 2> m_parts;       // 0: risers and headers, 1: rack drops
};

} // namespace ft::views
