// The compute trays' stage of a tick: each rack's work and power cap handed to its trays, each
// GPU's throttle, utilization, clock, power and temperature, the CPUs, and the trays' totals for
// the fabric, storage and power models. The GPUs are 128k on a full floor, so their update is
// one branch-free kernel per rack (vector code: eight GPUs a vector with AVX2, else four), with
// the holds of measured values checked only in ticks that have any.
#include "sim_model.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace ft::model {
namespace {

constexpr TimeNs kNoisePeriod = 500 * kNsPerMs;
constexpr float kGpuTau = 8.0f;                  // s, die + cold plate
constexpr float kGpuThermalResistance = 0.0152f; // K/W die to coolant
constexpr float kCpuThermalResistance = 0.06f;
constexpr float kRailTbpsPerGpu = 1.6f;     // 2 x 800G SuperNICs
constexpr std::size_t kMaxGpusPerTray = 16; // Topology::build refuses more

float lagAlpha(float dt, float tau) {
    return 1.0f - std::exp(-dt / tau);
}

// The constants of one tick for every GPU.
struct GpuStep {
    float throttleDown, throttleUp; // per tick
    float limit, limitLow;          // °C: throttle above, recover below
    float utilAlpha, tempAlpha;     // first-order lags
    float idle, span;               // W
};

// Which GPU channels hold measured values (a value held is read, never written).
struct GpuHolds {
    Holds holds;
    bool util, clock, power, temp;
};

// One rack's GPUs, `n` from `firstGpu`: throttle, utilization, clock, power, temperature, from
// last tick's utilization and temperature (`utilWas`, `tempWas`: other buffers). What a GPU's
// tray gives it (the utilization its work asks for, the job's pace, power or not as 1 or
// 0, the coolant at its cold plate) comes per GPU; Racky's cap per GPU is the rack's. Each GPU's
// effective clock (1 = full; throttled or capped) goes to `effective`. Every value is a select,
// not a branch, and GPUs do not depend on each other, so with no holds this is vector code
// whose iterations overlap; the arithmetic, and its order, are those of a GPU at a time, so
// the results are too.
template <bool kHolds>
[[gnu::always_inline]] inline void
stepGpus(const GpuStep k, std::size_t n, float cap, const float* __restrict target,
         const float* __restrict pace, const float* __restrict on, const float* __restrict coolant,
         const float* __restrict utilWas, const float* __restrict tempWas, float* __restrict util,
         float* __restrict clock, float* __restrict power, float* __restrict temp,
         float* __restrict throttle, const float* __restrict bias, const float* __restrict noise,
         const float* __restrict cooling, float* __restrict effective, const GpuHolds& held,
         EntityId firstGpu) {
    auto keep = [&](bool any, ChannelId c, std::size_t i) {
        if constexpr (kHolds) return any && held.holds(c, firstGpu + static_cast<EntityId>(i));
        return false;
    };
    for (std::size_t i = 0; i < n; ++i) {
        const float b = bias[i];
        // Throttle: clocks back off while the die is over its limit, recover below it.
        const float die = tempWas[i];
        const float was = throttle[i];
        const float down = std::max(0.55f, was - k.throttleDown);
        const float up = std::min(1.0f, was + k.throttleUp);
        const float thr = die > k.limit ? down : die < k.limitLow ? up : was;
        throttle[i] = thr;
        // A GPU faster than its job's slowest member waits at the barriers. Noise only where
        // there is power (`on` is 1 or 0, and every value it scales has one sign).
        const float waiting = std::clamp(pace[i] / std::max(thr, 0.05f), 0.0f, 1.0f);
        const float wantUtil =
            std::clamp(target[i] * waiting * (1.0f + 0.03f * b) + noise[i] * on[i], 0.0f, 1.0f);
        const float busy = utilWas[i];
        if (!keep(held.util, ch::GpuUtilization, i))
            util[i] = busy + (wantUtil * 100.0f - busy) * k.utilAlpha;
        const float u = util[i] / 100.0f;
        // Power rises a little faster than linearly with activity (util^1.1, approximated).
        const float draw =
            (k.idle + k.span * u * (0.9f + 0.1f * u) * thr) * (1.0f + 0.03f * b) * on[i];
        // Racky's power cap: the GPU clocks down until it draws the cap (dynamic power goes
        // roughly with the square of the clock at these voltages).
        const bool capped = draw > cap;
        const float dynamic =
            std::clamp((cap - k.idle) / std::max(draw - k.idle, 1.0f), 0.05f, 1.0f);
        const float slowed = thr * std::sqrt(dynamic);
        const float clk = capped ? slowed : thr;
        effective[i] = clk;
        if (!keep(held.clock, ch::GpuSmClock, i)) clock[i] = kGpuMaxSmClockMhz * clk * on[i];
        if (!keep(held.power, ch::GpuPower, i)) power[i] = capped ? cap : draw;
        const float watts = power[i];
        const float want =
            coolant[i] + kGpuThermalResistance * cooling[i] * (1.0f + 0.06f * b) * watts;
        if (!keep(held.temp, ch::GpuTemperature, i)) temp[i] = die + (want - die) * k.tempAlpha;
    }
}

// One rack's GPU columns for the kernel (each from the rack's first GPU).
struct GpuColumns {
    const float *target, *pace, *on, *coolant;
    const float *utilWas, *tempWas;
    float *util, *clock, *power, *temp, *throttle;
    const float *bias, *noise, *cooling;
    float* effective;
};

template <bool kHolds>
[[gnu::always_inline]] inline void runGpus(const GpuStep k, std::size_t n, float cap,
                                           const GpuColumns& c, const GpuHolds& held,
                                           EntityId firstGpu) {
    stepGpus<kHolds>(k, n, cap, c.target, c.pace, c.on, c.coolant, c.utilWas, c.tempWas, c.util,
                     c.clock, c.power, c.temp, c.throttle, c.bias, c.noise, c.cooling, c.effective,
                     held, firstGpu);
}

// The kernel's entry points: a GPU at a time for ticks with holds; for the rest, eight GPUs a
// vector where the CPU has AVX2 (chosen once, at run time; the build targets plain x86-64).
// AVX2 without FMA: the same IEEE operations in the same order, so the same results, bit for bit.
void stepGpusHeld(const GpuStep k, std::size_t n, float cap, const GpuColumns& c,
                  const GpuHolds& held, EntityId firstGpu) {
    runGpus<true>(k, n, cap, c, held, firstGpu);
}
void stepGpusFree(const GpuStep k, std::size_t n, float cap, const GpuColumns& c,
                  const GpuHolds& held, EntityId firstGpu) {
    runGpus<false>(k, n, cap, c, held, firstGpu);
}
#if defined(__x86_64__) && defined(__GNUC__)
[[gnu::target("avx2")]] void stepGpusFreeAvx2(const GpuStep k, std::size_t n, float cap,
                                              const GpuColumns& c, const GpuHolds& held,
                                              EntityId firstGpu) {
    runGpus<false>(k, n, cap, c, held, firstGpu);
}
#endif

// Utilization noise for GPUs [first, end): 0.025 x hashNoise(seed, gpu, period). Integer
// mixing and exact conversions, so the AVX-512 version (64-bit multiplies and conversions in
// vectors) gives the same values; without AVX-512 the loop stays scalar.
[[gnu::always_inline]] inline void hashNoiseInto(float* __restrict out, std::size_t first,
                                                 std::size_t end, std::uint64_t seed,
                                                 std::uint64_t period) {
    for (std::size_t g = first; g < end; ++g)
        out[g - first] = 0.025f * hashNoise(seed, g, period);
}
void hashNoisePlain(float* out, std::size_t first, std::size_t end, std::uint64_t seed,
                    std::uint64_t period) {
    hashNoiseInto(out, first, end, seed, period);
}
#if defined(__x86_64__) && defined(__GNUC__)
[[gnu::target("avx512f,avx512dq")]] void hashNoiseAvx512(float* out, std::size_t first,
                                                         std::size_t end, std::uint64_t seed,
                                                         std::uint64_t period) {
    hashNoiseInto(out, first, end, seed, period);
}
#endif
using NoiseFill = decltype(&hashNoisePlain);
NoiseFill noiseFill() {
#if defined(__x86_64__) && defined(__GNUC__)
    static const NoiseFill fill =
        __builtin_cpu_supports("avx512dq") ? &hashNoiseAvx512 : &hashNoisePlain;
    return fill;
#else
    return &hashNoisePlain;
#endif
}

using GpuKernel = decltype(&stepGpusFree);
GpuKernel freeKernel() {
#if defined(__x86_64__) && defined(__GNUC__)
    static const GpuKernel kernel =
        __builtin_cpu_supports("avx2") ? &stepGpusFreeAvx2 : &stepGpusFree;
    return kernel;
#else
    return &stepGpusFree;
#endif
}

} // namespace

void SimModel::fillNoise(NoisePeriod& n, std::uint64_t period, std::size_t upTo) const {
    if (n.period != period) {
        n.period = period;
        n.filled = 0;
    }
    n.values.resize(m_gpuBias.size());
    upTo = std::min(upTo, n.values.size());
    if (n.filled < upTo)
        noiseFill()(n.values.data() + n.filled, n.filled, upTo, m_config.seed, period);
    n.filled = std::max(n.filled, upTo);
}

const float* SimModel::gpuNoise() {
    // Each GPU's utilization noise is a pure function of the seed, the GPU and the half-second
    // period. 128k hashes at once would make every fifth tick a spike, so the next period's
    // values are worked out a slice per tick ahead of it, and swapped in when it comes.
    const auto period = static_cast<std::uint64_t>(m_state.time / kNoisePeriod);
    const std::size_t n = m_gpuBias.size();
    if (m_noise.period != period) {
        if (m_noiseNext.period == period) std::swap(m_noise, m_noiseNext);
        fillNoise(m_noise, period, n); // whatever the slices have not done yet
    }
    const auto next = std::max(
        period + 1, static_cast<std::uint64_t>((m_state.time + m_config.step) / kNoisePeriod));
    const auto ticks = static_cast<std::size_t>(
        std::max<TimeNs>(1, kNoisePeriod / std::max<TimeNs>(1, m_config.step)));
    const std::size_t done = m_noiseNext.period == next ? m_noiseNext.filled : 0;
    fillNoise(m_noiseNext, next, done + (n + ticks - 1) / ticks);
    return m_noise.values.data();
}

void SimModel::stepComputeTrays(float dt) {
    const Topology& t = *m_topology;
    const auto& rk = t.spec().rack;
    auto& v = m_state.values;
    const float gpuAlpha = lagAlpha(dt, kGpuTau);
    const float utilAlpha = lagAlpha(dt, 0.4f);
    const auto gpuIdle = static_cast<float>(rk.gpuIdleW);
    const auto gpuSpan = static_cast<float>(rk.gpuTdpW - rk.gpuIdleW);
    const auto cpuIdle = static_cast<float>(rk.cpuIdleW);
    const auto cpuSpan = static_cast<float>(rk.cpuTdpW - rk.cpuIdleW);
    const auto limit = static_cast<float>(rk.gpuMaxTempC);
    const auto nvlinkPeak = static_cast<float>(rk.nvlinkTBpsPerGpu);
    const int gpt = rk.gpusPerTray;
    const int cpt = rk.cpusPerTray;
    const std::size_t nTrays = t.count(EntityKind::ComputeTray);
    const float* const noise = gpuNoise(); // changes twice a second
    std::ranges::fill(m_rackMinThrottle, 1.0f);
    // Where each GPU sits along the tray's coolant path (0..1); no allocation per tick.
    std::array<float, kMaxGpusPerTray> position{};
    for (int i = 0; i < gpt && i < static_cast<int>(kMaxGpusPerTray); ++i)
        position[static_cast<std::size_t>(i)] =
            (static_cast<float>(i) + 0.5f) / static_cast<float>(gpt);
    // Most runs hold nothing: check the per-entity holds only for channels that have any.
    auto anyHeld = [&](ChannelId c) { return !m_heldUntil[c].empty(); };
    const GpuHolds gpuHolds{holds(), anyHeld(ch::GpuUtilization), anyHeld(ch::GpuSmClock),
                            anyHeld(ch::GpuPower), anyHeld(ch::GpuTemperature)};
    const bool holdCpuUtil = anyHeld(ch::CpuUtilization), holdCpuPower = anyHeld(ch::CpuPower),
               holdCpuTemp = anyHeld(ch::CpuTemperature), holdTray = anyHeld(ch::TrayPower);
    // The GPUs' columns, and the kernel for this tick's holds.
    const GpuStep k{0.2f * dt, 0.1f * dt, limit,   limit - 3.0f,
                    utilAlpha, gpuAlpha,  gpuIdle, gpuSpan};
    // Last tick's values of what this stage reads before it writes (the renewed columns hold
    // nothing yet but the held values).
    const float* const utilWas = previous(ch::GpuUtilization);
    const float* const tempWas = previous(ch::GpuTemperature);
    const float* const cpuTempWas = previous(ch::CpuTemperature);
    const float* const trayPowerWas = previous(ch::TrayPower);
    float* const util = v[ch::GpuUtilization].data();
    float* const clock = v[ch::GpuSmClock].data();
    float* const power = v[ch::GpuPower].data();
    float* const temp = v[ch::GpuTemperature].data();
    float* const throttle = m_gpuThrottle.data();
    float* const cpuUtil = v[ch::CpuUtilization].data();
    float* const cpuPowerW = v[ch::CpuPower].data();
    float* const cpuTemp = v[ch::CpuTemperature].data();
    float* const trayPowerW = v[ch::TrayPower].data();
    const float* const bias = m_gpuBias.data();
    const float* const cooling = m_lifecycle.gpuCoolingFactors();
    const bool anyGpuHeld = gpuHolds.util || gpuHolds.clock || gpuHolds.power || gpuHolds.temp;
    const auto gpus = anyGpuHeld ? &stepGpusHeld : freeKernel();
    const auto gptSize = static_cast<std::size_t>(gpt);
    TrayStageScratch& s = m_trayScratch;

    // A rack at a time: what its trays give their GPUs, then its GPUs in one pass, then each
    // tray's totals (the trays of a rack are consecutive).
    for (std::size_t firstTray = 0; firstTray < nTrays;) {
        const EntityId rack = t.computeTrays.rack[firstTray];
        std::size_t endTray = firstTray + 1;
        while (endTray < nTrays && t.computeTrays.rack[endTray] == rack)
            ++endTray;
        const std::size_t trays = endTray - firstTray;
        const std::size_t rackGpus = trays * gptSize;
        if (s.target.size() < rackGpus)
            for (auto* column : {&s.target, &s.pace, &s.on, &s.coolant, &s.effective})
                column->resize(rackGpus);
        if (s.trays.size() < trays) s.trays.resize(trays);

        // What a rack's job asks of its trays is the same for every tray of a synchronous job:
        // work it out once per rack (inference replicas differ per tray and are asked per tray).
        // Racks in bring-up, validation or troubleshooting carry their stage's load, not jobs.
        const auto firstId = static_cast<EntityId>(firstTray);
        const LifecycleModel::Load stage = m_lifecycle.load(rack, m_state.time);
        const bool powered =
            m_thermal.rackPowered(rack) && stage.powered && m_power.rackEnergized(rack);
        const float gpuCap = m_power.gpuPowerCap(rack); // Racky's cap for its GPUs, W
        const bool working = powered && stage.production;
        m_rackPowered[rack] = powered;
        const Job& job = m_workload.jobs()[m_workload.jobOfRack(rack)];
        const float pace = stage.production ? m_jobPace[m_workload.jobOfRack(rack)] : 1.0f;
        float rackTarget = 0;
        WorkloadModel::TrafficShare rackShare;
        if (working && job.kind != JobKind::Inference) {
            rackTarget = m_workload.trayUtilization(firstId, m_state.time);
            rackShare = m_workload.trayTraffic(firstId, m_state.time);
        } else if (powered && !working) {
            rackTarget = stage.utilization;
            rackShare = {stage.nvlink, stage.rail};
        }
        const bool checkpoint = working && m_workload.checkpointing(firstId, m_state.time);
        const bool changed = m_rackJobStart[rack] != job.start;
        m_rackJobStart[rack] = job.start;
        const float supply = v[ch::RackSupplyTemperature][rack];
        // The rack's coolant rise, and its heat, for each tray's share of them.
        const float rackRise = v[ch::RackReturnTemperature][rack] - supply;
        const float rackPowerW = v[ch::RackPower][rack] * 1000.0f;

        for (std::size_t tray = firstTray; tray < endTray; ++tray) {
            const auto trayId = static_cast<EntityId>(tray);
            TrayStageScratch::Tray& out = s.trays[tray - firstTray];
            m_trayJobStarted[tray] = changed && m_state.tick > 1;
            // A slot without a tray (a rack still being filled) draws, computes and moves
            // nothing.
            const bool present = t.trayInstalled(trayId);
            out.powered = powered && present;
            // The fabric slows a tray whose bytes it cannot carry (a job's slowest rack already
            // sets a training job's pace; inference replicas and validation loads feel only
            // their own).
            out.pace = std::min(pace, m_fabric.trayPace(trayId));
            float target = present ? rackTarget : 0.0f;
            WorkloadModel::TrafficShare share = present ? rackShare : WorkloadModel::TrafficShare{};
            if (present && working && job.kind == JobKind::Inference) {
                target = m_workload.trayUtilization(trayId, m_state.time);
                share = WorkloadModel::inferenceTraffic(target);
            }
            // A collective runs at its slowest link's bandwidth.
            share.nvlink *= m_lifecycle.rackNvlinkFactor(rack);
            out.share = share;
            // Storage: training streams its dataset and writes checkpoints; inference reads less.
            m_trayRead[tray] = !(working && present)            ? 0.0f
                               : job.kind == JobKind::Training  ? 1.5f * target * out.pace
                               : job.kind == JobKind::Inference ? 0.4f * target
                                                                : 0.0f;
            m_trayCheckpoint[tray] = checkpoint && present ? 4.0f * out.pace : 0.0f;
            // Coolant rise across this tray's cold plates, scaled from the rack's ΔT by the
            // tray's share of the rack's heat: later GPUs on the loop see warmer water.
            const float trayShare =
                rackPowerW > 1.0f
                    ? trayPowerWas[tray] * static_cast<float>(rk.computeTrays) / rackPowerW
                    : 1.0f;
            out.rise = std::max(0.0f, rackRise * std::min(trayShare, 3.0f));
            const std::size_t at = (tray - firstTray) * gptSize;
            for (std::size_t i = 0; i < gptSize; ++i) {
                s.target[at + i] = target;
                s.pace[at + i] = out.pace;
                s.on[at + i] = out.powered ? 1.0f : 0.0f;
                s.coolant[at + i] = supply + out.rise * position[i];
            }
        }

        const std::size_t first = firstTray * gptSize;
        const GpuColumns columns{
            s.target.data(),  s.pace.data(), s.on.data(),   s.coolant.data(), utilWas + first,
            tempWas + first,  util + first,  clock + first, power + first,    temp + first,
            throttle + first, bias + first,  noise + first, cooling + first,  s.effective.data()};
        gpus(k, rackGpus, gpuCap, columns, gpuHolds, static_cast<EntityId>(first));
        float slowest = 1.0f; // the rack's slowest GPU (min is exact in any order)
        for (std::size_t i = 0; i < rackGpus; ++i)
            slowest = std::min(slowest, s.effective[i]);
        m_rackMinThrottle[rack] = slowest;

        for (std::size_t tray = firstTray; tray < endTray; ++tray) {
            const auto trayId = static_cast<EntityId>(tray);
            const TrayStageScratch::Tray& in = s.trays[tray - firstTray];
            const std::size_t gpu = tray * gptSize;
            // In the GPUs' order, so the sums are those of one pass (bit for bit).
            float trayPower = in.powered ? static_cast<float>(rk.trayOverheadW) : 0.0f;
            float trayUtil = 0, nvlink = 0, rail = 0;
            for (std::size_t i = 0; i < gptSize; ++i) {
                trayPower += power[gpu + i];
                trayUtil += util[gpu + i] / 100.0f;
                nvlink += nvlinkPeak * in.share.nvlink;
                rail += kRailTbpsPerGpu * in.share.rail;
            }
            trayUtil /= static_cast<float>(gpt);
            for (int i = 0; i < cpt; ++i) {
                const std::size_t c = tray * cpt + i;
                const auto cid = static_cast<EntityId>(c);
                if (!(holdCpuUtil && held(ch::CpuUtilization, cid)))
                    cpuUtil[c] =
                        in.powered ? std::clamp(12.0f + 35.0f * trayUtil, 0.0f, 100.0f) : 0.0f;
                const float cpuPower = in.powered ? cpuIdle + cpuSpan * cpuUtil[c] / 100.0f : 0.0f;
                if (!(holdCpuPower && held(ch::CpuPower, cid))) cpuPowerW[c] = cpuPower;
                trayPower += cpuPowerW[c];
                if (!(holdCpuTemp && held(ch::CpuTemperature, cid))) {
                    const float want = supply + in.rise + kCpuThermalResistance * cpuPower;
                    cpuTemp[c] = cpuTempWas[c] + (want - cpuTempWas[c]) * gpuAlpha;
                }
            }
            if (!(holdTray && held(ch::TrayPower, trayId))) trayPowerW[tray] = trayPower;
            m_fabricTrays[tray] = {nvlink, rail, in.pace};
        }
        firstTray = endTray;
    }
}

} // namespace ft::model
