#include "story_file.h"

#include "importers/formats/json_document.h"
#include "scenario_file.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace ft::importers {

using Type = JsonValue::Type;

namespace {

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& i : items)
        out += (out.empty() ? "" : ", ") + i;
    return out;
}

std::string seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%gs", s);
    return buf;
}

struct Reader {
    const std::string& file;
    const model::Topology& topology;
    const std::vector<std::string>& layerIds;
    Story::Kind kind;

    std::unexpected<Error> fail(const JsonValue& at, const std::string& key,
                                const std::string& message) const {
        return std::unexpected(Error{message, file, at.line, at.column, key});
    }

    // "90s", "2m", 4.5 -> seconds.
    std::expected<double, Error> duration(const JsonValue& v, const std::string& key) const {
        if (v.type == Type::Number && v.number >= 0 && std::isfinite(v.number)) return v.number;
        model::TimeNs ns = 0;
        if (v.type == Type::String && model::parseDuration(v.string, ns) && ns >= 0)
            return model::toSeconds(ns);
        return fail(v, key, R"(expected a time such as "20s", "2m" or a number of seconds)");
    }

    std::expected<model::EntityRef, Error> entity(const JsonValue& v,
                                                  const std::string& key) const {
        if (v.type != Type::String) return fail(v, key, R"(expected "kind:name", e.g. "rack:A03")");
        auto ref = resolveEntity(topology, v.string);
        if (!ref) return fail(v, key, ref.error());
        return *ref;
    }

    std::expected<StoryCamera, Error> camera(const JsonValue& v, const std::string& key) const {
        if (v.type != Type::Object)
            return fail(v, key,
                        R"(expected {"focus": [x, y, z], "distance": m, "azimuth": deg, )"
                        R"("elevation": deg})");
        StoryCamera cam;
        cam.kind = StoryCamera::Kind::Explicit;
        bool haveFocus = false, haveDistance = false;
        for (const auto& [k, value] : v.object) {
            const std::string path = key + "." + k;
            if (k == "focus") {
                if (value.type != Type::Array || value.array.size() != 3 ||
                    !std::ranges::all_of(value.array,
                                         [](const JsonValue& c) { return c.type == Type::Number; }))
                    return fail(value, path, "expected [x, y, z] in metres");
                cam.focus = {static_cast<float>(value.array[0].number),
                             static_cast<float>(value.array[1].number),
                             static_cast<float>(value.array[2].number)};
                haveFocus = true;
            } else if (k == "distance") {
                if (value.type != Type::Number || value.number <= 0.5 || value.number > 1e5)
                    return fail(value, path, "expected metres from the focus (0.5..100000)");
                cam.distance = value.number;
                haveDistance = true;
            } else if (k == "azimuth" || k == "elevation") {
                auto angle = this->angle(value, path, k == "elevation");
                if (!angle) return std::unexpected(angle.error());
                (k == "azimuth" ? cam.azimuthDeg : cam.elevationDeg) = *angle;
            } else {
                return fail(value, path, "unknown key (focus, distance, azimuth, elevation)");
            }
        }
        if (!haveFocus) return fail(v, key + ".focus", "missing required key");
        if (!haveDistance) return fail(v, key + ".distance", "missing required key");
        if (!cam.azimuthDeg) cam.azimuthDeg = -25.0;
        if (!cam.elevationDeg) cam.elevationDeg = 35.0;
        return cam;
    }

    std::expected<double, Error> angle(const JsonValue& v, const std::string& key,
                                       bool elevation) const {
        if (v.type != Type::Number || !std::isfinite(v.number))
            return fail(v, key, "expected degrees");
        if (elevation && (v.number < 4 || v.number > 89.5))
            return fail(v, key, "expected degrees above the floor, 4..89.5");
        return v.number;
    }

    // One stop or step. `rowsOut` receives the rows of a "rows" view (tours).
    std::expected<StoryStep, Error> step(const JsonValue& item, const std::string& path, int index,
                                         bool& rows) const {
        if (item.type != Type::Object) return fail(item, path, "expected an object");
        StoryStep s;
        s.line = item.line;
        s.index = index;
        const bool demo = kind == Story::Kind::Demo;
        std::optional<double> azimuth, elevation;
        int placements = 0;
        for (const auto& [key, value] : item.object) {
            const std::string k = path + "." + key;
            if (key == "at" && demo) {
                auto at = duration(value, k);
                if (!at) return std::unexpected(at.error());
                s.at = *at;
            } else if (key == "dwell" && !demo) {
                auto d = duration(value, k);
                if (!d) return std::unexpected(d.error());
                s.dwell = *d;
            } else if (key == "flight") {
                auto d = duration(value, k);
                if (!d) return std::unexpected(d.error());
                if (*d > 60) return fail(value, k, "a camera flight of at most 60s");
                s.flight = *d;
            } else if (key == "view") {
                ++placements;
                static const std::vector<std::string> views{"overview", "top", "fabric", "hottest",
                                                            "rows"};
                if (value.type != Type::String ||
                    std::ranges::find(views, value.string) == views.end())
                    return fail(value, k, "unknown view (available: " + joined(views) + ")");
                if (value.string == "rows") {
                    if (demo)
                        return fail(value, k,
                                    "a demo frames one thing per step: use \"frame\": "
                                    "[\"row:A\"]");
                    rows = true;
                    continue;
                }
                StoryCamera cam;
                cam.kind = value.string == "overview" ? StoryCamera::Kind::Overview
                           : value.string == "top"    ? StoryCamera::Kind::Top
                           : value.string == "fabric" ? StoryCamera::Kind::Fabric
                                                      : StoryCamera::Kind::Hottest;
                s.camera = cam;
            } else if (key == "frame") {
                ++placements;
                StoryCamera cam;
                cam.kind = StoryCamera::Kind::Frame;
                if (value.type == Type::String) {
                    auto ref = entity(value, k);
                    if (!ref) return std::unexpected(ref.error());
                    cam.entities.push_back(*ref);
                } else if (value.type == Type::Array && !value.array.empty()) {
                    for (std::size_t i = 0; i < value.array.size(); ++i) {
                        auto ref = entity(value.array[i], k + "[" + std::to_string(i) + "]");
                        if (!ref) return std::unexpected(ref.error());
                        cam.entities.push_back(*ref);
                    }
                } else {
                    return fail(value, k, R"(expected "kind:name" or a list of them)");
                }
                s.camera = cam;
            } else if (key == "camera") {
                ++placements;
                auto cam = camera(value, k);
                if (!cam) return std::unexpected(cam.error());
                s.camera = *cam;
            } else if (key == "azimuth" || key == "elevation") {
                auto a = angle(value, k, key == "elevation");
                if (!a) return std::unexpected(a.error());
                (key == "azimuth" ? azimuth : elevation) = *a;
            } else if (key == "layers") {
                if (value.type != Type::Array)
                    return fail(value, k, "expected a list of layers (" + joined(layerIds) + ")");
                std::vector<std::string> layers;
                for (const auto& l : value.array) {
                    if (l.type != Type::String ||
                        std::ranges::find(layerIds, l.string) == layerIds.end())
                        return fail(l, k,
                                    "unknown layer" +
                                        (l.type == Type::String ? " '" + l.string + "'" : "") +
                                        " (available: " + joined(layerIds) + ")");
                    layers.push_back(l.string);
                }
                s.layers = std::move(layers);
            } else if (key == "metric") {
                const auto c =
                    value.type == Type::String ? model::findChannel(value.string) : std::nullopt;
                if (!c) {
                    std::string known;
                    for (const auto& info : model::kChannels)
                        known += (known.empty() ? "" : ", ") + std::string(info.name);
                    return fail(value, k, "unknown metric (known: " + known + ")");
                }
                s.metric = *c;
            } else if (key == "select") {
                s.setSelection = true;
                if (value.type == Type::Null) continue;
                auto ref = entity(value, k);
                if (!ref) return std::unexpected(ref.error());
                s.selection = *ref;
            } else if (key == "caption") {
                if (value.type != Type::String) return fail(value, k, "expected a string");
                s.caption = value.string;
            } else if (key == "speed" && demo) {
                if (value.type != Type::Number || value.number < 0.1 || value.number > 10000)
                    return fail(value, k, "expected simulated seconds per second, 0.1..10000");
                s.speed = value.number;
            } else if (key == "actions" && demo) {
                if (value.type != Type::Array)
                    return fail(value, k, "expected a list of scenario actions");
                for (std::size_t i = 0; i < value.array.size(); ++i) {
                    auto ev = parseScenarioEvent(value.array[i], k + "[" + std::to_string(i) + "]",
                                                 file, topology, false);
                    if (!ev) return std::unexpected(ev.error());
                    s.actions.push_back(std::move(*ev));
                }
            } else {
                return fail(value, k,
                            demo ? "unknown key (at, view, frame, camera, azimuth, elevation, "
                                   "flight, layers, metric, select, caption, speed, actions)"
                                 : "unknown key (view, frame, camera, azimuth, elevation, dwell, "
                                   "flight, layers, metric, select, caption)");
            }
        }
        if (placements > 1)
            return fail(item, path, "one of view, frame or camera per step, not several");
        if (!s.camera && (azimuth || elevation))
            return fail(item, path, "azimuth and elevation go with a view, frame or camera");
        if (s.camera && s.camera->kind != StoryCamera::Kind::Explicit) {
            s.camera->azimuthDeg = azimuth;
            s.camera->elevationDeg = elevation;
        } else if (s.camera) {
            if (azimuth) s.camera->azimuthDeg = azimuth;
            if (elevation) s.camera->elevationDeg = elevation;
        }
        if (demo && !item.find("at"))
            return fail(item, path + ".at", R"(missing required key (a time such as "20s"))");
        return s;
    }
};

} // namespace

double Story::simSecondsAt(double t) const {
    double sim = 0, from = 0, rate = speed;
    for (const auto& s : steps) {
        if (s.at >= t) break;
        if (!s.speed) continue;
        sim += (s.at - from) * rate;
        from = s.at;
        rate = *s.speed;
    }
    return sim + (t - from) * rate;
}

const StoryStep* Story::stepAt(double t) const {
    const StoryStep* found = nullptr;
    for (const auto& s : steps)
        if (s.at <= t) found = &s;
    return found;
}

model::Scenario Story::scenario() const {
    model::Scenario out;
    out.name = name;
    out.description = description;
    for (const auto& s : steps)
        for (const auto& a : s.actions)
            out.events.push_back(a);
    std::ranges::stable_sort(out.events, {}, &model::ScenarioEvent::at);
    return out;
}

std::expected<model::EntityRef, std::string> resolveEntity(const model::Topology& t,
                                                           const std::string& text) {
    const auto colon = text.find(':');
    const std::string kindName = text.substr(0, colon == std::string::npos ? 0 : colon);
    const auto kind = model::entityKindFromName(kindName);
    if (colon == std::string::npos || !kind)
        return std::unexpected("expected KIND:NAME (kinds: rack, row, cdu, pump, compute_tray, "
                               "gpu, leaf, spine, power_feed, power_shelf, psu ...), got '" +
                               text + "'");
    const std::string name = text.substr(colon + 1);
    // "B03/7/2": a GPU by its rack, its tray (1 = the top one) and its index in the tray (as
    // dcgm-exporter counts, from 0); "B03/7": a tray.
    if ((*kind == model::EntityKind::Gpu || *kind == model::EntityKind::ComputeTray) &&
        name.find('/') != std::string::npos) {
        const auto first = name.find('/');
        const auto second = name.find('/', first + 1);
        auto number = [](const std::string& v, int lo, int hi) -> std::optional<int> {
            int n = 0;
            const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
            if (ec != std::errc() || p != v.data() + v.size() || n < lo || n > hi)
                return std::nullopt;
            return n;
        };
        const auto& rk = t.spec().rack;
        const auto rack = t.find(model::EntityKind::Rack, name.substr(0, first));
        const auto tray =
            number(name.substr(first + 1, second == std::string::npos ? std::string::npos
                                                                      : second - first - 1),
                   1, rk.computeTrays);
        const bool gpu = *kind == model::EntityKind::Gpu;
        const auto index = gpu && second != std::string::npos
                               ? number(name.substr(second + 1), 0, rk.gpusPerTray - 1)
                               : std::optional<int>(0);
        if (!rack || !tray || !index || gpu != (second != std::string::npos))
            return std::unexpected(
                "no " + std::string(model::entityKindName(*kind)) + " '" + name +
                "' on this floor (" +
                (gpu ? "RACK/TRAY/GPU, e.g. A03/7/2: tray 1.." + std::to_string(rk.computeTrays) +
                           ", GPU 0.." + std::to_string(rk.gpusPerTray - 1)
                     : "RACK/TRAY, e.g. A03/7: tray 1.." + std::to_string(rk.computeTrays)) +
                ")");
        const auto trayId = static_cast<model::EntityId>(*rack * rk.computeTrays + *tray - 1);
        return model::EntityRef{
            *kind, gpu ? static_cast<model::EntityId>(trayId * rk.gpusPerTray + *index) : trayId};
    }
    std::optional<model::EntityId> id = t.find(*kind, name);
    if (!id && *kind == model::EntityKind::Row) id = t.find(*kind, "Row " + name);
    if (!id)
        return std::unexpected("no " + std::string(model::entityKindName(*kind)) + " '" + name +
                               "' on this floor");
    return model::EntityRef{*kind, *id};
}

std::expected<Story, Error> parseStoryFile(std::string_view text, const std::string& file,
                                           const model::Topology& topology,
                                           const std::vector<std::string>& layerIds) {
    auto doc = parseJson(text, file);
    if (!doc) return std::unexpected(doc.error());
    auto fail = [&](const JsonValue& at, const std::string& key, const std::string& message) {
        return std::unexpected(Error{message, file, at.line, at.column, key});
    };
    if (doc->type != Type::Object) return fail(*doc, "", "expected a JSON object at the top level");
    const JsonValue* format = doc->find("format");
    if (!format || format->type != Type::String ||
        (format->string != "floortwin-tour/1" && format->string != "floortwin-demo/1"))
        return fail(format ? *format : *doc, "format",
                    R"(expected "floortwin-tour/1" or "floortwin-demo/1")");
    Story story;
    story.file = file;
    story.kind = format->string == "floortwin-tour/1" ? Story::Kind::Tour : Story::Kind::Demo;
    const bool demo = story.kind == Story::Kind::Demo;
    const Reader reader{file, topology, layerIds, story.kind};
    double defaultFlight = 3, defaultDwell = 20;
    std::optional<double> length;
    const char* listKey = demo ? "steps" : "stops";
    for (const auto& [key, value] : doc->object) {
        if (key == "format" || key == listKey) continue;
        if (key == "name" || key == "description") {
            if (value.type != Type::String) return fail(value, key, "expected a string");
            (key == "name" ? story.name : story.description) = value.string;
        } else if (key == "flight" || (key == "dwell" && !demo) ||
                   (key == "resume_after" && !demo) || (key == "length" && demo)) {
            auto d = reader.duration(value, key);
            if (!d) return std::unexpected(d.error());
            if (key == "flight") defaultFlight = *d;
            if (key == "dwell") defaultDwell = *d;
            if (key == "resume_after") story.resumeAfter = *d;
            if (key == "length") length = *d;
        } else if (key == "speed" && demo) {
            if (value.type != Type::Number || value.number < 0.1 || value.number > 10000)
                return fail(value, key, "expected simulated seconds per second, 0.1..10000");
            story.speed = value.number;
        } else if (key == "replay" && demo) {
            if (value.type != Type::String || value.string.empty())
                return fail(value, key, "expected a recording (FILE.ftrec)");
            story.replay = *storyRecording(text, file);
        } else if (key == "replay_from" && demo) {
            auto d = reader.duration(value, key);
            if (!d) return std::unexpected(d.error());
            story.replayFrom = *d;
        } else {
            return fail(value, key,
                        demo ? "unknown key (format, name, description, speed, flight, length, "
                               "replay, replay_from, steps)"
                             : "unknown key (format, name, description, flight, dwell, "
                               "resume_after, stops)");
        }
    }
    const JsonValue* list = doc->find(listKey);
    if (!list) return fail(*doc, listKey, "missing required key");
    if (list->type != Type::Array || list->array.empty())
        return fail(*list, listKey, demo ? "expected a list of steps" : "expected a list of stops");
    double clock = 0;
    for (std::size_t i = 0; i < list->array.size(); ++i) {
        const JsonValue& item = list->array[i];
        const std::string path = std::string(listKey) + "[" + std::to_string(i) + "]";
        const int index = static_cast<int>(i) + 1;
        // The defaults apply unless the step says otherwise.
        bool rows = false;
        const bool hasFlight = item.type == Type::Object && item.find("flight");
        const bool hasDwell = item.type == Type::Object && item.find("dwell");
        auto step = reader.step(item, path, index, rows);
        if (!step) {
            Error e = step.error();
            e.message = (demo ? "step " : "stop ") + std::to_string(index) + ": " + e.message;
            return std::unexpected(e);
        }
        if (!hasFlight) step->flight = defaultFlight;
        if (!hasDwell) step->dwell = defaultDwell;
        if (demo) {
            if (!story.steps.empty() && step->at < story.steps.back().at)
                return fail(*item.find("at"), path + ".at",
                            "step " + std::to_string(index) + " at " + seconds(step->at) +
                                " comes before step " + std::to_string(story.steps.back().index) +
                                " at " + seconds(story.steps.back().at) +
                                ": steps go in time order");
            story.steps.push_back(std::move(*step));
            continue;
        }
        // Tours: a stop begins when the one before has flown in and dwelt.
        std::vector<StoryStep> expanded;
        if (rows) {
            for (model::EntityId r = 0; r < topology.count(model::EntityKind::Row); ++r) {
                StoryStep one = *step;
                StoryCamera cam;
                cam.kind = StoryCamera::Kind::Frame;
                cam.entities.push_back({model::EntityKind::Row, r});
                cam.azimuthDeg = step->camera ? step->camera->azimuthDeg : std::nullopt;
                cam.elevationDeg = step->camera ? step->camera->elevationDeg : std::nullopt;
                one.camera = cam;
                if (!one.caption) one.caption = topology.name(model::EntityKind::Row, r);
                expanded.push_back(std::move(one));
            }
        } else {
            expanded.push_back(std::move(*step));
        }
        for (auto& one : expanded) {
            one.at = clock;
            clock += one.flight + one.dwell;
            story.steps.push_back(std::move(one));
        }
    }
    if (demo && !story.replay.empty())
        for (std::size_t i = 0; i < story.steps.size(); ++i)
            if (!story.steps[i].actions.empty())
                return fail(*list->array[i].find("actions"),
                            std::string(listKey) + "[" + std::to_string(i) + "].actions",
                            "step " + std::to_string(i + 1) +
                                ": a demo on a recording shows what was recorded: no scenario "
                                "actions");
    if (demo) {
        // The demo's actions happen at the simulated time its steps reach.
        for (auto& s : story.steps)
            for (auto& a : s.actions)
                a.at = model::fromSeconds(story.simSecondsAt(s.at));
        const double last = story.steps.back().at;
        if (length && *length < last)
            return fail(*doc->find("length"), "length",
                        "the story is " + seconds(*length) + " long but a step begins at " +
                            seconds(last));
        story.length = length.value_or(last + 10);
    } else {
        story.length = clock;
        if (story.length <= 0) return fail(*list, listKey, "a tour needs stops that take time");
    }
    if (story.name.empty()) story.name = file;
    return story;
}

} // namespace ft::importers
