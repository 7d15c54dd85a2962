#pragma once
// Transport: what the UI needs from whatever feeds it snapshots — the simulator running live,
// or a recording being replayed: the newest snapshot, play/pause, speed, and for replay seek,
// step and loop. It is the one owner of that state: widgets read it here and listen for
// changes (a replay pauses itself at the end of its recording, on its own thread), instead of
// keeping copies. Any thread may call it; listeners run on the thread that made the change and
// must only hand the news on (views::TransportObserver posts it to the UI thread).
#include "snapshot.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

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
    // Plays backwards at speed() (a replay; the live twin cannot).
    virtual void setReverse(bool) {}
    virtual bool reverse() const { return false; }
    virtual void seek(TimeNs) {}
    virtual void step(int /*ticks*/) {}
    virtual void setLoop(std::optional<std::pair<TimeNs, TimeNs>>) {}
    virtual std::optional<std::pair<TimeNs, TimeNs>> loop() const { return std::nullopt; }

    // Called after every change of speed, pause or loop range.
    using ListenerId = std::uint64_t;
    ListenerId addListener(std::function<void()> listener) {
        std::lock_guard lock(m_listenersMutex);
        m_listeners.emplace_back(m_nextListener, std::move(listener));
        return m_nextListener++;
    }
    void removeListener(ListenerId id) {
        std::lock_guard lock(m_listenersMutex);
        std::erase_if(m_listeners, [id](const auto& l) { return l.first == id; });
    }

protected:
    // Implementations call this after the change, outside their own locks.
    void notifyChanged() const {
        std::lock_guard lock(m_listenersMutex);
        for (const auto& l : m_listeners)
            l.second();
    }

private:
    mutable std::mutex m_listenersMutex;
    std::vector<std::pair<ListenerId, std::function<void()>>> m_listeners;
    ListenerId m_nextListener = 1;
};

} // namespace ft::model
