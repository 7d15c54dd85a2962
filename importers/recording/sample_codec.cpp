#include "sample_codec.h"

#include <cstring>
#include <zstd.h>

namespace ft::importers {

namespace {
constexpr std::uint32_t kMagic = 0x32534654; // "TFS2"
struct Header {
    std::uint32_t magic;
    std::uint32_t rows;
    std::uint32_t columns;
    std::uint32_t rawBytes;
};
std::uint32_t zigzag(std::int32_t d) {
    return static_cast<std::uint32_t>(d) << 1 ^ static_cast<std::uint32_t>(d >> 31);
}
std::int32_t unzigzag(std::uint32_t z) {
    return static_cast<std::int32_t>(z >> 1) ^ -static_cast<std::int32_t>(z & 1);
}
// The linear predictor: each sample from the two before it (0, then the first, then 2a - b).
// The loops below keep the two before in registers and index raw pointers: this is the
// recorder's hot path, and through vector::operator[] it was most of a recording's cost in the
// sanitizer builds.
std::uint32_t predict(std::uint32_t previous, std::uint32_t beforeThat, std::size_t r) {
    if (r == 0) return 0;
    if (r == 1) return previous;
    return 2 * previous - beforeThat;
}
} // namespace

std::vector<std::uint8_t> encodeSampleBlock(std::span<const float> values, std::uint32_t rows,
                                            std::uint32_t columns, int level) {
    const std::size_t n = static_cast<std::size_t>(rows) * columns;
    // Scratch reused across calls on this thread: per-link channels make megabyte blocks, and
    // fresh allocations of that size cost more in page faults than the encoding itself.
    thread_local std::vector<std::uint32_t> bits;
    thread_local std::vector<std::uint8_t> planes;
    if (bits.size() < n) bits.resize(n);
    if (planes.size() < n * 4) planes.resize(n * 4);
    // Column-major bit patterns: one entity's samples together. Column by column, so the writes
    // run in order and the reads touch the same few dozen cache lines (one per row) from one
    // column to the next; row by row, every write missed the cache once the block outgrew it.
    std::uint32_t* const bitsAt = bits.data();
    const float* const valueAt = values.data();
    for (std::size_t c = 0; c < columns; ++c)
        for (std::size_t r = 0; r < rows; ++r)
            std::memcpy(bitsAt + c * rows + r, valueAt + r * columns + c, 4);
    std::uint8_t* const plane0 = planes.data();
    std::uint8_t* const plane1 = plane0 + n;
    std::uint8_t* const plane2 = plane1 + n;
    std::uint8_t* const plane3 = plane2 + n;
    for (std::size_t c = 0; c < columns; ++c) {
        const std::uint32_t* const column = bitsAt + c * rows;
        std::uint8_t* const byte0 = plane0 + c * rows;
        std::uint8_t* const byte1 = plane1 + c * rows;
        std::uint8_t* const byte2 = plane2 + c * rows;
        std::uint8_t* const byte3 = plane3 + c * rows;
        // No value carried from one sample to the next: the compiler vectorizes this loop.
        for (std::size_t r = 0; r < rows; ++r) {
            const std::uint32_t prediction = r >= 2   ? 2 * column[r - 1] - column[r - 2]
                                             : r == 1 ? column[0]
                                                      : 0;
            const std::uint32_t residual =
                zigzag(static_cast<std::int32_t>(column[r] - prediction));
            byte0[r] = static_cast<std::uint8_t>(residual);
            byte1[r] = static_cast<std::uint8_t>(residual >> 8);
            byte2[r] = static_cast<std::uint8_t>(residual >> 16);
            byte3[r] = static_cast<std::uint8_t>(residual >> 24);
        }
    }
    const Header header{kMagic, rows, columns, static_cast<std::uint32_t>(n * 4)};
    // Compress into scratch too, then hand out only the (small) compressed bytes.
    thread_local std::vector<std::uint8_t> packed;
    if (packed.size() < ZSTD_compressBound(n * 4)) packed.resize(ZSTD_compressBound(n * 4));
    const std::size_t z = ZSTD_compress(packed.data(), packed.size(), planes.data(), n * 4, level);
    std::vector<std::uint8_t> out(sizeof header + (ZSTD_isError(z) ? 0 : z));
    std::memcpy(out.data(), &header, sizeof header);
    if (!ZSTD_isError(z)) std::memcpy(out.data() + sizeof header, packed.data(), z);
    return out;
}

std::expected<DecodedBlock, std::string> decodeSampleBlock(std::span<const std::uint8_t> bytes) {
    Header header{};
    if (bytes.size() < sizeof header)
        return std::unexpected("sample block shorter than its header");
    std::memcpy(&header, bytes.data(), sizeof header);
    const std::size_t n = static_cast<std::size_t>(header.rows) * header.columns;
    if (header.magic != kMagic) return std::unexpected("sample block has a bad magic number");
    if (header.rawBytes != n * 4 || n > (1u << 28))
        return std::unexpected("sample block header is inconsistent");
    // The frame says how much it holds: a damaged header must not make us allocate gigabytes
    // for a frame that holds a few bytes.
    const auto content =
        ZSTD_getFrameContentSize(bytes.data() + sizeof header, bytes.size() - sizeof header);
    if (content == ZSTD_CONTENTSIZE_ERROR)
        return std::unexpected("sample block does not decompress: not a zstd frame");
    if (content != header.rawBytes)
        return std::unexpected("sample block header disagrees with its compressed frame");
    std::vector<std::uint8_t> planes(n * 4);
    const std::size_t got = ZSTD_decompress(
        planes.data(), planes.size(), bytes.data() + sizeof header, bytes.size() - sizeof header);
    if (ZSTD_isError(got))
        return std::unexpected(std::string("sample block does not decompress: ") +
                               ZSTD_getErrorName(got));
    if (got != planes.size()) return std::unexpected("sample block decompresses to the wrong size");
    DecodedBlock block{header.rows, header.columns, std::vector<float>(n)};
    const std::uint8_t* const plane0 = planes.data();
    const std::uint8_t* const plane1 = plane0 + n;
    const std::uint8_t* const plane2 = plane1 + n;
    const std::uint8_t* const plane3 = plane2 + n;
    float* const valueAt = block.values.data();
    for (std::size_t c = 0; c < header.columns; ++c) {
        std::uint32_t previous = 0, beforeThat = 0;
        for (std::size_t r = 0; r < header.rows; ++r) {
            const std::size_t i = c * header.rows + r;
            const std::uint32_t residual = static_cast<std::uint32_t>(plane0[i]) |
                                           static_cast<std::uint32_t>(plane1[i]) << 8 |
                                           static_cast<std::uint32_t>(plane2[i]) << 16 |
                                           static_cast<std::uint32_t>(plane3[i]) << 24;
            const std::uint32_t value =
                predict(previous, beforeThat, r) + static_cast<std::uint32_t>(unzigzag(residual));
            beforeThat = previous;
            previous = value;
            std::memcpy(valueAt + r * header.columns + c, &value, 4);
        }
    }
    return block;
}

} // namespace ft::importers
