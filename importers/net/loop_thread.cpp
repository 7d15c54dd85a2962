// The sources' threads: a Qt event loop on a thread of its own (LoopThread) that runs behind the
// window (a nice value above the UI's), declared in http_client.h.
#include "http_client.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QThread>
#include <QTimer>
#include <condition_variable>
#include <mutex>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace ft::importers {

void runBehindTheWindow() {
#ifdef __linux__
    thread_local bool lowered = false;
    if (lowered) return;
    lowered = true;
    // A nice value is the thread's own on Linux (its id, not the process's, is the target).
    constexpr int kBehind = 10;
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), kBehind);
#endif
}

LoopThread::LoopThread(std::string name) : m_name(std::move(name)) {}

LoopThread::~LoopThread() {
    stop({});
}

void LoopThread::start(std::function<void()> setup) {
    if (m_thread) return;
    m_thread = std::make_unique<QThread>();
    m_thread->setObjectName(QString::fromStdString(m_name));
    m_context = std::make_unique<QObject>();
    m_context->moveToThread(m_thread.get());
    // Queued before the loop starts: it is the loop's first event.
    QMetaObject::invokeMethod(
        m_context.get(),
        [setup = std::move(setup)] {
            runBehindTheWindow(); // before the setup makes the client and Qt's HTTP thread
            if (setup) setup();
        },
        Qt::QueuedConnection);
    m_thread->start();
}

void LoopThread::stop(std::function<void()> teardown) {
    if (!m_thread) return;
    // The handshake is plain std:: synchronisation on purpose: what teardown did is then visibly
    // ordered before the owner goes on to destroy things (ThreadSanitizer cannot see through
    // Qt's own futex-based waits).
    std::mutex mutex;
    std::condition_variable cv;
    bool done = false;
    QMetaObject::invokeMethod(
        m_context.get(),
        [&, teardown = std::move(teardown)] {
            if (teardown) teardown();
            {
                std::lock_guard lock(mutex);
                done = true;
            }
            cv.notify_one();
            QThread::currentThread()->quit();
        },
        Qt::QueuedConnection);
    bool handshook = false;
    {
        // Without a QCoreApplication (stopped after it was destroyed) the queued call is never
        // delivered: give up after a while instead of hanging the process on exit.
        std::unique_lock lock(mutex);
        handshook = cv.wait_for(lock, std::chrono::seconds(5), [&] { return done; });
    }
    if (!handshook) {
        m_thread->quit();
        if (!m_thread->wait(QDeadlineTimer(2000))) {
            // The loop is wedged: leak the thread rather than block shutdown.
            (void)m_context.release();
            (void)m_thread.release();
            return;
        }
    }
    m_thread->wait();
    // The loop has ended: nothing on the thread touches the context any more.
    m_context.reset();
    m_thread.reset();
}

void LoopThread::post(std::function<void()> fn) {
    if (!m_context) return;
    QMetaObject::invokeMethod(m_context.get(), std::move(fn), Qt::QueuedConnection);
}

} // namespace ft::importers
