#pragma once
// Transport: what the UI needs from whatever feeds it snapshots — the simulator running live,
// or a recording being replayed: the newest snapshot, play/pause, speed, and for replay seek,
// step and loop. Any thread may call it.
#include "snapshot.h"

#include <memory>
#include <optional>
#include <utility>

namespace ft::model {

class Transport {
public:
    virtual ~Transport() = default;
    virtual std::shared_ptr<const Snapshot> latest() const = 0;
    virtual bool isReplay() const = 0;
    virtual void setSpeed(double speed) = 0;
    virtual double speed() const = 0;
    virtual void setPaused(bool paused) = 0;
    virtual bool paused() const = 0;
    // The span a timeline shows: a recording's range, or a live run from its start to now.
    virtual TimeNs beginTime() const = 0;
    virtual TimeNs endTime() const = 0;
    virtual TimeNs tickLength() const = 0;
    // Replay only; a live source ignores them.
    virtual void seek(TimeNs) {}
    virtual void step(int /*ticks*/) {}
    virtual void setLoop(std::optional<std::pair<TimeNs, TimeNs>>) {}
    virtual std::optional<std::pair<TimeNs, TimeNs>> loop() const { return std::nullopt; }
};

} // namespace ft::model
