// libFuzzer entry for a recording's chunk blobs (a damaged .ftrec from a crashed disk): any
// bytes must decode to an error or to a block of exactly rows x columns values, and a block that
// decodes must encode and decode again to the same bits. Seeds: blobs of a real recording
// (tests/fuzz/corpus-codec, cut from a pump-failure run). Build with -DFT_FUZZ=ON and clang.
#include "importers/recording/sample_codec.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto block = ft::importers::decodeSampleBlock({data, size});
    if (!block) {
        if (block.error().empty()) std::abort(); // an error says what is wrong
        return 0;
    }
    if (block->values.size() != std::size_t{block->rows} * block->columns) std::abort();
    const auto again = ft::importers::decodeSampleBlock(
        ft::importers::encodeSampleBlock(block->values, block->rows, block->columns, 1));
    if (!again || again->values.size() != block->values.size() ||
        (!block->values.empty() && std::memcmp(again->values.data(), block->values.data(),
                                               block->values.size() * sizeof(float)) != 0))
        std::abort(); // lossless: the same bit patterns (NaNs included)
    return 0;
}
