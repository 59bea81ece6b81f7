#include "app/commands/main_job_command.h"

#include <cstdio>
#include <string>

#include "app/commands/run_command.h"
#include "app/window/window_app.h"
#include "gl/window_context.h"
#include "parallel/ranks.h"

namespace nbody {

CommandFiles mainJobFiles(const MainJobOptions& options) {
  CommandFiles files = windowFiles(options.window);
  const CommandFiles bench = benchFiles(options.bench);
  files.outputs.insert(files.outputs.end(), bench.outputs.begin(), bench.outputs.end());
  return files;
}

int runMainJob(const MainJobOptions& options) {
  std::string why;
  // Distributed, rank 0's display decides for every rank, and a window that does not open is a
  // failure of the run (the other ranks are following it already).
  if (ranks().distributed()) {
    if (ranks().maximum(ranks().leader() && gl::displayNamed(&why)))
      return runWindow(options.window);
    return runBench(options.bench);
  }
  if (gl::displayNamed(&why)) {
    try {
      return runWindow(options.window);
    } catch (const gl::WindowUnavailable& e) {
      why = e.what();
    }
  }
  std::fprintf(stderr, "nbody: no window (%s); running the headless benchmark instead\n",
               why.c_str());
  return runBench(options.bench);
}

}  // namespace nbody
