#pragma once
// Where the tests, benchmarks and fuzzers find the checkout, its test data and their build
// tree. Read at run time, not compiled in: the build writes the checkout's path beside the
// binaries (bin/floortwin-source-dir), and the build tree is the folder above the running
// binary's. So a test's object file is the same in every clone, and the compiler cache serves a
// fresh clone (CI) what the developer's own builds compiled; with the paths on the command line
// every test missed it in every tree.
//
//     loadFloor(FT_SOURCE_PATH("/resources/floors/demo.json"))
//
// Each macro gives a const char* that stays valid for the whole run (the strings are kept).
// Any thread may call them.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <string>

namespace ft::testing {

// The build tree: the folder above bin/, where the running binary is.
inline const std::string& buildDir() {
    static const std::string dir =
        std::filesystem::canonical("/proc/self/exe").parent_path().parent_path().string();
    return dir;
}

// The checkout: FT_SOURCE_DIR from the environment if set, else what the build wrote.
inline const std::string& sourceDir() {
    static const std::string dir = [] {
        if (const char* over = std::getenv("FT_SOURCE_DIR"); over && *over)
            return std::string(over);
        std::ifstream in(buildDir() + "/bin/floortwin-source-dir");
        std::string path;
        std::getline(in, path);
        return path;
    }();
    return dir;
}

// `text`, kept for the rest of the run.
inline const char* keep(std::string text) {
    static std::mutex mutex;
    static std::set<std::string> kept;
    std::lock_guard lock(mutex);
    return kept.insert(std::move(text)).first->c_str();
}

} // namespace ft::testing

#define FT_SOURCE_PATH(rel) ::ft::testing::keep(::ft::testing::sourceDir() + (rel))
#define FT_TEST_DATA_PATH(rel)                                                                     \
    ::ft::testing::keep(::ft::testing::sourceDir() + "/tests/data" + (rel))
#define FT_BINARY_PATH(rel) ::ft::testing::keep(::ft::testing::buildDir() + (rel))
