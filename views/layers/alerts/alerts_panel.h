#pragma once
// The Alerts dock: the floor's own alerting beside the twin's, never confusable. The
// *Alertmanager* part lists every alert (firing, silenced, inhibited; critical first, then the
// oldest) with where it landed, or that it names nothing on this floor; the *floortwin* part the
// twin's own alarm causes. An alert on a rack the twin has a cause for is shown joined to it.
// Below, the chosen alert in full: summary, description, runbook and source links, labels,
// receivers, and the silence that mutes it (who, until when, why). With --alertmanager-write,
// *Silence…* and *Expire silence* act on it through its Alertmanager. A click on an alert
// selects and frames where it landed. UI thread only.
#include "model/external_alert.h"

#include <QWidget>
#include <memory>
#include <string>

class QLabel;
class QPushButton;
class QTextBrowser;
class QTreeWidget;
class QTreeWidgetItem;

namespace ft::views {

class FloorView;

class AlertsPanel : public QWidget {
    Q_OBJECT
public:
    explicit AlertsPanel(FloorView* view, QWidget* parent = nullptr);
    QSize sizeHint() const override { return {420, 640}; }
    // Re-reads the view's snapshot (cheap when neither list changed).
    void refresh();
    QTreeWidget* tree() const { return m_tree; }             // tests
    QTextBrowser* details() const { return m_details; }      // tests
    QPushButton* silenceButton() const { return m_silence; } // tests
    // Shows the alert with this fingerprint below the list (tests, links).
    void showAlert(const std::string& fingerprint);

private:
    void activate(QTreeWidgetItem* item);
    void showDetails();
    void silenceChosen();
    void expireChosen();
    const model::ExternalAlert* chosen() const;

    FloorView* m_view;
    QLabel* m_note;
    QTreeWidget* m_tree;
    QTextBrowser* m_details;
    QPushButton *m_silence, *m_expire;
    std::shared_ptr<const model::AlertBoard> m_board; // as listed
    std::size_t m_alarmsShown = ~std::size_t{0};      // the twin's alarm count as listed
    std::string m_chosen;                             // fingerprint
};

} // namespace ft::views
