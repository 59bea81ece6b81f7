#include "app/web/web_options.h"

#include <algorithm>
#include <iterator>
#include <string_view>

#include <CLI/CLI.hpp>

namespace nbody {
namespace {

void addPageOptions(CLI::App& page, WebOptions& options) {
  addWindowOptions(page, options.window);
  page.add_option("--print", options.print,
                  "csv: run --steps steps without drawing and print the initial and the final "
                  "state as CSV into the page")
      ->check(CLI::IsMember({"csv"}));
  addIntegerOption(page, "--steps", options.steps, "steps of the print mode", 0LL, 1LL << 30);
  page.add_option("--switch", options.switchSetting,
                  "the print mode: after half the steps, set this engine option NAME=VALUE as "
                  "the panel does")
      ->check(engineSettingText());
}

// `nbody run`'s options that name files of the visitor's: the page has none.
constexpr std::string_view kFileOptions[] = {"load", "screenshot", "record", "play", "camera-path"};

std::string argumentOf(const CLI::App& page, const UrlParameter& parameter) {
  const auto& [name, value] = parameter;
  if (std::find(std::begin(kFileOptions), std::end(kFileOptions), name) != std::end(kFileOptions))
    throw CLI::ValidationError(name, "the page reads and writes no files (input=FILE fetches one)");
  if (name == "input") return "--load=" + value;
  if (page.get_option_no_throw("--" + name) == nullptr) return "--set=" + name + "=" + value;
  return value.empty() ? "--" + name : "--" + name + "=" + value;
}

}  // namespace

WebOptions parseWebOptions(const std::vector<UrlParameter>& parameters) {
  WebOptions options;
  CLI::App page("the web page of nbody-gl", "nbody");
  addPageOptions(page, options);
  std::vector<std::string> arguments;
  for (const UrlParameter& parameter : parameters) arguments.push_back(argumentOf(page, parameter));
  std::reverse(arguments.begin(), arguments.end());  // CLI11 takes them last first
  try {
    page.parse(arguments);
  } catch (const CLI::CallForHelp&) {
    throw WebHelp{page.help()};
  }
  return options;
}

std::vector<UrlParameter> urlParametersOf(int argc, char** argv) {
  std::vector<UrlParameter> parameters;
  for (int k = 1; k < argc; ++k) {
    const std::string text = argv[k];
    const std::size_t equals = text.find('=');
    parameters.emplace_back(text.substr(0, equals),
                            equals == std::string::npos ? "" : text.substr(equals + 1));
  }
  return parameters;
}

}  // namespace nbody
