#pragma once
// StoragePanel: where the data goes, as a Sankey-style diagram — dataset reads split into cache
// hits and bucket reads, checkpoint writes into the local hot tier and on to the remote region —
// with the tiers of each region and the migration backlog over the last ten minutes. UI thread.
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
    const std::deque<Point>& history() const { return m_history; }

protected:
    void paintEvent(QPaintEvent* e) override;

private:
    void onSnapshot();
    FloorView* m_view;
    std::deque<Point> m_history;
};

} // namespace ft::views
