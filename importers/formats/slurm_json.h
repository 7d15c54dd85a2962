#pragma once
// Slurm's own answers, as `squeue --json` / `sinfo --json` print them and slurmrestd serves them
// (/slurm/v0.0.NN/jobs and /nodes): the nodes with their state and reason, and the jobs with the
// nodes they run on. Both generations of shapes are read:
//   - OpenAPI v0.0.37/38 (Slurm 21.08, 22.05): `state` a lower-case string plus `state_flags`,
//     `job_state` a string, times plain integers, a job's nodes a host list ("a01-n[01-04]");
//   - v0.0.39 and later (23.02 on): `state` an array of upper-case words ("IDLE", "DRAIN"),
//     `job_state` an array, times {"set", "infinite", "number"} objects, job_resources.nodes an
//     object with its allocation list.
// Pure functions over bytes (no Qt), fuzzed with the other answers.
#include "model/scheduler_state.h"

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ft::importers {

struct SlurmNode {
    std::string name;                // the node name jobs refer to
    std::string hostname;            // as the node reports it (may differ from the name)
    std::vector<std::string> states; // base state and flags, upper case: {"IDLE", "DRAIN"}
    std::string reason;              // why it is drained, down or failed ("" = none given)
    std::string reasonBy;            // who set the reason
    std::int64_t reasonSince = 0;    // Unix seconds, 0 = unknown
    std::vector<std::string> partitions;
};

struct SlurmJob {
    std::string id; // "1234", an array task "1234_5", a het component "1234+0"
    std::string name, user, partition;
    std::string state;              // "RUNNING", "PENDING", ...
    std::int64_t start = 0;         // Unix seconds, 0 = not started
    std::vector<std::string> nodes; // expanded from the host list
};

struct SlurmAnswer {
    std::string release; // "22.05.8", "" when the answer does not say
    std::string plugin;  // "openapi/v0.0.38"
    std::vector<SlurmNode> nodes;
    std::vector<SlurmJob> jobs;
    std::vector<std::string> errors;   // the answer's own `errors` array, in words
    std::vector<std::string> warnings; // entries skipped, with why
};

// One answer of either command (or endpoint): nodes, jobs, or both are filled from what it
// carries. A document that is not JSON, or whose `nodes`/`jobs` is not an array, is an error
// naming `what` and the place; a single bad entry is skipped with a warning.
std::expected<SlurmAnswer, std::string> parseSlurmJson(std::string_view text,
                                                       std::string_view what);

// A Slurm host list expanded: "a01-n[01-03,07],b02-n01" -> a01-n01 a01-n02 a01-n03 a01-n07
// b02-n01, zero padding kept; several bracket groups multiply ("r[1-2]n[1-2]"). At most `limit`
// names; an unbalanced bracket or a bad range is an error.
std::expected<std::vector<std::string>, std::string> expandHostList(std::string_view list,
                                                                    std::size_t limit = 100000);

// The node's state for the floor: the worst of its base state and flags.
model::SchedulerState schedulerStateOf(const SlurmNode& node);
// "drained", "down, not responding", "idle + maintenance": the words an operator reads.
std::string describeNodeState(const SlurmNode& node);

// Is the job running on its nodes now (RUNNING, COMPLETING, SUSPENDED, CONFIGURING)?
bool jobOnNodes(const SlurmJob& job);

} // namespace ft::importers
