#pragma once
// MainWindow: the floor view in the centre; layers, inspector, each layer's panel (from the
// layer registry), sources, incidents and timeline docked around it; menus and a status line. Runs
// on a Session (the simulator, maybe recording, or a replay) and keeps its layout and choices in
// QSettings. UI thread only.
#include "importers/floor/story_file.h"
#include "session.h"
#include "view_link.h"
#include "views/camera_rig.h"

#include <QMainWindow>
#include <QTimer>
#include <atomic>
#include <expected>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

class QLabel;

namespace ft::views {
class FloorView;
class InspectorPanel;
class SourcesPanel;
class LayersPanel;
class TimelinePanel;
class IncidentsPanel;
} // namespace ft::views

namespace ft::app {

class StoryPlayer;

// A link's camera and the view's, each way; the entity as a link names it ("rack:A03").
views::CameraRig rigOf(const LinkCamera& camera, views::CameraRig rig = {});
LinkCamera linkCameraOf(const views::CameraRig& rig);
std::string selectText(const model::Topology& topology, model::EntityRef ref);

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // restoreLayout: bring back the user's window layout from QSettings (not for screenshots,
    // which must look the same on every machine).
    MainWindow(Session& session, QWidget* parent = nullptr, bool restoreLayout = true);
    ~MainWindow() override;

    views::FloorView* floorView() const { return m_view; }
    views::TimelinePanel* timeline() const { return m_timeline; }
    // File ▸ Compare: the recording at `path` becomes the baseline: its values beside this
    // run's in the view, its events on the timeline. The error says why it could not be opened.
    std::expected<void, std::string> compareWith(const std::string& path);
    void setMetric(model::ChannelId channel);
    void setWallMode(bool wall);
    // Whether layers switched on or off are kept for the next run (not while --layers applies).
    void setLayersSaved(bool saved) { m_saveLayers = saved; }
    // Plays a tour or demo on the view (replacing one that plays); focusHold: seconds a new
    // critical alarm holds a tour's camera (0: never).
    void playStory(const importers::Story& story, double focusHold = 60);
    void stopStory();
    StoryPlayer* storyPlayer() const { return m_player.get(); }
    // Exports every frame of [from, to] (replay) as numbered PNGs into `folder`, and a video
    // when ffmpeg is installed. Returns the number of frames written, or an error.
    std::expected<int, std::string> exportFrames(const QString& folder, model::TimeNs from,
                                                 model::TimeNs to, model::TimeNs step);

    // Links (main_window_links.cpp). The view as a link (the moment: the one shown unless
    // given); copyLink puts it on the clipboard and returns it.
    ViewLink currentLink(std::optional<model::TimeNs> at = {}) const;
    QString copyLink(std::optional<model::TimeNs> at = {});
    // Where an entity can be opened outside the twin: (label, URL) each.
    std::vector<std::pair<QString, QString>> outLinks(model::EntityRef ref) const;
    void editLinkTemplates();
    // A line on the status bar for `ms` (a link's parts that could not be followed, a copy).
    void showNotice(const QString& text, int ms = 20000);
    views::InspectorPanel* inspector() const { return m_inspector; }

signals:
    void openRecordingRequested(const QString& path);
    // A floor file to run instead of the current floor (keeping the live sources, if any).
    void openFloorRequested(const QString& path);
    // A demo to play on a fresh simulator (its scenario), or to render to a video file.
    void playDemoRequested(const QString& path);
    void renderVideoRequested(const QString& demo, const QString& out);
    // Replays: a what-if simulation from `at` (since the recording's start), with a scenario's
    // actions added (empty: none).
    void forkRequested(model::TimeNs at, const QString& scenario);

protected:
    void closeEvent(QCloseEvent* e) override;
    void showEvent(QShowEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;

private:
    // The docks: layers, inspector, each layer's panel (from the layer registry), sources,
    // incidents, timeline.
    void buildDocks();
    void connectLinks();
    // A replay: bookmarks, the charts' history, event jumps, warnings, the incident pass.
    void connectReplay(importers::ReplayTransport& replay);
    void buildMenus(); // main_window_menus.cpp
    void buildFileMenu();
    void buildViewMenu();
    void buildPlayMenu();
    // --compare: the baseline's events on the timeline, on this run's clock.
    void showBaselineEvents();
    void startTour(const std::string& nameOrPath);
    // Replays: the bookmarks (notes and cameras) as a demo file that plays the recording.
    void saveBookmarksAsDemo();
    // A layer switched on brings its dock forward; the choice is kept in QSettings.
    void onLayerVisibilityChanged(const QString& id, bool visible);
    void applySpeed(double speed, bool paused);
    void updateStatus();
    void refreshBookmarks();
    void exportViewDialog();
    void exportFramesDialog();
    // Telemetry into a recording (a worker thread, a progress dialog), then opened for replay.
    void importFileDialog();
    void importWindowDialog();
    // An inventory (CSV/TSV export, NetBox server or dump) into a floor file, read on a worker
    // thread behind a progress dialog, then opened.
    void importInventoryDialog();
    // Runs `work` on a worker thread behind a modal progress dialog (work reports 0..1 and
    // checks the cancel flag); false when the user cancelled.
    bool runWithProgress(const QString& label,
                         const std::function<void(const std::function<void(double)>&,
                                                  const std::atomic<bool>*)>& work);
    void runImport(const QString& what,
                   const std::function<std::expected<nlohmann::json, std::string>(
                       const std::function<void(double)>&, const std::atomic<bool>*)>& work,
                   const QString& outPath);

    Session& m_session;
    model::Transport& m_transport;
    views::FloorView* m_view;
    views::LayersPanel* m_layers;
    views::InspectorPanel* m_inspector;
    views::SourcesPanel* m_sources = nullptr;
    views::TimelinePanel* m_timeline;
    QLabel* m_status;
    QTimer m_statusTimer;
    bool m_wall = false;
    bool m_saveLayers = true;        // a layer switched on or off is kept for the next run
    QAction* m_wallAction = nullptr; // View > Wall display mode (F11): checked while in it
    bool m_layoutRestored = false, m_docksSized = false;
    std::unique_ptr<StoryPlayer> m_player;
    views::IncidentsPanel* m_incidents;
    // Replays: the recording's incidents, worked out on this thread (cancelled on close).
    std::atomic<bool> m_cancelIncidents{false};
    std::jthread m_incidentPass;
};

} // namespace ft::app
