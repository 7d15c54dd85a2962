#pragma once
// JobLayer: the floor coloured by job: a cap over every rack in its job's colour (the
// simulator's jobs, or with telemetry the job its GPUs' labels name), dark for racks running
// none, and a key of the jobs with their racks, those an open incident hurts marked. A colour
// follows the job's name, so it stays when other jobs come and go. One BoxSet for every rack.
// Owned by FloorView; UI thread only.
#include "model/snapshot.h"
#include "model/topology.h"
#include "views/box_set.h"
#include "views/layer.h"

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

class vtkRenderer;

namespace ft::views {

class JobLayer final : public Layer {
public:
    static constexpr LayerInfo kInfo{"jobs", "Jobs (which job each rack runs)", false};
    JobLayer(const model::Topology& topology, vtkRenderer* renderer);
    void update(const model::Snapshot& snapshot) override;

    static Rgb jobColor(std::string_view job); // "" = no job
    // What the last update painted rack `rack` with.
    Rgb rackColor(model::EntityId rack) const { return m_colors[rack]; }
    // The key, top right: jobs by racks, the hurt ones marked; no key without job data.
    void drawHud(const ImGuiOverlay& overlay, const HudInput& in,
                 HudColumns& columns) const override;
    void decorateRackLabel(const HudInput& in, model::EntityId rack,
                           std::string& label) const override;

private:
    void applyVisibility(bool visible) override;

    const model::Topology& m_topology;
    BoxSet m_caps;
    std::vector<Rgb> m_colors;
    std::shared_ptr<const std::vector<std::string>> m_jobs; // as painted
    // The key's racks per job, of m_countedJobs (worked out by drawHud when the jobs change).
    mutable std::shared_ptr<const std::vector<std::string>> m_countedJobs;
    mutable std::vector<std::pair<std::string, int>> m_jobRacks;
    mutable int m_idleRacks = 0;
};

} // namespace ft::views
