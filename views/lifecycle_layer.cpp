#include "lifecycle_layer.h"

#include "lifecycle_style.h"

#include <algorithm>

namespace ft::views {

using model::EntityKind;

namespace {
constexpr float kCapLow = 0.03f, kCapHigh = 0.16f;
} // namespace

LifecycleLayer::LifecycleLayer(const model::Topology& topology, vtkRenderer* renderer)
    : m_topology(topology), m_caps(renderer, topology.count(EntityKind::Rack) * 2) {}

void LifecycleLayer::setVisible(bool visible) {
    m_visible = visible;
    m_caps.setVisible(visible);
}

void LifecycleLayer::update(const model::Snapshot& s) {
    const auto& rk = m_topology.spec().rack;
    const float hw = static_cast<float>(rk.widthM) / 2 * 0.9f, hd = static_cast<float>(rk.depthM) / 2 * 0.9f;
    const float top = static_cast<float>(rk.heightM);
    for (std::size_t r = 0; r < m_topology.count(EntityKind::Rack) && r < s.rackLifecycle.size(); ++r) {
        const auto c = m_topology.racks.position[r];
        const float progress = std::clamp(s.value(model::ch::RackLifecycleProgress, static_cast<model::EntityId>(r)) / 100.0f, 0.0f, 1.0f);
        const float split = c.x - hw + 2 * hw * progress;
        const Rgb done = lifecycleColor(s.rackLifecycle[r]);
        const Rgb todo{static_cast<std::uint8_t>(done.r * 0.35), static_cast<std::uint8_t>(done.g * 0.35), static_cast<std::uint8_t>(done.b * 0.35)};
        m_caps.set(r * 2, {c.x - hw, c.y - hd, top + kCapLow}, {split, c.y + hd, top + kCapHigh}, done);
        m_caps.set(r * 2 + 1, {split, c.y - hd, top + kCapLow}, {c.x + hw, c.y + hd, top + kCapHigh}, todo);
    }
    m_caps.commit();
}

} // namespace ft::views
