#pragma once
// StoryPlayer: plays a tour or a demo (importers/story_file.h) on a FloorView. Each step flies
// the camera to its place (eased, from wherever the camera is), switches layers, metric and
// selection, shows its caption and, in a demo, sets the speed. A tour loops; it pauses while
// someone uses the mouse or keyboard and resumes after the tour's idle time. In a tour a new
// critical alarm interrupts: the camera frames every entity the alarm's cause names (beside the
// HUD's panels), the alarm shows large, and the tour resumes when it clears or after the focus
// hold; several causes are shown worst first, one after the other.
//
// The player keeps its own clock: start() drives it from wall time (the window), advance()
// by exact steps (video frames), so a demo renders the same on any machine. UI thread only.
#include "importers/floor/story_file.h"
#include "model/transport.h"
#include "views/camera_flight.h"
#include "views/floor_scene.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <functional>
#include <optional>
#include <set>
#include <string>

namespace ft::views {
class FloorView;
}

namespace ft::app {

class StoryPlayer : public QObject {
    Q_OBJECT
public:
    StoryPlayer(importers::Story story, views::FloorView& view,
                model::Transport* transport = nullptr, QObject* parent = nullptr);
    ~StoryPlayer() override;

    // How metric switches reach the window (default: the view alone).
    void setMetricSink(std::function<void(model::ChannelId)> sink) {
        m_setMetric = std::move(sink);
    }
    // Tours: how long an alarm holds the camera before the next one or the tour (default 60 s);
    // off: alarms never interrupt.
    void setFocusHold(double seconds) { m_focusHold = seconds; }
    void setAlarmFocus(bool on) { m_alarmFocus = on; }

    // Wall-clock playback at about 30 updates a second.
    void start();
    void stop();
    bool running() const { return m_timer.isActive(); }
    // Moves the story on by exactly `seconds` (and applies what that changes).
    void advance(double seconds);
    // What the playback timer does with the wall-clock time that passed: advance, unless the
    // story is a demo whose floor is paused.
    void play(double seconds);

    const importers::Story& story() const { return m_story; }
    double storyTime() const { return m_time; }
    // Seconds the player has run (holds and alarm focus included).
    double storyClock() const { return m_clock; }
    // The step shown (index into story().steps), -1 before the first.
    int currentStep() const { return m_current; }
    bool finished() const;
    bool holding() const { return m_heldFor >= 0; } // paused for a person at the controls
    bool focusing() const { return m_focus.has_value(); }
    std::string focusKey() const { return m_focus ? m_focus->key : std::string(); }

signals:
    void stepChanged(int index);
    void finishedPlaying();

private:
    struct Focus {
        std::string key;
        double since = 0; // player clock
        std::vector<model::EntityRef> named;
    };

    void enter(int index, bool fromHere);
    views::CameraRig target(const importers::StoryCamera& camera);
    views::CameraRig frame(const std::vector<model::EntityRef>& named,
                           std::optional<double> azimuth, std::optional<double> elevation) const;
    // The part of the screen the HUD's panels leave free that best holds a box of this shape
    // on the screen (NDC).
    views::CameraRig::Window freeWindow(const views::CameraRig::Window& shape) const;
    // Tours: start, keep or end the alarm focus; true while the camera belongs to an alarm.
    bool updateFocus();
    void showFocus();
    void onUserInteracted();

    importers::Story m_story;
    views::FloorView& m_view;
    model::Transport* m_transport;
    std::function<void(model::ChannelId)> m_setMetric;
    double m_focusHold = 60;
    bool m_alarmFocus = true;

    double m_clock = 0;     // seconds this player has run (holds and focus count too)
    double m_time = 0;      // story time (a tour's, within its loop)
    double m_loopStart = 0; // tours: story time at which the current loop began (unused 0)
    int m_current = -1;
    bool m_finishedSent = false;
    std::optional<views::CameraFlight> m_flight;
    double m_flightStart = 0; // player clock
    bool m_settled = false;   // the flight is over and the camera sits at its end
    std::optional<importers::StoryCamera> m_reframe; // the step's camera, framed anew each frame
    mutable std::vector<model::EntityRef> m_boxFor;  // what m_box frames
    mutable std::optional<std::optional<views::FloorScene::Box>> m_box;
    double m_heldFor = -1; // seconds since the last touch, -1: not held
    std::optional<Focus> m_focus;
    std::set<std::string> m_shown; // causes already shown (until they clear)

    QTimer m_timer;
    QElapsedTimer m_wall;
    qint64 m_lastWallNs = 0;
};

} // namespace ft::app
