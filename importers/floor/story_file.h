#pragma once
// Tours and demos as data. A tour (floortwin-tour/1) is a looping playlist of stops for a NOC
// wall: where the camera goes, which layers and metric show, how long it dwells. A demo
// (floortwin-demo/1) is a story on a clock: timed steps that combine scenario actions, camera
// flights, layer and metric switches, selections, captions and speed changes. Both read into
// one Story of steps on a story clock (seconds from its start), with every name resolved
// against the floor and the layers at hand: an unknown view, entity, layer, metric or action,
// or a time out of order, is an error naming the file, line and step. Pure function over bytes.
#include "importers/formats/error.h"
#include "model/channel_catalog.h"
#include "model/scenario.h"
#include "model/topology.h"

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ft::importers {

// Where a step points the camera.
struct StoryCamera {
    enum class Kind {
        Overview, // the whole floor, as the view opens
        Top,      // straight down on the floor
        Fabric,   // the floor with the rail fabric above it
        Hottest,  // the rack with the hottest GPU when the step begins
        Frame,    // every entity named (a row is its racks, a CDU comes with its racks)
        Explicit, // focus, distance and angles as given
    };
    Kind kind = Kind::Overview;
    std::vector<model::EntityRef> entities; // Frame
    model::Vec3 focus;                      // Explicit
    double distance = 30;                   // Explicit
    // Angles: Explicit always has them; the others keep the view's own unless given.
    std::optional<double> azimuthDeg, elevationDeg;
};

struct StoryStep {
    int line = 0;      // in the file, for messages
    int index = 0;     // the step's (or stop's) number in the file, from 1
    double at = 0;     // seconds from the story's start
    double dwell = 0;  // seconds this step holds after its flight (tours; demos: till the next)
    double flight = 3; // seconds of camera flight into the step
    std::optional<StoryCamera> camera;
    std::optional<std::vector<std::string>> layers; // exactly these show
    std::optional<model::ChannelId> metric;
    bool setSelection = false;
    std::optional<model::EntityRef> selection; // with setSelection: nothing clears it
    std::optional<std::string> caption;        // an empty caption clears the last one
    std::optional<double> speed;               // simulated seconds per story second
    std::vector<model::ScenarioEvent> actions; // demos: at = the sim time of this step
};

struct Story {
    enum class Kind { Tour, Demo };
    Kind kind = Kind::Tour;
    std::string name, description, file;
    std::vector<StoryStep> steps; // by `at`
    double length = 0;            // seconds; a tour loops after it
    double resumeAfter = 30;      // tours: idle seconds after a touch before the tour resumes
    double speed = 1;             // demos: the speed until a step changes it
    // Demos on a recording ("replay": FILE.ftrec, relative to the demo file): the story plays
    // the recording from replayFrom seconds into it, its speeds the replay's; no actions.
    std::string replay;
    double replayFrom = 0;

    // Demos: seconds of simulated time at `storyTime` seconds into the story (the speeds of
    // the steps before it, integrated).
    double simSecondsAt(double storyTime) const;
    // The last step that has begun at `storyTime` (nullptr before the first).
    const StoryStep* stepAt(double storyTime) const;
    // The scenario the demo's actions make (empty for tours), for the simulator to run.
    model::Scenario scenario() const;
};

// `layerIds`: the layers a step may name (views::layerIds()).
std::expected<Story, Error> parseStoryFile(std::string_view text, const std::string& file,
                                           const model::Topology& topology,
                                           const std::vector<std::string>& layerIds);

// The recording a demo plays ("replay", resolved against the file's folder), if it names one;
// read before the floor is known, since the floor is the recording's. Nothing for tours, for
// demos on the simulator and for text that does not parse (parseStoryFile says why).
std::optional<std::string> storyRecording(std::string_view text, const std::string& file);

// A bookmark of a replay, for demoFromBookmarks.
struct StoryMark {
    model::TimeNs time = 0; // recording time
    std::string text;
    std::string camera; // the "camera" object as JSON, or empty
};
// A demo (floortwin-demo/1 text) that plays `recording` through its bookmarks: each bookmark a
// step with its note as the caption and its camera, the replay between two bookmarks sped up
// so that it takes about `secondsPerMark` of the story (1x..1000x).
std::string demoFromBookmarks(const std::vector<StoryMark>& marks, const std::string& recording,
                              model::TimeNs recordingStart, double secondsPerMark = 15);

// "rack:A03", "cdu:CDU A1", "row:B", "leaf:3", "gpu:100" -> an entity of this floor.
std::expected<model::EntityRef, std::string> resolveEntity(const model::Topology& topology,
                                                           const std::string& text);

} // namespace ft::importers
