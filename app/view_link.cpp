#include "view_link.h"

#include "command_line.h"
#include "importers/formats/alertmanager_json.h"
#include "importers/formats/long_format_import.h"
#include "importers/formats/url_text.h"
#include "model/channel_catalog.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace ft::app {

namespace {

std::expected<std::string, std::string> percentDecoded(std::string_view text,
                                                       std::string_view part) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (static_cast<unsigned char>(text[i]) < 0x20 || text[i] == 0x7F)
            return std::unexpected("link part '" + std::string(part) + "': a control character");
        if (text[i] != '%') {
            out += text[i];
            continue;
        }
        int byte = 0;
        const char* first = text.data() + i + 1;
        if (i + 2 >= text.size() || std::isxdigit(static_cast<unsigned char>(first[0])) == 0 ||
            std::isxdigit(static_cast<unsigned char>(first[1])) == 0 ||
            std::from_chars(first, first + 2, byte, 16).ptr != first + 2)
            return std::unexpected("link part '" + std::string(part) +
                                   "': a '%' not followed by two hex digits");
        // No control characters: a link's parts end up in paths, names and log lines.
        if (byte < 0x20 || byte == 0x7F)
            return std::unexpected("link part '" + std::string(part) + "': a control character (%" +
                                   std::string(first, 2) + ")");
        out += static_cast<char>(byte);
        i += 2;
    }
    return out;
}

bool parseNumber(std::string_view text, double& out) {
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && p == text.data() + text.size() && std::isfinite(out);
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::vector<std::string_view> split(std::string_view text, char by) {
    std::vector<std::string_view> out;
    for (std::size_t start = 0;;) {
        const auto at = text.find(by, start);
        out.push_back(text.substr(start, at == std::string_view::npos ? at : at - start));
        if (at == std::string_view::npos) return out;
        start = at + 1;
    }
}

// "user:pass@" in a target's authority, if any: [begin, end) of it.
std::optional<std::pair<std::size_t, std::size_t>> userInfo(const std::string& target) {
    const auto scheme = target.find("://");
    if (scheme == std::string::npos) return std::nullopt;
    const auto host = scheme + 3;
    const auto end = target.find_first_of("/?#", host);
    const auto at = target.rfind('@', end == std::string::npos ? target.size() : end);
    if (at == std::string::npos || at < host) return std::nullopt;
    return std::pair{host, at + 1};
}

} // namespace

std::expected<LinkCamera, std::string> parseLinkCamera(std::string_view text) {
    const auto parts = split(text, ',');
    std::array<double, 6> v{};
    bool ok = parts.size() == v.size();
    for (std::size_t i = 0; ok && i < v.size(); ++i)
        ok = parseNumber(parts[i], v[i]);
    if (!ok)
        return std::unexpected("camera '" + std::string(text) +
                               "': expected X,Y,Z,DISTANCE,AZIMUTH,ELEVATION (metres, degrees)");
    if (v[3] <= 0.5 || v[3] > 1e5)
        return std::unexpected("camera '" + std::string(text) +
                               "': the distance must be 0.5..100000 m");
    if (v[5] < -89.9 || v[5] > 90)
        return std::unexpected("camera '" + std::string(text) +
                               "': the elevation must be -89.9..90 degrees");
    return LinkCamera{{v[0], v[1], v[2]}, v[3], v[4], v[5]};
}

std::string formatLinkCamera(const LinkCamera& c) {
    return number(c.focus[0]) + "," + number(c.focus[1]) + "," + number(c.focus[2]) + "," +
           number(c.distance) + "," + number(c.azimuthDeg) + "," + number(c.elevationDeg);
}

std::expected<LinkTime, std::string> parseLinkTime(std::string_view text) {
    if (auto t = importers::parseRfc3339(text)) return LinkTime{*t, false};
    model::TimeNs since = 0;
    if (!text.empty() && text.front() != '-' && model::parseDuration(std::string(text), since))
        return LinkTime{since, true};
    return std::unexpected("at '" + std::string(text) +
                           "': expected an RFC 3339 time (2026-12-06T14:03:00Z) or a time since "
                           "the start (90s, 10m)");
}

bool looksLikeLink(std::string_view text) {
    return text.starts_with(kLinkScheme) && text.size() > kLinkScheme.size() &&
           text[kLinkScheme.size()] == ':';
}

std::string withoutCredentials(const std::string& target) {
    auto info = userInfo(target);
    if (!info) return target;
    return target.substr(0, info->first) + target.substr(info->second);
}

std::expected<ViewLink, std::string> parseViewLink(std::string_view text,
                                                   const std::vector<std::string>& layerIds) {
    if (!looksLikeLink(text)) return std::unexpected("not a floortwin: link");
    std::string_view rest = text.substr(kLinkScheme.size() + 1);
    if (rest.starts_with("//")) rest.remove_prefix(2);
    const auto query = rest.find('?');
    std::string_view action = rest.substr(0, query);
    if (action.ends_with('/')) action.remove_suffix(1);
    if (action != "open")
        return std::unexpected("link: unknown action '" + std::string(action) +
                               "' (expected floortwin://open?…)");
    ViewLink link;
    if (query == std::string_view::npos) return link;
    std::string_view params = rest.substr(query + 1);
    if (const auto hash = params.find('#'); hash != std::string_view::npos)
        params = params.substr(0, hash);
    std::vector<std::string> seen;
    for (const auto item : split(params, '&')) {
        if (item.empty()) continue;
        const auto eq = item.find('=');
        const std::string key(item.substr(0, eq));
        if (eq == std::string_view::npos)
            return std::unexpected("link part '" + key + "' has no value (expected " + key + "=…)");
        auto value = percentDecoded(item.substr(eq + 1), key);
        if (!value) return std::unexpected(value.error());
        const std::string& v = *value;
        if (key != "source" && std::ranges::find(seen, key) != seen.end())
            return std::unexpected("link part '" + key + "' is given twice");
        seen.push_back(key);
        if (v.empty()) return std::unexpected("link part '" + key + "' is empty");
        if (key == "floor") {
            link.floor = v;
        } else if (key == "inventory") {
            link.inventory = v;
        } else if (key == "replay") {
            link.replay = v;
        } else if (key == "source") {
            if (auto spec = parseSourceSpec(v); !spec)
                return std::unexpected("link part 'source': " + spec.error());
            if (userInfo(v))
                return std::unexpected("link part 'source' holds a user or password: a link "
                                       "carries no secrets (the twin uses its own credential "
                                       "files)");
            link.sources.push_back(v);
        } else if (key == "at") {
            auto t = parseLinkTime(v);
            if (!t) return std::unexpected("link part " + t.error());
            link.at = *t;
        } else if (key == "select") {
            if (v.find(':') == std::string::npos || v.front() == ':' || v.back() == ':')
                return std::unexpected("link part 'select': expected KIND:NAME (rack:A03, "
                                       "gpu:100), got '" +
                                       v + "'");
            link.select = v;
        } else if (key == "layers") {
            std::vector<std::string> layers; // "none": every layer off
            for (const auto id : split(v, ',')) {
                if (id.empty() || v == "none") continue;
                if (std::ranges::find(layerIds, id) == layerIds.end())
                    return std::unexpected("link part 'layers': unknown layer '" + std::string(id) +
                                           "'");
                layers.emplace_back(id);
            }
            link.layers = std::move(layers);
        } else if (key == "metric") {
            if (!model::findChannel(v))
                return std::unexpected("link part 'metric': unknown channel '" + v + "'");
            link.metric = v;
        } else if (key == "camera") {
            auto camera = parseLinkCamera(v);
            if (!camera) return std::unexpected("link part " + camera.error());
            link.camera = *camera;
        } else if (key == "speed") {
            double speed = 0;
            if (!parseNumber(v, speed) || speed <= 0 || speed > 10000)
                return std::unexpected("link part 'speed': expected a number in (0, 10000], "
                                       "got '" +
                                       v + "'");
            link.speed = speed;
        } else {
            return std::unexpected("link part '" + key +
                                   "' is unknown (known: floor, inventory, replay, source, at, "
                                   "select, layers, metric, camera, speed)");
        }
    }
    if (!link.floor.empty() && !link.inventory.empty())
        return std::unexpected("link parts 'floor' and 'inventory' both name the floor");
    if (!link.replay.empty() && (!link.floor.empty() || !link.inventory.empty()))
        return std::unexpected("link part 'replay' plays the recorded floor: drop 'floor'");
    if (!link.replay.empty() && !link.sources.empty())
        return std::unexpected("link parts 'replay' and 'source': a link opens one of them");
    return link;
}

std::string formatViewLink(const ViewLink& link) {
    std::string out = std::string(kLinkScheme) + "://open";
    char sep = '?';
    auto add = [&](std::string_view key, std::string_view value) {
        out += sep;
        out += key;
        out += '=';
        // Kept as they are: what a reader expects to see in a path, a time or a list.
        out += importers::urlEncode(value, "/:,");
        sep = '&';
    };
    if (!link.replay.empty()) add("replay", link.replay);
    if (!link.floor.empty()) add("floor", link.floor);
    if (!link.inventory.empty()) add("inventory", link.inventory);
    for (const auto& s : link.sources)
        add("source", withoutCredentials(s));
    if (link.at) {
        if (link.at->sinceStart)
            add("at", number(model::toSeconds(link.at->value)) + "s");
        else
            add("at", importers::rfc3339(link.at->value));
    }
    if (!link.select.empty()) add("select", link.select);
    if (link.layers) {
        std::string list;
        for (const auto& l : *link.layers)
            list += (list.empty() ? "" : ",") + l;
        add("layers", list.empty() ? "none" : list);
    }
    if (!link.metric.empty()) add("metric", link.metric);
    if (link.camera) add("camera", formatLinkCamera(*link.camera));
    if (link.speed) add("speed", number(*link.speed));
    return out;
}

} // namespace ft::app
