// floortwin: the demo (no arguments), a floor viewer, a recorder and replayer, a screenshot tool
// and a headless runner. main() only reads the command line; the Launcher runs it.
#include "command_line.h"
#include "launcher.h"
#include "views/layer_registry.h"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    auto options = ft::app::parseCommandLine({argv + 1, argv + argc}, ft::views::layerIds());
    if (!options) {
        std::cerr << "floortwin: " << options.error() << "\n";
        return 2;
    }
    return ft::app::Launcher(std::move(*options), argc, argv).run();
}
