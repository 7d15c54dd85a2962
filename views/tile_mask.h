#pragma once
// TileMask: one flag per square screen tile of a frame (framebuffer pixels, rows counted from
// the top as ImGui counts them). The floor view marks the tiles its moving pipes may touch; the
// HUD's composite is split by it (tiles under pipes every frame, the rest once into the kept
// picture). Plain data; UI thread only.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace ft::views {

struct TileMask {
    int tile = 8; // pixels
    int cols = 0, rows = 0;
    std::vector<std::uint8_t> bits; // cols x rows, row 0 at the top

    void reset(int width, int height, int tileSize) {
        tile = tileSize;
        cols = (width + tile - 1) / tile;
        rows = (height + tile - 1) / tile;
        bits.assign(static_cast<std::size_t>(cols) * static_cast<std::size_t>(rows), 0);
    }
    void markAll() { std::fill(bits.begin(), bits.end(), std::uint8_t{1}); }
    // Marks every tile that meets the box (pixels from the top-left corner; clipped).
    void markBox(float x0, float y0, float x1, float y1) {
        if (!(x1 >= 0 && y1 >= 0 && x0 <= x1 && y0 <= y1) || cols == 0 || rows == 0) return;
        const auto t = static_cast<float>(tile);
        // Clamped before the conversion: a pipe far off screen may land anywhere.
        const auto col = [&](float x) {
            return static_cast<int>(std::clamp(x / t, 0.0f, cols - 1.0f));
        };
        const auto row = [&](float y) {
            return static_cast<int>(std::clamp(y / t, 0.0f, rows - 1.0f));
        };
        if (x0 / t > static_cast<float>(cols) || y0 / t > static_cast<float>(rows)) return;
        const int tx0 = col(x0), ty0 = row(y0), tx1 = col(x1), ty1 = row(y1);
        for (int ty = ty0; ty <= ty1; ++ty)
            for (int tx = tx0; tx <= tx1; ++tx)
                bits[static_cast<std::size_t>(ty) * static_cast<std::size_t>(cols) +
                     static_cast<std::size_t>(tx)] = 1;
    }
};

} // namespace ft::views
