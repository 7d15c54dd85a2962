#include "incident_report.h"

#include "views/alarm_causes.h"
#include "views/floor_view.h"
#include "views/hud.h"

#include <QCoreApplication>
#include <QDir>
#include <QImage>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace ft::app {

namespace {

// A bookmark's camera ({"focus": [x, y, z], "distance", "azimuth", "elevation"}), if it has one.
std::optional<views::CameraRig> cameraOf(const std::string& json) {
    if (json.empty()) return std::nullopt;
    const auto j = nlohmann::json::parse(json, nullptr, false);
    if (j.is_discarded() || !j.contains("focus") || !j["focus"].is_array() ||
        j["focus"].size() != 3 || !j.contains("distance"))
        return std::nullopt;
    views::CameraRig rig;
    rig.focus = {j["focus"][0].get<float>(), j["focus"][1].get<float>(),
                 j["focus"][2].get<float>()};
    rig.distance = j["distance"].get<double>();
    rig.azimuthDeg = j.value("azimuth", rig.azimuthDeg);
    rig.elevationDeg = j.value("elevation", rig.elevationDeg);
    return rig;
}

std::string clock(model::TimeNs t) {
    return model::formatUtc(t).substr(11, 8);
}

std::string offset(model::TimeNs t) {
    const auto s = static_cast<long long>(model::toSeconds(t));
    char buf[32];
    std::snprintf(buf, sizeof buf, "+%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
    return buf;
}

} // namespace

std::expected<ReportResult, std::string>
writeIncidentReport(Session& session, const std::string& dir, int width, int height) {
    if (!session.replay) return std::unexpected("an incident report is made from a replay");
    auto& replay = *session.replay;
    auto& reader = replay.reader();
    const auto marks = reader.bookmarks();
    if (marks.empty())
        return std::unexpected(session.recordingPath +
                               ": no bookmarks to report (B in a replay adds one)");
    if (!QDir().mkpath(QString::fromStdString(dir))) return std::unexpected("cannot create " + dir);

    views::FloorView view(session.topology, [&replay] { return replay.latest(); });
    view.setShowFrameStats(false);
    view.setAnimated(false);
    view.setSourceLabel(session.sourceLabel);
    view.setTransport(&replay);
    view.setAttribute(Qt::WA_DontShowOnScreen, true);
    view.setMinimumSize(16, 16);
    view.resize(width, height);
    view.show();
    QCoreApplication::processEvents();

    const auto& t = *session.topology;
    const auto& info = reader.info();
    std::string md;
    const std::string name = std::filesystem::path(session.recordingPath).filename().string();
    md += "# Incident report: " + name + "\n\n";
    md += "- Recording: `" + session.recordingPath + "` (" + info.source + ")\n";
    md += "- Floor: " + t.spec().name + " — " + std::to_string(t.count(model::EntityKind::Rack)) +
          " racks, " + std::to_string(t.count(model::EntityKind::Gpu)) + " GPUs\n";
    if (!info.scenario.empty()) md += "- Scenario: " + info.scenario + "\n";
    md += "- Covers " + model::formatUtc(replay.beginTime()) + " to " +
          model::formatUtc(replay.endTime()) + "\n\n";
    md += "## Moments\n\n| time | into the recording | note |\n| --- | --- | --- |\n";
    for (const auto& b : marks)
        md += "| " + clock(b.time) + " | " + offset(b.time - replay.beginTime()) + " | " + b.text +
              " |\n";
    md += "\n";

    const model::TimeNs was = replay.position(); // the report does not move the user's replay
    int n = 0;
    for (const auto& b : marks) {
        ++n;
        replay.seek(b.time);
        replay.renderNow();
        view.refreshSnapshot();
        if (auto rig = cameraOf(b.camera))
            view.setCamera(*rig);
        else
            view.resetCamera();
        const QImage image = view.grabFramebuffer();
        char file[32];
        std::snprintf(file, sizeof file, "moment-%02d.png", n);
        if (image.isNull() ||
            !image.save(QString::fromStdString((std::filesystem::path(dir) / file).string())))
            return std::unexpected("cannot render or write " + std::string(file) +
                                   " (no OpenGL 3.2 context? run under X or xvfb-run)");
        const auto s = replay.latest();
        md += "## " + clock(b.time) + " — " + b.text + "\n\n";
        md += "![" + b.text + "](" + file + ")\n\n";
        const auto causes = views::groupAlarms(t, s->alarms);
        if (causes.empty()) {
            md += "No alarms stood.\n\n";
        } else {
            md += "Alarms standing (" + std::to_string(s->alarms.size()) + "):\n\n";
            for (const auto& c : causes) {
                const auto& a = *c.worst;
                md += std::string("- **") +
                      (a.severity == model::Severity::Critical ? "CRITICAL" : "warning") + "** " +
                      std::string(a.title) + " — " +
                      (c.count == 1 ? t.name(a.kind, a.entity)
                                    : std::to_string(c.count) + " " +
                                          std::string(model::entityKindName(a.kind)) + "s (" +
                                          c.where + ")");
                if (!model::kChannels[a.channel].unit.empty())
                    md += ", " + views::formatValue(a.value, a.channel) + " (limit " +
                          views::formatValue(a.threshold, a.channel) + ")";
                md += ", since " + clock(a.since) + "\n";
            }
            md += "\n";
        }
        std::string events;
        for (const auto& e : reader.events())
            if (e.time <= b.time && e.time > b.time - 60 * model::kNsPerSecond &&
                e.kind != model::EventKind::AlarmCleared)
                events += "- " + clock(e.time) + " " + e.text + "\n";
        if (!events.empty()) md += "In the minute before:\n\n" + events + "\n";
    }
    replay.seek(was);
    const std::string path = (std::filesystem::path(dir) / "report.md").string();
    std::ofstream out(path, std::ios::binary);
    out << md;
    if (!out) return std::unexpected("cannot write " + path);
    return ReportResult{path, n};
}

} // namespace ft::app
