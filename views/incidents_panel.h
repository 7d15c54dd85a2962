#pragma once
// The Incidents dock: every incident as a cause chain — its root, then each effect with its time,
// its domain and how far it spread, then the jobs it hurt and its recovery. A click on a line
// selects what it names and frames it; in a replay it also seeks to that moment.
#include "model/incident_tracker.h"

#include <QWidget>
#include <vector>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace ft::views {

class FloorView;

class IncidentsPanel : public QWidget {
    Q_OBJECT
public:
    explicit IncidentsPanel(FloorView* view, QWidget* parent = nullptr);
    // Re-reads the view's incidents (on each new snapshot; cheap when nothing changed).
    void refresh();
    // A line's entity and moment (tests).
    QTreeWidget* tree() const { return m_tree; }

signals:
    void seekRequested(model::TimeNs time);
    // "Copy link" on a line: the line was shown (framed, selected, sought); a link to it wanted.
    void linkRequested(model::TimeNs time);

private:
    void activate(QTreeWidgetItem* item);

    FloorView* m_view;
    QLabel* m_note;
    QTreeWidget* m_tree;
    model::IncidentList m_shown; // what the tree shows, to skip rebuilding it
};

} // namespace ft::views
