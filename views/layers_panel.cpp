#include "layers_panel.h"

#include "floor_view.h"
#include "transport_observer.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QPushButton>
#include <QVBoxLayout>

namespace ft::views {

namespace {
struct SpeedChoice {
    const char* label;
    double speed;
    bool paused;
};
constexpr SpeedChoice kSpeeds[] = {{"Paused", 1, true},
                                   {"1× (real time)", 1, false},
                                   {"10×", 10, false},
                                   {"60× (a minute a second)", 60, false},
                                   {"600×", 600, false}};
} // namespace

LayersPanel::LayersPanel(FloorView* view, model::Transport* transport, QWidget* parent)
    : QWidget(parent), m_view(view), m_transport(transport) {
    auto* layout = new QVBoxLayout(this);

    auto* colour = new QGroupBox(tr("Colour the floor by"), this);
    auto* colourLayout = new QVBoxLayout(colour);
    m_metric = new QComboBox(colour);
    // As narrow as a short name: the dock must not take the floor's room for the longest of
    // the channels' descriptions (the list itself opens as wide as they are).
    m_metric->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_metric->setMinimumContentsLength(22);
    for (const model::ChannelId c : model::allChannels()) {
        const auto& info = model::kChannels[c];
        // States (health, lifecycle, the scheduler's word) have no unit to show.
        const QString unit =
            info.unit.empty()
                ? QString()
                : " (" + QString::fromUtf8(info.unit.data(), static_cast<int>(info.unit.size())) +
                      ")";
        m_metric->addItem(
            QString::fromUtf8(info.description.data(), static_cast<int>(info.description.size())) +
                unit,
            c);
        m_metric->setItemData(
            m_metric->count() - 1,
            QString::fromUtf8(info.name.data(), static_cast<int>(info.name.size())),
            Qt::ToolTipRole);
    }
    colourLayout->addWidget(m_metric);
    layout->addWidget(colour);

    auto* layers = new QGroupBox(tr("Layers"), this);
    auto* layersLayout = new QVBoxLayout(layers);
    // The view's layers own their visibility: a box switches it there and follows it back.
    for (const auto& layer : m_view->layers()) {
        const QString id =
            QString::fromUtf8(layer->id().data(), static_cast<int>(layer->id().size()));
        const auto& title = layer->info().title;
        auto* box =
            new QCheckBox(QString::fromUtf8(title.data(), static_cast<int>(title.size())), layers);
        box->setObjectName("layer_" + id);
        box->setChecked(layer->visible());
        layersLayout->addWidget(box);
        connect(box, &QCheckBox::toggled, m_view,
                [this, id](bool on) { m_view->setLayerVisible(id.toStdString(), on); });
        connect(m_view, &FloorView::layerVisibilityChanged, box,
                [box, id](const QString& changed, bool on) {
                    if (changed != id) return;
                    const QSignalBlocker block(box);
                    box->setChecked(on);
                });
    }
    layout->addWidget(layers);

    auto* camera = new QGroupBox(tr("Camera"), this);
    auto* cameraLayout = new QHBoxLayout(camera);
    auto* reset = new QPushButton(tr("Overview (R)"), camera);
    auto* top = new QPushButton(tr("Top (T)"), camera);
    auto* frame = new QPushButton(tr("Selection (F)"), camera);
    cameraLayout->addWidget(reset);
    cameraLayout->addWidget(top);
    cameraLayout->addWidget(frame);
    layout->addWidget(camera);

    if (m_transport) {
        auto* sim =
            new QGroupBox(m_transport->isReplay() ? tr("Playback") : tr("Simulation"), this);
        auto* simLayout = new QFormLayout(sim);
        m_speed = new QComboBox(sim);
        m_speed->setObjectName("speed");
        for (const auto& s : kSpeeds)
            m_speed->addItem(tr(s.label));
        simLayout->addRow(tr("Speed"), m_speed);
        layout->addWidget(sim);
        showSpeed();
        // The transport owns speed and pause: the box sets them there and follows them back.
        connect(new TransportObserver(*m_transport, this), &TransportObserver::changed, this,
                &LayersPanel::showSpeed);
        connect(m_speed, &QComboBox::currentIndexChanged, this, [this](int i) {
            if (i < 0 || i >= static_cast<int>(std::size(kSpeeds))) return;
            m_transport->setSpeed(kSpeeds[i].speed);
            m_transport->setPaused(kSpeeds[i].paused);
        });
    }
    layout->addStretch(1);

    connect(m_metric, &QComboBox::currentIndexChanged, this, [this](int i) {
        const auto c = static_cast<model::ChannelId>(m_metric->itemData(i).toUInt());
        m_view->setMetric(c);
        emit metricChosen(c);
    });
    connect(reset, &QPushButton::clicked, m_view, &FloorView::resetCamera);
    connect(top, &QPushButton::clicked, m_view, &FloorView::topView);
    connect(frame, &QPushButton::clicked, m_view, &FloorView::frameSelection);
}

void LayersPanel::setMetric(model::ChannelId channel) {
    const int i = m_metric->findData(channel);
    if (i >= 0) m_metric->setCurrentIndex(i);
}

void LayersPanel::showSpeed() {
    const bool paused = m_transport->paused();
    const double speed = m_transport->speed();
    const QSignalBlocker block(m_speed);
    m_speed->setCurrentIndex(-1); // a speed not in the list (a timeline choice) shows blank
    for (int i = 0; i < static_cast<int>(std::size(kSpeeds)); ++i)
        if (kSpeeds[i].paused == paused && (paused || kSpeeds[i].speed == speed))
            m_speed->setCurrentIndex(i);
}

} // namespace ft::views
