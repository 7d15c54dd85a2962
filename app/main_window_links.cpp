// The window's links: a link to what it shows (Copy link in the inspector, the incidents', the
// alerts' and the timeline's context menus), the links out of the twin for an entity (Open in…),
// the user's own link templates (View > Links), and notices of the parts of a link it could not
// follow.
#include "importers/floor/link_templates.h"
#include "main_window.h"
#include "views/floor_view.h"
#include "views/incidents_panel.h"
#include "views/inspector_panel.h"
#include "views/layers/alerts/alert_rows.h"
#include "views/layers/alerts/alerts_panel.h"
#include "views/timeline_panel.h"

#include <QApplication>
#include <QClipboard>
#include <QInputDialog>
#include <QMenu>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>
#include <QTreeWidget>
#include <filesystem>
#include <sstream>

namespace ft::app {

views::CameraRig rigOf(const LinkCamera& c, views::CameraRig rig) {
    rig.focus = {static_cast<float>(c.focus[0]), static_cast<float>(c.focus[1]),
                 static_cast<float>(c.focus[2])};
    rig.distance = c.distance;
    rig.azimuthDeg = c.azimuthDeg;
    rig.elevationDeg = c.elevationDeg;
    return rig;
}

LinkCamera linkCameraOf(const views::CameraRig& rig) {
    return {
        {rig.focus.x, rig.focus.y, rig.focus.z}, rig.distance, rig.azimuthDeg, rig.elevationDeg};
}

std::string selectText(const model::Topology& t, model::EntityRef ref) {
    const std::string kind(model::entityKindName(ref.kind));
    // A GPU or a tray as people write them in tickets: RACK/TRAY/GPU ("gpu:B03/7/2").
    const auto& rk = t.spec().rack;
    if ((ref.kind == model::EntityKind::Gpu && ref.id < t.gpus.tray.size()) ||
        (ref.kind == model::EntityKind::ComputeTray && ref.id < t.computeTrays.rack.size())) {
        const bool gpu = ref.kind == model::EntityKind::Gpu;
        const auto tray = gpu ? t.gpus.tray[ref.id] : ref.id;
        std::string text = kind + ":" + t.name(model::EntityKind::Rack, t.computeTrays.rack[tray]) +
                           "/" + std::to_string(t.computeTrays.indexInRack[tray] + 1);
        if (gpu)
            text += "/" + std::to_string(ref.id % static_cast<model::EntityId>(rk.gpusPerTray));
        return text;
    }
    const std::string name = t.name(ref.kind, ref.id);
    // The name when it finds the entity again (names are what people read), else the id.
    if (!name.empty() && t.find(ref.kind, name) == ref.id) return kind + ":" + name;
    return kind + ":" + std::to_string(ref.id);
}

namespace {

std::string absolutePath(const std::string& path) {
    if (path.empty() || path.starts_with("generate:")) return path;
    std::error_code ec;
    auto abs = std::filesystem::absolute(path, ec);
    return ec ? path : abs.lexically_normal().string();
}

// The user's link templates (View > Links): "name = URL" lines.
std::vector<std::pair<std::string, std::string>> userLinkTemplates() {
    std::vector<std::pair<std::string, std::string>> out;
    std::stringstream lines(QSettings().value("links/templates").toString().toStdString());
    for (std::string line; std::getline(lines, line);) {
        const auto eq = line.find('=');
        if (eq == std::string::npos) continue;
        auto trim = [](std::string s) {
            s.erase(0, s.find_first_not_of(" \t"));
            s.erase(s.find_last_not_of(" \t\r") + 1);
            return s;
        };
        auto name = trim(line.substr(0, eq)), url = trim(line.substr(eq + 1));
        if (!name.empty() && !url.empty()) out.emplace_back(name, url);
    }
    return out;
}

} // namespace

ViewLink MainWindow::currentLink(std::optional<model::TimeNs> at) const {
    ViewLink link;
    const auto snap = m_view->snapshot();
    if (m_session.replay) {
        link.replay = absolutePath(m_session.recordingPath);
    } else {
        link.floor = absolutePath(m_session.floorPath);
        link.inventory = absolutePath(m_session.inventoryPath);
        link.sources = m_session.sourceSpecs;
    }
    // A moment means something in a recording and on a live floor (whose time is the wall
    // clock's); a simulator started elsewhere has its own times.
    if (m_session.replay || !m_session.sources.empty()) {
        if (at)
            link.at = LinkTime{*at, false};
        else if (snap)
            link.at = LinkTime{snap->time, false};
    }
    if (const auto sel = m_view->selection()) link.select = selectText(m_view->topology(), *sel);
    std::vector<std::string> layers;
    for (const auto& l : m_view->layers())
        if (l->visible()) layers.emplace_back(l->id());
    link.layers = std::move(layers);
    link.metric = std::string(model::channelInfo(m_view->colourMetric()).name);
    link.camera = linkCameraOf(m_view->camera());
    return link;
}

QString MainWindow::copyLink(std::optional<model::TimeNs> at) {
    auto url = QString::fromStdString(formatViewLink(currentLink(at)));
    QApplication::clipboard()->setText(url);
    if (QApplication::clipboard()->supportsSelection())
        QApplication::clipboard()->setText(url, QClipboard::Selection);
    showNotice(tr("Link copied: %1").arg(url), 8000);
    return url;
}

std::vector<std::pair<QString, QString>> MainWindow::outLinks(model::EntityRef ref) const {
    std::vector<std::pair<QString, QString>> out;
    const auto& t = m_view->topology();
    const auto snap = m_view->snapshot();
    const model::TimeNs time = snap ? snap->time : 0;
    auto templates = t.spec().links;
    for (auto& user : userLinkTemplates())
        templates.push_back(std::move(user));
    for (const auto& [name, url] : templates)
        if (auto filled = importers::expandLinkTemplate(url, t, ref, time))
            out.emplace_back(tr("Open in %1").arg(QString::fromStdString(name)),
                             QString::fromStdString(*filled));
    // The pager's alerts on it: their runbooks and the rule that fired them.
    if (snap)
        for (const auto* a : views::alertsOn(*snap, t, ref)) {
            // Web addresses only: an alert's annotations are whatever its rule's author wrote.
            auto web = [](std::string_view u) {
                return u.starts_with("https://") || u.starts_with("http://");
            };
            const auto runbook = a->annotation("runbook_url");
            if (web(runbook))
                out.emplace_back(tr("Runbook: %1").arg(QString::fromStdString(a->name)),
                                 QString::fromStdString(std::string(runbook)));
            if (web(a->generatorUrl))
                out.emplace_back(tr("Alert rule: %1").arg(QString::fromStdString(a->name)),
                                 QString::fromStdString(a->generatorUrl));
        }
    return out;
}

void MainWindow::editLinkTemplates() {
    bool ok = false;
    const QString text = QInputDialog::getMultiLineText(
        this, tr("Links"),
        tr("One link per line: NAME = URL. Placeholders: {host} {rack} {row} {cdu} {gpu} {uuid} "
           "{bmc} {tray} {entity} {kind} {id}, and the moment {t} (epoch ms), {t-15m}, {t+15m}, "
           "{t:rfc3339}. The inspector's Open in… lists each that fits the selected entity."),
        QSettings().value("links/templates").toString(), &ok);
    if (!ok) return;
    std::stringstream lines(text.toStdString());
    for (std::string line; std::getline(lines, line);) {
        const auto eq = line.find('=');
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const auto bad = eq == std::string::npos
                             ? std::optional<std::string>("expected NAME = URL")
                             : importers::checkLinkTemplate(line.substr(
                                   line.find_first_not_of(" \t", eq + 1) == std::string::npos
                                       ? eq + 1
                                       : line.find_first_not_of(" \t", eq + 1)));
        if (bad) {
            showNotice(tr("Links not saved: '%1': %2")
                           .arg(QString::fromStdString(line), QString::fromStdString(*bad)),
                       15000);
            return;
        }
    }
    QSettings().setValue("links/templates", text);
    showNotice(tr("Links saved"), 4000);
}

void MainWindow::showNotice(const QString& text, int ms) {
    statusBar()->showMessage(text, ms);
}

void MainWindow::connectLinks() {
    m_inspector->setLinkActions([this] { copyLink(); },
                                [this](model::EntityRef ref) { return outLinks(ref); });
    // The timeline: a link to the moment under the mouse.
    auto* axis = m_timeline->axis();
    axis->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(axis, &QWidget::customContextMenuRequested, this, [this, axis](const QPoint& p) {
        QMenu menu(this);
        const model::TimeNs t = axis->timeAt(p.x());
        menu.addAction(tr("Copy link to %1").arg(QString::fromStdString(model::formatUtc(t))), this,
                       [this, t] { copyLink(t); });
        menu.exec(axis->mapToGlobal(p));
    });
    connect(m_incidents, &views::IncidentsPanel::linkRequested, this,
            [this](model::TimeNs t) { copyLink(t); });
    // The Alerts dock: a link to where an alert landed (chosen, selected and framed first).
    if (auto* alerts = findChild<views::AlertsPanel*>()) {
        QTreeWidget* tree = alerts->tree();
        tree->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(tree, &QWidget::customContextMenuRequested, this, [this, tree](const QPoint& p) {
            QTreeWidgetItem* item = tree->itemAt(p);
            if (!item) return;
            QMenu menu(this);
            menu.addAction(tr("Copy link to this"), this, [this, tree, item] {
                emit tree->itemClicked(item, 0);
                copyLink();
            });
            menu.exec(tree->viewport()->mapToGlobal(p));
        });
    }
}

} // namespace ft::app
