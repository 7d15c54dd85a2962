#pragma once
// StoragePanel: where the data goes, as a Sankey-style diagram — dataset reads split into cache
// hits and bucket reads, checkpoint writes into the local hot tier and on to the remote region —
// with the tiers of each region and the migration backlog over the last ten minutes (from the
// recording in a replay, whichever way it plays). UI thread.
#include "history_window.h"
#include "model/snapshot.h"

#include <QWidget>
#include <deque>

namespace ft::views {

class FloorView;

class StoragePanel : public QWidget {
    Q_OBJECT
public:
    explicit StoragePanel(FloorView* view, QWidget* parent = nullptr);
    QSize sizeHint() const override { return {380, 640}; }
    struct Point {
        model::TimeNs time;
        float backlogTb, oldestS, migrationGBps;
    };
    // The last ten minutes, one point a second.
    std::vector<Point> history() const;
    // A replay: read the history's missing points from the recording (after a seek, backwards).
    void setHistorySource(ChannelHistory past) { m_past = std::move(past); }

protected:
    void paintEvent(QPaintEvent* e) override;

private:
    void onSnapshot();
    FloorView* m_view;
    HistoryWindow<Point> m_history{600};
    ChannelHistory m_past;
};

} // namespace ft::views
