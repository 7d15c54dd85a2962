#pragma once
// --alertmanager-write: the views' AlertWriter (views/layers/alerts/alert_writer.h), so the
// Alerts panel can make and expire silences through the Alertmanager each alert came from. The
// requests run on a thread of their own; their answers come back on the UI thread. Without the
// flag nothing is installed and the panel stays read-only.
#include "command_line.h"

namespace ft::app {

void installAlertWriter(const Options& o);

} // namespace ft::app
