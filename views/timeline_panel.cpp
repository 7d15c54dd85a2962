#include "timeline_panel.h"

#include "transport_observer.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

namespace ft::views {

namespace {
constexpr double kSpeeds[] = {0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1000};

QString clock(model::TimeNs t) {
    return QString::fromStdString(model::formatUtc(t, true)).left(23);
}
} // namespace

TimelinePanel::TimelinePanel(model::Transport& transport, QWidget* parent)
    : QWidget(parent), m_transport(transport) {
    // Play button and speed box show the transport's state whenever it changes.
    connect(new TransportObserver(m_transport, this), &TransportObserver::changed, this,
            &TimelinePanel::refresh);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    auto* controls = new QHBoxLayout;
    const bool replay = transport.isReplay();
    auto button = [&](const QString& text, const QString& tip, auto&& onClick) {
        auto* b = new QPushButton(text, this);
        b->setToolTip(tip);
        b->setMaximumWidth(56);
        connect(b, &QPushButton::clicked, this, onClick);
        controls->addWidget(b);
        return b;
    };
    if (replay) {
        button("|◀", tr("Start (Home)"), [this] { m_transport.seek(m_transport.beginTime()); });
        button("◀◀", tr("Previous event ([)"), [this] { emit jumpToEvent(-1); });
        button("◀", tr("Step back one tick (←)"), [this] { m_transport.step(-1); });
    }
    if (replay)
        m_back = button(tr("◁ Back"), tr("Play backwards (J; again: faster)"), [this] {
            m_transport.setReverse(true);
            m_transport.setPaused(false);
        });
    m_play = button(tr("Play"), tr("Play / pause (Space)"), [this] {
        // Play goes forwards; from playing backwards it turns round.
        if (m_transport.reverse()) {
            m_transport.setReverse(false);
            m_transport.setPaused(false);
            return;
        }
        m_transport.setPaused(!m_transport.paused());
    });
    if (replay) {
        button("▶", tr("Step forward one tick (→)"), [this] { m_transport.step(1); });
        button("▶▶", tr("Next event (])"), [this] { emit jumpToEvent(1); });
        button("▶|", tr("End (End)"), [this] { m_transport.seek(m_transport.endTime()); });
    }
    m_speed = new QComboBox(this);
    for (double s : kSpeeds)
        if (replay || s >= 1) m_speed->addItem(QString("%1×").arg(s), s);
    m_speed->setToolTip(tr("Playback speed (J slower, L faster)"));
    controls->addWidget(m_speed);
    if (replay) {
        auto* loop =
            button(tr("No loop"), tr("Clear the loop (shift-drag on the timeline sets one)"),
                   [this] { m_transport.setLoop(std::nullopt); });
        loop->setMaximumWidth(70);
        button(tr("Mark"), tr("Bookmark this moment (B)"), [this] {
            addBookmark();
        })->setMaximumWidth(60);
    }
    m_time = new QLabel(this);
    controls->addWidget(m_time, 1);
    layout->addLayout(controls);
    m_axis = new TimelineAxis(transport, this);
    layout->addWidget(m_axis, 1);
    setMaximumHeight(175);
    connect(m_speed, &QComboBox::currentIndexChanged, this,
            [this](int i) { m_transport.setSpeed(m_speed->itemData(i).toDouble()); });
}

void TimelinePanel::refresh() {
    const auto s = m_transport.latest();
    const bool back = m_transport.reverse() && !m_transport.paused();
    m_play->setText(m_transport.paused() || back ? tr("Play") : tr("Pause"));
    if (m_back) m_back->setDown(back);
    if (s) {
        const double rel = model::toSeconds(s->time - m_transport.beginTime());
        m_time->setText(QString("  %1   +%2:%3:%4   %5 %6×")
                            .arg(clock(s->time))
                            .arg(static_cast<int>(rel / 3600), 2, 10, QChar('0'))
                            .arg(static_cast<int>(std::fmod(rel, 3600) / 60), 2, 10, QChar('0'))
                            .arg(std::fmod(rel, 60), 4, 'f', 1, QChar('0'))
                            .arg(m_transport.paused()
                                     ? tr("paused")
                                     : (m_transport.isReplay() ? tr("playing") : tr("live")))
                            .arg(m_transport.speed()));
        if (!m_transport.isReplay()) m_axis->setLiveEvents(s->events);
    }
    const int i = m_speed->findData(m_transport.speed());
    if (i >= 0 && i != m_speed->currentIndex()) {
        const QSignalBlocker block(m_speed);
        m_speed->setCurrentIndex(i);
    }
    m_axis->update();
}

void TimelinePanel::addBookmark() {
    if (!m_bookmarkSink) return;
    const auto s = m_transport.latest();
    if (!s) return;
    bool ok = false;
    const QString text =
        QInputDialog::getText(this, tr("Bookmark"), tr("Note for %1:").arg(clock(s->time)),
                              QLineEdit::Normal, QString(), &ok);
    if (!ok) return;
    if (const auto error = m_bookmarkSink(s->time, text.toStdString()))
        QMessageBox::warning(this, tr("Bookmark"), QString::fromStdString(*error));
}

bool TimelinePanel::handleKey(int key, Qt::KeyboardModifiers modifiers) {
    const bool replay = m_transport.isReplay();
    auto speedStep = [&](int direction) {
        const double now = m_transport.speed();
        double next = now;
        for (double s : kSpeeds)
            if ((direction > 0 && s > now) || (direction < 0 && s < now)) {
                next = s;
                if (direction > 0) break;
            }
        m_transport.setSpeed(next);
    };
    switch (key) {
    case Qt::Key_Space:
    case Qt::Key_K:
        m_transport.setPaused(key == Qt::Key_K ? true : !m_transport.paused());
        return true;
    case Qt::Key_L:
    case Qt::Key_J: {
        // As in a video player: L plays forwards, J backwards (a replay); pressed again while
        // playing that way, faster; pressed while playing the other way, it turns round at 1x.
        const bool back = key == Qt::Key_J;
        if (back && !replay) {
            speedStep(-1); // the live twin cannot go back: J slows it down
            return true;
        }
        if (m_transport.reverse() != back) {
            m_transport.setReverse(back);
            if (!m_transport.paused()) m_transport.setSpeed(1.0);
            m_transport.setPaused(false);
        } else if (m_transport.paused()) {
            m_transport.setPaused(false);
        } else {
            speedStep(1);
        }
        return true;
    }
    case Qt::Key_Left:
    case Qt::Key_Right:
        if (!replay) return false;
        if (modifiers & Qt::ShiftModifier)
            m_transport.seek(m_transport.latest()->time +
                             (key == Qt::Key_Left ? -10 : 10) * model::kNsPerSecond);
        else
            m_transport.step(key == Qt::Key_Left ? -1 : 1);
        return true;
    case Qt::Key_Home:
        if (replay) m_transport.seek(m_transport.beginTime());
        return replay;
    case Qt::Key_End:
        if (replay) m_transport.seek(m_transport.endTime());
        return replay;
    case Qt::Key_BracketLeft:
    case Qt::Key_BracketRight:
        if (replay) emit jumpToEvent(key == Qt::Key_BracketLeft ? -1 : 1);
        return replay;
    case Qt::Key_B:
        if (replay) addBookmark();
        return replay;
    default:
        return false;
    }
}

} // namespace ft::views
