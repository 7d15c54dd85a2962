#include "storage_panel.h"

#include "storage_layer.h"
#include "views/coverage.h"
#include "views/floor_view.h"
#include "views/series_chart.h"
#include "views/value_format.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <functional>

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
    setMinimumSize(320, 420);
    connect(m_view, &FloorView::snapshotChanged, this, &StoragePanel::onSnapshot);
    m_hover.attach(this);
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
    if (m_view->hasPast())
        past = [this](model::TimeNs t) -> std::optional<Point> {
            std::vector<float> backlog, oldest, migration;
            if (!m_view->pastChannel(ch::RegionBacklog, t, backlog) ||
                !m_view->pastChannel(ch::RegionOldestPending, t, oldest) ||
                !m_view->pastChannel(ch::RegionMigration, t, migration) || backlog.empty() ||
                oldest.empty() || migration.empty())
                return std::nullopt;
            return Point{t, backlog[0], oldest[0], migration[0]};
        };
    const bool fill = m_view->fillModelled();
    m_history.update(
        s->time,
        [&] {
            return Point{s->time, shownValue(*s, ch::RegionBacklog, 0, fill),
                         shownValue(*s, ch::RegionOldestPending, 0, fill),
                         shownValue(*s, ch::RegionMigration, 0, fill)};
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
    m_hover.begin();
    int y = paintSankey(p, *s);
    y = paintTiers(p, *s, y);
    paintBacklog(p, *s, y);
    m_hover.paint(p, rect());
}

int StoragePanel::paintSankey(QPainter& p, const model::Snapshot& s) const {
    const auto& t = m_view->topology();
    const bool fill = m_view->fillModelled();
    const int w = width();
    const int lh = QFontMetrics(font()).height();
    // Totals for the diagram, of what was measured only: a rack nobody measured adds nothing.
    float reads = 0, hits = 0, writes = 0;
    std::size_t measured = 0;
    for (model::EntityId r = 0; r < t.count(EntityKind::Rack); ++r) {
        const float read = shownValue(s, ch::RackStorageRead, r, fill);
        const float hit = shownValue(s, ch::RackCacheHitRatio, r, fill);
        const float write = shownValue(s, ch::RackCheckpointWrite, r, fill);
        if (std::isfinite(read)) {
            reads += read;
            if (std::isfinite(hit)) hits += read * hit / 100.0f;
            ++measured;
        }
        if (std::isfinite(write)) writes += write;
    }
    const float misses = std::max(0.0f, reads - hits);
    const bool twoRegions = t.count(EntityKind::Region) > 1;
    const float migrationShown = shownValue(s, ch::RegionMigration, 0, fill);
    const float migration = twoRegions && std::isfinite(migrationShown) ? migrationShown : 0.0f;

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
    if (measured == 0 && s.telemetry) {
        p.setPen(kMuted);
        p.drawText(QRect(10, top, w - 20, sankeyHeight - 30), Qt::AlignCenter,
                   tr("no data: no rack's storage traffic was measured"));
        return top + sankeyHeight + 20;
    }
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
    return top + sankeyHeight + 20;
}

int StoragePanel::paintTiers(QPainter& p, const model::Snapshot& s, int y) const {
    const auto& t = m_view->topology();
    const bool fill = m_view->fillModelled();
    const int w = width();
    const int lh = QFontMetrics(font()).height();
    QFont bold = font();
    bold.setBold(true);
    // Tiers of each region.
    p.setFont(bold);
    p.setPen(kText);
    p.drawText(10, y, tr("Tiers"));
    p.setFont(font());
    y += lh;
    const std::size_t nTiers = t.spec().storage.tiers.size();
    float maxBytes = 1;
    for (std::size_t i = 0; i < t.count(EntityKind::StorageTier); ++i)
        if (const float tb = shownValue(s, ch::TierBytes, static_cast<model::EntityId>(i), fill);
            std::isfinite(tb))
            maxBytes = std::max(maxBytes, tb);
    for (model::EntityId region = 0; region < t.count(EntityKind::Region); ++region) {
        p.setPen(kMuted);
        p.drawText(10, y + lh - 4, QString::fromStdString(t.spec().storage.regions[region]));
        for (std::size_t k = 0; k < nTiers; ++k) {
            const auto id = static_cast<model::EntityId>(region * nTiers + k);
            const float tb = shownValue(s, ch::TierBytes, id, fill);
            const bool known = std::isfinite(tb);
            const int bx = 80 + static_cast<int>(k) * (w - 90) / static_cast<int>(nTiers);
            const int bw = (w - 90) / static_cast<int>(nTiers) - 6;
            const int bh = known ? static_cast<int>(30.0f * tb / maxBytes) + 2 : 2;
            p.fillRect(QRect(bx, y + 32 - bh, bw, bh),
                       known ? qc(StorageLayer::tierColor(static_cast<int>(k))) : qc(kNoDataLight));
            p.setPen(kText);
            p.drawText(QRect(bx, y + 34, bw, lh), Qt::AlignLeft,
                       QString::fromStdString(t.spec().storage.tiers[k]));
            p.setPen(kMuted);
            p.drawText(QRect(bx, y + 34 + lh, bw, lh), Qt::AlignLeft,
                       known ? QString("%1 PB").arg(tb / 1000.0f, 0, 'f', 2) : tr("no data"));
        }
        y += 34 + 2 * lh + 6;
    }
    return y;
}

void StoragePanel::paintBacklog(QPainter& p, const model::Snapshot& s, int y) const {
    const auto& t = m_view->topology();
    const int w = width();
    const bool twoRegions = t.count(EntityKind::Region) > 1;
    // Migration backlog over time.
    const auto history = this->history();
    const QRectF plot = drawChartFrame(
        p, QRectF(10, y + 6, w - 20, std::max(80, height() - y - 16)),
        twoRegions ? tr("migration backlog (TB) · now %1, oldest %2")
                         .arg(QString::fromStdString(formatCoveredValue(s, ch::RegionBacklog, 0,
                                                                        m_view->fillModelled())),
                              QString::fromStdString(formatCoveredValue(s, ch::RegionOldestPending,
                                                                        0, m_view->fillModelled())))
                   : tr("one region: nothing migrates"),
        history.size(), tr("history builds up while the twin runs"));
    if (history.size() < 2) return;
    const std::function<float(std::size_t)> backlog = [&](std::size_t i) {
        return history[i].backlogTb;
    };
    const auto range = finiteRange(history.size(), backlog);
    if (!range) {
        p.setPen(kMuted);
        p.drawText(plot, Qt::AlignCenter, tr("no data: nothing measured in this window"));
        return;
    }
    const float hi = std::max(1.0f, range->second) * 1.1f;
    drawChartLines(p, plot, history.size(), m_history.capacity(),
                   {{backlog, QColor(245, 185, 60), 0.0f, hi}});
    m_hover.chart(plot, history.size(), m_history.capacity(),
                  {{tr("backlog"), " TB", 2, backlog, QColor(245, 185, 60)}});
    p.setPen(kMuted);
    p.drawText(plot, Qt::AlignRight | Qt::AlignTop, QString("%1 TB").arg(hi, 0, 'f', 1));
}

QWidget* makeStoragePanel(FloorView& view) {
    return new StoragePanel(&view);
}

} // namespace ft::views
