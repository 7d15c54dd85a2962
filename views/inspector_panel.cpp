#include "inspector_panel.h"

#include "coverage.h"
#include "floor_view.h"
#include "hud.h"
#include "layers/alerts/alert_rows.h"
#include "model/gpu_health.h"
#include "model/lifecycle.h"
#include "scheduler_rows.h"
#include "series_chart.h"

#include <QDesktopServices>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QScrollBar>
#include <QToolButton>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>
#include <functional>
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
    auto* actions = new QHBoxLayout;
    m_copyLink = new QPushButton(tr("Copy link"), this);
    m_copyLink->setToolTip(tr("A floortwin:// link to this entity at this moment, as shown "
                              "(layers, metric, camera): paste it into a ticket or a chat"));
    m_openIn = new QToolButton(this);
    m_openIn->setText(tr("Open in"));
    m_openIn->setPopupMode(QToolButton::InstantPopup);
    m_openIn->setToolTip(tr("Where this entity can be opened outside the twin: the links of "
                            "the floor file and View > Links, and its alerts' runbooks"));
    auto* menu = new QMenu(m_openIn);
    m_openIn->setMenu(menu);
    connect(menu, &QMenu::aboutToShow, this, [this, menu] {
        menu->clear();
        for (const auto& [label, url] : outLinks())
            menu->addAction(label, this, [url] { QDesktopServices::openUrl(QUrl(url)); })
                ->setToolTip(url);
        if (menu->isEmpty()) menu->addAction(tr("No link fits this entity"))->setEnabled(false);
    });
    connect(m_copyLink, &QPushButton::clicked, this, [this] {
        if (m_copy) m_copy();
    });
    actions->addWidget(m_copyLink);
    actions->addWidget(m_openIn);
    actions->addStretch(1);
    m_copyLink->setVisible(false);
    m_openIn->setVisible(false);
    layout->addLayout(actions);
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

void InspectorPanel::setLinkActions(std::function<void()> copyLink, OutLinks outLinks) {
    m_copy = std::move(copyLink);
    m_outLinks = std::move(outLinks);
    refresh();
}

std::vector<std::pair<QString, QString>> InspectorPanel::outLinks() const {
    const auto selection = m_view->selection();
    if (!selection || !m_outLinks) return {};
    return m_outLinks(*selection);
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
        if (const auto h = history(c); h.size() > 1) {
            // A sparkline of the recent values on their own range (gaps: not measured then).
            const std::function<float(std::size_t)> at = [&h](std::size_t i) { return h[i]; };
            if (const auto range = finiteRange(h.size(), at)) {
                const auto [lo, hi] = *range;
                QPixmap pm(96, 18);
                pm.fill(Qt::transparent);
                QPainter p(&pm);
                p.setRenderHint(QPainter::Antialiasing);
                drawChartLines(p, QRectF(0, 2, 95, 14), h.size(), kHistoryPoints,
                               {{at, QColor(120, 190, 255), lo, std::max(hi, lo + 1e-6f), 1.4}});
                p.end();
                item->setIcon(2, QIcon(pm));
                item->setToolTip(2, tr("last 2 min: min %1, max %2")
                                        .arg(qs(formatValue(lo, c)), qs(formatValue(hi, c))));
            }
        }
        if (v > info.normalMax || v < info.normalMin) item->setForeground(1, QColor(255, 120, 90));
    }
}

std::vector<float> InspectorPanel::history(model::ChannelId c) const {
    std::vector<float> out;
    const auto it = std::ranges::find(m_historyChannels, c);
    if (it == m_historyChannels.end()) return out;
    const auto k = static_cast<std::size_t>(it - m_historyChannels.begin());
    out.reserve(m_history.size());
    for (const auto& [time, values] : m_history.points())
        out.push_back(values[k]);
    return out;
}

void InspectorPanel::recordHistory(EntityRef ref, const model::Snapshot& snap) {
    if (m_historyOf != ref) {
        // A new selection: its own channels, back-filled from the past where there is one.
        m_historyOf = ref;
        m_historyChannels.clear();
        for (const model::ChannelId c : model::allChannels())
            if (model::kChannels[c].kind == ref.kind) m_historyChannels.push_back(c);
        m_history.clear();
    }
    const bool fill = m_view->fillModelled();
    HistoryWindow<std::vector<float>>::Past past;
    if (m_view->hasPast())
        past = [this, ref](model::TimeNs t) -> std::optional<std::vector<float>> {
            std::vector<float> point(m_historyChannels.size()), column;
            for (std::size_t k = 0; k < m_historyChannels.size(); ++k) {
                if (!m_view->pastChannel(m_historyChannels[k], t, column)) return std::nullopt;
                point[k] = ref.id < column.size() ? column[ref.id] : std::nanf("");
            }
            return point;
        };
    m_history.update(
        snap.time,
        [&] {
            std::vector<float> point(m_historyChannels.size());
            for (std::size_t k = 0; k < m_historyChannels.size(); ++k)
                point[k] = shownValue(snap, m_historyChannels[k], ref.id, fill);
            return point;
        },
        past);
}

void InspectorPanel::refresh() {
    m_sinceRefresh.restart();
    const auto sel = m_view->selection();
    const auto snap = m_view->snapshot();
    const auto& t = m_view->topology();
    // Comparing: room for the differences beside the values.
    if (m_view->baseline() && m_tree->columnWidth(1) < 210) m_tree->setColumnWidth(1, 210);
    // Keep the scroll position across refreshes: operators read while values move.
    const int scroll = m_tree->verticalScrollBar() ? m_tree->verticalScrollBar()->value() : 0;
    m_tree->clear();
    m_copyLink->setVisible(sel && m_copy);
    m_openIn->setVisible(sel && m_outLinks);
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
    // The pager's alerts on it (Alertmanager), beside what the twin measures.
    for (const auto& [label, text] : alertRows(*snap, t, *sel))
        addIdentity(tr(label.c_str()), qs(text));
    auto* live = addSection(tr("Live values"));
    addChannels(live, *sel, *snap);
    auto* related = addSection(tr("Related"));

    switch (sel->kind) {
    case EntityKind::Rack:
        describeRack(related, sel->id, *snap);
        break;
    case EntityKind::ComputeTray:
        describeTray(related, sel->id, *snap);
        break;
    case EntityKind::Gpu:
        describeGpu(related, sel->id, *snap);
        break;
    case EntityKind::SwitchTray:
        describeSwitchTray(related, sel->id, *snap);
        break;
    case EntityKind::Cdu:
        describeCdu(related, sel->id, *snap);
        break;
    case EntityKind::PowerShelf:
        describeShelf(related, sel->id, *snap);
        break;
    case EntityKind::Psu:
        describePsu(related, sel->id, *snap);
        break;
    case EntityKind::PowerFeed:
        describeFeed(related, sel->id, *snap);
        break;
    default:
        break;
    }
    addFabricRelations(related, *sel, *snap);
    m_tree->expandAll();
    if (m_tree->verticalScrollBar()) m_tree->verticalScrollBar()->setValue(scroll);
}

} // namespace ft::views
