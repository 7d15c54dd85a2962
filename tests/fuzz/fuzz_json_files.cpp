// libFuzzer entry for the hand-written JSON file formats (floors, scenarios, tours, demos): see
// json_files_input.h. Build with -DFT_FUZZ=ON and clang (tests/fuzz/CMakeLists.txt).
#include "json_files_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    ft::fuzz::fuzzJsonFiles(data, size);
    return 0;
}
