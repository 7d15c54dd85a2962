#pragma once
// One fuzz input for the Prometheus/OpenMetrics text parser: every format and scope, and a sink
// that reads every byte of every view it is handed, so a view past the input or into freed
// scratch memory trips AddressSanitizer; lines only go forward, findings say where and what.
// Shared by the libFuzzer target and the regression test that replays
// tests/data/fuzz-regressions.
#include "importers/formats/prometheus_text.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace ft::fuzz {
namespace prometheus_text {

using namespace ft::importers::prom;

class TouchingSink : public SampleSink {
public:
    std::uint64_t m_hash = 0;
    int m_lastLine = 0;
    bool m_betweenScrapes = false;

    void touch(std::string_view s) {
        for (char c : s)
            m_hash = m_hash * 31 + static_cast<unsigned char>(c);
    }
    void touch(std::span<const Label> labels) {
        for (const Label& l : labels) {
            touch(l.name);
            touch(l.value);
        }
    }

    void sample(const Sample& s) override {
        touch(s.name);
        touch(s.family);
        touch(s.labels);
        touch(metricTypeName(s.type));
        if (s.name.empty() || s.family.empty()) std::abort();
        // Lines only go forward; a sample line cannot be 0.
        if (s.line < m_lastLine || s.line <= 0) std::abort();
        m_lastLine = s.line;
        m_hash += static_cast<std::uint64_t>(std::isnan(s.value) ? 1 : 0) +
                  static_cast<std::uint64_t>(s.timestampNs.value_or(0));
        if (s.exemplar) {
            touch(s.exemplar->labels);
            m_hash += static_cast<std::uint64_t>(s.exemplar->timestampNs.value_or(0));
        }
    }
    void error(const ParseError& e) override {
        touch(e.message);
        touch(e.text);
        if (e.line <= 0 || e.column <= 0 || e.text.size() > 200 || e.message.empty()) std::abort();
    }
    void warning(const ParseError& w) override {
        touch(w.message);
        touch(w.text);
        if (w.line <= 0 || w.column <= 0 || w.text.size() > 200 || w.message.empty()) std::abort();
    }
    void family(std::string_view name, MetricType type, std::string_view help) override {
        touch(name);
        touch(help);
        touch(metricTypeName(type));
    }
    void endScrape() override { ++m_hash; }
};

} // namespace prometheus_text

inline void fuzzPrometheusText(const std::uint8_t* data, std::size_t size) {
    using namespace ft::importers::prom;
    using prometheus_text::TouchingSink;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (Scope scope : {Scope::Dump, Scope::Exposition})
        for (Format f : {Format::Auto, Format::Text004, Format::OpenMetrics}) {
            TouchingSink sink;
            const ParseStats stats = parse(text, sink, f, scope);
            if (stats.bytes != size || stats.samples > stats.lines) std::abort();
        }
}

} // namespace ft::fuzz
