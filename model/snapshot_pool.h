#pragma once
// SnapshotPool: recycles snapshot buffers. A published snapshot returns here when its last
// reader drops it, so steady-state publishing allocates no per-entity storage. take() and
// wrap() from the publishing thread; the release may happen on any thread (the mutex orders
// a reader's release before the publisher's reuse).
#include "snapshot.h"

#include <memory>
#include <mutex>
#include <vector>

namespace ft::model {

class SnapshotPool : public std::enable_shared_from_this<SnapshotPool> {
public:
    std::unique_ptr<Snapshot> take() {
        std::lock_guard lock(m_mutex);
        if (m_free.empty()) return std::make_unique<Snapshot>();
        auto s = std::move(m_free.back());
        m_free.pop_back();
        return s;
    }
    std::shared_ptr<const Snapshot> wrap(std::unique_ptr<Snapshot> s) {
        std::weak_ptr<SnapshotPool> weak = weak_from_this();
        return {s.release(), [weak](const Snapshot* p) {
                    auto* mutableSnapshot = const_cast<Snapshot*>(p);
                    if (auto pool = weak.lock())
                        pool->give(std::unique_ptr<Snapshot>(mutableSnapshot));
                    else
                        delete mutableSnapshot;
                }};
    }

private:
    void give(std::unique_ptr<Snapshot> s) {
        // A pooled snapshot must not keep the shared per-link block alive: the fabric model
        // rewrites a block only once nobody holds it.
        s->detail.reset();
        // Nor the simulator's renewed columns: their buffers go back to its pool for the ticks
        // to come (a pooled snapshot would keep them until it is published again).
        for (Column& c : s->values)
            if (c.pooled()) c = Column();
        s->events.reset();
        s->lifecycleHistory.reset();
        std::lock_guard lock(m_mutex);
        if (m_free.size() < 8) m_free.push_back(std::move(s));
    }
    std::mutex m_mutex;
    std::vector<std::unique_ptr<Snapshot>> m_free;
};

} // namespace ft::model
