// libFuzzer entry for the recording reader on damaged recordings (tests/fuzz/recording_input.h
// says what an input is). Seeds: tests/fuzz/corpus-recording, one damage of each kind. Build
// with -DFT_FUZZ=ON and clang.
#include "fuzz/recording_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    ft::fuzz::fuzzRecording(data, size);
    return 0;
}
