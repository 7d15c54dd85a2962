#include "file_import.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace ft::importers {
namespace {

constexpr std::size_t kBlockBytes = std::size_t{1} << 20;
constexpr std::uint64_t kCancelCheckLines = 4096;

bool cancelled(const ImportHooks& hooks) {
    return hooks.cancel && hooks.cancel->load(std::memory_order_relaxed);
}

} // namespace

BatchCollector::BatchCollector(const ImportHooks& hooks, ImportReport& report)
    : m_hooks(hooks), m_report(report) {
    m_batch.reserve(std::min<std::size_t>(hooks.batchSize, 1 << 16));
}

void BatchCollector::add(const model::Sample& s) {
    m_batch.push_back(s);
    ++m_report.samples;
    m_report.firstTime = std::min(m_report.firstTime, s.time);
    m_report.lastTime = std::max(m_report.lastTime, s.time);
    if (m_batch.size() >= std::max<std::size_t>(m_hooks.batchSize, 1)) flush();
}

void BatchCollector::problem(Error e) {
    ++m_report.badLines;
    if (m_report.problems.size() < m_hooks.maxProblems) m_report.problems.push_back(std::move(e));
}

void BatchCollector::flush() {
    if (m_batch.empty()) return;
    if (m_hooks.onBatch) {
        model::SampleBatch batch;
        batch.source = m_hooks.source;
        batch.samples = std::move(m_batch);
        m_hooks.onBatch(std::move(batch));
    }
    m_batch.clear();
    m_batch.reserve(std::min<std::size_t>(m_hooks.batchSize, 1 << 16));
}

void forEachLine(std::istream& in, std::uint64_t total, const ImportHooks& hooks,
                 ImportReport& report,
                 const std::function<bool(std::string_view line, std::uint64_t number)>& onLine) {
    std::vector<char> block(kBlockBytes);
    std::string carry; // a line cut by the end of a block
    std::uint64_t number = 0;
    auto emit = [&](std::string_view line) {
        if (line.ends_with('\r')) line.remove_suffix(1);
        ++number;
        ++report.lines;
        return onLine(line, number);
    };
    while (in) {
        if (cancelled(hooks)) {
            report.cancelled = true;
            return;
        }
        in.read(block.data(), static_cast<std::streamsize>(block.size()));
        const auto got = static_cast<std::size_t>(in.gcount());
        if (got == 0) break;
        report.bytes += got;
        std::string_view text(block.data(), got);
        while (!text.empty()) {
            const std::size_t nl = text.find('\n');
            if (nl == std::string_view::npos) {
                carry.append(text);
                break;
            }
            bool more = true;
            if (!carry.empty()) {
                carry.append(text.substr(0, nl));
                more = emit(carry);
                carry.clear();
            } else {
                more = emit(text.substr(0, nl));
            }
            if (!more) return;
            text.remove_prefix(nl + 1);
            if (number % kCancelCheckLines == 0 && cancelled(hooks)) {
                report.cancelled = true;
                return;
            }
        }
        if (hooks.onProgress) hooks.onProgress(report.bytes, total);
    }
    if (!carry.empty()) emit(carry);
}

std::expected<std::uint64_t, Error> openForImport(const std::string& path, std::ifstream& in) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    in.open(path, std::ios::binary);
    if (!in) return std::unexpected(Error{"cannot open file for import", path, 0, 0, {}});
    return ec ? 0 : static_cast<std::uint64_t>(size);
}

} // namespace ft::importers
