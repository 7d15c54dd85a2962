#include "power_model.h"

#include "channel_catalog.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ft::model {

namespace {
constexpr float kNone = 1e9f;
constexpr float kPowerFactor = 0.95f;
const char* const kCapReasons[] = {"", "the PSUs that have input", "the busway's headroom",
                                   "the site power cap", "its rated power"};

std::string kw(float v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f kW", v);
    return buf;
}
} // namespace

PowerModel::PowerModel(const Topology& topology) : m_topology(topology) {
    const auto& p = topology.spec().power;
    m_psuKw = static_cast<float>(p.psuRatedKw);
    m_peakEfficiency = static_cast<float>(p.psuPeakEfficiency);
    m_margin = static_cast<float>(p.rackBudgetMarginPercent / 100.0);
    // Heat accrues as (load^2 - 1) per second over the rating: at the trip percentage the
    // breaker opens after kTripSeconds.
    const auto trip = static_cast<float>(p.breakerTripPercent / 100.0);
    m_tripHeat = (trip * trip - 1.0f) * kTripSeconds;
    m_gpuTdpW = static_cast<float>(topology.spec().rack.gpuTdpW);
    m_gpuIdleW = static_cast<float>(topology.spec().rack.gpuIdleW);
    m_psuFailed.assign(topology.count(EntityKind::Psu), 0);
    m_psuState.assign(topology.count(EntityKind::Psu), Ok);
    m_feeds.resize(topology.count(EntityKind::PowerFeed));
    const std::size_t racks = topology.count(EntityKind::Rack);
    m_energized.assign(racks, 1);
    m_gpuCap.assign(racks, m_gpuTdpW);
    m_gpuCapCommand.assign(racks, m_gpuTdpW);
    m_capping.assign(racks, 0);
    m_overload.assign(racks, 0.0f);
    m_awaitingPowerOn.assign(racks, 0);
    m_rowNextPowerOn.assign(topology.count(EntityKind::Row), 0);
    m_uncapped.assign(racks, 0.0f);
    m_overloadOff.assign(racks, 0);
    m_psusOk.assign(racks, {});
    m_feedDemand.assign(m_feeds.size(), 0);
    m_feedShare.assign(m_feeds.size(), 0);
    m_feedRatedSum.assign(m_feeds.size(), 0);
    m_siteRatedSum = 0;
    for (EntityId r = 0; r < racks; ++r) {
        const float rated = topology.racks.ratedPowerKw[r];
        for (int side = 0; side < 2; ++side)
            m_feedRatedSum[topology.feedOf(topology.racks.row[r], side)] += rated;
        m_siteRatedSum += rated;
    }
    m_siteRatedSum = std::max(m_siteRatedSum, 1.0f);
}

float PowerModel::efficiency(float load) const {
    // Titanium-class: flat near the peak from half load up, falling off at light load.
    const float x = std::clamp(1.0f - std::min(load, 1.0f) / 0.6f, 0.0f, 1.0f);
    return m_peakEfficiency - 0.07f * x * x * x;
}

void PowerModel::event(std::vector<Event>& events, TimeNs t, EventKind kind, EntityRef e,
                       Severity s, std::string text) const {
    events.push_back({t, kind, e, s, m_topology.name(e.kind, e.id) + ": " + std::move(text)});
}

void PowerModel::step(Snapshot& state, const Holds& held, float dt, std::vector<Event>& events,
                      bool settling) {
    const Topology& t = m_topology;
    auto& v = state.values;
    const std::size_t nRacks = t.count(EntityKind::Rack);
    const auto shelvesPerRack = static_cast<std::size_t>(t.spec().rack.powerShelves);
    const auto psusPerShelf = static_cast<std::size_t>(t.spec().power.psusPerShelf);
    const std::size_t psusPerRack = shelvesPerRack * psusPerShelf;
    const auto traysPerRack = static_cast<std::size_t>(t.spec().rack.computeTrays);
    const auto gpusPerTray = static_cast<std::size_t>(t.spec().rack.gpusPerTray);

    if (m_siteCapKw > 0 && m_siteCapUntil > 0 && state.time >= m_siteCapUntil) {
        m_siteCapKw = 0;
        events.push_back({state.time,
                          EventKind::ScenarioInjection,
                          {EntityKind::Row, 0},
                          Severity::Warning,
                          "site: the power cap ends"});
    }
    std::ranges::fill(m_feedDemand, 0.0f);
    for (std::size_t f = 0; f < m_feeds.size(); ++f) {
        Feed& feed = m_feeds[f];
        if (feed.extraKw > 0 && feed.extraUntil > 0 && state.time >= feed.extraUntil)
            feed.extraKw = 0;
        if (!feed.tripped) m_feedDemand[f] = feed.extraKw;
    }

    // The plant: each rack's DC load over its PSUs with input.
    const bool holdState = held.any(ch::PsuState), holdOut = held.any(ch::PsuOutput),
               holdIn = held.any(ch::PsuInput), holdLoad = held.any(ch::PsuLoad);
    for (std::size_t r = 0; r < nRacks; ++r) {
        const auto rack = static_cast<EntityId>(r);
        const std::size_t first = r * psusPerRack;
        std::size_t live = 0, okSide0 = 0, okSide1 = 0; // in registers, not through an array
        for (std::size_t p = first; p < first + psusPerRack; ++p) {
            const bool input = !m_feeds[t.psus.feed[p]].tripped;
            const std::uint8_t s = m_psuFailed[p] ? Failed : input ? Ok : NoInput;
            m_psuState[p] = s;
            if (!(holdState && held(ch::PsuState, static_cast<EntityId>(p))))
                v[ch::PsuState][p] = s;
            const bool ok = s == Ok;
            live += ok ? 1 : 0;
            okSide0 += ok && t.psus.side[p] == 0 ? 1 : 0;
            okSide1 += ok && t.psus.side[p] != 0 ? 1 : 0;
        }
        std::size_t liveSide[2] = {okSide0, okSide1};
        m_psusOk[r] = {live, okSide0, okSide1}; // for Racky, below
        const float dc = std::max(0.0f, v[ch::RackPower][r]);
        float perPsu = live > 0 ? dc / static_cast<float>(live) : 0.0f;
        // PSUs driven past their overload limit for a second shut down, and the rack with them.
        if (live > 0 && perPsu > 1.2f * m_psuKw && !settling) {
            m_overload[r] += dt;
            if (m_overload[r] >= 1.0f && !m_overloadOff[r]) {
                m_overloadOff[r] = 1;
                char buf[128];
                std::snprintf(buf, sizeof buf,
                              "PSUs overloaded (%.0f %% each, %zu left): the rack shuts down",
                              100.0f * perPsu / m_psuKw, live);
                event(events, state.time, EventKind::Protection, {EntityKind::Rack, rack},
                      Severity::Critical, buf);
            }
        } else {
            m_overload[r] = 0;
        }
        if (m_overloadOff[r]) {
            live = 0;
            liveSide[0] = liveSide[1] = 0;
            perPsu = 0;
        }
        // A rack that went dark comes back when Racky lets it: one rack of a row at a time, so
        // the inrush of eighteen trays' capacitors does not hit a busway at once.
        if (live == 0) {
            if (m_energized[r] && !settling) {
                event(events, state.time, EventKind::Protection, {EntityKind::Rack, rack},
                      Severity::Critical, "no PSU has input: the rack is dark");
                m_awaitingPowerOn[r] = 1;
            }
        } else if (m_awaitingPowerOn[r]) {
            const EntityId row = t.racks.row[r];
            if (state.time >= m_rowNextPowerOn[row]) {
                m_awaitingPowerOn[r] = 0;
                m_rowNextPowerOn[row] =
                    state.time + static_cast<TimeNs>(kPowerOnStaggerS * kNsPerSecond);
                event(events, state.time, EventKind::Protection, {EntityKind::Rack, rack},
                      Severity::Warning, "Racky powers the rack on (staged against inrush)");
            } else {
                live = 0; // waiting its turn
                liveSide[0] = liveSide[1] = 0;
                perPsu = 0;
            }
        }
        m_energized[r] = live > 0 ? 1 : 0;
        // Without a PSU delivering, the rack draws nothing from this tick on (its trays follow
        // on the next): the DC load is never more than the PSUs give.
        if (live == 0 && !held(ch::RackPower, rack)) v[ch::RackPower][r] = 0.0f;
        const float load = perPsu / m_psuKw;
        const float input = live > 0 ? perPsu / efficiency(load) : 0.0f;
        float rackInput = 0;
        // The busways' demand adds up PSU by PSU. A rack's PSUs alternate between its two
        // busways, so their running sums stay in registers for the rack (in the same order, so
        // the same sums); a PSU on any other busway adds to it directly.
        const EntityId row = t.racks.row[r];
        const EntityId feedA = t.feedOf(row, 0), feedB = t.feedOf(row, 1);
        float demandA = m_feedDemand[feedA], demandB = m_feedDemand[feedB];
        for (std::size_t s = 0; s < shelvesPerRack; ++s) {
            float out = 0, in = 0, ok = 0;
            for (std::size_t k = 0; k < psusPerShelf; ++k) {
                const std::size_t p = first + s * psusPerShelf + k;
                const auto id = static_cast<EntityId>(p);
                const bool on = m_psuState[p] == Ok && m_energized[r] != 0;
                if (!(holdOut && held(ch::PsuOutput, id))) v[ch::PsuOutput][p] = on ? perPsu : 0.0f;
                if (!(holdIn && held(ch::PsuInput, id))) v[ch::PsuInput][p] = on ? input : 0.0f;
                if (!(holdLoad && held(ch::PsuLoad, id)))
                    v[ch::PsuLoad][p] = on ? 100.0f * load : 0.0f;
                out += v[ch::PsuOutput][p];
                in += v[ch::PsuInput][p];
                ok += on ? 1.0f : 0.0f;
                if (!on) continue;
                const EntityId feed = t.psus.feed[p];
                if (feed == feedA)
                    demandA += v[ch::PsuInput][p];
                else if (feed == feedB)
                    demandB += v[ch::PsuInput][p];
                else
                    m_feedDemand[feed] += v[ch::PsuInput][p];
            }
            const auto shelf = static_cast<EntityId>(r * shelvesPerRack + s);
            if (!held(ch::ShelfOutput, shelf)) v[ch::ShelfOutput][shelf] = out;
            if (!held(ch::ShelfInput, shelf)) v[ch::ShelfInput][shelf] = in;
            if (!held(ch::ShelfPsusOk, shelf)) v[ch::ShelfPsusOk][shelf] = ok;
            rackInput += in;
        }
        m_feedDemand[feedB] = demandB;
        m_feedDemand[feedA] = demandA; // last: the one that summed when both are one busway
        if (!held(ch::RackPowerInput, rack)) v[ch::RackPowerInput][r] = rackInput;
        // 2N: the PSUs of either side alone could carry the rack at its rated power.
        const float need = t.racks.ratedPowerKw[r];
        const bool redundant = static_cast<float>(liveSide[0]) * m_psuKw >= need &&
                               static_cast<float>(liveSide[1]) * m_psuKw >= need;
        if (!held(ch::RackPowerRedundant, rack)) v[ch::RackPowerRedundant][r] = redundant ? 1 : 0;
    }

    // The busways and their breakers.
    const auto volts = static_cast<float>(t.spec().power.feedVoltageV);
    for (std::size_t f = 0; f < m_feeds.size(); ++f) {
        Feed& feed = m_feeds[f];
        const auto id = static_cast<EntityId>(f);
        const float rated = t.powerFeeds.ratedKw[f];
        const float power = feed.tripped ? 0.0f : m_feedDemand[f];
        const float loadPct = rated > 0 ? 100.0f * power / rated : 0.0f;
        if (!held(ch::FeedPower, id)) v[ch::FeedPower][f] = power;
        if (!held(ch::FeedLoad, id)) v[ch::FeedLoad][f] = loadPct;
        if (!held(ch::FeedCurrent, id))
            v[ch::FeedCurrent][f] = power * 1000.0f / (std::sqrt(3.0f) * volts * kPowerFactor);
        if (!held(ch::FeedVoltage, id))
            v[ch::FeedVoltage][f] = feed.tripped ? 0.0f : volts * (1.0f - 0.00015f * loadPct);
        const float x = loadPct / 100.0f;
        if (!feed.tripped && !settling) {
            if (x > 1.0f)
                feed.heat += (x * x - 1.0f) * dt;
            else
                feed.heat = std::max(0.0f, feed.heat - 0.25f * dt);
            if (feed.heat >= m_tripHeat) {
                feed.tripped = true;
                feed.heat = 0;
                char buf[96];
                std::snprintf(buf, sizeof buf, "breaker tripped at %.0f %% of its %s rating",
                              loadPct, kw(rated).c_str());
                event(events, state.time, EventKind::Protection, {EntityKind::PowerFeed, id},
                      Severity::Critical, buf);
            }
        }
        if (!held(ch::FeedState, id))
            v[ch::FeedState][f] = feed.tripped ? 2.0f : feed.heat > 0 ? 1.0f : 0.0f;
        // What the busway may give its racks: its rating less the margin and other loads,
        // shared by rated power (DC, through the PSUs' efficiency).
        m_feedShare[f] = feed.tripped ? 0.0f
                                      : std::max(0.0f, rated * (1.0f - m_margin) - feed.extraKw) *
                                            m_peakEfficiency / std::max(m_feedRatedSum[f], 1.0f);
    }
    // What each PSU sees: its feed's line-to-neutral voltage, and the current it draws.
    const bool holdVoltage = held.any(ch::PsuInputVoltage),
               holdCurrent = held.any(ch::PsuInputCurrent);
    // A feed's phase voltage once per feed, not per PSU (the same values).
    const std::size_t feeds = v[ch::FeedVoltage].size();
    m_feedPhase.resize(feeds);
    m_feedPhaseAmps.resize(feeds);
    for (std::size_t f = 0; f < feeds; ++f) {
        m_feedPhase[f] = v[ch::FeedVoltage][f] / std::sqrt(3.0f);
        m_feedPhaseAmps[f] = m_feedPhase[f] * kPowerFactor;
    }
    for (std::size_t p = 0; p < t.psus.feed.size(); ++p) {
        const auto id = static_cast<EntityId>(p);
        const EntityId feed = t.psus.feed[p];
        const float phase = m_feedPhase[feed];
        if (!(holdVoltage && held(ch::PsuInputVoltage, id))) v[ch::PsuInputVoltage][p] = phase;
        if (!(holdCurrent && held(ch::PsuInputCurrent, id)))
            v[ch::PsuInputCurrent][p] =
                phase > 1.0f ? v[ch::PsuInput][p] * 1000.0f / m_feedPhaseAmps[feed] : 0.0f;
    }
    // The site cap, shared the same way over every rack.
    const float siteShare =
        m_siteCapKw > 0 ? m_siteCapKw * (1.0f - m_margin / 3.0f) * m_peakEfficiency / m_siteRatedSum
                        : kNone;

    // Racky: each rack's budget, and the GPU cap that keeps the rack inside it.
    for (std::size_t r = 0; r < nRacks; ++r) {
        const auto rack = static_cast<EntityId>(r);
        const float dc = std::max(0.0f, v[ch::RackPower][r]);
        auto [live, side0, side1] = m_psusOk[r];
        const std::size_t onSide[2] = {side0, side1};
        if (!m_energized[r]) live = 0;
        const float psuLimit = static_cast<float>(live) * m_psuKw * (1.0f - m_margin);
        const float ratedKw = t.racks.ratedPowerKw[r];
        const EntityId row = t.racks.row[r];
        // The PSUs share the load evenly, so each side draws its share of the PSUs' output: the
        // rack may draw as much as keeps every side inside its busway's allowance.
        float feedLimit = live > 0 ? kNone : 0.0f;
        for (int side = 0; side < 2; ++side)
            if (onSide[side] > 0)
                feedLimit = std::min(feedLimit, m_feedShare[t.feedOf(row, side)] * ratedKw *
                                                    static_cast<float>(live) /
                                                    static_cast<float>(onSide[side]));
        const float siteLimit = siteShare < kNone ? siteShare * ratedKw : kNone;
        const float rated = t.racks.ratedPowerKw[r];
        float budget = rated;
        std::uint8_t binds = 4;
        for (const auto& [limit, why] :
             {std::pair{psuLimit, std::uint8_t{1}}, std::pair{feedLimit, std::uint8_t{2}},
              std::pair{siteLimit, std::uint8_t{3}}})
            if (limit < budget) {
                budget = limit;
                binds = why;
            }
        if (!held(ch::RackPowerBudget, rack)) v[ch::RackPowerBudget][r] = budget;
        if (!m_energized[r]) {
            // A dark rack draws nothing: nothing to cap (it powers on uncapped).
            m_gpuCap[r] = m_gpuCapCommand[r] = m_gpuTdpW;
            if (m_capping[r] != 0 && !settling)
                event(events, state.time, EventKind::Protection, {EntityKind::Rack, rack},
                      Severity::Warning, "Racky lifts the GPU power cap (the rack is dark)");
            m_capping[r] = 0;
            if (!held(ch::RackGpuPowerCap, rack)) v[ch::RackGpuPowerCap][r] = m_gpuTdpW;
            if (!held(ch::RackPowerCapping, rack)) v[ch::RackPowerCapping][r] = 0;
            continue;
        }

        // The GPUs get what the budget leaves after everything else the rack draws: a cap above
        // that falls at once, a cap below it rises a quarter per second.
        float gpuW = 0;
        std::size_t gpus = 0;
        const float* const gpuPower = v[ch::GpuPower].data();
        for (std::size_t tray = r * traysPerRack; tray < (r + 1) * traysPerRack; ++tray) {
            if (!t.trayInstalled(static_cast<EntityId>(tray))) continue;
            for (std::size_t g = tray * gpusPerTray; g < (tray + 1) * gpusPerTray; ++g)
                gpuW += gpuPower[g];
            gpus += gpusPerTray;
        }
        const float maxCap =
            gpus > 0 ? (budget * 1000.0f - (dc * 1000.0f - gpuW)) / static_cast<float>(gpus)
                     : m_gpuTdpW;
        const float current = m_gpuCapCommand[r];
        float want = maxCap < current ? maxCap : std::min(maxCap, current * (1.0f + 0.25f * dt));
        want = std::clamp(want, m_gpuIdleW * 1.15f, m_gpuTdpW);
        const bool wasCapping = m_capping[r] != 0;
        // The command reaches the GPUs through the BMCs: the applied cap follows with a lag.
        m_gpuCapCommand[r] = settling ? m_gpuTdpW : want;
        const float follow = 1.0f - std::exp(-dt / kCapLatencyS);
        m_gpuCap[r] =
            settling ? m_gpuTdpW : m_gpuCap[r] + (m_gpuCapCommand[r] - m_gpuCap[r]) * follow;
        // Capping starts when the cap bites (2 % under TDP) and ends once the cap has been back
        // at TDP for kCapHoldS: a job's phases moving the draw around the budget do not flap it.
        if (m_gpuCapCommand[r] < 0.98f * m_gpuTdpW) {
            m_capping[r] = binds;
            m_uncapped[r] = 0;
        } else if (m_capping[r] != 0) {
            m_uncapped[r] += m_gpuCapCommand[r] >= m_gpuTdpW - 1.0f ? dt : 0.0f;
            if (m_uncapped[r] >= kCapHoldS) m_capping[r] = 0;
        }
        const bool capping = m_capping[r] != 0;
        if (!held(ch::RackGpuPowerCap, rack)) v[ch::RackGpuPowerCap][r] = m_gpuCapCommand[r];
        if (!held(ch::RackPowerCapping, rack)) v[ch::RackPowerCapping][r] = capping ? 1 : 0;
        if (!settling && capping != wasCapping) {
            char buf[160];
            if (capping)
                std::snprintf(buf, sizeof buf,
                              "Racky caps its GPUs at %.0f W to stay inside %s (%s)",
                              m_gpuCapCommand[r], kw(budget).c_str(), kCapReasons[binds]);
            else
                std::snprintf(buf, sizeof buf, "Racky lifts the GPU power cap");
            event(events, state.time, EventKind::Protection, {EntityKind::Rack, rack},
                  Severity::Warning, buf);
        }
    }
}

void PowerModel::apply(const ScenarioEvent& ev, Snapshot& state, std::vector<Event>& events) {
    const TimeNs now = state.time;
    auto each = [&](EntityKind kind, auto&& fn) {
        if (!ev.targets.empty()) {
            for (EntityId id : ev.targets)
                if (id < m_topology.count(kind)) fn(id);
        } else if (ev.target) {
            if (ev.target->id < m_topology.count(kind)) fn(ev.target->id);
        } else {
            for (EntityId id = 0; id < m_topology.count(kind); ++id)
                fn(id);
        }
    };
    const std::string note = ev.note.empty() ? std::string() : " (" + ev.note + ")";
    switch (ev.action) {
    case ScenarioAction::FeedTrip:
        each(EntityKind::PowerFeed, [&](EntityId f) {
            m_feeds[f].tripped = true;
            event(events, now, EventKind::ScenarioInjection, {EntityKind::PowerFeed, f},
                  Severity::Critical, "breaker opened" + note);
        });
        break;
    case ScenarioAction::FeedRestore:
        each(EntityKind::PowerFeed, [&](EntityId f) {
            if (!m_feeds[f].tripped) return;
            m_feeds[f].tripped = false;
            m_feeds[f].heat = 0;
            for (EntityId p = 0; p < m_topology.count(EntityKind::Psu); ++p)
                if (m_topology.psus.feed[p] == f) m_overloadOff[m_topology.psus.rack[p]] = 0;
            event(events, now, EventKind::ScenarioInjection, {EntityKind::PowerFeed, f},
                  Severity::Warning, "breaker closed, the busway carries load again" + note);
        });
        break;
    case ScenarioAction::FeedLoad:
        each(EntityKind::PowerFeed, [&](EntityId f) {
            m_feeds[f].extraKw = static_cast<float>(ev.value);
            m_feeds[f].extraUntil =
                ev.value2 > 0 ? now + static_cast<TimeNs>(ev.value2 * kNsPerSecond) : 0;
            event(events, now, EventKind::ScenarioInjection, {EntityKind::PowerFeed, f},
                  Severity::Warning,
                  kw(static_cast<float>(ev.value)) + " more on the circuit" + note);
        });
        break;
    case ScenarioAction::PsuFail:
        each(EntityKind::Psu, [&](EntityId p) {
            m_psuFailed[p] = 1;
            event(events, now, EventKind::ScenarioInjection, {EntityKind::Psu, p},
                  Severity::Warning, "PSU failed" + note);
        });
        break;
    case ScenarioAction::PsuRestore:
        each(EntityKind::Psu, [&](EntityId p) {
            if (!m_psuFailed[p]) return;
            m_psuFailed[p] = 0;
            m_overloadOff[m_topology.psus.rack[p]] = 0;
            if (ev.target || !ev.targets.empty())
                event(events, now, EventKind::ScenarioInjection, {EntityKind::Psu, p},
                      Severity::Warning, "PSU replaced" + note);
        });
        break;
    case ScenarioAction::PowerCap:
        m_siteCapKw = static_cast<float>(ev.value * 1000.0);
        m_siteCapUntil = ev.value2 > 0 ? now + static_cast<TimeNs>(ev.value2 * kNsPerSecond) : 0;
        events.push_back(
            {now,
             EventKind::ScenarioInjection,
             {EntityKind::Row, 0},
             Severity::Warning,
             "site: the floor may draw " + kw(m_siteCapKw) + " (demand response)" + note});
        break;
    case ScenarioAction::PowerCapLift:
        m_siteCapKw = 0;
        events.push_back({now,
                          EventKind::ScenarioInjection,
                          {EntityKind::Row, 0},
                          Severity::Warning,
                          "site: the power cap is lifted" + note});
        break;
    default:
        break;
    }
}

} // namespace ft::model
