#pragma once
// SourcesPanel: where the data comes from. Each live source's targets with their health, the
// host names their telemetry carries that the floor does not know (with the floor's nearest
// names: what to fix in the inventory or the exporter's labels), and what the current snapshot
// covers: how many entities of each kind were measured, and which channels. Refreshes once a
// second from the view. UI thread only.
#include "model/snapshot.h"
#include "source_status.h"

#include <QString>
#include <QTimer>
#include <QWidget>
#include <map>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace ft::views {

class FloorView;

class SourcesPanel : public QWidget {
    Q_OBJECT
public:
    explicit SourcesPanel(FloorView* view, QWidget* parent = nullptr);
    void refresh();
    // Opens each source's mapping report and scrolls to the first (the HUD links here).
    void showMapping();
    QTreeWidget* tree() const { return m_tree; }

private:
    // What the snapshot measured, per entity kind and channel (the panel's top line).
    void showCoverage(const model::Snapshot* snapshot);
    // One source's row: its health, the hosts and equipment it could not place, the
    // equipment's own conditions, format warnings and the mapping report.
    void addSource(const SourceStatus& s);
    void addMapping(QTreeWidgetItem* source, const SourceStatus& s);
    FloorView* m_view;
    QLabel* m_coverage;
    QTreeWidget* m_tree;
    QTimer m_timer;
    std::map<QString, bool> m_mappingOpen; // by source: its mapping report opened
};

} // namespace ft::views
