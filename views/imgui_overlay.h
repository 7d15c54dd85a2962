#pragma once
// ImGuiOverlay: a Dear ImGui context drawn over the VTK scene in the same OpenGL context (after
// VTK, inside QOpenGLWidget::paintGL). Owns the context and fonts; UI thread only, with the GL
// context current for initialize(), beginFrame(), endFrame() and shutdown().
struct ImFont;
struct ImGuiContext;

namespace ft::views {

class ImGuiOverlay {
public:
    ImGuiOverlay() = default;
    ~ImGuiOverlay();
    ImGuiOverlay(const ImGuiOverlay&) = delete;
    ImGuiOverlay& operator=(const ImGuiOverlay&) = delete;

    // fontScale: 1 for a desk, larger for a wall display.
    // A wall display at 1080 lines: text this much larger than on a desk.
    static constexpr float kWallScale = 1.84f;
    bool initialize(float fontScale);
    float fontScale() const { return m_fontScale; }
    void shutdown();
    bool initialized() const { return m_context != nullptr; }

    void beginFrame(int width, int height, float devicePixelRatio, float deltaSeconds, float mouseX,
                    float mouseY);
    void endFrame();
    // Draws the last frame's HUD again (what endFrame drew), without building it: for frames
    // whose HUD inputs did not change. False when there is no frame to draw.
    bool redrawLastFrame();
    // Ends a frame without drawing it: ImGui sizes new auto-sized windows over one frame and
    // hides them meanwhile, so single-frame renders (screenshots) prime with one of these.
    void discardFrame();

    ImFont* bodyFont() const { return m_body; }
    ImFont* largeFont() const { return m_large; }
    ImFont* smallFont() const { return m_small; }

private:
    ImGuiContext* m_context = nullptr;
    ImFont* m_body = nullptr;
    ImFont* m_large = nullptr;
    ImFont* m_small = nullptr;
    float m_fontScale = 1.0f;
};

} // namespace ft::views
