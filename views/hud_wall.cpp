// A wall's HUD: the panels each slice screen keeps, and the labels moved onto it (hud.h's
// WallPlace).
#include "hud_parts.h"

#include <cmath>
#include <imgui.h>
#include <imgui_internal.h>
#include <vector>

namespace ft::views::hud {

namespace {

// A wall's slice screen keeps the panels that stand at its place on the wall: a panel in the
// left third of its screen belongs to the wall's first column, in the right third to its last,
// in the middle to the middle column. Its row is that of the edge its stack hangs from: the
// title and the alarm column from the top, the legends and the events from the bottom (a tall
// stack on a small screen reaches past the middle, and its upper panels still belong to the
// bottom row); a panel in no stack goes by its centre, as the columns do. The others are left
// out of this screen's picture (the labels are drawn on the background list, not in panels).
int wallPart(float centre, float size, int count) {
    if (centre < size / 3) return 0;
    if (centre > 2 * size / 3) return count - 1;
    return (count - 1) / 2;
}

// Each panel's wall row: 0 (top), rows - 1 (bottom), or by its centre.
std::vector<int> wallRows(const std::vector<ScreenRect>& panels, float width, float height,
                          int rows) {
    constexpr float kEdge = 24, kGap = 24; // a stack's panels are 8 px apart, 16 from the edge
    auto stacked = [](const ScreenRect& a, const ScreenRect& b) { // one above the other
        return std::abs(a.x0 - b.x0) < 4 || std::abs(a.x1 - b.x1) < 4;
    };
    std::vector<int> anchor(panels.size(), 0); // -1 top, +1 bottom, 0 none
    for (bool grew = true; grew;) {
        grew = false;
        for (std::size_t i = 0; i < panels.size(); ++i) {
            if (anchor[i] != 0) continue;
            const ScreenRect& r = panels[i];
            int a = r.y0 <= kEdge ? -1 : r.y1 >= height - kEdge ? 1 : 0;
            for (std::size_t j = 0; j < panels.size() && a == 0; ++j) {
                const ScreenRect& o = panels[j];
                if (j == i || anchor[j] == 0 || !stacked(o, r)) continue;
                if (anchor[j] < 0 && r.y0 >= o.y1 - 1 && r.y0 - o.y1 <= kGap) a = -1;
                if (anchor[j] > 0 && r.y1 <= o.y0 + 1 && o.y0 - r.y1 <= kGap) a = 1;
            }
            if (a != 0) {
                anchor[i] = a;
                grew = true;
            }
        }
    }
    std::vector<int> out(panels.size());
    for (std::size_t i = 0; i < panels.size(); ++i)
        out[i] = anchor[i] < 0   ? 0
                 : anchor[i] > 0 ? rows - 1
                                 : wallPart((panels[i].y0 + panels[i].y1) / 2, height, rows);
    return out;
}

bool isPanel(const ImGuiWindow* w) {
    return w->Active && (w->Flags & ImGuiWindowFlags_NoDecoration) != 0 &&
           (w->Flags & ImGuiWindowFlags_Tooltip) == 0;
}

} // namespace

// A panel's wall column: the edge it is drawn from (the title and legends from the left, the
// alarms and events from the right), else its centre.
static int wallColumn(const ScreenRect& r, float width, int cols) {
    constexpr float kEdge = 24;
    const bool left = r.x0 <= kEdge, right = r.x1 >= width - kEdge;
    if (left != right) return left ? 0 : cols - 1;
    return wallPart((r.x0 + r.x1) / 2, width, cols);
}

// Where the panels drawn on a screen stand on the wall (in the wall's pixels).
std::vector<ScreenRect> onWall(const HudInput::WallPlace& place,
                               const std::vector<ScreenRect>& panels, float width, float height) {
    const auto rows = wallRows(panels, width, height, place.rows);
    std::vector<ScreenRect> out;
    for (std::size_t i = 0; i < panels.size(); ++i) {
        const ScreenRect& r = panels[i];
        const float dx = static_cast<float>(wallColumn(r, width, place.cols)) * place.strideX,
                    dy = static_cast<float>(rows[i]) * place.strideY;
        out.push_back({r.x0 + dx, r.y0 + dy, r.x1 + dx, r.y1 + dy});
    }
    return out;
}

void keepWallPanels(const HudInput::WallPlace& place, float width, float height) {
    std::vector<ImGuiWindow*> windows;
    std::vector<ScreenRect> rects;
    for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
        if (isPanel(w)) {
            windows.push_back(w);
            rects.push_back({w->Pos.x, w->Pos.y, w->Pos.x + w->Size.x, w->Pos.y + w->Size.y});
        }
    const auto rows = wallRows(rects, width, height, place.rows);
    for (std::size_t i = 0; i < windows.size(); ++i) {
        const int col = wallColumn(rects[i], width, place.cols);
        if (col != place.col || rows[i] != place.row)
            windows[i]->Hidden = windows[i]->SkipItems = true;
    }
}

// The labels were drawn in the wall's pixels: moved onto this screen.
void labelsOntoScreen(const HudInput::WallPlace& place) {
    ImDrawList* dl = ImGui::GetBackgroundDrawList();
    for (auto& v : dl->VtxBuffer) {
        v.pos.x -= place.offsetX;
        v.pos.y -= place.offsetY;
    }
    for (auto& cmd : dl->CmdBuffer) {
        cmd.ClipRect.x -= place.offsetX;
        cmd.ClipRect.z -= place.offsetX;
        cmd.ClipRect.y -= place.offsetY;
        cmd.ClipRect.w -= place.offsetY;
    }
    dl->PopClipRect(); // after: what it adds keeps the screen's own clip rectangle
}

} // namespace ft::views::hud
