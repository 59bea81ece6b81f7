// Every number on the command line is checked, by construction: the test walks every option of
// every command (app/commands/command_line.h) and holds each numeric one to the one validator it
// must be registered through (addNumberOption, addIntegerOption in app/run/run_options.h). An
// option added with a bare add_option shows CLI11's own type name (FLOAT, INT, UINT) and fails
// here.

#include <gtest/gtest.h>

#include <sstream>

#include "app/commands/command_line.h"
#include "app/commands/simulate_command.h"

namespace nbody {
namespace {

struct Parsed {
  int exitCode = -1;  // -1: parsed, a command to run
  std::string err;
};

// Parses `words` (after "nbody") as main does.
Parsed parse(std::vector<std::string> words) {
  words.insert(words.begin(), "nbody");
  std::vector<const char*> argv;
  for (const std::string& word : words) argv.push_back(word.c_str());
  CommandLine line;
  std::ostringstream out, err;
  const auto parsed = parseCommandLine(line, int(argv.size()), argv.data(), out, err);
  return {std::holds_alternative<int>(parsed) ? std::get<int>(parsed) : -1, err.str()};
}

struct NumericOption {
  std::string command, name, type;
};

std::vector<NumericOption> numericOptions() {
  CommandLine line;
  std::vector<NumericOption> found;
  for (const CLI::App* command : line.app.get_subcommands([](const CLI::App*) { return true; }))
    for (const CLI::Option* option : command->get_options()) {
      const std::string type = option->get_type_name();
      for (const char* numeric : {"NUMBER", "INTEGER", "FLOAT", "INT", "UINT"})
        if (type.rfind(numeric, 0) == 0 && type.substr(0, type.find(':')) == numeric)
          found.push_back({command->get_name(), option->get_name(), numeric});
    }
  return found;
}

// What a command needs besides the option under test to parse at all (compare's two pictures).
std::vector<std::string> commandWith(const NumericOption& option, const std::string& value) {
  std::vector<std::string> words{option.command};
  if (option.command == "compare")
    words.insert(words.end(), {NBODY_SOURCE_DIR "/README.md", NBODY_SOURCE_DIR "/README.md"});
  words.insert(words.end(), {option.name, value});
  return words;
}

TEST(Options, EveryNumericOptionGoesThroughTheOneValidator) {
  const std::vector<NumericOption> options = numericOptions();
  EXPECT_GE(options.size(), 40u) << "the walk found too few options to be walking them all";
  for (const NumericOption& option : options)
    EXPECT_TRUE(option.type == "NUMBER" || option.type == "INTEGER")
        << option.command << " " << option.name << " is registered with CLI11's own " << option.type
        << ": use addNumberOption or addIntegerOption";
}

TEST(Options, NoFloatingPointOptionTakesANonFiniteNumber) {
  for (const NumericOption& option : numericOptions()) {
    if (option.type != "NUMBER") continue;
    for (const std::string bad :
         {"nan", "-nan", "NaN", "inf", "-inf", "infinity", "1e999", "-1e999", "0x1p3", "", "1,5"}) {
      const Parsed parsed = parse(commandWith(option, bad));
      EXPECT_EQ(parsed.exitCode, 2) << option.command << " " << option.name << " " << bad;
      EXPECT_NE(parsed.err.find(option.name), std::string::npos) << parsed.err;
      EXPECT_EQ(std::count(parsed.err.begin(), parsed.err.end(), '\n'), 1) << parsed.err;
    }
  }
}

TEST(Options, NoIntegerOptionWrapsOrTakesWhatIsNotAWholeNumber) {
  for (const NumericOption& option : numericOptions()) {
    if (option.type != "INTEGER") continue;
    for (const std::string bad :
         {"-1", "99999999999999999999999", "1e3", "1.5", "0x10", "nan", "", "12abc"}) {
      const Parsed parsed =
          parse(commandWith(option, bad));  // -1: none takes it, and --seed must not wrap
      EXPECT_EQ(parsed.exitCode, 2) << option.command << " " << option.name << " " << bad;
      EXPECT_NE(parsed.err.find(option.name), std::string::npos) << parsed.err;
    }
  }
}

TEST(Options, TheValueStoredIsTheValueChecked) {
  CommandLine line;
  const char* argv[] = {"nbody", "simulate", "--softening",          "1e-50",          "--dt",
                        "+0.25", "--seed",   "18446744073709551615", "--eccentricity", "0.99"};
  std::ostringstream out, err;
  ASSERT_FALSE(std::holds_alternative<int>(parseCommandLine(line, 10, argv, out, err)))
      << err.str();
  const SimulateOptions& simulate = line.options<SimulateOptions>("simulate");
  EXPECT_EQ(simulate.run.choice.step.softening, 1e-50);
  EXPECT_EQ(simulate.run.choice.step.dt, 0.25);
  EXPECT_EQ(simulate.run.choice.scene.options.seed, 18446744073709551615u);
  EXPECT_EQ(simulate.run.choice.scene.options.eccentricity, 0.99);
  EXPECT_TRUE(simulate.run.given.dt);
  EXPECT_TRUE(simulate.run.given.softening);
  EXPECT_FALSE(simulate.run.given.gravity);
  // A float option: a number below float32's range is its nearest float32, 0, and so not > 0.
  EXPECT_EQ(parse({"shot", "--point-size", "1e-50"}).exitCode, 2);
  EXPECT_EQ(parse({"shot", "--point-size", "1e39"}).exitCode, 2) << "beyond float32";
}

TEST(Options, OutputPathsMustNameAFile) {
  for (const std::vector<std::string>& words : std::vector<std::vector<std::string>>{
           {"simulate", "-o", ""},
           {"simulate", "--diagnostics", ""},
           {"simulate", "-o", "folder/"},
           {"bench", "--json", ""},
           {"bench", "--csv", "x/"},
           {"shot", "-o", ""},
           {"run", "--screenshot", ""},
           {"compare", NBODY_SOURCE_DIR "/README.md", NBODY_SOURCE_DIR "/README.md", "--diff", ""},
           {"simulate", "--snapshot-every", "5", "--snapshot-path", "{step}/"}}) {
    const Parsed parsed = parse(words);
    EXPECT_EQ(parsed.exitCode, 2) << words[0] << " " << words[1];
  }
}

TEST(Options, OneGivenTwiceSaysSo) {
  const Parsed parsed = parse({"simulate", "--dt", "1", "--dt", "2"});
  EXPECT_EQ(parsed.exitCode, 2);
  EXPECT_NE(parsed.err.find("--dt: given 2 times; give it once"), std::string::npos) << parsed.err;
}

// Messages are one line whatever was typed: a newline or an escape sequence in an argument is
// shown as \xNN.
TEST(Options, UsageErrorsAreOneLineWhateverWasTyped) {
  const Parsed parsed = parse({"simulate", "--engine", "cpu\n\x1b[31mred"});
  EXPECT_EQ(parsed.exitCode, 2);
  EXPECT_EQ(std::count(parsed.err.begin(), parsed.err.end(), '\n'), 1) << parsed.err;
  EXPECT_EQ(parsed.err.find('\x1b'), std::string::npos) << parsed.err;
}

}  // namespace
}  // namespace nbody
