#pragma once
// LayersPanel: which layers show, which channel colours the floor, camera shortcuts and the
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
    void setThermal(bool on);
    void setLifecycle(bool on);
    void setStorage(bool on);
    void setNvlink(bool on);
    void setRails(bool on);

signals:
    void metricChosen(model::ChannelId channel);
    void speedChosen(double speed, bool paused);

private:
    FloorView* m_view;
    QComboBox* m_metric;
    QComboBox* m_speed;
    QCheckBox* m_racks;
    QCheckBox* m_thermal;
    QCheckBox* m_lifecycle;
    QCheckBox* m_storage;
    QCheckBox* m_nvlink;
    QCheckBox* m_rails;
};

} // namespace ft::views
