#include "sources_panel.h"

#include "floor_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace ft::views {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace

SourcesPanel::SourcesPanel(FloorView* view, QWidget* parent) : QWidget(parent), m_view(view) {
    auto* layout = new QVBoxLayout(this);
    m_coverage = new QLabel(this);
    m_coverage->setWordWrap(true);
    m_coverage->setTextFormat(Qt::RichText);
    layout->addWidget(m_coverage);
    m_tree = new QTreeWidget(this);
    m_tree->setColumnCount(3);
    m_tree->setHeaderLabels({tr("Source / unknown host"), tr("State / samples"), tr("Detail")});
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_tree->setRootIsDecorated(true);
    layout->addWidget(m_tree, 1);
    connect(&m_timer, &QTimer::timeout, this, &SourcesPanel::refresh);
    m_timer.start(1000);
    refresh();
}

void SourcesPanel::refresh() {
    const auto snapshot = m_view->snapshot();
    showCoverage(snapshot.get());
    // Sources and what they could not place.
    const auto sources = m_view->sourceStatuses();
    // Keep what the operator opened or closed across the refresh.
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        QTreeWidgetItem* source = m_tree->topLevelItem(i);
        for (int c = 0; c < source->childCount(); ++c)
            if (source->child(c)->text(0).startsWith(tr("mapping:")))
                m_mappingOpen[source->text(0)] = source->child(c)->isExpanded();
    }
    m_tree->clear();
    if (sources.empty()) {
        new QTreeWidgetItem(
            m_tree, {tr("No live sources"), QString(),
                     snapshot && snapshot->telemetry ? tr("replay of telemetry") : QString()});
        return;
    }
    for (const auto& s : sources)
        addSource(s);
}

void SourcesPanel::showCoverage(const model::Snapshot* snapshot) {
    const model::Topology* topology = &m_view->topology();
    // Coverage of the current snapshot.
    if (!snapshot) {
        m_coverage->setText(tr("No data yet."));
    } else if (!snapshot->telemetry) {
        m_coverage->setText(tr("<b>Simulator</b>: every value is the model's (no telemetry)."));
    } else {
        QString text = tr("<b>Measured</b> in this snapshot:");
        for (const auto kind :
             {model::EntityKind::Rack, model::EntityKind::ComputeTray, model::EntityKind::Gpu,
              model::EntityKind::Cdu, model::EntityKind::Pump, model::EntityKind::PowerShelf,
              model::EntityKind::Psu, model::EntityKind::PowerFeed, model::EntityKind::FabricLink,
              model::EntityKind::NvlinkLink}) {
            const auto n = static_cast<model::EntityId>(topology->count(kind));
            if (n == 0) continue;
            std::size_t measured = 0, stale = 0;
            for (model::EntityId e = 0; e < n; ++e) {
                measured += snapshot->measuredTime(kind, e) > 0 ? 1 : 0;
                stale += snapshot->stale(kind, e) ? 1 : 0;
            }
            text += tr("<br>%1: %2 of %3")
                        .arg(qs(std::string(model::entityKindName(kind))))
                        .arg(measured)
                        .arg(n);
            if (stale > 0) text += tr(" (<span style='color:#e0603c'>%1 stale</span>)").arg(stale);
        }
        QStringList channels;
        for (model::ChannelId c = 0; c < model::ch::Count; ++c)
            if (snapshot->measuredChannels.test(c))
                channels << qs(std::string(model::kChannels[c].name));
        text += tr("<br>Channels measured: %1")
                    .arg(channels.isEmpty() ? tr("none yet") : channels.join(", "));
        text += m_view->fillModelled()
                    ? tr("<br>The rest is the model's, drawn desaturated and hatched.")
                    : tr("<br>The rest is drawn as no data (View → Fill gaps with the model).");
        m_coverage->setText(text);
    }
}

void SourcesPanel::addSource(const SourceStatus& s) {
    auto* item = new QTreeWidgetItem(m_tree, {qs(s.name),
                                              s.level == 0   ? tr("up")
                                              : s.level == 1 ? tr("degraded")
                                                             : tr("down"),
                                              qs(s.detail)});
    item->setForeground(1, s.level == 0   ? QColor(90, 200, 120)
                           : s.level == 1 ? QColor(240, 180, 60)
                                          : QColor(235, 90, 70));
    item->setToolTip(2, qs(s.detail));
    for (const auto& h : s.unknownHosts) {
        QStringList near;
        for (const auto& n : h.suggestions)
            near << qs(n);
        auto* host = new QTreeWidgetItem(
            item,
            {qs(h.host), tr("%1 samples").arg(h.samples),
             near.isEmpty() ? tr("not on this floor, nothing alike")
                            : tr("not on this floor; did you mean %1?").arg(near.join(", "))});
        host->setForeground(0, QColor(240, 180, 60));
    }
    for (const auto& [entity, samples] : s.unresolved) {
        auto* u = new QTreeWidgetItem(
            item, {qs(entity), tr("%1 samples").arg(samples),
                   tr("named by the mapping, not on this floor: rename the equipment or "
                      "edit the rules")});
        u->setForeground(0, QColor(240, 180, 60));
    }
    for (const auto& c : s.conditions) {
        const bool critical = c.starts_with("Critical");
        auto* cond = new QTreeWidgetItem(
            item,
            {critical ? tr("equipment: critical") : tr("equipment: warning"), QString(), qs(c)});
        cond->setForeground(0, critical ? QColor(235, 90, 70) : QColor(240, 180, 60));
        cond->setToolTip(2, qs(c));
    }
    if (s.formatWarnings > 0) {
        auto* w =
            new QTreeWidgetItem(item, {tr("format: warnings"), tr("%1 lines").arg(s.formatWarnings),
                                       qs(s.lastFormatWarning)});
        w->setForeground(0, QColor(240, 180, 60));
        w->setToolTip(2, tr("Lines that break the exposition format's specification but were "
                            "used as written.\n%1")
                             .arg(qs(s.lastFormatWarning)));
    }
    addMapping(item, s);
    item->setExpanded(true);
}

void SourcesPanel::addMapping(QTreeWidgetItem* source, const SourceStatus& s) {
    if (s.families.empty()) return;
    // The mapping report: what each metric family came to, over the series seen so far.
    std::uint64_t placed = 0, ignored = 0, notPlaced = 0, noRule = 0;
    for (const auto& f : s.families) {
        placed += f.placed;
        ignored += f.ignored;
        noRule += f.noRule;
        notPlaced += f.series - f.placed - f.ignored - f.noRule;
    }
    auto* mapping = new QTreeWidgetItem(
        source, {tr("mapping: %1 families").arg(s.families.size()), tr("%1 placed").arg(placed),
                 tr("%1 not placed, %2 ignored on purpose, %3 without a rule")
                     .arg(notPlaced)
                     .arg(ignored)
                     .arg(noRule)});
    mapping->setForeground(1, notPlaced > 0 ? QColor(240, 180, 60) : QColor(90, 200, 120));
    // Not placed first (what to fix), then placed, then ignored and unknown.
    auto rank = [](const FamilyStatus& f) {
        return f.series > f.placed + f.ignored + f.noRule ? 0
               : f.placed > 0                             ? 1
               : f.ignored                                ? 2
                                                          : 3;
    };
    std::vector<const FamilyStatus*> order;
    order.reserve(s.families.size());
    for (const auto& f : s.families)
        order.push_back(&f);
    std::ranges::stable_sort(order, {}, [&](const FamilyStatus* f) { return rank(*f); });
    for (const FamilyStatus* f : order) {
        QString state, detail;
        QColor colour(160, 166, 176);
        switch (rank(*f)) {
        case 0:
            state = tr("%1 of %2 not placed")
                        .arg(f->series - f->placed - f->ignored - f->noRule)
                        .arg(f->series);
            detail = qs(f->why);
            colour = QColor(240, 180, 60);
            break;
        case 1:
            state = tr("%1 placed").arg(f->placed);
            detail = tr("→ %1; by %2").arg(qs(f->channels), qs(f->placedBy));
            colour = QColor(90, 200, 120);
            break;
        case 2:
            state = tr("ignored");
            detail = qs(f->why);
            break;
        default:
            state = tr("no rule");
            detail = tr("the mapping does not know this family");
            break;
        }
        auto* row = new QTreeWidgetItem(mapping, {qs(f->family), state, detail});
        row->setForeground(1, colour);
        row->setToolTip(1, state);
        row->setToolTip(2, detail);
    }
    const auto open = m_mappingOpen.find(source->text(0));
    mapping->setExpanded(open != m_mappingOpen.end() ? open->second : notPlaced > 0);
}

void SourcesPanel::showMapping() {
    // The HUD's source line leads here: the mapping reports open, the first one in view.
    refresh();
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        QTreeWidgetItem* source = m_tree->topLevelItem(i);
        for (int c = 0; c < source->childCount(); ++c)
            if (source->child(c)->text(0).startsWith(tr("mapping:"))) {
                source->child(c)->setExpanded(true);
                m_mappingOpen[source->text(0)] = true;
                m_tree->scrollToItem(source->child(c), QAbstractItemView::PositionAtTop);
                return;
            }
    }
}

} // namespace ft::views
