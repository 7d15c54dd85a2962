#include "alerts_panel.h"

#include "alert_layer.h"
#include "alert_writer.h"
#include "views/alarm_causes.h"
#include "views/floor_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <map>
#include <mutex>
#include <optional>

namespace ft::views {

using model::AlertState;
using model::EntityKind;
using model::Severity;

namespace {

constexpr int kFingerprintRole = Qt::UserRole;
constexpr int kEntityKindRole = Qt::UserRole + 1; // -1: nothing to frame
constexpr int kEntityRole = Qt::UserRole + 2;

std::mutex g_writerMutex;
std::shared_ptr<const AlertWriter> g_writer;

QString q(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

QString clock(model::TimeNs t) {
    return t > 0 ? q(model::formatUtc(t).substr(0, 16)) : QStringLiteral("—");
}

QString severityWord(const model::ExternalAlert& a) {
    return q(model::severityWord(a.severity));
}

// A link when it is one, the text escaped otherwise.
QString linkOrText(std::string_view text) {
    const QString s = q(text);
    if (s.startsWith("http://") || s.startsWith("https://"))
        return QString("<a href=\"%1\">%2</a>").arg(s.toHtmlEscaped(), s.toHtmlEscaped());
    return s.toHtmlEscaped();
}

// The twin's causes by the racks they reach: which cause explains an alert on a rack.
std::map<model::EntityId, std::size_t> causeRacks(const model::Topology& t,
                                                  const std::vector<AlarmCause>& causes) {
    std::map<model::EntityId, std::size_t> out;
    for (std::size_t i = 0; i < causes.size(); ++i)
        for (const auto& e : focusEntities(t, causes[i].entities)) {
            const auto rack =
                e.kind == EntityKind::Rack ? std::optional(e.id) : t.rackOf(e.kind, e.id);
            if (rack) out.try_emplace(*rack, i);
        }
    return out;
}

QString causeWords(const model::Topology& t, const AlarmCause& c) {
    const auto& a = *c.worst;
    return c.count == 1 ? q(t.name(a.kind, a.entity)) + "  " + q(a.title)
                        : QString("%1 %2s  %3  (%4)")
                              .arg(c.count)
                              .arg(q(model::entityKindName(a.kind)), q(a.title), q(c.where));
}

// How long and why, asked of the operator; nothing when they cancel.
std::optional<std::pair<model::TimeNs, std::string>>
askSilence(QWidget* parent, const QString& title, const QString& why) {
    bool ok = false;
    const QStringList durations{AlertsPanel::tr("1 hour"), AlertsPanel::tr("4 hours"),
                                AlertsPanel::tr("12 hours"), AlertsPanel::tr("1 day"),
                                AlertsPanel::tr("1 week")};
    const QString d = QInputDialog::getItem(parent, title, AlertsPanel::tr("For how long:"),
                                            durations, 1, false, &ok);
    if (!ok) return std::nullopt;
    const QString comment = QInputDialog::getText(parent, title, why, QLineEdit::Normal, {}, &ok);
    if (!ok) return std::nullopt;
    constexpr model::TimeNs kHour = 3600 * model::kNsPerSecond;
    const model::TimeNs lengths[] = {kHour, 4 * kHour, 12 * kHour, 24 * kHour, 168 * kHour};
    return std::pair{lengths[std::max<qsizetype>(0, durations.indexOf(d))], comment.toStdString()};
}

} // namespace

std::vector<std::vector<model::SilenceMatcher>> rackSilences(const model::Topology& t,
                                                             model::EntityId rack) {
    // The rack's hosts as one anchored alternation, each name's regex characters escaped.
    std::string hosts;
    const auto trays = static_cast<model::EntityId>(t.spec().rack.computeTrays);
    for (model::EntityId tray = rack * trays; tray < (rack + 1) * trays; ++tray) {
        if (!t.trayInstalled(tray)) continue;
        const std::string host = t.hostName(tray);
        if (host.empty()) continue;
        std::string escaped;
        for (const char c : host) {
            if (std::string_view("\\.+*?()|[]{}^$").find(c) != std::string_view::npos)
                escaped += '\\';
            escaped += c;
        }
        hosts += (hosts.empty() ? "" : "|") + escaped;
    }
    std::vector<std::vector<model::SilenceMatcher>> out;
    if (!hosts.empty()) {
        out.push_back({{"instance", "(" + hosts + ")(:[0-9]+)?", true}});
        out.push_back({{"Hostname", "(" + hosts + ")", true}});
    }
    out.push_back({{"rack", t.racks.name[rack], false}});
    return out;
}

void setAlertWriter(std::shared_ptr<const AlertWriter> writer) {
    std::lock_guard lock(g_writerMutex);
    g_writer = std::move(writer);
}

std::shared_ptr<const AlertWriter> alertWriter() {
    std::lock_guard lock(g_writerMutex);
    return g_writer;
}

AlertsPanel::AlertsPanel(FloorView* view, QWidget* parent) : QWidget(parent), m_view(view) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    layout->addWidget(m_note);
    m_tree = new QTreeWidget(this);
    // Two columns: a side dock is narrow; when it started is in the tooltip and below.
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({tr("Alert"), tr("Where")});
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_tree->setToolTip(tr("Click an alert to frame where it landed and read it in full below"));
    layout->addWidget(m_tree, 3);
    m_details = new QTextBrowser(this);
    m_details->setOpenExternalLinks(true);
    layout->addWidget(m_details, 2);
    auto* buttons = new QHBoxLayout;
    m_silence = new QPushButton(tr("Silence…"), this);
    m_expire = new QPushButton(tr("Expire silence"), this);
    m_silenceRack = new QPushButton(tr("Silence rack…"), this);
    buttons->addWidget(m_silence);
    buttons->addWidget(m_expire);
    buttons->addWidget(m_silenceRack);
    buttons->addStretch();
    layout->addLayout(buttons);
    connect(m_tree, &QTreeWidget::itemClicked, this,
            [this](QTreeWidgetItem* item, int) { activate(item); });
    connect(m_silence, &QPushButton::clicked, this, &AlertsPanel::silenceChosen);
    connect(m_expire, &QPushButton::clicked, this, &AlertsPanel::expireChosen);
    connect(m_silenceRack, &QPushButton::clicked, this, &AlertsPanel::silenceRack);
    connect(m_view, &FloorView::selectionChanged, this, &AlertsPanel::showDetails);
    connect(m_view, &FloorView::snapshotChanged, this, &AlertsPanel::refresh);
    refresh();
}

const model::ExternalAlert* AlertsPanel::chosen() const {
    if (!m_board || m_chosen.empty()) return nullptr;
    const auto it =
        std::ranges::find(m_board->alerts, m_chosen, &model::ExternalAlert::fingerprint);
    return it == m_board->alerts.end() ? nullptr : &*it;
}

void AlertsPanel::refresh() {
    const auto snap = m_view->snapshot();
    if (!snap) return;
    const auto& board = snap->externalAlerts;
    if (board == m_board && snap->alarms.size() == m_alarmsShown && m_tree->topLevelItemCount() > 0)
        return;
    m_board = board;
    m_alarmsShown = snap->alarms.size();
    const auto& t = m_view->topology();
    const auto causes = groupAlarms(t, snap->alarms);
    const auto explained = causeRacks(t, causes);
    const bool writable = static_cast<bool>(alertWriter());
    m_note->setText(!board ? tr("No alerting source: start with --source alertmanager=URL to see "
                                "the pager's alerts here, beside the twin's own causes.")
                    : writable
                        ? tr("Alertmanager's alerts and the twin's causes. Silences made here "
                             "go to the alert's Alertmanager.")
                        : tr("Alertmanager's alerts and the twin's causes (read-only: "
                             "--alertmanager-write lets you silence from here)."));
    m_tree->clear();
    QFont bold = m_tree->font();
    bold.setBold(true);

    // Alertmanager: the worst first.
    std::vector<const model::ExternalAlert*> order;
    if (board)
        for (const auto& a : board->alerts)
            order.push_back(&a);
    std::ranges::stable_sort(order,
                             [](const auto* a, const auto* b) { return worseAlert(*a, *b); });
    std::size_t firing = 0, muted = 0, unplaced = 0;
    for (const auto* a : order) {
        firing += a->state == AlertState::Firing ? 1 : 0;
        muted += model::alertMuted(a->state) ? 1 : 0;
        unplaced += a->entities.empty() ? 1 : 0;
    }
    auto* am = new QTreeWidgetItem(m_tree);
    am->setText(0, board ? tr("Alertmanager — %1 firing, %2 silenced or inhibited, %3 not on this "
                              "floor")
                               .arg(firing)
                               .arg(muted)
                               .arg(unplaced)
                         : tr("Alertmanager — no source"));
    am->setFirstColumnSpanned(true);
    am->setFont(0, bold);
    for (const auto* a : order) {
        auto* item = new QTreeWidgetItem(am);
        const QString state =
            a->state == AlertState::Firing ? severityWord(*a) : q(model::alertStateName(a->state));
        item->setText(0, q(a->name) + "   [" + state + "]");
        item->setText(1, a->entities.empty()
                             ? tr("not on this floor")
                             : q(t.name(a->entities.front().kind, a->entities.front().id)));
        item->setToolTip(
            0, tr("%1\nsince %2 UTC").arg(q(a->annotation("summary")), clock(a->startsAt)));
        item->setToolTip(1, q(a->placedBy));
        item->setForeground(0, QColor::fromRgb(AlertLayer::severityColor(*a).r,
                                               AlertLayer::severityColor(*a).g,
                                               AlertLayer::severityColor(*a).b));
        if (a->entities.empty()) item->setForeground(1, QColor(150, 156, 168));
        item->setData(0, kFingerprintRole, q(a->fingerprint));
        item->setData(0, kEntityKindRole,
                      a->entities.empty() ? -1 : static_cast<int>(a->entities.front().kind));
        item->setData(0, kEntityRole, a->entities.empty() ? 0u : a->entities.front().id);
        // Joined to the twin's cause on the same rack.
        if (!a->entities.empty())
            if (const auto rack = t.rackOf(a->entities.front().kind, a->entities.front().id))
                if (const auto c = explained.find(*rack); c != explained.end()) {
                    auto* join = new QTreeWidgetItem(item);
                    join->setText(
                        0, tr("explained by floortwin: %1").arg(causeWords(t, causes[c->second])));
                    join->setFirstColumnSpanned(true);
                    join->setForeground(0, QColor(255, 150, 110));
                    item->setExpanded(true);
                }
    }
    am->setExpanded(true);

    // floortwin: the twin's own causes.
    auto* twin = new QTreeWidgetItem(m_tree);
    twin->setText(
        0,
        causes.empty()
            ? tr("floortwin — no active alarms")
            : tr("floortwin — %1 causes, %2 alarms").arg(causes.size()).arg(snap->alarms.size()));
    twin->setFirstColumnSpanned(true);
    twin->setFont(0, bold);
    for (const auto& c : causes) {
        auto* item = new QTreeWidgetItem(twin);
        const auto& a = *c.worst;
        item->setText(0, causeWords(t, c));
        item->setText(1, q(c.where));
        item->setToolTip(0, tr("since %1 UTC").arg(clock(a.since)));
        item->setForeground(0, a.severity == Severity::Critical ? QColor(255, 90, 80)
                                                                : QColor(255, 190, 70));
        item->setData(0, kEntityKindRole, static_cast<int>(a.kind));
        item->setData(0, kEntityRole, a.entity);
    }
    twin->setExpanded(true);
    showDetails();
}

void AlertsPanel::showAlert(const std::string& fingerprint) {
    m_chosen = fingerprint;
    showDetails();
}

void AlertsPanel::activate(QTreeWidgetItem* item) {
    if (!item) return;
    const QString fp = item->data(0, kFingerprintRole).toString();
    if (!fp.isEmpty()) showAlert(fp.toStdString());
    const int kind =
        item->data(0, kEntityKindRole).isValid() ? item->data(0, kEntityKindRole).toInt() : -1;
    if (kind < 0) return;
    const model::EntityRef ref{static_cast<EntityKind>(kind), item->data(0, kEntityRole).toUInt()};
    const auto& t = m_view->topology();
    if (const auto box = focusBox(t, std::vector{ref})) {
        CameraRig rig = m_view->camera();
        auto hi = box->max;
        hi.z += 0.6f;
        rig.fitWindow(box->min, hi, m_view->aspect(), {});
        m_view->setCamera(rig);
    }
    m_view->setSelection(ref);
}

void AlertsPanel::showDetails() {
    const model::ExternalAlert* a = chosen();
    const bool writable = static_cast<bool>(alertWriter());
    m_silence->setEnabled(writable && a && a->state != AlertState::Silenced);
    m_expire->setEnabled(writable && a && !a->silences.empty());
    const QString readOnly = tr("read-only: start floortwin with --alertmanager-write");
    m_silence->setToolTip(writable ? tr("Silence this alert (every label of it) in its "
                                        "Alertmanager")
                                   : readOnly);
    m_expire->setToolTip(writable ? tr("Expire the silence that mutes this alert") : readOnly);
    const auto rack = selectedRack();
    m_silenceRack->setEnabled(writable && rack.has_value());
    m_silenceRack->setToolTip(
        !writable ? readOnly
        : rack    ? tr("Silence whatever fires on %1 (its hosts, its rack label) in every "
                          "Alertmanager")
                     .arg(q(m_view->topology().racks.name[*rack]))
               : tr("Select a rack first"));
    if (!a) {
        m_details->setHtml(tr("<i>Choose an alert to read it in full.</i>"));
        return;
    }
    const auto& t = m_view->topology();
    QString html =
        QString("<b>%1</b> — %2, %3<br>")
            .arg(q(a->name).toHtmlEscaped(), severityWord(*a), q(model::alertStateName(a->state)));
    html +=
        tr("on <b>%1</b> (by %2)<br>")
            .arg(a->entities.empty()
                     ? tr("nothing of this floor")
                     : q(t.name(a->entities.front().kind, a->entities.front().id)).toHtmlEscaped(),
                 q(a->placedBy).toHtmlEscaped());
    html += tr("since %1 UTC, from %2<br>").arg(clock(a->startsAt), q(a->source).toHtmlEscaped());
    for (const char* key : {"summary", "description", "message"})
        if (const auto v = a->annotation(key); !v.empty())
            html += QString("<p>%1</p>").arg(linkOrText(v));
    if (const auto v = a->annotation("runbook_url"); !v.empty())
        html += tr("Runbook: %1<br>").arg(linkOrText(v));
    if (!a->generatorUrl.empty()) html += tr("Source: %1<br>").arg(linkOrText(a->generatorUrl));
    for (const auto& s : a->silences)
        html += tr("<p><b>Silenced</b> by %1 until %2 UTC: %3 <small>(%4)</small></p>")
                    .arg(q(s.createdBy).toHtmlEscaped(), clock(s.endsAt),
                         q(s.comment).toHtmlEscaped(), q(s.id).toHtmlEscaped());
    if (a->state == AlertState::Inhibited)
        html += tr("<p><b>Inhibited</b> by %1</p>")
                    .arg(q(a->inhibitedBy.empty() ? std::string("?") : a->inhibitedBy.front()));
    QStringList labels;
    for (const auto& [k, v] : a->labels)
        labels << q(k).toHtmlEscaped() + "=\"" + q(v).toHtmlEscaped() + "\"";
    html += tr("<small>Labels: %1</small><br>").arg(labels.join(", "));
    QStringList others;
    for (const auto& [k, v] : a->annotations)
        if (k != "summary" && k != "description" && k != "message" && k != "runbook_url")
            others << q(k).toHtmlEscaped() + ": " + linkOrText(v);
    if (!others.isEmpty()) html += tr("<small>%1</small><br>").arg(others.join("<br>"));
    if (!a->receivers.empty()) {
        QStringList r;
        for (const auto& x : a->receivers)
            r << q(x).toHtmlEscaped();
        html += tr("<small>Receivers: %1</small>").arg(r.join(", "));
    }
    m_details->setHtml(html);
}

void AlertsPanel::silenceChosen() {
    const auto writer = alertWriter();
    const model::ExternalAlert* a = chosen();
    if (!writer || !a) return;
    const auto asked = askSilence(this, tr("Silence %1").arg(q(a->name)),
                                  tr("Why (Alertmanager keeps it with the silence):"));
    if (!asked) return;
    const auto& [duration, comment] = *asked;
    m_note->setText(tr("Silencing %1…").arg(q(a->name)));
    std::vector<model::SilenceMatcher> matchers;
    for (const auto& [k, v] : a->labels)
        matchers.push_back({k, v});
    writer->silence(a->source, matchers, duration, comment,
                    [self = QPointer(this), name = q(a->name)](const std::string& error) {
                        if (!self) return;
                        self->m_note->setText(
                            error.empty()
                                ? tr("%1 silenced; it greys out at the next poll.").arg(name)
                                : tr("Not silenced: %1").arg(q(error)));
                    });
}

std::optional<model::EntityId> AlertsPanel::selectedRack() const {
    const auto sel = m_view->selection();
    if (!sel) return std::nullopt;
    if (sel->kind == EntityKind::Rack) return sel->id;
    return m_view->topology().rackOf(sel->kind, sel->id);
}

void AlertsPanel::silenceRack() {
    const auto writer = alertWriter();
    const auto rack = selectedRack();
    if (!writer || !rack) return;
    const QString name = q(m_view->topology().racks.name[*rack]);
    const auto asked = askSilence(this, tr("Silence rack %1").arg(name),
                                  tr("Why (planned work, a change number):"));
    if (!asked) return;
    const auto& [duration, comment] = *asked;
    const auto silences = rackSilences(m_view->topology(), *rack);
    m_note->setText(tr("Silencing rack %1…").arg(name));
    auto left = std::make_shared<int>(static_cast<int>(silences.size()));
    auto errors = std::make_shared<QStringList>();
    for (const auto& matchers : silences)
        writer->silence(
            {}, matchers, duration, comment,
            [self = QPointer(this), name, left, errors](const std::string& error) {
                if (!error.empty()) *errors << q(error);
                if (--*left > 0 || !self) return;
                self->m_note->setText(
                    errors->isEmpty()
                        ? tr("Rack %1 silenced; its alerts grey out at the next poll.").arg(name)
                        : tr("Rack %1 not fully silenced: %2").arg(name, errors->join("; ")));
            });
}

void AlertsPanel::expireChosen() {
    const auto writer = alertWriter();
    const model::ExternalAlert* a = chosen();
    if (!writer || !a || a->silences.empty()) return;
    const std::string id = a->silences.front().id;
    writer->expire(
        a->source, id, [self = QPointer(this), name = q(a->name)](const std::string& error) {
            if (!self) return;
            self->m_note->setText(error.empty() ? tr("The silence of %1 expired.").arg(name)
                                                : tr("Not expired: %1").arg(q(error)));
        });
}

} // namespace ft::views
