#include "fabric_panel.h"

#include "rail_layer.h"
#include "views/floor_view.h"
#include "views/hud.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

namespace ft::views {

using model::EntityKind;
namespace ch = model::ch;

namespace {
const QColor kText(225, 232, 242);
const QColor kMutedText(150, 162, 178);
const QColor kPanel(22, 28, 38);
constexpr float kLabelW = 78.0f;
constexpr float kRowH = 22.0f;

QColor qc(Rgb c) {
    return {c.r, c.g, c.b};
}
QString fmt(const model::Snapshot& s, model::ChannelId c, model::EntityId e) {
    return QString::fromStdString(formatValue(s.value(c, e), c));
}
} // namespace

FabricPanel::FabricPanel(FloorView* view, QWidget* parent) : QWidget(parent), m_view(view) {
    setMinimumSize(300, 260);
    setMouseTracking(true);
    connect(m_view, &FloorView::snapshotChanged, this, qOverload<>(&QWidget::update));
    connect(m_view, &FloorView::selectionChanged, this, qOverload<>(&QWidget::update));
    layoutCells();
}

void FabricPanel::resizeEvent(QResizeEvent*) {
    layoutCells();
}

void FabricPanel::layoutCells() {
    // Per plane: a title line, one row per rail of that plane (a cell per leaf), a spine row.
    const auto& t = m_view->topology();
    m_cells.clear();
    m_labels.clear();
    const float w = std::max(60.0f, static_cast<float>(width()) - kLabelW - 10.0f);
    float y = 8;
    const auto planes = static_cast<model::EntityId>(t.count(EntityKind::Plane));
    const std::uint32_t spines = t.fabricSizing.spinesPerPlane;
    for (model::EntityId p = 0; p < planes; ++p) {
        m_labels.push_back({{6, y + 14}, tr("Plane %1").arg(p), EntityKind::Plane, p});
        y += 20;
        for (model::EntityId r = 0; r < t.count(EntityKind::Rail); ++r) {
            if (t.rails.plane[r] != p) continue;
            m_labels.push_back({{6, y + 15}, tr("Rail %1").arg(r), EntityKind::Rail, r});
            const std::uint32_t n = t.rails.leafCount[r];
            const float cw = w / static_cast<float>(n);
            for (std::uint32_t l = 0; l < n; ++l)
                m_cells.push_back({QRectF(kLabelW + cw * static_cast<float>(l), y,
                                          std::max(1.0f, cw - (cw > 4 ? 1.5f : 0.0f)), kRowH - 3),
                                   {EntityKind::Leaf, t.rails.firstLeaf[r] + l}});
            y += kRowH;
        }
        m_labels.push_back({{6, y + 15}, tr("Spines"), EntityKind::Plane, p});
        const float cw = w / static_cast<float>(std::max<std::uint32_t>(1, spines));
        for (std::uint32_t s = 0; s < spines; ++s)
            m_cells.push_back({QRectF(kLabelW + cw * static_cast<float>(s), y,
                                      std::max(1.0f, cw - (cw > 4 ? 1.5f : 0.0f)), kRowH - 3),
                               {EntityKind::Spine, p * spines + s}});
        y += kRowH + 10;
    }
    setMinimumHeight(static_cast<int>(y + 60));
}

std::optional<model::EntityRef> FabricPanel::switchAt(const QPointF& p) const {
    for (const Cell& c : m_cells)
        if (c.rect.adjusted(-0.5, -1, 0.5, 1).contains(p)) return c.ref;
    return std::nullopt;
}

std::optional<QRectF> FabricPanel::cellOf(model::EntityRef ref) const {
    for (const Cell& c : m_cells)
        if (c.ref == ref) return c.rect;
    return std::nullopt;
}

void FabricPanel::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), kPanel);
    const auto snap = m_view->snapshot();
    if (!snap) return;
    const auto& s = *snap;
    const auto& t = m_view->topology();
    p.setPen(kText);
    for (const Label& l : m_labels) {
        QString text = l.text;
        if (l.kind == EntityKind::Rail) {
            const bool dead = s.value(ch::RailLinksDown, l.id) >=
                              static_cast<float>(t.count(EntityKind::ComputeTray));
            text += dead ? tr("  off")
                         : QString("  %1%").arg(s.value(ch::RailUtilization, l.id), 0, 'f', 0);
            p.setPen(dead ? QColor(255, 110, 100) : kText);
        } else if (l.text.startsWith(tr("Plane"))) {
            text += tr("   %1 Tb/s").arg(s.value(ch::PlaneThroughput, l.id), 0, 'f', 1);
            p.setPen(kText);
        } else {
            p.setPen(kMutedText);
        }
        p.drawText(l.at, text);
    }
    std::optional<model::EntityRef> highlight = m_view->selection();
    if (highlight && highlight->kind == EntityKind::FabricLink)
        highlight = t.fabricLinks.kind[highlight->id] == model::Topology::FabricLinkKind::NicToLeaf
                        ? model::EntityRef{EntityKind::Leaf, t.fabricLinks.to[highlight->id]}
                        : model::EntityRef{EntityKind::Spine, t.fabricLinks.to[highlight->id]};
    for (const Cell& c : m_cells) {
        const bool leaf = c.ref.kind == EntityKind::Leaf;
        const float util = s.value(leaf ? ch::LeafUtilization : ch::SpineUtilization, c.ref.id);
        const float state = leaf ? s.value(ch::LeafState, c.ref.id) : 0.0f;
        p.fillRect(c.rect,
                   state >= 2.0f ? qc(RailLayer::kDown) : qc(RailLayer::utilizationColor(util)));
        if (state >= 1.0f && state < 2.0f) {
            p.setPen(QPen(QColor(255, 176, 40), 2));
            p.drawRect(c.rect.adjusted(1, 1, -1, -1));
        }
    }
    if (highlight)
        if (auto r = cellOf(*highlight)) {
            p.setPen(QPen(Qt::white, 2));
            p.drawRect(r->adjusted(-1.5, -1.5, 1.5, 1.5));
        }
    // Scale and hint at the bottom.
    const float y = static_cast<float>(height()) - 44;
    const float w = static_cast<float>(width()) - 20;
    for (int i = 0; i < 60; ++i)
        p.fillRect(QRectF(10 + w * static_cast<float>(i) / 60, y, w / 60 + 0.5f, 10),
                   qc(RailLayer::utilizationColor(100.0f * (static_cast<float>(i) + 0.5f) / 60)));
    p.setPen(kMutedText);
    p.drawText(QPointF(10, y + 24), tr("0 %"));
    p.drawText(QPointF(10 + w - 40, y + 24), tr("100 %"));
    p.drawText(QPointF(10, y + 38),
               tr("utilization · red: down · amber edge: degraded · click: show on floor"));
}

void FabricPanel::mouseMoveEvent(QMouseEvent* e) {
    const auto ref = switchAt(e->position());
    const auto snap = m_view->snapshot();
    if (!ref || !snap) {
        QToolTip::hideText();
        return;
    }
    const auto& t = m_view->topology();
    const auto& s = *snap;
    QString text = QString::fromStdString(t.name(ref->kind, ref->id)) + "\n";
    if (ref->kind == EntityKind::Leaf) {
        text += tr("utilization %1\nfrom NICs %2\nup to spines %3\n%4 NIC ports")
                    .arg(fmt(s, ch::LeafUtilization, ref->id), fmt(s, ch::LeafThroughput, ref->id),
                         fmt(s, ch::LeafUplink, ref->id))
                    .arg(t.leaves.downlinks[ref->id]);
        const float st = s.value(ch::LeafState, ref->id);
        if (st >= 2.0f)
            text += tr("\nDOWN");
        else if (st >= 1.0f)
            text += tr("\ndegraded");
    } else {
        text +=
            tr("utilization %1\nswitching %2")
                .arg(fmt(s, ch::SpineUtilization, ref->id), fmt(s, ch::SpineThroughput, ref->id));
    }
    QToolTip::showText(e->globalPosition().toPoint(), text, this);
}

void FabricPanel::mousePressEvent(QMouseEvent* e) {
    const auto ref = switchAt(e->position());
    if (!ref) return;
    m_view->setSelection(*ref);
    m_view->frameSelection();
    update();
}

QWidget* makeFabricPanel(FloorView& view) {
    return new FabricPanel(&view);
}

} // namespace ft::views
