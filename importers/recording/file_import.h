#pragma once
// What the line-oriented file importers (long-format CSV/JSONL, BMS captures) share: the hooks a
// caller passes (where batches go, progress, cancel), the report they return, and the reader
// that streams a file's lines in fixed-size blocks so a multi-gigabyte file never sits in
// memory. A bad line is reported with file:line and skipped; the rest is kept. Everything runs
// on the caller's thread (an import worker); the hooks are called on it too.
#include "importers/formats/error.h"
#include "model/sample.h"

#include <atomic>
#include <cstdint>
#include <expected>
#include <fstream>
#include <functional>
#include <istream>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace ft::importers {

struct ImportHooks {
    // Receives the samples in file order, batchSize at a time (the last batch may be smaller).
    std::function<void(model::SampleBatch&&)> onBatch;
    // Bytes read so far and the file size (0 when unknown), after each block.
    std::function<void(std::uint64_t done, std::uint64_t total)> onProgress;
    // Checked after each block and every few thousand lines; set it from any thread.
    const std::atomic<bool>* cancel = nullptr;
    std::size_t batchSize = 65536;
    std::size_t maxProblems = 100; // bad lines described in the report; all are counted
    std::uint16_t source = 0;      // stamped on every batch
};

struct ImportReport {
    std::uint64_t bytes = 0;
    std::uint64_t lines = 0;    // every line, blank and comment lines included
    std::uint64_t samples = 0;  // samples handed to onBatch
    std::uint64_t badLines = 0; // lines skipped because they did not parse or resolve
    std::vector<Error>
        problems; // the first maxProblems bad lines: file, line, column, what was expected
    bool cancelled = false;
    model::TimeNs firstTime = std::numeric_limits<model::TimeNs>::max(); // earliest sample time
    model::TimeNs lastTime = std::numeric_limits<model::TimeNs>::min();  // latest sample time
};

// Collects samples into batches for the hooks and keeps the report's counts.
class BatchCollector {
public:
    BatchCollector(const ImportHooks& hooks, ImportReport& report);
    ~BatchCollector() { flush(); }
    BatchCollector(const BatchCollector&) = delete;
    BatchCollector& operator=(const BatchCollector&) = delete;

    void add(const model::Sample& s);
    void addAll(const std::vector<model::Sample>& samples) {
        for (const auto& s : samples)
            add(s);
    }
    void problem(Error e);
    void flush();

private:
    const ImportHooks& m_hooks;
    ImportReport& m_report;
    std::vector<model::Sample> m_batch;
};

// Calls onLine(line, number) for every line of `in` (number from 1; '\n' or "\r\n" ends a line,
// the last line needs neither), reading 1 MiB at a time, until onLine returns false. Stops early,
// with report.cancelled set, when the hooks' cancel flag is raised. `total` is for progress only.
void forEachLine(std::istream& in, std::uint64_t total, const ImportHooks& hooks,
                 ImportReport& report,
                 const std::function<bool(std::string_view line, std::uint64_t number)>& onLine);

// Opens a file for forEachLine; the error names the path.
std::expected<std::uint64_t, Error> openForImport(const std::string& path, std::ifstream& in);

} // namespace ft::importers
