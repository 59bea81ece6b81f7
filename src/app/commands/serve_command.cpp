#include "app/commands/serve_command.h"

#include "app/commands/run_command.h"

namespace nbody {

void addServeOptions(CLI::App& command, ServeOptions& options) {
  addWindowOptions(command, options.window);
  ServeSettings& serve = options.serve;
  addIntegerOption(command, "--port", serve.port,
                   "the port to listen on; 0 takes a free one (the address printed says which)", 0,
                   65535);
  command
      .add_option("--ip", serve.ip,
                  "the address to listen on; beyond loopback, anyone who reaches it with the "
                  "token can steer the run (a warning says so)")
      ->capture_default_str();
  command
      .add_option("--token-file", serve.tokenFile,
                  "require the token in this file (22 or more characters of A-Z a-z 0-9 - _) "
                  "instead of a random one made for the run")
      ->check(inputPath());
  command.add_option("--allow-host", serve.allowHosts,
                     "also accept requests for this Host (NAME or NAME:PORT; a proxy's), "
                     "beyond 127.0.0.1, localhost and [::1]");
  command.add_option("--allow-origin", serve.allowOrigins,
                     "also accept viewers from pages of this origin (scheme://name[:port]; a "
                     "notebook's proxy)");
  addIntegerOption(command, "--viewers", serve.mostViewers, "viewers at once, at most", 1, 64);
  addNumberOption(command, "--seconds", serve.seconds,
                  "end the session after this many seconds (for scripts and tests)", positive());
}

CommandFiles serveFiles(const ServeOptions& options) {
  CommandFiles files = windowFiles(options.window);
  if (!options.serve.tokenFile.empty())
    files.inputs.push_back({"--token-file", options.serve.tokenFile});
  return files;
}

int runServe(const ServeOptions& options) {
  ServedFrontEnd* served = nullptr;
  return runSession(
      options.window,
      [&] {
        auto frontEnd = std::make_unique<ServedFrontEnd>(options.window, options.serve);
        served = frontEnd.get();
        return frontEnd;
      },
      [&](const LiveSession& session) { served->publishStatus(session.progress()); });
}

}  // namespace nbody
