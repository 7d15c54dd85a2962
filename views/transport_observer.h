#pragma once
// TransportObserver: a model::Transport's change notifications (speed, pause, loop; from any
// thread) as a Qt signal on the UI thread. Widgets that show transport state keep one and read
// the state from the transport itself when it fires. Owned by the widget; UI thread only.
#include "model/transport.h"

#include <QObject>

namespace ft::views {

class TransportObserver : public QObject {
    Q_OBJECT
public:
    TransportObserver(model::Transport& transport, QObject* parent);
    ~TransportObserver() override;
    model::Transport& transport() const { return m_transport; }

signals:
    void changed();

private:
    model::Transport& m_transport;
    model::Transport::ListenerId m_listener;
};

} // namespace ft::views
