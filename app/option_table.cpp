#include "option_table.h"

#include "floor_loading.h"
#include "importers/formats/alertmanager_json.h"
#include "source_kinds.h"

#include <charconv>
#include <sstream>

namespace ft::app {

namespace {

bool parseSize(const std::string& s, int& w, int& h) {
    const auto x = s.find('x');
    if (x == std::string::npos) return false;
    auto parse = [](std::string_view v, int& out) {
        auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
        return ec == std::errc() && p == v.data() + v.size() && out >= 16 && out <= 16384;
    };
    return parse(std::string_view(s).substr(0, x), w) &&
           parse(std::string_view(s).substr(x + 1), h);
}

// A string option, stored as given (checked where it is used).
template <std::string Options::*Field> Result store(Options& o, const std::string& v) {
    o.*Field = v;
    return std::nullopt;
}
template <bool Options::*Field> Result flag(Options& o, const std::string&) {
    o.*Field = true;
    return std::nullopt;
}

constexpr std::string_view kFloor = "Floor and simulation";
constexpr std::string_view kLive = "Live telemetry";
constexpr std::string_view kRecording = "Recording and replay";
constexpr std::string_view kWindow = "Window";
constexpr std::string_view kWall = "One wall of many screens";
constexpr std::string_view kHeadless = "Headless (no window, no display needed)";
constexpr std::string_view kOther = "";

} // namespace

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& i : items)
        out += (out.empty() ? "" : ", ") + i;
    return out;
}

std::string wrapped(const std::vector<std::string>& items, std::size_t width) {
    std::string out, line;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const std::string item = items[i] + (i + 1 < items.size() ? "," : "");
        if (!line.empty() && line.size() + 1 + item.size() > width) {
            out += line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + item;
    }
    return out + line;
}

std::string filledHelp(std::string_view help, const std::vector<std::string>& layerIds) {
    std::string text(help);
    auto fill = [&](std::string_view field, const std::string& value) {
        if (const auto at = text.find(field); at != std::string::npos)
            text.replace(at, field.size(), value);
    };
    fill("{layers}", joined(layerIds));
    fill("{intervals}", sourceIntervalList());
    fill("{checkable}", checkableSourceList());
    fill("{windows}", windowSourceList());
    fill("{scenarios}", wrapped(bundledScenarios(), 64));
    return text;
}

const std::vector<OptionSpec>& optionTable() {
    static const std::vector<OptionSpec> table{
        {"--floor", "FILE|generate:racks=N", kFloor,
         "floor file (JSON) or a generated floor of N racks (1..1778)", store<&Options::floor>},
        {"--inventory", "FILE.csv|FILE.tsv|netbox=URL|netbox-dump=DIR", kFloor,
         "the floor from an inventory: a CSV/TSV export with one row per host\n(hostname, rack, "
         "row, and tray, position_u, hall, site, gpu_uuids,\nbmc, serial, status), NetBox's API "
         "(with --token-file) or its pages\nsaved in DIR",
         store<&Options::inventory>},
        {"--write-floor", "OUT.json", kFloor, "with --inventory: write it as a floor file and exit",
         store<&Options::writeFloor>},
        {"--seed", "N", kFloor, "simulator seed (default 1); same seed, same run",
         [](Options& o, const std::string& v) -> Result {
             auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), o.seed);
             if (ec != std::errc() || p != v.data() + v.size())
                 return "--seed needs a whole number, got '" + v + "'";
             return std::nullopt;
         }},
        {"--scenario", "NAME|FILE", kFloor, "run a scenario file, or a bundled one:\n{scenarios}",
         store<&Options::scenario>},
        {"--speed", "X", kFloor, "simulated seconds per wall-clock second (default 1)",
         [](Options& o, const std::string& v) -> Result {
             double speed = 0;
             auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), speed);
             if (ec != std::errc() || p != v.data() + v.size())
                 return "--speed needs a number, got '" + v + "'";
             if (speed <= 0 || speed > 10000) return std::string("--speed must be in (0, 10000]");
             o.speed = speed;
             return std::nullopt;
         }},
        {"--metric", "CHANNEL", kFloor, "channel that colours the floor (default gpu.temperature)",
         store<&Options::metric>},
        {"--layers", "LIST", kFloor, "comma-separated layers to show\n(available: {layers})",
         [](Options& o, const std::string& v) -> Result {
             std::stringstream ss(v);
             for (std::string item; std::getline(ss, item, ',');)
                 if (!item.empty()) o.layers.push_back(item);
             return std::nullopt;
         }},

        // One row per kind of source, from the source registry (source_kinds.cpp).
        {"--source", "KIND=TARGET", kLive, kSourceRows,
         [](Options& o, const std::string& v) -> Result {
             if (auto spec = parseSourceSpec(v); !spec) return spec.error();
             o.sources.push_back(v);
             return std::nullopt;
         }},
        {"--follow-scheduler", "", kLive,
         "a rack with a node the scheduler drained, downed or failed goes\nto troubleshooting, "
         "and back to production once every node is back",
         flag<&Options::followScheduler>},
        {"--alert-severity", "VALUE=LEVEL,...", kLive,
         "what an alert's severity label means (critical, warning or info)\nbeyond the usual "
         "words, e.g. p1=critical,p2=warning; label=NAME\nreads another label than 'severity'",
         [](Options& o, const std::string& v) -> Result {
             if (auto map = importers::parseSeverityMap(v); !map)
                 return "--alert-severity " + map.error();
             o.alertSeverity = v;
             return std::nullopt;
         }},
        {"--alertmanager-write", "", kLive,
         "let operators silence an alert or a rack from the twin, and\nexpire silences, through "
         "the Alertmanager sources (read-only\nwithout it)",
         flag<&Options::alertmanagerWrite>},
        {"--alertmanager-push", "URL", kLive,
         "send the twin's open cause chains to an Alertmanager as alerts\n(alertname "
         "FloortwinCause, with rack, row, cause and severity),\nrefreshed every 15s (or "
         "--interval) while they hold",
         store<&Options::alertmanagerPush>},
        {"--mapping", "FILE", kLive, "mapping rules (JSON) instead of the bundled presets",
         store<&Options::mapping>},
        {"--check-source", "SOURCE", kLive,
         "read SOURCE once onto the floor and print (JSON) what became\nof it: per metric "
         "family, the channel it feeds, why it is\nignored or why its samples were not placed; "
         "for a scheduler,\neach node's state and place and the nodes the floor lacks.\n"
         "SOURCE: {checkable},\nor a saved exposition FILE",
         [](Options& o, const std::string& v) -> Result {
             if (v.empty()) return "--check-source needs " + checkableSourceList() + " or a FILE";
             o.checkSource = v;
             o.headless = true;
             return std::nullopt;
         }},
        {"--token-file", "FILE", kLive,
         "bearer token for the HTTP sources (Redfish: a session token, X-Auth-Token)",
         store<&Options::tokenFile>},
        {"--user", "NAME", kLive,
         "user to log in as: HTTP Basic for exporters and Prometheus, a session for Redfish, "
         "the broker's login for MQTT",
         store<&Options::user>},
        {"--password-file", "FILE", kLive,
         "the --user's password, read from FILE (never taken on the command line)",
         store<&Options::passwordFile>},
        {"--ca-file", "FILE", kLive, "TLS: a CA bundle", store<&Options::caFile>},
        {"--insecure", "", kLive, "TLS: no certificate verification", flag<&Options::insecure>},
        {"--interval", "DURATION", kLive, "time between polls (default {intervals})",
         store<&Options::interval>},
        {"--stale-after", "DURATION", kLive,
         "a rack without data this long is drawn as stale (default 15s)",
         store<&Options::staleAfter>},
        {"--import", "FILE", kLive,
         "a telemetry file -> a recording (with --record OUT.ftrec):\nCSV/JSONL "
         "(time,entity,channel,value), "
         "a BMS bus capture\n(.bms), or a Prometheus text dump",
         store<&Options::importFile>},
        {"--import-window", "FROM,TO", kLive,
         "pull a time window from --source {windows} into\n--record OUT.ftrec (RFC 3339 "
         "times), e.g. an incident",
         store<&Options::importWindow>},
        {"--step", "DURATION", kLive, "resolution of --import-window (default 15s)",
         store<&Options::step>},

        {"--record", "FILE.ftrec", kRecording, "record the run (the simulator, with its scenario)",
         store<&Options::record>},
        {"--replay", "FILE.ftrec", kRecording,
         "replay a recording: timeline, seek, speed 0.1x-1000x, events", store<&Options::replay>},
        {"--fork-at", "TIME", kRecording,
         "with --replay: a what-if — a simulation whose state is the replay's\nat TIME, run on "
         "(with --scenario S: S's actions too, timed from\nTIME), e.g. --scenario "
         "pump-restore to restore the pump at once",
         store<&Options::forkAt>},
        {"--compare", "FILE.ftrec", kRecording,
         "compare with a baseline recording of the same floor: one clock\ndrives both; the "
         "floor shows A - B of the metric, --dump-snapshot\nwrites per-channel diff arrays",
         store<&Options::compare>},
        {"--compare-offset", "D", kRecording,
         "with --compare: the baseline's clock runs D ahead (e.g. 10m, -30s)",
         store<&Options::compareOffset>},
        {"--report", "DIR", kRecording,
         "with --replay: an incident report in DIR (Markdown, and a PNG of\neach bookmark from "
         "its camera, with its alarms and events), then exit",
         store<&Options::report>},
        {"--at", "TIME", kRecording,
         "with --replay: start at TIME into the recording; with the\nsimulator: run to TIME (e.g. "
         "90s, 10m) before the screenshot",
         store<&Options::at>},

        {"--wall", "", kWindow, "wall-display mode: full screen, no panels, large HUD",
         flag<&Options::wall>},
        {"--tour", "NAME|FILE", kWindow,
         "run a tour: stops with camera flights, layers, metric, captions;\npauses while you "
         "use the mouse or keys ('noc' is bundled;\n--wall runs it unless --no-tour)",
         store<&Options::tour>},
        {"--no-tour", "", kWindow, "with --wall: a fixed camera, no tour", flag<&Options::noTour>},
        {"--focus-hold", "DURATION", kWindow,
         "a tour flies to each new critical alarm and holds it this long\n(default 60s; 0: "
         "alarms never interrupt)",
         store<&Options::focusHold>},
        {"--demo", "NAME|FILE", kWindow,
         "play a director's story: timed scenario actions, camera flights,\nlayers, captions "
         "and speed ('vera-rubin-floor' is bundled)",
         store<&Options::demo>},
        {"--render-video", "OUT.mp4", kWindow,
         "render offscreen to H.264 MP4 at --fps (default 30) and --size;\neach frame moves "
         "the sim on by exactly 1/fps x speed",
         store<&Options::renderVideo>},
        {"--render-frames", "DIR", kWindow, "the same frames as PNG files in DIR",
         store<&Options::renderFrames>},
        {"--fps", "N", kWindow, "frames per second of --render-video/--render-frames (1..120)",
         [](Options& o, const std::string& v) -> Result {
             int fps = 0;
             auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), fps);
             if (ec != std::errc() || p != v.data() + v.size() || fps < 1 || fps > 120)
                 return std::string("--fps needs a whole number of frames per second, 1..120");
             o.fps = fps;
             return std::nullopt;
         }},
        {"--duration", "DURATION", kWindow,
         "length of the video (default: the demo's length; 60s otherwise)",
         store<&Options::duration>},
        {"--theme", "standard|dim|bright", kWindow,
         "dim: toned down for a dark NOC; bright: a lit room or a projector\n(default: as last "
         "chosen in View > Theme)",
         [](Options& o, const std::string& v) -> Result {
             if (v != "standard" && v != "dim" && v != "bright")
                 return std::string("--theme: expected standard, dim or bright");
             o.theme = v;
             return std::nullopt;
         }},
        {"--palette", "turbo|viridis|cividis", kWindow,
         "colour scales: turbo, or viridis/cividis for colour-vision\ndeficiencies (default: as "
         "last chosen in View > Colour palette)",
         [](Options& o, const std::string& v) -> Result {
             if (v != "turbo" && v != "viridis" && v != "cividis")
                 return std::string("--palette: expected turbo, viridis or cividis");
             o.palette = v;
             return std::nullopt;
         }},
        {"--fill-modelled", "", kWindow,
         "with telemetry: draw what was never measured with the model's values,\ndesaturated "
         "and hatched (default: drawn as no data)",
         flag<&Options::fillModelled>},
        {"--screenshot", "OUT.png", kWindow, "render one frame to OUT.png and exit",
         store<&Options::screenshot>},
        {"--size", "WxH", kWindow,
         "size of the rendered view (with --screenshot; default 1920x1080)",
         [](Options& o, const std::string& v) -> Result {
             if (!parseSize(v, o.width, o.height))
                 return std::string("--size needs WxH, e.g. 1280x720 (each 16..16384)");
             return std::nullopt;
         }},
        {"--window", "", kWindow, "with --screenshot: the whole window with its panels",
         flag<&Options::windowShot>},
        {"--select", "KIND:NAME|ID", kWindow,
         "select an entity at start, e.g. rack:A03, gpu:100, compute_tray:7",
         store<&Options::select>},
        {"--camera", "X,Y,Z,DIST,AZ,EL", kWindow,
         "place the camera: its focus (metres), distance (m), azimuth and\nelevation (degrees), "
         "as a link's camera part",
         [](Options& o, const std::string& v) -> Result {
             if (auto camera = parseLinkCamera(v); !camera) return "--" + camera.error();
             o.camera = v;
             return std::nullopt;
         }},
        {"--new-window", "", kWindow,
         "open a floortwin:// link in a new window even when a twin already\nruns on this "
         "display (by default the running one moves there)",
         flag<&Options::newWindow>},
        {"--register-links", "", kWindow,
         "register floortwin as the handler of floortwin:// links for this\nuser (XDG: a "
         ".desktop file and the default for the scheme), then exit",
         flag<&Options::registerLinks>},
        {"--frame", "", kWindow, "with --select: point the camera at the selection (rack scale)",
         flag<&Options::frameSelection>},
        {"--first-frame-ms", "", kWindow,
         "print the time to the first frame and the peak memory, then exit\n(startup benchmark)",
         flag<&Options::firstFrameMs>},

        {"--wall-group", "NAME", kWall,
         "be one screen of a wall: the screens of a group (on this machine\nor others on the "
         "network) share one clock, tour, selection,\nalarm focus and camera; one leads, the "
         "others follow",
         store<&Options::wallGroup>},
        {"--wall-grid", "CxR", kWall, "the wall's screens: C columns by R rows (default 1x1)",
         store<&Options::wallGrid>},
        {"--wall-screen", "C,R", kWall, "this screen's column and row, from 0,0 at the top left",
         store<&Options::wallScreen>},
        {"--wall-view", "slice|own", kWall,
         "slice: this screen draws its part of one wide view (default);\nown: its own view "
         "(layers, camera) of the same moment and selection",
         store<&Options::wallView>},
        {"--wall-lead", "", kWall, "this screen leads the group while it runs",
         flag<&Options::wallLead>},
        {"--wall-file", "FILE.json", kWall,
         "the wall in a file: grid, each screen's size and bezels in mm,\nhosts and ports, "
         "and each screen's view (docs/command-line.md)",
         store<&Options::wallFile>},

        {"--headless", "", kHeadless, "run without any GUI", flag<&Options::headless>},
        {"--describe", "", kHeadless, "print the floor's entity counts and parameters as JSON",
         flag<&Options::describe>},
        {"--for", "DURATION", kHeadless,
         "run the simulator for DURATION of simulated time, as fast as\npossible, then print a "
         "JSON summary",
         store<&Options::forDuration>},
        {"--dump-snapshot", "FILE.json", kHeadless, "write the last snapshot as JSON",
         store<&Options::dumpSnapshot>},
        {"--realtime", "", kHeadless,
         "pace a headless run at --speed (default 1x) instead of flat out",
         flag<&Options::realtime>},

        {"--help", "", kOther, "this text", flag<&Options::help>},
        {"--help-reference", "", kOther,
         "the options and sources as Markdown (docs/command-line.md's\ngenerated part)",
         flag<&Options::helpReference>},
        {"-h", "", kOther, "", flag<&Options::help>},
        {"--version", "", kOther, "the version", flag<&Options::version>},
    };
    return table;
}

} // namespace ft::app
