#pragma once
// KeptPicture: copies of VTK's render framebuffer (colour and depth) that the floor view keeps
// between frames. `Still` is the still scene as drawn; `Baked` is the same picture with the HUD
// composited on the tiles that no moving pipe touches, so that a frame where only the pipes'
// bands move copies one picture back and composites the HUD only where pipes run under it.
// Owned by FloorView; UI thread only, with the view's GL context current.
#include <functional>
#include <vtkSmartPointer.h>

class vtkOpenGLFramebufferObject;
class vtkOpenGLRenderWindow;

namespace ft::views {

class KeptPicture {
public:
    enum class Copy { Still, Baked };

    explicit KeptPicture(vtkOpenGLRenderWindow* window);
    ~KeptPicture();
    KeptPicture(const KeptPicture&) = delete;
    KeptPicture& operator=(const KeptPicture&) = delete;

    // The render framebuffer's picture (width x height from the corner) into the still copy.
    // False when it cannot be copied (no framebuffer, multisampled, formats that differ):
    // frames are then drawn whole.
    bool keep(int width, int height);
    // One of the copies into the render framebuffer (the caller's bindings are kept).
    void restore(Copy copy);
    // The still copy into the baked one, then `composite` draws over it (it is bound for
    // drawing, with the viewport set); false when either step fails.
    bool bake(const std::function<bool()>& composite);
    // Frees the GL objects (the context current).
    void release();

private:
    bool ensure(vtkSmartPointer<vtkOpenGLFramebufferObject>& fbo, int width, int height);

    vtkOpenGLRenderWindow* m_window;
    vtkSmartPointer<vtkOpenGLFramebufferObject> m_still, m_baked;
    int m_width = 0, m_height = 0;
};

} // namespace ft::views
