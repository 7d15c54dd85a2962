#pragma once
// HistoryWindow: a panel's chart data, one point a second on whole-second marks over the last
// N seconds of the shown time. As time moves on, the newest point comes from the snapshot; with
// a recording behind the view (a replay), the points the window lacks — after a seek, while
// playing backwards, when the panel opens late — are read from the past, so the chart always
// covers the whole window. UI thread only.
#include "model/channel_catalog.h"
#include "model/timestamp.h"

#include <deque>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace ft::views {

template <class Point> class HistoryWindow {
public:
    using Past = std::function<std::optional<Point>(model::TimeNs)>;

    explicit HistoryWindow(std::size_t seconds) : m_seconds(seconds) {}

    // `now` is the shown time; `current` makes its point from the snapshot; `past` (may be
    // empty: a live run) reads a point at an earlier mark, nothing where there is none.
    template <class Current> void update(model::TimeNs now, Current current, const Past& past) {
        constexpr model::TimeNs kSecond = model::kNsPerSecond;
        const model::TimeNs mark = now / kSecond * kSecond;
        const model::TimeNs lo = mark - static_cast<model::TimeNs>(m_seconds - 1) * kSecond;
        while (!m_points.empty() && m_points.front().first < lo)
            m_points.pop_front();
        while (!m_points.empty() && m_points.back().first > mark)
            m_points.pop_back(); // went back in time
        if (m_points.empty() || m_points.back().first < mark) {
            // Fill the gap up to now from the past (a seek forwards); live runs have none.
            if (past) {
                model::TimeNs t = m_points.empty() ? lo : m_points.back().first + kSecond;
                for (; t < mark; t += kSecond)
                    if (auto p = past(t)) m_points.emplace_back(t, std::move(*p));
            }
            m_points.emplace_back(mark, current());
        }
        // And before the oldest point, back to the window's start (a seek, playing backwards).
        if (past)
            for (model::TimeNs t = m_points.front().first - kSecond; t >= lo; t -= kSecond) {
                auto p = past(t);
                if (!p) break; // before the recording began
                m_points.emplace_front(t, std::move(*p));
            }
    }
    void clear() { m_points.clear(); }
    const std::deque<std::pair<model::TimeNs, Point>>& points() const { return m_points; }
    std::size_t size() const { return m_points.size(); }
    std::size_t capacity() const { return m_seconds; }

private:
    std::size_t m_seconds;
    std::deque<std::pair<model::TimeNs, Point>> m_points;
};

// A recording's past, for charts: a channel's values at a moment as the views show them (with
// telemetry, NaN where nothing was measured unless `fillModelled`); false where there is none.
using ChannelHistory = std::function<bool(model::ChannelId channel, model::TimeNs time,
                                          bool fillModelled, std::vector<float>& out)>;

} // namespace ft::views
