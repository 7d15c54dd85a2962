#include "kept_picture.h"

#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <vtkOpenGLFramebufferObject.h>
#include <vtkOpenGLRenderWindow.h>
#include <vtkOpenGLState.h>

namespace ft::views {

namespace {
// Colour and depth of `from` into `to` (w x h from the corner); the caller keeps the bindings.
void copyPicture(vtkOpenGLFramebufferObject* from, vtkOpenGLFramebufferObject* to, int w, int h) {
    from->Bind(GL_READ_FRAMEBUFFER);
    from->ActivateReadBuffer(0);
    to->Bind(GL_DRAW_FRAMEBUFFER);
    to->ActivateDrawBuffer(0);
    const int ext[4] = {0, w, 0, h};
    vtkOpenGLFramebufferObject::Blit(ext, ext, GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT,
                                     GL_NEAREST);
}

QOpenGLFunctions* gl() {
    return QOpenGLContext::currentContext()->functions();
}
} // namespace

KeptPicture::KeptPicture(vtkOpenGLRenderWindow* window) : m_window(window) {}

KeptPicture::~KeptPicture() = default;

void KeptPicture::release() {
    for (auto* fbo : {m_still.Get(), m_baked.Get()})
        if (fbo) fbo->ReleaseGraphicsResources(m_window);
    m_still = m_baked = nullptr;
    m_width = m_height = 0;
}

bool KeptPicture::ensure(vtkSmartPointer<vtkOpenGLFramebufferObject>& fbo, int w, int h) {
    if (!fbo) {
        fbo = vtkSmartPointer<vtkOpenGLFramebufferObject>::New();
        fbo->SetContext(m_window);
    }
    int size[2] = {0, 0};
    fbo->GetLastSize(size);
    if (size[0] == w && size[1] == h && fbo->GetFBOIndex()) return true;
    fbo->ReleaseGraphicsResources(m_window);
    fbo->SetContext(m_window);
    fbo->SaveCurrentBindingsAndBuffers();
    // The attachments VTK gives its own render framebuffer, so that depth can be copied.
    const bool made = fbo->PopulateFramebuffer(w, h, true, 1, VTK_UNSIGNED_CHAR, true, 32, 0,
                                               m_window->GetStencilCapable() != 0);
    fbo->RestorePreviousBindingsAndBuffers();
    return made;
}

bool KeptPicture::keep(int w, int h) {
    vtkOpenGLFramebufferObject* render = m_window->GetRenderFramebuffer();
    if (!render || render->GetMultiSamples() > 1) return false; // nothing to copy from
    vtkOpenGLState* state = m_window->GetState();
    state->PushFramebufferBindings();
    if (!ensure(m_still, w, h)) {
        state->PopFramebufferBindings();
        return false;
    }
    while (gl()->glGetError() != GL_NO_ERROR) {
    }
    copyPicture(render, m_still, w, h);
    const bool ok = gl()->glGetError() == GL_NO_ERROR;
    state->PopFramebufferBindings();
    m_width = ok ? w : 0;
    m_height = ok ? h : 0;
    return ok;
}

void KeptPicture::restore(Copy copy) {
    vtkOpenGLFramebufferObject* from = copy == Copy::Baked ? m_baked.Get() : m_still.Get();
    if (!from || m_width == 0) return;
    vtkOpenGLState* state = m_window->GetState();
    state->PushFramebufferBindings();
    copyPicture(from, m_window->GetRenderFramebuffer(), m_width, m_height);
    state->PopFramebufferBindings();
}

bool KeptPicture::bake(const std::function<bool()>& composite) {
    if (!m_still || m_width == 0) return false;
    vtkOpenGLState* state = m_window->GetState();
    state->PushFramebufferBindings();
    bool ok = ensure(m_baked, m_width, m_height);
    if (ok) {
        while (gl()->glGetError() != GL_NO_ERROR) {
        }
        copyPicture(m_still, m_baked, m_width, m_height);
        m_baked->Bind(GL_FRAMEBUFFER);
        m_baked->ActivateDrawBuffer(0);
        gl()->glViewport(0, 0, m_width, m_height);
        ok = gl()->glGetError() == GL_NO_ERROR && composite();
    }
    state->PopFramebufferBindings();
    return ok;
}

} // namespace ft::views
