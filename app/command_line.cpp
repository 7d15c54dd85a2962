#include "command_line.h"

#include "importers/formats/alertmanager_json.h"
#include "source_kinds.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <optional>
#include <sstream>
#include <string_view>

namespace ft::app {

namespace {

// One row per option: what --help prints and what the parser does come from the same place.
// `apply` gets the option's value (empty for switches) and returns an error, or nothing.
struct OptionSpec {
    std::string_view flag;
    std::string_view value; // what --help shows after the flag; empty: a switch
    std::string_view section;
    std::string_view help; // '\n' starts a continuation line
    std::function<std::optional<std::string>(Options&, const std::string&)> apply;
};

using Result = std::optional<std::string>;

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

const std::vector<OptionSpec>& optionTable() {
    static const std::vector<OptionSpec> table{
        {"--floor", "FILE|generate:racks=N", kFloor,
         "floor file (JSON) or a generated floor of N racks (1..1778)", store<&Options::floor>},
        {"--inventory", "FILE.csv|FILE.tsv", kFloor,
         "the floor from an inventory: one row per host with hostname, rack,\nrow (and tray, "
         "position_u, hall, site, "
         "gpu_uuids, bmc, serial, status)",
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
        {"--scenario", "NAME|FILE", kFloor,
         "run a scenario: pump-failure, leak, manifold-blockage,\ncdu-setpoint-drift, "
         "heat-rejection-loss, bring-up,\n"
         "region-link-degraded, cache-node-loss, or a scenario file",
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
        {"--source", "KIND=TARGET", kLive, "{sources}",
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
         "and each screen's view (docs/wall.md)",
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
        {"-h", "", kOther, "", flag<&Options::help>},
        {"--version", "", kOther, "the version", flag<&Options::version>},
    };
    return table;
}

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& i : items)
        out += (out.empty() ? "" : ", ") + i;
    return out;
}

void replaceField(std::string& text, std::string_view field, const std::string& value) {
    if (const auto at = text.find(field); at != std::string::npos)
        text.replace(at, field.size(), value);
}

// Indents a help text's continuation lines to the help column.
std::string indented(std::string help, std::size_t column) {
    for (std::size_t nl = help.find('\n'); nl != std::string::npos;
         nl = help.find('\n', nl + 1 + column))
        help.insert(nl + 1, column, ' ');
    return help;
}

// --source's rows, one per kind in the source registry.
std::string sourceRows(const std::string& flag, std::size_t column) {
    std::string out;
    const std::string prefix = flag.substr(0, flag.find("KIND"));
    for (const auto& kind : sourceKinds()) {
        std::string left = prefix + std::string(kind.syntax);
        left += left.size() + 1 < column ? std::string(column - left.size(), ' ')
                                         : "\n" + std::string(column, ' ');
        out += left + indented(std::string(kind.help), column) + "\n";
    }
    return out;
}

// A link's parts fill what no flag set (a flag given beside a link wins).
void mergeLink(Options& o) {
    const ViewLink& l = *o.link;
    const bool runFlagged =
        !o.floor.empty() || !o.inventory.empty() || !o.replay.empty() || !o.sources.empty();
    if (!runFlagged) {
        o.floor = l.floor;
        o.inventory = l.inventory;
        o.replay = l.replay;
        o.sources = l.sources;
    }
    if (o.at.empty() && l.at)
        o.at = l.at->sinceStart ? std::to_string(l.at->value / model::kNsPerMs) + "ms"
                                : importers::rfc3339(l.at->value);
    if (o.select.empty() && !l.select.empty()) {
        o.select = l.select;
        o.frameSelection = !l.camera; // a link's selection is shown, unless it places the camera
    }
    if (o.layers.empty() && l.layers)
        o.layers = l.layers->empty() ? std::vector<std::string>{"none"} : *l.layers;
    if (o.metric.empty()) o.metric = l.metric;
    if (o.camera.empty() && l.camera) o.camera = formatLinkCamera(*l.camera);
    if (l.speed && o.speed == 1.0) o.speed = *l.speed;
}

} // namespace

std::string helpText(const std::vector<std::string>& layerIds) {
    std::string out = R"(Usage: floortwin [options] [floortwin://open?PART=VALUE&...]

floortwin is a 3D digital twin of a Vera Rubin NVL72 GPU floor. With no options it opens the
bundled demo floor (2 rows x 8 racks) driven by the built-in simulator.

A floortwin:// link opens a view: its parts are floor, inventory, replay, source, at, select,
layers, metric, camera and speed, the same as the flags (a flag beside a link wins). When a
twin already runs on this display, the link moves it there instead of opening a second one.
)";
    constexpr std::size_t kColumn = 34;
    std::string_view section = "?";
    for (const auto& spec : optionTable()) {
        if (spec.help.empty()) continue; // an alias
        if (spec.section != section) {
            section = spec.section;
            out += "\n";
            if (!section.empty()) out += std::string(section) + ":\n";
        }
        std::string left = "  " + std::string(spec.flag) +
                           (spec.value.empty() ? "" : " " + std::string(spec.value));
        left += left.size() + 1 < kColumn ? std::string(kColumn - left.size(), ' ')
                                          : "\n" + std::string(kColumn, ' ');
        std::string help(spec.help);
        if (help == "{sources}") {
            out += sourceRows(left, kColumn);
            continue;
        }
        replaceField(help, "{layers}", joined(layerIds));
        replaceField(help, "{intervals}", sourceIntervalList());
        replaceField(help, "{checkable}", checkableSourceList());
        replaceField(help, "{windows}", windowSourceList());
        out += left + indented(help, kColumn) + "\n";
    }
    out += "\nErrors go to stderr and the exit status is non-zero.\n";
    return out;
}

std::expected<Options, std::string> parseCommandLine(const std::vector<std::string>& args,
                                                     const std::vector<std::string>& layerIds) {
    Options o;
    const auto& table = optionTable();
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (looksLikeLink(a)) {
            if (o.link) return std::unexpected("one floortwin: link at a time");
            auto link = parseViewLink(a, layerIds);
            if (!link) return std::unexpected(link.error());
            o.link = std::move(*link);
            o.linkText = a;
            continue;
        }
        const auto spec = std::ranges::find_if(
            table, [&](const OptionSpec& s) { return s.flag == a && s.apply; });
        if (spec == table.end()) return std::unexpected("unknown option '" + a + "' (see --help)");
        std::string value;
        if (!spec->value.empty()) {
            if (i + 1 >= args.size())
                return std::unexpected(a + " needs " + std::string(spec->value));
            value = args[++i];
        }
        if (auto error = spec->apply(o, value)) return std::unexpected(*error);
    }
    if (o.link) mergeLink(o);
    // What the options mean together.
    if (o.describe && !o.headless) o.headless = true; // --describe never needs a window
    if (o.headless && !o.screenshot.empty())
        return std::unexpected("--screenshot needs a window; drop --headless");
    if (o.windowShot && o.screenshot.empty())
        return std::unexpected("--window goes with --screenshot");
    if (!o.replay.empty() && !o.record.empty())
        return std::unexpected(
            "--record records a live source; --replay already plays a recording");
    if (!o.forkAt.empty() && o.replay.empty())
        return std::unexpected("--fork-at forks a replay: add --replay FILE.ftrec");
    if (!o.forkAt.empty() && (!o.report.empty() || !o.floor.empty()))
        return std::unexpected("--fork-at runs the recorded floor on: drop --report/--floor");
    if (!o.replay.empty() && o.forkAt.empty() && (!o.scenario.empty() || !o.floor.empty()))
        return std::unexpected(
            "--replay plays the floor and scenario that were recorded; drop --floor/--scenario");
    if (!o.sources.empty() && !o.replay.empty())
        return std::unexpected(
            "--source feeds the live twin; --replay plays a recording: pick one");
    if (!o.sources.empty() && !o.scenario.empty())
        return std::unexpected("--scenario drives the simulator; live sources report what really "
                               "happens: drop --scenario");
    if (!o.importFile.empty() && !o.sources.empty())
        return std::unexpected("--import reads a file; drop --source");
    if (!o.importWindow.empty()) {
        if (!windowSourceOf(o))
            return std::unexpected("--import-window pulls from a server: add --source " +
                                   windowSourceList());
        if (o.record.empty())
            return std::unexpected("--import-window writes a recording: add --record OUT.ftrec");
    }
    if (!o.writeFloor.empty() && o.inventory.empty())
        return std::unexpected(
            "--write-floor writes an inventory's floor: add --inventory FILE.csv");
    if (!o.inventory.empty() && !o.replay.empty())
        return std::unexpected("--replay plays the floor that was recorded; drop --inventory");
    if (!o.importFile.empty() && o.record.empty() && o.headless)
        return std::unexpected("--import --headless writes a recording: add --record OUT.ftrec");
    if (!o.compareOffset.empty() && o.compare.empty())
        return std::unexpected("--compare-offset shifts a baseline: add --compare FILE.ftrec");
    if (!o.compare.empty() && (!o.record.empty() || !o.demo.empty()))
        return std::unexpected("--compare compares what is shown with a baseline: drop "
                               "--record/--demo");
    if (!o.report.empty() && o.replay.empty())
        return std::unexpected(
            "--report is made from a replay's bookmarks: add --replay FILE.ftrec");
    if (!o.report.empty() && o.headless)
        return std::unexpected("--report renders its moments: drop --headless");
    if (!o.tour.empty() && !o.demo.empty())
        return std::unexpected("--tour and --demo both move the camera: pick one");
    if (!o.demo.empty() && !o.scenario.empty())
        return std::unexpected("--demo brings its own scenario actions: drop --scenario");
    if (!o.demo.empty() && (!o.replay.empty() || !o.sources.empty()))
        return std::unexpected("--demo tells its story on the simulator: drop --replay/--source");
    const bool rendering = !o.renderVideo.empty() || !o.renderFrames.empty();
    if (rendering && (o.headless || !o.screenshot.empty()))
        return std::unexpected(
            "--render-video/--render-frames render frames offscreen: drop --headless/--screenshot");
    if (rendering && (!o.replay.empty() || !o.sources.empty()))
        return std::unexpected(
            "--render-video renders the simulator (a demo, a tour or a scenario): drop "
            "--replay/--source");
    if (!o.duration.empty() && !rendering)
        return std::unexpected("--duration goes with --render-video or --render-frames");
    if (!o.renderVideo.empty() && !o.renderVideo.ends_with(".mp4"))
        return std::unexpected("--render-video writes H.264 in MP4: name the file OUT.mp4");
    if (o.newWindow && !o.link)
        return std::unexpected("--new-window opens a floortwin:// link: add the link");
    for (const auto& layer : o.layers)
        if (!(layer == "none" && o.layers.size() == 1) &&
            std::ranges::find(layerIds, layer) == layerIds.end())
            return std::unexpected("unknown layer '" + layer + "' (available: " + joined(layerIds) +
                                   ")");
    return o;
}

std::expected<SourceSpec, std::string> parseSourceSpec(const std::string& text) {
    const auto eq = text.find('=');
    const std::string kind = eq == std::string::npos ? std::string() : text.substr(0, eq);
    if (!findSourceKind(kind))
        return std::unexpected("--source '" + text + "': expected " + sourceSyntaxList());
    if (eq + 1 >= text.size()) return std::unexpected("--source " + kind + "= needs a target");
    return SourceSpec{kind, text.substr(eq + 1)};
}

} // namespace ft::app
