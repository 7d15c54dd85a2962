#include "imgui_overlay.h"

#include <QOpenGLContext>
#include <QOpenGLExtraFunctions>
#include <algorithm>
#include <array>
#include <backends/imgui_impl_opengl3.h>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <imgui.h>
#include <vector>

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

// The composite pass: the HUD texture's texels onto the same pixels of the frame, on the tiles
// the HUD covers. Premultiplied: ImGui's backend blends colour by alpha and alpha as coverage
// (SRC_ALPHA, ONE_MINUS_SRC_ALPHA / ONE, ONE_MINUS_SRC_ALPHA), so over a cleared texture its
// colour holds colour x coverage, and ONE, ONE_MINUS_SRC_ALPHA puts back what drawing straight
// into the frame would have left there.
const char* kCompositeVertex = R"(#version 150
in vec2 a_pixel;
uniform vec2 u_size;
void main() { gl_Position = vec4(a_pixel / u_size * 2.0 - 1.0, 0.0, 1.0); }
)";
const char* kCompositeFragment = R"(#version 150
uniform sampler2D u_hud;
out vec4 o_colour;
void main() { o_colour = texelFetch(u_hud, ivec2(gl_FragCoord.xy), 0); }
)";

GLuint compile(QOpenGLExtraFunctions* gl, GLenum type, const char* source) {
    const GLuint shader = gl->glCreateShader(type);
    gl->glShaderSource(shader, 1, &source, nullptr);
    gl->glCompileShader(shader);
    GLint ok = 0;
    gl->glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        gl->glDeleteShader(shader);
        return 0;
    }
    return shader;
}
} // namespace

struct ImGuiOverlay::Cache {
    GLuint fbo = 0, texture = 0, program = 0, vao = 0, vbo = 0;
    GLint sizeUniform = -1, hudUniform = -1;
    int width = 0, height = 0; // of the texture, in framebuffer pixels
    bool broken = false;       // a set-up step failed: HUDs are drawn straight from now on
    bool valid = false;        // holds the last built HUD
    std::vector<float> quads;  // the covered tiles, as runs along each tile row (triangles)
    std::size_t tiles = 0;
    int cols = 0, rows = 0;
    std::vector<std::uint8_t> covered; // per tile, row 0 at the top
    GLuint maskedVbo = 0;              // the runs a mask chose, for one composite
    std::vector<float> maskedQuads;
    std::size_t composited = 0; // tiles the last composite drew

    bool setUp(QOpenGLExtraFunctions* gl) {
        if (program) return true;
        const GLuint vs = compile(gl, GL_VERTEX_SHADER, kCompositeVertex);
        const GLuint fs = compile(gl, GL_FRAGMENT_SHADER, kCompositeFragment);
        if (!vs || !fs) {
            if (vs) gl->glDeleteShader(vs);
            if (fs) gl->glDeleteShader(fs);
            return false;
        }
        program = gl->glCreateProgram();
        gl->glAttachShader(program, vs);
        gl->glAttachShader(program, fs);
        gl->glBindAttribLocation(program, 0, "a_pixel");
        gl->glLinkProgram(program);
        gl->glDeleteShader(vs);
        gl->glDeleteShader(fs);
        GLint linked = 0;
        gl->glGetProgramiv(program, GL_LINK_STATUS, &linked);
        if (!linked) return false;
        sizeUniform = gl->glGetUniformLocation(program, "u_size");
        hudUniform = gl->glGetUniformLocation(program, "u_hud");
        gl->glGenVertexArrays(1, &vao);
        gl->glGenBuffers(1, &vbo);
        gl->glGenBuffers(1, &maskedVbo);
        return true;
    }

    // A texture of the frame's size, with its framebuffer; the caller restores the bindings.
    bool ensureSize(QOpenGLExtraFunctions* gl, int w, int h) {
        if (fbo && w == width && h == height) return true;
        if (!texture) gl->glGenTextures(1, &texture);
        if (!fbo) gl->glGenFramebuffers(1, &fbo);
        GLint boundTexture = 0;
        gl->glGetIntegerv(GL_TEXTURE_BINDING_2D, &boundTexture);
        gl->glBindTexture(GL_TEXTURE_2D, texture);
        gl->glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
        gl->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        gl->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        gl->glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(boundTexture));
        gl->glBindFramebuffer(GL_FRAMEBUFFER, fbo);
        gl->glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
        const bool complete =
            gl->glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
        width = complete ? w : 0;
        height = complete ? h : 0;
        return complete;
    }

    // The tiles under the HUD's triangles (each clipped to its command's rectangle).
    void cover(const ImDrawData* data) {
        cols = (width + kTile - 1) / kTile;
        rows = (height + kTile - 1) / kTile;
        covered.assign(static_cast<std::size_t>(cols) * static_cast<std::size_t>(rows), 0);
        const ImVec2 origin = data->DisplayPos, scale = data->FramebufferScale;
        for (int l = 0; l < data->CmdListsCount; ++l) {
            const ImDrawList* list = data->CmdLists[l];
            for (const ImDrawCmd& cmd : list->CmdBuffer) {
                if (cmd.UserCallback) continue;
                const float cx0 = (cmd.ClipRect.x - origin.x) * scale.x;
                const float cy0 = (cmd.ClipRect.y - origin.y) * scale.y;
                const float cx1 = (cmd.ClipRect.z - origin.x) * scale.x;
                const float cy1 = (cmd.ClipRect.w - origin.y) * scale.y;
                for (unsigned i = 0; i + 2 < cmd.ElemCount; i += 3) {
                    float x0 = 1e30f, y0 = 1e30f, x1 = -1e30f, y1 = -1e30f;
                    for (unsigned k = 0; k < 3; ++k) {
                        const ImDrawVert& v = list->VtxBuffer[static_cast<int>(
                            cmd.VtxOffset +
                            list->IdxBuffer[static_cast<int>(cmd.IdxOffset + i + k)])];
                        const float x = (v.pos.x - origin.x) * scale.x;
                        const float y = (v.pos.y - origin.y) * scale.y;
                        x0 = std::min(x0, x);
                        y0 = std::min(y0, y);
                        x1 = std::max(x1, x);
                        y1 = std::max(y1, y);
                    }
                    x0 = std::max({x0, cx0, 0.0f});
                    y0 = std::max({y0, cy0, 0.0f});
                    x1 = std::min({x1, cx1, static_cast<float>(width)});
                    y1 = std::min({y1, cy1, static_cast<float>(height)});
                    if (x1 <= x0 || y1 <= y0) continue;
                    // A pixel is drawn when its centre is inside: pad by one for the edges.
                    const int tx0 = std::max(0, static_cast<int>(x0 - 1) / kTile);
                    const int ty0 = std::max(0, static_cast<int>(y0 - 1) / kTile);
                    const int tx1 = std::min(cols - 1, static_cast<int>(x1 + 1) / kTile);
                    const int ty1 = std::min(rows - 1, static_cast<int>(y1 + 1) / kTile);
                    for (int ty = ty0; ty <= ty1; ++ty)
                        std::fill_n(covered.begin() + static_cast<std::ptrdiff_t>(ty) * cols + tx0,
                                    tx1 - tx0 + 1, 1);
                }
            }
        }
        tiles = runs(nullptr, true, quads);
    }

    // The covered tiles (those whose mask mark equals `marked`, with a mask) as runs along
    // each row of tiles, two triangles a run; returns how many tiles they hold.
    std::size_t runs(const TileMask* mask, bool marked, std::vector<float>& out) const {
        out.clear();
        std::size_t count = 0;
        const auto wanted = [&](int tx, int ty) {
            const std::size_t at = static_cast<std::size_t>(ty) * cols + tx;
            return covered[at] && (!mask || (mask->bits[at] != 0) == marked);
        };
        for (int ty = 0; ty < rows; ++ty) {
            // ImGui's rows run down from the top; the framebuffer's run up from the bottom.
            const auto top = static_cast<float>(height - ty * kTile);
            const auto bottom = static_cast<float>(std::max(0, height - (ty + 1) * kTile));
            for (int tx = 0; tx < cols;) {
                if (!wanted(tx, ty)) {
                    ++tx;
                    continue;
                }
                int end = tx;
                while (end < cols && wanted(end, ty))
                    ++end;
                count += static_cast<std::size_t>(end - tx);
                const auto left = static_cast<float>(tx * kTile);
                const auto right = static_cast<float>(std::min(width, end * kTile));
                for (const float f :
                     {left, bottom, right, bottom, right, top, left, bottom, right, top, left, top})
                    out.push_back(f);
                tx = end;
            }
        }
        return count;
    }

    void release(QOpenGLExtraFunctions* gl) {
        if (fbo) gl->glDeleteFramebuffers(1, &fbo);
        if (texture) gl->glDeleteTextures(1, &texture);
        if (vbo) gl->glDeleteBuffers(1, &vbo);
        if (maskedVbo) gl->glDeleteBuffers(1, &maskedVbo);
        if (vao) gl->glDeleteVertexArrays(1, &vao);
        if (program) gl->glDeleteProgram(program);
        *this = Cache{};
    }
};

ImGuiOverlay::ImGuiOverlay() = default;

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
    if (m_cache)
        if (QOpenGLContext* context = QOpenGLContext::currentContext())
            m_cache->release(context->extraFunctions());
    m_cache.reset();
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
    if (m_cache) m_cache->valid = false;
    drawToFrame(ImGui::GetDrawData());
}

bool ImGuiOverlay::cached() const {
    return m_cachedWanted && !(m_cache && m_cache->broken);
}

std::size_t ImGuiOverlay::coveredTiles() const {
    return m_cache && m_cache->valid ? m_cache->tiles : 0;
}

std::size_t ImGuiOverlay::compositedTiles() const {
    return m_cache && m_cache->valid ? m_cache->composited : 0;
}

bool ImGuiOverlay::drawToFrame(ImDrawData* data, const TileMask* mask, bool marked) {
    QOpenGLContext* context = QOpenGLContext::currentContext();
    if (!cached() || !context) {
        if (mask) return false; // only the texture can be drawn in parts
        ImGui_ImplOpenGL3_RenderDrawData(data);
        return true;
    }
    QOpenGLExtraFunctions* gl = context->extraFunctions();
    if (!m_cache) m_cache = std::make_unique<Cache>();
    Cache& c = *m_cache;
    const int w = static_cast<int>(std::lround(data->DisplaySize.x * data->FramebufferScale.x));
    const int h = static_cast<int>(std::lround(data->DisplaySize.y * data->FramebufferScale.y));
    if (w <= 0 || h <= 0) return !mask;
    if (w != c.width || h != c.height) c.valid = false; // the frame was resized since
    if (mask && (!c.valid || mask->tile != kTile || mask->cols != (w + kTile - 1) / kTile ||
                 mask->rows != (h + kTile - 1) / kTile))
        return false;

    GLint drawFbo = 0, readFbo = 0, program = 0, vao = 0, arrayBuffer = 0, activeTexture = 0,
          texture = 0, sampler = 0;
    std::array<GLint, 4> viewport{}, blend{};
    std::array<GLfloat, 4> clear{};
    gl->glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &drawFbo);
    gl->glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &readFbo);
    gl->glGetIntegerv(GL_VIEWPORT, viewport.data());
    gl->glGetFloatv(GL_COLOR_CLEAR_VALUE, clear.data());

    if (!c.valid) {
        // Rasterise the HUD once, into its texture.
        if (!c.setUp(gl) || !c.ensureSize(gl, w, h)) {
            c.broken = true;
            gl->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(drawFbo));
            gl->glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(readFbo));
            ImGui_ImplOpenGL3_RenderDrawData(data);
            return true;
        }
        const GLboolean scissor = gl->glIsEnabled(GL_SCISSOR_TEST);
        gl->glBindFramebuffer(GL_FRAMEBUFFER, c.fbo);
        gl->glViewport(0, 0, w, h);
        gl->glDisable(GL_SCISSOR_TEST);
        gl->glClearColor(0, 0, 0, 0);
        gl->glClear(GL_COLOR_BUFFER_BIT);
        gl->glClearColor(clear[0], clear[1], clear[2], clear[3]);
        if (scissor) gl->glEnable(GL_SCISSOR_TEST);
        ImGui_ImplOpenGL3_RenderDrawData(data);
        c.cover(data);
        gl->glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &arrayBuffer);
        gl->glBindBuffer(GL_ARRAY_BUFFER, c.vbo);
        gl->glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(c.quads.size() * sizeof(float)),
                         c.quads.data(), GL_DYNAMIC_DRAW);
        gl->glBindBuffer(GL_ARRAY_BUFFER, static_cast<GLuint>(arrayBuffer));
        c.valid = true;
        gl->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(drawFbo));
        gl->glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(readFbo));
    }
    const std::vector<float>* quads = &c.quads;
    c.composited = c.tiles;
    if (mask) {
        c.composited = c.runs(mask, marked, c.maskedQuads);
        quads = &c.maskedQuads;
    }
    if (quads->empty()) return true;

    // The composite, leaving the state as it found it.
    gl->glGetIntegerv(GL_CURRENT_PROGRAM, &program);
    gl->glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vao);
    gl->glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &arrayBuffer);
    gl->glGetIntegerv(GL_ACTIVE_TEXTURE, &activeTexture);
    gl->glActiveTexture(GL_TEXTURE0);
    gl->glGetIntegerv(GL_TEXTURE_BINDING_2D, &texture);
    gl->glGetIntegerv(GL_SAMPLER_BINDING, &sampler);
    gl->glGetIntegerv(GL_BLEND_SRC_RGB, &blend[0]);
    gl->glGetIntegerv(GL_BLEND_DST_RGB, &blend[1]);
    gl->glGetIntegerv(GL_BLEND_SRC_ALPHA, &blend[2]);
    gl->glGetIntegerv(GL_BLEND_DST_ALPHA, &blend[3]);
    GLint equationRgb = 0, equationAlpha = 0;
    gl->glGetIntegerv(GL_BLEND_EQUATION_RGB, &equationRgb);
    gl->glGetIntegerv(GL_BLEND_EQUATION_ALPHA, &equationAlpha);
    const GLboolean wasBlend = gl->glIsEnabled(GL_BLEND), wasDepth = gl->glIsEnabled(GL_DEPTH_TEST),
                    wasCull = gl->glIsEnabled(GL_CULL_FACE),
                    wasScissor = gl->glIsEnabled(GL_SCISSOR_TEST);

    gl->glViewport(0, 0, w, h);
    gl->glEnable(GL_BLEND);
    gl->glBlendEquation(GL_FUNC_ADD);
    gl->glBlendFuncSeparate(GL_ONE, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    gl->glDisable(GL_DEPTH_TEST);
    gl->glDisable(GL_CULL_FACE);
    gl->glDisable(GL_SCISSOR_TEST);
    gl->glUseProgram(c.program);
    gl->glUniform2f(c.sizeUniform, static_cast<float>(w), static_cast<float>(h));
    gl->glUniform1i(c.hudUniform, 0);
    gl->glBindTexture(GL_TEXTURE_2D, c.texture);
    gl->glBindSampler(0, 0);
    gl->glBindVertexArray(c.vao);
    if (mask) {
        gl->glBindBuffer(GL_ARRAY_BUFFER, c.maskedVbo);
        gl->glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(quads->size() * sizeof(float)),
                         quads->data(), GL_STREAM_DRAW);
    } else {
        gl->glBindBuffer(GL_ARRAY_BUFFER, c.vbo);
    }
    gl->glEnableVertexAttribArray(0);
    gl->glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
    gl->glDrawArrays(GL_TRIANGLES, 0, static_cast<GLsizei>(quads->size() / 2));

    gl->glBindBuffer(GL_ARRAY_BUFFER, static_cast<GLuint>(arrayBuffer));
    gl->glBindVertexArray(static_cast<GLuint>(vao));
    gl->glBindSampler(0, static_cast<GLuint>(sampler));
    gl->glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(texture));
    gl->glActiveTexture(static_cast<GLenum>(activeTexture));
    gl->glUseProgram(static_cast<GLuint>(program));
    gl->glBlendEquationSeparate(static_cast<GLenum>(equationRgb),
                                static_cast<GLenum>(equationAlpha));
    gl->glBlendFuncSeparate(static_cast<GLenum>(blend[0]), static_cast<GLenum>(blend[1]),
                            static_cast<GLenum>(blend[2]), static_cast<GLenum>(blend[3]));
    const auto restore = [gl](GLenum cap, GLboolean on) {
        if (on)
            gl->glEnable(cap);
        else
            gl->glDisable(cap);
    };
    restore(GL_BLEND, wasBlend);
    restore(GL_DEPTH_TEST, wasDepth);
    restore(GL_CULL_FACE, wasCull);
    restore(GL_SCISSOR_TEST, wasScissor);
    gl->glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
    return true;
}

bool ImGuiOverlay::hasLastFrame() const {
    if (!m_context) return false;
    ImGui::SetCurrentContext(m_context);
    const ImDrawData* data = ImGui::GetDrawData();
    return data && data->Valid;
}

bool ImGuiOverlay::redrawLastFrame(const TileMask* mask, bool marked) {
    if (!hasLastFrame()) return false;
    // The draw lists of the last Render() stay valid until the next NewFrame(); the texture
    // holds them rasterised.
    return drawToFrame(ImGui::GetDrawData(), mask, marked);
}

} // namespace ft::views
