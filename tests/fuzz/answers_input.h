#pragma once
// One fuzz input for what servers answer and what users export: a Prometheus API answer
// (/api/v1/query, /api/v1/query_range JSON) and long-format sample files (CSV, JSONL), which
// resolve entity and channel names on a real floor. The first byte picks the parser (and, for
// long-format files, the epoch unit), the rest is the text. A failure must say what is wrong;
// a success is read back (every series, point, sample) so a view past the input or a bad
// index trips AddressSanitizer; every kept time must be one the twin can hold. Shared by the
// libFuzzer target and the regression test that replays tests/data/fuzz-regressions.
#include "importers/floor_file.h"
#include "importers/long_format_import.h"
#include "importers/promql_response.h"
#include "model/channel_catalog.h"
#include "model/topology.h"

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
