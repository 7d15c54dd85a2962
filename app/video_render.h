#pragma once
// Renders a run offscreen, frame by frame at a fixed rate decoupled from wall time: before each
// frame the simulator runs to exactly the frame's time (1/fps x speed on, or as a demo's steps
// set the speed), the story player moves on by exactly 1/fps and the view is drawn. The same
// demo gives the same frames on any machine. Frames go to an H.264 MP4 and/or numbered PNGs.
#include "importers/floor/story_file.h"
#include "session.h"
#include "views/floor_view.h"

#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ft::app {

struct RenderJob {
    std::string videoPath; // OUT.mp4 (empty: none)
    std::string framesDir; // PNGs frame-00001.png ... (empty: none)
    int width = 1280, height = 720, fps = 30;
    double seconds = 0; // 0: the story's length
    double speed = 1;   // without a demo: simulated seconds per video second
    std::optional<importers::Story> story;
    double focusHold = 60;
    model::ChannelId metric = model::ch::GpuTemperature;
    std::vector<std::string> layers; // empty: the layers' defaults
    std::optional<model::EntityRef> selection;
    bool wall = false;
    views::DisplayTheme theme = views::DisplayTheme::Standard;
    views::Palette palette = views::Palette::Turbo;
};

struct RenderResult {
    long long frames = 0;
    double seconds = 0;
};

// The run at `storySeconds` into the story (or into the run, at `speed`, without a demo): the
// simulator runs to that time, a recording is decoded there. The simulator must not be running.
void moveTo(Session& session, const std::optional<importers::Story>& story, double speed,
            double storySeconds);

// `progress` gets 0..1 after each frame and returns false to cancel (the partial video is
// removed). Needs a QApplication and an OpenGL 3.2 context (X or xvfb-run). The session's
// simulator must not be running.
std::expected<RenderResult, std::string>
renderVideo(Session& session, const RenderJob& job,
            const std::function<bool(double)>& progress = {});

} // namespace ft::app
