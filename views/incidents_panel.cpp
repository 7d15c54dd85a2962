#include "incidents_panel.h"

#include "alarm_causes.h"
#include "floor_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace ft::views {

namespace {

constexpr int kTimeRole = Qt::UserRole;
constexpr int kIncidentRole = Qt::UserRole + 1; // index into m_shown
constexpr int kStepRole = Qt::UserRole + 2;     // index into its chain; -1: the root

QString clock(model::TimeNs t) {
    // "14:14:22" of the UTC timestamp.
    return QString::fromStdString(model::formatUtc(t).substr(11, 8));
}

bool sameIncidents(const model::IncidentList& a, const model::IncidentList& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a.items()[i] == b.items()[i]) continue; // the same incident, shared
        const auto &x = a[i], &y = b[i];
        if (x.end != y.end || x.chain.size() != y.chain.size() ||
            x.recovery.size() != y.recovery.size() || x.jobs != y.jobs)
            return false;
        for (std::size_t k = 0; k < x.chain.size(); ++k)
            if (x.chain[k].entities.size() != y.chain[k].entities.size() ||
                x.chain[k].what != y.chain[k].what)
                return false;
    }
    return true;
}

} // namespace

IncidentsPanel::IncidentsPanel(FloorView* view, QWidget* parent) : QWidget(parent), m_view(view) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    layout->addWidget(m_note);
    m_tree = new QTreeWidget(this);
    m_tree->setColumnCount(3);
    m_tree->setHeaderLabels({tr("When"), tr("What"), tr("Reach")});
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    m_tree->setToolTip(tr("Click a line to frame what it names (and, in a replay, to go there)"));
    layout->addWidget(m_tree);
    connect(m_tree, &QTreeWidget::itemClicked, this,
            [this](QTreeWidgetItem* item, int) { activate(item); });
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_tree, &QWidget::customContextMenuRequested, this, [this](const QPoint& p) {
        QTreeWidgetItem* item = m_tree->itemAt(p);
        if (!item) return;
        QMenu menu(this);
        menu.addAction(tr("Copy link to this"), this, [this, item] {
            activate(item);
            emit linkRequested(item->data(0, kTimeRole).toLongLong());
        });
        menu.exec(m_tree->viewport()->mapToGlobal(p));
    });
    refresh();
}

void IncidentsPanel::refresh() {
    const auto* incidents = m_view->incidents();
    if (!incidents) {
        m_note->setText(tr("No incident tracking for this source."));
        if (!m_shown.empty()) m_tree->clear();
        m_shown = {};
        return;
    }
    std::size_t open = 0;
    for (const auto& inc : *incidents)
        open += inc.end == 0 ? 1 : 0;
    m_note->setText(incidents->empty()
                        ? tr("No incidents.")
                        : tr("%1 incidents, %2 open").arg(incidents->size()).arg(open));
    if (sameIncidents(*incidents, m_shown)) return;
    m_shown = *incidents;
    const auto& t = m_view->topology();
    m_tree->clear();
    auto line = [&](QTreeWidgetItem* parent, model::TimeNs time, const QString& what,
                    const QString& reach, std::size_t incident, int step) {
        auto* item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(m_tree);
        item->setText(0, clock(time));
        item->setText(1, what);
        item->setText(2, reach);
        item->setToolTip(1, what);
        item->setData(0, kTimeRole, QVariant::fromValue<qlonglong>(time));
        item->setData(0, kIncidentRole, QVariant::fromValue<qulonglong>(incident));
        item->setData(0, kStepRole, step);
        return item;
    };
    // Newest first: the one being worked on is at the top.
    for (std::size_t n = incidents->size(); n-- > 0;) {
        const auto& inc = (*incidents)[n];
        const QString state = inc.end == 0 ? tr("open") : tr("ended %1").arg(clock(inc.end));
        auto* top = line(nullptr, inc.start,
                         QString::fromStdString(inc.rootText) + "   [" +
                             QString::fromUtf8(model::causeDomainName(inc.domain).data()) + ", " +
                             state + "]",
                         inc.racks > 0 ? tr("%1 racks").arg(inc.racks) : QString(), n, -1);
        QFont bold = top->font(1);
        bold.setBold(true);
        top->setFont(1, bold);
        if (inc.end == 0) top->setForeground(1, QColor(255, 150, 110));
        for (std::size_t k = 0; k < inc.chain.size(); ++k) {
            const auto& step = inc.chain[k];
            const QString reach =
                step.entities.size() == 1
                    ? QString::fromStdString(t.name(step.kind, step.entities.front()))
                    : QString("%1 %2s")
                          .arg(step.entities.size())
                          .arg(QString::fromUtf8(model::entityKindName(step.kind).data()));
            line(top, step.time,
                 QString::fromUtf8(model::causeDomainName(step.domain).data()) + ": " +
                     QString::fromStdString(step.what),
                 reach, n, static_cast<int>(k));
        }
        if (!inc.jobs.empty()) {
            QStringList jobs;
            for (const auto& j : inc.jobs)
                jobs << QString::fromStdString(j);
            auto* j = line(top, inc.start, tr("jobs hurt: %1").arg(jobs.join(", ")),
                           tr("%1 jobs").arg(inc.jobs.size()), n, -1);
            j->setForeground(1, QColor(150, 156, 168));
        }
        for (const auto& [time, text] : inc.recovery) {
            auto* r =
                line(top, time, tr("recovery: %1").arg(QString::fromStdString(text)), {}, n, -1);
            r->setForeground(1, QColor(120, 200, 140));
        }
        top->setExpanded(inc.end == 0);
    }
}

void IncidentsPanel::activate(QTreeWidgetItem* item) {
    if (!item) return;
    const auto time = item->data(0, kTimeRole).toLongLong();
    const auto n = item->data(0, kIncidentRole).toULongLong();
    const int k = item->data(0, kStepRole).toInt();
    if (n < m_shown.size()) {
        // Frame everything the line names (the root: what its footprint holds), from the angle
        // the camera has, and select the first of it.
        const auto& inc = m_shown[n];
        std::vector<model::EntityRef> named;
        if (k >= 0 && static_cast<std::size_t>(k) < inc.chain.size()) {
            const auto& step = inc.chain[static_cast<std::size_t>(k)];
            for (std::size_t i = 0; i < step.entities.size() && i < 512; ++i)
                named.push_back({step.kind, step.entities[i]});
        } else {
            named.push_back(inc.root);
        }
        const auto& t = m_view->topology();
        if (const auto box = focusBox(t, named)) {
            CameraRig rig = m_view->camera();
            auto hi = box->max;
            hi.z += 0.6f; // the rack labels above the tops
            rig.fitWindow(box->min, hi, m_view->aspect(), {});
            m_view->setCamera(rig);
        }
        if (!named.empty()) {
            const auto rack = named.front().kind == model::EntityKind::Rack
                                  ? std::optional(named.front().id)
                                  : t.rackOf(named.front().kind, named.front().id);
            m_view->setSelection(rack ? std::optional<model::EntityRef>(
                                            model::EntityRef{model::EntityKind::Rack, *rack})
                                      : std::optional(named.front()));
        }
    }
    emit seekRequested(time);
}

} // namespace ft::views
