// The rules of the distribution types: histograms and gauge histograms (buckets, +Inf, counts
// and sums, negative buckets) and summaries (quantiles, sums, counts), per sample and per
// MetricPoint. The rest of ExpositionRules is in exposition_rules.cpp.
#include "exposition_rules.h"
#include "exposition_text.h"

#include <algorithm>
#include <cmath>

namespace ft::importers::prom::detail {

std::optional<Refusal> ExpositionRules::histogram(const Sample& s, std::string_view suffix,
                                                  const Place& where, const char* valueAt) {
    const bool gauge = s.type == MetricType::GaugeHistogram;
    // A count that is NaN or negative: a histogram's counts are counters (refused); a gauge
    // histogram's are gauges that OpenMetrics 1.0 still wants non-negative (warned).
    const auto badCount = [&](const char* what) -> std::optional<Refusal> {
        if (!std::isnan(s.value) && s.value >= 0) {
            if (m_om && std::isfinite(s.value) && s.value != std::floor(s.value))
                warn(where, valueAt,
                     std::string(what) + " must be an integer in OpenMetrics, got " +
                         number(s.value));
            return std::nullopt;
        }
        const std::string message = std::string(what) + " must not be " +
                                    (std::isnan(s.value) ? "NaN" : "negative") + ", got " +
                                    number(s.value);
        if (!gauge) return Refusal{valueAt, message + "; not used"};
        warn(where, valueAt, message);
        return std::nullopt;
    };
    const auto member = [&]() -> Group& {
        Group& g = *m_group;
        if (!g.member) g.start = {where.line, where.lineStart, valueAt};
        g.member = true;
        return g;
    };
    // OpenMetrics: le belongs to the buckets; the Metric's own labels must not have it.
    const auto noLe = [&] {
        if (m_om)
            if (const Label* le = findLabel(s.labels, "le"))
                warn(where, le->name.data(),
                     quoted(s.name) + " has an 'le' label: only a histogram's buckets may "
                                      "(OpenMetrics)");
    };

    if (suffix == "_bucket") {
        const Label* le = findLabel(s.labels, "le");
        if (!le) return Refusal{valueAt, "a histogram bucket needs an 'le' label (its bound)"};
        double bound = 0;
        if (!parseBound(le->value, bound))
            return Refusal{le->value.data(),
                           "le=" + quoted(le->value) + " is not a number (a bucket's bound)"};
        if (auto r = badCount("a bucket's count")) return r;
        Group& g = member();
        if (!g.anyBound) {
            g.first = {where.line, where.lineStart, le->value.data()};
        } else if (bound <= g.bound) {
            warn(where, le->value.data(),
                 "buckets out of order: le=" + quoted(le->value) + " after le='" + number(g.bound) +
                     "'; bounds must increase");
        } else if (s.value < g.bucket) {
            warn(where, valueAt,
                 "bucket counts are cumulative and must not fall as le grows: " + number(s.value) +
                     " after " + number(g.bucket));
        }
        g.bound = std::max(bound, g.anyBound ? g.bound : bound);
        g.bucket = s.value;
        g.anyBound = true;
        g.negativeBound = g.negativeBound || bound < 0;
        if (std::isinf(bound) && bound > 0) {
            g.hasInf = true;
            g.infValue = s.value;
            g.inf = {where.line, where.lineStart, valueAt};
        }
        return std::nullopt;
    }
    if (suffix == (gauge ? "_gcount" : "_count")) {
        if (auto r = badCount(gauge ? "a gauge histogram's _gcount" : "a histogram's _count"))
            return r;
        noLe();
        Group& g = member();
        g.hasCount = true;
        g.countValue = s.value;
        g.count = {where.line, where.lineStart, valueAt};
        return std::nullopt;
    }
    if (suffix == (gauge ? "_gsum" : "_sum")) {
        if (std::isnan(s.value)) warn(where, valueAt, "a histogram's sum should not be NaN");
        noLe();
        Group& g = member();
        g.hasSum = true;
        g.sumValue = s.value;
        g.sum = {where.line, where.lineStart, valueAt};
        return std::nullopt;
    }
    if (suffix == "_created" && !gauge) {
        noLe();
        member();
        return std::nullopt;
    }
    onceForFamily(where, quoted(s.name) + " is not a sample of histogram " + quoted(s.family) +
                             (gauge ? " (its samples end in _bucket, _gcount, _gsum)"
                                    : " (its samples end in _bucket, _count, _sum, _created)"));
    return std::nullopt;
}

std::optional<Refusal> ExpositionRules::summary(const Sample& s, std::string_view suffix,
                                                const Place& where, const char* valueAt) {
    if (suffix.empty()) {
        const Label* q = findLabel(s.labels, "quantile");
        if (!q)
            return Refusal{valueAt,
                           "a summary's sample " + quoted(s.name) + " needs a 'quantile' label"};
        double quantile = 0;
        if (!parseBound(q->value, quantile) || quantile < 0 || quantile > 1)
            return Refusal{q->value.data(),
                           "quantile=" + quoted(q->value) + " must be a number from 0 to 1"};
        Group& g = *m_group;
        // 0.0.4 wants quantiles in increasing order; OpenMetrics takes them in any.
        if (!m_om && g.anyBound && quantile <= g.bound)
            warn(where, q->value.data(),
                 "quantiles out of order: quantile=" + quoted(q->value) + " after '" +
                     number(g.bound) + "'; they must increase");
        if (m_om && s.value < 0)
            warn(where, valueAt,
                 "a quantile's value must not be negative, got " + number(s.value) +
                     " (OpenMetrics)");
        if (!g.anyBound) g.first = {where.line, where.lineStart, q->value.data()};
        g.bound = std::max(quantile, g.anyBound ? g.bound : quantile);
        g.anyBound = true;
        return std::nullopt;
    }
    if (m_om)
        if (const Label* q = findLabel(s.labels, "quantile"))
            warn(where, q->name.data(),
                 quoted(s.name) + " has a 'quantile' label: only a summary's quantiles may "
                                  "(OpenMetrics)");
    if (suffix == "_count") {
        if (std::isnan(s.value) || s.value < 0)
            return Refusal{valueAt, "a summary's _count must not be " +
                                        std::string(std::isnan(s.value) ? "NaN" : "negative") +
                                        ", got " + number(s.value) + "; not used"};
        if (m_om && std::isfinite(s.value) && s.value != std::floor(s.value))
            warn(where, valueAt,
                 "a summary's _count must be an integer in OpenMetrics, got " + number(s.value));
        return std::nullopt;
    }
    if (suffix == "_sum" && std::isnan(s.value))
        warn(where, valueAt, "a summary's sum should not be NaN");
    else if (suffix == "_sum" && m_om && s.value < 0)
        warn(where, valueAt,
             "a summary's sum must not be negative, got " + number(s.value) + " (OpenMetrics)");
    return std::nullopt;
}

// What needs all of one MetricPoint of a histogram.
void ExpositionRules::histogramPoint(const Group& g) {
    if (!g.member) return;
    const bool histogram = m_type == MetricType::Histogram;
    const std::string name = quoted(m_family);
    if (g.anyBound && !g.hasInf)
        warn(g.first, nullptr,
             "histogram " + name +
                 " has no le=\"+Inf\" bucket for these labels; every histogram needs one");
    if (!g.anyBound)
        warn(g.hasCount ? g.count
             : g.hasSum ? g.sum
                        : g.start,
             nullptr,
             "histogram " + name +
                 " has samples but no buckets for these labels; it needs at least le=\"+Inf\"");
    if (g.hasInf && g.hasCount && g.infValue != g.countValue)
        warn(g.count, g.count.at,
             "histogram " + name + " count " + number(g.countValue) +
                 " is not its le=\"+Inf\" bucket's " + number(g.infValue) + "; they must be equal");
    if (!m_om) return;
    // OpenMetrics only: 0.0.4 histograms may observe negative values into positive buckets,
    // and their sums then go negative.
    if (g.hasSum && g.sumValue < 0 && !g.negativeBound)
        warn(g.sum, g.sum.at,
             "histogram " + name + " sum " + number(g.sumValue) +
                 " is negative with no negative bucket bound");
    if (histogram && g.hasSum && g.negativeBound)
        warn(g.sum, g.sum.at,
             "histogram " + name +
                 " has negative bucket bounds and a _sum: with those its sum is no counter, and "
                 "OpenMetrics wants none");
    if (g.hasSum != g.hasCount)
        warn(g.hasSum ? g.sum : g.count, nullptr,
             "histogram " + name + " has a " +
                 (g.hasSum ? "sum but no count" : "count but no sum") +
                 " for these labels; OpenMetrics wants both or neither");
}

} // namespace ft::importers::prom::detail
