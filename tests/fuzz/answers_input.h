#pragma once
// One fuzz input for what servers answer and what users export: a Prometheus API answer
// (/api/v1/query, /api/v1/query_range JSON), Slurm's answers (sinfo/squeue --json, slurmrestd)
// placed on a floor, Alertmanager's (/api/v2/alerts, its groups, /api/v2/silences) placed on a
// floor and kept as a recording keeps them, and long-format sample files (CSV, JSONL), which
// resolve entity and channel names on a real floor. The first byte picks the parser (0xC0 and up:
// Alertmanager; 0x80 to 0xBF: Slurm; below: by its value mod 3, and for long-format files the
// epoch unit), the rest is the text. A failure
// must say what is wrong; a success is read back (every series, point, sample) so a view past the
// input or a bad index trips AddressSanitizer; every kept time must be one the twin can hold.
// Shared by the libFuzzer target and the regression test that replays tests/data/fuzz-regressions.
#include "importers/floor/floor_file.h"
#include "importers/formats/alertmanager_json.h"
#include "importers/formats/long_format_import.h"
#include "importers/formats/promql_response.h"
#include "importers/formats/slurm_json.h"
#include "importers/mapping/alert_placement.h"
#include "importers/mapping/slurm_floor.h"
#include "importers/recording/alert_sets.h"
#include "model/channel_catalog.h"
#include "model/topology.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

namespace ft::fuzz {

inline const model::Topology& answersFloor() {
    static const auto topology = [] {
        auto built = model::Topology::build(importers::generateFloor(16));
        if (!built) std::abort();
        return std::make_shared<const model::Topology>(std::move(*built));
    }();
    return *topology;
}

inline void fuzzAnswers(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return;
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    volatile double sink = 0;
    const std::uint8_t pick = data[0];
    if (pick >= 0xC0) {
        // Alertmanager: the text as alerts (or groups) and as silences, placed on the floor,
        // and the board through the recording's form and back unchanged.
        auto alerts = importers::parseAlertmanagerAlerts(text, "fuzz");
        auto silences = importers::parseAlertmanagerSilences(text, "fuzz");
        if ((!alerts && alerts.error().empty()) || (!silences && silences.error().empty()))
            std::abort();
        if (!alerts) return;
        for (const auto& w : alerts->warnings)
            if (w.empty()) std::abort();
        if (silences) importers::attachSilences(alerts->alerts, silences->silences);
        importers::EntityNameIndex index(answersFloor());
        importers::placeAlerts(alerts->alerts, index);
        model::AlertBoard board;
        for (auto& a : alerts->alerts) {
            if (a.fingerprint.empty() || !std::ranges::is_sorted(a.labels)) std::abort();
            for (const auto& e : a.entities)
                if (e.id >= answersFloor().count(e.kind)) std::abort();
            if (a.entities.empty() && a.placedBy.empty()) std::abort();
            a.severity = importers::severityOf(a, {});
            board.alerts.push_back(std::move(a));
        }
        if (silences) board.silences = silences->silences;
        const auto back = importers::alertBoardFromJson(importers::alertBoardToJson(board));
        if (!back || *back != board) std::abort();
        return;
    }
    if (pick >= 0x80) {
        // Slurm: an answer (nodes, jobs or both) placed on the floor as nodes and as jobs.
        auto answer = importers::parseSlurmJson(text, "fuzz");
        if (!answer) {
            if (answer.error().empty()) std::abort();
            return;
        }
        for (const auto& n : answer->nodes) {
            if (n.name.empty()) std::abort();
            const auto st = static_cast<int>(importers::schedulerStateOf(n));
            if (st < 0 || st >= model::kSchedulerStates) std::abort();
            sink = sink + static_cast<double>(importers::describeNodeState(n).size());
        }
        for (const auto& j : answer->jobs)
            sink = sink + static_cast<double>(j.nodes.size() + j.id.size());
        importers::EntityNameIndex index(answersFloor());
        const auto placed = importers::placeSlurm(*answer, *answer, index, 1);
        if (placed.placed + placed.unknownNodes.size() != placed.nodes ||
            placed.samples.size() != placed.placed || placed.notes.size() != placed.placed)
            std::abort();
        for (const auto& s : placed.samples)
            if (s.entity >= answersFloor().count(model::EntityKind::ComputeTray)) std::abort();
        for (const auto& [gpu, job] : placed.gpuJobs)
            if (gpu >= answersFloor().count(model::EntityKind::Gpu)) std::abort();
        // The text as a host list too: bounded, and every name non-empty.
        if (auto names = importers::expandHostList(text, 4096)) {
            if (names->size() > 4096) std::abort();
            for (const auto& n : *names) {
                if (n.empty()) std::abort();
                sink = sink + static_cast<double>(n.size());
            }
        } else if (names.error().empty()) {
            std::abort();
        }
        (void)sink;
        return;
    }
    if (pick % 3 == 0) {
        auto answer = importers::parsePromqlResponse(text);
        if (!answer) {
            if (answer.error().message.empty()) std::abort();
            return;
        }
        if (answer->warnings.size() > importers::PromqlResult::kMaxWarnings ||
            answer->warnings.size() > answer->warningCount)
            std::abort();
        for (const auto& w : answer->warnings)
            if (w.size() > importers::PromqlResult::kMaxWarningBytes) std::abort();
        for (const auto& s : answer->series) {
            for (const auto& [k, v] : s.labels)
                sink = sink + static_cast<double>(k.size() + v.size());
            for (const auto& [t, v] : s.points) {
                if (t % model::kNsPerMs != 0) std::abort(); // API times are milliseconds
                sink = sink + (std::isnan(v) ? 0.0 : 1.0);
            }
        }
        return;
    }
    importers::LongFormatOptions options;
    options.format = pick % 3 == 1 ? importers::LongFormat::Csv : importers::LongFormat::Jsonl;
    options.epochUnit = static_cast<importers::EpochUnit>((pick / 3) % 5);
    const model::Topology& floor = answersFloor();
    std::size_t samples = 0;
    importers::ImportHooks hooks;
    hooks.batchSize = 7; // several batches from a small input
    hooks.onBatch = [&](model::SampleBatch&& batch) {
        for (const auto& s : batch.samples) {
            if (s.channel >= model::kChannels.size() ||
                s.entity >= floor.count(model::channelInfo(s.channel).kind))
                std::abort();
            sink = sink + static_cast<double>(s.value);
            ++samples;
        }
    };
    auto report = importers::importLongFormatText(text, "fuzz", floor, hooks, options);
    if (!report) {
        if (report.error().toString().empty()) std::abort();
        return;
    }
    if (report->samples != samples || report->problems.size() > hooks.maxProblems) std::abort();
    for (const auto& p : report->problems)
        if (p.toString().empty()) std::abort();
    (void)sink;
}

} // namespace ft::fuzz
