#include "engines/engine.h"

#include <stdexcept>

namespace nbody {

std::pair<std::string, std::string> parseEngineSetting(const std::string& text) {
  const auto equals = text.find('=');
  if (equals == std::string::npos) throw UsageError("expected NAME=VALUE, got " + text);
  return {text.substr(0, equals), text.substr(equals + 1)};
}

void Engine::setOption(const std::string& name, const std::string&) {
  std::string known;
  for (const EngineOption& option : options()) known += (known.empty() ? "" : ", ") + option.name;
  throw UsageError("the " + this->name() + " engine has no option " + name +
                   (known.empty() ? "" : " (it has " + known + ")"));
}

EngineSettings Engine::settings() const {
  EngineSettings current;
  for (const EngineOption& option : options()) current[option.name] = option.value;
  return current;
}

std::string Engine::variant() const {
  std::string text;
  for (const EngineOption& option : options())
    text += (text.empty() ? "" : " ") + option.name + "=" + option.value;
  return text.empty() ? "-" : text;
}

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

void applySettings(Engine& engine, const EngineSettings& settings) {
  for (const auto& [name, value] : settings) engine.setOption(name, value);
}

int integerChoice(const EngineOption& option) { return std::stoi(option.value); }

std::optional<int> integerOrAuto(const EngineOption& option) {
  if (option.value == "auto") return std::nullopt;
  return integerChoice(option);
}

}  // namespace nbody
