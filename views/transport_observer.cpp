#include "transport_observer.h"

namespace ft::views {

TransportObserver::TransportObserver(model::Transport& transport, QObject* parent)
    : QObject(parent), m_transport(transport) {
    // Queued: the change may come from the replay thread; the signal goes out on ours.
    m_listener = m_transport.addListener([this] {
        QMetaObject::invokeMethod(this, &TransportObserver::changed, Qt::QueuedConnection);
    });
}

TransportObserver::~TransportObserver() {
    m_transport.removeListener(m_listener);
}

} // namespace ft::views
