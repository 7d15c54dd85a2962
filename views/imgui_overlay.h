#pragma once
// ImGuiOverlay: a Dear ImGui context drawn over the VTK scene in the same OpenGL context (after
// VTK, inside QOpenGLWidget::paintGL). Owns the context and fonts; UI thread only, with the GL
// context current for initialize(), beginFrame(), endFrame() and shutdown().
//
// Each built HUD is rasterised once, into a texture of its own (premultiplied: ImGui's backend
// blends alpha as coverage), and that texture is what reaches the frame, only on the screen
// tiles the HUD covers. A frame that shows the same HUD again composites the texture instead of
// rasterising a few hundred thousand glyph triangles anew: on llvmpipe that was half of a
// 1,778-rack frame.
#include "tile_mask.h"

#include <cstddef>
#include <memory>

struct ImFont;
struct ImGuiContext;
struct ImDrawData;

namespace ft::views {

class ImGuiOverlay {
public:
    ImGuiOverlay();
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
    //
    // With a mask (of kTile tiles over the frame), only the HUD's tiles whose mark equals
    // `marked` are composited from its texture: the floor view composites the tiles under the
    // moving pipes each frame (marked) and the others once into its kept picture (unmarked).
    // False, drawing nothing, when the texture is not in use or the mask is for another size.
    bool redrawLastFrame(const TileMask* mask = nullptr, bool marked = true);
    // Whether redrawLastFrame has a frame to draw (nothing is drawn).
    bool hasLastFrame() const;
    // Ends a frame without drawing it: ImGui sizes new auto-sized windows over one frame and
    // hides them meanwhile, so single-frame renders (screenshots) prime with one of these.
    void discardFrame();

    ImFont* bodyFont() const { return m_body; }
    ImFont* largeFont() const { return m_large; }
    ImFont* smallFont() const { return m_small; }

    // Whether built HUDs go through the texture (on by default; off draws ImGui's lists
    // straight into the frame each time, as before, for comparison and for drivers without
    // framebuffer objects). False after a failed texture set-up too.
    void setCached(bool cached) { m_cachedWanted = cached; }
    bool cached() const;
    // Screen tiles (kTile pixels square) the last HUD covers: what the composite draws, for
    // tests and benchmarks.
    static constexpr int kTile = 32;
    std::size_t coveredTiles() const;
    // Tiles the last composite drew (all covered ones, or those a mask chose).
    std::size_t compositedTiles() const;

private:
    struct Cache;
    bool drawToFrame(ImDrawData* data, const TileMask* mask = nullptr, bool marked = true);
    std::unique_ptr<Cache> m_cache;
    bool m_cachedWanted = true;

    ImGuiContext* m_context = nullptr;
    ImFont* m_body = nullptr;
    ImFont* m_large = nullptr;
    ImFont* m_small = nullptr;
    float m_fontScale = 1.0f;
};

} // namespace ft::views
