// libFuzzer entry for the Prometheus/OpenMetrics text parser: see prometheus_text_input.h.
// Build with -DFT_FUZZ=ON and clang (tests/fuzz/CMakeLists.txt).
#include "prometheus_text_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    ft::fuzz::fuzzPrometheusText(data, size);
    return 0;
}
