#pragma once
// The web page's print mode (print=csv), for tests: `steps` steps of the scene or input without
// drawing, on the same LiveSimulation the panel steers, and the text the page shows: the renderer,
// then the initial and the final state, each as `nbody simulate` writes CSV (with its header), and
// the wall time of the steps and the final state's readback (a browser's glFinish need not wait
// for the GPU; the readback must).

#include <string>

#include "app/web/web_options.h"
#include "gl/context_info.h"

namespace nbody {

std::string printRun(const WebOptions& options, const gl::ContextInfo& context);

}  // namespace nbody
