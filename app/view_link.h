#pragma once
// A link into the twin: one URL that holds a view — the floor or the recording, the live
// sources, the moment, the selection, the layers, the metric and the camera:
//
//   floortwin://open?replay=/srv/incidents/pump.ftrec&at=2026-12-06T14:03:00Z
//                   &select=gpu:DH2-B03/7/2&layers=racks,thermal&metric=gpu.temperature
//                   &camera=12.5,4,0,30,-25,35
//
// Every part is optional and is the same as a command-line flag (--floor, --inventory,
// --source, --replay, --at, --select, --layers, --metric, --camera, --speed). A link never
// holds a secret: a source names its URL without user or password (the twin that opens it
// uses its own --token-file / --password-file), and a link that holds one is refused.
// Parsing checks the form of every part and refuses an unknown one; whether the recording,
// the moment or the entity exists is the opening twin's to find out (it opens, and says which
// part it could not follow). Plain C++; no Qt, no view.
#include "model/timestamp.h"

#include <array>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ft::app {

inline constexpr std::string_view kLinkScheme = "floortwin";

// An orbit camera in the link's words: focus x, y, z (metres), distance (m), azimuth and
// elevation (degrees) — views::CameraRig's fields.
struct LinkCamera {
    std::array<double, 3> focus{};
    double distance = 30, azimuthDeg = -25, elevationDeg = 35;
    bool operator==(const LinkCamera&) const = default;
};
std::expected<LinkCamera, std::string> parseLinkCamera(std::string_view text);
std::string formatLinkCamera(const LinkCamera& camera);

// A moment: a UTC instant (RFC 3339), or a time since the start of the run or recording
// ("90s", "10m").
struct LinkTime {
    model::TimeNs value = 0;
    bool sinceStart = false;
    bool operator==(const LinkTime&) const = default;
};
std::expected<LinkTime, std::string> parseLinkTime(std::string_view text);

struct ViewLink {
    std::string floor;                // a floor file or generate:racks=N
    std::string inventory;            // an inventory the floor is built from
    std::string replay;               // a recording (absolute path)
    std::vector<std::string> sources; // KIND=TARGET, without credentials
    std::optional<LinkTime> at;
    std::string select; // KIND:NAME
    std::optional<std::vector<std::string>> layers;
    std::string metric;
    std::optional<LinkCamera> camera;
    std::optional<double> speed;
    bool operator==(const ViewLink&) const = default;
    // True when the link says what runs (a floor, a recording or sources), not only how to look.
    bool namesRun() const {
        return !floor.empty() || !inventory.empty() || !replay.empty() || !sources.empty();
    }
};

// True when `text` is meant as a link (floortwin:…), so a command line can tell it from a
// mistyped flag.
bool looksLikeLink(std::string_view text);
// `layerIds`: the layers a link may name. An error is one line naming the part.
std::expected<ViewLink, std::string> parseViewLink(std::string_view text,
                                                   const std::vector<std::string>& layerIds);
// The link's URL; its parts in a fixed order, each percent-encoded.
std::string formatViewLink(const ViewLink& link);

// A source target with its user and password taken out ("http://u:p@h:9090" -> "http://h:9090"),
// for links and for anything else that is shown or sent.
std::string withoutCredentials(const std::string& target);

} // namespace ft::app
