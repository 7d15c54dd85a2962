// The Launcher's switches inside a running window: File > Play demo, Render demo to video, Open
// floor, Open recording, and a replay's fork into a simulation.
#include "check_source.h"
#include "floor_loading.h"
#include "headless_run.h"
#include "importers/floor/floor_file.h"
#include "incident_report.h"
#include "launcher.h"
#include "live_sources.h"
#include "main_window.h"
#include "story_player.h"
#include "video_render.h"
#include "views/floor_view.h"
#include "views/layer_registry.h"
#include "views/timeline_panel.h"

#include <QApplication>
#include <QMessageBox>
#include <QProgressDialog>
#include <QTimer>
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <sys/resource.h>
#include <thread>

namespace ft::app {

ScenarioSource Launcher::demoScenario(const std::string& demo,
                                      std::optional<importers::Story>& story) {
    return [demo, &story](const model::Topology& t) -> std::expected<model::Scenario, std::string> {
        auto s = loadStory(demo, t, views::layerIds());
        if (!s) return std::unexpected(s.error());
        if (s->kind != importers::Story::Kind::Demo)
            return std::unexpected(demo + " is a tour: run it with --tour (View > Tour)");
        story = std::move(*s);
        return story->scenario();
    };
}

std::expected<std::unique_ptr<Session>, std::string>
Launcher::demoSession(Options& o, std::optional<importers::Story>& story, bool live) {
    // A demo made from a replay's bookmarks plays its recording; the others, the simulator.
    const auto recording = storyRecording(o.demo);
    if (!recording) return makeSimSession(o, live, false, demoScenario(o.demo, story));
    auto session = makeReplaySession(*recording);
    if (!session) return session;
    o.replay = *recording;
    auto read = loadStory(o.demo, *(*session)->topology, views::layerIds());
    if (!read) return std::unexpected(read.error());
    if (read->kind != importers::Story::Kind::Demo)
        return std::unexpected(o.demo + " is a tour: run it with View > Tour");
    story = std::move(*read);
    return session;
}

void Launcher::playDemo(const QString& path) {
    Options o = m_options;
    o.demo = path.toStdString();
    o.tour.clear();
    o.scenario.clear();
    o.replay.clear();
    o.sources.clear();
    std::optional<importers::Story> story;
    auto next = demoSession(o, story, true);
    if (!next) {
        QMessageBox::warning(m_window.get(), QObject::tr("Play demo"),
                             QString::fromStdString(next.error()));
        return;
    }
    QTimer::singleShot(
        0, qApp, [this, o, story, fresh = std::shared_ptr<Session>(std::move(*next))]() mutable {
            m_window.reset();
            m_session = std::move(fresh);
            m_options = o;
            m_story = story;
            if (m_session->sim) m_session->sim->start(story->speed);
            m_selection.reset();
            showWindow();
        });
}

void Launcher::renderDemoVideo(const QString& demo, const QString& out) {
    Options o = m_options;
    o.demo = demo.toStdString();
    std::optional<importers::Story> story;
    auto session = demoSession(o, story, false);
    if (!session) {
        QMessageBox::warning(m_window.get(), QObject::tr("Render video"),
                             QString::fromStdString(session.error()));
        return;
    }
    RenderJob job;
    job.videoPath = out.toStdString();
    job.width = 1920;
    job.height = 1080;
    job.story = story;
    job.focusHold = m_focusHold;
    QProgressDialog progress(QObject::tr("Rendering %1…").arg(out), QObject::tr("Cancel"), 0, 1000,
                             m_window.get());
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(0);
    auto result = renderVideo(**session, job, [&progress](double p) {
        progress.setValue(static_cast<int>(p * 1000));
        QCoreApplication::processEvents();
        return !progress.wasCanceled();
    });
    progress.close();
    if (!result && result.error() != "cancelled")
        QMessageBox::warning(m_window.get(), QObject::tr("Render video"),
                             QString::fromStdString(result.error()));
    else if (result)
        QMessageBox::information(m_window.get(), QObject::tr("Render video"),
                                 QObject::tr("Wrote %1: %2 frames, %3 s.")
                                     .arg(out)
                                     .arg(result->frames)
                                     .arg(result->seconds));
}

void Launcher::openFloor(const QString& path) {
    // The same run on the new floor: its sources and options, the floor from the file.
    Options o = m_options;
    o.floor = path.toStdString();
    o.inventory.clear();
    o.scenario.clear(); // a scenario names racks of the old floor
    auto next = makeSimSession(o, true, false);
    if (!next) {
        QMessageBox::warning(m_window.get(), QObject::tr("Open floor"),
                             QString::fromStdString(next.error()));
        return;
    }
    runSimSession(std::move(*next), o);
}

void Launcher::fork(model::TimeNs at, const QString& scenario) {
    if (!m_session || !m_session->replay) return;
    Options o = m_options;
    o.replay = m_session->recordingPath;
    o.forkAt = std::to_string(at / model::kNsPerMs) + "ms";
    o.scenario = scenario.toStdString();
    auto next = makeForkSession(o);
    if (!next) {
        QMessageBox::warning(m_window.get(), QObject::tr("Fork here"),
                             QString::fromStdString(next.error()));
        return;
    }
    runSimSession(std::move(*next), o);
}

void Launcher::runSimSession(std::unique_ptr<Session> next, const Options& o) {
    // After the signal's handlers have returned: the old window is still on the stack here.
    QTimer::singleShot(0, qApp,
                       [this, o, fresh = std::shared_ptr<Session>(std::move(next))]() mutable {
                           m_window.reset();
                           m_session = std::move(fresh);
                           m_options = o;
                           m_session->sim->start(m_session->sources.empty() ? o.speed : 1.0);
                           m_session->startSources();
                           m_selection.reset();
                           showWindow();
                       });
}

void Launcher::openRecording(const QString& path) {
    QProgressDialog progress(QObject::tr("Opening %1…").arg(path), QString(), 0, 0, m_window.get());
    progress.setWindowModality(Qt::WindowModal);
    progress.show();
    QCoreApplication::processEvents();
    auto next = makeReplaySession(path.toStdString());
    progress.close();
    if (!next) {
        QMessageBox::warning(m_window.get(), QObject::tr("Open recording"),
                             QString::fromStdString(next.error()));
        return;
    }
    // After this signal's handlers have returned: the old window is still on the stack here.
    QTimer::singleShot(0, qApp,
                       [this, fresh = std::shared_ptr<Session>(std::move(*next))]() mutable {
                           m_window.reset();
                           m_session = std::move(fresh);
                           m_session->replay->start();
                           m_selection.reset();
                           showWindow();
                       });
}

} // namespace ft::app
