#include "slurm_floor.h"

#include "model/timestamp.h"

#include <algorithm>
#include <unordered_map>

namespace ft::importers {

namespace {

// "2026-12-07 03:22 UTC": minutes are what a node's reason and a job's start need.
std::string when(std::int64_t unixSeconds) {
    std::string t = model::formatUtc(unixSeconds * model::kNsPerSecond);
    // "YYYY-MM-DD HH:MM:SS UTC" -> drop the seconds
    if (t.size() > 19 && t[16] == ':') t.erase(16, 3);
    return t;
}

} // namespace

std::string slurmJobLabel(const SlurmJob& job) {
    std::string out = job.id;
    if (!job.name.empty()) out += " " + job.name;
    if (!job.user.empty()) out += " (" + job.user + ")";
    return out;
}

SlurmPlacement placeSlurm(const SlurmAnswer& nodes, const SlurmAnswer& jobs, EntityNameIndex& index,
                          model::TimeNs time) {
    SlurmPlacement out;
    const model::Topology& topology = index.topology();
    const auto gpusPerTray = static_cast<model::EntityId>(topology.spec().rack.gpusPerTray);
    // The running jobs on each node, oldest first (a node shared by jobs names them all; its
    // GPUs carry the one that has run longest).
    std::unordered_map<std::string, std::vector<const SlurmJob*>> onNode;
    for (const SlurmJob& job : jobs.jobs) {
        if (!jobOnNodes(job)) continue;
        ++out.runningJobs;
        for (const auto& n : job.nodes)
            onNode[n].push_back(&job);
    }
    for (auto& [name, list] : onNode)
        std::ranges::stable_sort(list, {}, [](const SlurmJob* j) { return j->start; });
    std::unordered_map<const SlurmJob*, bool> jobPlaced;
    for (const SlurmNode& node : nodes.nodes) {
        ++out.nodes;
        auto tray = index.trayOfHost(node.name);
        if (!tray && !node.hostname.empty()) tray = index.trayOfHost(node.hostname);
        if (!tray || !topology.trayInstalled(*tray)) {
            out.unknownNodes.push_back({node.name, 1});
            continue;
        }
        ++out.placed;
        const model::SchedulerState state = schedulerStateOf(node);
        ++out.byState[static_cast<std::size_t>(state)];
        out.samples.push_back(
            {time, model::ch::ComputeTraySchedulerState, *tray, static_cast<float>(state)});
        model::NodeNote note;
        note.tray = *tray;
        note.node = node.name;
        note.state = describeNodeState(node);
        note.reason = node.reason;
        if (!note.reason.empty()) {
            std::string by = node.reasonBy;
            if (node.reasonSince > 0) by += (by.empty() ? "" : ", ") + when(node.reasonSince);
            if (!by.empty()) note.reason += " (" + by + ")";
        }
        const auto it = onNode.find(node.name);
        const std::vector<const SlurmJob*>* running = it != onNode.end() ? &it->second : nullptr;
        if (!running && !node.hostname.empty())
            if (const auto h = onNode.find(node.hostname); h != onNode.end()) running = &h->second;
        std::string label;
        if (running) {
            for (const SlurmJob* job : *running) {
                jobPlaced[job] = true;
                std::string words = slurmJobLabel(*job);
                std::string detail = job->partition;
                if (job->start > 0)
                    detail += (detail.empty() ? "since " : ", since ") + when(job->start);
                if (job->state != "RUNNING") detail += (detail.empty() ? "" : ", ") + job->state;
                if (!detail.empty()) words += " [" + detail + "]";
                note.jobs += note.jobs.empty() ? words : "; " + words;
            }
            label = slurmJobLabel(*running->front());
        }
        out.notes.push_back(std::move(note));
        for (model::EntityId g = *tray * gpusPerTray; g < (*tray + 1) * gpusPerTray; ++g)
            out.gpuJobs.emplace_back(g, label);
    }
    out.jobsPlaced = jobPlaced.size();
    return out;
}

} // namespace ft::importers
