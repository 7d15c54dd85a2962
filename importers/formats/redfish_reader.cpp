// The Redfish walk's reading of one answered resource: by the role it was fetched in, its
// readings (excerpts, set points, poly-phase lines, Status and the state enumerations), its
// conditions and the links to follow. See redfish_crawl.h.
#include "redfish_crawl.h"
#include "redfish_role.h"
#include "redfish_values.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace ft::importers::redfish {

using namespace detail; // json, Role and the small readings (redfish_values.h)

class Crawl::Reader {
public:
    Reader(Crawl& crawl, const Job& job, const json& body, model::TimeNs time)
        : m_c(crawl), m_job(job), m_body(body), m_time(time) {}

    void read() {
        const Role role = m_job.role;
        if (const auto member = memberRole(role)) {
            readCollection(*member);
            return;
        }
        if (!checkType(role)) return;
        conditions();
        switch (role) {
        case Role::Root:
            link("ThermalEquipment", Role::Thermal, m_job.context);
            link("PowerEquipment", Role::Power, m_job.context);
            break;
        case Role::Thermal:
            link("CDUs", Role::CoolingUnits, child("CDU", {}));
            link("HeatExchangers", Role::CoolingUnits, child("HeatExchanger", {}));
            link("ImmersionUnits", Role::CoolingUnits, child("ImmersionUnit", {}));
            break;
        case Role::CoolingUnit: {
            const std::uint32_t eq = equipment();
            readings(eq);
            link("PrimaryCoolantConnectors", Role::Connectors,
                 child({}, "PrimaryCoolantConnector", eq));
            link("SecondaryCoolantConnectors", Role::Connectors,
                 child({}, "SecondaryCoolantConnector", eq));
            link("Pumps", Role::Pumps, child({}, "Pump", eq));
            link("Filters", Role::Filters, child({}, "Filter", eq));
            link("Reservoirs", Role::Reservoirs, child({}, "Reservoir", eq));
            link("EnvironmentMetrics", Role::Environment, child({}, "Environment", eq));
            link("LeakDetection", Role::LeakDetection, child({}, "LeakDetection", eq));
            break;
        }
        case Role::LeakDetection: {
            readings(m_job.context);
            // LeakDetection v1_1+ carries its detectors as excerpts in groups; older services
            // only link the collection.
            const json& groups = at(m_body, "LeakDetectorGroups");
            if (groups.is_array() && !groups.empty()) {
                for (const auto& g : groups)
                    if (const json& detectors = at(g, "Detectors"); detectors.is_array())
                        for (const auto& d : detectors)
                            detectorExcerpt(d);
            } else {
                link("LeakDetectors", Role::LeakDetectors, child({}, "LeakDetector"));
            }
            break;
        }
        case Role::Power:
            link("RackPDUs", Role::Distributions, child("RackPDU", {}));
            link("FloorPDUs", Role::Distributions, child("FloorPDU", {}));
            link("PowerShelves", Role::Distributions, child("PowerShelf", {}));
            link("TransferSwitches", Role::Distributions, child("TransferSwitch", {}));
            link("ElectricalBuses", Role::Distributions, child("Bus", {}));
            link("Switchgear", Role::Distributions, child("Switchgear", {}));
            break;
        case Role::Distribution: {
            const std::uint32_t eq = equipment();
            readings(eq);
            link("Mains", Role::Circuits, child({}, "Mains", eq));
            link("Branches", Role::Circuits, child({}, "Branch", eq));
            link("Feeders", Role::Circuits, child({}, "Feeder", eq));
            link("Subfeeds", Role::Circuits, child({}, "Subfeed", eq));
            link("Metrics", Role::DistributionMetrics, child({}, "Metrics", eq));
            // A shelf's supplies: listed on the shelf (PowerDistribution v1_3), else in the
            // PowerSubsystem of the chassis it links to.
            const std::uint32_t psus = child({}, "PowerSupply", eq);
            if (!linkOf(at(m_body, "PowerSupplies")).empty()) {
                link("PowerSupplies", Role::PowerSupplies, psus);
            } else if (m_c.m_contexts[eq].equipment == "PowerShelf") {
                const json& chassis = at(at(m_body, "Links"), "Chassis");
                if (chassis.is_array())
                    for (const auto& c : chassis)
                        m_c.follow(linkOf(c), Role::Chassis, psus);
            }
            break;
        }
        case Role::Chassis: {
            // Where DSP0268 puts it; a link elsewhere is followed too (and if it is not a
            // PowerSubsystem, counted), so one wrong link does not lose the shelf's PSUs.
            const std::string conventional = m_job.path + "/PowerSubsystem";
            const std::string given = linkOf(at(m_body, "PowerSubsystem"));
            if (!given.empty()) m_c.follow(given, Role::PowerSubsystem, m_job.context);
            if (given.empty() || crawlPath(given, m_c.m_base) != conventional)
                m_c.follow(conventional, Role::PowerSubsystem, m_job.context);
            break;
        }
        case Role::PowerSubsystem:
            link("PowerSupplies", Role::PowerSupplies, m_job.context);
            break;
        case Role::Connector:
        case Role::Pump:
        case Role::Filter:
        case Role::Reservoir:
        case Role::LeakDetector:
        case Role::Circuit:
            readings(member());
            break;
        case Role::PowerSupply: {
            const std::uint32_t ctx = member();
            readings(ctx);
            // psu.state: 2 failed, offline or absent (an empty bay delivers nothing either),
            // 1 no input (a feed is down), 0 delivering.
            const auto status = statusValue(at(m_body, "Status"));
            const std::string line = text(m_body, "LineInputStatus");
            if (text(at(m_body, "Status"), "State") == "Absent") {
                m_c.emit(ctx, "State", 2, m_time);
            } else if (status) {
                const double state = *status >= 2 ? 2 : (!line.empty() && line != "Normal") ? 1 : 0;
                m_c.emit(ctx, "State", state, m_time);
            }
            link("Metrics", Role::PowerSupplyMetrics, ctx);
            break;
        }
        case Role::Environment:
        case Role::DistributionMetrics:
        case Role::PowerSupplyMetrics:
            readings(m_job.context);
            break;
        case Role::Sensor:
            sensor();
            break;
        default:
            break;
        }
    }

private:
    void readCollection(Role member) {
        const json& members = at(m_body, "Members");
        if (!members.is_array()) {
            m_c.problem(Problem::MissingProperty, m_job.path, "a collection without Members[]");
            return;
        }
        for (const auto& m : members) {
            const std::string id = linkOf(m);
            if (id.empty()) {
                m_c.problem(Problem::MissingProperty, m_job.path,
                            "a member without @odata.id in Members[]");
                continue;
            }
            m_c.follow(id, member, m_job.context);
        }
        // A paged collection goes on at its next link, as the same collection.
        if (const std::string nextLink = text(m_body, "Members@odata.nextLink"); !nextLink.empty())
            m_c.follow(nextLink, m_job.role, m_job.context);
    }

    bool checkType(Role role) {
        const std::string raw = text(m_body, "@odata.type");
        if (raw.empty()) {
            // Read on the strength of where it was linked from, but say so.
            m_c.problem(Problem::MissingProperty, m_job.path, "no @odata.type");
            return true;
        }
        const ODataType t = parseType(raw);
        const std::string_view want = expectedType(role);
        if (!t.valid || t.type != want) {
            m_c.problem(Problem::UnknownType, m_job.path,
                        "@odata.type '" + raw + "' where a " + std::string(want) + " was expected");
            return false;
        }
        if (t.major > 1) {
            // A new major version may mean the same names differently: not guessed at.
            m_c.problem(Problem::UnknownType, m_job.path,
                        "@odata.type '" + raw + "': version " + std::to_string(t.major) + " of " +
                            t.type + " is not known (1 is)");
            return false;
        }
        return true;
    }

    // A context for the children: a new equipment type and/or part, the same labels.
    std::uint32_t child(std::string equipment, std::string part, std::uint32_t base = UINT32_MAX) {
        const std::uint32_t from = base == UINT32_MAX ? m_job.context : base;
        Context c = m_c.m_contexts[from];
        if (!equipment.empty()) c.equipment = std::move(equipment);
        if (!part.empty()) c.part = std::move(part);
        const auto id = static_cast<std::uint32_t>(m_c.m_contexts.size());
        m_c.m_contexts.push_back(std::move(c));
        return id;
    }

    static void setLabel(std::vector<Label>& labels, std::string name, std::string value) {
        if (value.empty()) return;
        for (auto& l : labels)
            if (l.name == name) {
                l.value = std::move(value);
                return;
            }
        labels.push_back({std::move(name), std::move(value)});
    }

    // This resource as an equipment: its type, name, ids and placement label its readings.
    std::uint32_t equipment() {
        Context c = m_c.m_contexts[m_job.context];
        if (const std::string type = text(m_body, "EquipmentType"); !type.empty())
            c.equipment = type;
        if (c.equipment.empty()) c.equipment = "Equipment";
        c.part.clear();
        setLabel(c.labels, "equipment", text(m_body, "Name"));
        setLabel(c.labels, "equipment_id", text(m_body, "Id"));
        setLabel(c.labels, "asset_tag", text(m_body, "AssetTag"));
        setLabel(c.labels, "serial", text(m_body, "SerialNumber"));
        const json& placement = at(at(m_body, "Location"), "Placement");
        setLabel(c.labels, "row", text(placement, "Row"));
        setLabel(c.labels, "rack", text(placement, "Rack"));
        setLabel(c.labels, "uri", m_job.path);
        const auto id = static_cast<std::uint32_t>(m_c.m_contexts.size());
        c.equipmentContext = id;
        m_c.m_contexts.push_back(std::move(c));
        return id;
    }

    // This resource as a part of the equipment (a pump, a circuit, a PSU).
    std::uint32_t member() {
        Context c = m_c.m_contexts[m_job.context];
        setLabel(c.labels, "member", text(m_body, "Id"));
        setLabel(c.labels, "member_name", text(m_body, "Name"));
        const json& part = at(at(m_body, "Location"), "PartLocation");
        setLabel(c.labels, "service_label", text(part, "ServiceLabel"));
        setLabel(c.labels, "uri", m_job.path);
        const auto id = static_cast<std::uint32_t>(m_c.m_contexts.size());
        m_c.m_contexts.push_back(std::move(c));
        return id;
    }

    // A detector as a LeakDetectorGroups excerpt: its state, named by its DataSourceUri's last
    // segment (the LeakDetector's Id) and DeviceName.
    void detectorExcerpt(const json& d) {
        const auto state = levelValue(at(d, "DetectorState"));
        if (!state) return;
        Context c = m_c.m_contexts[m_job.context];
        c.part = "LeakDetector";
        const std::string uri = text(d, "DataSourceUri");
        setLabel(c.labels, "member", uri.substr(uri.rfind('/') + 1));
        setLabel(c.labels, "member_name", text(d, "DeviceName"));
        if (!uri.empty()) setLabel(c.labels, "uri", uri);
        const auto id = static_cast<std::uint32_t>(m_c.m_contexts.size());
        m_c.m_contexts.push_back(std::move(c));
        m_c.emit(id, "DetectorState", *state, m_time);
    }

    void link(const char* property, Role role, std::uint32_t context) {
        const std::string id = linkOf(at(m_body, property));
        if (!id.empty()) m_c.follow(id, role, context);
    }

    // Every reading the resource carries: excerpts, set points, poly-phase lines, Status and
    // the state enumerations.
    void readings(std::uint32_t ctx) {
        if (!m_body.is_object()) return;
        for (const auto& [key, value] : m_body.items()) {
            if (key == "Status") {
                if (const auto s = statusValue(value)) m_c.emit(ctx, "Status", *s, m_time);
            } else if (key == "DetectorState" || key == "FluidLevelStatus") {
                if (const auto s = levelValue(value)) m_c.emit(ctx, key, *s, m_time);
            } else if (key == "BreakerState") {
                if (value.is_string()) {
                    const auto& s = value.get_ref<const std::string&>();
                    // Tripped or off, the circuit carries nothing.
                    m_c.emit(ctx, key, s == "Normal" ? 0 : 2, m_time);
                }
            } else if (key == "LineInputStatus") {
                if (value.is_string())
                    m_c.emit(ctx, key, value.get_ref<const std::string&>() == "Normal" ? 0 : 1,
                             m_time);
            } else if (key.starts_with("PolyPhase") && value.is_object()) {
                for (const auto& [line, v] : value.items())
                    if (isExcerpt(v)) excerpt(ctx, key, v, line);
            } else if (isExcerpt(value)) {
                excerpt(ctx, key, value, {});
            } else if (value.is_number() &&
                       (key.starts_with("Rated") || key.ends_with("CapacityWatts") ||
                        key == "CapacityLiters")) {
                m_c.emit(ctx, key, value.get<double>(), m_time);
            }
        }
    }

    void excerpt(std::uint32_t ctx, const std::string& key, const json& v,
                 const std::string& phase) {
        Label extra{"phase", phase};
        const Label* withPhase = phase.empty() ? nullptr : &extra;
        if (const auto it = v.find("Reading"); it != v.end()) {
            if (it->is_number())
                m_c.emit(ctx, key, it->get<double>(), m_time, withPhase);
            else if (!it->is_null())
                m_c.problem(Problem::MissingProperty, m_job.path,
                            key + ".Reading is " + std::string(it->type_name()) + ", not a number");
            return; // null: the sensor has no reading now — no data, not an error
        }
        if (const auto it = v.find("SetPoint"); it != v.end()) {
            if (it->is_number()) m_c.emit(ctx, key, it->get<double>(), m_time, withPhase);
            return; // a control's DataSourceUri names a Control, not a Sensor
        }
        // Only a DataSourceUri: the reading is in the Sensor it names.
        const std::string uri = text(v, "DataSourceUri");
        const auto path = crawlPath(uri, m_c.m_base);
        if (!path) {
            m_c.problem(Problem::DanglingLink, m_job.path,
                        key + ".DataSourceUri '" + uri + "' is not a link on this service");
            return;
        }
        Context c = m_c.m_contexts[ctx];
        if (withPhase) setLabel(c.labels, "phase", phase);
        const auto cid = static_cast<std::uint32_t>(m_c.m_contexts.size());
        m_c.m_contexts.push_back(std::move(c));
        const auto want = static_cast<std::uint32_t>(m_c.m_sensorWants.size());
        m_c.m_sensorWants.push_back(
            {key, cid, std::string(unitOfProperty(key)), m_job.path + " " + key});
        if (const auto it = m_c.m_sensorJobs.find(*path); it != m_c.m_sensorJobs.end()) {
            m_c.m_jobs[it->second].wants.push_back(want);
            return;
        }
        // A sensor path the walk already fetched as something else is not fetched twice.
        const std::uint32_t job = m_c.follow(*path, Role::Sensor, 0);
        if (job == UINT32_MAX) return;
        m_c.m_sensorJobs.emplace(*path, job);
        m_c.m_jobs[job].wants.push_back(want);
    }

    void sensor() {
        // Copy: emitting may grow m_jobs, which holds m_job.
        const std::vector<std::uint32_t> wants = m_job.wants;
        const std::string path = m_job.path;
        const json& reading = at(m_body, "Reading");
        const std::string state = text(at(m_body, "Status"), "State");
        if (reading.is_null() || state == "Absent" || state == "UnavailableOffline")
            return; // no reading now
        if (!reading.is_number()) {
            m_c.problem(Problem::MissingProperty, path,
                        "Reading is " + std::string(reading.type_name()) + ", not a number");
            return;
        }
        const std::string units = text(m_body, "ReadingUnits");
        for (const std::uint32_t w : wants) {
            const SensorWant want = m_c.m_sensorWants[w];
            double factor = 1;
            if (!want.unit.empty()) {
                if (units.empty()) {
                    m_c.problem(Problem::MissingProperty, path,
                                "no ReadingUnits (" + want.unit + " expected for " + want.from +
                                    ")");
                    continue;
                }
                const auto f = unitFactor(units, want.unit);
                if (!f) {
                    m_c.problem(Problem::WrongUnits, path,
                                "ReadingUnits '" + units + "' where '" + want.unit +
                                    "' was expected for " + want.from);
                    continue;
                }
                factor = *f;
            }
            m_c.emit(want.context, want.metric, reading.get<double>() * factor, m_time);
        }
    }

    void conditions() {
        const json& list = at(at(m_body, "Status"), "Conditions");
        if (!list.is_array()) return;
        for (const auto& c : list) {
            const std::string severity = text(c, "Severity");
            if (severity.empty() || severity == "OK") continue;
            Condition out{severity, text(c, "Message"), text(c, "MessageId"),
                          linkOf(at(c, "OriginOfCondition")), m_job.path};
            if (out.origin.empty()) out.origin = m_job.path;
            std::string key = out.messageId + "|" + out.origin + "|" + out.message;
            if (!m_c.m_conditionKeys.insert(std::move(key)).second) continue;
            if (m_c.m_conditions.size() < m_c.m_limits.maxConditions)
                m_c.m_conditions.push_back(std::move(out));
        }
    }

    Crawl& m_c;
    const Job& m_job;
    const json& m_body;
    model::TimeNs m_time;
};

void Crawl::read(const Job& job, const json& body, model::TimeNs time) {
    Reader(*this, job, body, time).read();
}

} // namespace ft::importers::redfish
