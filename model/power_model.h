#pragma once
// PowerModel: rack power as a plant, and Racky, the controller that keeps it inside what the
// plant can carry. Per rack, its DC load (trays, switch trays, overhead) is shared by the PSUs
// of its power shelves that have input; each PSU draws its output over its efficiency (lower at
// light load) from feed A or B, the row's two busways. A PSU failure or a feed loss moves the
// load onto the PSUs left; a busway over its rating heats its breaker (further over, sooner) and
// trips. Racky sets each rack's power budget — the rated power, what the live PSUs can give
// (less a margin), the busways' headroom, a site cap for demand response — and caps the rack's
// GPUs to stay inside it (the caps slow the GPUs, and with them the jobs and their traffic).
// Budgets are allocations, not reactions: a busway's allowance (its rating less a margin and any
// other load on the circuit) and a site cap are shared by rated power, so while a feed is down a
// rack's budget holds still whatever its jobs draw from moment to moment. Caps fall at once and
// rise a quarter per second. Faults arrive as scenario events. Owned by SimModel; sim thread only.
#include "holds.h"
#include "scenario.h"
#include "snapshot.h"
#include "topology.h"

#include <array>
#include <vector>

namespace ft::model {

class PowerModel {
public:
    explicit PowerModel(const Topology& topology);

    // After the rack totals: distributes each rack's DC load, feeds the busways, runs the
    // breakers, and sets next tick's budgets and GPU caps.
    void step(Snapshot& state, const Holds& held, float dt, std::vector<Event>& events,
              bool settling);
    void apply(const ScenarioEvent& event, Snapshot& state, std::vector<Event>& events);

    // Some PSU of the rack has input (else the rack is dark).
    bool rackEnergized(EntityId rack) const { return m_energized[rack] != 0; }
    // The GPU power cap Racky sets for the rack's GPUs (W; the TDP when not capping).
    float gpuPowerCap(EntityId rack) const { return m_gpuCap[rack]; }

    // A busway at power.breaker_trip_percent of its rating trips after this long (thermal curve).
    static constexpr float kTripSeconds = 2.0f;
    // A rack counts as capping until its cap has been back at TDP this long.
    static constexpr float kCapHoldS = 30.0f;
    // A cap command reaches the GPUs through the BMCs: time constant of the applied cap.
    static constexpr float kCapLatencyS = 2.0f;
    // Racks of a row power back on this far apart (inrush).
    static constexpr float kPowerOnStaggerS = 3.0f;

    // Keyframes (state_archive.h).
    template <class Archive> void persist(Archive& ar) {
        ar(m_psuKw, m_peakEfficiency, m_margin, m_tripHeat, m_gpuTdpW, m_gpuIdleW, m_psuFailed,
           m_psuState, m_feeds, m_energized, m_gpuCap, m_gpuCapCommand, m_feedShare, m_feedRatedSum,
           m_siteRatedSum, m_overload, m_awaitingPowerOn, m_rowNextPowerOn, m_uncapped,
           m_overloadOff, m_capping, m_siteCapKw, m_siteCapUntil, m_feedDemand);
    }

private:
    enum PsuState : std::uint8_t { Ok = 0, NoInput = 1, Failed = 2 };
    struct Feed {
        bool tripped = false;
        float heat = 0;    // breaker thermal memory; trips at m_tripHeat
        float extraKw = 0; // another load on the circuit
        TimeNs extraUntil = 0;
    };
    void event(std::vector<Event>& events, TimeNs t, EventKind kind, EntityRef e, Severity s,
               std::string text) const;
    float efficiency(float load) const; // load: output / rating, 0..

    const Topology& m_topology;
    float m_psuKw = 8.0f;
    float m_peakEfficiency = 0.975f;
    float m_margin = 0.03f;
    float m_tripHeat = 1.0f;
    float m_gpuTdpW = 1800, m_gpuIdleW = 180;
    std::vector<std::uint8_t> m_psuFailed;
    std::vector<std::uint8_t> m_psuState; // PsuState this tick
    std::vector<Feed> m_feeds;
    std::vector<std::uint8_t> m_energized;
    std::vector<float> m_gpuCap;        // W per GPU, per rack: what the GPUs hold to now
    std::vector<float> m_gpuCapCommand; // W per GPU, per rack: what Racky asks for
    std::vector<float> m_feedShare;     // per busway: kW DC per kW of rated rack power
    std::vector<float> m_feedRatedSum;  // per busway: rated power of the racks it feeds
    float m_siteRatedSum = 1;
    std::vector<float> m_overload;               // per rack: s with its PSUs past their limit
    std::vector<std::uint8_t> m_awaitingPowerOn; // per rack: dark, to be powered on in turn
    std::vector<TimeNs> m_rowNextPowerOn;        // per row: when the next rack may power on
    std::vector<float> m_uncapped;               // per rack: s the cap has been back at TDP
    std::vector<std::uint8_t> m_overloadOff;     // per rack: shut down by PSU overload
    std::vector<std::uint8_t> m_capping; // per rack: 0 none, else what binds (1 PSUs, 2 busway,
                                         // 3 site, 4 rated)
    float m_siteCapKw = 0;               // AC, 0: none
    TimeNs m_siteCapUntil = 0;
    std::vector<float> m_feedDemand;                  // scratch, kW AC per feed
    std::vector<float> m_feedPhase, m_feedPhaseAmps;  // scratch per feed: V, V x power factor
    std::vector<std::array<std::size_t, 3>> m_psusOk; // scratch per rack: PSUs Ok, by side
};

} // namespace ft::model
