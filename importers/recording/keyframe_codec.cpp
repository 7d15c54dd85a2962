#include "keyframe_codec.h"

#include <zstd.h>

namespace ft::importers {

std::vector<std::uint8_t> compressKeyframe(std::span<const std::byte> state, int level) {
    ZSTD_CCtx* cx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cx, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(cx, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(cx, ZSTD_c_contentSizeFlag, 1);
    std::vector<std::uint8_t> out(ZSTD_compressBound(state.size()));
    const std::size_t n = ZSTD_compress2(cx, out.data(), out.size(), state.data(), state.size());
    ZSTD_freeCCtx(cx);
    out.resize(ZSTD_isError(n) ? 0 : n);
    return out;
}

std::expected<std::vector<std::byte>, std::string>
decompressKeyframe(std::span<const std::uint8_t> blob) {
    const unsigned long long size = ZSTD_getFrameContentSize(blob.data(), blob.size());
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN)
        return std::unexpected("keyframe: not a zstd frame with its size");
    if (size > kMaxKeyframeBytes)
        return std::unexpected("keyframe: claims " + std::to_string(size) + " bytes");
    std::vector<std::byte> out(static_cast<std::size_t>(size));
    const std::size_t n = ZSTD_decompress(out.data(), out.size(), blob.data(), blob.size());
    if (ZSTD_isError(n) || n != out.size())
        return std::unexpected(std::string("keyframe: damaged (") +
                               (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short") + ")");
    return out;
}

} // namespace ft::importers
