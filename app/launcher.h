#pragma once
// Launcher: what main() hands the parsed command line to. It picks the run — an import into a
// recording, a headless run, a screenshot, or the window — builds the Session it runs on and
// owns it, and swaps in a new session and window when File > Open recording asks for one. The
// window, headless and screenshot paths share the session setup here. Main thread only.
#include "command_line.h"
#include "importers/floor/story_file.h"
#include "session.h"
#include "views/hud.h"
#include "wall_config.h"

#include <QElapsedTimer>
#include <expected>
#include <memory>
#include <optional>

namespace ft::views {
class FloorView;
}

namespace ft::app {

class MainWindow;
class LinkServer;
class WallGroup;
struct WallState;
struct WallClockLog;

// A wall's state onto a view and its session: the clock (a replay sought, a simulator held or
// hurried; `log` keeps the moments shown, null for a picture), the selection, and on a slice
// screen the camera, layers, metric, caption and alarm focus (launcher_wall.cpp).
void applyWallTo(views::FloorView& view, Session& session, const WallState& state, bool slice,
                 WallClockLog* log);
// This screen's place on the wall, for the HUD laid out over the whole wall.
views::HudInput::WallPlace wallPlaceOf(const WallConfig& config);

class Launcher {
public:
    Launcher(Options options, int& argc, char** argv);
    ~Launcher();
    Launcher(const Launcher&) = delete;
    Launcher& operator=(const Launcher&) = delete;
    // Runs to the end; the process exit code.
    int run();

    // File > Play demo and Render demo to video: the session a demo plays on, its story kept in
    // `story`: the recording a demo made from bookmarks names (o.replay set to it), else a
    // simulator running the demo's scenario.
    static std::expected<std::unique_ptr<Session>, std::string>
    demoSession(Options& o, std::optional<importers::Story>& story, bool live);

private:
    int runImport();
    // --inventory FILE --write-floor OUT.json: the floor file, and a summary on stdout.
    int writeFloor();
    int runScreenshot(Session& session);
    // A screenshot of a wall's screen: its slice, following the group's leader (an error code
    // when the group cannot be joined).
    std::optional<int> followWallForPicture(views::FloorView& view, Session& session);
    int runWindow(std::unique_ptr<Session> session);
    // --render-video / --render-frames: offscreen, at a fixed frame rate.
    int runVideo(Session& session);
    // The tour or demo the options ask for, read on the session's floor (a demo was read
    // already: it made the scenario).
    std::optional<std::string> loadStoryFor(const Session& session);
    // A demo's scenario, its story kept in `story`: what a simulator session for the demo runs.
    static ScenarioSource demoScenario(const std::string& demo,
                                       std::optional<importers::Story>& story);
    // File > Play demo: a fresh session for the demo, and a window playing it.
    void playDemo(const QString& path);
    // File > Render demo to video: offscreen on a session of its own, with progress.
    void renderDemoVideo(const QString& demo, const QString& out);
    // The window on the current session (a new one after File > Open recording).
    void showWindow();
    void openRecording(const QString& path);
    void openFloor(const QString& path);
    // The replay forked at `at` into a simulation (with a scenario's actions), in a new window.
    void fork(model::TimeNs at, const QString& scenario);
    // Replaces the window and its session with a simulator session `next` run as `o` says.
    void runSimSession(std::unique_ptr<Session> next, const Options& o);

    // Links (launcher_links.cpp).
    // --register-links: the XDG handler of floortwin: links for this user.
    // quiet: a window's first run, when no handler is registered (linksRegistered()).
    int registerLinks(bool quiet = false);
    static bool linksRegistered();
    // A link given to a launch while a twin runs on this display: handed to it; true when it
    // took it (the launch then ends).
    bool forwardLink();
    // Opens a link in the running window (a new run first when it names another recording,
    // floor or sources); returns the parts it could not follow.
    std::vector<std::string> openLink(const std::string& text, bool fromWall = false);
    void applyLinkView(const ViewLink& link, std::vector<std::string>& notes);
    // Says which parts of a link could not be followed: stderr, the status line, the caption.
    void reportLinkNotes(const std::vector<std::string>& notes);
    // The wall group (launcher_wall.cpp): joins it, leads or follows.
    bool startWall();
    WallState captureWall() const;
    void applyWall(const WallState& state);
    void applyScreenLook();
    void onWallRole();
    // FLOORTWIN_WALL_STATS=N: the skew and traffic every N seconds on stdout (benchmarks).
    void printWallStats() const;

    Options m_options;
    Options m_startOptions; // as given on the command line (links' credentials check)
    std::optional<WallConfig> m_wallConfig;
    std::unique_ptr<WallGroup> m_wall;
    std::unique_ptr<WallClockLog> m_wallLog;
    std::int64_t m_wallStartedAt = 0;
    bool m_wallFollowed = false; // a picture of a wall's screen took the leader's state
    std::unique_ptr<LinkServer> m_linkServer;
    std::vector<std::string> m_linkNotes; // what a launch's link could not follow
    int& m_argc;
    char** m_argv;
    QElapsedTimer m_sinceStart;
    model::ChannelId m_metric = 0;
    std::optional<model::EntityRef> m_selection;
    std::optional<LinkCamera> m_camera;      // --camera, or a link's camera
    std::optional<importers::Story> m_story; // --tour, --demo, or the bundled tour on a wall
    double m_focusHold = 60;
    std::shared_ptr<Session> m_session;
    std::unique_ptr<MainWindow> m_window;
};

} // namespace ft::app
