#pragma once
// FabricModel: where the bytes move. NVLink 6 inside each rack (every GPU reaches every switch
// tray over its own link) and the rail-optimized, multi-plane, two-tier Spectrum-X fabric between
// racks (NIC i of a tray -> leaf of rail i -> every spine of the rail's plane).
//
// Each tick SimModel hands over what every compute tray wants to send at full pace (NVLink and
// rail bytes) and the pace its job actually runs at; the model routes those bytes over the links
// that are up, so the bytes a job sends are exactly the bytes the fabric carries (tray -> NIC
// links -> leaves -> spine bundles -> spines). Rack, rail, plane, leaf and spine aggregates are
// written every tick; the per-link detail (1.15 M NVLink links and 0.5 M fabric links at 1,778
// racks) and the per-link counters every counter interval, as switch telemetry and DCGM report
// them — built a slice per tick over the interval and published whole, so no tick pays for all
// of it. Faults (rail down, degraded leaf, flapping link, NVLink disabled, NVLink link errors)
// arrive as scenario events. Owned by SimModel; sim thread only.
#include "holds.h"
#include "scenario.h"
#include "snapshot.h"
#include "topology.h"

#include <vector>

namespace ft::model {

enum class LinkState : std::uint8_t { Up = 0, Degraded = 1, Down = 2, Disabled = 3 };

class FabricModel {
public:
    FabricModel(const Topology& topology, TimeNs counterInterval);

    // What SimModel knows of a compute tray this tick.
    struct TrayInput {
        float nvlinkWant = 0; // TB/s the tray's GPUs would send over NVLink at full pace
        float railWant = 0;   // Tb/s the tray's GPUs would send on the rails at full pace
        float pace = 1;       // the pace the tray's job runs at this tick (0..1)
    };
    // Per rack: which trays its traffic talks to (a job's racks, the whole floor for inference
    // and multi-rack validation, the rack alone otherwise), and whether NVLink is switched off
    // by its lifecycle stage or a rail link is flapping under validation.
    struct RackInput {
        EntityId peerFirstTray = 0;
        std::uint32_t peerTrays = 0;
        bool nvlinkOffByStage = false;
        bool railFlapping = false;
    };

    void apply(const ScenarioEvent& event, TimeNs now, std::vector<Event>& events);
    // Routes this tick's traffic and writes the fabric channels into `state`.
    // The per-link detail is refreshed only when `detail` is set (not while the sim settles).
    void step(Snapshot& state, const Holds& held, float dt, const std::vector<TrayInput>& trays,
              const std::vector<RackInput>& racks, bool detail = true);

    // Bytes actually carried this tick, per tray (what the rack totals add up).
    float trayNvlink(EntityId tray) const { return m_trayNvlink[tray]; } // TB/s
    float trayRail(EntityId tray) const { return m_trayRail[tray]; }     // Tb/s
    // The pace the fabric allows a tray's job (1 = not fabric bound), from the last step.
    float trayPace(EntityId tray) const { return m_trayPace[tray]; }
    float rackPace(EntityId rack) const { return m_rackPace[rack]; }
    bool nvlinkDisabled(EntityId rack) const { return m_rackNvlinkOff[rack] != 0; }
    LinkState nicLinkState(EntityId nic) const;
    // The per-link channels, refreshed once per counter interval into a block that is never
    // written again once handed out (a refresh writes a block nobody else holds).
    std::shared_ptr<const DetailBlock> detail() const { return m_current; }
    std::uint64_t detailStamp() const { return m_detailStamp; }
    // The tick the current block describes (it is published a counter interval's ticks later).
    TimeNs detailTime() const { return m_detailTime; }
    // Right after a refresh, before the block is published: measured values that override it.
    void overrideDetail(ChannelId c, EntityId e, float value);
    // Start a refresh at the next step (a measured per-link value arrived): it shows once the
    // block being built is published, within one counter interval.
    void requestRefresh() { m_nextDetail = std::min(m_nextDetail, m_now); }

    // Fraction of a step a synchronous job spends in collectives: the part that stretches when
    // the fabric cannot carry its bytes at full pace.
    static constexpr float kCommFraction = 0.35f;
    static constexpr float kPacketBytes = 4096.0f; // RoCE MTU

    // Keyframes (state_archive.h): every fault, counter and per-tick value, and the per-link
    // blocks (the one published and the one being built), each as it stands.
    template <class Archive> void persist(Archive& ar) {
        ar(m_frozen, m_counterInterval, m_nextDetail, m_now, m_detailStamp, m_slice, m_detailTime,
           m_portGBps, m_nicsPerTray, m_traysPerLeaf, m_railDown, m_leafLaneLoss, m_leafDropRate,
           m_flaps, m_flapDown, m_rackNvlinkOff, m_rackNvlinkOffByScenario, m_nvlinkFaults,
           m_rackFlapNic, m_rackFlapWasDown, m_trayCapacity, m_trayUniform, m_trayNvlink,
           m_trayRail, m_trayRailGBps, m_trayPace, m_trayCross, m_rackPace, m_rackDown, m_leafIn,
           m_leafUp, m_spineCapacity, m_capacityDirty, m_drops, m_ecn, m_pfc, m_carrier);
        for (auto* block : {&m_current, &m_building}) {
            bool has = *block != nullptr;
            ar(has);
            if constexpr (Archive::kReading) {
                if (block == &m_current) m_blocks.clear();
                block->reset();
                if (!has) continue;
                *block = std::make_shared<DetailBlock>();
                m_blocks.push_back(*block);
            }
            if (has) ar(**block);
        }
    }

private:
    void updateLinkCapacities(TimeNs now);
    // One slice (of `slices`) of every per-link range into `d`; the ticks of an interval each
    // write one, so the refresh costs the same every tick.
    void writeDetailSlice(DetailBlock& d, float interval, std::size_t slice, std::size_t slices);
    // The block being built becomes the current one (with the NVLink error counters).
    void publishDetail(Snapshot& state, float interval);
    // What the per-link values derive from, as of the tick a block describes.
    struct DetailInputs {
        TimeNs time = 0;
        std::vector<float> trayNvlink, trayRailGBps, trayCapacity;
        std::vector<float> leafUp, leafLaneLoss, leafDropRate;
        std::vector<std::uint8_t> railDown, flapDown, rackNvlinkOff;
        float nicCapacity(const Topology& t, EntityId nic, float portGBps) const;
        LinkState nicLinkState(const Topology& t, EntityId nic) const;
        template <class Archive> void persist(Archive& ar) {
            ar(time, trayNvlink, trayRailGBps, trayCapacity, leafUp, leafLaneLoss, leafDropRate,
               railDown, flapDown, rackNvlinkOff);
        }
    };
    void freezeDetailInputs();
    DetailInputs m_frozen;
    std::shared_ptr<DetailBlock> freeBlock();
    float nicCapacity(EntityId nic) const; // GB/s

    const Topology& m_topology;
    TimeNs m_counterInterval;
    TimeNs m_nextDetail = 0;
    TimeNs m_now = 0;
    std::uint64_t m_detailStamp = 0;
    std::vector<std::shared_ptr<DetailBlock>> m_blocks; // the current one and recycled ones
    std::shared_ptr<DetailBlock> m_current;
    std::shared_ptr<DetailBlock> m_building; // the next block, slice by slice
    std::size_t m_slice = 0;
    TimeNs m_detailTime = 0;
    float m_portGBps = 100; // one 800G port
    std::uint32_t m_nicsPerTray = 8;
    std::uint32_t m_traysPerLeaf = 256;

    // Fault state.
    std::vector<std::uint8_t> m_railDown; // per rail
    std::vector<float> m_leafLaneLoss;    // per leaf, 0..1 of lanes lost
    std::vector<float> m_leafDropRate;    // per leaf, fraction of packets dropped
    struct Flap {
        EntityId link;
        float periodS;
        float downS;
        TimeNs since;
        bool down;
    };
    std::vector<Flap> m_flaps;
    std::vector<std::uint8_t> m_flapDown;      // per NIC link: currently down by a flap
    std::vector<std::uint8_t> m_rackNvlinkOff; // per rack: this tick
    std::vector<std::uint8_t> m_rackNvlinkOffByScenario;
    struct NvlinkFault {
        EntityId link;
        float crcPerS; // 0 once restored; the counters stay (they never go back)
        double crc = 0, replay = 0, recovery = 0;
        double recoveryDebt = 0;
    };
    std::vector<NvlinkFault> m_nvlinkFaults;
    std::vector<EntityId> m_rackFlapNic; // the NIC a validation flap takes down, per rack
    std::vector<std::uint8_t> m_rackFlapWasDown;

    // Per tick.
    std::vector<float> m_trayCapacity;       // GB/s over the tray's NIC links that are up
    std::vector<std::uint8_t> m_trayUniform; // every NIC of the tray at the same capacity
    std::vector<float> m_trayNvlink, m_trayRail, m_trayRailGBps, m_trayPace, m_trayCross;
    std::vector<float> m_rackPace;
    std::vector<std::uint32_t> m_rackDown; // NIC links down per rack
    std::vector<float> m_leafIn, m_leafUp;
    std::vector<float> m_spineCapacity;
    bool m_capacityDirty = true;

    // Counters (double so they keep counting where a float would stall), per link.
    std::vector<double> m_drops, m_ecn, m_pfc, m_carrier;
};

} // namespace ft::model
