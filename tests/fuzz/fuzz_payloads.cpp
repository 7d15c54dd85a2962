// libFuzzer entry for BMS messages, mapping rules, inventory CSV, NetBox pages and Redfish
// services: see payloads_input.h. Build with -DFT_FUZZ=ON and clang (tests/fuzz/CMakeLists.txt).
#include "payloads_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    ft::fuzz::fuzzPayloads(data, size);
    return 0;
}
