// The inspector's fabric relations: a NIC's, leaf's or spine's links and what they reach.
#include "coverage.h"
#include "floor_view.h"
#include "hud.h"
#include "inspector_panel.h"
#include "model/gpu_health.h"
#include "model/lifecycle.h"
#include "scheduler_rows.h"
#include "series_chart.h"

#include <QTreeWidget>
#include <algorithm>
#include <functional>
#include <ranges>

namespace ft::views {

using model::EntityKind;
using model::EntityRef;

namespace {
QString qs(const std::string& s) {
    return QString::fromStdString(s);
}
} // namespace

void InspectorPanel::addFabricRelations(QTreeWidgetItem* related, EntityRef ref,
                                        const model::Snapshot& s) {
    namespace ch = model::ch;
    const auto& t = m_view->topology();
    const auto& rk = t.spec().rack;
    const int npt = rk.gpusPerTray * rk.nicsPerGpu;
    auto linkValue = [&](model::EntityId link) {
        const float st = s.value(ch::FabricState, link);
        return qs(formatCoveredValue(s, ch::FabricTx, link, m_view->fillModelled())) + "  " +
               qs(formatCoveredValue(s, ch::FabricUtilization, link, m_view->fillModelled())) +
               (st >= 2   ? tr("  DOWN")
                : st >= 1 ? tr("  degraded")
                          : QString());
    };
    auto nvValue = [&](model::EntityId link) {
        const float st = s.value(ch::NvlinkState, link);
        return qs(formatCoveredValue(s, ch::NvlinkTx, link, m_view->fillModelled())) +
               (st >= 3   ? tr("  disabled")
                : st >= 2 ? tr("  DOWN")
                : st >= 1 ? tr("  degraded")
                          : QString()) +
               (s.value(ch::NvlinkCrcErrors, link) > 0
                    ? tr("  %1 CRC").arg(s.value(ch::NvlinkCrcErrors, link), 0, 'f', 0)
                    : QString());
    };
    switch (ref.kind) {
    case EntityKind::Gpu: {
        for (int k = 0; k < rk.switchTrays; ++k) {
            const auto link = static_cast<model::EntityId>(ref.id * rk.switchTrays + k);
            addLink(related, tr("NVLink to NVSwitch %1").arg(k + 1), {EntityKind::NvlinkLink, link},
                    nvValue(link));
        }
        const auto tray = t.gpus.tray[ref.id];
        for (int n = 0; n < rk.nicsPerGpu; ++n) {
            const auto nic = static_cast<model::EntityId>(
                tray * npt + t.gpus.indexInTray[ref.id] * rk.nicsPerGpu + n);
            addLink(related,
                    tr("NIC %1 → %2")
                        .arg(t.nics.rail[nic])
                        .arg(qs(t.name(EntityKind::Leaf, t.nics.leaf[nic]))),
                    {EntityKind::FabricLink, nic}, linkValue(nic));
        }
        break;
    }
    case EntityKind::NvlinkLink:
        addIdentity(tr("Between"),
                    qs(t.name(EntityKind::Gpu, t.nvlinkLinks.gpu[ref.id])) + "\n" +
                        qs(t.name(EntityKind::SwitchTray, t.nvlinkLinks.switchTray[ref.id])));
        addLink(related, tr("GPU"), {EntityKind::Gpu, t.nvlinkLinks.gpu[ref.id]});
        addLink(related, tr("Switch tray"),
                {EntityKind::SwitchTray, t.nvlinkLinks.switchTray[ref.id]});
        break;
    case EntityKind::SwitchTray: {
        // The switch tray's links that log errors or are not up, then the rest are summarised.
        int shown = 0;
        const auto rack = t.switchTrays.rack[ref.id];
        const int k = t.switchTrays.indexInRack[ref.id];
        const int gpr = rk.computeTrays * rk.gpusPerTray;
        for (int g = 0; g < gpr && shown < 12; ++g) {
            const auto link = static_cast<model::EntityId>((rack * gpr + g) * rk.switchTrays + k);
            if (s.value(ch::NvlinkState, link) == 0 && s.value(ch::NvlinkCrcErrors, link) == 0)
                continue;
            addLink(related, qs(t.name(EntityKind::NvlinkLink, link)),
                    {EntityKind::NvlinkLink, link}, nvValue(link));
            ++shown;
        }
        if (shown == 0)
            new QTreeWidgetItem(related, {tr("NVLink links"), tr("all %1 up, no errors").arg(gpr)});
        break;
    }
    case EntityKind::FabricLink: {
        const bool nic = t.fabricLinks.kind[ref.id] == model::Topology::FabricLinkKind::NicToLeaf;
        if (nic) {
            const auto tray =
                static_cast<model::EntityId>(ref.id / static_cast<model::EntityId>(npt));
            addIdentity(tr("Host"), qs(t.hostName(tray)));
            addIdentity(tr("Rail / plane"), tr("rail %1, plane %2")
                                                .arg(t.nics.rail[ref.id])
                                                .arg(t.rails.plane[t.nics.rail[ref.id]]));
            addLink(related, tr("GPU"), {EntityKind::Gpu, t.nics.gpu[ref.id]});
            addLink(related, tr("Leaf"), {EntityKind::Leaf, t.fabricLinks.to[ref.id]});
        } else {
            addIdentity(
                tr("Lanes"),
                tr("%1 x %2G").arg(t.fabricLinks.lanes[ref.id]).arg(t.spec().fabric.portGbps));
            addLink(related, tr("Leaf"), {EntityKind::Leaf, t.fabricLinks.from[ref.id]});
            addLink(related, tr("Spine"), {EntityKind::Spine, t.fabricLinks.to[ref.id]});
        }
        break;
    }
    case EntityKind::Leaf: {
        addIdentity(tr("Rail / plane"),
                    tr("rail %1, plane %2").arg(t.leaves.rail[ref.id]).arg(t.leaves.plane[ref.id]));
        addIdentity(tr("Ports"), tr("%1 down to NICs, %1 up to %2 spines")
                                     .arg(t.leaves.downlinks[ref.id])
                                     .arg(t.fabricSizing.spinesPerPlane));
        // Its busiest NIC links and any that are down.
        std::vector<std::pair<float, model::EntityId>> links;
        for (auto n = static_cast<std::size_t>(t.leaves.rail[ref.id]); n < t.count(EntityKind::Nic);
             n += static_cast<std::size_t>(npt))
            if (t.nics.leaf[n] == ref.id) {
                const float key = s.value(ch::FabricState, static_cast<model::EntityId>(n)) >= 2
                                      ? 1e9f
                                      : s.value(ch::FabricTx, static_cast<model::EntityId>(n));
                links.emplace_back(key, static_cast<model::EntityId>(n));
            }
        std::ranges::sort(links, std::greater<>());
        for (std::size_t i = 0; i < std::min<std::size_t>(8, links.size()); ++i)
            addLink(related, qs(t.name(EntityKind::Nic, links[i].second)),
                    {EntityKind::FabricLink, links[i].second}, linkValue(links[i].second));
        for (std::size_t l = t.count(EntityKind::Nic); l < t.count(EntityKind::FabricLink); ++l)
            if (t.fabricLinks.from[l] == ref.id)
                addLink(related,
                        tr("up to %1").arg(qs(t.name(EntityKind::Spine, t.fabricLinks.to[l]))),
                        {EntityKind::FabricLink, static_cast<model::EntityId>(l)},
                        linkValue(static_cast<model::EntityId>(l)));
        break;
    }
    case EntityKind::Spine: {
        addIdentity(tr("Plane"), QString::number(t.spines.plane[ref.id]));
        int shown = 0;
        for (std::size_t l = t.count(EntityKind::Nic);
             l < t.count(EntityKind::FabricLink) && shown < 24; ++l)
            if (t.fabricLinks.to[l] == ref.id) {
                addLink(related,
                        tr("from %1").arg(qs(t.name(EntityKind::Leaf, t.fabricLinks.from[l]))),
                        {EntityKind::FabricLink, static_cast<model::EntityId>(l)},
                        linkValue(static_cast<model::EntityId>(l)));
                ++shown;
            }
        break;
    }
    default:
        break;
    }
}

void InspectorPanel::describeRack(QTreeWidgetItem* related, model::EntityId id,
                                  const model::Snapshot& s) {
    const auto& t = m_view->topology();
    const auto& rk = t.spec().rack;
    const auto r = id;
    addIdentity(tr("Row"), qs(t.rows.name[t.racks.row[r]]));
    addIdentity(tr("Position in row"), QString::number(t.racks.indexInRow[r] + 1));
    addIdentity(tr("Model"), qs(rk.model));
    addIdentity(tr("Cooled by"), qs(t.name(EntityKind::Cdu, t.racks.cdu[r])));
    if (r < s.rackLifecycle.size()) {
        addIdentity(tr("Lifecycle"),
                    QString::fromUtf8(model::lifecycleTitle(s.rackLifecycle[r]).data()));
        // The latest transition and why it happened (the failed check, for a failure).
        if (s.lifecycleHistory)
            for (const auto& it : std::ranges::reverse_view(*s.lifecycleHistory))
                if (it.rack == r) {
                    addIdentity(it.failure ? tr("Failed check") : tr("Last step"), qs(it.reason));
                    break;
                }
    }
    for (const auto& [label, text] : schedulerRows(s, t, model::EntityRef{EntityKind::Rack, id}))
        addIdentity(tr(label.c_str()), qs(text));
    addIdentity(tr("Hosts"), qs(t.hostName(r * rk.computeTrays)) + " … " +
                                 qs(t.hostName((r + 1) * rk.computeTrays - 1)));
    for (int i = 0; i < rk.computeTrays; ++i) {
        const auto tray = static_cast<model::EntityId>(r * rk.computeTrays + i);
        addLink(related, qs(t.name(EntityKind::ComputeTray, tray)), {EntityKind::ComputeTray, tray},
                qs(formatCoveredValue(s, model::ch::TrayPower, tray, m_view->fillModelled())));
    }
    addLink(related, qs(t.name(EntityKind::Cdu, t.racks.cdu[r])),
            {EntityKind::Cdu, t.racks.cdu[r]});
    // Where the rack's power comes from: its shelves and its row's busways.
    const auto shelves = static_cast<model::EntityId>(rk.powerShelves);
    for (model::EntityId k = 0; k < shelves; ++k)
        addLink(related, qs(t.name(EntityKind::PowerShelf, r * shelves + k)),
                {EntityKind::PowerShelf, r * shelves + k},
                qs(formatCoveredValue(s, model::ch::ShelfOutput, r * shelves + k,
                                      m_view->fillModelled())));
    for (int side = 0; side < 2; ++side) {
        const auto f = t.feedOf(t.racks.row[r], side);
        addLink(related, qs(t.name(EntityKind::PowerFeed, f)), {EntityKind::PowerFeed, f},
                qs(formatCoveredValue(s, model::ch::FeedLoad, f, m_view->fillModelled())));
    }
}

void InspectorPanel::describeTray(QTreeWidgetItem* related, model::EntityId id,
                                  const model::Snapshot& s) {
    const auto& t = m_view->topology();
    const auto& rk = t.spec().rack;
    const auto tray = id;
    addIdentity(tr("Host"), qs(t.hostName(tray)));
    addIdentity(tr("Slot"),
                tr("tray %1 of %2").arg(t.computeTrays.indexInRack[tray] + 1).arg(rk.computeTrays));
    for (const auto& [label, text] :
         schedulerRows(s, t, model::EntityRef{EntityKind::ComputeTray, id}))
        addIdentity(tr(label.c_str()), qs(text));
    addLink(related, tr("Rack %1").arg(qs(t.racks.name[t.computeTrays.rack[tray]])),
            {EntityKind::Rack, t.computeTrays.rack[tray]});
    for (int g = 0; g < rk.gpusPerTray; ++g) {
        const auto gpu = static_cast<model::EntityId>(tray * rk.gpusPerTray + g);
        addLink(
            related, tr("GPU %1").arg(g), {EntityKind::Gpu, gpu},
            qs(formatCoveredValue(s, model::ch::GpuTemperature, gpu, m_view->fillModelled())) +
                "  " +
                qs(formatCoveredValue(s, model::ch::GpuUtilization, gpu, m_view->fillModelled())));
    }
    for (int c = 0; c < rk.cpusPerTray; ++c) {
        const auto cpu = static_cast<model::EntityId>(tray * rk.cpusPerTray + c);
        new QTreeWidgetItem(
            related,
            {tr("CPU %1").arg(c),
             qs(formatCoveredValue(s, model::ch::CpuTemperature, cpu, m_view->fillModelled())) +
                 "  " +
                 qs(formatCoveredValue(s, model::ch::CpuPower, cpu, m_view->fillModelled()))});
    }
}

void InspectorPanel::describeGpu(QTreeWidgetItem* related, model::EntityId id,
                                 const model::Snapshot& s) {
    const auto& t = m_view->topology();
    const auto& rk = t.spec().rack;
    const auto gpu = id;
    const auto tray = t.gpus.tray[gpu];
    addIdentity(tr("Host"), qs(t.hostName(tray)));
    addIdentity(tr("GPU index on host"), QString::number(t.gpus.indexInTray[gpu]));
    if (listed(s, model::ch::GpuHealth) &&
        coverageOf(s, model::ch::GpuHealth, gpu, false) != Coverage::NoData) {
        // What its counters say, and why (healthy says nothing more).
        const auto v = [&](model::ChannelId c) { return s.value(c, gpu); };
        const model::GpuCounters counters{v(model::ch::GpuXid),
                                          v(model::ch::GpuRemappedRowsUncorrectable),
                                          v(model::ch::GpuRowRemapPending),
                                          v(model::ch::GpuRowRemapFailure),
                                          v(model::ch::GpuEccDoubleBit),
                                          v(model::ch::GpuThrottleReasons),
                                          v(model::ch::GpuHealth) >=
                                              static_cast<float>(model::GpuHealth::Lost)};
        addIdentity(tr("Health"), qs(formatValue(v(model::ch::GpuHealth), model::ch::GpuHealth)));
        if (const std::string why = model::healthReason(counters); !why.empty())
            addIdentity(tr("Why"), qs(why));
    }
    if (s.gpuSlices && gpu < s.gpuSlices->size() && !(*s.gpuSlices)[gpu].empty())
        addIdentity(tr("MIG slices"), qs((*s.gpuSlices)[gpu]));
    QStringList rails;
    const int nicsPerTray = rk.gpusPerTray * rk.nicsPerGpu;
    for (int n = 0; n < rk.nicsPerGpu; ++n) {
        const auto nic = tray * nicsPerTray + t.gpus.indexInTray[gpu] * rk.nicsPerGpu + n;
        rails << tr("NIC %1 → rail %2, %3")
                     .arg(n)
                     .arg(t.nics.rail[nic])
                     .arg(qs(t.name(EntityKind::Leaf, t.nics.leaf[nic])));
    }
    addIdentity(tr("SuperNICs"), rails.join("\n"));
    addIdentity(tr("NVLink"),
                tr("%1 switch trays, %2 TB/s").arg(rk.switchTrays).arg(rk.nvlinkTBpsPerGpu));
    addLink(related, tr("Tray %1").arg(qs(t.name(EntityKind::ComputeTray, tray))),
            {EntityKind::ComputeTray, tray});
    addLink(related, tr("Rack %1").arg(qs(t.racks.name[t.gpus.rack[gpu]])),
            {EntityKind::Rack, t.gpus.rack[gpu]});
}

void InspectorPanel::describeSwitchTray(QTreeWidgetItem* related, model::EntityId id,
                                        const model::Snapshot& s) {
    const auto& t = m_view->topology();
    const auto& rk = t.spec().rack;
    const auto sw = id;
    addIdentity(tr("Slot"), tr("NVLink switch tray %1 of %2")
                                .arg(t.switchTrays.indexInRack[sw] + 1)
                                .arg(rk.switchTrays));
    addIdentity(tr("Links"), tr("%1 GPUs").arg(rk.computeTrays * rk.gpusPerTray));
    addLink(related, tr("Rack %1").arg(qs(t.racks.name[t.switchTrays.rack[sw]])),
            {EntityKind::Rack, t.switchTrays.rack[sw]});
}

void InspectorPanel::describeCdu(QTreeWidgetItem* related, model::EntityId id,
                                 const model::Snapshot& s) {
    const auto& t = m_view->topology();
    const auto cdu = id;
    addIdentity(tr("Serves"), tr("%1 racks").arg(t.cdus.rackCount[cdu]));
    for (std::uint32_t i = 0; i < t.cdus.rackCount[cdu]; ++i) {
        const auto r = t.cdus.firstRack[cdu] + i;
        addLink(
            related, tr("Rack %1").arg(qs(t.racks.name[r])), {EntityKind::Rack, r},
            qs(formatCoveredValue(s, model::ch::RackReturnTemperature, r, m_view->fillModelled())));
    }
}

void InspectorPanel::describeShelf(QTreeWidgetItem* related, model::EntityId id,
                                   const model::Snapshot& s) {
    const auto& t = m_view->topology();
    const auto shelf = id;
    const auto rack = t.powerShelves.rack[shelf];
    addLink(related, tr("Rack %1").arg(qs(t.racks.name[rack])), {EntityKind::Rack, rack});
    const auto per = static_cast<model::EntityId>(t.spec().power.psusPerShelf);
    for (model::EntityId i = 0; i < per; ++i) {
        const auto psu = shelf * per + i;
        addLink(related, tr("PSU %1 (feed %2)").arg(i + 1).arg(t.psus.side[psu] == 0 ? "A" : "B"),
                {EntityKind::Psu, psu},
                qs(formatCoveredValue(s, model::ch::PsuState, psu, m_view->fillModelled())));
    }
}

void InspectorPanel::describePsu(QTreeWidgetItem* related, model::EntityId id,
                                 const model::Snapshot& s) {
    const auto& t = m_view->topology();
    const auto psu = id;
    addIdentity(tr("Feed"), qs(t.name(EntityKind::PowerFeed, t.psus.feed[psu])));
    addLink(related, qs(t.name(EntityKind::PowerShelf, t.psus.shelf[psu])),
            {EntityKind::PowerShelf, t.psus.shelf[psu]});
    addLink(related, qs(t.name(EntityKind::PowerFeed, t.psus.feed[psu])),
            {EntityKind::PowerFeed, t.psus.feed[psu]});
    addLink(related, tr("Rack %1").arg(qs(t.racks.name[t.psus.rack[psu]])),
            {EntityKind::Rack, t.psus.rack[psu]});
}

void InspectorPanel::describeFeed(QTreeWidgetItem* related, model::EntityId id,
                                  const model::Snapshot& s) {
    const auto& t = m_view->topology();
    const auto feed = id;
    const auto row = t.powerFeeds.row[feed];
    addIdentity(tr("Rating"), tr("%1 kW").arg(t.powerFeeds.ratedKw[feed], 0, 'f', 0));
    addIdentity(tr("Feeds"),
                tr("%1 racks of row %2").arg(t.rows.rackCount[row]).arg(qs(t.rows.name[row])));
    for (std::uint32_t i = 0; i < t.rows.rackCount[row]; ++i) {
        const auto r = t.rows.firstRack[row] + i;
        addLink(related, tr("Rack %1").arg(qs(t.racks.name[r])), {EntityKind::Rack, r},
                qs(formatCoveredValue(s, model::ch::RackPowerInput, r, m_view->fillModelled())));
    }
}

} // namespace ft::views
