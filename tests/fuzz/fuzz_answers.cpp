// libFuzzer entry for PromQL API answers and long-format CSV/JSONL files: see answers_input.h.
// Build with -DFT_FUZZ=ON and clang (tests/fuzz/CMakeLists.txt).
#include "answers_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    ft::fuzz::fuzzAnswers(data, size);
    return 0;
}
