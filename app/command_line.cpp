#include "command_line.h"

#include <algorithm>
#include <charconv>
#include <sstream>

namespace ft::app {

std::string helpText() {
    return R"(Usage: floortwin [options]

floortwin is a 3D digital twin of a Vera Rubin NVL72 GPU floor. With no options it opens the
bundled demo floor (2 rows x 8 racks) driven by the built-in simulator.

Floor and simulation:
  --floor FILE|generate:racks=N   floor file (JSON) or a generated floor of N racks (1..1778)
  --seed N                        simulator seed (default 1); same seed, same run
  --scenario NAME|FILE            run a scenario: pump-failure, leak, manifold-blockage,
                                  cdu-setpoint-drift, heat-rejection-loss, bring-up,
                                  region-link-degraded, cache-node-loss, or a scenario file
  --speed X                       simulated seconds per wall-clock second (default 1)
  --metric CHANNEL                channel that colours the floor (default gpu.temperature)
  --layers LIST                   comma-separated layers to show (available: racks, nvlink, rails, thermal, lifecycle, storage)

Live telemetry:
  --source scrape=URL[,URL...]    poll exporters (dcgm-exporter: host -> http://host:9400/metrics)
  --source prometheus=URL         a Prometheus HTTP API (also Thanos, Mimir, VictoriaMetrics);
                                  the queries aggregate per rack on the server
  --source mqtt=HOST[:PORT]       the building-management bus (BMS/v1/PUB/Value/Rack/...)
                                  (--source may be given several times)
  --mapping FILE                  mapping rules (JSON) instead of the bundled presets
  --token-file FILE               bearer token for the HTTP sources
  --ca-file FILE, --insecure      TLS: a CA bundle, or no verification
  --interval DURATION             time between polls (default 1s scrape, 5s prometheus)
  --stale-after DURATION          a rack without data this long is drawn as stale (default 15s)
  --import FILE                   CSV/JSONL (time,entity,channel,value) or Prometheus text
                                  dump -> a recording (with --record OUT.ftrec)
  --import-window FROM,TO         pull a time window from --source prometheus=URL into
                                  --record OUT.ftrec (RFC 3339 times), e.g. an incident
  --step DURATION                 resolution of --import-window (default 15s)

Recording and replay:
  --record FILE.ftrec             record the run (the simulator, with its scenario)
  --replay FILE.ftrec             replay a recording: timeline, seek, speed 0.1x-1000x, events
  --at TIME                       with --replay: start at TIME into the recording

Window:
  --wall                          wall-display mode: full screen, no panels, large HUD
  --screenshot OUT.png            render one frame to OUT.png and exit
  --size WxH                      size of the rendered view (with --screenshot; default 1920x1080)
  --at TIME                       run the simulator to TIME (e.g. 90s, 10m) before the screenshot
  --window                        with --screenshot: the whole window with its panels
  --select KIND:NAME|ID           select an entity at start, e.g. rack:A03, gpu:100, compute_tray:7
  --frame                         with --select: point the camera at the selection (rack scale)

Headless (no window, no display needed):
  --headless                      run without any GUI
  --describe                      print the floor's entity counts and parameters as JSON
  --for DURATION                  run the simulator for DURATION of simulated time, as fast as
                                  possible, then print a JSON summary
  --dump-snapshot FILE.json       write the last snapshot as JSON
  --realtime                      pace a headless run at --speed (default 1x) instead of flat out

  --help                          this text
  --version                       the version

Errors go to stderr and the exit status is non-zero.
)";
}

namespace {

bool parseSize(const std::string& s, int& w, int& h) {
    const auto x = s.find('x');
    if (x == std::string::npos) return false;
    auto parse = [](std::string_view v, int& out) {
        auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
        return ec == std::errc() && p == v.data() + v.size() && out >= 16 && out <= 16384;
    };
    return parse(std::string_view(s).substr(0, x), w) && parse(std::string_view(s).substr(x + 1), h);
}

} // namespace

std::expected<Options, std::string> parseCommandLine(const std::vector<std::string>& args) {
    Options o;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](std::string& out) -> bool {
            if (i + 1 >= args.size()) return false;
            out = args[++i];
            return true;
        };
        std::string v;
        if (a == "--help" || a == "-h") o.help = true;
        else if (a == "--version") o.version = true;
        else if (a == "--headless") o.headless = true;
        else if (a == "--describe") o.describe = true;
        else if (a == "--wall") o.wall = true;
        else if (a == "--first-frame-ms") o.firstFrameMs = true;
        else if (a == "--window") o.windowShot = true;
        else if (a == "--realtime") o.realtime = true;
        else if (a == "--record") {
            if (!value(o.record)) return std::unexpected("--record needs a file name");
        } else if (a == "--replay") {
            if (!value(o.replay)) return std::unexpected("--replay needs a recording file");
        } else if (a == "--scenario") {
            if (!value(o.scenario)) return std::unexpected("--scenario needs a name or a file");
        }
        else if (a == "--frame") o.frameSelection = true;
        else if (a == "--insecure") o.insecure = true;
        else if (a == "--source") {
            if (!value(v)) return std::unexpected("--source needs scrape=URL, prometheus=URL or mqtt=HOST:PORT");
            if (auto spec = parseSourceSpec(v); !spec) return std::unexpected(spec.error());
            o.sources.push_back(v);
        } else if (a == "--mapping") {
            if (!value(o.mapping)) return std::unexpected("--mapping needs a rules file (JSON)");
        } else if (a == "--token-file") {
            if (!value(o.tokenFile)) return std::unexpected("--token-file needs a file");
        } else if (a == "--ca-file") {
            if (!value(o.caFile)) return std::unexpected("--ca-file needs a file");
        } else if (a == "--interval") {
            if (!value(o.interval)) return std::unexpected("--interval needs a duration such as 1s");
        } else if (a == "--stale-after") {
            if (!value(o.staleAfter)) return std::unexpected("--stale-after needs a duration such as 15s");
        } else if (a == "--import") {
            if (!value(o.importFile)) return std::unexpected("--import needs a file (CSV, JSONL or Prometheus text)");
        } else if (a == "--import-window") {
            if (!value(o.importWindow)) return std::unexpected("--import-window needs FROM,TO (RFC 3339 times)");
        } else if (a == "--step") {
            if (!value(o.step)) return std::unexpected("--step needs a duration such as 15s");
        }
        else if (a == "--select") {
            if (!value(o.select)) return std::unexpected("--select needs KIND:NAME or KIND:ID, e.g. rack:A03");
        }
        else if (a == "--floor") {
            if (!value(o.floor)) return std::unexpected("--floor needs FILE or generate:racks=N");
        } else if (a == "--for") {
            if (!value(o.forDuration)) return std::unexpected("--for needs a duration such as 90s or 10m");
        } else if (a == "--dump-snapshot") {
            if (!value(o.dumpSnapshot)) return std::unexpected("--dump-snapshot needs a file name");
        } else if (a == "--screenshot") {
            if (!value(o.screenshot)) return std::unexpected("--screenshot needs a file name");
        } else if (a == "--at") {
            if (!value(o.at)) return std::unexpected("--at needs a time such as 90s or 10m");
        } else if (a == "--size") {
            if (!value(v) || !parseSize(v, o.width, o.height))
                return std::unexpected("--size needs WxH, e.g. 1280x720 (each 16..16384)");
        } else if (a == "--metric") {
            if (!value(o.metric)) return std::unexpected("--metric needs a channel name");
        } else if (a == "--layers") {
            if (!value(v)) return std::unexpected("--layers needs a comma-separated list");
            std::stringstream ss(v);
            for (std::string item; std::getline(ss, item, ',');)
                if (!item.empty()) o.layers.push_back(item);
        } else if (a == "--seed") {
            if (!value(v)) return std::unexpected("--seed needs a number");
            auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), o.seed);
            if (ec != std::errc() || p != v.data() + v.size()) return std::unexpected("--seed needs a whole number, got '" + v + "'");
        } else if (a == "--speed") {
            if (!value(v)) return std::unexpected("--speed needs a number");
            try {
                o.speed = std::stod(v);
            } catch (...) {
                return std::unexpected("--speed needs a number, got '" + v + "'");
            }
            if (o.speed <= 0 || o.speed > 10000) return std::unexpected("--speed must be in (0, 10000]");
        } else {
            return std::unexpected("unknown option '" + a + "' (see --help)");
        }
    }
    if (o.describe && !o.headless) o.headless = true; // --describe never needs a window
    if (o.headless && !o.screenshot.empty()) return std::unexpected("--screenshot needs a window; drop --headless");
    if (o.windowShot && o.screenshot.empty()) return std::unexpected("--window goes with --screenshot");
    if (!o.replay.empty() && !o.record.empty()) return std::unexpected("--record records a live source; --replay already plays a recording");
    if (!o.replay.empty() && (!o.scenario.empty() || !o.floor.empty()))
        return std::unexpected("--replay plays the floor and scenario that were recorded; drop --floor/--scenario");
    if (!o.sources.empty() && !o.replay.empty()) return std::unexpected("--source feeds the live twin; --replay plays a recording: pick one");
    if (!o.sources.empty() && !o.scenario.empty()) return std::unexpected("--scenario drives the simulator; live sources report what really happens: drop --scenario");
    if (!o.importFile.empty() && !o.sources.empty()) return std::unexpected("--import reads a file; drop --source");
    if (!o.importWindow.empty()) {
        const bool prometheus = std::ranges::any_of(o.sources, [](const std::string& s) { return s.starts_with("prometheus="); });
        if (!prometheus) return std::unexpected("--import-window pulls from a Prometheus server: add --source prometheus=URL");
        if (o.record.empty()) return std::unexpected("--import-window writes a recording: add --record OUT.ftrec");
    }
    if (!o.importFile.empty() && o.record.empty() && o.headless) return std::unexpected("--import --headless writes a recording: add --record OUT.ftrec");
    for (const auto& layer : o.layers)
        if (layer != "racks" && layer != "nvlink" && layer != "rails" && layer != "thermal" && layer != "lifecycle" && layer != "storage")
            return std::unexpected("unknown layer '" + layer + "' (available: racks, nvlink, rails, thermal, lifecycle, storage)");
    return o;
}

std::expected<SourceSpec, std::string> parseSourceSpec(const std::string& text) {
    const auto eq = text.find('=');
    const std::string kind = eq == std::string::npos ? std::string() : text.substr(0, eq);
    if (kind != "scrape" && kind != "prometheus" && kind != "mqtt")
        return std::unexpected("--source '" + text + "': expected scrape=URL[,URL...], prometheus=URL or mqtt=HOST[:PORT]");
    if (eq + 1 >= text.size()) return std::unexpected("--source " + kind + "= needs a target");
    return SourceSpec{kind, text.substr(eq + 1)};
}

} // namespace ft::app
