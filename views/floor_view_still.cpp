// FloorView's still scene: what does not move is drawn once and its picture (colour and
// depth) kept; frames whose still scene holds draw only the moving pipes over it, or over their
// own last frame, and may restore it with the HUD baked in where no pipe runs.
#include "floor_view.h"
#include "flow_pipes.h"

#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <algorithm>
#include <vtkActor.h>
#include <vtkCamera.h>
#include <vtkDataObject.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkOpenGLState.h>
#include <vtkProp.h>
#include <vtkPropCollection.h>
#include <vtkRenderer.h>
#include <vtkTexture.h>

namespace ft::views {

void FloorView::setReuseStillScene(bool reuse) {
    m_reuseStill = reuse;
    m_stillValid = false;
    update();
}

vtkMTimeType FloorView::stillStamp() const {
    // What the still scene's picture depends on: the camera and every visible prop with its
    // property, mapper and data (a prop's "redraw" time). The renderer's own settings change
    // only with the theme, which drops the picture itself (its time moves with each frame's
    // layer switching). Hidden props draw nothing: their updates do not count.
    vtkMTimeType stamp = m_renderer->GetActiveCamera()->GetMTime();
    vtkMTimeType visible = 0;
    vtkPropCollection* props = m_renderer->GetViewProps();
    vtkCollectionSimpleIterator it;
    props->InitTraversal(it);
    while (vtkProp* prop = props->GetNextProp(it)) {
        if (!prop->GetVisibility()) continue;
        ++visible;
        stamp = std::max({stamp, prop->GetMTime(), prop->GetRedrawMTime()});
        // A texture's image (the racks' per-GPU cells) is not in the redraw time: VTK counts
        // the texture object, not what it shows.
        if (auto* actor = vtkActor::SafeDownCast(prop); actor && actor->GetTexture())
            if (vtkDataObject* image = actor->GetTexture()->GetInputDataObject(0, 0))
                stamp = std::max(stamp, image->GetMTime());
    }
    // A prop hidden leaves the others' times as they were: count the visible ones too.
    return stamp * 1024 + visible % 1024;
}

void FloorView::renderScene(int pw, int ph) {
    // Near and far planes over both layers' props.
    double bounds[6], flows[6];
    m_renderer->ComputeVisiblePropBounds(bounds);
    m_flowRenderer->ComputeVisiblePropBounds(flows);
    if (flows[0] <= flows[1]) {
        if (bounds[0] > bounds[1]) std::copy(flows, flows + 6, bounds);
        for (int i = 0; i < 6; i += 2) {
            bounds[i] = std::min(bounds[i], flows[i]);
            bounds[i + 1] = std::max(bounds[i + 1], flows[i + 1]);
        }
    }
    if (bounds[0] <= bounds[1]) m_renderer->ResetCameraClippingRange(bounds);
    m_flowRenderer->GetActiveCamera()->SetClippingRange(
        m_renderer->GetActiveCamera()->GetClippingRange());

    if (!m_reuseStill || m_stillBroken) {
        // One pass: both layers.
        m_renderer->SetDraw(true);
        m_flowRenderer->SetDraw(true);
        m_stillValid = false;
        m_restoreBaked = false;
        m_renderHolds = Holds::Nothing;
        ++m_stillRenders;
        m_renderWindow->Render();
        return;
    }
    const bool pipes = flowsVisible();
    const vtkMTimeType stamp = stillStamp();
    if (!m_stillValid || stamp != m_stillStamp || pw != m_stillW || ph != m_stillH) {
        // The still scene changed: draw it alone and keep its picture.
        m_restoreBaked = false;
        m_renderer->SetDraw(true);
        m_flowRenderer->SetDraw(false);
        m_renderWindow->Render();
        ++m_stillRenders;
        m_stillValid = keepStill(pw, ph);
        m_stillStamp = stillStamp(); // rendering may touch props (shader rebuilds)
        m_stillW = pw;
        m_stillH = ph;
        m_renderHolds = m_stillValid ? Holds::Still : Holds::Nothing;
        m_heldPipes.reset();
        if (!m_stillValid) {
            m_flowRenderer->SetDraw(true);
            m_renderWindow->Render();
            return;
        }
        if (!pipes) {
            m_flowRenderer->SetDraw(true);
            return; // that frame is the picture: already shown
        }
    }
    // The pipes over the kept picture (restored when the flow layer starts: restoreStill,
    // unless the render framebuffer still holds it and there are no pipes to draw: then this
    // pass only shows it).
    m_renderer->SetDraw(false);
    m_flowRenderer->SetDraw(true);
    m_renderWindow->Render();
    m_renderer->SetDraw(true);
    m_renderHolds = m_restoreBaked ? Holds::Baked : Holds::Still;
    m_heldPipes = pipes ? std::optional(FlowPipes::shapeGeneration()) : std::nullopt;
    m_heldBake = m_hudBakes;
}

bool FloorView::flowsVisible() const {
    vtkPropCollection* props = m_flowRenderer->GetViewProps();
    vtkCollectionSimpleIterator it;
    props->InitTraversal(it);
    while (vtkProp* prop = props->GetNextProp(it))
        if (prop->GetVisibility()) return true;
    return false;
}

bool FloorView::keepStill(int pw, int ph) {
    if (m_kept && m_kept->keep(pw, ph)) {
        ++m_keptGeneration;
        return true;
    }
    m_stillBroken = true; // nothing to copy from, or no depth copy: draw every frame whole
    return false;
}

void FloorView::restoreStill() {
    // Called as the flow layer starts, with VTK's render framebuffer bound for drawing.
    if (!m_stillValid || !m_kept) return;
    const Holds wanted = m_restoreBaked ? Holds::Baked : Holds::Still;
    // Pipes drawn over a bare picture, or the same pipes again over their last frame, leave
    // it as a restore would.
    if (m_renderHolds == wanted && (wanted != Holds::Baked || m_heldBake == m_hudBakes) &&
        (!m_heldPipes || (*m_heldPipes == FlowPipes::shapeGeneration() && flowsVisible())))
        return;
    ++m_stillRestores;
    m_kept->restore(m_restoreBaked ? KeptPicture::Copy::Baked : KeptPicture::Copy::Still);
}

FloorView::Bake FloorView::bakeNow(int pw, int ph) const {
    return {.kept = m_keptGeneration,
            .hudBuild = m_hudBuilds,
            .pipes = FlowPipes::shapeGeneration(),
            .width = pw,
            .height = ph};
}

void FloorView::bakeHud(int pw, int ph) {
    const Bake now = bakeNow(pw, ph);
    if (m_bake == now) return;
    // The tiles the visible pipes may touch, for this camera (the kept picture's), these
    // pipes and this size.
    if (!(m_pipeTilesFor ==
          Bake{.kept = now.kept, .pipes = now.pipes, .width = pw, .height = ph})) {
        updateProjection();
        m_pipeTiles.reset(pw, ph, ImGuiOverlay::kTile);
        if (flowsVisible()) FlowPipes::markTiles(m_flowRenderer, m_projection, pw, ph, m_pipeTiles);
        m_pipeTilesFor = {.kept = now.kept, .pipes = now.pipes, .width = pw, .height = ph};
    }
    vtkOpenGLState* state = m_renderWindow->GetState();
    state->Reset(); // the HUD drew behind VTK's back
    if (m_kept->bake([this] { return m_overlay.redrawLastFrame(&m_pipeTiles, false); })) {
        m_bake = now;
        ++m_hudBakes;
    } else {
        m_bake = {};
    }
    // Back to Qt's framebuffer, as the frame left it.
    auto* gl = context()->functions();
    gl->glBindFramebuffer(GL_FRAMEBUFFER, defaultFramebufferObject());
    gl->glViewport(0, 0, pw, ph);
}

} // namespace ft::views
