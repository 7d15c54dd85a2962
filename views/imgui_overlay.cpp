#include "imgui_overlay.h"

#include <algorithm>
#include <backends/imgui_impl_opengl3.h>
#include <filesystem>
#include <imgui.h>

namespace ft::views {

namespace {
const char* findFont(bool bold) {
    static const char* regular[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                                    "/usr/share/fonts/TTF/DejaVuSans.ttf"};
    static const char* heavy[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
                                  "/usr/share/fonts/TTF/DejaVuSans-Bold.ttf"};
    for (const char* p : bold ? heavy : regular)
        if (std::filesystem::exists(p)) return p;
    return nullptr;
}
} // namespace

ImGuiOverlay::~ImGuiOverlay() {
    shutdown();
}

bool ImGuiOverlay::initialize(float fontScale) {
    m_fontScale = fontScale;
    if (m_context) return true;
    IMGUI_CHECKVERSION();
    m_context = ImGui::CreateContext();
    ImGui::SetCurrentContext(m_context);
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr; // layout is code, not a file in the working directory
    io.LogFilename = nullptr;

    static const ImWchar ranges[] = {0x0020, 0x00FF, 0x0394, 0x0394, 0x03BC, 0x03BC, 0x2013,
                                     0x2014, 0x2022, 0x2022, 0x2026, 0x2026, 0x2190, 0x2193,
                                     0x2264, 0x2265, 0x25B2, 0x25BC, 0};
    ImFontConfig config;
    config.OversampleH = 2;
    if (const char* regular = findFont(false)) {
        m_body = io.Fonts->AddFontFromFileTTF(regular, 17.0f * fontScale, &config, ranges);
        m_small = io.Fonts->AddFontFromFileTTF(regular, 14.0f * fontScale, &config, ranges);
        const char* bold = findFont(true);
        m_large =
            io.Fonts->AddFontFromFileTTF(bold ? bold : regular, 28.0f * fontScale, &config, ranges);
    } else {
        ImFontConfig fallback;
        fallback.SizePixels = 13.0f * fontScale;
        m_body = m_small = m_large = io.Fonts->AddFontDefault(&fallback);
    }

    ImGuiStyle& style = ImGui::GetStyle();
    ImGui::StyleColorsDark(&style);
    style.WindowRounding = 6.0f;
    style.WindowBorderSize = 1.0f;
    style.WindowPadding = ImVec2(14, 10);
    style.Colors[ImGuiCol_WindowBg] = ImVec4(0.05f, 0.07f, 0.10f, 0.82f);
    style.Colors[ImGuiCol_Border] = ImVec4(0.30f, 0.38f, 0.48f, 0.55f);
    style.Colors[ImGuiCol_Text] = ImVec4(0.90f, 0.93f, 0.97f, 1.0f);
    style.Colors[ImGuiCol_TextDisabled] = ImVec4(0.58f, 0.64f, 0.72f, 1.0f);
    // Padding, spacing and rounding grow with the text (a wall is read from metres away).
    if (fontScale > kWallScale) style.ScaleAllSizes(fontScale / kWallScale);
    return ImGui_ImplOpenGL3_Init("#version 150");
}

void ImGuiOverlay::shutdown() {
    if (!m_context) return;
    ImGui::SetCurrentContext(m_context);
    ImGui_ImplOpenGL3_Shutdown();
    ImGui::DestroyContext(m_context);
    m_context = nullptr;
}

void ImGuiOverlay::beginFrame(int width, int height, float dpr, float dt, float mouseX,
                              float mouseY) {
    ImGui::SetCurrentContext(m_context);
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(static_cast<float>(width), static_cast<float>(height));
    io.DisplayFramebufferScale = ImVec2(dpr, dpr);
    io.DeltaTime = dt > 0 ? dt : 1.0f / 60.0f;
    io.MousePos = ImVec2(mouseX, mouseY);
    // Text scales with the view so a small window is not covered by the HUD; the wall mode
    // brings its own larger fonts.
    // A wall's fonts are sized for its screen already (FloorView).
    io.FontGlobalScale =
        m_fontScale > 1.0f ? 1.0f : std::clamp(static_cast<float>(height) / 1000.0f, 0.72f, 1.2f);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
}

void ImGuiOverlay::discardFrame() {
    ImGui::EndFrame();
}

void ImGuiOverlay::endFrame() {
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

bool ImGuiOverlay::redrawLastFrame() {
    if (!m_context) return false;
    ImGui::SetCurrentContext(m_context);
    // The draw lists of the last Render() stay valid until the next NewFrame().
    ImDrawData* data = ImGui::GetDrawData();
    if (!data || !data->Valid) return false;
    ImGui_ImplOpenGL3_RenderDrawData(data);
    return true;
}

} // namespace ft::views
