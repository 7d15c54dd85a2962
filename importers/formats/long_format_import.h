#pragma once
// Long-format sample files: one sample per line as (time, entity, channel, value), the shape
// spreadsheets, pandas and most TSDB exports can produce.
//
//   CSV    time,entity,channel,value
//          2026-11-30T06:33:41.250Z,gpu:A03 tray 02 GPU 1,gpu.temperature,71.5
//          1764484421,rack:A03,rack.power,142.0
//   JSONL  {"time": "2026-11-30T06:33:41Z", "entity": "rack:A03", "channel": "rack.power",
//           "value": 142}
//
// time: RFC 3339 (a 'T' or a space between date and time; 'Z' or an offset) or a number since
// the Unix epoch in seconds, milliseconds, microseconds or nanoseconds (by magnitude, unless the
// options fix the unit). entity: kind:name with the floor's display names or ids. channel: a
// catalog name of the entity's kind. CSV may start with a header naming the four columns in any
// order (time may be "timestamp" or "ts", channel "metric"); '#' starts a comment line; fields
// may be quoted. A bad line is reported (file:line:column, what was expected) and skipped.
#include "importers/recording/file_import.h"
#include "model/topology.h"

#include <optional>

namespace ft::importers {

enum class LongFormat : std::uint8_t {
    Auto,
    Csv,
    Jsonl
}; // Auto: by extension, else by first character
enum class EpochUnit : std::uint8_t { Auto, Seconds, Milliseconds, Microseconds, Nanoseconds };

struct LongFormatOptions {
    LongFormat format = LongFormat::Auto;
    EpochUnit epochUnit = EpochUnit::Auto;
};

// Fails only when the file cannot be read or its CSV header is unusable; bad lines are in the
// report.
std::expected<ImportReport, Error> importLongFormatFile(const std::string& path,
                                                        const model::Topology& topology,
                                                        const ImportHooks& hooks,
                                                        LongFormatOptions options = {});
// The same over text in memory; `name` stands for the file in messages.
std::expected<ImportReport, Error> importLongFormatText(std::string_view text,
                                                        const std::string& name,
                                                        const model::Topology& topology,
                                                        const ImportHooks& hooks,
                                                        LongFormatOptions options = {});

// "2026-11-30T06:33:41.25Z", "2026-11-30 08:33:41+02:00" -> ns since the epoch.
std::optional<model::TimeNs> parseRfc3339(std::string_view text);
// RFC 3339 or an epoch number (see the header comment for Auto).
std::optional<model::TimeNs> parseTimeText(std::string_view text, EpochUnit unit = EpochUnit::Auto);

} // namespace ft::importers
