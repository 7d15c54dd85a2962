#include "floor_file.h"

#include "importers/formats/json_document.h"
#include "link_templates.h"
#include "model/lifecycle.h"
#include "pci_address.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ft::importers {
namespace {

using Type = JsonValue::Type;

// Reads the members of one JSON object into fields, rejecting unknown keys and wrong types.
class ObjectReader {
public:
    ObjectReader(const JsonValue& object, std::string path, const std::string& file)
        : m_object(object), m_path(std::move(path)), m_file(file) {}

    std::unexpected<Error> fail(const JsonValue& at, const std::string& key,
                                std::string message) const {
        return std::unexpected(
            Error{std::move(message), m_file, at.line, at.column, qualified(key)});
    }
    std::string qualified(const std::string& key) const {
        return m_path.empty() ? key : m_path + "." + key;
    }

    const JsonValue* get(const std::string& key) {
        m_known.insert({key, true});
        return m_object.find(key);
    }

    std::expected<void, Error> integer(const std::string& key, int& out, int min, int max) {
        const JsonValue* v = get(key);
        if (!v) return {};
        if (v->type != Type::Number || v->number != std::floor(v->number))
            return fail(*v, key, "expected an integer, got " + describe(*v));
        if (v->number < min || v->number > max)
            return fail(*v, key,
                        "expected an integer from " + std::to_string(min) + " to " +
                            std::to_string(max) + ", got " + describe(*v));
        out = static_cast<int>(v->number);
        return {};
    }

    std::expected<void, Error> real(const std::string& key, double& out, double min, double max) {
        const JsonValue* v = get(key);
        if (!v) return {};
        if (v->type != Type::Number) return fail(*v, key, "expected a number, got " + describe(*v));
        if (v->number < min || v->number > max) {
            std::ostringstream msg;
            msg << "expected a number from " << min << " to " << max << ", got " << describe(*v);
            return fail(*v, key, msg.str());
        }
        out = v->number;
        return {};
    }

    std::expected<void, Error> text(const std::string& key, std::string& out) {
        const JsonValue* v = get(key);
        if (!v) return {};
        if (v->type != Type::String) return fail(*v, key, "expected a string, got " + describe(*v));
        out = v->string;
        return {};
    }

    std::expected<void, Error> textList(const std::string& key, std::vector<std::string>& out) {
        const JsonValue* v = get(key);
        if (!v) return {};
        if (v->type != Type::Array || v->array.empty())
            return fail(*v, key, "expected a non-empty array of strings, got " + describe(*v));
        out.clear();
        for (const auto& item : v->array) {
            if (item.type != Type::String)
                return fail(item, key, "expected a string, got " + describe(item));
            out.push_back(item.string);
        }
        return {};
    }

    // Unknown keys are errors: a misspelt key would otherwise silently fall back to a default.
    std::expected<void, Error> rejectUnknown() const {
        for (const auto& [k, v] : m_object.object)
            if (!m_known.contains(k)) return fail(v, k, "unknown key");
        return {};
    }

    static std::string describe(const JsonValue& v) {
        switch (v.type) {
        case Type::Number: {
            std::ostringstream s;
            s << v.number;
            return s.str();
        }
        case Type::String:
            return "\"" + v.string + "\"";
        default:
            return std::string(JsonValue::typeName(v.type));
        }
    }

private:
    const JsonValue& m_object;
    std::string m_path;
    const std::string& m_file;
    std::map<std::string, bool> m_known;
};

#define FT_TRY(expr)                                                                               \
    do {                                                                                           \
        if (auto r_ = (expr); !r_) return std::unexpected(r_.error());                             \
    } while (0)

std::expected<ObjectReader, Error> section(ObjectReader& parent, const std::string& key,
                                           const std::string& file) {
    const JsonValue* v = parent.get(key);
    static const JsonValue kEmpty = [] {
        JsonValue v;
        v.type = Type::Object;
        return v;
    }();
    if (!v) return ObjectReader(kEmpty, key, file);
    if (v->type != Type::Object)
        return parent.fail(*v, key, "expected an object, got " + ObjectReader::describe(*v));
    return ObjectReader(*v, key, file);
}

} // namespace

static std::string lifecycleNames() {
    std::string out;
    for (auto n : model::kLifecycleNames)
        out += (out.empty() ? "" : ", ") + std::string(n);
    return out;
}

std::string rowName(int index) {
    std::string name;
    for (int i = index + 1; i > 0; i = (i - 1) / 26)
        name.insert(name.begin(), static_cast<char>('A' + (i - 1) % 26));
    return name;
}

namespace {

// Rows: either a count with racks_per_row and row_pitch_m, or an explicit list.
std::expected<void, Error> readRows(ObjectReader& top, model::FloorSpec& spec,
                                    const std::string& file, const JsonValue& doc) {
    const JsonValue* rows = top.get("rows");
    if (!rows)
        return std::unexpected(Error{"missing required key", file, doc.line, doc.column, "rows"});
    if (rows->type == Type::Number) {
        int count = 0, perRow = 0;
        double pitch = 3.0;
        FT_TRY(top.integer("rows", count, 1, 10000));
        if (!top.get("racks_per_row"))
            return std::unexpected(Error{"missing required key (needed when 'rows' is a count)",
                                         file, doc.line, doc.column, "racks_per_row"});
        FT_TRY(top.integer("racks_per_row", perRow, 1, 1000));
        FT_TRY(top.real("row_pitch_m", pitch, 1.0, 100.0));
        for (int r = 0; r < count; ++r)
            spec.rows.push_back({rowName(r), 0.0, r * pitch, perRow});
    } else if (rows->type == Type::Array) {
        if (rows->array.empty()) return top.fail(*rows, "rows", "expected at least one row");
        for (std::size_t i = 0; i < rows->array.size(); ++i) {
            const JsonValue& item = rows->array[i];
            const std::string path = "rows[" + std::to_string(i) + "]";
            if (item.type != Type::Object)
                return std::unexpected(
                    Error{"expected an object, got " + ObjectReader::describe(item), file,
                          item.line, item.column, path});
            ObjectReader row(item, path, file);
            model::RowSpec rs{rowName(static_cast<int>(i)), 0, 0, 0};
            FT_TRY(row.text("name", rs.name));
            FT_TRY(row.real("x", rs.x, -1e5, 1e5));
            FT_TRY(row.real("y", rs.y, -1e5, 1e5));
            const JsonValue* racks = row.get("racks");
            if (!racks)
                return std::unexpected(
                    Error{"missing required key", file, item.line, item.column, path + ".racks"});
            if (racks->type == Type::Array) {
                // Rack by rack: a name, null for an empty slot, or an object with overrides.
                if (racks->array.empty())
                    return row.fail(*racks, "racks", "expected at least one rack");
                int slot = 0;
                for (std::size_t k = 0; k < racks->array.size(); ++k, ++slot) {
                    const JsonValue& r = racks->array[k];
                    const std::string rpath = path + ".racks[" + std::to_string(k) + "]";
                    if (r.type == Type::Null) continue; // a gap
                    model::RackSpec rack;
                    rack.slot = slot;
                    if (r.type == Type::String) {
                        rack.name = r.string;
                    } else if (r.type == Type::Object) {
                        ObjectReader ro(r, rpath, file);
                        if (!ro.get("name"))
                            return std::unexpected(Error{"missing required key", file, r.line,
                                                         r.column, rpath + ".name"});
                        FT_TRY(ro.text("name", rack.name));
                        int position = slot + 1;
                        FT_TRY(ro.integer("position", position, 1, 1000));
                        rack.slot = slot = position - 1;
                        FT_TRY(ro.integer("compute_trays", rack.computeTrays, 0, 64));
                        FT_TRY(ro.real("rated_power_kw", rack.ratedPowerKw, 1, 2000));
                        FT_TRY(ro.text("model", rack.model));
                        FT_TRY(ro.text("lifecycle", rack.lifecycle));
                        if (const JsonValue* b = ro.get("bmc"); b && b->type == Type::String)
                            rack.bmc.push_back(b->string);
                        else
                            FT_TRY(ro.textList("bmc", rack.bmc));
                        if (const JsonValue* lc = ro.get("lifecycle");
                            lc && !model::lifecycleFromName(rack.lifecycle))
                            return ro.fail(*lc, "lifecycle",
                                           "expected a lifecycle state (" + lifecycleNames() +
                                               "), got \"" + rack.lifecycle + "\"");
                        FT_TRY(ro.rejectUnknown());
                    } else {
                        return std::unexpected(
                            Error{"expected a rack name, null (an empty slot) or an object, got " +
                                      ObjectReader::describe(r),
                                  file, r.line, r.column, rpath});
                    }
                    if (rack.name.empty())
                        return std::unexpected(
                            Error{"expected a rack name", file, r.line, r.column, rpath});
                    rs.rackList.push_back(std::move(rack));
                }
                if (rs.rackList.empty())
                    return row.fail(*racks, "racks", "every slot of the row is empty");
                rs.racks = static_cast<int>(rs.rackList.size());
            } else {
                FT_TRY(row.integer("racks", rs.racks, 1, 1000));
            }
            FT_TRY(row.rejectUnknown());
            spec.rows.push_back(rs);
        }
    } else {
        return top.fail(*rows, "rows",
                        "expected a row count or an array of rows, got " +
                            ObjectReader::describe(*rows));
    }
    return {};
}

// The sections that override the NVL72 defaults: rack, fabric, cooling, storage, power.
std::expected<void, Error> readSections(ObjectReader& top, model::FloorSpec& spec,
                                        const std::string& file, const JsonValue& doc) {
    auto rack = section(top, "rack", file);
    if (!rack) return std::unexpected(rack.error());
    auto& rk = spec.rack;
    FT_TRY(rack->text("model", rk.model));
    FT_TRY(rack->integer("compute_trays", rk.computeTrays, 1, 64));
    rk.computeTraysAboveSwitches = std::min(rk.computeTraysAboveSwitches, rk.computeTrays);
    FT_TRY(rack->integer("compute_trays_above_switches", rk.computeTraysAboveSwitches, 0,
                         rk.computeTrays));
    FT_TRY(rack->integer("switch_trays", rk.switchTrays, 1, 32));
    FT_TRY(rack->integer("gpus_per_tray", rk.gpusPerTray, 1, 16));
    if (rack->get("gpu_pci")) {
        FT_TRY(rack->textList("gpu_pci", rk.gpuPci));
        const JsonValue& list = *rack->get("gpu_pci");
        for (const auto& item : list.array)
            if (!parsePciAddress(item.string))
                return std::unexpected(Error{"expected a PCI address such as \"0008:01\" or "
                                             "\"00000008:01:00.0\", got \"" +
                                                 item.string + "\"",
                                             file, item.line, item.column, "gpu_pci"});
        if (static_cast<int>(rk.gpuPci.size()) != rk.gpusPerTray)
            return std::unexpected(Error{"expected one PCI address per GPU of a tray (" +
                                             std::to_string(rk.gpusPerTray) + "), got " +
                                             std::to_string(rk.gpuPci.size()),
                                         file, list.line, list.column, "gpu_pci"});
    } else if (static_cast<int>(rk.gpuPci.size()) != rk.gpusPerTray) {
        rk.gpuPci.clear(); // the default table is the NVL72 tray's: another tray places by index
    }
    FT_TRY(rack->integer("cpus_per_tray", rk.cpusPerTray, 0, 16));
    FT_TRY(rack->integer("dpus_per_tray", rk.dpusPerTray, 0, 8));
    FT_TRY(rack->integer("nics_per_gpu", rk.nicsPerGpu, 1, 8));
    FT_TRY(rack->integer("power_shelves", rk.powerShelves, 0, 16));
    FT_TRY(rack->real("gpu_tdp_w", rk.gpuTdpW, 1, 10000));
    FT_TRY(rack->real("gpu_idle_w", rk.gpuIdleW, 0, 10000));
    FT_TRY(rack->real("cpu_tdp_w", rk.cpuTdpW, 1, 5000));
    FT_TRY(rack->real("cpu_idle_w", rk.cpuIdleW, 0, 5000));
    FT_TRY(rack->real("switch_tray_w", rk.switchTrayW, 0, 10000));
    FT_TRY(rack->real("tray_overhead_w", rk.trayOverheadW, 0, 10000));
    FT_TRY(rack->real("gpu_max_temp_c", rk.gpuMaxTempC, 40, 150));
    FT_TRY(rack->real("nvlink_tbps_per_gpu", rk.nvlinkTBpsPerGpu, 0, 1000));
    FT_TRY(rack->real("nvlink_tbps_per_rack", rk.nvlinkTBpsPerRack, 0, 100000));
    FT_TRY(rack->real("rated_power_kw", rk.ratedPowerKw, 1, 2000));
    FT_TRY(rack->real("width_m", rk.widthM, 0.1, 5));
    FT_TRY(rack->real("depth_m", rk.depthM, 0.1, 5));
    FT_TRY(rack->real("height_m", rk.heightM, 0.1, 5));
    FT_TRY(rack->rejectUnknown());
    if (rk.gpuIdleW >= rk.gpuTdpW)
        return std::unexpected(Error{"gpu_idle_w must be below gpu_tdp_w", file, doc.line,
                                     doc.column, "rack.gpu_idle_w"});

    auto fabric = section(top, "fabric", file);
    if (!fabric) return std::unexpected(fabric.error());
    FT_TRY(fabric->integer("planes", spec.fabric.planes, 1, 64));
    FT_TRY(fabric->integer("switch_radix", spec.fabric.switchRadix, 2, 4096));
    FT_TRY(fabric->real("port_gbps", spec.fabric.portGbps, 1, 100000));
    FT_TRY(fabric->rejectUnknown());

    auto cooling = section(top, "cooling", file);
    if (!cooling) return std::unexpected(cooling.error());
    FT_TRY(cooling->integer("racks_per_cdu", spec.cooling.racksPerCdu, 1, 1000));
    FT_TRY(cooling->real("supply_setpoint_c", spec.cooling.supplySetpointC, 5, 80));
    FT_TRY(cooling->real("flow_lpm_per_kw", spec.cooling.flowLpmPerKw, 0.1, 20));
    FT_TRY(cooling->real("cdu_capacity_kw", spec.cooling.cduCapacityKw, 1, 100000));
    FT_TRY(cooling->integer("pumps_per_cdu", spec.cooling.pumpsPerCdu, 1, 8));
    FT_TRY(cooling->real("delta_t_setpoint_k", spec.cooling.deltaTSetpointK, 1, 40));
    FT_TRY(cooling->real("primary_supply_c", spec.cooling.primarySupplyC, 0, 80));
    FT_TRY(
        cooling->real("differential_pressure_kpa", spec.cooling.differentialPressureKpa, 10, 1000));
    FT_TRY(cooling->real("humidity_percent", spec.cooling.humidityPercent, 0, 100));
    FT_TRY(cooling->real("room_temp_c", spec.cooling.roomTempC, -20, 60));
    if (const JsonValue* bmc = cooling->get("cdu_bmc")) {
        if (bmc->type != Type::Object)
            return std::unexpected(Error{"expected an object of CDU name -> management address",
                                         file, bmc->line, bmc->column, "cooling.cdu_bmc"});
        for (const auto& [cdu, address] : bmc->object) {
            if (address.type != Type::String || address.string.empty())
                return std::unexpected(Error{"expected a management address (a string)", file,
                                             address.line, address.column,
                                             "cooling.cdu_bmc." + cdu});
            spec.cooling.cduBmc.emplace_back(cdu, address.string);
        }
    }
    FT_TRY(cooling->rejectUnknown());

    auto storage = section(top, "storage", file);
    if (!storage) return std::unexpected(storage.error());
    FT_TRY(storage->textList("regions", spec.storage.regions));
    FT_TRY(storage->textList("tiers", spec.storage.tiers));
    FT_TRY(storage->real("cache_tb_per_tray", spec.storage.cacheTbPerTray, 0, 10000));
    FT_TRY(storage->real("warm_after_days", spec.storage.warmAfterDays, 0.1, 3650));
    FT_TRY(storage->real("cold_after_days", spec.storage.coldAfterDays, 0.1, 3650));
    FT_TRY(storage->real("archive_after_days", spec.storage.archiveAfterDays, 0.1, 3650));
    FT_TRY(storage->real("aging_days_per_minute", spec.storage.agingDaysPerMinute, 0, 100000));
    FT_TRY(storage->real("inter_region_gbps", spec.storage.interRegionGbps, 0.001, 1e6));
    FT_TRY(storage->real("initial_petabytes", spec.storage.initialPetabytes, 0, 1e6));
    FT_TRY(storage->rejectUnknown());

    auto power = section(top, "power", file);
    if (!power) return std::unexpected(power.error());
    FT_TRY(power->integer("psus_per_shelf", spec.power.psusPerShelf, 2, 12));
    FT_TRY(power->real("psu_rated_kw", spec.power.psuRatedKw, 0.1, 100));
    FT_TRY(power->real("psu_peak_efficiency", spec.power.psuPeakEfficiency, 0.5, 0.999));
    FT_TRY(power->real("feed_rated_kw", spec.power.feedRatedKw, 0, 1e6));
    FT_TRY(power->real("feed_diversity", spec.power.feedDiversity, 0.1, 1.5));
    FT_TRY(power->real("feed_voltage_v", spec.power.feedVoltageV, 100, 1000));
    FT_TRY(power->real("breaker_trip_percent", spec.power.breakerTripPercent, 101, 400));
    FT_TRY(power->real("rack_budget_margin_percent", spec.power.rackBudgetMarginPercent, 0, 50));
    FT_TRY(power->rejectUnknown());
    return {};
}

// The host table: host -> rack and tray, the tray's GPU UUIDs, its BMC.
std::expected<void, Error> readHosts(ObjectReader& top, model::FloorSpec& spec,
                                     const std::string& file) {
    if (const JsonValue* hosts = top.get("hosts")) {
        if (hosts->type != Type::Array)
            return top.fail(*hosts, "hosts",
                            "expected an array of hosts, got " + ObjectReader::describe(*hosts));
        for (std::size_t i = 0; i < hosts->array.size(); ++i) {
            const JsonValue& item = hosts->array[i];
            const std::string path = "hosts[" + std::to_string(i) + "]";
            if (item.type != Type::Object)
                return std::unexpected(
                    Error{"expected an object, got " + ObjectReader::describe(item), file,
                          item.line, item.column, path});
            ObjectReader h(item, path, file);
            model::HostSpec host;
            for (const char* key : {"name", "rack", "tray"})
                if (!h.get(key))
                    return std::unexpected(Error{"missing required key", file, item.line,
                                                 item.column, path + "." + key});
            FT_TRY(h.text("name", host.name));
            FT_TRY(h.text("rack", host.rack));
            FT_TRY(h.integer("tray", host.tray, 1, 64));
            FT_TRY(h.textList("gpu_uuids", host.gpuUuids));
            FT_TRY(h.text("bmc", host.bmc));
            FT_TRY(h.text("serial", host.serial));
            FT_TRY(h.rejectUnknown());
            spec.hosts.push_back(std::move(host));
        }
    }
    return {};
}

// Links out: {"grafana": "https://grafana/d/dcgm?var-Hostname={host}", ...}.
std::expected<void, Error> readLinks(ObjectReader& top, model::FloorSpec& spec,
                                     const std::string& file) {
    if (const JsonValue* links = top.get("links")) {
        if (links->type != Type::Object)
            return top.fail(*links, "links",
                            "expected an object of name: URL template, got " +
                                ObjectReader::describe(*links));
        for (const auto& [name, url] : links->object) {
            if (url.type != Type::String)
                return std::unexpected(Error{"expected a URL template such as "
                                             "\"https://grafana/d/x?var-Hostname={host}\"",
                                             file, url.line, url.column, "links." + name});
            if (auto bad = checkLinkTemplate(url.string))
                return std::unexpected(Error{*bad, file, url.line, url.column, "links." + name});
            spec.links.emplace_back(name, url.string);
        }
    }
    return {};
}

} // namespace

std::expected<model::FloorSpec, Error> parseFloorFile(std::string_view text,
                                                      const std::string& file) {
    auto doc = parseJson(text, file);
    if (!doc) return std::unexpected(doc.error());
    if (doc->type != Type::Object)
        return std::unexpected(
            Error{"expected a JSON object at the top level", file, doc->line, doc->column, {}});

    model::FloorSpec spec;
    ObjectReader top(*doc, "", file);
    std::string format;
    FT_TRY(top.text("format", format));
    if (const JsonValue* f = top.get("format"); f && format != "floortwin-floor/1")
        return top.fail(*f, "format", R"(expected "floortwin-floor/1", got ")" + format + "\"");
    FT_TRY(top.text("name", spec.name));
    FT_TRY(top.text("host_pattern", spec.hostPattern));

    FT_TRY(readRows(top, spec, file, *doc));
    FT_TRY(readSections(top, spec, file, *doc));
    FT_TRY(readHosts(top, spec, file));
    FT_TRY(readLinks(top, spec, file));
    FT_TRY(top.rejectUnknown());
    if (spec.name.empty()) spec.name = file;
    return spec;
}

std::expected<model::FloorSpec, Error> loadFloor(const std::string& pathOrSpec) {
    if (pathOrSpec.starts_with("generate:")) return parseGenerateSpec(pathOrSpec);
    std::ifstream in(pathOrSpec, std::ios::binary);
    if (!in) return std::unexpected(Error{"cannot open floor file", pathOrSpec, 0, 0, {}});
    std::stringstream buffer;
    buffer << in.rdbuf();
    return parseFloorFile(buffer.str(), pathOrSpec);
}

} // namespace ft::importers
