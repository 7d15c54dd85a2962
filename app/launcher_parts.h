#pragma once
// What the Launcher's files share (launcher.cpp, launcher_pictures.cpp): not for other code.
#include "command_line.h"

#include <string>

namespace ft::views {
class FloorView;
}

namespace ft::app {

// "floortwin: MESSAGE" on stderr; returns `code` (the exit status).
int fail(const std::string& message, int code = 1);
// This program's peak resident memory, in MiB (VmHWM).
double peakResidentMiB();
// --layers: exactly the layers named show (without it, those the sources feed).
void applyLayers(const Options& o, views::FloorView& view);
// --theme and --palette; `fromSettings`: without them, what was last chosen in the menus.
void applyLook(const Options& o, views::FloorView& view, bool fromSettings);

} // namespace ft::app
