#include "inspector_panel.h"

#include "coverage.h"
#include "floor_view.h"
#include "hud.h"
#include "model/gpu_health.h"
#include "model/lifecycle.h"
#include "scheduler_rows.h"

#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QScrollBar>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <ranges>

namespace ft::views {

using model::EntityKind;
using model::EntityRef;

namespace {
constexpr int kRefRole = Qt::UserRole + 1;
QString qs(const std::string& s) {
    return QString::fromStdString(s);
}
} // namespace

InspectorPanel::InspectorPanel(FloorView* view, QWidget* parent) : QWidget(parent), m_view(view) {
    auto* layout = new QVBoxLayout(this);
    m_title = new QLabel(tr("Nothing selected. Click a rack, a tray or a GPU on the floor."), this);
    m_title->setWordWrap(true);
    QFont f = m_title->font();
    f.setPointSizeF(f.pointSizeF() * 1.25);
    f.setBold(true);
    m_title->setFont(f);
    m_tree = new QTreeWidget(this);
    m_tree->setColumnCount(3);
    m_tree->setHeaderLabels({tr("Property"), tr("Value"), tr("Last 2 min")});
    m_tree->setIconSize(QSize(96, 18));
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Interactive);
    m_tree->header()->setStretchLastSection(true);
    m_tree->setColumnWidth(0, 230);
    // Values carry their unit and, with telemetry, their coverage ("67.0 °C (8/72)").
    m_tree->setColumnWidth(1, 150);
    m_tree->setTextElideMode(Qt::ElideMiddle);
    m_tree->setRootIsDecorated(true);
    m_tree->setAlternatingRowColors(true);
    layout->addWidget(m_title);
    layout->addWidget(m_tree, 1);

    connect(m_view, &FloorView::selectionChanged, this, &InspectorPanel::refresh);
    connect(m_view, &FloorView::snapshotChanged, this, [this] {
        if (!m_sinceRefresh.isValid() || m_sinceRefresh.elapsed() >= 250) refresh();
    });
    connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        const QVariant v = item->data(0, kRefRole);
        if (!v.isValid()) return;
        const auto packed = v.toULongLong();
        m_view->setSelection(
            EntityRef{static_cast<EntityKind>(packed >> 32), static_cast<model::EntityId>(packed)});
    });
    connect(m_tree, &QTreeWidget::itemClicked, m_tree, &QTreeWidget::itemActivated);
}

QTreeWidgetItem* InspectorPanel::addSection(const QString& title) {
    auto* item = new QTreeWidgetItem(m_tree, {title});
    QFont f = item->font(0);
    f.setBold(true);
    item->setFont(0, f);
    item->setFirstColumnSpanned(true);
    item->setExpanded(true);
    return item;
}

void InspectorPanel::addIdentity(const QString& key, const QString& value) {
    auto* section = m_tree->topLevelItem(0);
    auto* item = new QTreeWidgetItem(section, {key, value});
    item->setToolTip(1, value);
}

void InspectorPanel::addLink(QTreeWidgetItem* section, const QString& label, EntityRef ref,
                             const QString& value) {
    auto* item = new QTreeWidgetItem(section, {label, value});
    item->setData(0, kRefRole,
                  QVariant::fromValue((static_cast<qulonglong>(ref.kind) << 32) | ref.id));
    item->setForeground(0, QColor(110, 170, 255));
    item->setToolTip(0, tr("Click to select"));
}

void InspectorPanel::addChannels(QTreeWidgetItem* section, EntityRef ref,
                                 const model::Snapshot& snap) {
    for (const model::ChannelId c : model::allChannels()) {
        const auto& info = model::kChannels[c];
        if (info.kind != ref.kind || !listed(snap, c)) continue;
        const float v = snap.value(c, ref.id);
        const Coverage coverage = coverageOf(snap, c, ref.id, m_view->fillModelled());
        QString value = qs(formatCoveredValue(snap, c, ref.id, m_view->fillModelled())), versus;
        if (const auto& base = m_view->baseline();
            base && !model::isDetailChannel(c) && ref.id < base->channel(c).size()) {
            // Comparing: the difference beside the value, the baseline's own in the tooltip.
            const float b = base->value(c, ref.id);
            if (snap.measured(c, ref.id) && base->measured(c, ref.id) && b != v)
                value += info.unit.empty() // a state: what the baseline was in
                             ? QString("  (B: %1)").arg(qs(formatValue(b, c)))
                             : QString("  (\u0394 %1%2)")
                                   .arg(v > b ? "+" : "")
                                   .arg(qs(formatValue(v - b, c)));
            versus = tr("B (the baseline): %1")
                         .arg(qs(formatCoveredValue(*base, c, ref.id, m_view->fillModelled())));
        }
        if (snap.telemetry && ref.kind == EntityKind::Rack && coverage == Coverage::Measured &&
            (c == model::ch::RackGpuUtilization || c == model::ch::RackGpuTempMax ||
             c == model::ch::RackGpuTempMean)) {
            // Made of the measured GPUs only: of how many (the tooltip says it in words).
            const auto& rk = m_view->topology().spec().rack;
            const int of = rk.computeTrays * rk.gpusPerTray,
                      measured = static_cast<int>(snap.value(model::ch::RackGpusMeasured, ref.id));
            value += tr(" (%1/%2)").arg(measured).arg(of);
            versus = tr("made of the %1 measured GPUs of the rack's %2").arg(measured).arg(of);
        }
        auto* item = new QTreeWidgetItem(
            section,
            {QString::fromUtf8(info.description.data(), static_cast<int>(info.description.size())),
             value});
        // The whole value where the column cuts it (an XID's meaning, throttle reasons).
        item->setToolTip(1, versus.isEmpty() ? value : value + "\n" + versus);
        if (coverage != Coverage::Measured) {
            // Not a fresh measurement: grey, and say why.
            item->setForeground(1, QColor(150, 156, 168));
            item->setToolTip(1, coverage == Coverage::Stale
                                    ? tr("The last measured value; its source went quiet")
                                    : tr("Never measured: this value is the model's"));
            continue; // no sparkline or alarm colour from what was not measured
        }
        item->setToolTip(0,
                         QString::fromUtf8(info.name.data(), static_cast<int>(info.name.size())));
        if (const auto* h = history(c); h && h->size() > 1) {
            // A sparkline of the recent values on their own range.
            const auto [lo, hi] = std::minmax_element(h->begin(), h->end());
            QPixmap pm(96, 18);
            pm.fill(Qt::transparent);
            QPainter p(&pm);
            p.setRenderHint(QPainter::Antialiasing);
            p.setPen(QPen(QColor(120, 190, 255), 1.4));
            const float span = std::max(*hi - *lo, 1e-6f);
            QPolygonF line;
            for (std::size_t i = 0; i < h->size(); ++i)
                line << QPointF(95.0 * static_cast<double>(i) /
                                    static_cast<double>(kHistoryPoints - 1),
                                16.0 - 14.0 * static_cast<double>(((*h)[i] - *lo) / span));
            p.drawPolyline(line);
            p.end();
            item->setIcon(2, QIcon(pm));
            item->setToolTip(
                2, tr("min %1, max %2").arg(qs(formatValue(*lo, c)), qs(formatValue(*hi, c))));
        }
        if (v > info.normalMax || v < info.normalMin) item->setForeground(1, QColor(255, 120, 90));
    }
}

const std::deque<float>* InspectorPanel::history(model::ChannelId c) const {
    for (std::size_t i = 0; i < m_historyChannels.size(); ++i)
        if (m_historyChannels[i] == c) return &m_history[i];
    return nullptr;
}

void InspectorPanel::recordHistory(EntityRef ref, const model::Snapshot& snap) {
    if (m_historyOf != ref || snap.time < m_historyLast) {
        // A new selection (or a seek back): start over.
        m_historyOf = ref;
        m_historyChannels.clear();
        for (const model::ChannelId c : model::allChannels())
            if (model::kChannels[c].kind == ref.kind) m_historyChannels.push_back(c);
        m_history.assign(m_historyChannels.size(), {});
        m_historyLast = 0;
    }
    if (snap.time < m_historyLast + model::kNsPerSecond / 2) return;
    m_historyLast = snap.time;
    for (std::size_t i = 0; i < m_historyChannels.size(); ++i) {
        auto& h = m_history[i];
        h.push_back(snap.value(m_historyChannels[i], ref.id));
        if (h.size() > kHistoryPoints) h.pop_front();
    }
}

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

void InspectorPanel::refresh() {
    m_sinceRefresh.restart();
    const auto sel = m_view->selection();
    const auto snap = m_view->snapshot();
    const auto& t = m_view->topology();
    const auto& rk = t.spec().rack;
    // Comparing: room for the differences beside the values.
    if (m_view->baseline() && m_tree->columnWidth(1) < 210) m_tree->setColumnWidth(1, 210);
    // Keep the scroll position across refreshes: operators read while values move.
    const int scroll = m_tree->verticalScrollBar() ? m_tree->verticalScrollBar()->value() : 0;
    m_tree->clear();
    if (!sel || !snap) {
        m_title->setText(tr("Nothing selected. Click a rack, a tray or a GPU on the floor."));
        return;
    }
    m_title->setText(qs(t.name(sel->kind, sel->id)));
    recordHistory(*sel, *snap);
    addSection(tr("Identity"));
    addIdentity(tr("Kind"), qs(std::string(model::entityKindName(sel->kind))));
    addIdentity(tr("Id"), QString::number(sel->id));
    if (const std::string where = describeCoverage(*snap, sel->kind, sel->id); !where.empty())
        addIdentity(tr("Data"), qs(where));
    auto* live = addSection(tr("Live values"));
    addChannels(live, *sel, *snap);
    auto* related = addSection(tr("Related"));

    switch (sel->kind) {
    case EntityKind::Rack: {
        const auto r = sel->id;
        addIdentity(tr("Row"), qs(t.rows.name[t.racks.row[r]]));
        addIdentity(tr("Position in row"), QString::number(t.racks.indexInRow[r] + 1));
        addIdentity(tr("Model"), qs(rk.model));
        addIdentity(tr("Cooled by"), qs(t.name(EntityKind::Cdu, t.racks.cdu[r])));
        if (r < snap->rackLifecycle.size()) {
            addIdentity(tr("Lifecycle"),
                        QString::fromUtf8(model::lifecycleTitle(snap->rackLifecycle[r]).data()));
            // The latest transition and why it happened (the failed check, for a failure).
            if (snap->lifecycleHistory)
                for (const auto& it : std::ranges::reverse_view(*snap->lifecycleHistory))
                    if (it.rack == r) {
                        addIdentity(it.failure ? tr("Failed check") : tr("Last step"),
                                    qs(it.reason));
                        break;
                    }
        }
        for (const auto& [label, text] : schedulerRows(*snap, t, *sel))
            addIdentity(tr(label.c_str()), qs(text));
        addIdentity(tr("Hosts"), qs(t.hostName(r * rk.computeTrays)) + " … " +
                                     qs(t.hostName((r + 1) * rk.computeTrays - 1)));
        for (int i = 0; i < rk.computeTrays; ++i) {
            const auto tray = static_cast<model::EntityId>(r * rk.computeTrays + i);
            addLink(
                related, qs(t.name(EntityKind::ComputeTray, tray)), {EntityKind::ComputeTray, tray},
                qs(formatCoveredValue(*snap, model::ch::TrayPower, tray, m_view->fillModelled())));
        }
        addLink(related, qs(t.name(EntityKind::Cdu, t.racks.cdu[r])),
                {EntityKind::Cdu, t.racks.cdu[r]});
        break;
    }
    case EntityKind::ComputeTray: {
        const auto tray = sel->id;
        addIdentity(tr("Host"), qs(t.hostName(tray)));
        addIdentity(
            tr("Slot"),
            tr("tray %1 of %2").arg(t.computeTrays.indexInRack[tray] + 1).arg(rk.computeTrays));
        for (const auto& [label, text] : schedulerRows(*snap, t, *sel))
            addIdentity(tr(label.c_str()), qs(text));
        addLink(related, tr("Rack %1").arg(qs(t.racks.name[t.computeTrays.rack[tray]])),
                {EntityKind::Rack, t.computeTrays.rack[tray]});
        for (int g = 0; g < rk.gpusPerTray; ++g) {
            const auto gpu = static_cast<model::EntityId>(tray * rk.gpusPerTray + g);
            addLink(related, tr("GPU %1").arg(g), {EntityKind::Gpu, gpu},
                    qs(formatCoveredValue(*snap, model::ch::GpuTemperature, gpu,
                                          m_view->fillModelled())) +
                        "  " +
                        qs(formatCoveredValue(*snap, model::ch::GpuUtilization, gpu,
                                              m_view->fillModelled())));
        }
        for (int c = 0; c < rk.cpusPerTray; ++c) {
            const auto cpu = static_cast<model::EntityId>(tray * rk.cpusPerTray + c);
            new QTreeWidgetItem(related, {tr("CPU %1").arg(c),
                                          qs(formatCoveredValue(*snap, model::ch::CpuTemperature,
                                                                cpu, m_view->fillModelled())) +
                                              "  " +
                                              qs(formatCoveredValue(*snap, model::ch::CpuPower, cpu,
                                                                    m_view->fillModelled()))});
        }
        break;
    }
    case EntityKind::Gpu: {
        const auto gpu = sel->id;
        const auto tray = t.gpus.tray[gpu];
        addIdentity(tr("Host"), qs(t.hostName(tray)));
        addIdentity(tr("GPU index on host"), QString::number(t.gpus.indexInTray[gpu]));
        if (listed(*snap, model::ch::GpuHealth) &&
            coverageOf(*snap, model::ch::GpuHealth, gpu, false) != Coverage::NoData) {
            // What its counters say, and why (healthy says nothing more).
            const auto v = [&](model::ChannelId c) { return snap->value(c, gpu); };
            const model::GpuCounters counters{v(model::ch::GpuXid),
                                              v(model::ch::GpuRemappedRowsUncorrectable),
                                              v(model::ch::GpuRowRemapPending),
                                              v(model::ch::GpuRowRemapFailure),
                                              v(model::ch::GpuEccDoubleBit),
                                              v(model::ch::GpuThrottleReasons),
                                              v(model::ch::GpuHealth) >=
                                                  static_cast<float>(model::GpuHealth::Lost)};
            addIdentity(tr("Health"),
                        qs(formatValue(v(model::ch::GpuHealth), model::ch::GpuHealth)));
            if (const std::string why = model::healthReason(counters); !why.empty())
                addIdentity(tr("Why"), qs(why));
        }
        if (snap->gpuSlices && gpu < snap->gpuSlices->size() && !(*snap->gpuSlices)[gpu].empty())
            addIdentity(tr("MIG slices"), qs((*snap->gpuSlices)[gpu]));
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
        break;
    }
    case EntityKind::SwitchTray: {
        const auto sw = sel->id;
        addIdentity(tr("Slot"), tr("NVLink switch tray %1 of %2")
                                    .arg(t.switchTrays.indexInRack[sw] + 1)
                                    .arg(rk.switchTrays));
        addIdentity(tr("Links"), tr("%1 GPUs").arg(rk.computeTrays * rk.gpusPerTray));
        addLink(related, tr("Rack %1").arg(qs(t.racks.name[t.switchTrays.rack[sw]])),
                {EntityKind::Rack, t.switchTrays.rack[sw]});
        break;
    }
    case EntityKind::Cdu: {
        const auto cdu = sel->id;
        addIdentity(tr("Serves"), tr("%1 racks").arg(t.cdus.rackCount[cdu]));
        for (std::uint32_t i = 0; i < t.cdus.rackCount[cdu]; ++i) {
            const auto r = t.cdus.firstRack[cdu] + i;
            addLink(related, tr("Rack %1").arg(qs(t.racks.name[r])), {EntityKind::Rack, r},
                    qs(formatCoveredValue(*snap, model::ch::RackReturnTemperature, r,
                                          m_view->fillModelled())));
        }
        break;
    }
    case EntityKind::PowerShelf: {
        const auto shelf = sel->id;
        const auto rack = t.powerShelves.rack[shelf];
        addLink(related, tr("Rack %1").arg(qs(t.racks.name[rack])), {EntityKind::Rack, rack});
        const auto per = static_cast<model::EntityId>(t.spec().power.psusPerShelf);
        for (model::EntityId i = 0; i < per; ++i) {
            const auto psu = shelf * per + i;
            addLink(
                related, tr("PSU %1 (feed %2)").arg(i + 1).arg(t.psus.side[psu] == 0 ? "A" : "B"),
                {EntityKind::Psu, psu},
                qs(formatCoveredValue(*snap, model::ch::PsuState, psu, m_view->fillModelled())));
        }
        break;
    }
    case EntityKind::Psu: {
        const auto psu = sel->id;
        addIdentity(tr("Feed"), qs(t.name(EntityKind::PowerFeed, t.psus.feed[psu])));
        addLink(related, qs(t.name(EntityKind::PowerShelf, t.psus.shelf[psu])),
                {EntityKind::PowerShelf, t.psus.shelf[psu]});
        addLink(related, qs(t.name(EntityKind::PowerFeed, t.psus.feed[psu])),
                {EntityKind::PowerFeed, t.psus.feed[psu]});
        addLink(related, tr("Rack %1").arg(qs(t.racks.name[t.psus.rack[psu]])),
                {EntityKind::Rack, t.psus.rack[psu]});
        break;
    }
    case EntityKind::PowerFeed: {
        const auto feed = sel->id;
        const auto row = t.powerFeeds.row[feed];
        addIdentity(tr("Rating"), tr("%1 kW").arg(t.powerFeeds.ratedKw[feed], 0, 'f', 0));
        addIdentity(tr("Feeds"),
                    tr("%1 racks of row %2").arg(t.rows.rackCount[row]).arg(qs(t.rows.name[row])));
        for (std::uint32_t i = 0; i < t.rows.rackCount[row]; ++i) {
            const auto r = t.rows.firstRack[row] + i;
            addLink(related, tr("Rack %1").arg(qs(t.racks.name[r])), {EntityKind::Rack, r},
                    qs(formatCoveredValue(*snap, model::ch::RackPowerInput, r,
                                          m_view->fillModelled())));
        }
        break;
    }
    default:
        break;
    }
    if (sel->kind == EntityKind::Rack) {
        // Where the rack's power comes from: its shelves and its row's busways.
        const auto r = sel->id;
        const auto shelves = static_cast<model::EntityId>(rk.powerShelves);
        for (model::EntityId k = 0; k < shelves; ++k)
            addLink(related, qs(t.name(EntityKind::PowerShelf, r * shelves + k)),
                    {EntityKind::PowerShelf, r * shelves + k},
                    qs(formatCoveredValue(*snap, model::ch::ShelfOutput, r * shelves + k,
                                          m_view->fillModelled())));
        for (int side = 0; side < 2; ++side) {
            const auto f = t.feedOf(t.racks.row[r], side);
            addLink(related, qs(t.name(EntityKind::PowerFeed, f)), {EntityKind::PowerFeed, f},
                    qs(formatCoveredValue(*snap, model::ch::FeedLoad, f, m_view->fillModelled())));
        }
    }
    addFabricRelations(related, *sel, *snap);
    m_tree->expandAll();
    if (m_tree->verticalScrollBar()) m_tree->verticalScrollBar()->setValue(scroll);
}

} // namespace ft::views
