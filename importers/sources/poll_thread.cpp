#include "poll_thread.h"

#include "importers/net/http_client.h"

namespace ft::importers {

void PollThread::start(std::chrono::milliseconds interval, std::function<Poll()> setup) {
    if (m_thread.joinable()) return;
    {
        std::lock_guard lock(m_mutex);
        m_stopping = false;
        m_soon = false;
    }
    m_thread = std::thread([this, interval, setup = std::move(setup)] {
        runBehindTheWindow();
        Poll poll = setup();
        while (true) {
            poll();
            std::unique_lock lock(m_mutex);
            m_wake.wait_for(lock, interval, [this] { return m_stopping || m_soon; });
            if (m_stopping) break;
            m_soon = false;
        }
    });
}

void PollThread::stop() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable()) m_thread.join();
}

void PollThread::pollSoon() {
    {
        std::lock_guard lock(m_mutex);
        m_soon = true;
    }
    m_wake.notify_all();
}

} // namespace ft::importers
