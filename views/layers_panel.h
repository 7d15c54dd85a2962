#pragma once
// LayersPanel: which layers show (a box per registered layer, kept in step with the view), which
// channel colours the floor, camera shortcuts and the simulation speed. UI thread only.
#include "model/channel_catalog.h"
#include "model/transport.h"

#include <QWidget>

class QCheckBox;
class QComboBox;

namespace ft::views {

class FloorView;

class LayersPanel : public QWidget {
    Q_OBJECT
public:
    // `transport`: where the speed box reads and sets speed and pause (nothing: no speed box).
    LayersPanel(FloorView* view, model::Transport* transport, QWidget* parent = nullptr);
    void setMetric(model::ChannelId channel);

signals:
    void metricChosen(model::ChannelId channel);

private:
    void showSpeed();

    FloorView* m_view;
    model::Transport* m_transport;
    QComboBox* m_metric;
    QComboBox* m_speed = nullptr;
};

} // namespace ft::views
