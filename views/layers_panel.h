#pragma once
// LayersPanel: which layers show (a box per registered layer, kept in step with the view), which channel colours the floor, camera shortcuts and the
// simulation speed. UI thread only.
#include "model/channel_catalog.h"

#include <QWidget>

class QCheckBox;
class QComboBox;

namespace ft::views {

class FloorView;

class LayersPanel : public QWidget {
    Q_OBJECT
public:
    explicit LayersPanel(FloorView* view, QWidget* parent = nullptr);
    void setMetric(model::ChannelId channel);
    void setSpeed(double speed, bool paused);

signals:
    void metricChosen(model::ChannelId channel);
    void speedChosen(double speed, bool paused);

private:
    FloorView* m_view;
    QComboBox* m_metric;
    QComboBox* m_speed;
};

} // namespace ft::views
