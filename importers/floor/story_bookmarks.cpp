// Demos made from a replay's bookmarks, and the recording a demo names (story_file.h).
#include "importers/formats/json_document.h"
#include "story_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace ft::importers {

using Type = JsonValue::Type;

std::optional<std::string> storyRecording(std::string_view text, const std::string& file) {
    auto doc = parseJson(text, file);
    if (!doc || doc->type != Type::Object) return std::nullopt;
    const JsonValue* format = doc->find("format");
    const JsonValue* replay = doc->find("replay");
    if (!format || format->type != Type::String || format->string != "floortwin-demo/1" ||
        !replay || replay->type != Type::String || replay->string.empty())
        return std::nullopt;
    const std::filesystem::path path(replay->string);
    if (path.is_absolute() || file.empty() || file.find('/') == std::string::npos)
        return path.string();
    return (std::filesystem::path(file).parent_path() / path).lexically_normal().string();
}

std::string demoFromBookmarks(const std::vector<StoryMark>& given, const std::string& recording,
                              model::TimeNs start, double secondsPerMark) {
    std::vector<StoryMark> marks = given;
    std::ranges::stable_sort(marks, {}, &StoryMark::time);
    auto duration = [](double s) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3fs", std::max(0.0, s));
        return std::string(buf);
    };
    nlohmann::ordered_json demo;
    demo["format"] = "floortwin-demo/1";
    demo["name"] = std::filesystem::path(recording).stem().string() + " — bookmarks";
    demo["description"] = "The bookmarks of " + recording + ", one step each.";
    demo["replay"] = recording;
    demo["replay_from"] = duration(marks.empty() ? 0 : model::toSeconds(marks[0].time - start));
    nlohmann::ordered_json steps = nlohmann::ordered_json::array();
    double at = 0;
    for (std::size_t i = 0; i < marks.size(); ++i) {
        nlohmann::ordered_json step;
        step["at"] = duration(at);
        if (!marks[i].camera.empty()) {
            auto camera = nlohmann::ordered_json::parse(marks[i].camera, nullptr, false);
            if (!camera.is_discarded()) step["camera"] = camera;
        }
        step["caption"] = marks[i].text;
        // Until the next bookmark at a speed that gets there in about secondsPerMark.
        const double gap =
            i + 1 < marks.size() ? model::toSeconds(marks[i + 1].time - marks[i].time) : 0;
        const double speed = std::clamp(gap / secondsPerMark, 1.0, 1000.0);
        step["speed"] = std::round(speed * 100) / 100;
        steps.push_back(step);
        at += i + 1 < marks.size() ? gap / step["speed"].get<double>() : secondsPerMark;
    }
    demo["length"] = duration(at);
    demo["steps"] = steps;
    return demo.dump(2) + "\n";
}

} // namespace ft::importers
