#pragma once
// What an operator may do to the floor's alerting from the twin (--alertmanager-write): make a
// silence and expire one, through the Alertmanager source an alert came from. The app sets it
// when the flag is given; without it the Alerts panel is read-only and says so. The functions
// run their request off the UI thread and call `done` on the UI thread with "" or why not.
#include "model/external_alert.h"

#include <functional>
#include <memory>
#include <string>

namespace ft::views {

struct AlertWriter {
    using Done = std::function<void(const std::string& error)>;
    std::string user; // createdBy, from the OS user unless set
    // `source`: the alert's ExternalAlert::source; "" for every writable Alertmanager.
    std::function<void(const std::string& source,
                       const std::vector<model::SilenceMatcher>& matchers, model::TimeNs duration,
                       const std::string& comment, Done done)>
        silence;
    std::function<void(const std::string& source, const std::string& id, Done done)> expire;
};

void setAlertWriter(std::shared_ptr<const AlertWriter> writer);
std::shared_ptr<const AlertWriter> alertWriter(); // null: read-only

} // namespace ft::views
