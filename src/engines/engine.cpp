#include "engines/engine.h"

#include <stdexcept>

namespace nbody {

void Engine::setOption(const std::string& name, const std::string&) {
  std::string known;
  for (const EngineOption& option : options()) known += (known.empty() ? "" : ", ") + option.name;
  throw UsageError("the " + this->name() + " engine has no option " + name +
                   (known.empty() ? "" : " (it has " + known + ")"));
}

std::string Engine::variant() const {
  std::string text;
  for (const EngineOption& option : options())
    text += (text.empty() ? "" : " ") + option.name + "=" + option.value;
  return text.empty() ? "-" : text;
}

// Checks `value` against `option`'s choices and stores it; throws naming the choices otherwise.
void chooseOption(EngineOption& option, const std::string& value) {
  for (const std::string& choice : option.choices)
    if (choice == value) {
      option.value = value;
      return;
    }
  std::string choices;
  for (const std::string& choice : option.choices) choices += (choices.empty() ? "" : ", ") + choice;
  throw UsageError(option.name + " " + value + " is not one of " + choices);
}

}  // namespace nbody
