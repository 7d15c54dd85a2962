#pragma once
// What the workload scheduler (Slurm) says of a node, as one state per compute tray, ordered
// from fine to worst so that a rack's worst node is its maximum. Slurm keeps a base state (idle,
// allocated, mixed, down, ...) and flags (DRAIN, FAIL, MAINTENANCE, NOT_RESPONDING, ...); a
// node that is draining still runs its jobs, a drained one runs none and takes none.
#include <array>
#include <cstdint>
#include <string_view>

namespace ft::model {

enum class SchedulerState : std::uint8_t {
    Idle,     // in service, no job
    Busy,     // in service, running jobs (allocated, mixed, completing)
    Reserved, // held for maintenance (MAINTENANCE flag or a maintenance reservation)
    Draining, // DRAIN flag with jobs still running: finishes them, takes no new one
    Drained,  // DRAIN flag and nothing running: out of service
    Down,     // DOWN, or NOT_RESPONDING: slurmd does not answer
    Failed,   // FAIL flag or ERROR: taken out by the scheduler or an admin as broken
};
inline constexpr int kSchedulerStates = 7;

inline constexpr std::array<std::string_view, kSchedulerStates> kSchedulerStateNames{
    "idle", "busy", "maintenance", "draining", "drained", "down", "failed"};

constexpr std::string_view schedulerStateName(SchedulerState s) {
    return kSchedulerStateNames[static_cast<std::size_t>(s)];
}

// Out of service as the floor's lifecycle sees it: the scheduler sends no new work there.
constexpr bool schedulerOutOfService(SchedulerState s) {
    return s == SchedulerState::Draining || s == SchedulerState::Drained ||
           s == SchedulerState::Down || s == SchedulerState::Failed;
}

} // namespace ft::model
