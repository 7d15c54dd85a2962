#pragma once
// The floortwin command line (the contract in DESIGN.md), parsed without Qt so that it can be
// checked before any GUI object exists. One table in command_line.cpp says what each option
// takes, does and means: the parser, its errors and --help come from it.
#include "view_link.h"

#include <expected>
#include <optional>
#include <string>
#include <vector>

namespace ft::app {

struct Options {
    bool help = false;
    bool helpReference = false; // --help-reference: the Markdown reference
    bool version = false;
    bool headless = false;
    bool describe = false;
    bool wall = false;
    bool fillModelled = false; // --fill-modelled: draw never-measured entities with the model
    std::string floor;         // empty: the bundled demo floor
    std::string inventory;     // --inventory FILE.csv: the floor from an inventory
    std::string writeFloor;    // --write-floor OUT.json: write the inventory's floor file and exit
    std::string forDuration;   // --for
    std::string dumpSnapshot;  // --dump-snapshot FILE
    std::string screenshot;    // --screenshot OUT.png
    std::string at;            // --at TIME
    int width = 0, height = 0; // --size WxH
    std::string metric;        // --metric CHANNEL
    std::vector<std::string> layers;
    unsigned long long seed = 1;
    double speed = 1.0;
    bool realtime = false;       // --realtime: a headless run paced at --speed instead of flat out
    bool firstFrameMs = false;   // print time to first frame and exit (startup benchmark)
    bool windowShot = false;     // --window: the screenshot shows the whole window with panels
    std::string select;          // --select KIND:NAME|ID, e.g. rack:A03, gpu:100
    bool frameSelection = false; // --frame: point the camera at the selection
    std::string scenario;        // --scenario NAME|FILE
    std::string record;          // --record FILE.ftrec
    std::string replay;          // --replay FILE.ftrec
    std::string forkAt;          // --fork-at T: with --replay, a simulation from the replay's T
    std::string compare;         // --compare FILE.ftrec: a baseline to compare with
    std::string compareOffset;   // --compare-offset D: the baseline runs D ahead (may be -D)
    // Live telemetry.
    std::vector<std::string> sources; // --source KIND=TARGET, as given (the kinds: source_kinds.h)
    bool followScheduler = false;     // --follow-scheduler: racks' lifecycle follows the scheduler
    std::string alertSeverity;        // --alert-severity VALUE=LEVEL,...: the alerts' severities
    bool alertmanagerWrite = false;   // --alertmanager-write: silences may be made and expired
    std::string alertmanagerPush;     // --alertmanager-push URL: the twin's causes to the pager
    std::string mapping;              // --mapping FILE: rules instead of the bundled presets
    std::string checkSource;  // --check-source SOURCE: what a source's series map to, as JSON
    std::string tokenFile;    // --token-file FILE: bearer token for Prometheus/exporters
    std::string user;         // --user NAME: Redfish session or Basic user
    std::string passwordFile; // --password-file FILE: that user's password
    std::string caFile;       // --ca-file FILE: CA bundle for https
    bool insecure = false;    // --insecure: skip TLS verification
    std::string interval;     // --interval DURATION between polls
    std::string staleAfter;   // --stale-after DURATION
    std::string importFile;   // --import FILE: CSV/JSONL/Prometheus text -> recording
    std::string importWindow; // --import-window FROM,TO: pull a window from --source prometheus
    std::string step;         // --step DURATION: the import window's resolution
    // The wall and the stage.
    std::string tour;         // --tour NAME|FILE: a tour (wall mode runs the bundled "noc")
    std::string demo;         // --demo NAME|FILE: a director's story
    std::string focusHold;    // --focus-hold DURATION an alarm holds the tour's camera (60s)
    bool noTour = false;      // --no-tour: wall mode without the bundled tour
    std::string renderVideo;  // --render-video OUT.mp4
    std::string renderFrames; // --render-frames DIR: PNG frames
    int fps = 30;             // --fps N
    std::string duration;     // --duration D of the video (default: the demo's length)
    std::string report;       // --report DIR: an incident report from a replay's bookmarks
    std::string theme;        // --theme standard|dim|bright (default: the window's last choice)
    std::string palette;      // --palette turbo|viridis|cividis (default: the window's last choice)
    std::string camera;       // --camera X,Y,Z,DISTANCE,AZIMUTH,ELEVATION
    // A floortwin:// link given as an argument (view_link.h): its parts fill the options no
    // flag set. A part the twin cannot follow (a missing recording, an unknown entity, a time
    // outside the recording) is reported and the rest opened, where the same flag would fail.
    std::optional<ViewLink> link;
    std::string linkText;
    bool newWindow = false;     // --new-window: open a link here even when a twin already runs
    bool registerLinks = false; // --register-links: install the floortwin: URL handler, exit
    // One wall of many screens (wall_group.h): the group, this screen's place, the grid.
    std::string wallGroup;  // --wall-group NAME
    std::string wallScreen; // --wall-screen C,R
    std::string wallGrid;   // --wall-grid CxR
    std::string wallFile;   // --wall-file FILE.json: the grid, bezels, hosts, each screen's view
    std::string wallView;   // --wall-view slice|own
    bool wallLead = false;  // --wall-lead: this screen leads while it runs
};

// One --source, split: its kind (a scheme of the source registry, source_kinds.h) and what
// follows the '='.
struct SourceSpec {
    std::string kind;
    std::string target;
};
std::expected<SourceSpec, std::string> parseSourceSpec(const std::string& text);

// `layerIds`: the layers --layers may name (views::layerIds(); the parser needs no views).
std::expected<Options, std::string> parseCommandLine(const std::vector<std::string>& args,
                                                     const std::vector<std::string>& layerIds);
std::string helpText(const std::vector<std::string>& layerIds);
// The options and source kinds as Markdown tables (docs/command-line.md's generated part).
std::string commandLineReference(const std::vector<std::string>& layerIds);

} // namespace ft::app
