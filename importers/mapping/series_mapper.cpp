#include "series_mapper.h"

#include "entity_resolver.h"
#include "importers/floor/pci_address.h"
#include "series_key.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>

namespace ft::importers {

using namespace mapping; // the entity resolver, internal to the mapper

namespace {

using model::EntityId;
using model::EntityKind;
using F = CaptureField;

std::string_view labelValue(std::string_view metric, std::span<const prom::Label> labels,
                            std::string_view name) {
    if (name == "__name__") return metric;
    for (const auto& l : labels)
        if (l.name == name) return l.value;
    return {};
}

} // namespace

SeriesMapper::SeriesMapper(MappingRules rules, const model::Topology& topology)
    : m_rules(std::move(rules)), m_topology(topology), m_names(topology) {}

void SeriesMapper::clearCache() {
    m_entries.clear();
    m_index.clear();
    m_next = 0;
    m_targets.clear();
    m_stats.series = 0;
}

SeriesMapper::IndexSlot& SeriesMapper::indexSlot(std::uint64_t key) {
    if (m_index.empty()) m_index.resize(1024);
    const std::size_t mask = m_index.size() - 1;
    for (std::size_t i = key & mask;; i = (i + 1) & mask)
        if (m_index[i].key == key || m_index[i].key == 0) return m_index[i];
}

std::uint32_t SeriesMapper::slotFor(model::ChannelId channel, EntityId entity) {
    const std::uint64_t key = (static_cast<std::uint64_t>(channel) << 32) | entity;
    auto [it, inserted] = m_slots.try_emplace(key, static_cast<std::uint32_t>(m_states.size()));
    if (inserted) m_states.emplace_back();
    return it->second;
}

std::uint32_t SeriesMapper::counterIndex(NameCounter& counter, std::string_view name) {
    if (auto it = counter.index.find(std::string(name)); it != counter.index.end())
        return it->second;
    const std::string key =
        counter.index.size() < kMaxTrackedNames ? std::string(name) : std::string("(other)");
    auto [it, inserted] =
        counter.index.try_emplace(key, static_cast<std::uint32_t>(counter.counts.size()));
    if (inserted) counter.counts.push_back({key, 0});
    return it->second;
}

std::vector<NameCount> SeriesMapper::top(const NameCounter& counter, std::size_t n) {
    std::vector<NameCount> out;
    for (const auto& c : counter.counts)
        if (c.count > 0) out.push_back(c);
    std::ranges::sort(out, [](const NameCount& a, const NameCount& b) {
        return a.count != b.count ? a.count > b.count : a.name < b.name;
    });
    if (out.size() > n) out.resize(n);
    return out;
}

namespace {

// kube-prometheus scrapes dcgm-exporter through its pod, and the series of a GPU that runs no
// workload keep the exporter pod's own namespace, pod and container (gpu-operator /
// nvidia-dcgm-exporter-wqqqn / nvidia-dcgm-exporter): that pod is no job. A GPU given to a
// workload carries the workload's names instead (the exporter sets them, honor_labels keeps
// them).
bool exporterPod(std::string_view pod, std::string_view container) {
    for (const std::string_view name : {"nvidia-dcgm-exporter", "dcgm-exporter"})
        if (container == name ||
            (pod.starts_with(name) && pod.size() > name.size() && pod[name.size()] == '-'))
            return true;
    return false;
}

} // namespace

void SeriesMapper::notePlacement(model::EntityId gpu, std::uint8_t key) {
    // gpu.placed_by: 1 UUID, 2 host and PCI address, 3 host and index.
    const std::uint8_t code = key == kByUuid ? 1 : key == kByPci ? 2 : key == kByHostIndex ? 3 : 0;
    if (code == 0) return;
    if (m_gpuPlacedBy.size() <= gpu) m_gpuPlacedBy.resize(m_topology.count(model::EntityKind::Gpu));
    if (gpu >= m_gpuPlacedBy.size() || m_gpuPlacedBy[gpu] == code) return;
    m_gpuPlacedBy[gpu] = code;
    m_placementChanges.push_back(gpu);
}

std::vector<model::Sample> SeriesMapper::takePlacements(model::TimeNs time) {
    std::vector<model::Sample> out;
    out.reserve(m_placementChanges.size());
    for (const model::EntityId gpu : m_placementChanges)
        out.push_back({time, model::ch::GpuPlacedBy, gpu, static_cast<float>(m_gpuPlacedBy[gpu])});
    m_placementChanges.clear();
    return out;
}

void SeriesMapper::noteGpuJob(model::EntityId gpu, std::span<const prom::Label> labels) {
    // Without honor_labels the workload's names come as exported_*, and namespace/pod are the
    // scraped pod's: the exported ones win.
    std::string_view ns, pod, hpc, container, ens, epod, econtainer;
    for (const auto& l : labels) {
        if (l.name == "namespace") ns = l.value;
        if (l.name == "exported_namespace") ens = l.value;
        if (l.name == "pod") pod = l.value;
        if (l.name == "exported_pod") epod = l.value;
        if (l.name == "container") container = l.value;
        if (l.name == "exported_container") econtainer = l.value;
        if (l.name == "hpc_job") hpc = l.value;
    }
    if (!epod.empty()) {
        ns = ens;
        pod = epod;
        container = econtainer;
    }
    if (!pod.empty() && exporterPod(pod, container)) {
        ++m_stats.exporterPodSeries;
        ns = pod = {};
    }
    std::string job =
        !hpc.empty()   ? std::string(hpc)
        : !pod.empty() ? (ns.empty() ? std::string(pod) : std::string(ns) + "/" + std::string(pod))
                       : std::string();
    auto [it, fresh] = m_gpuJob.try_emplace(gpu, job);
    if (!fresh && it->second == job) return;
    it->second = job;
    // Users that never take them (file imports) must not grow this without bound.
    if (m_jobChanges.size() >= (std::size_t{1} << 18)) m_jobChanges.clear();
    m_jobChanges.emplace_back(gpu, std::move(job));
}

SeriesMapper::CacheEntry SeriesMapper::resolve(std::string_view metric,
                                               std::span<const prom::Label> labels) {
    if (const std::string_view instance = labelValue(metric, labels, "GPU_I_ID"); !instance.empty())
        return resolveSlice(metric, labels, instance);
    EntityResolver resolver(m_topology, m_names);
    std::vector<Target> found;
    std::optional<model::EntityKind> nameless; // a rule matched, the labels to place it did not
    std::array<std::string_view, LabelPattern::kMaxCaptures> caps;

    for (std::uint32_t r = 0; r < m_rules.rules.size(); ++r) {
        const MappingRule& rule = m_rules.rules[r];
        Captures values{};
        bool metricMatched = false;
        for (std::size_t m = 0; m < rule.metrics.size() && !metricMatched; ++m) {
            if (!rule.metrics[m].match(metric, caps)) continue;
            metricMatched = true;
            for (std::size_t i = 0; i < rule.metricFields[m].size(); ++i)
                values[static_cast<std::size_t>(rule.metricFields[m][i])] = caps[i];
        }
        if (!metricMatched) continue;

        bool labelsMatch = true;
        for (const auto& matcher : rule.matchers) {
            const std::string_view v = labelValue(metric, labels, matcher.label);
            bool ok =
                matcher.pattern.isEmpty() ? v.empty() : (!v.empty() && matcher.pattern.matches(v));
            if (matcher.negate) ok = !ok;
            if (!ok) {
                labelsMatch = false;
                break;
            }
        }
        if (!labelsMatch) continue;
        if (!rule.ignore.empty()) {
            if (!found.empty()) break; // an earlier "continue" rule mapped it
            return {0,
                    {},
                    EntryKind::Ignored,
                    0,
                    counterIndex(m_ignoredNames, std::string(metric) + ": " + rule.ignore)};
        }

        // Each field from its first source that is there (and matches); a pattern's other
        // captures fill their fields too unless those already have a value.
        for (std::size_t f = 0; f < kCaptureFieldCount; ++f) {
            for (const CaptureSource& src : rule.entity.sources[f]) {
                if (values[f]) break;
                const std::string_view v = labelValue(metric, labels, src.label);
                if (v.empty()) continue;
                if (!src.pattern) {
                    values[f] = v;
                    break;
                }
                if (!src.pattern->match(v, caps)) continue;
                for (std::size_t i = 0; i < src.fields.size(); ++i)
                    if (auto& slot = values[static_cast<std::size_t>(src.fields[i])]; !slot)
                        slot = caps[i];
            }
        }
        if (!canName(rule.entity, values)) {
            nameless = rule.entity.kind;
            continue; // this rule is for series that carry other labels
        }

        auto resolved = resolver.resolve(rule.entity, values);
        if (!resolved) {
            if (!found.empty()) break; // an earlier "continue" rule mapped it
            CacheEntry e{
                0, {}, EntryKind::Unresolved, 0, counterIndex(m_unresolvedNames, resolved.error())};
            const auto& host = values[static_cast<std::size_t>(CaptureField::Host)];
            if (host && !host->empty() && !m_names.trayOfHost(*host))
                e.unknownHost = counterIndex(m_unknownHosts, *host);
            return e;
        }
        const model::ChannelId channel =
            resolved->toEnd && rule.toEndChannel ? *rule.toEndChannel : rule.channel;
        found.push_back(
            {r, slotFor(channel, resolved->entity), resolved->entity, channel, resolved->key});
        if (model::kChannels[channel].kind == model::EntityKind::Gpu) {
            noteGpuJob(resolved->entity, labels);
            notePlacement(resolved->entity, resolved->key);
        }
        if (!resolved->moved.empty())
            ++m_movedGpus.counts[counterIndex(m_movedGpus, resolved->moved)].count;
        if (!rule.continueMatching || found.size() == UINT16_MAX) break;
    }
    if (found.empty() && nameless)
        // A rule knows the metric, but the series lacks the labels that say where it belongs.
        return {0,
                {},
                EntryKind::Unresolved,
                0,
                counterIndex(m_unresolvedNames, "no labels that name its " +
                                                    std::string(model::entityKindName(*nameless)))};
    if (found.empty())
        return {0, {}, EntryKind::Unmapped, 0, counterIndex(m_unmappedNames, metric)};
    const auto more = static_cast<std::uint32_t>(m_targets.size());
    m_targets.insert(m_targets.end(), found.begin() + 1, found.end());
    return {0, found.front(), EntryKind::Mapped, static_cast<std::uint16_t>(found.size()), more};
}

std::size_t SeriesMapper::map(std::string_view metric, std::span<const prom::Label> labels,
                              double value, model::TimeNs time, std::vector<model::Sample>& out) {
    return mapKeyed(seriesKey(metric, labels), metric, labels, value, time, out);
}

std::size_t SeriesMapper::map(const prom::Sample& sample, model::TimeNs scrapeTime,
                              std::vector<model::Sample>& out) {
    const std::uint64_t key =
        sample.series.empty() ? seriesKey(sample.name, sample.labels) : textKey(sample.series);
    return mapKeyed(key, sample.name, sample.labels, sample.value,
                    sample.timestampNs.value_or(scrapeTime), out);
}

std::size_t SeriesMapper::mapKeyed(std::uint64_t key, std::string_view metric,
                                   std::span<const prom::Label> labels, double value,
                                   model::TimeNs time, std::vector<model::Sample>& out) {
    key += key == 0;
    std::size_t at = m_next;
    if (at >= m_entries.size() || m_entries[at].key != key) {
        IndexSlot* slot = &indexSlot(key);
        if (slot->key == 0) {
            if (m_entries.size() >= kMaxCachedSeries) {
                clearCache();
                slot = &indexSlot(key);
            }
            CacheEntry resolved = resolve(metric, labels); // may not touch the cache
            resolved.key = key;
            resolved.family = counterIndex(m_familyNames, metric);
            *slot = {key, static_cast<std::uint32_t>(m_entries.size())};
            m_entries.push_back(resolved);
            m_stats.series = m_entries.size();
            if (m_entries.size() * 4 > m_index.size() * 3) {
                std::vector<IndexSlot> old(m_index.size() * 2);
                old.swap(m_index);
                for (const IndexSlot& e : old)
                    if (e.key != 0) indexSlot(e.key) = e;
                slot = &indexSlot(key);
            }
        }
        at = slot->entry;
    }
    m_next = at + 1;
    const CacheEntry* entry = &m_entries[at];
    if (m_reporting) {
        const std::uint64_t invalidBefore = m_stats.invalid;
        const std::size_t produced = mapEntry(*entry, value, time, out);
        report(metric, *entry, produced, m_stats.invalid - invalidBefore);
        return produced;
    }
    return mapEntry(*entry, value, time, out);
}

SeriesMapper::CacheEntry SeriesMapper::resolveSlice(std::string_view metric,
                                                    std::span<const prom::Label> labels,
                                                    std::string_view instance) {
    // The parent GPU's series: the same labels without the instance's.
    std::vector<prom::Label> parent;
    std::string_view profile;
    for (const auto& l : labels) {
        if (l.name == "GPU_I_PROFILE") profile = l.value;
        if (!l.name.starts_with("GPU_I_")) parent.push_back(l);
    }
    CacheEntry e = resolve(metric, parent);
    if (e.kind != EntryKind::Mapped ||
        model::kChannels[e.first.channel].kind != model::EntityKind::Gpu)
        return e; // not placed, ignored or no GPU channel: as the parent's would be
    std::uint32_t id = 0;
    std::from_chars(instance.data(), instance.data() + instance.size(), id);
    m_sliceTargets.push_back(
        {e.first.rule, e.first.entity, e.first.channel, id, std::string(profile)});
    e.kind = EntryKind::Slice;
    e.targetCount = 1;
    e.index = static_cast<std::uint32_t>(m_sliceTargets.size() - 1);
    return e;
}

std::size_t SeriesMapper::mapSlice(const SliceTarget& t, double value, model::TimeNs time,
                                   std::vector<model::Sample>& out) {
    const MappingRule& rule = m_rules.rules[t.rule];
    if (!(value >= rule.validMin && value <= rule.validMax) ||
        rule.transform == ValueTransform::Rate) { // a rate per slice is not kept
        ++m_stats.invalid;
        return 0;
    }
    ++m_stats.sliced;
    const auto v = static_cast<float>(value * rule.scale + rule.offset);
    Slice& slice = m_slices[t.gpu][t.instance];
    slice.profile = t.profile;
    slice.values[t.channel] = v;
    m_sliceChanges.insert(t.gpu);
    // The GPU's own value where it has no series of its own: its slices' activity, each
    // weighted by its compute slices ("3g.40gb": 3 of 7), idle capacity counting as none.
    using namespace model::ch;
    const bool activity = t.channel == GpuGraphicsActive || t.channel == GpuSmActive ||
                          t.channel == GpuSmOccupancy || t.channel == GpuTensorActive ||
                          t.channel == GpuDramActive || t.channel == GpuFp64Active ||
                          t.channel == GpuFp32Active || t.channel == GpuFp16Active;
    const SeriesState& own = m_states[slotFor(t.channel, t.gpu)];
    if (!activity || own.lastPrimaryTime != std::numeric_limits<model::TimeNs>::min()) return 0;
    double sum = 0;
    for (const auto& [id, other] : m_slices[t.gpu]) {
        const auto it = other.values.find(t.channel);
        if (it == other.values.end()) continue;
        int computeSlices = 1;
        std::from_chars(other.profile.data(), other.profile.data() + other.profile.size(),
                        computeSlices);
        sum += it->second * std::clamp(computeSlices, 1, 7) / 7.0;
    }
    out.push_back({time, t.channel, t.gpu, static_cast<float>(std::min(sum, 100.0))});
    return 1;
}

std::vector<std::pair<model::EntityId, std::string>> SeriesMapper::takeGpuSlices() {
    std::vector<std::pair<model::EntityId, std::string>> out;
    for (const model::EntityId gpu : m_sliceChanges) {
        std::string text;
        for (const auto& [id, slice] : m_slices[gpu]) {
            std::string line = "GI " + std::to_string(id);
            if (!slice.profile.empty()) line += " (" + slice.profile + ")";
            std::string values;
            for (const auto& [channel, v] : slice.values) {
                const auto& info = model::kChannels[channel];
                char buf[96];
                const std::string unit = info.unit == "code" ? "" : " " + std::string(info.unit);
                std::snprintf(buf, sizeof buf, "%s %.*f%s", std::string(info.description).c_str(),
                              info.unit == "%" ? 1 : 0, static_cast<double>(v), unit.c_str());
                std::string item = buf;
                if (!item.empty()) item[0] = static_cast<char>(std::tolower(item[0]));
                values += (values.empty() ? "" : ", ") + item;
            }
            line += ": " + values;
            text += (text.empty() ? "" : "\n") + line;
        }
        out.emplace_back(gpu, std::move(text));
    }
    m_sliceChanges.clear();
    return out;
}

std::size_t SeriesMapper::mapEntry(const CacheEntry& e, double value, model::TimeNs time,
                                   std::vector<model::Sample>& out) {
    const CacheEntry* entry = &e;
    if (entry->kind == EntryKind::Slice) {
        const std::size_t produced = mapSlice(m_sliceTargets[entry->index], value, time, out);
        m_stats.mapped += produced;
        return produced;
    }
    if (entry->kind == EntryKind::Unmapped) {
        ++m_stats.unmapped;
        ++m_unmappedNames.counts[entry->index].count;
        return 0;
    }
    if (entry->kind == EntryKind::Ignored) {
        ++m_stats.ignored;
        ++m_ignoredNames.counts[entry->index].count;
        return 0;
    }
    if (entry->kind == EntryKind::Unresolved) {
        ++m_stats.unresolved;
        ++m_unresolvedNames.counts[entry->index].count;
        if (entry->unknownHost != kNoName) ++m_unknownHosts.counts[entry->unknownHost].count;
        return 0;
    }
    std::size_t produced = 0;
    applyTarget(entry->first, value, time, out, produced);
    for (std::uint32_t i = 0; i + 1 < entry->targetCount; ++i)
        applyTarget(m_targets[entry->index + i], value, time, out, produced);
    m_stats.mapped += produced;
    return produced;
}

void SeriesMapper::applyTarget(const Target& t, double value, model::TimeNs time,
                               std::vector<model::Sample>& out, std::size_t& produced) {
    const MappingRule& rule = m_rules.rules[t.rule];
    if (!(value >= rule.validMin && value <= rule.validMax)) { // NaN fails both
        ++m_stats.invalid;
        return;
    }
    SeriesState& st = m_states[t.slot];
    if (rule.fallback && st.lastPrimaryTime != std::numeric_limits<model::TimeNs>::min() &&
        time - st.lastPrimaryTime < kFallbackHoldNs) {
        ++m_stats.fallbackSuppressed;
        return;
    }
    if (time <= st.lastTime) {
        ++m_stats.outOfOrder;
        return;
    }
    double v = value;
    if (rule.transform == ValueTransform::Rate) {
        const bool primed = st.prevRule == static_cast<std::int32_t>(t.rule);
        const bool reset = primed && value < st.prevValue;
        const double seconds = model::toSeconds(time - st.prevTime);
        v = primed && !reset ? (value - st.prevValue) / seconds : 0.0;
        st.prevValue = value;
        st.prevTime = time;
        st.prevRule = static_cast<std::int32_t>(t.rule);
        if (!primed || reset) {
            ++(reset ? m_stats.counterResets : m_stats.ratePrimed);
            st.lastTime = time;
            return;
        }
    }
    st.lastTime = time;
    if (!rule.fallback) st.lastPrimaryTime = time;
    out.push_back({time, t.channel, t.entity, static_cast<float>(v * rule.scale + rule.offset)});
    ++produced;
}

} // namespace ft::importers
