#pragma once
// KeyframeCodec: the simulator's saved state (SimModel::saveState) as stored in a recording's
// `keyframes` table, and back: one zstd frame with its content size and checksum, so a damaged
// blob is refused here rather than restored into a model. Decoding never allocates more than the
// frame says it holds, and refuses frames claiming more than kMaxKeyframeBytes.
// Pure functions; any thread.
#include <cstddef>
#include <cstdint>
#include <expected>
#include <span>
#include <string>
#include <vector>

namespace ft::importers {

// Far above any floor's state (the 1,778-rack floor's is well under this).
inline constexpr std::size_t kMaxKeyframeBytes = std::size_t{4} << 30;

std::vector<std::uint8_t> compressKeyframe(std::span<const std::byte> state, int level = 3);
std::expected<std::vector<std::byte>, std::string>
decompressKeyframe(std::span<const std::uint8_t> blob);

} // namespace ft::importers
