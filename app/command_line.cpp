#include "command_line.h"

#include "importers/formats/alertmanager_json.h"
#include "option_table.h"
#include "source_kinds.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <optional>
#include <sstream>
#include <string_view>

namespace ft::app {

namespace {

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
        if (spec.help == kSourceRows) {
            out += sourceRows(left, kColumn);
            continue;
        }
        out += left + indented(filledHelp(spec.help, layerIds), kColumn) + "\n";
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
