#pragma once
// The source registry: every kind of live source the twin reads (`--source KIND=TARGET`), with
// all that the command line, its help text, the option checks, --check-source and the mapping
// presets need to know of it. Nothing else names a kind: a new kind of source is one entry in
// sourceKinds() (source_kinds.cpp) with the function that builds it (docs/ARCHITECTURE.md,
// "How to add a source").
#include "command_line.h"
#include "importers/net/http_client.h"
#include "importers/sources/live_source.h"
#include "model/topology.h"

#include <chrono>
#include <cstdint>
#include <expected>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ft::app {

// What a kind's builder gets besides its target: the command line, the credentials and TLS
// settings it parsed (the builder takes what its protocol uses), the poll interval (--interval
// or the kind's default), the floor, where samples go and the source's id.
struct SourceBuild {
    const Options& options;
    std::string_view rules; // the kind's mapping presets (SourceKind::rules)
    importers::HttpOptions http;
    std::chrono::milliseconds interval{};
    std::shared_ptr<const model::Topology> topology;
    importers::SubmitFn submit;
    std::uint16_t sourceId = 0;
};
using BuiltSource = std::expected<std::unique_ptr<importers::LiveSource>, std::string>;
// One read of TARGET onto the floor, as --check-source prints it (JSON); gets the kind's
// mapping presets.
using SourceCheck = std::expected<nlohmann::json, std::string> (*)(const std::string& target,
                                                                   std::string_view presets,
                                                                   const Options&,
                                                                   const model::Topology&);

struct SourceKind {
    std::string_view scheme; // before the '=': "scrape"
    std::string_view syntax; // the whole form as --help shows it: "scrape=URL[,URL...]"
    std::string_view help;   // what it reads, for --help ('\n' starts a continuation line)
    std::chrono::milliseconds interval; // between polls, unless --interval says; 0: pushed
    // The bundled mapping presets it maps with, joined by '+' ("" for a source that places what
    // it reads itself); --mapping replaces them.
    std::string_view rules;
    BuiltSource (*build)(const std::string& target, const SourceBuild&);
    SourceCheck check = nullptr; // --check-source KIND=TARGET; null: not offered
    bool importsWindows = false; // --import-window FROM,TO pulls a time window from it
    bool schedules = false;      // reports the scheduler's node states (--follow-scheduler)
    bool alerting = false;       // the floor's own alerting: --alertmanager-write acts through it
    // The layer that shows what it reads, switched on when it runs (unless --layers says).
    std::string_view layer = {};
};

// Every kind, in the order --help lists them.
std::span<const SourceKind> sourceKinds();
// The kind whose scheme is `scheme`, or null.
const SourceKind* findSourceKind(std::string_view scheme);
// The first --source whose kind imports time windows (--import-window), if any.
std::optional<SourceSpec> windowSourceOf(const Options& o);
// "scrape=URL[,URL...], prometheus=URL, ... or slurm=...", for messages that list the forms.
std::string sourceSyntaxList();
// The first kind that imports time windows (File > Import incident window asks for its URL).
const SourceKind& windowSourceKind();
// The forms of the kinds that import time windows ("prometheus=URL"), for messages.
std::string windowSourceList();
// Whether a --source reports the scheduler's node states, and the forms of those that do.
bool hasSchedulerSource(const Options& o);
std::string schedulerSourceList();
// Whether a --source is the floor's alerting, and the forms of those that are.
bool hasAlertingSource(const Options& o);
std::string alertingSourceList();
// The layers the --sources feed (SourceKind::layer), each once.
std::vector<std::string> sourceLayers(const Options& o);
// "1s scrape, 5s prometheus, ...", for --interval's help (kinds that are pushed have none).
std::string sourceIntervalList();
// The schemes --check-source takes ("scrape=URL, slurm=..."), for its help and its errors.
std::string checkableSourceList();

} // namespace ft::app
