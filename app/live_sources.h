#pragma once
// LiveSources: the telemetry sources the command line names (--source KIND=TARGET, each kind
// built by its entry in the source registry, source_kinds.h) and feeding the sim core; their health
// as the HUD and headless summaries show it; and the offline imports (a file, or a Prometheus time
// window) that turn telemetry into a recording. QtCore only.
#include "command_line.h"
#include "importers/mapping/mapping_rules.h"
#include "importers/mapping/name_suggest.h"
#include "importers/net/http_client.h"
#include "importers/sources/live_source.h"
#include "model/topology.h"
#include "views/source_status.h"

#include <atomic>
#include <expected>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ft::app {

// The credentials and TLS settings every HTTP source gets (--token-file, --user with
// --password-file, --ca-file, --insecure).
std::expected<importers::HttpOptions, std::string> sourceHttpOptions(const Options& o);
// "dcgm-exporter", "bms", "switch-ports": a bundled preset; anything else: a rules file.
std::expected<importers::MappingRules, std::string> loadRules(const std::string& presetOrFile);
// The rules a source maps with: --mapping, or `presets` ('+'-joined bundled presets: what its
// kind usually carries, SourceKind::rules).
std::expected<importers::MappingRules, std::string> rulesFor(const Options& o,
                                                             std::string_view presets);

// --alertmanager-push's interval: --interval, else 15 s.
std::expected<std::chrono::milliseconds, std::string> pushIntervalOf(const Options& o);

std::expected<std::vector<std::unique_ptr<importers::LiveSource>>, std::string>
makeLiveSources(const Options& o, const std::shared_ptr<const model::Topology>& topology,
                const importers::SubmitFn& submit);

// Every target of every source, for the HUD (detail: rate and age, or the last error), with the
// host names they carry that the floor lacks and the nearest floor names (when `suggester`).
std::vector<views::SourceStatus>
sourceStatus(const std::vector<std::unique_ptr<importers::LiveSource>>& sources,
             importers::HostSuggester* suggester = nullptr);
// The headless summary's per-source objects: {name, samples, mapped, unmapped, bad_lines, errors,
// ..., unmapped_hosts on a source's first target}.
nlohmann::json sourcesJson(const std::vector<std::unique_ptr<importers::LiveSource>>& sources,
                           importers::HostSuggester* suggester = nullptr);
// [{host, samples, suggestions}]: unknown host names over all sources, most samples first.
nlohmann::json unmappedHostsJson(const std::vector<importers::NameCount>& hosts,
                                 importers::HostSuggester* suggester, std::size_t limit = 10);
std::vector<importers::NameCount>
unknownHostsOf(const std::vector<std::unique_ptr<importers::LiveSource>>& sources);

// Offline imports into a recording. `progress` gets 0..1; `cancel` stops (the partial file is
// removed). The summary JSON is what a headless run prints.
std::expected<nlohmann::json, std::string>
importFileToRecording(const Options& o, const std::shared_ptr<const model::Topology>& topology,
                      const std::string& file, const std::string& outPath,
                      const std::function<void(double)>& progress = {},
                      const std::atomic<bool>* cancel = nullptr);
std::expected<nlohmann::json, std::string>
importWindowToRecording(const Options& o, const std::shared_ptr<const model::Topology>& topology,
                        const std::string& window, const std::string& outPath,
                        const std::function<void(double)>& progress = {},
                        const std::atomic<bool>* cancel = nullptr);

} // namespace ft::app
