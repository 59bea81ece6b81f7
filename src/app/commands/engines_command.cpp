#include "app/commands/engines_command.h"

#include <cstdio>

#include "app/run/engine_session.h"
#include "engines/registry.h"
#include "util/comma_list.h"

namespace nbody {
namespace {

// " --set NAME=VALUE" for each setting.
std::string setOptionsText(const EngineSettings& settings) {
  std::string text;
  for (const auto& [name, value] : settings) text += " --set " + name + "=" + value;
  return text;
}

}  // namespace

int runEngines(const EnginesOptions&) {
  std::unique_ptr<gl::HeadlessContext> context;
  for (const EngineEntry& entry : engineRegistry()) {
    std::printf("%-9s %s\n", entry.name.c_str(), entry.description.c_str());
    try {
      EngineSession session = openEngine(entry.name, {}, std::move(context));
      std::printf("          runs on: %s\n", session.engine->device().c_str());
      std::printf("          precision: %s\n",
                  session.engine->doubleState() ? "double" : "float32");
      if (entry.approximate)
        std::printf("          forces: approximate; direct summation with:%s\n",
                    setOptionsText(entry.exactSettings).c_str());
      if (!entry.screenedSettings.empty())
        std::printf("          with --collisions, unless --set says otherwise:%s\n",
                    setOptionsText(entry.screenedSettings).c_str());
      for (const EngineOption& option : session.engine->options()) {
        std::string choices = joined(option.choices, "|");
        if (option.range)
          choices += " or a number from " + formatNumber(option.range->low) + " to " +
                     formatNumber(option.range->high);
        std::printf("          --set %s=%s  (default %s)\n            %s\n", option.name.c_str(),
                    choices.c_str(), option.value.c_str(), option.description.c_str());
      }
      context = std::move(session.context);
    } catch (const std::exception& e) {
      std::printf("          not available here: %s\n", e.what());
    }
  }
  return 0;
}

}  // namespace nbody
