#pragma once
// An incident report from a replay's bookmarks: a Markdown file and one PNG per bookmark, each
// rendered at the bookmarked moment from the bookmarked camera, with the note, the alarms that
// stood then (one line per cause) and the events of the minute before. For handing an
// investigation on: what was seen, when, and what the floor said. Needs a QApplication and an
// OpenGL 3.2 context (X or xvfb-run).
#include "session.h"

#include <expected>
#include <string>

namespace ft::app {

struct ReportResult {
    std::string markdown; // the report's path
    int moments = 0;      // bookmarks rendered
};

// `session` must be a replay. Writes DIR/report.md and DIR/moment-NN.png.
std::expected<ReportResult, std::string>
writeIncidentReport(Session& session, const std::string& dir, int width = 1280, int height = 720);

} // namespace ft::app
