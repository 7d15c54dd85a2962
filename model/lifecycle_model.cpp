#include "lifecycle_model.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>

namespace ft::model {

using S = RackLifecycle;

namespace {
constexpr double kMinute = 60.0;
constexpr int kNodeChecks = 5;
constexpr float kTrayPassed = 10, // 0: not validating
    kTrayFailedBase = 20;         // running: 1 + check index
constexpr std::uint32_t kFlapLimit = 3;

std::string fmt(const char* format, auto... args) {
    char buf[256];
    std::snprintf(buf, sizeof buf, format, args...);
    return buf;
}
} // namespace

LifecycleModel::LifecycleModel(const Topology& topology, std::uint64_t seed)
    : m_topology(topology), m_rng(mix64(seed ^ 0x6c6966656379636cULL)),
      m_machine(topology.count(EntityKind::Rack)), m_rack(topology.count(EntityKind::Rack)),
      m_gpuCooling(topology.count(EntityKind::Gpu), 1.0f),
      m_pendingStart(topology.count(EntityKind::Rack), 0) {
    // Racks the floor file (an inventory) says are not in production start where they are.
    for (EntityId r = 0; r < topology.count(EntityKind::Rack); ++r)
        if (const auto st = static_cast<RackLifecycle>(topology.racks.initialLifecycle[r]);
            st != S::Production)
            m_machine.reset(r, st, 0);
}

double LifecycleModel::stageDuration(RackLifecycle s) {
    // Typical durations for an NVL72 rack (minutes), with +-25 % spread.
    double base = 0;
    switch (s) {
    case S::HardwareDetection:
        base = 15;
        break;
    case S::FirmwareUpdate:
        base = 40;
        break;
    case S::PowerCoolingBringUp:
        base = 25;
        break;
    case S::NodeValidation:
        base = 150;
        break;
    case S::RackValidation:
        base = 45;
        break;
    case S::MultiRackValidation:
        base = 90;
        break;
    case S::Troubleshooting:
        base = 100;
        break;
    case S::Revalidation:
        base = 60;
        break;
    case S::Maintenance:
        base = 30;
        break;
    default:
        return 0;
    }
    return base * kMinute * m_rng.uniform(0.75, 1.25);
}

void LifecycleModel::enter(EntityId rack, RackLifecycle to, TimeNs now, const std::string& reason,
                           bool failure, std::vector<Event>& events) {
    const RackLifecycle from = m_machine.state(rack);
    if (auto ok = m_machine.request(rack, to, now, reason, failure); !ok) {
        events.push_back({now,
                          EventKind::Protection,
                          {EntityKind::Rack, rack},
                          Severity::Warning,
                          m_topology.racks.name[rack] + ": refused " + ok.error()});
        return;
    }
    RackRun& run = m_rack[rack];
    run.stageStart = now;
    run.stageSeconds = stageDuration(to);
    run.measured = run.measuredSeconds = 0;
    run.flaps = 0;
    events.push_back({now,
                      EventKind::Lifecycle,
                      {EntityKind::Rack, rack},
                      failure ? Severity::Critical : Severity::Warning,
                      m_topology.racks.name[rack] + ": " + std::string(lifecycleTitle(from)) +
                          " -> " + std::string(lifecycleTitle(to)) +
                          (reason.empty() ? "" : " (" + reason + ")")});
}

void LifecycleModel::fail(EntityId rack, TimeNs now, const std::string& reason,
                          std::vector<Event>& events) {
    m_rack[rack].failedAt = m_machine.state(rack);
    enter(rack, S::Troubleshooting, now, reason, true, events);
}

void LifecycleModel::followScheduler(EntityId rack, bool out, bool maintenance,
                                     const std::string& why, TimeNs now,
                                     std::vector<Event>& events) {
    RackRun& run = m_rack[rack];
    const RackLifecycle st = m_machine.state(rack);
    if (out || maintenance) {
        if (st == S::Production) {
            run.heldByScheduler = true;
            if (out)
                fail(rack, now, "scheduler: " + why, events);
            else
                enter(rack, S::Maintenance, now, "scheduler: " + why, false, events);
        } else if (run.heldByScheduler && out && st == S::Maintenance) {
            enter(rack, S::Revalidation, now, "scheduler: " + why, false, events);
            fail(rack, now, "scheduler: " + why, events);
        }
        return;
    }
    if (!run.heldByScheduler) return;
    run.heldByScheduler = false;
    const std::string back = "scheduler: " + why;
    if (st == S::Troubleshooting || st == S::Maintenance)
        enter(rack, S::Revalidation, now, back, false, events);
    for (const S gate : {S::RackValidation, S::MultiRackValidation, S::Production})
        if (m_machine.state(rack) != S::Production) enter(rack, gate, now, back, false, events);
}

void LifecycleModel::apply(const ScenarioEvent& ev, TimeNs now, std::vector<Event>& events) {
    std::vector<EntityId> racks = ev.targets;
    if (racks.empty() && ev.target) racks.push_back(ev.target->id);
    if (racks.empty())
        for (EntityId r = 0; r < m_topology.count(EntityKind::Rack); ++r)
            racks.push_back(r);
    if (ev.action == ScenarioAction::Drain) {
        for (EntityId r : racks)
            if (m_machine.state(r) == S::Production)
                enter(r, S::Maintenance, now, ev.note.empty() ? "drained for maintenance" : ev.note,
                      false, events);
        return;
    }
    if (ev.action != ScenarioAction::BringUp) return;
    // A wave: every rack arrives delivered (powered off) and starts bring-up `value` seconds after
    // the previous one. A fraction `value2` carries a fault for validation to find, cycling
    // through the three kinds.
    const double stagger = std::max(0.0, ev.value);
    const double fraction = std::clamp(ev.value2, 0.0, 1.0);
    std::vector<EntityId> order = racks;
    for (std::size_t i = order.size(); i > 1; --i)
        std::swap(order[i - 1], order[m_rng.next() % i]);
    const std::size_t faulty =
        fraction > 0 ? std::max<std::size_t>(
                           1, static_cast<std::size_t>(std::lround(fraction * racks.size())))
                     : 0;
    const auto& rk = m_topology.spec().rack;
    for (std::size_t i = 0; i < racks.size(); ++i) {
        const EntityId r = racks[i];
        m_machine.reset(r, S::Delivered, now);
        RackRun& run = m_rack[r];
        run = RackRun{};
        run.stageStart = now;
        m_pendingStart[r] = now + static_cast<TimeNs>(stagger * static_cast<double>(i) * 1e9) + 1;
        for (std::size_t g = 0; g < static_cast<std::size_t>(rk.computeTrays) * rk.gpusPerTray; ++g)
            m_gpuCooling[static_cast<std::size_t>(r) * rk.computeTrays * rk.gpusPerTray + g] = 1.0f;
    }
    for (std::size_t k = 0; k < faulty && k < order.size(); ++k) {
        RackRun& run = m_rack[order[k]];
        run.fault = static_cast<Fault>(1 + k % 3);
        if (run.fault == Fault::HotTray) {
            // A cold plate seated badly on one tray: its GPUs shed heat poorly.
            run.faultTray = static_cast<EntityId>(order[k] * rk.computeTrays +
                                                  m_rng.range(0, rk.computeTrays - 1));
            for (int g = 0; g < rk.gpusPerTray; ++g)
                m_gpuCooling[run.faultTray * rk.gpusPerTray + g] = 1.9f;
        }
    }
    events.push_back({now,
                      EventKind::ScenarioInjection,
                      {EntityKind::Rack, racks.front()},
                      Severity::Warning,
                      fmt("bring-up wave: %zu racks delivered, one every %.0f min", racks.size(),
                          stagger / 60.0)});
}

bool LifecycleModel::railFlapping(EntityId rack, TimeNs now) const {
    if (m_rack[rack].fault != Fault::LinkFlap) return false;
    // Carrier drops for 3 s every 25 s while the link is loaded.
    const double t = toSeconds(now - m_rack[rack].stageStart);
    return std::fmod(t, 25.0) > 22.0;
}

LifecycleModel::Load LifecycleModel::load(EntityId rack, TimeNs now) const {
    const RackRun& run = m_rack[rack];
    const double t = toSeconds(now - run.stageStart);
    const double frac = run.stageSeconds > 0 ? t / run.stageSeconds : 0;
    Load l;
    l.production = false;
    switch (m_machine.state(rack)) {
    case S::Production:
        l.production = true;
        break;
    case S::Delivered:
    case S::Decommissioned:
        l.powered = false;
        break;
    case S::HardwareDetection:
        l.utilization = 0.02f;
        break;
    case S::FirmwareUpdate:
        l.powered = std::fmod(t, 600.0) > 60.0; // reboots as each firmware bundle lands
        break;
    case S::PowerCoolingBringUp:
        l.utilization = frac < 0.33 ? 0.2f : (frac < 0.66 ? 0.5f : 0.85f);
        break;
    case S::NodeValidation:
    case S::Revalidation:
        l.utilization = 1.0f; // burn-in diagnostics
        l.nvlink = 0.05f;
        break;
    case S::RackValidation:
        l.utilization = 0.9f; // a synchronous job on all 72 GPUs saturating NVLink
        l.nvlink = 0.95f;
        break;
    case S::MultiRackValidation: {
        // NVLink deliberately disabled: everything crosses the rails, in agent-like bursts.
        const float burst =
            0.5f + 0.5f * static_cast<float>(std::fabs(std::sin(t * 0.9) * std::sin(t * 0.23)));
        l.utilization = 0.75f;
        l.rail = 0.85f * burst * (railFlapping(rack, now) ? 0.3f : 1.0f);
        break;
    }
    case S::Troubleshooting:
    case S::Maintenance:
        l.utilization = 0.0f;
        break;
    }
    return l;
}

void LifecycleModel::step(Snapshot& s, float dt, std::vector<Event>& events) {
    const auto& rk = m_topology.spec().rack;
    auto& v = s.values;
    const TimeNs now = s.time;
    const auto limit = static_cast<float>(rk.gpuMaxTempC);
    const int trays = rk.computeTrays, gpt = rk.gpusPerTray;
    for (EntityId r = 0; r < m_rack.size(); ++r) {
        RackRun& run = m_rack[r];
        const RackLifecycle st = m_machine.state(r);
        if (st == S::Production) {
            v[ch::RackLifecycleProgress][r] = 100.0f;
            continue;
        }
        if (st == S::Delivered) {
            if (m_pendingStart[r] != 0 && now >= m_pendingStart[r]) {
                m_pendingStart[r] = 0;
                enter(r, S::HardwareDetection, now, "rack connected to power and network", false,
                      events);
            }
            v[ch::RackLifecycleProgress][r] = 0;
            continue;
        }
        const double elapsed = toSeconds(now - run.stageStart);
        const double frac = run.stageSeconds > 0 ? std::min(1.0, elapsed / run.stageSeconds) : 1.0;
        v[ch::RackLifecycleProgress][r] = static_cast<float>(frac * 100.0);

        if (st == S::NodeValidation || st == S::Revalidation) {
            // Checks run one after another on every tray at once.
            const int check = std::min(kNodeChecks - 1, static_cast<int>(frac * kNodeChecks));
            for (int t = 0; t < trays; ++t) {
                const auto tray = static_cast<EntityId>(r * trays + t);
                if (v[ch::TrayValidation][tray] >= kTrayFailedBase) continue;
                v[ch::TrayValidation][tray] =
                    frac >= 1.0 ? kTrayPassed : static_cast<float>(1 + check);
                if (static_cast<NodeCheck>(check) == NodeCheck::ThermalUnderLoad &&
                    elapsed > run.stageSeconds * (check + 0.3) / kNodeChecks) {
                    // Under full load a healthy GPU holds its clocks below its limit; thermal
                    // slowdown (or a die over the limit) fails the check.
                    for (int g = 0; g < gpt; ++g) {
                        const float temp = v[ch::GpuTemperature][tray * gpt + g];
                        const float clock = v[ch::GpuSmClock][tray * gpt + g];
                        if (temp > limit + 2.0f || clock < 0.95f * kGpuMaxSmClockMhz) {
                            v[ch::TrayValidation][tray] = kTrayFailedBase + check;
                            fail(r, now,
                                 fmt("%s tray %02d: %s failed, GPU %d thermal slowdown at %.0f "
                                     "MHz, %.1f °C (limit %.1f °C)",
                                     m_topology.racks.name[r].c_str(), t + 1,
                                     std::string(kNodeCheckTitles[check]).c_str(), g, clock, temp,
                                     limit),
                                 events);
                            break;
                        }
                    }
                }
                if (m_machine.state(r) == S::Troubleshooting) break;
            }
            if (m_machine.state(r) == S::Troubleshooting || frac < 1.0) continue;
            enter(r, S::RackValidation, now,
                  st == S::Revalidation ? "re-validation node checks passed"
                                        : "all 18 trays passed",
                  false, events);
            continue;
        }
        if (st == S::RackValidation) {
            // Measure NVLink throughput over the second half of the synchronous job.
            if (frac > 0.5) {
                run.measured += v[ch::RackNvlinkThroughput][r] * dt;
                run.measuredSeconds += dt;
            }
            if (frac < 1.0) continue;
            const double mean = run.measuredSeconds > 0 ? run.measured / run.measuredSeconds : 0;
            const double expected = rk.computeTrays * rk.gpusPerTray * rk.nvlinkTBpsPerGpu * 0.95;
            if (mean < 0.85 * expected)
                fail(r, now,
                     fmt("%s: NVLink %.0f TB/s, below the expected %.0f-%.0f TB/s (a GPU's links "
                         "at reduced bandwidth)",
                         m_topology.racks.name[r].c_str(), mean, 0.85 * expected, expected),
                     events);
            else
                enter(r, S::MultiRackValidation, now, fmt("NVLink %.0f TB/s in range", mean), false,
                      events);
            continue;
        }
        if (st == S::MultiRackValidation) {
            const bool flapping = railFlapping(r, now);
            if (flapping && !run.lastFlapping) ++run.flaps;
            run.lastFlapping = flapping;
            v[ch::RackLinkFlaps][r] = static_cast<float>(run.flaps);
            if (run.flaps >= kFlapLimit) {
                fail(r, now,
                     fmt("%s: rail link flapped %u times in %.0f s under multi-rack load (NVLink "
                         "disabled)",
                         m_topology.racks.name[r].c_str(), run.flaps, elapsed),
                     events);
                continue;
            }
            if (frac >= 1.0) enter(r, S::Production, now, "all gates passed", false, events);
            continue;
        }
        if (frac < 1.0 || run.heldByScheduler) continue;
        switch (st) {
        case S::HardwareDetection:
            enter(r, S::FirmwareUpdate, now, "72 GPUs, 36 CPUs, 9 switch trays found", false,
                  events);
            break;
        case S::FirmwareUpdate:
            enter(r, S::PowerCoolingBringUp, now, "firmware at the fleet baseline", false, events);
            break;
        case S::PowerCoolingBringUp:
            for (int t = 0; t < trays; ++t)
                v[ch::TrayValidation][r * trays + t] = 1;
            enter(r, S::NodeValidation, now, "power shelves and coolant loop stable under load",
                  false, events);
            break;
        case S::Troubleshooting: {
            const char* fix = run.fault == Fault::HotTray     ? "cold plate reseated"
                              : run.fault == Fault::NvlinkLow ? "NVLink cable cartridge replaced"
                              : run.fault == Fault::LinkFlap  ? "transceiver replaced"
                                                              : "fixed";
            if (run.fault == Fault::HotTray)
                for (int g = 0; g < gpt; ++g)
                    m_gpuCooling[run.faultTray * gpt + g] = 1.0f;
            run.fault = Fault::None;
            for (int t = 0; t < trays; ++t)
                v[ch::TrayValidation][r * trays + t] = 1;
            v[ch::RackLinkFlaps][r] = 0;
            enter(r, S::Revalidation, now, fix, false, events);
            break;
        }
        case S::Maintenance:
            for (int t = 0; t < trays; ++t)
                v[ch::TrayValidation][r * trays + t] = 1;
            enter(r, S::Revalidation, now, "maintenance done", false, events);
            break;
        default:
            break;
        }
    }
    s.rackLifecycle.assign(m_machine.states().begin(), m_machine.states().end());
    // Also as a channel, so recordings and dumps carry it with everything else.
    for (EntityId r = 0; r < m_rack.size(); ++r)
        v[ch::RackLifecycleState][r] = static_cast<float>(m_machine.state(r));
}

} // namespace ft::model
