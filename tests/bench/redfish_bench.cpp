#include "redfish_bench.h"

#include "importers/floor/floor_file.h"
#include "importers/formats/redfish_crawl.h"
#include "importers/mapping/mapping_rules.h"
#include "importers/sources/redfish_source.h"
#include "model/topology.h"
#include "support/loopback_server.h"
#include "support/redfish_fixtures.h"
#include "support/test_paths.h"

#include <QCoreApplication>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

namespace ft {

namespace {

using nlohmann::json;

// One of the project's Redfish services (tests/data/redfish), each page as the body it serves.
std::map<std::string, std::string> servicePages(const std::string& name) {
    std::map<std::string, std::string> pages;
    for (const auto& [path, page] : testing::redfishService(name))
        pages[path] = page.dump();
    return pages;
}

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

// Resources one crawl fetches over `pages` (no network).
std::size_t crawlSize(const std::map<std::string, std::string>& pages) {
    importers::redfish::Crawl c;
    c.begin("/redfish/v1");
    while (!c.done()) {
        const auto f = c.next();
        if (!f) break;
        const auto it = pages.find(f->path);
        if (it == pages.end())
            c.deliver(f->job, 404, "{}", 1);
        else
            c.deliver(f->job, 200, it->second, 1);
    }
    return c.fetched();
}

} // namespace

void benchRedfish(
    const std::function<void(const std::string& name, double value, const char* unit)>& figure) {
    // The project's CDU controller, its CDU copied until one poll reads ~1,000 resources.
    auto pages = servicePages("cdu");
    const std::string cdu = "/redfish/v1/ThermalEquipment/CDUs/1";
    const std::size_t one = crawlSize(pages);
    // Each further CDU adds the CDU's subtree: copies of CDU 1 until ~1,000 resources.
    std::map<std::string, std::string> subtree;
    for (const auto& [path, body] : pages)
        if (path == cdu || path.starts_with(cdu + "/")) subtree[path] = body;
    std::size_t cdus = 1;
    {
        auto two = pages;
        for (const auto& [path, body] : subtree)
            two["/redfish/v1/ThermalEquipment/CDUs/2" + path.substr(cdu.size())] =
                replaceAll(body, cdu + "/", "/redfish/v1/ThermalEquipment/CDUs/2/");
        json members = json::parse(two["/redfish/v1/ThermalEquipment/CDUs"]);
        members["Members"].push_back({{"@odata.id", "/redfish/v1/ThermalEquipment/CDUs/2"}});
        two["/redfish/v1/ThermalEquipment/CDUs"] = members.dump();
        const std::size_t perCdu = crawlSize(two) - one;
        cdus = 1 + (1000 - std::min<std::size_t>(one, 1000) + perCdu - 1) / perCdu;
    }
    json collection = json::parse(pages["/redfish/v1/ThermalEquipment/CDUs"]);
    collection["Members"] = json::array();
    for (std::size_t i = 1; i <= cdus; ++i) {
        const std::string base = "/redfish/v1/ThermalEquipment/CDUs/" + std::to_string(i);
        collection["Members"].push_back({{"@odata.id", base}});
        for (const auto& [path, body] : subtree) {
            std::string copy = replaceAll(body, cdu + "/", base + "/");
            if (path == cdu) {
                json c = json::parse(copy);
                c["@odata.id"] = base;
                c["Id"] = std::to_string(i);
                c["Name"] = "CDU A" + std::to_string(i);
                copy = c.dump();
            }
            pages[base + path.substr(cdu.size())] = std::move(copy);
        }
    }
    collection["Members@odata.count"] = cdus;
    pages["/redfish/v1/ThermalEquipment/CDUs"] = collection.dump();

    testing::PageServer server(
        [&pages](const testing::PageServer::Request& r) -> testing::PageServer::Response {
            std::string path = r.target.substr(0, r.target.find('?'));
            while (path.size() > 1 && path.back() == '/')
                path.pop_back();
            const auto it = pages.find(path);
            if (it == pages.end()) return {404, "{}"};
            return {200, it->second};
        },
        true);

    // One row with a CDU per two racks: CDU A1 .. CDU A<cdus>.
    const json floor = {{"format", "floortwin-floor/1"},
                        {"name", "Redfish bench"},
                        {"rows", 1},
                        {"racks_per_row", cdus * 2},
                        {"cooling", {{"racks_per_cdu", 2}}}};
    auto spec = importers::parseFloorFile(floor.dump(), "bench");
    auto topology =
        spec
            ? model::Topology::build(*spec)
            : std::expected<model::Topology, std::string>(std::unexpected(spec.error().toString()));
    auto rules = importers::loadMappingRules(FT_SOURCE_PATH("/resources/mappings/redfish.json"));
    if (!topology || !rules) {
        std::fprintf(stderr, "floortwin-bench: redfish setup failed\n");
        return;
    }
    const auto shared = std::make_shared<const model::Topology>(std::move(*topology));

    importers::RedfishConfig config;
    config.services.push_back({server.base(), "/redfish/v1"});
    config.interval = std::chrono::milliseconds(1); // back to back
    std::mutex mutex;
    std::size_t mapped = 0;
    importers::RedfishSource source(config, *rules, shared, [&](const model::SampleBatch& b) {
        std::lock_guard lock(mutex);
        mapped += b.samples.size();
        return true;
    });
    source.start();
    std::vector<double> ms;
    std::uint64_t lastPolls = 0;
    importers::SourceHealth h;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    model::TimeNs seen = 0;
    while (ms.size() < 12 && std::chrono::steady_clock::now() < until) {
        QCoreApplication::processEvents();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        h = source.health().front();
        if (h.lastSuccess != seen && h.polls > lastPolls) {
            seen = h.lastSuccess;
            lastPolls = h.polls;
            if (h.polls > 2) ms.push_back(h.lastLatencyMs); // the first polls warm up
        }
    }
    source.stop();
    std::ranges::sort(ms);
    if (ms.empty() || h.targetsTotal == 0) {
        std::fprintf(stderr, "floortwin-bench: the Redfish poll did not complete (%s)\n",
                     h.lastError.c_str());
        return;
    }
    figure("redfish.poll_ms.resources1000", ms[ms.size() / 2], "ms");
    figure("redfish.resources_per_poll", h.targetsTotal, "resources");
    figure("redfish.readings_per_poll",
           static_cast<double>(h.samples) / static_cast<double>(h.polls - 1), "readings");
}

} // namespace ft
