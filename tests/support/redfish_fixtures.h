#pragma once
// Redfish services as pages, for the tests and the benchmark: the project's own fixtures
// (tests/data/redfish, one JSON file per service mapping each URI path to its page, written for
// floortwin from DSP0268; see the README there), DMTF's mockups in the shared corpus (a tree with
// an index.json per resource, read only by `corpus` tests), the error bodies a service answers
// with, and one poll of the Redfish walk driven by hand over such pages, without the network.
// Header-only; everything runs on the calling thread. A fixture that does not load stops the run
// (qFatal): it is a mistake in the test data, not a finding about the code.
#include "importers/formats/redfish_crawl.h"
#include "test_paths.h"

#include <QtGlobal>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace ft::testing {

// A service: URI path ("/redfish/v1/Chassis/CDU07") -> its page.
using RedfishPages = std::map<std::string, nlohmann::json>;

inline std::string readRedfishFile(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// tests/data/redfish/<name>.json: "cdu", "power-shelf" or "pdu".
inline RedfishPages redfishService(const std::string& name) {
    const std::filesystem::path file = FT_SOURCE_PATH("/tests/data/redfish/") + name + ".json";
    const auto doc = nlohmann::json::parse(readRedfishFile(file), nullptr, false);
    if (!doc.is_object() || doc.empty()) qFatal("no Redfish fixture at %s", file.c_str());
    RedfishPages pages;
    for (const auto& [path, page] : doc.items()) {
        // Every page says where it lives; a copy-and-paste slip shows here, not as an odd reading.
        if (!page.is_object() || page.value("@odata.id", std::string()) != path)
            qFatal("%s: the page at %s does not name itself", file.c_str(), path.c_str());
        pages[path] = page;
    }
    return pages;
}

// A mockup as DMTF publishes them (<dir>/index.json, <dir>/Chassis/index.json, ...); empty when
// `dir` holds none.
inline RedfishPages redfishMockup(const std::filesystem::path& dir) {
    RedfishPages pages;
    if (!std::filesystem::is_directory(dir)) return pages;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
        if (entry.path().filename() != "index.json") continue;
        const std::string rel =
            std::filesystem::relative(entry.path().parent_path(), dir).generic_string();
        pages["/redfish/v1" + (rel == "." ? std::string() : "/" + rel)] =
            nlohmann::json::parse(readRedfishFile(entry.path()));
    }
    return pages;
}

// The body a service sends with HTTP `status` (401, 404, 405: tests/data/redfish/errors.json,
// DSP0268's error response) for a request to `uri`; "{}" for any other status.
inline std::string redfishError(int status, const std::string& uri) {
    static const nlohmann::json errors = [] {
        auto doc = nlohmann::json::parse(
            readRedfishFile(FT_SOURCE_PATH("/tests/data/redfish/errors.json")), nullptr, false);
        if (!doc.is_object()) qFatal("tests/data/redfish/errors.json does not parse");
        return doc;
    }();
    const auto it = errors.find(std::to_string(status));
    if (it == errors.end()) return "{}";
    std::string body = it->dump();
    const std::string mark = "{uri}";
    for (std::size_t at = body.find(mark); at != std::string::npos;
         at = body.find(mark, at + uri.size()))
        body.replace(at, mark.size(), uri);
    return body;
}

// One poll of the walk over `pages` (`raw` bodies sent as they are, anything else 404): what
// it read, what it counted and which paths it asked for.
struct CrawlResult {
    std::vector<importers::redfish::Reading> readings;
    std::array<std::uint64_t, importers::redfish::kProblemCount> problems{};
    std::vector<importers::redfish::ProblemReport> reports;
    std::vector<importers::redfish::Condition> conditions;
    std::size_t fetched = 0;
    std::vector<std::string> paths;

    std::uint64_t count(importers::redfish::Problem p) const {
        return problems[static_cast<std::size_t>(p)];
    }
    // The readings named `metric` whose labels include every (name, value) given.
    std::vector<const importers::redfish::Reading*>
    find(const std::string& metric, const std::map<std::string, std::string>& labels = {}) const {
        std::vector<const importers::redfish::Reading*> out;
        for (const auto& r : readings) {
            if (r.metric != metric) continue;
            bool all = true;
            for (const auto& [k, v] : labels) {
                bool has = false;
                for (const auto& l : r.labels)
                    has = has || (l.name == k && l.value == v);
                all = all && has;
            }
            if (all) out.push_back(&r);
        }
        return out;
    }
    // The one reading that matches; NaN when none or several do.
    double value(const std::string& metric,
                 const std::map<std::string, std::string>& labels = {}) const {
        const auto found = find(metric, labels);
        return found.size() == 1 ? found.front()->value : std::nan("");
    }
    bool reported(importers::redfish::Problem kind, const std::string& uri) const {
        for (const auto& r : reports)
            if (r.kind == kind && r.uri == uri) return true;
        return false;
    }
};

inline CrawlResult crawl(const RedfishPages& pages,
                         const std::map<std::string, std::string>& raw = {},
                         importers::redfish::Limits limits = {}) {
    importers::redfish::Crawl c(limits);
    c.begin("/redfish/v1");
    CrawlResult out;
    while (!c.done()) {
        const auto f = c.next();
        if (!f) qFatal("the crawl waits for nothing");
        out.paths.push_back(f->path);
        if (const auto r = raw.find(f->path); r != raw.end()) {
            c.deliver(f->job, 200, r->second, 1000);
        } else if (const auto p = pages.find(f->path); p != pages.end()) {
            c.deliver(f->job, 200, p->second.dump(), 1000);
        } else {
            c.deliver(f->job, 404, redfishError(404, f->path), 1000);
        }
    }
    out.readings = c.readings();
    out.problems = c.problems();
    out.reports = c.reports();
    out.conditions = c.conditions();
    out.fetched = c.fetched();
    return out;
}

// The problems a poll reported, one a line, for a failing check's message.
inline std::string describe(const CrawlResult& r) {
    std::string s;
    for (const auto& p : r.reports)
        s += std::string(importers::redfish::problemName(p.kind)) + " " + p.uri + ": " + p.what +
             "\n";
    return s;
}

} // namespace ft::testing
