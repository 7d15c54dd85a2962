#pragma once
// ScreenLabels: the screen space the labels over the scene have taken in one frame. A label
// asks for its box before it is drawn and is skipped when the box overlaps one already placed,
// so labels never pile up — on a 1,778-rack hall as on the demo. Ask in priority order (row
// signs, then layers' labels, then rack and CDU names), after the HUD's panels have claimed
// theirs, so no label is half hidden under a panel. A coarse grid keeps a frame's checks
// near linear. One per frame, UI thread.
#include <algorithm>
#include <cmath>
#include <vector>

namespace ft::views {

class ScreenLabels {
public:
    ScreenLabels(float width, float height)
        : m_cols(cellsFor(width)), m_rows(cellsFor(height)),
          m_cells(static_cast<std::size_t>(m_cols) * static_cast<std::size_t>(m_rows)),
          m_width(width), m_height(height) {}

    // Reserves [x0, x1] x [y0, y1] if it is on screen and free; false: do not draw the label.
    bool place(float x0, float y0, float x1, float y1) {
        if (x1 < 0 || y1 < 0 || x0 > m_width || y0 > m_height) return false;
        const int c0 = cell(x0, m_cols), c1 = cell(x1, m_cols);
        const int r0 = cell(y0, m_rows), r1 = cell(y1, m_rows);
        for (int r = r0; r <= r1; ++r)
            for (int c = c0; c <= c1; ++c)
                for (const std::size_t i : m_cells[index(c, r)]) {
                    const Box& o = m_boxes[i];
                    if (x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1) return false;
                }
        add({x0, y0, x1, y1});
        return true;
    }
    // Takes [x0, x1] x [y0, y1] whatever is there: the HUD's panels, which labels keep clear of.
    void claim(float x0, float y0, float x1, float y1) {
        if (x1 < 0 || y1 < 0 || x0 > m_width || y0 > m_height) return;
        add({x0, y0, x1, y1});
    }
    std::size_t placed() const { return m_boxes.size(); }

private:
    static constexpr float kCell = 96;
    struct Box {
        float x0, y0, x1, y1;
    };
    void add(const Box& b) {
        const std::size_t id = m_boxes.size();
        m_boxes.push_back(b);
        for (int r = cell(b.y0, m_rows); r <= cell(b.y1, m_rows); ++r)
            for (int c = cell(b.x0, m_cols); c <= cell(b.x1, m_cols); ++c)
                m_cells[index(c, r)].push_back(id);
    }
    static int cellsFor(float extent) {
        return std::max(1, static_cast<int>(std::ceil(std::max(extent, 1.0f) / kCell)));
    }
    static int cell(float v, int n) {
        return std::clamp(static_cast<int>(std::floor(v / kCell)), 0, n - 1);
    }
    std::size_t index(int c, int r) const {
        return static_cast<std::size_t>(r) * static_cast<std::size_t>(m_cols) +
               static_cast<std::size_t>(c);
    }
    int m_cols, m_rows;
    std::vector<std::vector<std::size_t>> m_cells;
    std::vector<Box> m_boxes;
    float m_width, m_height;
};

} // namespace ft::views
