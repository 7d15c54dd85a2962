#include "exposition_rules.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

namespace ft::importers::prom::detail {
namespace {

// OpenMetrics 1.0: an exemplar's label names and values together, in UTF-8 characters.
constexpr std::size_t kExemplarLabelChars = 128;

// The shortest spelling that reads back as v.
std::string number(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return {buf, r.ptr};
}

std::string quoted(std::string_view s) {
    return "'" + std::string(s.substr(0, 80)) + (s.size() > 80 ? "...'" : "'");
}

const Label* findLabel(std::span<const Label> labels, std::string_view name) {
    for (const Label& l : labels)
        if (l.name == name) return &l;
    return nullptr;
}

bool parseBound(std::string_view text, double& out) {
    return !text.empty() && parseNumber(text.data(), text.data() + text.size(), out) &&
           !std::isnan(out);
}

std::size_t utf8Chars(std::string_view s) {
    return static_cast<std::size_t>(std::ranges::count_if(
        s, [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// The second of two labels with one name, or null. Most label sets are short: a 64-bit filter
// on (length, first and last byte) sends only likely pairs to the full comparison.
const Label* duplicateName(std::span<const Label> labels) {
    if (labels.size() < 2) return nullptr;
    if (labels.size() <= 32) {
        std::uint64_t seen = 0;
        for (std::size_t i = 0; i < labels.size(); ++i) {
            const std::string_view n = labels[i].name;
            const unsigned bit =
                (n.size() * 7 + (n.empty() ? 0
                                           : static_cast<unsigned char>(n.front()) * 3 +
                                                 static_cast<unsigned char>(n.back()))) &
                63;
            if (seen & (std::uint64_t{1} << bit))
                for (std::size_t j = 0; j < i; ++j)
                    if (labels[j].name == n) return &labels[i];
            seen |= std::uint64_t{1} << bit;
        }
        return nullptr;
    }
    std::vector<const Label*> sorted;
    sorted.reserve(labels.size());
    for (const Label& l : labels)
        sorted.push_back(&l);
    std::ranges::stable_sort(sorted, {}, &Label::name);
    for (std::size_t i = 1; i < sorted.size(); ++i)
        if (sorted[i]->name == sorted[i - 1]->name) return std::max(sorted[i], sorted[i - 1]);
    return nullptr;
}

} // namespace

std::optional<Refusal> ExpositionRules::check(Sample& s, const Place& where, const char* valueAt,
                                              const char* exemplarAt) {
    if (const Label* dup = duplicateName(s.labels))
        return Refusal{dup->name.data(), "label " + quoted(dup->name) +
                                             " appears twice in the label set; a sample's "
                                             "label names must be unique"};
    if (const std::uint64_t first = m_dump && !s.timestampNs ? 0 : firstLineOf(s, where, valueAt))
        warn(where, nullptr,
             "series " + quoted(s.name) +
                 (s.labels.empty() ? std::string() : " with these labels") +
                 (s.timestampNs ? " at this timestamp" : "") + " is already in this scrape (line " +
                 std::to_string(first) +
                 "); each series may appear once (the later value is "
                 "used)");
    if (m_family.empty() && m_groups.empty()) {
        m_family = s.family;
        m_type = s.type;
    }
    const std::string_view suffix = s.name.size() > s.family.size() && s.name.starts_with(s.family)
                                        ? s.name.substr(s.family.size())
                                        : std::string_view{};
    std::optional<Refusal> refusal;
    switch (s.type) {
    case MetricType::Counter:
        refusal = counter(s, suffix, valueAt);
        if (!refusal && m_om && suffix.empty())
            onceForFamily(where, s.family.ends_with("_total")
                                     ? "counter family " + quoted(s.family) +
                                           " ends in _total: in OpenMetrics the family is named "
                                           "without it and its samples with it (is this 0.0.4 "
                                           "text with a '# EOF' line?)"
                                     : "OpenMetrics names a counter's samples " + quoted(s.family) +
                                           " + '_total', not " + quoted(s.name));
        break;
    case MetricType::Histogram:
    case MetricType::GaugeHistogram:
        refusal = histogram(s, suffix, where, valueAt);
        break;
    case MetricType::Summary:
        refusal = summary(s, suffix, where, valueAt);
        break;
    case MetricType::Info:
        if (m_om && suffix.empty())
            onceForFamily(where, "OpenMetrics names an info metric's samples " + quoted(s.family) +
                                     " + '_info', not " + quoted(s.name));
        if (m_om && s.value != 1)
            warn(where, valueAt,
                 "an info metric's value must be 1, got " + number(s.value) + " (OpenMetrics)");
        break;
    case MetricType::StateSet:
        if (s.value != 0 && s.value != 1)
            warn(where, valueAt, "a state set's value must be 0 or 1, got " + number(s.value));
        if (!findLabel(s.labels, s.family))
            warn(where, nullptr,
                 "a state set's sample needs a label named like its family, " + quoted(s.family) +
                     ", that names the state");
        break;
    default:
        break;
    }
    if (refusal) return refusal;
    if (s.exemplar) exemplar(s, suffix, where, exemplarAt);
    return std::nullopt;
}

std::optional<Refusal> ExpositionRules::counter(const Sample& s, std::string_view suffix,
                                                const char* valueAt) {
    if (suffix == "_created") return std::nullopt; // a time, not a count
    if (std::isnan(s.value)) return Refusal{valueAt, "a counter's value must not be NaN; not used"};
    if (s.value < 0)
        return Refusal{valueAt, "a counter's value must not be negative (got " + number(s.value) +
                                    "); not used: it would read as a reset"};
    return std::nullopt;
}

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

    if (suffix == "_bucket") {
        const Label* le = findLabel(s.labels, "le");
        if (!le) return Refusal{valueAt, "a histogram bucket needs an 'le' label (its bound)"};
        double bound = 0;
        if (!parseBound(le->value, bound))
            return Refusal{le->value.data(),
                           "le=" + quoted(le->value) + " is not a number (a bucket's bound)"};
        if (auto r = badCount("a bucket's count")) return r;
        Group& g = group(s, "le");
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
        Group& g = group(s, "le");
        g.hasCount = true;
        g.countValue = s.value;
        g.count = {where.line, where.lineStart, valueAt};
        return std::nullopt;
    }
    if (suffix == (gauge ? "_gsum" : "_sum")) {
        if (std::isnan(s.value)) warn(where, valueAt, "a histogram's sum should not be NaN");
        Group& g = group(s, "le");
        g.hasSum = true;
        g.sumValue = s.value;
        g.sum = {where.line, where.lineStart, valueAt};
        return std::nullopt;
    }
    if (suffix != "_created")
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
        Group& g = group(s, "quantile");
        if (g.anyBound && quantile <= g.bound)
            warn(where, q->value.data(),
                 "quantiles out of order: quantile=" + quoted(q->value) + " after '" +
                     number(g.bound) + "'; they must increase");
        if (!g.anyBound) g.first = {where.line, where.lineStart, q->value.data()};
        g.bound = std::max(quantile, g.anyBound ? g.bound : quantile);
        g.anyBound = true;
        return std::nullopt;
    }
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
    return std::nullopt;
}

void ExpositionRules::exemplar(Sample& s, std::string_view suffix, const Place& where,
                               const char* at) {
    const bool allowed =
        (s.type == MetricType::Counter && suffix == "_total") ||
        ((s.type == MetricType::Histogram || s.type == MetricType::GaugeHistogram) &&
         suffix == "_bucket");
    if (!allowed) {
        warn(where, at,
             "exemplar on " + quoted(s.name) +
                 " dropped: OpenMetrics allows exemplars only on a counter's _total and a "
                 "histogram's _bucket samples");
        s.exemplar = nullptr;
        return;
    }
    std::size_t chars = 0;
    for (const Label& l : s.exemplar->labels)
        chars += utf8Chars(l.name) + utf8Chars(l.value);
    if (chars > kExemplarLabelChars) {
        warn(where, at,
             "exemplar dropped: its labels are " + std::to_string(chars) +
                 " characters, over OpenMetrics' " + std::to_string(kExemplarLabelChars));
        s.exemplar = nullptr;
    }
}

void ExpositionRules::endFamily() {
    const bool histogram = m_type == MetricType::Histogram;
    if (histogram || m_type == MetricType::GaugeHistogram) {
        const std::string name = quoted(m_family);
        for (const auto& [key, g] : m_groups) {
            if (g.anyBound && !g.hasInf)
                warn(g.first, nullptr,
                     "histogram " + name +
                         " has no le=\"+Inf\" bucket for these labels; every histogram needs one");
            if (!g.anyBound && (g.hasCount || g.hasSum))
                warn(g.hasCount ? g.count : g.sum, nullptr,
                     "histogram " + name +
                         " has a count or sum but no buckets for these labels; it needs at "
                         "least le=\"+Inf\"");
            if (g.hasInf && g.hasCount && g.infValue != g.countValue)
                warn(g.count, g.count.at,
                     "histogram " + name + " count " + number(g.countValue) +
                         " is not its le=\"+Inf\" bucket's " + number(g.infValue) +
                         "; they must be equal");
            // OpenMetrics only: 0.0.4 histograms may observe negative values into positive
            // buckets, and their sums then go negative.
            if (m_om && histogram && g.hasSum && g.sumValue < 0 && !g.negativeBound)
                warn(g.sum, g.sum.at,
                     "histogram " + name + " sum " + number(g.sumValue) +
                         " is negative with no negative bucket bound");
        }
    }
    m_groups.clear();
    m_family.clear();
    // A series repeated in a later block of its family is told by the "resume here" rule: the
    // series table holds one family's block (small, so it stays in cache).
    endScrape();
    m_type = MetricType::Unknown;
    m_familyWarned = false;
}

ExpositionRules::Group& ExpositionRules::group(const Sample& s, std::string_view except) {
    // The labels other than `except`, in any order.
    std::uint64_t key = 0x9E3779B97F4A7C15ULL;
    const std::hash<std::string_view> hash;
    for (const Label& l : s.labels) {
        if (l.name == except) continue;
        std::uint64_t h = hash(l.name) * 0xBF58476D1CE4E5B9ULL ^ hash(l.value);
        h ^= h >> 31;
        key += h * 0x94D049BB133111EBULL;
    }
    return m_groups[key];
}

void ExpositionRules::endScrape() {
    if (++m_generation != 0) return;
    // Four billion scrapes on: slots of generation 0 would count again.
    m_generation = 1;
    for (SeriesSlot& slot : m_series)
        slot.generation = 0;
}

namespace {
// A quick 64-bit hash of bytes: four independent lanes of 8 bytes (a series' text is a few
// hundred bytes, and this runs for every sample of a scrape).
std::uint64_t quickHash(const char* p, std::size_t n) {
    std::array<std::uint64_t, 4> lane{0x9E3779B97F4A7C15ULL, 0xBF58476D1CE4E5B9ULL,
                                      0x94D049BB133111EBULL, 0x2545F4914F6CDD1DULL ^ n};
    for (; n >= 32; p += 32, n -= 32)
        for (std::size_t i = 0; i < 4; ++i) {
            std::uint64_t w = 0;
            std::memcpy(&w, p + 8 * i, 8);
            lane[i] = (lane[i] ^ w) * 0xFF51AFD7ED558CCDULL;
            lane[i] ^= lane[i] >> 32;
        }
    for (std::size_t i = 0; n > 0; i = (i + 1) % 4) {
        std::uint64_t w = 0;
        const std::size_t k = std::min<std::size_t>(n, 8);
        std::memcpy(&w, p, k);
        lane[i] = (lane[i] ^ w) * 0xFF51AFD7ED558CCDULL;
        lane[i] ^= lane[i] >> 32;
        p += k;
        n -= k;
    }
    std::uint64_t h = lane[0] ^ (lane[1] * 0xC4CEB9FE1A85EC53ULL) ^ std::rotl(lane[2], 21) ^
                      std::rotl(lane[3] * 0x9E3779B97F4A7C15ULL, 43);
    h ^= h >> 33;
    return h * 0xC4CEB9FE1A85EC53ULL;
}
} // namespace

std::uint64_t ExpositionRules::firstLineOf(const Sample& s, const Place& where,
                                           const char* valueAt) {
    // The series as written: the line up to its value (name and label set; the same labels in
    // another order or spelling count as another series here).
    const char* end = valueAt;
    while (end > where.lineStart && (end[-1] == ' ' || end[-1] == '\t'))
        --end;
    std::uint64_t key = quickHash(where.lineStart, static_cast<std::size_t>(end - where.lineStart));
    key ^= s.timestampNs ? static_cast<std::uint64_t>(*s.timestampNs) * 0xD6E8FEB86659FD93ULL
                         : 0x5851F42D4C957F2DULL;
    key ^= key >> 29;
    if (m_countedGeneration != m_generation) {
        m_countedGeneration = m_generation;
        m_seriesCount = 0;
    }
    if ((m_seriesCount + 1) * 2 > m_series.size()) {
        // Grow (and drop the slots of earlier blocks while at it).
        std::vector<SeriesSlot> grown(std::max<std::size_t>(1024, m_series.size() * 2));
        const std::size_t mask = grown.size() - 1;
        for (const SeriesSlot& slot : m_series) {
            if (slot.generation != m_generation) continue;
            std::size_t j = slot.key & mask;
            while (grown[j].generation == m_generation)
                j = (j + 1) & mask;
            grown[j] = slot;
        }
        m_series = std::move(grown);
    }
    const std::size_t mask = m_series.size() - 1;
    for (std::size_t j = key & mask;; j = (j + 1) & mask) {
        SeriesSlot& slot = m_series[j];
        if (slot.generation != m_generation) {
            slot = {key,
                    static_cast<std::uint32_t>(std::min<std::uint64_t>(where.line, UINT32_MAX)),
                    m_generation};
            ++m_seriesCount;
            return 0;
        }
        if (slot.key == key) return slot.line;
    }
}

void ExpositionRules::onceForFamily(const Place& where, std::string message) {
    if (m_familyWarned) return;
    m_familyWarned = true;
    warn(where, nullptr, std::move(message) + " (said once for the family)");
}

void ExpositionRules::warn(const Place& where, const char* at, std::string message) {
    m_findings.warn({where.line, where.lineStart, at ? at : where.at}, std::move(message));
}

} // namespace ft::importers::prom::detail
