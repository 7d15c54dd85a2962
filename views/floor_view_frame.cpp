// FloorView's frame: animate, decide what of the last frame can be drawn again (the still scene's
// kept picture, the last HUD, the HUD baked into the picture), render the scene, build or redraw
// the HUD, and keep the frame figures. See docs/ARCHITECTURE.md ("The HUD is kept the same way").
#include "floor_view.h"

#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <algorithm>
#include <numeric>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkOpenGLState.h>

namespace ft::views {

void FloorView::paintGL() {
    if (!m_glReady) return;
    // Until someone moves the camera, the overview follows the widget's shape (docks and
    // layouts settle after the first resize).
    if (!m_cameraSet && (m_fittedFor != size() || panelsMovedSinceFit())) resetCamera();
    const double dpr = devicePixelRatioF();
    const int pw = static_cast<int>(width() * dpr), ph = static_cast<int>(height() * dpr);
    m_renderWindow->SetSize(pw, ph);
    m_renderWindow->SetPosition(0, 0);
    const double now = static_cast<double>(m_clock.nsecsElapsed()) / 1e6;
    const double dt = m_frameStep ? *m_frameStep : (m_lastFrameAt > 0 ? now - m_lastFrameAt : 16.0);
    QElapsedTimer cost;
    cost.start();
    m_lastFrameAt = now;
    animateLayers(dt);

    // The HUD's inputs, and whether the last HUD can be drawn again (decided before the scene:
    // a frame that reuses it may restore the kept picture with that HUD baked in).
    const bool hudShown = m_overlay.initialized() && m_snapshot && m_sceneVisible && m_hudVisible;
    HudInput in;
    HudKey key;
    bool same = false, reuse = false;
    if (hudShown) {
        updateFrameStats(now);
        in = hudInputNow();
        key = hudKeyOf(in, dpr);
    }
    // The same inputs as the last two builds (ImGui sizes auto-sized panels from the frame
    // before, and labels keep clear of the panels the build before drew): draw that HUD again
    // rather than build it, for at most m_hudMaxAgeMs (what the HUD shows of the clock: ages, the
    // frame rate). The key holds every input the HUD draws, so a frame asked for by anything else
    // (an expose, the pipes moving) reuses it whether or not something moves.
    const auto decideReuse = [&] {
        same = hudShown && m_hudSameBuilds > 0 && key == m_hudKey;
        reuse = m_reuseHud && m_animated && same && m_hudSameBuilds >= 2 &&
                now - m_hudBuiltAt < m_hudMaxAgeMs && m_overlay.hasLastFrame();
    };
    decideReuse();
    // The baked picture holds this very HUD over this very still scene and these pipes.
    m_restoreBaked = reuse && m_reuseStill && !m_stillBroken && m_stillValid &&
                     key.scene == m_stillStamp && m_bake == bakeNow(pw, ph);

    vtkOpenGLState* state = m_renderWindow->GetState();
    state->Reset();
    state->Push();
    const int stillRendersBefore = m_stillRenders;
    renderScene(pw, ph); // drops m_restoreBaked when it had to draw the still scene anew
    state->Pop();
    // Drawing the still scene may touch its props (a shader built): the key takes the stamp
    // after it. A frame that restored the baked picture drew no still scene, so its stamp and
    // its decision stand.
    if (hudShown && !m_restoreBaked) {
        key.scene = stillStamp();
        decideReuse();
    }

    // The HUD goes into Qt's framebuffer, over what VTK blitted there.
    auto* gl = context()->functions();
    gl->glBindFramebuffer(GL_FRAMEBUFFER, defaultFramebufferObject());
    gl->glViewport(0, 0, pw, ph);
    m_frameTimes.push_back(dt);
    if (m_frameTimes.size() > 30) m_frameTimes.pop_front();

    m_hudDt += dt;
    // Benchmarks: the scene finished first, so the HUD's own cost (building it, or drawing
    // the last one again, and its rasterising) is timed apart.
    if (m_finishEachFrame) gl->glFinish();
    QElapsedTimer hudCost;
    hudCost.start();
    if (hudShown) {
        // Reused over the baked picture: only the tiles under pipes are composited.
        if (reuse && !m_overlay.redrawLastFrame(m_restoreBaked ? &m_pipeTiles : nullptr, true))
            reuse = false;
        if (!reuse) buildHud(in, std::move(key), same, now, dpr);
        // A HUD that is likely to be shown again over a still scene that held this frame (not
        // while the camera flies): bake it into the kept picture for the frames to come.
        if (m_reuseHud && m_animated && !m_restoreBaked && m_reuseStill && !m_stillBroken &&
            m_stillValid && m_stillRenders == stillRendersBefore && m_overlay.cached())
            bakeHud(pw, ph);
    }
    // What the frame cost: finished, so the figure covers the rasteriser's work too.
    if (m_finishEachFrame || m_showFrameStats) gl->glFinish();
    m_lastHudMs = static_cast<double>(hudCost.nsecsElapsed()) / 1e6;
    m_frameCosts.push_back(static_cast<double>(cost.nsecsElapsed()) / 1e6);
    if (m_frameCosts.size() > 30) m_frameCosts.pop_front();
    emit frameDrawn(m_frameCosts.back());
    // A single frame (a screenshot) whose HUD showed its panels only now: drawn once more,
    // framed beside them.
    if (!m_animated && !m_refitting && panelsMovedSinceFit()) {
        m_refitting = true;
        paintGL();
        m_refitting = false;
        return;
    }
    if (!m_firstFrameSent) {
        m_firstFrameSent = true;
        emit firstFrame();
    }
}

void FloorView::animateLayers(double dt) {
    if (!m_animated) return;
    const double speed = m_transport ? m_transport->speed() : 1.0;
    const bool paused = m_transport && m_transport->paused();
    const bool reverse = m_transport && m_transport->reverse();
    // Played backwards, the flow bands run backwards too.
    const double simSeconds =
        paused ? 0.0 : std::min(dt, 200.0) / 1000.0 * speed * (reverse ? -1.0 : 1.0);
    for (const auto& l : m_layers)
        if (l->visible() && l->animates()) l->animate(simSeconds, dt / 1000.0);
}

void FloorView::updateFrameStats(double now) {
    if (!m_showFrameStats) {
        m_shownFrameMs.reset();
        m_shownRedraws.reset();
    } else if (m_frameCosts.size() > 2 && now - m_shownStatsAt >= 500) {
        std::vector<double> sorted(m_frameCosts.begin(), m_frameCosts.end());
        std::ranges::sort(sorted);
        m_shownFrameMs = sorted[sorted.size() / 2];
        const double span = std::accumulate(m_frameTimes.begin() + 1, m_frameTimes.end(), 0.0);
        m_shownRedraws.reset();
        if (span > 0) m_shownRedraws = 1000.0 * static_cast<double>(m_frameTimes.size() - 1) / span;
        m_shownStatsAt = now;
    }
}

HudInput FloorView::hudInputNow() {
    HudInput in;
    in.topology = m_topology.get();
    in.snapshot = m_snapshot.get();
    in.incidents = incidents();
    in.layers = &m_layers;
    in.summary = &m_summary;
    in.sourceLabel = m_sourceLabel;
    in.speed = m_transport ? m_transport->speed() : 1.0;
    in.paused = m_transport && m_transport->paused();
    in.replay = m_transport && m_transport->isReplay();
    in.reverse = m_transport && m_transport->reverse();
    in.fillModelled = m_fillModelled;
    if (m_wallPlace) {
        // The place's lengths are in screens: in this screen's pixels now.
        auto place = *m_wallPlace;
        const auto w = static_cast<float>(width()), h = static_cast<float>(height());
        place.offsetX *= w;
        place.wallWidth *= w;
        place.strideX *= w;
        place.offsetY *= h;
        place.wallHeight *= h;
        place.strideY *= h;
        in.wallPlace = place;
    }
    in.frameMs = m_shownFrameMs;
    in.redrawsPerSecond = m_shownRedraws;
    in.dimScene = m_theme == DisplayTheme::Dim ? 0.3f : 0.0f;
    in.hudAlpha = m_theme == DisplayTheme::Dim ? 0.82f : 1.0f;
    in.panelAlpha = m_theme == DisplayTheme::Bright ? 0.94f : 0.82f;
    in.caption = m_caption;
    in.warning = m_warning;
    in.focus = m_focus;
    in.panels = &m_panels;
    in.sourcesArea = &m_sourcesArea;
    in.hover = m_hover;
    in.selection = m_selection;
    in.width = static_cast<float>(width());
    in.height = static_cast<float>(height());
    in.cameraDistance = m_rig.distance;
    in.wall = m_wall;
    in.wallScale = m_hudScale / ImGuiOverlay::kWallScale;
    if (m_sourceStatus) in.sources = m_sourceStatus();
    return in;
}

FloorView::HudKey FloorView::hudKeyOf(const HudInput& in, double dpr) const {
    HudKey key{.generation = m_hudGeneration,
               .layersShown = {},
               .scene = stillStamp(),
               .width = width(),
               .height = height(),
               .dpr = dpr,
               .mouse = m_mouse,
               .hover = in.hover,
               .selection = in.selection,
               .sourceLabel = in.sourceLabel,
               .caption = in.caption,
               .warning = in.warning,
               .focus = in.focus,
               .sources = in.sources,
               .speed = in.speed,
               .paused = in.paused,
               .replay = in.replay,
               .reverse = in.reverse,
               .fillModelled = in.fillModelled,
               .wall = in.wall,
               .frameMs = in.frameMs,
               .redrawsPerSecond = in.redrawsPerSecond,
               .theme = m_theme,
               .hudScale = m_hudScale,
               .panels = m_panels};
    key.layersShown.reserve(m_layers.size());
    for (const auto& l : m_layers)
        key.layersShown.push_back(l->visible());
    return key;
}

void FloorView::buildHud(HudInput& in, HudKey key, bool same, double now, double dpr) {
    updateProjection();
    in.project = [this](const model::Vec3& p) { return project(p); };
    const auto mx = static_cast<float>(m_mouse.x()), my = static_cast<float>(m_mouse.y());
    if (!m_animated) {
        // A repeatable single frame: let ImGui measure its windows first, until the panels
        // (which the labels keep clear of) stand where the last measure left them.
        for (int pass = 0; pass < 3; ++pass) {
            const std::vector<ScreenRect> before = m_panels;
            m_overlay.beginFrame(width(), height(), static_cast<float>(dpr), 0.0f, mx, my);
            drawHud(m_overlay, in);
            m_overlay.discardFrame();
            if (pass > 0 && m_panels == before) break;
        }
    }
    m_overlay.beginFrame(width(), height(), static_cast<float>(dpr),
                         static_cast<float>(std::min(m_hudDt, 1000.0) / 1000.0), mx, my);
    drawHud(m_overlay, in);
    m_overlay.endFrame();
    m_hudSameBuilds = same ? m_hudSameBuilds + 1 : 1;
    m_hudKey = std::move(key);
    m_hudBuiltAt = now;
    m_hudDt = 0;
    ++m_hudBuilds;
}

} // namespace ft::views
