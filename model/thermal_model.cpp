#include "thermal_model.h"

#include <algorithm>
#include <cmath>

namespace ft::model {
namespace {

constexpr float kCp = 4186.0f;             // J/(kg K), water
constexpr float kDensity = 0.99f;          // kg/L at 45 C
constexpr float kRackLoopLitres = 40.0f;   // coolant held in a rack's manifold and cold plates
constexpr float kPumpShutoffKpa = 400.0f;  // pump head at zero flow, full speed
constexpr float kReturnHeaderKpa = 100.0f; // static pressure of the return header
constexpr float kMinValve = 0.25f; // keeps an idle rack's loop moving (and its sensors honest)
constexpr float kValveKp = 0.03f;  // per K of ΔT error change
constexpr float kValveKi = 0.006f; // per K·s
constexpr float kPumpKp = 0.5f;
constexpr float kPumpKi = 0.4f;
constexpr float kPrimaryDeltaK = 10.0f; // facility water design ΔT

float kgPerSecond(float lpm) {
    return lpm * kDensity / 60.0f;
}
float lag(float dt, float tau) {
    return 1.0f - std::exp(-dt / tau);
}

} // namespace

ThermalModel::ThermalModel(const Topology& topology) : m_topology(topology) {
    const auto& spec = topology.spec();
    m_rack.resize(topology.count(EntityKind::Rack));
    m_pump.resize(topology.count(EntityKind::Pump));
    m_cdu.resize(topology.count(EntityKind::Cdu));
    for (auto& c : m_cdu) {
        c.setpoint = c.driftTarget = static_cast<float>(spec.cooling.supplySetpointC);
        c.primarySupply = c.primaryTarget = static_cast<float>(spec.cooling.primarySupplyC);
    }
    m_designRackFlow = static_cast<float>(spec.rack.ratedPowerKw * spec.cooling.flowLpmPerKw);
    // Valves sit near 70 % open at design flow and design differential pressure.
    m_rackConductance =
        m_designRackFlow /
        (0.7f * std::sqrt(static_cast<float>(spec.cooling.differentialPressureKpa)));
    // The heat exchanger reaches its rated duty at the design approach (setpoint - facility water).
    m_ua = static_cast<float>(
        spec.cooling.cduCapacityKw /
        std::max(1.0, spec.cooling.supplySetpointC - spec.cooling.primarySupplyC));
}

void ThermalModel::initialize(Snapshot& s) const {
    const auto& spec = m_topology.spec();
    auto& v = s.values;
    const auto setpoint = static_cast<float>(spec.cooling.supplySetpointC);
    const auto dp = static_cast<float>(spec.cooling.differentialPressureKpa);
    for (std::size_t r = 0; r < m_rack.size(); ++r) {
        v[ch::RackSupplyTemperature][r] = setpoint;
        v[ch::RackReturnTemperature][r] = setpoint + 5.0f;
        v[ch::RackFlow][r] = m_designRackFlow;
        v[ch::RackValvePosition][r] = 70.0f;
        v[ch::RackDeltaPressure][r] = dp;
        v[ch::RackSupplyPressure][r] = kReturnHeaderKpa + dp;
        v[ch::RackReturnPressure][r] = kReturnHeaderKpa;
        v[ch::RackPowerOn][r] = 1.0f;
    }
    for (std::size_t c = 0; c < m_cdu.size(); ++c) {
        v[ch::CduSupplyTemperature][c] = setpoint;
        v[ch::CduSetpoint][c] = setpoint;
        v[ch::CduPrimarySupplyTemperature][c] = m_cdu[c].primarySupply;
        v[ch::CduCoolantLevel][c] = m_cdu[c].level;
    }
    for (std::size_t p = 0; p < m_pump.size(); ++p)
        v[ch::PumpSpeed][p] = 75.0f;
}

void ThermalModel::event(std::vector<Event>& events, TimeNs t, EventKind kind, EntityRef e,
                         Severity s, std::string text) const {
    events.push_back({t, kind, e, s, m_topology.name(e.kind, e.id) + ": " + std::move(text)});
}

void ThermalModel::apply(const ScenarioEvent& ev, Snapshot& state, std::vector<Event>& events) {
    const EntityKind kind = scenarioActionTarget(ev.action);
    std::vector<EntityId> targets = ev.targets;
    if (!targets.empty()) {
    } else if (ev.target)
        targets.push_back(ev.target->id);
    else
        for (EntityId e = 0; e < m_topology.count(kind); ++e)
            targets.push_back(e);
    for (EntityId id : targets) {
        switch (ev.action) {
        case ScenarioAction::PumpFail:
            m_pump[id].failed = true;
            m_pump[id].head = 0;
            break;
        case ScenarioAction::PumpDegrade:
            m_pump[id].head = static_cast<float>(std::clamp(ev.value, 0.0, 1.0));
            break;
        case ScenarioAction::PumpRestore:
            m_pump[id].failed = false;
            m_pump[id].head = 1;
            break;
        case ScenarioAction::ManifoldBlockage:
            m_rack[id].blockage = static_cast<float>(std::clamp(ev.value, 0.0, 0.98));
            break;
        case ScenarioAction::ClearBlockage:
            m_rack[id].blockage = 0;
            break;
        case ScenarioAction::SetpointDrift:
            m_cdu[id].driftRate = static_cast<float>(ev.value / 60.0);
            m_cdu[id].driftTarget = static_cast<float>(ev.value2);
            break;
        case ScenarioAction::Leak:
            m_rack[id].leak = true;
            m_rack[id].leakAge = 0;
            break;
        case ScenarioAction::LeakRepaired:
            m_rack[id] = RackState{};
            break;
        case ScenarioAction::PrimarySupply:
            m_cdu[id].primaryTarget = static_cast<float>(ev.value);
            m_cdu[id].primaryRate = static_cast<float>(
                std::abs(ev.value - m_cdu[id].primarySupply) / std::max(1.0, ev.value2));
            break;
        case ScenarioAction::RackPowerOn:
            m_rack[id].powered = true;
            m_rack[id].overTemp = 0;
            break;
        default:
            break; // the other models' actions
        }
    }
    const std::string what = ev.note.empty() ? std::string(scenarioActionName(ev.action)) : ev.note;
    events.push_back({state.time, EventKind::ScenarioInjection,
                      ev.target.value_or(EntityRef{kind, 0}), Severity::Warning,
                      (ev.target ? m_topology.name(ev.target->kind, ev.target->id) + ": "
                                 : std::string("all: ")) +
                          what});
}

void ThermalModel::step(Snapshot& s, const Holds& held, float dt, std::vector<Event>& events) {
    for (EntityId c = 0; c < m_cdu.size(); ++c)
        stepCdu(c, s, held, dt, events);

    // Rooms: a little warmer where the rows carry more load (what the liquid does not take).
    auto& v = s.values;
    const auto& spec = m_topology.spec();
    const auto tSec = static_cast<float>(toSeconds(s.time % (86400 * kNsPerSecond)));
    for (EntityId row = 0; row < m_topology.count(EntityKind::Row); ++row) {
        float kw = 0;
        const EntityId first = m_topology.rows.firstRack[row];
        for (std::uint32_t i = 0; i < m_topology.rows.rackCount[row]; ++i)
            kw += v[ch::RackPower][first + i];
        const float perRack = kw / static_cast<float>(std::max(1u, m_topology.rows.rackCount[row]));
        if (!held(ch::RowRoomTemperature, row))
            v[ch::RowRoomTemperature][row] =
                static_cast<float>(spec.cooling.roomTempC) + perRack * 0.012f +
                0.3f * std::sin(tSec / 900.0f + static_cast<float>(row));
        if (!held(ch::RowHumidity, row))
            v[ch::RowHumidity][row] =
                static_cast<float>(spec.cooling.humidityPercent) +
                3.0f * std::sin(tSec / 2400.0f + 2.0f * static_cast<float>(row));
    }
}

void ThermalModel::stepCdu(EntityId c, Snapshot& s, const Holds& held, float dt,
                           std::vector<Event>& events) {
    const auto& spec = m_topology.spec();
    auto& v = s.values;
    CduState& cdu = m_cdu[c];
    const EntityId firstRack = m_topology.cdus.firstRack[c];
    const std::uint32_t nRacks = m_topology.cdus.rackCount[c];
    const auto dpSet = static_cast<float>(spec.cooling.differentialPressureKpa);
    const float designCduFlow = m_designRackFlow * static_cast<float>(nRacks);
    // Each pump alone moves the CDU's design flow at a third of its shut-off head (N+1 sizing).
    const float kp = (kPumpShutoffKpa * 0.75f) / (designCduFlow * designCduFlow);

    // Drifts and ramps from scenarios.
    if (cdu.driftRate != 0 && cdu.setpoint < cdu.driftTarget)
        cdu.setpoint = std::min(cdu.driftTarget, cdu.setpoint + cdu.driftRate * dt);
    if (cdu.primarySupply != cdu.primaryTarget) {
        const float step = cdu.primaryRate * dt;
        cdu.primarySupply += std::clamp(cdu.primaryTarget - cdu.primarySupply, -step, step);
    }

    // Conductance of the racks in parallel.
    float conductance = 0;
    for (std::uint32_t i = 0; i < nRacks; ++i) {
        const RackState& r = m_rack[firstRack + i];
        if (!r.isolated) conductance += m_rackConductance * r.valve * (1.0f - r.blockage);
    }

    // Pumps: spin toward the command (failed ones spin down), then solve the common head H at
    // which the pumps' total flow equals what the racks pass: sum sqrt((A_p - H)/kp) = G sqrt(H).
    float heads[8];
    int nPumps = 0;
    float maxHead = 0;
    const auto perCdu =
        static_cast<EntityId>(spec.cooling.pumpsPerCdu); // pumps are numbered CDU by CDU
    for (EntityId p = c * perCdu; p < (c + 1) * perCdu && nPumps < 8; ++p) {
        PumpState& pump = m_pump[p];
        const float want = pump.failed ? 0.0f : cdu.speedCommand;
        pump.speed += (want - pump.speed) * lag(dt, 2.0f);
        const float a = kPumpShutoffKpa * pump.speed * pump.speed * pump.head;
        heads[nPumps++] = a;
        maxHead = std::max(maxHead, a);
        if (!held(ch::PumpSpeed, p)) v[ch::PumpSpeed][p] = pump.speed * 100.0f;
        if (!held(ch::PumpHealth, p))
            v[ch::PumpHealth][p] = pump.failed ? 2.0f : (pump.head < 0.95f ? 1.0f : 0.0f);
    }
    float lo = 0, hi = maxHead;
    for (int it = 0; it < 40 && conductance > 0; ++it) {
        const float mid = 0.5f * (lo + hi);
        float pumped = 0;
        for (int p = 0; p < nPumps; ++p)
            pumped += std::sqrt(std::max(0.0f, heads[p] - mid) / kp);
        float& bound = pumped > conductance * std::sqrt(mid) ? lo : hi;
        if (bound == mid) break; // converged: every later step would change nothing either
        bound = mid;
    }
    const float dp = conductance > 0 ? lo : maxHead;

    // Pump speed control holds the differential pressure (velocity-form PI).
    const float dpError = (dpSet - dp) / dpSet;
    cdu.speedCommand =
        std::clamp(cdu.speedCommand + kPumpKp * (dpError - cdu.lastError) + kPumpKi * dpError * dt,
                   0.25f, 1.0f);
    cdu.lastError = dpError;

    // Racks: flow, coolant, valves, leaks and protections.
    const float cduSupply = v[ch::CduSupplyTemperature][c];
    const auto limit = static_cast<float>(spec.rack.gpuMaxTempC);
    float flowSum = 0, returnMix = 0, heatSum = 0;
    for (std::uint32_t i = 0; i < nRacks; ++i) {
        const EntityId r = firstRack + i;
        RackState& rack = m_rack[r];
        // Valvey: isolate a leaking rack after the reaction delay; Racky powers it off.
        if (rack.leak) {
            rack.leakAge += dt;
            if (!rack.isolated && rack.leakAge >= kLeakReactionS) {
                rack.isolated = true;
                event(events, s.time, EventKind::Protection, {EntityKind::Rack, r},
                      Severity::Critical, "isolated by Valvey (leak)");
                if (rack.powered) {
                    rack.powered = false;
                    event(events, s.time, EventKind::Protection, {EntityKind::Rack, r},
                          Severity::Critical, "powered off by Racky (leak)");
                }
            }
            cdu.level = std::max(0.0f, cdu.level - (rack.isolated ? 0.0f : 0.15f * dt));
        }
        const float gpuMax = v[ch::RackGpuTempMax][r];
        rack.overTemp = rack.powered && gpuMax > limit + kTripMarginK ? rack.overTemp + dt : 0.0f;
        if (rack.overTemp >= kTripAfterS) {
            rack.powered = false;
            rack.overTemp = 0;
            event(events, s.time, EventKind::Protection, {EntityKind::Rack, r}, Severity::Critical,
                  "powered off by Racky (GPU over-temperature trip)");
        }

        const float flow =
            rack.isolated ? 0.0f
                          : m_rackConductance * rack.valve * (1.0f - rack.blockage) * std::sqrt(dp);
        if (!held(ch::RackFlow, r)) v[ch::RackFlow][r] = flow;
        const float q = v[ch::RackFlow][r];
        const float mdot = kgPerSecond(q);
        // Supply at the manifold follows the CDU's through the pipe's transport lag.
        if (!held(ch::RackSupplyTemperature, r) && q > 1.0f) {
            const float tau = 10.0f * m_designRackFlow / std::max(q, 0.05f * m_designRackFlow);
            v[ch::RackSupplyTemperature][r] +=
                (cduSupply + 0.04f * static_cast<float>(i) - v[ch::RackSupplyTemperature][r]) *
                lag(dt, tau);
        }
        const float supply = v[ch::RackSupplyTemperature][r];
        // Lumped coolant: C dT/dt = P - m_dot c_p (T_return - T_supply).
        const float heatIn = v[ch::RackPower][r] * 1000.0f;
        float& ret = v[ch::RackReturnTemperature][r];
        if (!held(ch::RackReturnTemperature, r)) {
            const float capacity = kRackLoopLitres * kDensity * kCp;
            ret += dt * (heatIn - mdot * kCp * (ret - supply)) / capacity;
        }
        const float deltaT = ret - supply;
        const float heatOut = mdot * kCp * deltaT / 1000.0f;
        if (!held(ch::RackDeltaTemperature, r)) v[ch::RackDeltaTemperature][r] = deltaT;
        if (!held(ch::RackHeatRemoved, r)) v[ch::RackHeatRemoved][r] = heatOut;
        if (!held(ch::RackDeltaPressure, r))
            v[ch::RackDeltaPressure][r] = rack.isolated ? 0.0f : dp;
        if (!held(ch::RackSupplyPressure, r))
            v[ch::RackSupplyPressure][r] = rack.isolated ? kReturnHeaderKpa : kReturnHeaderKpa + dp;
        if (!held(ch::RackReturnPressure, r)) v[ch::RackReturnPressure][r] = kReturnHeaderKpa;
        if (!held(ch::RackLeakDetected, r)) v[ch::RackLeakDetected][r] = rack.leak ? 1.0f : 0.0f;
        if (!held(ch::RackPowerOn, r)) v[ch::RackPowerOn][r] = rack.powered ? 1.0f : 0.0f;

        // Valvey: trim the valve to hold the ΔT setpoint (velocity-form PI on the measured ΔT).
        if (rack.isolated)
            rack.valve = 0;
        else {
            const float error =
                v[ch::RackDeltaTemperature][r] - static_cast<float>(spec.cooling.deltaTSetpointK);
            rack.valve =
                std::clamp(rack.valve + kValveKp * (error - rack.lastError) + kValveKi * error * dt,
                           kMinValve, 1.0f);
            rack.lastError = error;
        }
        if (!held(ch::RackValvePosition, r)) v[ch::RackValvePosition][r] = rack.valve * 100.0f;

        flowSum += q;
        returnMix += q * ret;
        heatSum += heatOut;
    }

    // The CDU: secondary return mix, heat exchanger to facility water, setpoint within capacity.
    const float cduReturn = flowSum > 1.0f ? returnMix / flowSum : v[ch::CduReturnTemperature][c];
    const float hxDuty =
        kgPerSecond(flowSum) * kCp * std::max(0.0f, cduReturn - cdu.setpoint) / 1000.0f; // kW
    const float reachable = cdu.primarySupply + hxDuty / m_ua;
    if (!held(ch::CduSupplyTemperature, c)) {
        const float want = std::max(cdu.setpoint, reachable);
        v[ch::CduSupplyTemperature][c] += (want - v[ch::CduSupplyTemperature][c]) * lag(dt, 15.0f);
    }
    const float primaryFlow = hxDuty * 1000.0f / (kCp * kPrimaryDeltaK) / kDensity * 60.0f;
    const float primaryReturn = cdu.primarySupply + (hxDuty > 0.1f ? kPrimaryDeltaK : 0.0f);
    if (!held(ch::CduReturnTemperature, c)) v[ch::CduReturnTemperature][c] = cduReturn;
    if (!held(ch::CduFlow, c)) v[ch::CduFlow][c] = flowSum;
    if (!held(ch::CduHeatLoad, c)) v[ch::CduHeatLoad][c] = heatSum;
    if (!held(ch::CduDeltaTemperature, c))
        v[ch::CduDeltaTemperature][c] = cduReturn - v[ch::CduSupplyTemperature][c];
    if (!held(ch::CduDeltaPressure, c)) v[ch::CduDeltaPressure][c] = dp;
    if (!held(ch::CduSetpoint, c)) v[ch::CduSetpoint][c] = cdu.setpoint;
    if (!held(ch::CduCoolantLevel, c)) v[ch::CduCoolantLevel][c] = cdu.level;
    if (!held(ch::CduPrimarySupplyTemperature, c))
        v[ch::CduPrimarySupplyTemperature][c] = cdu.primarySupply;
    if (!held(ch::CduPrimaryReturnTemperature, c))
        v[ch::CduPrimaryReturnTemperature][c] = primaryReturn;
    if (!held(ch::CduPrimaryFlow, c)) v[ch::CduPrimaryFlow][c] = primaryFlow;

    // Loops: primary (facility) then secondary (racks), as the topology orders them.
    const EntityId primary = 2 * c, secondary = 2 * c + 1;
    if (!held(ch::LoopSupplyTemperature, primary))
        v[ch::LoopSupplyTemperature][primary] = cdu.primarySupply;
    if (!held(ch::LoopReturnTemperature, primary))
        v[ch::LoopReturnTemperature][primary] = primaryReturn;
    if (!held(ch::LoopFlow, primary)) v[ch::LoopFlow][primary] = primaryFlow;
    if (!held(ch::LoopHeatRemoved, primary)) v[ch::LoopHeatRemoved][primary] = hxDuty;
    if (!held(ch::LoopSupplyTemperature, secondary))
        v[ch::LoopSupplyTemperature][secondary] = v[ch::CduSupplyTemperature][c];
    if (!held(ch::LoopReturnTemperature, secondary))
        v[ch::LoopReturnTemperature][secondary] = cduReturn;
    if (!held(ch::LoopFlow, secondary)) v[ch::LoopFlow][secondary] = flowSum;
    if (!held(ch::LoopHeatRemoved, secondary)) v[ch::LoopHeatRemoved][secondary] = heatSum;
}

} // namespace ft::model
