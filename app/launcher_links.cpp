// The Launcher's links: registering the floortwin: scheme with the desktop, handing a link to
// the twin that already runs, and opening one in the running window.
#include "launcher.h"
#include "link_server.h"
#include "main_window.h"
#include "story_player.h"
#include "views/floor_view.h"
#include "views/layer_registry.h"
#include "wall_group.h"

#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTimer>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace ft::app {

namespace {

std::string samePath(const std::string& path) {
    std::error_code ec;
    auto canonical = std::filesystem::weakly_canonical(path, ec);
    return ec ? path : canonical.string();
}

// The XDG data and config homes ($XDG_DATA_HOME, else ~/.local/share; $XDG_CONFIG_HOME, else
// ~/.config).
std::filesystem::path xdgHome(const char* variable, const char* fallback) {
    if (const char* v = std::getenv(variable); v && *v) return v;
    const char* home = std::getenv("HOME");
    return std::filesystem::path(home ? home : ".") / fallback;
}

// The program in a desktop entry's Exec: as it is where it needs no quoting (xdg-open's own
// reader of the entry does not unquote), else quoted as the Desktop Entry spec says.
std::string execField(const std::string& path) {
    if (path.find_first_of(" \t\n\"'\\><~|&;$*?#()`") == std::string::npos) return path;
    std::string quoted = "\"";
    for (const char c : path) {
        if (c == '"' || c == '`' || c == '$' || c == '\\') quoted += '\\';
        quoted += c;
    }
    return quoted + "\"";
}

// The authority (host:port) of a source target or inventory URL, empty for a file.
std::string authorityOf(const std::string& target) {
    const auto scheme = target.find("://");
    if (scheme == std::string::npos) return {};
    const auto start = scheme + 3;
    return target.substr(start, target.find_first_of("/?#", start) - start);
}

// A server a link names that the twin's own command line did not: its credentials stay home.
std::optional<std::string> unknownServer(const ViewLink& link, const Options& started) {
    std::vector<std::string> known, named;
    known.reserve(started.sources.size() + 1);
    named.reserve(link.sources.size() + 1);
    for (const auto& s : started.sources)
        known.push_back(authorityOf(withoutCredentials(s)));
    known.push_back(authorityOf(started.inventory));
    for (const auto& s : link.sources)
        named.push_back(authorityOf(s));
    named.push_back(authorityOf(link.inventory));
    for (const auto& a : named)
        if (!a.empty() && std::ranges::find(known, a) == known.end()) return a;
    return std::nullopt;
}

} // namespace

bool Launcher::linksRegistered() {
    // This user's own entry, if it still names a program that is there; else one installed
    // for everyone (make install, a package) that mimeapps.list or the system defaults pick.
    const auto own =
        xdgHome("XDG_DATA_HOME", ".local/share") / "applications" / "floortwin.desktop";
    if (std::ifstream in(own); in) {
        for (std::string line; std::getline(in, line);)
            if (line.starts_with("Exec=")) {
                std::string program = line.substr(5, line.rfind(" %u") - 5);
                if (program.size() > 1 && program.front() == '"')
                    program = program.substr(1, program.size() - 2);
                if (program.find('/') == std::string::npos)
                    return !QStandardPaths::findExecutable(QString::fromStdString(program))
                                .isEmpty();
                return std::filesystem::exists(program);
            }
        return false;
    }
    const char* dirs = std::getenv("XDG_DATA_DIRS");
    std::stringstream list(dirs && *dirs ? dirs : "/usr/local/share:/usr/share");
    for (std::string dir; std::getline(list, dir, ':');)
        if (std::filesystem::exists(std::filesystem::path(dir) / "applications" /
                                    "floortwin.desktop"))
            return true;
    return false;
}

int Launcher::registerLinks(bool quiet) {
    // The desktop entry names this very program, so that the build a user runs is the one
    // that links open.
    std::error_code ec;
    auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) self = std::filesystem::absolute(m_argv[0]);
    const auto apps = xdgHome("XDG_DATA_HOME", ".local/share") / "applications";
    std::filesystem::create_directories(apps, ec);
    const auto desktop = apps / "floortwin.desktop";
    {
        std::ofstream out(desktop);
        out << "[Desktop Entry]\n"
               "Type=Application\n"
               "Name=floortwin\n"
               "GenericName=GPU floor digital twin\n"
               "Comment=Open floortwin:// links in the twin\n"
               "Exec="
            << execField(self.string())
            << " %u\n"
               "Terminal=false\n"
               "NoDisplay=false\n"
               "Categories=System;Monitor;\n"
               "MimeType=x-scheme-handler/floortwin;\n";
        if (!out) {
            std::cerr << "floortwin: cannot write " << desktop << "\n";
            return 1;
        }
    }
    // The scheme's default handler, in the user's mimeapps.list (what xdg-mime default writes;
    // written here too where xdg-utils is not installed).
    const auto config = xdgHome("XDG_CONFIG_HOME", ".config");
    std::filesystem::create_directories(config, ec);
    const auto list = config / "mimeapps.list";
    std::vector<std::string> lines;
    {
        std::ifstream in(list);
        for (std::string line; std::getline(in, line);)
            if (!line.starts_with("x-scheme-handler/floortwin=")) lines.push_back(line);
    }
    auto section = std::ranges::find(lines, "[Default Applications]");
    if (section == lines.end()) {
        lines.emplace_back("[Default Applications]");
        section = std::prev(lines.end());
    }
    lines.insert(std::next(section), "x-scheme-handler/floortwin=floortwin.desktop");
    {
        // Written beside and renamed over: a desktop reading it never sees half a file.
        const auto fresh = list.string() + ".floortwin-new";
        std::ofstream out(fresh);
        for (const auto& line : lines)
            out << line << "\n";
        out.close();
        if (!out || (std::filesystem::rename(fresh, list, ec), ec)) {
            std::cerr << "floortwin: cannot write " << list << "\n";
            return 1;
        }
    }
    // Desktops cache the entries; refresh the cache where the tool is there.
    if (!QStandardPaths::findExecutable("update-desktop-database").isEmpty())
        QProcess::execute("update-desktop-database", {QString::fromStdString(apps.string())});
    std::cout << "registered floortwin:// links: " << desktop.string() << " (runs " << self.string()
              << "), default handler in " << list.string() << "\n";
    return 0;
}

bool Launcher::forwardLink() {
    const Options& o = m_options;
    const bool window = !o.headless && o.screenshot.empty() && o.renderVideo.empty() &&
                        o.renderFrames.empty() && o.report.empty() && !o.firstFrameMs;
    if (!o.link || o.newWindow || !window) return false;
    QCoreApplication app(m_argc, m_argv);
    auto answer = LinkServer::send(o.linkText, 500);
    if (!answer) return false; // no twin runs here: this launch opens it
    std::cout << "floortwin: the running twin opened the link\n";
    for (const auto& note : *answer)
        std::cerr << "floortwin: link: " << note << "\n";
    return true;
}

void Launcher::reportLinkNotes(const std::vector<std::string>& notes) {
    for (const auto& note : notes)
        std::cerr << "floortwin: link: " << note << "\n";
    if (!m_window || notes.empty()) return;
    std::string text = "Link: could not follow ";
    for (std::size_t i = 0; i < notes.size(); ++i)
        text += (i ? "; " : "") + notes[i];
    m_window->showNotice(QString::fromStdString(text), 30000);
    // Said on the view too, where a wall shows no status line.
    if (!m_window->storyPlayer()) {
        m_window->floorView()->setCaption(text);
        QTimer::singleShot(15000, m_window.get(), [view = m_window->floorView(), text] {
            if (view->caption() == text) view->setCaption({});
        });
    }
}

std::vector<std::string> Launcher::openLink(const std::string& text, bool fromWall) {
    std::vector<std::string> notes;
    auto link = parseViewLink(text, views::layerIds());
    if (!link) {
        notes.push_back(link.error());
        reportLinkNotes(notes);
        return notes;
    }
    // The rest of the wall opens it too (each screen its own recording or sources).
    if (m_wall && !fromWall) m_wall->sendLink(text);
    if (!m_session) return notes;
    Session& current = *m_session;
    std::optional<std::expected<std::unique_ptr<Session>, std::string>> next;
    Options o = m_options;
    if (!link->replay.empty()) {
        const bool same =
            current.replay && samePath(current.recordingPath) == samePath(link->replay);
        if (!same) {
            o.replay = link->replay;
            next = makeReplaySession(link->replay);
        }
    } else if (link->namesRun()) {
        auto sameFile = [](const std::string& a, const std::string& b) {
            return a == b || (!a.empty() && !b.empty() && !a.starts_with("generate:") &&
                              samePath(a) == samePath(b));
        };
        const bool same = !current.replay && sameFile(link->floor, current.floorPath) &&
                          sameFile(link->inventory, current.inventoryPath) &&
                          link->sources == current.sourceSpecs;
        if (!same) {
            o.replay.clear();
            o.scenario.clear();
            o.floor = link->floor;
            o.inventory = link->inventory;
            o.sources = link->sources;
            // This twin's credentials go only where it was told to send them: a link naming
            // another server gets none (and no TLS exemption).
            if (auto stranger = unknownServer(*link, m_startOptions)) {
                o.tokenFile.clear();
                o.user.clear();
                o.passwordFile.clear();
                o.insecure = false;
                notes.push_back("credentials not sent to " + *stranger +
                                " (not a server this twin was started with)");
            }
            next = makeSimSession(o, true, false);
        }
    }
    // A window's menu or dialog is open (a nested event loop runs in the window): the run is
    // switched once it closes.
    if (next && *next && (QApplication::activePopupWidget() || QApplication::activeModalWidget())) {
        QTimer::singleShot(500, qApp, [this, text, fromWall] { openLink(text, fromWall); });
        notes.emplace_back("opened once the window's open menu or dialog closes");
        return notes;
    }
    if (next && !*next) {
        notes.push_back((*next).error() + " (kept what was open)");
    } else if (next) {
        // A new run: the window and its session are replaced (this is called from a socket or
        // the wall, never from inside the window).
        if (m_window) m_window->stopStory();
        m_window.reset();
        m_session = std::move(**next);
        m_options = o;
        m_selection.reset();
        m_camera.reset();
        if (m_session->replay)
            m_session->replay->start();
        else
            m_session->sim->start(m_session->sources.empty() ? o.speed : 1.0);
        m_session->startSources();
        showWindow();
    }
    applyLinkView(*link, notes);
    // A line per link opened: what the twin shows now (an audit trail of who moved the wall).
    if (m_window) {
        const auto* view = m_window->floorView();
        const auto snap = view->snapshot();
        std::cerr << "floortwin: link opened" << (fromWall ? " (from the wall)" : "") << ": at "
                  << (snap ? model::formatUtc(snap->time, true) : std::string("?"))
                  << (view->selection()
                          ? ", selection " + selectText(view->topology(), *view->selection())
                          : std::string())
                  << (notes.empty() ? std::string()
                                    : "; " + std::to_string(notes.size()) + " part(s) not followed")
                  << std::endl;
    }
    reportLinkNotes(notes);
    return notes;
}

void Launcher::applyLinkView(const ViewLink& link, std::vector<std::string>& notes) {
    if (!m_window || !m_session) return;
    Session& s = *m_session;
    views::FloorView& view = *m_window->floorView();
    auto& transport = s.transport();
    if (link.speed) {
        transport.setSpeed(*link.speed);
        transport.setPaused(false);
    }
    if (link.at) {
        if (s.replay) {
            const auto begin = s.replay->beginTime(), end = s.replay->endTime();
            const auto t = link.at->sinceStart ? begin + link.at->value : link.at->value;
            if (t < begin || t > end) {
                notes.push_back("at " + model::formatUtc(t) + " is outside the recording (" +
                                model::formatUtc(begin) + " to " + model::formatUtc(end) + ")");
            } else {
                // The moment asked for stays on screen, unless the link plays at a speed.
                s.replay->setPaused(!link.speed);
                s.replay->seek(t);
                s.replay->renderNow();
                view.refreshSnapshot();
            }
        } else {
            notes.push_back(std::string("at: ") +
                            (s.sources.empty() ? "a running simulation cannot go back in time"
                                               : "a live floor shows the present") +
                            "; a moment is opened in a replay");
        }
    }
    if (link.layers)
        for (const auto& layer : view.layers())
            view.setLayerVisible(layer->id(), std::ranges::find(*link.layers, layer->id()) !=
                                                  link.layers->end());
    if (!link.metric.empty())
        if (auto channel = model::findChannel(link.metric)) m_window->setMetric(*channel);
    if (!link.select.empty()) {
        if (auto ref = importers::resolveEntity(*s.topology, link.select)) {
            view.setSelection(*ref);
            if (!link.camera) view.frameSelection();
        } else {
            notes.push_back("select: " + ref.error());
        }
    }
    if (link.camera) view.setCamera(rigOf(*link.camera, view.camera()));
    // A person (or a ticket) asked for this view: a tour must not fly away from it at once.
    if (auto* player = m_window->storyPlayer(); player && (link.camera || !link.select.empty()))
        m_window->stopStory();
}

} // namespace ft::app
