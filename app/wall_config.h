#pragma once
// The shape of one wall of many screens, from --wall-* flags or a wall file (docs/noc-wall.md):
// the grid, the size of each screen's picture and the bezels between them in millimetres, where
// each screen's process listens, and what each screen shows. Plain C++ (nlohmann for the file).
#include "command_line.h"

#include <cstdint>
#include <expected>
#include <string>
#include <vector>

namespace ft::app {

struct WallScreen {
    int col = 0, row = 0;
    std::string host = "127.0.0.1"; // where its process listens
    std::uint16_t port = 0;
    bool slice = true; // its part of the one wide view; false: its own view of the moment
    bool hud = true;   // draws the HUD (panels and labels)
};

struct WallConfig {
    std::string group;
    int cols = 1, rows = 1;
    // Each screen's picture and the bezel between two neighbours (both screens' rims), in mm:
    // the slices leave the bezel's width of the picture out, so lines run straight across.
    double screenWidthMm = 1210, screenHeightMm = 680; // a 55" 16:9 panel
    double bezelXMm = 0, bezelYMm = 0;
    std::vector<WallScreen> screens; // cols x rows, row by row
    int self = 0;                    // this process's screen (index into screens)
    bool lead = false;               // this screen leads while it runs
    std::uint16_t basePort = 0;      // screen i listens on basePort + i unless it says
    std::string key; // the wall file's key_file: a secret every message is signed with

    int index(int col, int row) const { return row * cols + col; }
    const WallScreen& me() const { return screens[static_cast<std::size_t>(self)]; }
    // This screen's part of the whole wall in normalised device coordinates (-1..1, y up), and
    // the whole wall's aspect (width / height, bezels included).
    struct Slice {
        double x0 = -1, x1 = 1, y0 = -1, y1 = 1;
        double wallAspect = 16.0 / 9.0;
        bool operator==(const Slice&) const = default;
    };
    Slice sliceOf(int index) const;
};

// The UDP port a group listens on by default (screen i: base + i), from its name, so that
// screens on one machine agree on it without being told.
std::uint16_t defaultWallPort(const std::string& group);

// --wall-group/--wall-grid/--wall-screen/--wall-view/--wall-lead, or --wall-file (whose
// values the flags override); nothing when no group is asked for.
std::expected<std::optional<WallConfig>, std::string> wallConfigFrom(const Options& options);

} // namespace ft::app
