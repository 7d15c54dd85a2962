#pragma once
// What the Prometheus text parser hands its sink, copied for tests to look at: every sample
// (Rec: name, family, type, labels, value, timestamp, line, exemplar), family, finding and
// scrape end, in order. Shared by test_prometheus_text (the project's fixtures) and
// test_prometheus_corpus (real files).
#include "importers/formats/prometheus_text.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QtGlobal>
#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace ft::testing::prom_text {
using namespace ft::importers::prom;

struct Rec {
    QByteArray name, family;
    MetricType type = MetricType::Unknown;
    QList<QPair<QByteArray, QByteArray>> labels;
    double value = 0;
    std::optional<std::int64_t> ts;
    int line = 0;
    int scrape = 0;
    bool hasExemplar = false;
    QList<QPair<QByteArray, QByteArray>> exemplarLabels;
    double exemplarValue = 0;
    std::optional<std::int64_t> exemplarTs;

    QByteArray label(const char* key) const {
        for (const auto& [k, v] : labels)
            if (k == key) return v;
        return "<missing>";
    }
    // Bitwise on the values, so NaN samples compare equal to themselves.
    bool operator==(const Rec& o) const {
        return name == o.name && family == o.family && type == o.type && labels == o.labels &&
               std::bit_cast<std::uint64_t>(value) == std::bit_cast<std::uint64_t>(o.value) &&
               ts == o.ts && line == o.line && scrape == o.scrape && hasExemplar == o.hasExemplar &&
               exemplarLabels == o.exemplarLabels &&
               std::bit_cast<std::uint64_t>(exemplarValue) ==
                   std::bit_cast<std::uint64_t>(o.exemplarValue) &&
               exemplarTs == o.exemplarTs;
    }
};

struct Fam {
    QByteArray name;
    MetricType type;
    QByteArray help;
    int scrape;
};

inline QByteArray bytes(std::string_view s) {
    return {s.data(), static_cast<qsizetype>(s.size())};
}

inline QList<QPair<QByteArray, QByteArray>> copy(std::span<const Label> labels) {
    QList<QPair<QByteArray, QByteArray>> out;
    for (const Label& l : labels)
        out.append({bytes(l.name), bytes(l.value)});
    return out;
}

// Copies everything it is handed, and the order: "F name" for families, "S name" for samples,
// "E" for scrape ends.
class Collector : public SampleSink {
public:
    std::vector<Rec> samples;
    std::vector<ParseError> errors;
    std::vector<ParseError> warnings;
    std::vector<Fam> families;
    QStringList events;
    int scrapes = 0;

    void sample(const Sample& s) override {
        Rec r;
        r.name = bytes(s.name);
        r.family = bytes(s.family);
        r.type = s.type;
        r.labels = copy(s.labels);
        r.value = s.value;
        r.ts = s.timestampNs;
        r.line = s.line;
        r.scrape = scrapes;
        if (s.exemplar) {
            r.hasExemplar = true;
            r.exemplarLabels = copy(s.exemplar->labels);
            r.exemplarValue = s.exemplar->value;
            r.exemplarTs = s.exemplar->timestampNs;
        }
        samples.push_back(std::move(r));
        events << "S " + QString::fromUtf8(bytes(s.name));
    }
    void error(const ParseError& e) override { errors.push_back(e); }
    void warning(const ParseError& w) override { warnings.push_back(w); }
    void family(std::string_view name, MetricType type, std::string_view help) override {
        families.push_back({bytes(name), type, bytes(help), scrapes});
        events << "F " + QString::fromUtf8(bytes(name));
    }
    void endScrape() override {
        ++scrapes;
        events << "E";
    }

    const Rec& find(const char* name, const char* key = nullptr,
                    const char* value = nullptr) const {
        for (const Rec& r : samples)
            if (r.name == name && (!key || r.label(key) == value)) return r;
        qFatal("no sample %s{%s=%s}", name, key ? key : "", value ? value : "");
    }
    // Errors, then warnings, one a line.
    QString findingList() const {
        QString s = errorList();
        for (const auto& w : warnings)
            s += QString("warning %1:%2 %3\n").arg(w.line).arg(w.column).arg(w.message.c_str());
        return s;
    }
    QString errorList() const {
        QString s;
        for (const auto& e : errors)
            s += QString("%1:%2 %3 | %4\n")
                     .arg(e.line)
                     .arg(e.column)
                     .arg(e.message.c_str(), e.text.c_str());
        return s;
    }
};

inline bool sameBits(double a, double b) {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

} // namespace ft::testing::prom_text
