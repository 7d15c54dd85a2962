// A FloorSpec written back as a floor file (--write-floor, File > Import inventory): the same
// format parseFloorFile reads, so the file round-trips.
#include "floor_file.h"
#include "model/lifecycle.h"

#include <nlohmann/json.hpp>

namespace ft::importers {

std::string floorSpecToJson(const model::FloorSpec& s) {
    nlohmann::ordered_json j;
    j["format"] = "floortwin-floor/1";
    j["name"] = s.name;
    j["host_pattern"] = s.hostPattern;
    j["rows"] = nlohmann::ordered_json::array();
    for (const auto& r : s.rows) {
        nlohmann::ordered_json row = {{"name", r.name}, {"x", r.x}, {"y", r.y}};
        if (r.rackList.empty()) {
            row["racks"] = r.racks;
        } else {
            row["racks"] = nlohmann::ordered_json::array();
            int slot = 0;
            for (const auto& rack : r.rackList) {
                nlohmann::ordered_json one = {{"name", rack.name}};
                if (rack.slot >= 0 && rack.slot != slot) one["position"] = rack.slot + 1;
                slot = (rack.slot >= 0 ? rack.slot : slot) + 1;
                if (rack.computeTrays >= 0) one["compute_trays"] = rack.computeTrays;
                if (rack.ratedPowerKw > 0) one["rated_power_kw"] = rack.ratedPowerKw;
                if (!rack.model.empty()) one["model"] = rack.model;
                if (!rack.lifecycle.empty()) one["lifecycle"] = rack.lifecycle;
                if (!rack.bmc.empty()) one["bmc"] = rack.bmc;
                row["racks"].push_back(one.size() == 1 ? nlohmann::ordered_json(rack.name) : one);
            }
        }
        j["rows"].push_back(row);
    }
    const auto& k = s.rack;
    j["rack"] = {{"model", k.model},
                 {"compute_trays", k.computeTrays},
                 {"compute_trays_above_switches", k.computeTraysAboveSwitches},
                 {"switch_trays", k.switchTrays},
                 {"gpus_per_tray", k.gpusPerTray},
                 {"cpus_per_tray", k.cpusPerTray},
                 {"dpus_per_tray", k.dpusPerTray},
                 {"nics_per_gpu", k.nicsPerGpu},
                 {"power_shelves", k.powerShelves},
                 {"gpu_tdp_w", k.gpuTdpW},
                 {"gpu_idle_w", k.gpuIdleW},
                 {"cpu_tdp_w", k.cpuTdpW},
                 {"cpu_idle_w", k.cpuIdleW},
                 {"switch_tray_w", k.switchTrayW},
                 {"tray_overhead_w", k.trayOverheadW},
                 {"gpu_max_temp_c", k.gpuMaxTempC},
                 {"nvlink_tbps_per_gpu", k.nvlinkTBpsPerGpu},
                 {"nvlink_tbps_per_rack", k.nvlinkTBpsPerRack},
                 {"rated_power_kw", k.ratedPowerKw},
                 {"width_m", k.widthM},
                 {"depth_m", k.depthM},
                 {"height_m", k.heightM}};
    if (!k.gpuPci.empty()) j["rack"]["gpu_pci"] = k.gpuPci;
    j["fabric"] = {{"planes", s.fabric.planes},
                   {"switch_radix", s.fabric.switchRadix},
                   {"port_gbps", s.fabric.portGbps}};
    const auto& c = s.cooling;
    j["cooling"] = {{"racks_per_cdu", c.racksPerCdu},
                    {"pumps_per_cdu", c.pumpsPerCdu},
                    {"supply_setpoint_c", c.supplySetpointC},
                    {"delta_t_setpoint_k", c.deltaTSetpointK},
                    {"flow_lpm_per_kw", c.flowLpmPerKw},
                    {"cdu_capacity_kw", c.cduCapacityKw},
                    {"primary_supply_c", c.primarySupplyC},
                    {"differential_pressure_kpa", c.differentialPressureKpa},
                    {"room_temp_c", c.roomTempC},
                    {"humidity_percent", c.humidityPercent}};
    if (!c.cduBmc.empty()) {
        nlohmann::ordered_json bmc = nlohmann::ordered_json::object();
        for (const auto& [cdu, address] : c.cduBmc)
            bmc[cdu] = address;
        j["cooling"]["cdu_bmc"] = bmc;
    }
    j["storage"] = {{"regions", s.storage.regions},
                    {"tiers", s.storage.tiers},
                    {"cache_tb_per_tray", s.storage.cacheTbPerTray},
                    {"warm_after_days", s.storage.warmAfterDays},
                    {"cold_after_days", s.storage.coldAfterDays},
                    {"archive_after_days", s.storage.archiveAfterDays},
                    {"aging_days_per_minute", s.storage.agingDaysPerMinute},
                    {"initial_petabytes", s.storage.initialPetabytes}};
    // 0 is "sized to the floor", which the file says by leaving the key out.
    if (s.storage.interRegionGbps > 0)
        j["storage"]["inter_region_gbps"] = s.storage.interRegionGbps;
    j["power"] = {{"psus_per_shelf", s.power.psusPerShelf},
                  {"psu_rated_kw", s.power.psuRatedKw},
                  {"psu_peak_efficiency", s.power.psuPeakEfficiency},
                  {"feed_rated_kw", s.power.feedRatedKw},
                  {"feed_diversity", s.power.feedDiversity},
                  {"feed_voltage_v", s.power.feedVoltageV},
                  {"breaker_trip_percent", s.power.breakerTripPercent},
                  {"rack_budget_margin_percent", s.power.rackBudgetMarginPercent}};
    if (!s.hosts.empty()) {
        j["hosts"] = nlohmann::ordered_json::array();
        for (const auto& h : s.hosts) {
            nlohmann::ordered_json host = {{"name", h.name}, {"rack", h.rack}, {"tray", h.tray}};
            if (!h.gpuUuids.empty()) host["gpu_uuids"] = h.gpuUuids;
            if (!h.bmc.empty()) host["bmc"] = h.bmc;
            if (!h.serial.empty()) host["serial"] = h.serial;
            j["hosts"].push_back(host);
        }
    }
    if (!s.links.empty()) {
        j["links"] = nlohmann::ordered_json::object();
        for (const auto& [name, url] : s.links)
            j["links"][name] = url;
    }
    return j.dump(2);
}

} // namespace ft::importers
