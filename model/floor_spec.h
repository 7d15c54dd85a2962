#pragma once
// FloorSpec: the plain description of a floor, as a floor file or the generator gives it.
// Parsing it is an importer's job; Topology::build turns it into entities.
#include <string>
#include <utility>
#include <vector>

namespace ft::model {

// One rack of a row given rack by rack, as a real floor is: its name, the slot it stands in
// along the row (slots no rack takes are gaps), and what differs from the floor's rack model.
struct RackSpec {
    std::string name;
    int slot = -1;           // 0-based position along the row; -1: the slot after the previous rack
    int computeTrays = -1;   // trays installed (a rack still being filled has fewer); -1: all
    double ratedPowerKw = 0; // 0: the rack model's
    std::string model;       // "": the floor's rack model
    std::string lifecycle;   // state at start by name ("delivered", ...); "": production
    // Management addresses of the rack's own controllers — power shelves, PDUs, the rack's
    // CDU or manager — which a Redfish service at that address speaks for (hosts' BMCs are in
    // the host table).
    std::vector<std::string> bmc;
};

// A row of racks: racks stand side by side along +x from (x, y), fronts facing -y. Either a
// count of racks named row + 01, 02, ... (generated floors), or the racks one by one.
struct RowSpec {
    std::string name;
    double x = 0.0;
    double y = 0.0;
    int racks = 0;                  // with rackList: its size
    std::vector<RackSpec> rackList; // empty: `racks` racks named by position
};

// A host of the inventory: which compute tray it is, and what identifies it to telemetry.
struct HostSpec {
    std::string name;                  // as provisioning knows it ("gpu-node-1", "dh2-r14-c07-n03")
    std::string rack;                  // rack name
    int tray = 0;                      // compute tray slot, 1 = the top compute tray
    std::vector<std::string> gpuUuids; // GPU 0, 1, ... of the tray ("GPU-20c56d28-...")
    std::string bmc;                   // BMC address (Redfish)
    std::string serial;
};

// A Rubin GPU's SM clock at full speed: what throttling and power caps slow it from, and what a
// validation run expects of a healthy GPU.
inline constexpr float kGpuMaxSmClockMhz = 2600.0f;

// One rack model for the whole floor (Vera Rubin NVL72 by default).
struct RackModelSpec {
    std::string model = "Vera Rubin NVL72";
    int computeTrays = 18;
    int computeTraysAboveSwitches = 10; // layout top to bottom: 10 compute, 9 switch, 8 compute
    int switchTrays = 9;
    int gpusPerTray = 4;
    // Where each GPU module of a compute tray sits on PCI, module 0 first, as "domain:bus" the
    // way the host reports it (nvidia-smi, dcgm-exporter's pci_bus_id "00000008:01:00.0"). The
    // GPU index a host gives follows PCI enumeration (and a container's subset renumbers it);
    // the address is the module's own. Default: GB200/Vera Rubin NVL72 compute trays, whose two
    // superchips put their GPUs on PCI domains 8, 9, 0x18 and 0x19. Empty: place by index.
    std::vector<std::string> gpuPci{"0008:01", "0009:01", "0018:01", "0019:01"};
    int cpusPerTray = 2;
    int dpusPerTray = 1;
    int nicsPerGpu = 2;
    int powerShelves = 8; // half above, half below the trays
    double gpuTdpW = 1800.0;
    double gpuIdleW = 180.0;
    double cpuTdpW = 300.0;
    double cpuIdleW = 60.0;
    double switchTrayW = 900.0;
    double trayOverheadW = 350.0; // DPU, NICs, fans-less board power per compute tray
    double gpuMaxTempC = 88.0;    // throttle limit
    double nvlinkTBpsPerGpu = 3.6;
    double nvlinkTBpsPerRack = 260.0;
    double ratedPowerKw = 190.0;
    double widthM = 0.6;
    double depthM = 1.2;
    double heightM = 2.3;
};

// Rail-optimized, multi-plane, two-tier non-blocking Spectrum-X fabric.
// NIC i of every compute tray lands on rail i; rail i belongs to plane i % planes.
struct FabricSpec {
    int planes = 2;
    int switchRadix = 512; // ports per leaf/spine switch
    double portGbps = 800.0;
};

struct CoolingSpec {
    int racksPerCdu = 8;
    int pumpsPerCdu = 2;                    // duty + standby, both running at part speed
    double supplySetpointC = 45.0;          // secondary (technology cooling system) supply
    double deltaTSetpointK = 10.0;          // the rack valves trim flow to hold this
    double flowLpmPerKw = 1.5;              // design flow per kW of rated rack power
    double cduCapacityKw = 2000.0;          // heat exchanger duty at the design approach
    double primarySupplyC = 32.0;           // facility water into the CDU
    double differentialPressureKpa = 150.0; // CDU holds this across the rack manifolds
    double roomTempC = 24.0;
    double humidityPercent = 45.0;
    // Management addresses of the CDU controllers, by CDU name ("CDU A1" -> "10.0.9.5"): a
    // Redfish service at that address speaks for that CDU, whatever it calls itself.
    std::vector<std::pair<std::string, std::string>> cduBmc;
};

// Object storage: a node-local NVMe cache per compute tray, and per region an object store
// whose four tiers (by days since last access) are hot < warmAfter <= warm < coldAfter <= cold,
// archived after archiveAfter days unread. Region 0 is where the floor writes; writes migrate to
// region 1 in the background over the inter-region link.
struct StorageSpec {
    std::vector<std::string> regions{"local", "remote"};
    std::vector<std::string> tiers{"hot", "warm", "cold", "archive"};
    double cacheTbPerTray = 30.0;
    double warmAfterDays = 7;
    double coldAfterDays = 30;
    double archiveAfterDays = 60;
    double agingDaysPerMinute = 1; // time compression of tier aging (days per simulated minute)
    // Link capacity, Gb/s; 0: sized to the floor, kInterRegionGbpsPerRack per rack (640 for the
    // 16-rack demo: checkpoints average about 2.8 GB/s a rack, so the link runs about half
    // full), so a healthy floor of any size keeps its backlog near zero.
    double interRegionGbps = 0;
    static constexpr double kInterRegionGbpsPerRack = 40;
    double initialPetabytes = 8; // data already in each region's store
};

// Rack power: each rack's power shelves (rack.power_shelves) hold PSUs that feed one DC bus
// bar; half the PSUs of every shelf hang on feed A, half on feed B (2N). Each row has one feed
// per side: a busway (or PDU circuit) with a breaker.
struct PowerSpec {
    int psusPerShelf = 6;
    double psuRatedKw = 8.0;            // DC output: one side's 24 PSUs carry a 190 kW rack (2N)
    double psuPeakEfficiency = 0.975;   // at ~60 % load; lower at light load
    double feedRatedKw = 0;             // per busway; 0: the row's racks' rated power x diversity
    double feedDiversity = 0.7;         // racks seldom all draw their rating at once
    double feedVoltageV = 415;          // three-phase line-to-line
    double breakerTripPercent = 125;    // an overload this far over rating trips in ~2 s (thermal
                                        // curve: further over, sooner; at rating, never)
    double rackBudgetMarginPercent = 3; // Racky keeps this headroom under what the PSUs can give
};

struct FloorSpec {
    std::string name = "floor";
    std::vector<RowSpec> rows;
    RackModelSpec rack;
    FabricSpec fabric;
    CoolingSpec cooling;
    StorageSpec storage;
    PowerSpec power;
    // Host name of a compute tray. Tokens: {row} {row_lc} {rack} {rack_global} {tray}, with an
    // optional zero-pad width as in {tray:02}. {rack} and {tray} are 1-based. Used for trays the
    // host table does not name, unless the floor has a host table (real floors): then a tray the
    // table does not name has no host.
    std::string hostPattern = "{row_lc}{rack:02}-n{tray:02}";
    std::vector<HostSpec> hosts;
    // Links out of the twin: a name ("grafana", "runbook") and a URL template whose
    // {placeholders} the inspector fills for an entity (importers/floor/link_templates.h).
    std::vector<std::pair<std::string, std::string>> links;
};

} // namespace ft::model
