#include "app/window_command.h"

#include "app/window_app.h"

namespace nbody {

CLI::App* addRunCommand(CLI::App& app, WindowOptions& options) {
  CLI::App* command = app.add_subcommand(
      "run", "the interactive window: the simulation live, a panel with its speed and switches");
  addEngineOption(*command, options.engine);
  addMethodOption(*command, options.method);
  addEngineSettingsOption(*command, options.settings);
  addProblemOptions(*command, options.problem, false);
  command
      ->add_option("--load", options.load,
                   "start from this file: an nbody snapshot (.nbody: its N, step, time and seed; "
                   "its method, dt, softening and G unless given), CSV or TIPSY (N only)")
      ->check(CLI::ExistingFile)
      ->excludes(command->get_option("--scene"))
      ->excludes(command->get_option("--bodies"))
      ->excludes(command->get_option("--eccentricity"));
  addStepOptions(*command, options.step);
  command->add_option("--steps-per-frame", options.stepsPerFrame,
                      "steps between two pictures, or auto (as many as fill the frame, so the "
                      "figures match nbody bench)")
      ->check([](const std::string& text) -> std::string {
        if (text == "auto") return {};
        try {
          std::size_t used = 0;
          const int steps = std::stoi(text, &used);
          if (used == text.size() && steps >= 1 && steps <= 100000) return {};
        } catch (const std::exception&) {
        }
        return "expected auto or a whole number from 1 to 100000, got " + text;
      })
      ->capture_default_str();
  addRenderOptions(*command, options.render);
  command->add_option("--width", options.width, "window width")->check(CLI::Range(64, 16384))->capture_default_str();
  command->add_option("--height", options.height, "window height")->check(CLI::Range(64, 16384))->capture_default_str();
  command->add_flag("--no-vsync", options.noVsync, "do not wait for the display's refresh");
  command->add_flag("--hide-panel", options.hidePanel, "start with the panel hidden (H shows it)");
  command->add_option("--frames", options.frames, "quit after this many frames (for scripts and tests)")
      ->check(CLI::Range(1LL, 1LL << 40));
  command->add_option("--screenshot", options.screenshot, "write the last frame to this PNG file");
  command->add_option("--record", options.record,
                      "film the window from the first frame into this MP4 file (as the Record button "
                      "does, with the panel unless --hide-panel), completed when the window closes");
  command->add_flag("--print-stats", options.printStats,
                    "print the panel's figures (iterations/s, GFLOPS, ...) to stdout on quitting");
  command->callback([command, &options] { options.given = givenSettingsOf(*command); });
  return command;
}

int runWindow(const WindowOptions& options) { return runWindowApp(options); }

}  // namespace nbody
