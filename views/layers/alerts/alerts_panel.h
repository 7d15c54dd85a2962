#pragma once
// The Alerts dock: the floor's own alerting beside the twin's, never confusable. The
// *Alertmanager* part lists every alert (firing, silenced, inhibited; critical first, then the
// oldest) with where it landed, or that it names nothing on this floor; the *floortwin* part the
// twin's own alarm causes. An alert on a rack the twin has a cause for is shown joined to it.
// Below, the chosen alert in full: summary, description, runbook and source links, labels,
// receivers, and the silence that mutes it (who, until when, why). With --alertmanager-write,
// *Silence…* and *Expire silence* act on it through its Alertmanager, and *Silence rack…* mutes
// whatever fires on the selected rack (planned work) in every writable Alertmanager. A click on
// an alert selects and frames where it landed. UI thread only.
#include "model/external_alert.h"
#include "model/topology.h"

#include <QWidget>
#include <memory>
#include <optional>
#include <string>

class QLabel;
class QPushButton;
class QTextBrowser;
class QTreeWidget;
class QTreeWidgetItem;

namespace ft::views {

class FloorView;

// The silences that mute a rack: its hosts in `instance` (any port) and in `Hostname` (each its
// own silence: a silence's matchers must all hold), and the rules' own `rack` label.
std::vector<std::vector<model::SilenceMatcher>> rackSilences(const model::Topology& topology,
                                                             model::EntityId rack);

class AlertsPanel : public QWidget {
    Q_OBJECT
public:
    explicit AlertsPanel(FloorView* view, QWidget* parent = nullptr);
    QSize sizeHint() const override { return {420, 640}; }
    // Re-reads the view's snapshot (cheap when neither list changed).
    void refresh();
    QTreeWidget* tree() const { return m_tree; }              // tests
    QTextBrowser* details() const { return m_details; }       // tests
    QPushButton* silenceButton() const { return m_silence; }  // tests
    QPushButton* rackButton() const { return m_silenceRack; } // tests
    // Shows the alert with this fingerprint below the list (tests, links).
    void showAlert(const std::string& fingerprint);

private:
    void activate(QTreeWidgetItem* item);
    void showDetails();
    void silenceChosen();
    void expireChosen();
    void silenceRack();
    std::optional<model::EntityId> selectedRack() const;
    const model::ExternalAlert* chosen() const;

    FloorView* m_view;
    QLabel* m_note;
    QTreeWidget* m_tree;
    QTextBrowser* m_details;
    QPushButton *m_silence, *m_expire, *m_silenceRack;
    std::shared_ptr<const model::AlertBoard> m_board; // as listed
    std::size_t m_alarmsShown = ~std::size_t{0};      // the twin's alarm count as listed
    std::string m_chosen;                             // fingerprint
};

} // namespace ft::views
