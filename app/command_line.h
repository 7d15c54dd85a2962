#pragma once
// The floortwin command line (the contract in DESIGN.md), parsed without Qt so that it can be
// checked before any GUI object exists.
#include <expected>
#include <string>
#include <vector>

namespace ft::app {

struct Options {
    bool help = false;
    bool version = false;
    bool headless = false;
    bool describe = false;
    bool wall = false;
    std::string floor;          // empty: the bundled demo floor
    std::string forDuration;    // --for
    std::string dumpSnapshot;   // --dump-snapshot FILE
    std::string screenshot;     // --screenshot OUT.png
    std::string at;             // --at TIME
    int width = 0, height = 0;  // --size WxH
    std::string metric;         // --metric CHANNEL
    std::vector<std::string> layers;
    unsigned long long seed = 1;
    double speed = 1.0;
    bool realtime = false;      // --realtime: a headless run paced at --speed instead of flat out
    bool firstFrameMs = false;  // print time to first frame and exit (startup benchmark)
    bool windowShot = false;    // --window: the screenshot shows the whole window with panels
    std::string select;         // --select KIND:NAME|ID, e.g. rack:A03, gpu:100
    bool frameSelection = false; // --frame: point the camera at the selection
    std::string scenario;       // --scenario NAME|FILE
    std::string record;         // --record FILE.ftrec
    std::string replay;         // --replay FILE.ftrec
};

std::expected<Options, std::string> parseCommandLine(const std::vector<std::string>& args);
std::string helpText();

} // namespace ft::app
