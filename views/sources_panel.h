#pragma once
// SourcesPanel: where the data comes from. Each live source's targets with their health, the
// host names their telemetry carries that the floor does not know (with the floor's nearest
// names: what to fix in the inventory or the exporter's labels), and what the current snapshot
// covers: how many entities of each kind were measured, and which channels. Refreshes once a
// second from the view. UI thread only.
#include <QTimer>
#include <QWidget>

class QLabel;
class QTreeWidget;

namespace ft::views {

class FloorView;

class SourcesPanel : public QWidget {
    Q_OBJECT
public:
    explicit SourcesPanel(FloorView* view, QWidget* parent = nullptr);
    void refresh();
    QTreeWidget* tree() const { return m_tree; }

private:
    FloorView* m_view;
    QLabel* m_coverage;
    QTreeWidget* m_tree;
    QTimer m_timer;
};

} // namespace ft::views
