// Reading the recording's streams: one channel's values at a moment from its chunks (decoded
// and cached), and the per-link blocks held from one change to the next (recording_reader.h).
#include "recording_reader.h"
#include "sample_codec.h"

#include <algorithm>
#include <cstring>
#include <sqlite3.h>

namespace ft::importers {

std::expected<void, Error> RecordingReader::readStream(std::size_t stream, model::TimeNs time,
                                                       std::span<float> column) {
    const auto& chunks = m_chunks[stream];
    const std::size_t columns = column.size();
    const std::string what =
        stream < model::ch::Count ? std::string(model::kChannels[stream].name) : "measured ages";
    // A GPU counter (and gpu.placed_by) is recorded from its first measurement on: before it,
    // 0 as in the simulator (and "no data" in the views, which see it unmeasured); a node's
    // scheduler state likewise, before it NaN with telemetry and 0 in the simulator, as the
    // model held them. Other streams without a chunk here are of an older build or a damaged
    // file: NaN.
    const bool zero = stream < model::ch::Count &&
                      (model::isGpuCounter(static_cast<model::ChannelId>(stream)) ||
                       stream == model::ch::GpuPlacedBy ||
                       (stream == model::ch::ComputeTraySchedulerState && !m_info.telemetry));
    const float absent = zero ? 0.0f : std::numeric_limits<float>::quiet_NaN();
    if (chunks.empty() || columns == 0) {
        std::ranges::fill(column, absent);
        return {};
    }
    auto it = std::ranges::upper_bound(chunks, time, {}, &ChunkRef::t0);
    if (it == chunks.begin()) { // before this stream's first sample (a damaged or merged file)
        std::ranges::fill(column, absent);
        return {};
    }
    const ChunkRef& chunk = *(it - 1);
    ChannelCache& cache = m_cache[stream];
    if (cache.rowid != chunk.rowid) {
        sqlite3_blob* blob = nullptr;
        if (sqlite3_blob_open(m_db, "main", "chunks", "data", chunk.rowid, 0, &blob) != SQLITE_OK)
            return std::unexpected(
                error("cannot read a chunk of '" + what + "': " + sqlite3_errmsg(m_db)));
        std::vector<std::uint8_t> bytes(static_cast<std::size_t>(sqlite3_blob_bytes(blob)));
        const int rc = sqlite3_blob_read(blob, bytes.data(), static_cast<int>(bytes.size()), 0);
        sqlite3_blob_close(blob);
        if (rc != SQLITE_OK)
            return std::unexpected(
                error(std::string("a chunk is unreadable: ") + sqlite3_errmsg(m_db)));
        auto decoded = decodeSampleBlock(bytes);
        if (!decoded)
            return std::unexpected(
                error("a chunk of '" + what + "' is corrupt: " + decoded.error()));
        if (decoded->columns != columns)
            return std::unexpected(error("a chunk has the wrong number of entities"));
        // The header's row count (checked when the file opened) against what the blob holds:
        // a header rewritten on a damaged disk must not send a read past the samples.
        if (decoded->values.size() / columns < chunk.rows)
            return std::unexpected(error("a chunk of '" + what + "' holds " +
                                         std::to_string(decoded->values.size() / columns) +
                                         " rows where its header says " +
                                         std::to_string(chunk.rows)));
        cache.rowid = chunk.rowid;
        cache.columns = decoded->columns;
        cache.values = std::move(decoded->values);
    }
    const auto row = std::min<std::size_t>(
        static_cast<std::size_t>((time - chunk.t0) / m_info.tick), chunk.rows - 1);
    std::copy_n(cache.values.begin() + static_cast<std::ptrdiff_t>(row * columns), columns,
                column.begin());
    return {};
}

std::expected<void, Error> RecordingReader::readDetail(model::TimeNs time, model::Snapshot& out) {
    // Which row of which chunk each per-link channel has at `time`: while that holds (a format
    // 2 file keeps a block per counter interval), every moment shares one block and one stamp,
    // so the views redo per-link work only when it changes.
    std::vector<std::pair<std::int64_t, std::size_t>> key;
    key.reserve(model::kLastDetailChannel - model::kFirstDetailChannel + 1);
    for (model::ChannelId c = model::kFirstDetailChannel; c <= model::kLastDetailChannel; ++c) {
        const auto& chunks = m_chunks[c];
        const auto it = std::ranges::upper_bound(chunks, time, {}, &ChunkRef::t0);
        if (it == chunks.begin()) {
            key.emplace_back(-1, 0);
            continue;
        }
        const ChunkRef& chunk = *(it - 1);
        key.emplace_back(chunk.rowid, std::min<std::size_t>(
                                          static_cast<std::size_t>((time - chunk.t0) / m_info.tick),
                                          chunk.rows - 1));
    }
    if (!m_detail || key != m_detailKey) {
        auto block = std::make_shared<model::DetailBlock>(model::kLastDetailChannel -
                                                          model::kFirstDetailChannel + 1);
        for (model::ChannelId c = model::kFirstDetailChannel; c <= model::kLastDetailChannel; ++c) {
            auto& column = (*block)[c - model::kFirstDetailChannel];
            column.resize(m_topology->count(model::kChannels[c].kind));
            if (auto ok = readStream(c, time, column); !ok) return ok;
        }
        m_detail = std::move(block);
        m_detailKey = std::move(key);
        ++m_detailStamp;
    }
    out.detail = m_detail;
    out.detailStamp = m_detailStamp;
    return {};
}

} // namespace ft::importers
