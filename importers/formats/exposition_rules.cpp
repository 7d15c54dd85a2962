#include "exposition_rules.h"

#include "exposition_text.h"

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

// A label's name or value, 8 bytes a step (they are short: one or two steps each).
std::uint64_t wordHash(std::string_view s) {
    std::uint64_t h = s.size() * 0x9E3779B97F4A7C15ULL;
    const char* p = s.data();
    std::size_t n = s.size();
    for (; n >= 8; p += 8, n -= 8) {
        std::uint64_t w = 0;
        std::memcpy(&w, p, 8);
        h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
        h ^= h >> 32;
    }
    std::uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * 0xC4CEB9FE1A85EC53ULL;
    return h ^ (h >> 29);
}

// The end of what precedes a sample's value: its name and label set, blanks trimmed.
const char* seriesEnd(const Place& where, const char* valueAt) {
    while (valueAt > where.lineStart && (valueAt[-1] == ' ' || valueAt[-1] == '\t'))
        --valueAt;
    return valueAt;
}

// The label that tells one Metric's samples apart: a histogram's bucket bound, a summary's
// quantile, a state set's state; none for other types.
std::string_view pointLabel(const Sample& s) {
    switch (s.type) {
    case MetricType::Histogram:
    case MetricType::GaugeHistogram:
        return "le";
    case MetricType::Summary:
        return "quantile";
    case MetricType::StateSet:
        return s.family;
    default:
        return {};
    }
}

} // namespace

std::optional<Refusal> ExpositionRules::check(Sample& s, const Place& where, const char* valueAt,
                                              const char* exemplarAt) {
    if (const Label* dup = duplicateName(s.labels))
        return Refusal{dup->name.data(), "label " + quoted(dup->name) +
                                             " appears twice in the label set; a sample's "
                                             "label names must be unique"};
    if (m_family.empty()) {
        m_family = s.family;
        m_type = s.type;
    }
    const std::string_view suffix = s.name.size() > s.family.size() && s.name.starts_with(s.family)
                                        ? s.name.substr(s.family.size())
                                        : std::string_view{};
    constexpr unsigned kDistributions = 1U << static_cast<unsigned>(MetricType::Histogram) |
                                        1U << static_cast<unsigned>(MetricType::GaugeHistogram) |
                                        1U << static_cast<unsigned>(MetricType::Summary);
    const bool distribution = (kDistributions >> static_cast<unsigned>(s.type) & 1U) != 0;
    std::uint64_t series = 0;
    if (m_om || distribution) {
        series = enterMetric(s, where, valueAt, distribution);
        // Another timestamp in the Metric: its next MetricPoint.
        if (s.timestampNs && m_metricTimestamp && *s.timestampNs != *m_metricTimestamp) {
            if (m_om && *s.timestampNs < *m_metricTimestamp)
                warn(where, nullptr,
                     "timestamp goes back within " + quoted(s.family) +
                         "'s Metric with these labels: its MetricPoints must come in order of "
                         "time, each whole (OpenMetrics)");
            endPoint();
        }
        if (s.timestampNs) m_metricTimestamp = s.timestampNs;
    }
    // A series again: in 0.0.4 another line at another timestamp is another point of it; in
    // OpenMetrics so are lines at the same timestamp (the Metric's order is checked above).
    std::uint64_t first = 0;
    if (m_om)
        first = s.timestampNs ? 0 : repeatInMetric(series, where);
    else if (s.timestampNs || !m_dump)
        first = firstLineOf(s, where, valueAt);
    if (first != 0)
        warn(where, nullptr,
             "series " + quoted(s.name) +
                 (s.labels.empty() ? std::string() : " with these labels") +
                 (s.timestampNs ? " at this timestamp" : "") + " is already in this scrape (line " +
                 std::to_string(first) +
                 "); each series may appear once (the later value is "
                 "used)");
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
    // Each bucket counts the observations up to its bound, an exemplar's among them.
    if (suffix == "_bucket") {
        double bound = 0;
        const Label* le = findLabel(s.labels, "le");
        if (le && parseBound(le->value, bound) && s.exemplar->value > bound) {
            warn(where, at,
                 "exemplar dropped: its value " + number(s.exemplar->value) +
                     " is above its bucket's bound le=" + quoted(le->value));
            s.exemplar = nullptr;
            return;
        }
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

void ExpositionRules::endPoint() {
    if (!m_group) return;
    if (m_type == MetricType::Histogram || m_type == MetricType::GaugeHistogram)
        histogramPoint(*m_group);
    *m_group = Group{};
}

void ExpositionRules::endFamily() {
    if (m_type == MetricType::Histogram || m_type == MetricType::GaugeHistogram)
        for (const Group& g : m_groups)
            histogramPoint(g);
    m_groups.clear();
    m_metrics.clear();
    m_inMetric = false;
    m_group = nullptr;
    m_metricTimestamp.reset();
    m_family.clear();
    // A series repeated in a later block of its family is told by the "resume here" rule: the
    // series table holds one family's block (small, so it stays in cache).
    m_series.clear();
    m_type = MetricType::Unknown;
    m_familyWarned = false;
}

std::uint64_t ExpositionRules::enterMetric(const Sample& s, const Place& where, const char* valueAt,
                                           bool keepsGroup) {
    const std::string_view except = pointLabel(s);
    const char* const nameEnd = s.name.data() + s.name.size();
    const std::less<> before;
    std::uint64_t key = 0x9E3779B97F4A7C15ULL, point = 0;
    std::string_view written; // all the labels as written, when they are in the line
    bool same = false;        // the previous sample's Metric
    if (except.empty() && !before(s.name.data(), where.lineStart) && !before(valueAt, nameEnd)) {
        // The same labels in another order read as another Metric, as series do in
        // firstLineOf(); comparing the text spares a hash while the Metric goes on.
        written = {nameEnd, static_cast<std::size_t>(seriesEnd(where, valueAt) - nameEnd)};
        same = m_inMetric && m_metricWritten.data() && written == m_metricWritten;
    } else {
        for (const Label& l : s.labels) { // all but `except`, in any order
            if (l.name == except) {
                point = wordHash(l.value);
                continue;
            }
            std::uint64_t h = wordHash(l.name) * 0xBF58476D1CE4E5B9ULL ^ wordHash(l.value);
            h ^= h >> 31;
            key += h * 0x94D049BB133111EBULL;
        }
        same = m_inMetric && !m_metricWritten.data() && key == m_metricKey;
    }
    if (!same) {
        m_group = nullptr;
        if (keepsGroup || !m_dump) {
            if (written.data()) key ^= quickHash(written.data(), written.size());
            bool fresh = false;
            std::uint32_t& index = m_metrics.at(key, fresh);
            if (fresh && keepsGroup) {
                m_groups.emplace_back();
                index = static_cast<std::uint32_t>(m_groups.size());
            } else if (!fresh && m_om) {
                warn(where, nullptr,
                     "samples of " + quoted(s.family) +
                         "'s Metric with these labels resume here after another Metric's; "
                         "OpenMetrics wants each Metric's lines together");
            }
            if (index != 0) m_group = &m_groups[index - 1];
        }
        m_metricKey = key;
        m_metricWritten = written;
        m_inMetric = true;
        m_metricTimestamp.reset();
        m_metricSamples = 0;
    }
    // Within the Metric (the table repeatInMetric() keeps is the Metric's alone).
    std::uint64_t series = wordHash(s.name) * 0xD6E8FEB86659FD93ULL ^ point * 0x5851F42D4C957F2DULL;
    series ^= series >> 29;
    return series;
}

void ExpositionRules::endScrape() {
    m_series.clear();
}

std::uint32_t& KeyTable::at(std::uint64_t key, bool& fresh) {
    if ((m_count + 1) * 2 > m_slots.size()) {
        // Grow (and drop the slots of earlier blocks while at it).
        std::vector<Slot> grown(std::max<std::size_t>(1024, m_slots.size() * 2));
        const std::size_t mask = grown.size() - 1;
        for (const Slot& slot : m_slots) {
            if (slot.generation != m_generation) continue;
            std::size_t j = slot.key & mask;
            while (grown[j].generation == m_generation)
                j = (j + 1) & mask;
            grown[j] = slot;
        }
        m_slots = std::move(grown);
    }
    const std::size_t mask = m_slots.size() - 1;
    for (std::size_t j = key & mask;; j = (j + 1) & mask) {
        Slot& slot = m_slots[j];
        if (slot.generation != m_generation) {
            slot = {key, 0, m_generation};
            ++m_count;
            fresh = true;
            return slot.value;
        }
        if (slot.key == key) {
            fresh = false;
            return slot.value;
        }
    }
}

void KeyTable::clear() {
    m_count = 0;
    if (++m_generation != 0) return;
    // Four billion blocks on: slots of generation 0 would count again.
    m_generation = 1;
    for (Slot& slot : m_slots)
        slot.generation = 0;
}

std::uint64_t ExpositionRules::firstLineOf(const Sample& s, const Place& where,
                                           const char* valueAt) {
    // The series as written: the line up to its value (name and label set; the same labels in
    // another order or spelling count as another series here).
    const char* end = seriesEnd(where, valueAt);
    std::uint64_t key = quickHash(where.lineStart, static_cast<std::size_t>(end - where.lineStart));
    key ^= s.timestampNs ? static_cast<std::uint64_t>(*s.timestampNs) * 0xD6E8FEB86659FD93ULL
                         : 0x5851F42D4C957F2DULL;
    key ^= key >> 29;
    return firstLineOf(key, where);
}

std::uint64_t ExpositionRules::repeatInMetric(std::uint64_t series, const Place& where) {
    if (m_metricSamples++ == 0) {
        m_firstSeries = series;
        m_firstSeriesLine = where.line;
        return 0;
    }
    if (m_metricSamples == 2) {
        m_series.clear();
        firstLineOf(m_firstSeries, {m_firstSeriesLine, nullptr, nullptr});
    }
    return firstLineOf(series, where);
}

std::uint64_t ExpositionRules::firstLineOf(std::uint64_t key, const Place& where) {
    bool fresh = false;
    std::uint32_t& line = m_series.at(key, fresh);
    if (fresh) {
        line = static_cast<std::uint32_t>(std::min<std::uint64_t>(where.line, UINT32_MAX));
        return 0;
    }
    return line;
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
