#include "wall_config.h"

#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ft::app {

namespace {

bool parsePair(const std::string& text, char sep, int& a, int& b) {
    const auto at = text.find(sep);
    if (at == std::string::npos) return false;
    auto whole = [](std::string_view v, int& out) {
        const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
        return ec == std::errc() && p == v.data() + v.size();
    };
    return whole(std::string_view(text).substr(0, at), a) &&
           whole(std::string_view(text).substr(at + 1), b);
}

using Json = nlohmann::json;

// A wall file: {"group", "grid": [C, R], "screen_mm": [W, H], "bezel_mm": [X, Y], "port",
// "screens": [{"at": [C, R], "host", "port", "view": "slice"|"own", "hud", "leader"}]}.
std::expected<void, std::string> readWallFile(const std::string& path, WallConfig& wall,
                                              std::vector<Json>& screens) {
    std::ifstream in(path);
    if (!in) return std::unexpected("--wall-file: cannot read " + path);
    std::stringstream text;
    text << in.rdbuf();
    Json doc = Json::parse(text.str(), nullptr, false);
    if (doc.is_discarded() || !doc.is_object())
        return std::unexpected(path + ": not a JSON object (a wall file: docs/noc-wall.md)");
    auto fail = [&](const std::string& key, const std::string& what) {
        return std::unexpected(path + ": " + key + ": expected " + what);
    };
    auto pairOf = [](const Json& v, auto& a, auto& b) {
        if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number()) return false;
        a = v[0].get<std::remove_reference_t<decltype(a)>>();
        b = v[1].get<std::remove_reference_t<decltype(b)>>();
        return true;
    };
    for (const auto& [key, v] : doc.items()) {
        if (key == "group") {
            if (!v.is_string() || v.get<std::string>().empty()) return fail(key, "a name");
            wall.group = v.get<std::string>();
        } else if (key == "grid") {
            if (!pairOf(v, wall.cols, wall.rows)) return fail(key, "[columns, rows]");
        } else if (key == "screen_mm") {
            if (!pairOf(v, wall.screenWidthMm, wall.screenHeightMm) || wall.screenWidthMm <= 0 ||
                wall.screenHeightMm <= 0)
                return fail(key, "[width, height] of a screen's picture in mm");
        } else if (key == "bezel_mm") {
            if (!pairOf(v, wall.bezelXMm, wall.bezelYMm) || wall.bezelXMm < 0 || wall.bezelYMm < 0)
                return fail(key, "[between columns, between rows] in mm");
        } else if (key == "port") {
            if (!v.is_number_unsigned() || v.get<unsigned>() == 0 || v.get<unsigned>() > 65000)
                return fail(key, "a UDP port (1..65000)");
            wall.basePort = static_cast<std::uint16_t>(v.get<unsigned>());
        } else if (key == "key_file") {
            if (!v.is_string()) return fail(key, "the path of a file holding the wall's secret");
            std::ifstream secret(v.get<std::string>());
            std::getline(secret, wall.key);
            if (!secret && wall.key.empty())
                return fail(key, "a readable file holding the wall's secret (cannot read " +
                                     v.get<std::string>() + ")");
            if (wall.key.size() < 16)
                return fail(key, "a secret of at least 16 characters in " + v.get<std::string>());
        } else if (key == "screens") {
            if (!v.is_array()) return fail(key, "a list of screens");
            screens = v.get<std::vector<Json>>();
        } else {
            return std::unexpected(path + ": unknown key '" + key +
                                   "' (group, grid, screen_mm, bezel_mm, port, key_file, "
                                   "screens)");
        }
    }
    return {};
}

std::expected<void, std::string> applyScreen(const std::string& path, const Json& s,
                                             WallConfig& wall, std::uint16_t basePort) {
    auto fail = [&](const std::string& what) {
        return std::unexpected(path + ": screens: " + what);
    };
    if (!s.is_object() || !s.contains("at") || !s["at"].is_array() || s["at"].size() != 2 ||
        !s["at"][0].is_number_integer() || !s["at"][1].is_number_integer())
        return fail("each screen needs \"at\": [column, row]");
    const int c = s["at"][0], r = s["at"][1];
    if (c < 0 || r < 0 || c >= wall.cols || r >= wall.rows)
        return fail("screen at " + std::to_string(c) + "," + std::to_string(r) +
                    " is outside the grid");
    WallScreen& screen = wall.screens[static_cast<std::size_t>(wall.index(c, r))];
    for (const auto& [key, v] : s.items()) {
        if (key == "at") continue;
        if (key == "host" && v.is_string()) {
            screen.host = v.get<std::string>();
        } else if (key == "port" && v.is_number_unsigned() && v.get<unsigned>() > 0 &&
                   v.get<unsigned>() <= 65535) {
            screen.port = static_cast<std::uint16_t>(v.get<unsigned>());
        } else if (key == "view" && v.is_string() && (v == "slice" || v == "own")) {
            screen.slice = v == "slice";
        } else if (key == "hud" && v.is_boolean()) {
            screen.hud = v.get<bool>();
        } else if (key == "leader" && v.is_boolean()) {
            if (v.get<bool>() && wall.index(c, r) == wall.self) wall.lead = true;
        } else {
            return fail("screen " + std::to_string(c) + "," + std::to_string(r) + ": '" + key +
                        "' (host, port, view: slice|own, hud: true|false, leader: true)");
        }
    }
    if (screen.port == 0) screen.port = static_cast<std::uint16_t>(basePort + wall.index(c, r));
    return {};
}

} // namespace

std::uint16_t defaultWallPort(const std::string& group) {
    std::uint32_t h = 2166136261u; // FNV-1a
    for (const unsigned char c : group)
        h = (h ^ c) * 16777619u;
    return static_cast<std::uint16_t>(40000 + (h % 500) * 40);
}

WallConfig::Slice WallConfig::sliceOf(int i) const {
    const int c = i % cols, r = i / cols;
    const double wallW = cols * screenWidthMm + (cols - 1) * bezelXMm;
    const double wallH = rows * screenHeightMm + (rows - 1) * bezelYMm;
    Slice s;
    s.wallAspect = wallW / wallH;
    const double left = c * (screenWidthMm + bezelXMm), top = r * (screenHeightMm + bezelYMm);
    s.x0 = -1 + 2 * left / wallW;
    s.x1 = -1 + 2 * (left + screenWidthMm) / wallW;
    s.y1 = 1 - 2 * top / wallH; // rows count down from the top
    s.y0 = 1 - 2 * (top + screenHeightMm) / wallH;
    return s;
}

std::expected<std::optional<WallConfig>, std::string> wallConfigFrom(const Options& o) {
    const bool asked = !o.wallGroup.empty() || !o.wallFile.empty();
    if (!asked) {
        if (!o.wallGrid.empty() || !o.wallScreen.empty() || !o.wallView.empty() || o.wallLead)
            return std::unexpected("--wall-grid, --wall-screen, --wall-view and --wall-lead go "
                                   "with --wall-group NAME or --wall-file FILE");
        return std::nullopt;
    }
    WallConfig wall;
    std::vector<Json> screens;
    if (!o.wallFile.empty())
        if (auto ok = readWallFile(o.wallFile, wall, screens); !ok)
            return std::unexpected(ok.error());
    if (!o.wallGroup.empty()) wall.group = o.wallGroup;
    if (wall.group.empty()) return std::unexpected("--wall-file: the file names no \"group\"");
    if (!o.wallGrid.empty() && !parsePair(o.wallGrid, 'x', wall.cols, wall.rows))
        return std::unexpected("--wall-grid: expected CxR, e.g. 2x2, got '" + o.wallGrid + "'");
    if (wall.cols < 1 || wall.rows < 1 || wall.cols > 64 || wall.rows > 64 ||
        wall.cols * wall.rows > 64)
        return std::unexpected("--wall-grid: 1..64 screens in all");
    int c = 0, r = 0;
    if (!o.wallScreen.empty() && !parsePair(o.wallScreen, ',', c, r))
        return std::unexpected("--wall-screen: expected C,R, e.g. 1,0, got '" + o.wallScreen + "'");
    if (c < 0 || r < 0 || c >= wall.cols || r >= wall.rows)
        return std::unexpected("--wall-screen " + o.wallScreen + " is outside the " +
                               std::to_string(wall.cols) + "x" + std::to_string(wall.rows) +
                               " grid");
    wall.self = wall.index(c, r);
    wall.screens.resize(static_cast<std::size_t>(wall.cols * wall.rows));
    const std::uint16_t base = wall.basePort ? wall.basePort : defaultWallPort(wall.group);
    for (int i = 0; i < wall.cols * wall.rows; ++i) {
        auto& s = wall.screens[static_cast<std::size_t>(i)];
        s.col = i % wall.cols;
        s.row = i / wall.cols;
        s.port = static_cast<std::uint16_t>(base + i);
    }
    for (const auto& s : screens)
        if (auto ok = applyScreen(o.wallFile, s, wall, base); !ok)
            return std::unexpected(ok.error());
    if (!o.wallView.empty()) {
        if (o.wallView != "slice" && o.wallView != "own")
            return std::unexpected("--wall-view: expected slice or own");
        wall.screens[static_cast<std::size_t>(wall.self)].slice = o.wallView == "slice";
    }
    if (o.wallLead) wall.lead = true;
    return wall;
}

} // namespace ft::app
