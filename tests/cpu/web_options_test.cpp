// The web page's URL parameters (app/web/web_options.h) reach the same settings as the command
// line's options of the same names.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include "app/web/web_options.h"

namespace nbody {
namespace {

TEST(WebOptions, ParametersTakeTheCommandLinesNamesAndEngineOptionsTheirOwn) {
  const WebOptions options = parseWebOptions({{"bodies", "4099"},
                                              {"method", "rk4"},
                                              {"scene", "disk"},
                                              {"seed", "7"},
                                              {"dt", "0.002"},
                                              {"unroll", "4x4"},
                                              {"bodies-per-fragment", "2"},
                                              {"print", "csv"},
                                              {"steps", "3"},
                                              {"paused", ""}});
  const RunChoice& run = options.window.run.choice;
  EXPECT_EQ(run.scene.options.bodyCount, 4099u);
  EXPECT_EQ(run.method, "rk4");
  EXPECT_EQ(run.scene.name, "disk");
  EXPECT_EQ(run.scene.options.seed, 7u);
  EXPECT_EQ(run.step.dt, 0.002);
  EXPECT_EQ(run.engineSettings.at("unroll"), "4x4");
  EXPECT_EQ(run.engineSettings.at("bodies-per-fragment"), "2");
  EXPECT_EQ(options.print, "csv");
  EXPECT_EQ(options.steps, 3);
  EXPECT_TRUE(options.window.paused);
}

TEST(WebOptions, WhatTheCommandLineRefusesTheUrlDoesToo) {
  for (const UrlParameter& bad : std::vector<UrlParameter>{{"bodies", "many"},
                                                           {"method", "verlet-ish"},
                                                           {"dt", "-1"},
                                                           {"print", "png"},
                                                           {"switch", "unroll"}})
    EXPECT_THROW(parseWebOptions({bad}), CLI::ParseError) << bad.first << "=" << bad.second;
}

TEST(WebOptions, HelpSaysWhatThePageTakes) {
  try {
    parseWebOptions({{"help", ""}});
    FAIL() << "no help";
  } catch (const WebHelp& help) {
    for (const char* name : {"--bodies", "--method", "--print", "--steps", "--switch", "--set"})
      EXPECT_NE(help.text.find(name), std::string::npos) << name;
  }
}

TEST(WebOptions, MainsArgumentsSplitAtTheFirstEquals) {
  const char* arguments[] = {"nbody", "switch=unroll=2x2", "paused"};
  const std::vector<UrlParameter> parameters = urlParametersOf(3, const_cast<char**>(arguments));
  ASSERT_EQ(parameters.size(), 2u);
  EXPECT_EQ(parameters[0], (UrlParameter{"switch", "unroll=2x2"}));
  EXPECT_EQ(parameters[1], (UrlParameter{"paused", ""}));
}

}  // namespace
}  // namespace nbody
