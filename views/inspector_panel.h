#pragma once
// InspectorPanel: identity and live values of the selected rack, tray, GPU or switch tray, with
// its parents and children as rows that can be clicked to select them. Refreshes at most four
// times a second from the view's current snapshot. UI thread only.
#include "model/entity_kind.h"
#include "model/snapshot.h"
#include "model/topology.h"

#include <QElapsedTimer>
#include <QWidget>

#include <optional>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace ft::views {

class FloorView;

class InspectorPanel : public QWidget {
    Q_OBJECT
public:
    explicit InspectorPanel(FloorView* view, QWidget* parent = nullptr);
    // Rebuilds the rows for the current selection and snapshot (also used by tests).
    void refresh();
    QTreeWidget* tree() const { return m_tree; }

private:
    void addIdentity(const QString& key, const QString& value);
    QTreeWidgetItem* addSection(const QString& title);
    void addChannels(QTreeWidgetItem* section, model::EntityRef ref, const model::Snapshot& snap);
    void addLink(QTreeWidgetItem* section, const QString& label, model::EntityRef ref, const QString& value = {});

    FloorView* m_view;
    QLabel* m_title;
    QTreeWidget* m_tree;
    QElapsedTimer m_sinceRefresh;
};

} // namespace ft::views
