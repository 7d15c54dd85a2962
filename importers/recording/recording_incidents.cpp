#include "recording_incidents.h"

#include "replay_transport.h"

#include <algorithm>

namespace ft::importers {

std::expected<model::IncidentList, std::string>
recordingIncidents(const std::string& path, const std::atomic<bool>& cancel,
                   const std::function<void(double)>& progress) {
    auto reader = RecordingReader::open(path);
    if (!reader) return std::unexpected(reader.error().toString());
    const auto topology = (*reader)->topology();
    ReplayTransport replay(std::move(*reader));
    model::IncidentTracker tracker(topology);
    // About a second between moments: the tracker's averages run on the times it is given.
    const model::TimeNs tick = std::max<model::TimeNs>(replay.tickLength(), 1);
    const model::TimeNs stride = std::max<model::TimeNs>(tick, model::kNsPerSecond / tick * tick);
    const model::TimeNs begin = replay.beginTime(), end = replay.endTime();
    std::uint64_t seen = 0;
    for (model::TimeNs t = begin; t <= end && !cancel.load(); t += stride) {
        replay.seek(t);
        const auto snap = replay.renderNow();
        if (!snap) break;
        const std::uint64_t n = snap->events ? snap->events->endSeq() : 0;
        tracker.setJobNames(snap->rackJobs);
        tracker.observe(*snap, snap->events && n >= seen ? snap->events->copySince(seen)
                                                         : std::vector<model::Event>());
        seen = n;
        if (progress && end > begin && (t - begin) / stride % 256 == 0)
            progress(static_cast<double>(t - begin) / static_cast<double>(end - begin));
    }
    if (!replay.lastError().empty()) return std::unexpected(replay.lastError());
    return *tracker.shared(); // in time order, with its figures filled in
}

} // namespace ft::importers
