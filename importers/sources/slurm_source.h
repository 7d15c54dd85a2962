#pragma once
// SlurmSource: the workload scheduler as a live source. Each poll reads the nodes and the jobs
// (`sinfo --json` and `squeue --json` run as commands, slurmrestd's /nodes and /jobs over HTTP,
// or two captured answers on disk), places them on the floor (slurm_floor.h) and sends what
// changed: each node's state as a sample of compute_tray.scheduler_state, its words as a
// NodeNote, and its GPUs' jobs, marked as the scheduler's. One thread per source; the owner
// calls start()/stop(), health() from any thread.
#include "importers/net/http_client.h"
#include "live_source.h"
#include "model/topology.h"
#include "poll_thread.h"

#include <chrono>
#include <expected>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ft::importers {

struct SlurmAnswer;
class EntityNameIndex;

struct SlurmConfig {
    enum class Mode : std::uint8_t { Commands, Http, Files };
    Mode mode = Mode::Commands;
    std::string sinfo = "sinfo", squeue = "squeue"; // Commands: the programs (PATH searched)
    std::string url;                                // Http: slurmrestd's base, e.g. http://ctl:6820
    std::vector<std::string> files; // Files: answers of sinfo/squeue --json (either order)
    std::chrono::milliseconds interval{10000};
    std::chrono::milliseconds timeout{10000}; // one command or request
    HttpOptions http;                         // Http: TLS; the token goes as X-SLURM-USER-TOKEN
    std::string user;                         // Http: X-SLURM-USER-NAME
    std::uint16_t sourceId = 0;
};

// "--source slurm=SPEC": "commands" (sinfo and squeue from PATH), "commands:DIR" (from DIR),
// "http(s)://host:port[/slurm/v0.0.NN]" (slurmrestd; without a version the newest it answers
// is found), or "FILE.json,FILE.json" (captured answers, read again at every poll).
std::expected<SlurmConfig, std::string> parseSlurmSpec(const std::string& spec);

// One read of the scheduler, for --check-source and tests: the nodes' and the jobs' answers, or
// why there are none.
struct SlurmRead {
    std::string nodesBody, jobsBody;
    std::string where; // what was read: "sinfo --json", "http://ctl:6820/slurm/v0.0.38/nodes"
    std::string error;
};
SlurmRead readSlurmOnce(const SlurmConfig& config, HttpClient* client = nullptr,
                        std::string* apiVersion = nullptr);

class SlurmSource final : public LiveSource {
public:
    SlurmSource(SlurmConfig config, std::shared_ptr<const model::Topology> topology,
                SubmitFn submit);
    ~SlurmSource() override;
    SlurmSource(const SlurmSource&) = delete;
    SlurmSource& operator=(const SlurmSource&) = delete;

    void start() override;
    void stop() override;
    std::vector<SourceHealth> health() const override;
    std::vector<NameCount> unknownHosts() const override;

private:
    void pollOnce(HttpClient* client, EntityNameIndex& index);

    SlurmConfig m_config;
    std::shared_ptr<const model::Topology> m_topology;
    SubmitFn m_submit;
    PollThread m_poller;

    // Poll thread: what was sent last, to send only changes.
    std::string m_apiVersion;
    std::map<model::EntityId, std::string> m_sentJobs;  // by GPU
    std::map<model::EntityId, std::string> m_sentNotes; // by tray: the note's words joined

    mutable std::mutex m_mutex;
    SourceHealth m_health;                 // guarded by m_mutex
    std::vector<NameCount> m_unknownNodes; // guarded by m_mutex
};

} // namespace ft::importers
