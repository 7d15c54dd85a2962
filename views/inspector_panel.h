#pragma once
// InspectorPanel: identity and live values of the selected entity (rack, tray, GPU, switch tray,
// NVLink link, NIC link, leaf, spine, CDU...), each value with a sparkline of its last two
// minutes, and its parents and children as rows that can be clicked to select them. Refreshes
// at most four times a second from the view's current snapshot. UI thread only.
#include "history_window.h"
#include "model/entity_kind.h"
#include "model/snapshot.h"
#include "model/topology.h"

#include <QElapsedTimer>
#include <QWidget>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

class QLabel;
class QPushButton;
class QToolButton;
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
    // Links: "Copy link" copies a link to the selected entity as shown; "Open in" lists where
    // the entity can be opened outside the twin (a label and a URL each), asked when opened.
    using OutLinks = std::function<std::vector<std::pair<QString, QString>>(model::EntityRef)>;
    void setLinkActions(std::function<void()> copyLink, OutLinks outLinks);
    // The entries "Open in" offers for the selection now (tests).
    std::vector<std::pair<QString, QString>> outLinks() const;

private:
    void addIdentity(const QString& key, const QString& value);
    QTreeWidgetItem* addSection(const QString& title);
    void addChannels(QTreeWidgetItem* section, model::EntityRef ref, const model::Snapshot& snap);
    void addLink(QTreeWidgetItem* section, const QString& label, model::EntityRef ref,
                 const QString& value = {});
    // Each kind's identity rows and related links (inspector_relations.cpp).
    void describeRack(QTreeWidgetItem* related, model::EntityId id, const model::Snapshot& s);
    void describeTray(QTreeWidgetItem* related, model::EntityId id, const model::Snapshot& s);
    void describeGpu(QTreeWidgetItem* related, model::EntityId id, const model::Snapshot& s);
    void describeSwitchTray(QTreeWidgetItem* related, model::EntityId id, const model::Snapshot& s);
    void describeCdu(QTreeWidgetItem* related, model::EntityId id, const model::Snapshot& s);
    void describeShelf(QTreeWidgetItem* related, model::EntityId id, const model::Snapshot& s);
    void describePsu(QTreeWidgetItem* related, model::EntityId id, const model::Snapshot& s);
    void describeFeed(QTreeWidgetItem* related, model::EntityId id, const model::Snapshot& s);
    void addFabricRelations(QTreeWidgetItem* related, model::EntityRef ref,
                            const model::Snapshot& snap);
    void recordHistory(model::EntityRef ref, const model::Snapshot& snap);

    FloorView* m_view;
    QLabel* m_title;
    QPushButton* m_copyLink = nullptr;
    QToolButton* m_openIn = nullptr;
    std::function<void()> m_copy;
    OutLinks m_outLinks;
    QTreeWidget* m_tree;
    QElapsedTimer m_sinceRefresh;
    // The selected entity's recent values, one point a second, per channel of its kind (in
    // m_historyChannels' order; NaN: not measured then). Back-filled from the view's history.
    std::optional<model::EntityRef> m_historyOf;
    std::vector<model::ChannelId> m_historyChannels;
    HistoryWindow<std::vector<float>> m_history{kHistoryPoints};

public:
    static constexpr std::size_t kHistoryPoints = 120; // two minutes of source time
    // The selected entity's last two minutes of `c`, oldest first (empty: none kept).
    std::vector<float> history(model::ChannelId c) const;
};

} // namespace ft::views
