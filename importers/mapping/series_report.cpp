// SeriesMapper's account of what it did: per metric family the channels it reached, how its
// series were placed (by name, UUID, host and index...) and why the rest were not, for
// --check-source and the Sources panel; and the news (placements, jobs) handed on to the sim.
#include "entity_resolver.h"
#include "series_mapper.h"

#include <algorithm>
#include <map>
#include <string>

namespace ft::importers {

using namespace mapping;

bool SeriesMapper::tallyUnplaced(FamilyReport& f, const CacheEntry& e,
                                 std::string_view metric) const {
    switch (e.kind) {
    case EntryKind::Ignored: {
        ++f.ignored;
        const std::string& name = m_ignoredNames.counts[e.index].name;
        f.ignoredWhy = name.substr(std::min(name.size(), metric.size() + 2));
        return true;
    }
    case EntryKind::Unmapped:
        ++f.noRule;
        return true;
    case EntryKind::Unresolved:
        ++f.notPlaced[m_unresolvedNames.counts[e.index].name];
        return true;
    case EntryKind::Mapped:
    case EntryKind::Slice:
        break;
    }
    return false;
}

void SeriesMapper::tallyChannels(FamilyReport& f, const CacheEntry& e) const {
    f.channels.insert(e.first.channel);
    if (e.kind == EntryKind::Slice) return; // its index is the slice's, not more targets
    for (std::uint32_t i = 0; i + 1 < e.targetCount; ++i)
        f.channels.insert(m_targets[e.index + i].channel);
}

std::map<std::string, FamilyReport, std::less<>> SeriesMapper::seriesReport() const {
    std::map<std::string, FamilyReport, std::less<>> out;
    for (const CacheEntry& e : m_entries) {
        const std::string& metric = m_familyNames.counts[e.family].name;
        FamilyReport& f = out[metric];
        ++f.samples;
        if (tallyUnplaced(f, e, metric)) continue;
        ++f.placed;
        tallyChannels(f, e);
        ++f.placedBy[e.kind == EntryKind::Slice ? std::string("MIG instance of its GPU")
                                                : std::string(kKeyNames[e.first.key])];
    }
    return out;
}

std::vector<FamilyMapping> SeriesMapper::familyMappings() const {
    std::vector<FamilyMapping> out;
    for (const auto& [name, f] : seriesReport()) {
        FamilyMapping m;
        m.family = name;
        m.series = f.samples;
        m.placed = f.placed;
        m.ignored = f.ignored;
        m.noRule = f.noRule;
        m.ignoredWhy = f.ignoredWhy;
        for (const auto c : f.channels)
            m.channels.emplace_back(model::kChannels[c].name);
        for (const auto& [key, n] : f.placedBy)
            m.placedBy.push_back({key, n});
        for (const auto& [why, n] : f.notPlaced)
            m.notPlaced.push_back({why, n});
        out.push_back(std::move(m));
    }
    return out;
}

std::optional<std::vector<FamilyMapping>>
SeriesMapper::handOnNews(const SubmitFn& submit, std::uint16_t source,
                         std::chrono::steady_clock::time_point& last,
                         std::chrono::steady_clock::duration every) {
    submitGpuJobs(submit, source, takeGpuJobs(), takeGpuSlices());
    const auto now = std::chrono::steady_clock::now();
    if (now - last <= every) return std::nullopt;
    last = now;
    return familyMappings(); // a walk over the series seen
}

void SeriesMapper::report(std::string_view metric, const CacheEntry& entry, std::size_t produced,
                          std::uint64_t invalid) {
    auto it = m_families.find(metric);
    if (it == m_families.end()) it = m_families.emplace(std::string(metric), FamilyReport{}).first;
    FamilyReport& f = it->second;
    ++f.samples;
    if (tallyUnplaced(f, entry, metric)) return;
    if (entry.kind == EntryKind::Slice && invalid == 0) {
        ++f.placed;
        tallyChannels(f, entry);
        ++f.placedBy["MIG instance of its GPU"];
        return;
    }
    if (invalid > 0) {
        f.invalid += invalid;
        f.notPlaced["outside the rule's valid range (a blank or unsupported reading)"] += invalid;
    }
    if (produced > 0)
        ++f.placed;
    else if (invalid == 0)
        ++f.notPlaced["held back (a rate's first sample, a fallback while its primary speaks, "
                      "or not newer than the last)"];
    tallyChannels(f, entry);
    if (produced > 0) ++f.placedBy[std::string(kKeyNames[entry.first.key])];
}

} // namespace ft::importers
