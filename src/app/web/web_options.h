#pragma once
// What the web page starts with: its URL's parameters under the command line's names (`nbody
// run`'s options: engine, method, bodies, scene, seed, dt, softening, gravity, ...), an engine's
// options under their own names (unroll, bodies-per-fragment, slices) and `input` for `--load`;
// and the page's own: `print=csv` runs `steps` steps without drawing and prints the initial and
// the final state, as `nbody simulate` writes CSV.

#include <string>
#include <utility>
#include <vector>

#include "app/live/window_options.h"

namespace nbody {

struct WebOptions {
  WindowOptions window;
  std::string print;          // "csv": the print mode; empty: the interactive page
  long long steps = 1;        // the print mode's
  std::string switchSetting;  // the print mode's: NAME=VALUE set after half the steps, as the
                              // panel switches a variant (the state stays)
};

// ?help: what the page takes, as `--help` says it (the names without their dashes are the URL's).
struct WebHelp {
  std::string text;
};

// A URL parameter: name and value as the page's query string has them, decoded.
using UrlParameter = std::pair<std::string, std::string>;

// The parameters as command-line arguments of the page's options: `input` becomes --load, a name
// no option has becomes --set NAME=VALUE (an engine option; the engine refuses one it lacks).
// Throws CLI::ParseError (its message one line) for what the command line would refuse, WebHelp
// for `help`.
WebOptions parseWebOptions(const std::vector<UrlParameter>& parameters);

// "name=value" as main's arguments carry them (the page passes each parameter so).
std::vector<UrlParameter> urlParametersOf(int argc, char** argv);

}  // namespace nbody
