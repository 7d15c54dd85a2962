#pragma once
// BMS messages: points from a building-management system on the NVIDIA DSX Exchange "BMS Event
// Bus" (MQTT), and how they become twin samples.
//
//   BMS/v1/PUB/Value/{objectType}/{pointType}/{tagPath}
//       {"value": 22.9, "timestamp": 1743620423000, "quality": 1}
//   BMS/v1/PUB/Metadata/{objectType}/{pointType}/{tagPath}
//       {"rackLocationName": "A03", "engUnit": "C", ...}
//   BMS/v1/{integration}/Value/...      values an IT integration writes back
//
// The tagPath is the BMS's own point name and means nothing by itself; what a value is (which
// rack, which loop, which unit) is in the point's metadata, which the bus retains and
// republishes. So BmsMapper remembers metadata per point and maps a value as the series
//   metric  "{objectType}/{pointType}"            e.g. "Rack/RackLiquidSupplyTemperature"
//   labels  tag, publisher, and from the metadata when it has arrived: rack (rackLocationName),
//           rack_id, object (objectName), object_id, associate, process_area (joined with '/',
//           "Secondary/Supply"), unit (engUnit)
// through mapping rules (resources/mappings/bms.json). A value whose quality is not 1, or whose
// value is null, is flagged and not mapped (unless the mapper is told to accept bad quality).
// Captures of the bus as `mosquitto_sub -v` writes them ("TOPIC PAYLOAD" per line) import
// through importBmsCaptureFile.
#include "importers/mapping/series_mapper.h"
#include "importers/recording/file_import.h"

#include <optional>

namespace ft::importers {

enum class BmsMessageKind : std::uint8_t { Value, Metadata };

struct BmsMetadata {
    std::string objectName, objectId, associateId;
    std::string rackLocationName, rackLocationId;
    std::string engUnit;
    std::string integration;
    std::vector<std::string> processArea;
    bool isSetpoint = false;
    bool hasStateText = false; // an enumerated point (e.g. leak: 0 NoLeak, 1 Leak)
};

struct BmsMessage {
    BmsMessageKind kind = BmsMessageKind::Value;
    std::string publisher; // "PUB" for the BMS itself, else the integration's name
    std::string objectType, pointType, tagPath;
    // Value messages.
    std::optional<double> value; // null: the BMS has no valid reading
    model::TimeNs time = 0;      // the payload's epoch-millisecond timestamp
    int quality = 0;             // 1 = good; anything else: not trustworthy
    // Metadata messages.
    BmsMetadata metadata;

    bool goodQuality() const { return quality == 1; }
    // Identifies the point across its value and metadata topics:
    // "{objectType}/{pointType}/{tagPath}".
    std::string pointKey() const { return objectType + "/" + pointType + "/" + tagPath; }
};

// The error names the topic (as the file), and for payload problems the key and the column.
std::expected<BmsMessage, Error> parseBmsMessage(std::string_view topic, std::string_view payload);

struct BmsStats {
    std::uint64_t values = 0;      // value messages seen
    std::uint64_t metadata = 0;    // metadata messages seen
    std::uint64_t badQuality = 0;  // values flagged (quality != 1) and not mapped
    std::uint64_t noValue = 0;     // values that were null
    std::uint64_t unmapped = 0;    // values no rule could place, even with their metadata
    std::uint64_t held = 0;        // values waiting for their point's metadata now
    std::uint64_t released = 0;    // values mapped when their metadata came after them
    std::uint64_t heldDropped = 0; // values not held because kMaxHeld points were waiting
};

// Maps BMS messages to twin samples. Owned by one source (the MQTT client or a capture import)
// and used on its thread only; the topology must outlive it.
class BmsMapper {
public:
    BmsMapper(MappingRules rules, const model::Topology& topology, bool acceptBadQuality = false);

    // Points whose values wait for metadata at most (the newest value of each is kept).
    static constexpr std::size_t kMaxHeld = 65536;

    enum class Outcome : std::uint8_t {
        Mapped,
        Metadata,
        BadQuality,
        NoValue,
        Unmapped,
        Unresolved,
        Dropped,
        Held
    };
    // Metadata is remembered; a value is mapped and its samples appended to out. A value that
    // needs its point's metadata to be placed and arrives before it (the broker hands out
    // retained values before retained metadata, whatever the subscription order) is held — the
    // newest per point, bounded — and mapped into `out` when the metadata comes.
    Outcome apply(const BmsMessage& message, std::vector<model::Sample>& out);

    const BmsStats& stats() const { return m_stats; }
    const SeriesMapper& mapper() const { return m_mapper; }

private:
    SeriesMapper m_mapper;
    bool m_acceptBadQuality;
    // `count`: an unplaceable value counts as unmapped (not while it may still wait).
    Outcome mapValue(const BmsMessage& message, const BmsMetadata* metadata,
                     std::vector<model::Sample>& out, bool count = true);
    std::unordered_map<std::string, BmsMetadata> m_metadata; // by pointKey()
    std::unordered_map<std::string, BmsMessage> m_held;      // by pointKey(): waiting values
    BmsStats m_stats;
    std::string m_metric;
    std::string m_processArea;
};

// Imports a `mosquitto_sub -v -t 'BMS/#'` capture: one "TOPIC PAYLOAD" per line. Lines that do
// not parse are bad lines; values that are flagged or unmapped are counted in mapper.stats().
std::expected<ImportReport, Error> importBmsCaptureFile(const std::string& path, BmsMapper& mapper,
                                                        const ImportHooks& hooks);
std::expected<ImportReport, Error> importBmsCaptureText(std::string_view text,
                                                        const std::string& name, BmsMapper& mapper,
                                                        const ImportHooks& hooks);

} // namespace ft::importers
