#include "storage_panel.h"

#include "floor_view.h"
#include "storage_layer.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>

namespace ft::views {

namespace ch = model::ch;
using model::EntityKind;

namespace {
const QColor kText(225, 232, 242), kMuted(150, 162, 178);
QColor qc(Rgb c, int alpha = 255) {
    return {c.r, c.g, c.b, alpha};
}
} // namespace

StoragePanel::StoragePanel(FloorView* view, QWidget* parent) : QWidget(parent), m_view(view) {
    setMinimumSize(320, 520);
    connect(m_view, &FloorView::snapshotChanged, this, &StoragePanel::onSnapshot);
}

std::vector<StoragePanel::Point> StoragePanel::history() const {
    std::vector<Point> out;
    out.reserve(m_history.size());
    for (const auto& [time, point] : m_history.points())
        out.push_back(point);
    return out;
}

void StoragePanel::onSnapshot() {
    const auto s = m_view->snapshot();
    if (!s || s->values[ch::RegionBacklog].empty()) return;
    HistoryWindow<Point>::Past past;
    if (m_past)
        past = [this](model::TimeNs t) -> std::optional<Point> {
            std::vector<float> backlog, oldest, migration;
            if (!m_past(ch::RegionBacklog, t, backlog) ||
                !m_past(ch::RegionOldestPending, t, oldest) ||
                !m_past(ch::RegionMigration, t, migration) || backlog.empty() || oldest.empty() ||
                migration.empty())
                return std::nullopt;
            return Point{t, backlog[0], oldest[0], migration[0]};
        };
    m_history.update(
        s->time,
        [&] {
            return Point{s->time, s->value(ch::RegionBacklog, 0),
                         s->value(ch::RegionOldestPending, 0), s->value(ch::RegionMigration, 0)};
        },
        past);
    if (isVisible()) update();
}

void StoragePanel::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), QColor(22, 28, 38));
    const auto s = m_view->snapshot();
    if (!s) return;
    const auto& t = m_view->topology();
    const int w = width();
    const int lh = QFontMetrics(font()).height();
    // Totals for the diagram.
    float reads = 0, hits = 0, writes = 0;
    for (model::EntityId r = 0; r < t.count(EntityKind::Rack); ++r) {
        reads += s->value(ch::RackStorageRead, r);
        hits += s->value(ch::RackStorageRead, r) * s->value(ch::RackCacheHitRatio, r) / 100.0f;
        writes += s->value(ch::RackCheckpointWrite, r);
    }
    const float misses = std::max(0.0f, reads - hits);
    const bool twoRegions = t.count(EntityKind::Region) > 1;
    const float migration = twoRegions ? s->value(ch::RegionMigration, 0) : 0.0f;

    // Sankey: three columns of nodes, bands as wide as their rates.
    const int top = 30, sankeyHeight = 230;
    const float total = std::max(1.0f, reads + writes);
    const float scale = static_cast<float>(sankeyHeight - 30) / total;
    const int x0 = 10, x1 = w / 2 - 40, x2 = w - 110, nodeW = 12;
    p.setPen(kText);
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(10, 18, tr("Where the data goes (GB/s)"));
    p.setFont(font());
    auto node = [&](int x, float y, float h, QColor c, const QString& label, bool right) {
        p.fillRect(QRectF(x, y, nodeW, std::max(2.0f, h)), c);
        p.setPen(kText);
        const QRectF text(right ? x + nodeW + 4 : x - 150, y + h / 2 - lh / 2.0, 146, lh);
        p.drawText(text, (right ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter, label);
    };
    auto band = [&](float xa, float ya, float xb, float yb, float h, QColor c) {
        if (h < 0.5f) h = 0.5f;
        QPainterPath path;
        const float mid = (xa + xb) / 2;
        path.moveTo(xa, ya);
        path.cubicTo(mid, ya, mid, yb, xb, yb);
        path.lineTo(xb, yb + h);
        path.cubicTo(mid, yb + h, mid, ya + h, xa, ya + h);
        path.closeSubpath();
        p.fillPath(path, c);
    };
    const float yReads = top, yWrites = top + reads * scale + 24;
    const QColor readC(90, 170, 255), hitC(90, 210, 120), missC(245, 185, 60), writeC(235, 95, 60),
        remoteC(150, 130, 220);
    // Column 1: what the jobs do.
    node(x0, yReads, reads * scale, readC, QString(), true);
    node(x0, yWrites, writes * scale, writeC, QString(), true);
    // Column 2: served by caches, by the bucket; written to the local hot tier.
    const float yHits = top, yMiss = top + hits * scale + 10, yHot = yWrites;
    band(x0 + nodeW, yReads, x1, yHits, hits * scale, QColor(90, 210, 120, 120));
    band(x0 + nodeW, yReads + hits * scale, x1, yMiss, misses * scale, QColor(245, 185, 60, 140));
    band(x0 + nodeW, yWrites, x1, yHot, writes * scale, QColor(235, 95, 60, 130));
    node(x1, yHits, hits * scale, hitC, tr("node caches %1").arg(hits, 0, 'f', 1), true);
    node(x1, yMiss, misses * scale, missC, tr("bucket %1").arg(misses, 0, 'f', 1), true);
    node(x1, yHot, writes * scale, writeC, tr("local hot tier %1").arg(writes, 0, 'f', 1), true);
    // Column 3: on to the remote region, in the background.
    if (twoRegions) {
        band(x1 + nodeW, yHot, x2, yHot, migration * scale, QColor(150, 130, 220, 140));
        node(x2, yHot, migration * scale, remoteC,
             tr("→ %1 %2")
                 .arg(QString::fromStdString(t.spec().storage.regions[1]))
                 .arg(migration, 0, 'f', 1),
             true);
    }
    p.setPen(kMuted);
    p.drawText(x0, static_cast<int>(yReads) - 4, tr("reads %1").arg(reads, 0, 'f', 1));
    p.drawText(x0, static_cast<int>(yWrites) - 4, tr("checkpoints %1").arg(writes, 0, 'f', 1));

    // Tiers of each region.
    int y = top + sankeyHeight + 20;
    p.setFont(bold);
    p.setPen(kText);
    p.drawText(10, y, tr("Tiers"));
    p.setFont(font());
    y += lh;
    const std::size_t nTiers = t.spec().storage.tiers.size();
    float maxBytes = 1;
    for (std::size_t i = 0; i < t.count(EntityKind::StorageTier); ++i)
        maxBytes = std::max(maxBytes, s->value(ch::TierBytes, static_cast<model::EntityId>(i)));
    for (model::EntityId region = 0; region < t.count(EntityKind::Region); ++region) {
        p.setPen(kMuted);
        p.drawText(10, y + lh - 4, QString::fromStdString(t.spec().storage.regions[region]));
        for (std::size_t k = 0; k < nTiers; ++k) {
            const auto id = static_cast<model::EntityId>(region * nTiers + k);
            const float tb = s->value(ch::TierBytes, id);
            const int bx = 80 + static_cast<int>(k) * (w - 90) / static_cast<int>(nTiers);
            const int bw = (w - 90) / static_cast<int>(nTiers) - 6;
            const int bh = static_cast<int>(30.0f * tb / maxBytes) + 2;
            p.fillRect(QRect(bx, y + 32 - bh, bw, bh),
                       qc(StorageLayer::tierColor(static_cast<int>(k))));
            p.setPen(kText);
            p.drawText(QRect(bx, y + 34, bw, lh), Qt::AlignLeft,
                       QString::fromStdString(t.spec().storage.tiers[k]));
            p.setPen(kMuted);
            p.drawText(QRect(bx, y + 34 + lh, bw, lh), Qt::AlignLeft,
                       QString("%1 PB").arg(tb / 1000.0f, 0, 'f', 2));
        }
        y += 34 + 2 * lh + 6;
    }

    // Migration backlog over time.
    const QRect chart(10, y + 6, w - 20, std::max(80, height() - y - 16));
    p.setPen(QColor(70, 84, 104));
    p.setBrush(QColor(16, 20, 28));
    p.drawRoundedRect(chart, 6, 6);
    p.setPen(kMuted);
    p.drawText(chart.adjusted(8, 4, -8, 0), Qt::AlignLeft | Qt::AlignTop,
               twoRegions ? tr("migration backlog (TB) · now %1 TB, oldest %2 s")
                                .arg(s->value(ch::RegionBacklog, 0), 0, 'f', 1)
                                .arg(s->value(ch::RegionOldestPending, 0), 0, 'f', 0)
                          : tr("one region: nothing migrates"));
    const auto history = this->history();
    if (history.size() >= 2) {
        float hi = 1;
        for (const auto& pt : history)
            hi = std::max(hi, pt.backlogTb);
        const QRectF plot = QRectF(chart).adjusted(8, lh + 8, -8, -8);
        QPainterPath path;
        for (std::size_t i = 0; i < history.size(); ++i) {
            const double x = plot.left() + plot.width() * static_cast<double>(i) / 599.0;
            const double yv = plot.bottom() - plot.height() * history[i].backlogTb / (hi * 1.1);
            i == 0 ? path.moveTo(x, yv) : path.lineTo(x, yv);
        }
        p.setPen(QPen(QColor(245, 185, 60), 2));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        p.setPen(kMuted);
        p.drawText(plot, Qt::AlignRight | Qt::AlignTop, QString("%1 TB").arg(hi * 1.1, 0, 'f', 1));
    } else {
        p.drawText(chart, Qt::AlignCenter, tr("history builds up while the twin runs"));
    }
}

} // namespace ft::views
