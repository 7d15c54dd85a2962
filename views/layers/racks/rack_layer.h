#pragma once
// RackLayer: every rack of the floor as one actor. Rack fronts carry a texture atlas with one
// cell per rack (a texel per GPU and rack unit), so the whole floor is a live heat map of trays
// and GPUs for a single draw call; rack tops show the rack's aggregate. Near the camera a detail
// actor adds tray and GPU outlines. Owned by FloorView; UI thread only.
#include "model/snapshot.h"
#include "model/topology.h"
#include "views/color_scale.h"
#include "views/coverage.h"
#include "views/layer.h"

#include <vector>
#include <vtkNew.h>

class vtkActor;
class vtkImageData;
class vtkPolyData;
class vtkRenderer;
class vtkTexture;
class vtkUnsignedCharArray;

namespace ft::views {

class RackLayer final : public Layer {
public:
    static constexpr LayerInfo kInfo{"racks", "Racks, trays and GPUs", true};
    RackLayer(const model::Topology& topology, vtkRenderer* renderer);
    ~RackLayer() override;

    void setMetric(model::ChannelId channel) override;
    // With a baseline the racks show A − B of the metric on a diverging scale (blue: below the
    // baseline, red: above, grey: no data on either side).
    void setBaseline(const std::shared_ptr<const model::Snapshot>& baseline,
                     const std::string& label) override;
    bool comparing() const { return m_baseline != nullptr; }
    // Half the diverging scale's span, in the metric's unit.
    float differenceRange() const;
    model::ChannelId metric() const { return m_metric; }
    // Per-rack brightness (1 = normal), e.g. to fade racks a filter leaves out. Empty: all 1.
    void setRackEmphasis(const std::vector<float>& emphasis) override { m_emphasis = emphasis; }
    // Recolours the atlas from a snapshot (arrays updated in place).
    void update(const model::Snapshot& snapshot) override;
    // Level of detail: outlines the trays and GPUs of the racks near the focus once a rack unit
    // covers enough pixels for the outlines to help rather than shimmer.
    void updateDetail(const CameraView& camera) override;
    // The metric's legend, bottom left (shown with the layer off too: it keys the inspector);
    // from afar on a big floor, row tiles and the worst racks over the scene.
    void drawHud(const ImGuiOverlay& overlay, const HudInput& in,
                 HudColumns& columns) const override;

    // The rack aggregate of the metric (max for temperatures, mean otherwise) over its measured
    // members, with the coverage it is drawn with.
    std::pair<float, Coverage> rackValue(const model::Snapshot& snapshot,
                                         model::EntityId rack) const;
    const ColorScale& scale() const { return m_scale; }
    bool aggregatesByMax() const { return m_aggregateMax; }

private:
    // The far view of a big floor: row tiles (worst value, racks over the limit) and the worst
    // racks by name.
    void drawOverview(const ImGuiOverlay& overlay, const HudInput& in) const;
    // A categorical channel's states, wrapped to `width` pixels.
    void drawStateLegend(const HudInput& in, float width) const;
    void drawDifferenceLegend(const ImGuiOverlay& overlay, float barW, float barH) const;
    void applyVisibility(bool visible) override;
    void buildGeometry();
    void paintRack(const model::Snapshot& snapshot, model::EntityId rack);
    void fillRows(model::EntityId rack, int rowBegin, int rowEnd, Rgb color, Coverage coverage);
    void setTexel(model::EntityId rack, int column, int row, Rgb color, Coverage coverage);

    // The colour of a value (of A − B while comparing).
    Rgb mapValue(float value) const;
    // A − B of the metric, and what is measured on both sides, as a snapshot paintRack reads.
    const model::Snapshot& differenceOf(const model::Snapshot& a);

    const model::Topology& m_topology;
    vtkRenderer* m_renderer;
    std::shared_ptr<const model::Snapshot> m_baseline;
    std::string m_baselineLabel;
    model::Snapshot m_difference;
    model::ChannelId m_metric{model::ch::GpuTemperature};
    ColorScale m_scale;
    bool m_aggregateMax = true;

    int m_cellW = 4, m_cellH = 52, m_cellsPerRow = 1, m_atlasW = 1, m_atlasH = 1;
    int m_beaconBegin = 0, m_beaconEnd = 0;
    vtkNew<vtkImageData> m_atlas;
    vtkUnsignedCharArray* m_texels = nullptr;
    vtkNew<vtkTexture> m_texture;
    vtkNew<vtkPolyData> m_racks;
    vtkNew<vtkActor> m_rackActor;

    vtkNew<vtkPolyData> m_detail;
    vtkNew<vtkActor> m_detailActor;
    std::vector<model::EntityId> m_detailRacks;
    std::vector<float> m_emphasis;
    float m_paintScale = 1.0f; // emphasis of the rack being painted
    std::vector<float> m_scratch;
};

} // namespace ft::views
