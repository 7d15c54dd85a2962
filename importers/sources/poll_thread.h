#pragma once
// PollThread: the thread of a source that polls (Slurm, Alertmanager, the push to Alertmanager).
// start() runs `setup` on the new thread, which returns the poll; the poll runs at once and then
// every `interval` until stop(), or sooner after pollSoon(). What the poll holds (an HTTP
// client, a name index) is made and destroyed on the thread itself. The owner calls start()
// and stop(); pollSoon() from any thread.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace ft::importers {

class PollThread {
public:
    using Poll = std::function<void()>;
    PollThread() = default;
    ~PollThread() { stop(); }
    PollThread(const PollThread&) = delete;
    PollThread& operator=(const PollThread&) = delete;

    // Does nothing while one runs.
    void start(std::chrono::milliseconds interval, std::function<Poll()> setup);
    void stop();
    void pollSoon();

private:
    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false; // guarded by m_mutex
    bool m_soon = false;     // guarded by m_mutex
};

} // namespace ft::importers
