#include "long_format_import.h"

#include "delimited_record.h"
#include "importers/mapping/entity_name_index.h"
#include "json_document.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace ft::importers {
namespace {

using model::TimeNs;

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t daysFromCivil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool fixedDigits(std::string_view t, std::size_t pos, std::size_t n, int& out) {
    if (pos + n > t.size()) return false;
    out = 0;
    for (std::size_t i = pos; i < pos + n; ++i) {
        if (t[i] < '0' || t[i] > '9') return false;
        out = out * 10 + (t[i] - '0');
    }
    return true;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

constexpr std::string_view kTimeExpected = "expected an RFC 3339 time (2026-11-30T06:33:41Z) or a "
                                           "number of seconds, ms, us or ns since the epoch";

bool isNumberChar(char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

// One CSV or JSONL line at a time -> samples; keeps the header and the lookups between lines.
class LongFormatReader {
public:
    LongFormatReader(const model::Topology& topology, const std::string& file,
                     LongFormatOptions options, BatchCollector& out)
        : m_names(topology), m_file(file), m_options(options), m_out(out) {}

    // False stops the import: m_fatal holds why.
    bool line(std::string_view text, std::uint64_t number) {
        const std::string_view body = trim(text);
        if (body.empty() || body.starts_with('#')) return true;
        m_line = static_cast<int>(std::min<std::uint64_t>(number, INT32_MAX));
        if (m_options.format == LongFormat::Auto)
            m_options.format = body.starts_with('{') ? LongFormat::Jsonl : LongFormat::Csv;
        if (m_options.format == LongFormat::Jsonl)
            jsonLine(text);
        else
            return csvLine(text);
        return true;
    }

    std::optional<Error> fatal() const { return m_fatal; }

private:
    void bad(int column, std::string key, std::string message) {
        m_out.problem(Error{std::move(message), m_file, m_line, column, std::move(key)});
    }

    // Splits one CSV record (RFC 4180 quoting) into m_fields / m_columns.
    bool splitCsv(std::string_view text) {
        if (auto problem = splitDelimited(text, ',', m_fields, m_columns)) {
            bad(problem->column, {}, problem->message);
            return false;
        }
        return true;
    }

    bool csvLine(std::string_view text) {
        if (!splitCsv(text)) return true;
        if (!m_headerSeen) {
            m_headerSeen = true;
            if (auto header = readHeader(); header) return *header;
        }
        const std::size_t need =
            static_cast<std::size_t>(std::max({m_col[0], m_col[1], m_col[2], m_col[3]})) + 1;
        if (m_fields.size() < need) {
            bad(1, {},
                "expected " + std::to_string(need) +
                    " fields (time, entity, channel, value), got " +
                    std::to_string(m_fields.size()));
            return true;
        }
        const auto at = [&](int c) {
            return std::string_view(m_fields[static_cast<std::size_t>(m_col[c])]);
        };
        const auto col = [&](int c) { return m_columns[static_cast<std::size_t>(m_col[c])]; };
        const auto time = parseTimeText(at(0), m_options.epochUnit);
        if (!time) {
            bad(col(0), "time", std::string(kTimeExpected) + ", got '" + std::string(at(0)) + "'");
            return true;
        }
        const std::string_view valueText = at(3);
        double value = 0;
        auto [p, ec] =
            std::from_chars(valueText.data(), valueText.data() + valueText.size(), value);
        if (ec != std::errc() || p != valueText.data() + valueText.size() ||
            !std::isfinite(value)) {
            bad(col(3), "value", "expected a finite number, got '" + std::string(valueText) + "'");
            return true;
        }
        emit(*time, at(1), col(1), at(2), col(2), value);
        return true;
    }

    // Returns true/false (continue/stop) when the first line was a header; nullopt when it was
    // data.
    std::optional<bool> readHeader() {
        static constexpr std::array<std::array<std::string_view, 3>, 4> kNames{
            {{"time", "timestamp", "ts"},
             {"entity", "entity", "entity"},
             {"channel", "metric", "metric"},
             {"value", "value", "value"}}};
        std::array<int, 4> col{-1, -1, -1, -1};
        bool any = false;
        for (std::size_t f = 0; f < m_fields.size(); ++f) {
            const std::string name = toLowerAscii(m_fields[f]);
            for (int c = 0; c < 4; ++c)
                if (std::ranges::find(kNames[static_cast<std::size_t>(c)], name) !=
                    kNames[static_cast<std::size_t>(c)].end()) {
                    if (col[static_cast<std::size_t>(c)] >= 0) {
                        m_fatal = Error{"CSV header names the " +
                                            std::string(kNames[static_cast<std::size_t>(c)][0]) +
                                            " column twice",
                                        m_file,
                                        m_line,
                                        m_columns[f],
                                        {}};
                        return false;
                    }
                    col[static_cast<std::size_t>(c)] = static_cast<int>(f);
                    any = true;
                }
        }
        if (!any) return std::nullopt;
        for (int c = 0; c < 4; ++c)
            if (col[static_cast<std::size_t>(c)] < 0) {
                m_fatal = Error{"CSV header has no " +
                                    std::string(kNames[static_cast<std::size_t>(c)][0]) +
                                    " column (expected time, entity, channel and value)",
                                m_file,
                                m_line,
                                1,
                                {}};
                return false;
            }
        m_col = col;
        return true;
    }

    void jsonLine(std::string_view text) {
        auto doc = parseJson(text, m_file);
        if (!doc) return bad(doc.error().column, {}, doc.error().message);
        if (doc->type != JsonValue::Type::Object)
            return bad(doc->column, {},
                       R"(expected a JSON object {"time", "entity", "channel", "value"})");
        const JsonValue *time = doc->find("time"), *entity = doc->find("entity"),
                        *channel = doc->find("channel"), *value = doc->find("value");
        for (auto [v, key] :
             {std::pair{time, "time"}, {entity, "entity"}, {channel, "channel"}, {value, "value"}})
            if (!v) return bad(doc->column, key, "missing required key");
        std::optional<TimeNs> t;
        if (time->type == JsonValue::Type::String)
            t = parseTimeText(time->string, m_options.epochUnit);
        else if (time->type == JsonValue::Type::Number) {
            // Re-read the number's own text: a double cannot hold nanoseconds since 1970 exactly.
            std::size_t start = static_cast<std::size_t>(time->column - 1), end = start;
            while (end < text.size() && isNumberChar(text[end]))
                ++end;
            t = parseTimeText(text.substr(start, end - start), m_options.epochUnit);
        }
        if (!t) return bad(time->column, "time", std::string(kTimeExpected));
        if (entity->type != JsonValue::Type::String)
            return bad(entity->column, "entity", "expected a string kind:name");
        if (channel->type != JsonValue::Type::String)
            return bad(channel->column, "channel", "expected a channel name");
        double v = 0;
        if (value->type == JsonValue::Type::Number)
            v = value->number;
        else if (value->type == JsonValue::Type::Bool)
            v = value->boolean ? 1.0 : 0.0;
        else
            return bad(value->column, "value",
                       "expected a number, got " + std::string(JsonValue::typeName(value->type)));
        if (!std::isfinite(v)) return bad(value->column, "value", "expected a finite number");
        emit(*t, entity->string, entity->column, channel->string, channel->column, v);
    }

    void emit(TimeNs time, std::string_view entityText, int entityColumn,
              std::string_view channelText, int channelColumn, double value) {
        auto entity = resolveEntity(entityText);
        if (!entity) return bad(entityColumn, "entity", entity.error());
        auto channel = resolveChannel(channelText);
        if (!channel)
            return bad(channelColumn, "channel",
                       "unknown channel '" + std::string(channelText) +
                           "' (not in the channel catalog)");
        const auto& info = model::channelInfo(*channel);
        if (info.kind != entity->kind)
            return bad(channelColumn, "channel",
                       "channel '" + std::string(info.name) + "' belongs to " +
                           std::string(model::entityKindName(info.kind)) + " entities, but '" +
                           std::string(entityText) + "' is a " +
                           std::string(model::entityKindName(entity->kind)));
        m_out.add({time, *channel, entity->id, static_cast<float>(value)});
    }

    std::expected<model::EntityRef, std::string> resolveEntity(std::string_view text) {
        if (auto it = m_entities.find(std::string(text)); it != m_entities.end()) return it->second;
        auto ref = m_names.parseRef(text);
        // Only hits are kept: a file's entities are bounded by the floor, its typos are not.
        if (ref && m_entities.size() < kMaxCachedEntities)
            m_entities.emplace(std::string(text), *ref);
        return ref;
    }

    std::optional<model::ChannelId> resolveChannel(std::string_view text) {
        if (auto it = m_channels.find(std::string(text)); it != m_channels.end()) return it->second;
        auto id = model::findChannel(text);
        if (id) m_channels.emplace(std::string(text), *id);
        return id;
    }

    static constexpr std::size_t kMaxCachedEntities = 4'000'000;

    EntityNameIndex m_names;
    const std::string& m_file;
    LongFormatOptions m_options;
    BatchCollector& m_out;
    int m_line = 0;
    bool m_headerSeen = false;
    std::array<int, 4> m_col{0, 1, 2, 3}; // time, entity, channel, value
    std::vector<std::string> m_fields;
    std::vector<int> m_columns;
    std::unordered_map<std::string, model::EntityRef> m_entities;
    std::unordered_map<std::string, model::ChannelId> m_channels;
    std::optional<Error> m_fatal;
};

std::expected<ImportReport, Error>
importStream(std::istream& in, std::uint64_t total, const std::string& name,
             const model::Topology& topology, const ImportHooks& hooks, LongFormatOptions options) {
    if (options.format == LongFormat::Auto) {
        const std::string lower = toLowerAscii(name);
        if (lower.ends_with(".csv"))
            options.format = LongFormat::Csv;
        else if (lower.ends_with(".jsonl") || lower.ends_with(".ndjson"))
            options.format = LongFormat::Jsonl;
    }
    ImportReport report;
    {
        BatchCollector out(hooks, report);
        LongFormatReader reader(topology, name, options, out);
        forEachLine(in, total, hooks, report, [&](std::string_view line, std::uint64_t number) {
            return reader.line(line, number);
        });
        if (auto fatal = reader.fatal()) return std::unexpected(*fatal);
    }
    return report;
}

} // namespace

std::optional<TimeNs> parseRfc3339(std::string_view t) {
    int year, month, day, hour, minute, second;
    if (!fixedDigits(t, 0, 4, year) || t.size() < 19 || t[4] != '-' ||
        !fixedDigits(t, 5, 2, month) || t[7] != '-' || !fixedDigits(t, 8, 2, day) ||
        (t[10] != 'T' && t[10] != 't' && t[10] != ' ') || !fixedDigits(t, 11, 2, hour) ||
        t[13] != ':' || !fixedDigits(t, 14, 2, minute) || t[16] != ':' ||
        !fixedDigits(t, 17, 2, second))
        return std::nullopt;
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
        return std::nullopt;
    std::size_t pos = 19;
    std::int64_t fraction = 0;
    if (pos < t.size() && t[pos] == '.') {
        ++pos;
        int digits = 0;
        while (pos < t.size() && t[pos] >= '0' && t[pos] <= '9') {
            if (digits < 9) {
                fraction = fraction * 10 + (t[pos] - '0');
                ++digits;
            }
            ++pos;
        }
        if (digits == 0) return std::nullopt;
        for (int d = digits; d < 9; ++d)
            fraction *= 10;
    }
    std::int64_t offsetSeconds = 0;
    if (pos < t.size()) {
        if (t[pos] == 'Z' || t[pos] == 'z')
            ++pos;
        else if (t[pos] == '+' || t[pos] == '-') {
            int oh, om;
            if (!fixedDigits(t, pos + 1, 2, oh) || pos + 3 >= t.size() || t[pos + 3] != ':' ||
                !fixedDigits(t, pos + 4, 2, om) || oh > 23 || om > 59)
                return std::nullopt;
            offsetSeconds =
                static_cast<std::int64_t>((t[pos] == '-' ? -1 : 1) * (oh * 3600 + om * 60));
            pos += 6;
        } else {
            return std::nullopt;
        }
    } // no zone at all: read as UTC, as spreadsheets write it
    if (pos != t.size()) return std::nullopt;
    // A leap second (:60) lands on the next second's first instant.
    const std::int64_t seconds =
        daysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * 86400 +
        static_cast<std::int64_t>(hour) * 3600 + static_cast<std::int64_t>(minute) * 60 + second -
        offsetSeconds;
    // A TimeNs holds 1677-09-21 to 2262-04-11; past that the product would overflow.
    if (seconds > INT64_MAX / model::kNsPerSecond - 1 ||
        seconds < INT64_MIN / model::kNsPerSecond + 1)
        return std::nullopt;
    return seconds * model::kNsPerSecond + fraction;
}

std::optional<TimeNs> parseTimeText(std::string_view text, EpochUnit unit) {
    text = trim(text);
    if (text.size() >= 19 && text[4] == '-') return parseRfc3339(text);
    if (text.empty()) return std::nullopt;
    // Decimal numbers are read digit by digit, not through a double: 1796020421.25 s in a double
    // is off by up to 128 ns.
    std::int64_t whole = 0, fraction = 0, fractionScale = 1;
    bool decimal = text.find_first_of("eE") == std::string_view::npos;
    if (decimal) {
        const std::size_t dot = text.find('.');
        const std::string_view intPart = text.substr(0, dot);
        auto [p, ec] = std::from_chars(intPart.data(), intPart.data() + intPart.size(), whole);
        decimal = ec == std::errc() && p == intPart.data() + intPart.size() && !intPart.empty() &&
                  intPart != "-";
        if (decimal && dot != std::string_view::npos) {
            const std::string_view frac = text.substr(dot + 1);
            if (frac.empty()) return std::nullopt;
            for (char c : frac) {
                if (c < '0' || c > '9') return std::nullopt;
                if (fractionScale < 1'000'000'000) { // 9 digits: ns of a second; finer is noise
                    fraction = fraction * 10 + (c - '0');
                    fractionScale *= 10;
                }
            }
            if (text.starts_with('-')) fraction = -fraction;
        }
        if (!decimal && dot == std::string_view::npos) return std::nullopt;
    }
    double real = 0;
    if (decimal) {
        real = static_cast<double>(whole) +
               static_cast<double>(fraction) / static_cast<double>(fractionScale);
    } else {
        auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), real);
        if (ec != std::errc() || p != text.data() + text.size() || !std::isfinite(real))
            return std::nullopt;
    }
    if (unit == EpochUnit::Auto) {
        // By magnitude: seconds reach 1e11 only in the year 5138, ms 1e14 only in 5138 too, ...
        const double a = std::fabs(real);
        unit = a < 1e11   ? EpochUnit::Seconds
               : a < 1e14 ? EpochUnit::Milliseconds
               : a < 1e17 ? EpochUnit::Microseconds
                          : EpochUnit::Nanoseconds;
    }
    const std::int64_t perUnit = unit == EpochUnit::Seconds        ? model::kNsPerSecond
                                 : unit == EpochUnit::Milliseconds ? model::kNsPerMs
                                 : unit == EpochUnit::Microseconds ? 1000
                                                                   : 1;
    if (decimal) {
        if (whole > INT64_MAX / perUnit || whole < INT64_MIN / perUnit) return std::nullopt;
        // fraction / fractionScale of a unit, in ns, rounded (below 1e9 * 1e9: no overflow).
        const std::int64_t part = fraction * perUnit;
        const std::int64_t half = fractionScale / 2;
        const std::int64_t ns = (part + (part >= 0 ? half : -half)) / fractionScale;
        TimeNs t = 0;
        if (__builtin_add_overflow(whole * perUnit, ns, &t)) return std::nullopt;
        return t;
    }
    const double ns = real * static_cast<double>(perUnit);
    if (!(std::fabs(ns) < 9.2e18)) return std::nullopt;
    return static_cast<TimeNs>(std::llround(ns));
}

std::expected<ImportReport, Error> importLongFormatFile(const std::string& path,
                                                        const model::Topology& topology,
                                                        const ImportHooks& hooks,
                                                        LongFormatOptions options) {
    std::ifstream in;
    auto size = openForImport(path, in);
    if (!size) return std::unexpected(size.error());
    return importStream(in, *size, path, topology, hooks, options);
}

std::expected<ImportReport, Error> importLongFormatText(std::string_view text,
                                                        const std::string& name,
                                                        const model::Topology& topology,
                                                        const ImportHooks& hooks,
                                                        LongFormatOptions options) {
    std::istringstream in{std::string(text)};
    return importStream(in, text.size(), name, topology, hooks, options);
}

} // namespace ft::importers
