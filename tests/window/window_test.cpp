// The interactive window as a user starts it, under Xvfb on whatever GL the machine has (llvmpipe
// in CI): a few frames at N = 1024, the last one written to a PNG, and the panel's figures
// printed (conservation plots included); a run started from a snapshot. No display server
// (xvfb-run missing) is a failure, not a skip.

#include <algorithm>
#include <chrono>
#include <fstream>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "io/png.h"
#include "support/cli_runner.h"
#include "support/video_reader.h"

namespace nbody {
namespace {

using test::ScratchFolder;

struct Box {
  int x0, y0, x1, y1;  // [x0, x1) x [y0, y1)
};

// Mean of R + G + B over the box, 0..765.
double meanLight(const Image& image, Box box) {
  double sum = 0;
  for (int y = box.y0; y < box.y1; ++y)
    for (int x = box.x0; x < box.x1; ++x) {
      const auto* p = image.pixel(x, y);
      sum += p[0] + p[1] + p[2];
    }
  return sum / double((box.x1 - box.x0) * (box.y1 - box.y0));
}

std::size_t colourCount(const Image& image, Box box) {
  std::set<std::uint32_t> colours;
  for (int y = box.y0; y < box.y1; ++y)
    for (int x = box.x0; x < box.x1; ++x) {
      const auto* p = image.pixel(x, y);
      colours.insert(std::uint32_t(p[0]) << 16 | std::uint32_t(p[1]) << 8 | p[2]);
    }
  return colours.size();
}

// The share of the box's pixels that are nearly white (the panel's text).
double brightShare(const Image& image, Box box) {
  std::size_t bright = 0;
  for (int y = box.y0; y < box.y1; ++y)
    for (int x = box.x0; x < box.x1; ++x) {
      const auto* p = image.pixel(x, y);
      bright += std::min({p[0], p[1], p[2]}) > 200;
    }
  return double(bright) / double((box.x1 - box.x0) * (box.y1 - box.y0));
}

// xvfb-run on a free display with a SCREEN ("WIDTHxHEIGHT") screen, before a command. Its authority
// file lies in the scratch folder: the temporary folder xvfb-run makes otherwise now and then fails
// its removal under load, and xvfb-run then exits 5 whatever the command returned.
std::string underXvfb(const ScratchFolder& scratch, const std::string& screen) {
  return "xvfb-run -a -f " + (scratch / "Xauthority").string() + " -s \"-screen 0 " + screen +
         "x24\" ";
}

// `nbody run ARGUMENTS` under Xvfb in a SCREEN screen (started by `launcher`, e.g. mpiexec, where
// one is given); what it printed to stdout.
std::string runWindow(const ScratchFolder& scratch, const std::string& arguments,
                      const std::string& launcher = "", const std::string& screen = "1280x800") {
  const auto out = scratch / "stdout.txt", err = scratch / "stderr.txt";
  const std::string command = underXvfb(scratch, screen) + launcher +
                              std::string(NBODY_EXECUTABLE) + " run " + arguments +
                              " --print-stats >" + out.string() + " 2>" + err.string();
  const int status = std::system(command.c_str());
  const std::string printed = test::readWholeFile(out), complaints = test::readWholeFile(err);
  EXPECT_EQ(status, 0) << printed << complaints;
  return printed;
}

// mpiexec of `ranks` ranks, oversubscribed, each on one llvmpipe thread.
std::string mpiexecOf(int ranks) {
  return "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
         "OMPI_MCA_rmaps_base_oversubscribe=1 LP_NUM_THREADS=1 " NBODY_MPIEXEC
         " " NBODY_MPIEXEC_NUMPROC_FLAG " " +
         std::to_string(ranks) + " " NBODY_MPIEXEC_PREFLAGS " ";
}

void requireXvfb() {
  ASSERT_EQ(std::system("command -v xvfb-run >/dev/null 2>&1"), 0)
      << "xvfb-run is missing: install xvfb (tools/setup.sh) to test the window";
}

TEST(Window, ShowsTheBodiesAndThePanelAndCountsIterations) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window");
  const auto png = scratch / "window.png";
  const std::string printed = runWindow(
      scratch, "--bodies 1024 --frames 60 --width 1280 --height 800 --screenshot " + png.string());
  ASSERT_FALSE(HasFailure());

  // The panel's figures: iterations/s above zero, GFLOPS too.
  std::smatch match;
  ASSERT_TRUE(
      std::regex_search(printed, match, std::regex(R"(iterations/s ([0-9.]+), GFLOPS ([0-9.]+))")))
      << printed;
  EXPECT_GT(std::stod(match[1]), 0.0) << printed;
  EXPECT_GT(std::stod(match[2]), 0.0) << printed;
  EXPECT_NE(printed.find("frames 60"), std::string::npos) << printed;
  // The conservation plots were fed: the history measures every quarter of a second, and 60 frames
  // last over one even where a frame is fast (20 ms on the H200 through Xvfb; 20 frames there
  // sometimes ended before the first sample).
  const std::regex conservation(R"(conservation: ([0-9]+) samples.*\|dE/E0\| ([0-9.e+-]+))");
  ASSERT_TRUE(std::regex_search(printed, match, conservation)) << printed;
  EXPECT_GE(std::stoi(match[1]), 1) << printed;
  EXPECT_GT(std::stod(match[2]), 0.0) << printed;
  EXPECT_LT(std::stod(match[2]), 1.0) << printed;  // relative to E0: not some absolute figure

  const Image image = readPng(png);
  ASSERT_EQ(image.width, 1280);
  ASSERT_EQ(image.height, 800);
  // The camera fits the cluster in the middle of the window: bright there, dark at the edges right
  // of the panel (the panel sits at the top left, the conservation plots at the bottom right).
  const double centre = meanLight(image, {590, 350, 690, 450});
  const double edge = meanLight(image, {1180, 0, 1280, 500});
  EXPECT_GT(centre, 40.0) << "no bodies at the centre of the window";
  EXPECT_GT(centre, 8.0 * edge + 10.0) << "centre " << centre << ", right edge " << edge;
  EXPECT_GT(colourCount(image, {400, 0, 1280, 800}), 20u) << "the bodies are all one colour";
  // The panel: a blue title bar over its top, and text (many colours) in it.
  const auto* title = image.pixel(200, 19);
  EXPECT_GT(int(title[2]), int(title[0]) + 30) << "no panel title bar at the top left";
  EXPECT_GT(brightShare(image, {10, 30, 380, 140}), 0.02) << "no text in the panel";
  // The conservation window at the bottom right: text (E0, the latest values) and plots.
  EXPECT_GT(brightShare(image, {880, 600, 1270, 790}), 0.01)
      << "no conservation plots at the bottom right";
}

// The part of `image` at the top left of the given size.
Image cropped(const Image& image, int width, int height) {
  Image part(width, height);
  for (int y = 0; y < height; ++y)
    std::copy_n(image.pixel(0, y), std::size_t(width) * 4, part.pixel(0, y));
  return part;
}

// An odd-sized window films at the even size below it; the movie's last picture is the window's.
// The pixels of `image` inside `box`.
Image partOf(const Image& image, const Box& box) {
  Image part(box.x1 - box.x0, box.y1 - box.y0);
  for (int y = box.y0; y < box.y1; ++y)
    std::copy_n(image.pixel(box.x0, y), std::size_t(part.width) * 4, part.pixel(0, y - box.y0));
  return part;
}

TEST(Window, RecordsWhatTheWindowShowsWithOrWithoutThePanel) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-record");
  for (const bool withPanel : {true, false}) {
    const auto movie = scratch / "movie.mp4", png = scratch / "last.png";
    const auto began = std::chrono::steady_clock::now();
    runWindow(
        scratch,
        std::string("--bodies 1024 --frames 12 --width 641 --height 401 --trails 0.02 --record ") +
            movie.string() + " --screenshot " + png.string() + (withPanel ? "" : " --hide-panel"));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    ASSERT_FALSE(HasFailure());
    const std::string said = test::readWholeFile(scratch / "stderr.txt");
    EXPECT_NE(said.find("run: recording: wrote " + movie.string() + " ("), std::string::npos)
        << said;
    const test::DecodedMovie decoded = test::decodeMovie(movie);
    EXPECT_EQ(decoded.codec, "h264");
    EXPECT_EQ(decoded.width, 640);
    EXPECT_EQ(decoded.height, 400);
    EXPECT_LE(decoded.framesPerSecond, 60.0) << "a picture every 60th of a second at most";
    // The movie's clock is the window's: it plays for as long as the window says it does (from its
    // first picture's 60th of a second to its last's, to 0.05 s and a frame), which is no longer
    // than the filming took. (A picture a 60th of a second whatever the clock would make 12 frames
    // 0.2 s where llvmpipe films for over a second.)
    std::smatch wrote;
    ASSERT_TRUE(std::regex_search(
        said, wrote,
        std::regex(
            R"(recording: wrote .* \(([0-9]+) frames, ([0-9.]+) s long, filmed over ([0-9.]+) s\))")))
        << said;
    const double plays = std::stod(wrote[2]), filmed = std::stod(wrote[3]);
    EXPECT_NEAR(decoded.durationSeconds, plays, 0.05 + 1.0 / 60.0) << said;
    EXPECT_LE(plays, filmed + 0.05) << said;
    EXPECT_LT(decoded.durationSeconds, seconds)
        << "the movie lasts longer than the run that filmed it";
    ASSERT_GE(decoded.frames.size(), 2u);
    EXPECT_LE(decoded.frames.size(), 12u) << "at most a picture a frame";
    const Image& last = decoded.frames.back();
    const Image window = cropped(readPng(png), 640, 400);
    const Box bodies{300, 80, 640, 250};  // right of the panel, above the conservation plots
    const auto part = [&](const Image& image) { return partOf(image, bodies); };
    // The movie films a picture a 60th of a second at most, and the window's last frame always
    // (before that was so, a GPU drawing faster left it out: 29.5 dB on the H100 with trails, and
    // once less than 25 on the H200, against 35 and more on llvmpipe, which films every frame).
    EXPECT_GE(test::psnr(part(last), part(window)), 25.0)
        << "the last picture filmed is the window's, of its last frames";
    const auto* title = last.pixel(200, 19);
    EXPECT_EQ(int(title[2]) > int(title[0]) + 30, withPanel)
        << "the panel's title bar is filmed only with the panel";
    // Without the panel, the window says it is recording (top right); the movie does not show it.
    if (!withPanel) {
      const Box badge{560, 10, 630, 30};
      EXPECT_GT(meanLight(window, badge), meanLight(last, badge) + 20.0)
          << "REC in the window, not in the movie";
    }
  }
}

// run --overlays: the clock and the colour bar are in the window's picture, so in its screenshot
// and in the movie it films too; without, those parts of the picture stay dark. (The cells are
// drawn too: the window counts them from a readback.)
TEST(Window, PaintsItsOverlaysIntoScreenshotsAndMovies) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-overlays");
  const Box clock{220, 0, 420, 24},
      bar{600, 110, 630, 290};  // top middle; right edge, 30% to 70% down
  for (const bool overlays : {true, false}) {
    const auto movie = scratch / "movie.mp4", png = scratch / "last.png";
    runWindow(scratch,
              "--bodies 1024 --frames 6 --steps-per-frame 1 --hide-panel --width 640 --height 400 "
              "--camera 0,0,40 --record " +
                  movie.string() + " --screenshot " + png.string() +
                  (overlays ? " --overlays clock,colorbar,cells" : ""));
    ASSERT_FALSE(HasFailure());
    const Image window = cropped(readPng(png), 640, 400);
    const test::DecodedMovie decoded = test::decodeMovie(movie);
    ASSERT_FALSE(decoded.frames.empty());
    for (const Image* picture : {&window, &decoded.frames.back()}) {
      const char* which = picture == &window ? "screenshot" : "movie";
      EXPECT_EQ(brightShare(*picture, clock) > 0.02, overlays) << which << ": the clock's text";
      EXPECT_EQ(colourCount(*picture, bar) > 40, overlays)
          << which << ": the colour bar's gradient";
    }
  }
}

// run --show density: the picture is the projected density, its range fitted to the first picture:
// the middle of the cluster bright and, unlike sprites, no dark gaps between bodies around it.
TEST(Window, ShowsTheProjectedDensity) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-density");
  const Box middle{175, 125, 225, 175};
  const auto darkShare = [&](const Image& image) {
    int dark = 0;
    for (int y = middle.y0; y < middle.y1; ++y)
      for (int x = middle.x0; x < middle.x1; ++x)
        dark += meanLight(image, {x, y, x + 1, y + 1}) < 30.0;
    return double(dark) / double((middle.x1 - middle.x0) * (middle.y1 - middle.y0));
  };
  for (const bool density : {true, false}) {
    const auto png = scratch / "picture.png";
    runWindow(scratch,
              "--bodies 4096 --frames 3 --steps-per-frame 1 --hide-panel --width 400 --height 300 "
              "--point-size 2 --screenshot " +
                  png.string() + (density ? " --show density" : ""));
    ASSERT_FALSE(HasFailure());
    const Image window = cropped(readPng(png), 400, 300);
    EXPECT_GT(meanLight(window, {195, 145, 205, 155}), 600.0)
        << "the dense middle near the top of fire";
    if (density)
      EXPECT_LT(darkShare(window), 0.01) << "a continuous density about the middle";
    else
      EXPECT_GT(darkShare(window), 0.05) << "sprites leave gaps";
  }
}

// run --select: the picked bodies are ringed in the picture (cyan, a colour no sprite of fire
// has); with --follow the camera aims at them, so the one picked body's ring sits in the middle.
TEST(Window, RingsThePickedBodiesAndFollowsThem) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-select");
  const auto cyanShare = [](const Image& image, Box box) {
    int cyan = 0;
    for (int y = box.y0; y < box.y1; ++y)
      for (int x = box.x0; x < box.x1; ++x) {
        const auto* p = image.pixel(x, y);
        cyan += p[2] > 180 && p[1] > 150 && p[0] < 150;
      }
    return double(cyan) / double((box.x1 - box.x0) * (box.y1 - box.y0));
  };
  const std::string run =
      "--bodies 1024 --frames 4 --steps-per-frame 1 --hide-panel --width 400 --height 300 ";
  for (const std::string& select : {std::string(""), std::string("--select 700 --follow")}) {
    const auto png = scratch / "picked.png";
    runWindow(scratch, run + select + " --screenshot " + png.string());
    ASSERT_FALSE(HasFailure());
    const Image window = cropped(readPng(png), 400, 300);
    const Box ring{185, 135, 215, 165};  // 7-pixel ring about the middle
    if (select.empty())
      EXPECT_EQ(cyanShare(window, {0, 0, 400, 300}), 0.0) << "nothing picked, no ring";
    else
      EXPECT_GT(cyanShare(window, ring), 0.03) << "body 700's ring, the camera on it";
  }
}

// run --histogram radius: the histogram window at the top right, its bars in Dear ImGui's plot
// colour (a yellow no sprite far from the middle has), only with the option.
TEST(Window, ShowsAHistogramWindowAtTheTopRight) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-histogram");
  const Box topRight{330, 0, 640, 180};
  for (const bool histogram : {true, false}) {
    const auto png = scratch / "histogram.png";
    runWindow(scratch, std::string("--bodies 1024 --frames 3 --steps-per-frame 1 --width 640 "
                                   "--height 400 --camera 0,0,40 ") +
                           (histogram ? "--histogram radius " : "") + "--screenshot " +
                           png.string());
    ASSERT_FALSE(HasFailure());
    const Image window = cropped(readPng(png), 640, 400);
    int bars = 0;
    for (int y = topRight.y0; y < topRight.y1; ++y)
      for (int x = topRight.x0; x < topRight.x1; ++x) {
        const auto* p = window.pixel(x, y);
        bars += p[0] > 200 && p[1] > 140 && p[1] < 200 && p[2] < 40;
      }
    EXPECT_EQ(bars > 100, histogram) << bars << " pixels of the plot's yellow";
  }
}

// run --color-by energy --histogram density: the colours and the histogram each measure their own
// quantity through the window's BodyField (a tree of its own) while the run goes on; both show, and
// the bodies' colours are not those by speed.
TEST(Window, ColoursByEnergyWhileCountingTheDensity) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-energy");
  std::vector<Image> pictures;
  for (const char* colour : {"energy", "speed"}) {
    const auto png = scratch / (std::string(colour) + ".png");
    runWindow(
        scratch,
        "--bodies 2048 --frames 4 --steps-per-frame 1 --width 1280 --height 800 --camera 0,0,6 "
        "--color-by " +
            std::string(colour) + " --histogram density --screenshot " + png.string());
    ASSERT_FALSE(HasFailure());
    pictures.push_back(cropped(readPng(png), 1280, 800));
  }
  int bars = 0, lit = 0, recoloured = 0;
  for (int y = 0; y < 180; ++y)  // the histogram window at the top right
    for (int x = 960; x < 1280; ++x) {
      const auto* p = pictures[0].pixel(x, y);
      bars += p[0] > 200 && p[1] > 140 && p[1] < 200 && p[2] < 40;
    }
  // The cluster in the middle, clear of the panel, the histogram and the conservation window even
  // once its plots have grown (a 640 x 400 window had them cover the bodies on a slow machine).
  for (int y = 180; y < 580; ++y)
    for (int x = 420; x < 840; ++x) {
      const auto *energy = pictures[0].pixel(x, y), *speed = pictures[1].pixel(x, y);
      lit += energy[1] > 40;
      recoloured +=
          std::abs(int(energy[0]) - int(speed[0])) + std::abs(int(energy[1]) - int(speed[1])) > 40;
    }
  EXPECT_GT(bars, 100) << "the density's histogram";
  EXPECT_GT(lit, 100) << "the bodies, coloured by energy";
  EXPECT_GT(recoloured, lit / 4) << "colours of their own, not the speed's (" << lit << " lit)";
}

// One click of every switch the panel gained as a viewer of runs, at every other frame.
const char* const kEveryViewerClick =
    R"(# the series: paused, played to its end, a snapshot back and forward, opened again
1 nbody-gl > Pause (Space)
3 nbody-gl > Play (Space)
5 nbody-gl > ##back
7 nbody-gl > ##forward
9 nbody-gl > Open series
# what the bodies show and how
11 nbody-gl > density
13 nbody-gl > fitted
15 nbody-gl > sprites
17 nbody-gl > by speed
19 nbody-gl > by mass
21 nbody-gl > by component
23 nbody-gl > by radius
25 nbody-gl > by lz
27 nbody-gl > by energy
29 nbody-gl > by density
31 nbody-gl > log
33 nbody-gl > components
35 nbody-gl > components > #1 > ##shown
37 nbody-gl > auto range
39 nbody-gl > colorbar
41 nbody-gl > axes
43 nbody-gl > scale
45 nbody-gl > clock
47 nbody-gl > cells
49 nbody-gl > histogram
51 histogram > ##quantity
53 ##Combo_00 > density
55 histogram > log
# the picked bodies
57 nbody-gl > Centre on them
59 nbody-gl > follow
61 nbody-gl > Clear##selection
# a camera path
63 nbody-gl > Camera path
65 nbody-gl > Add keyframe (K)
67 nbody-gl > Add keyframe (K)
69 nbody-gl > #0 > x
71 nbody-gl > Play path
73 nbody-gl > Stop path
75 nbody-gl > Clear##path
77 nbody-gl > Add keyframe (K)
# the snapshot shown runs on
79 nbody-gl > Continue simulating from here
)";

// Every switch the panel gained as a viewer of runs, driven once by NBODY_PANEL_CLICKS (each click
// activates the widget itself, as Enter on it would) under NBODY_GL_DEBUG: a series played, paused,
// stepped and opened again; sprites, density and every colour quantity; a component hidden; every
// overlay; the histogram's quantity and scale; the picked bodies centred on, followed and let go; a
// camera path built and played; the snapshot shown simulated on. No GL error, every click taken,
// and the view ends as the clicks left it.
TEST(Window, EveryPanelSwitchIsDrivenOnceWithoutAGlError) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-clicks");
  std::filesystem::create_directories(scratch / "series");
  ASSERT_EQ(
      test::runNbody(
          "simulate --scene galaxies --bodies 512 --dt 0.01 --steps 40 --snapshot-every 10 -q "
          "--snapshot-path " +
              (scratch / "series" / "step-{step}.nbody").string() + " -o " +
              (scratch / "final.nbody").string(),
          scratch)
          .exitCode,
      0);
  std::ofstream(scratch / "clicks.txt") << kEveryViewerClick;
  const std::string environment =
      "env NBODY_GL_DEBUG=1 NBODY_PANEL_CLICKS=" + (scratch / "clicks.txt").string() + " ";
  const std::string printed =
      runWindow(scratch,
                "--play '" + (scratch / "series" / "step-*.nbody").string() +
                    "' --play-rate 1e6 --select 5,6 --frames 84 --steps-per-frame 1",
                environment);
  ASSERT_FALSE(HasFailure());
  const std::string complaints = test::readWholeFile(scratch / "stderr.txt");
  EXPECT_EQ(complaints.find("GL error"), std::string::npos) << complaints;
  EXPECT_EQ(complaints.find("GL: "), std::string::npos) << complaints;
  EXPECT_NE(printed.find("run: panel clicks: 40 of 40 taken"), std::string::npos) << printed;
  EXPECT_NE(
      printed.find(
          "run: view: sprites, colour by density log, range set, hidden components 1, overlays "
          "colorbar,axes,scale,clock,cells, histogram of density log, selected 0 followed, "
          "camera keyframes 1"),
      std::string::npos)
      << printed;
  EXPECT_NE(
      complaints.find("continuing from " + (scratch / "series" / "step-000000040.nbody").string()),
      std::string::npos)
      << complaints;
  EXPECT_EQ(printed.find("series at snapshot"), std::string::npos) << printed;  // a live run now
}

// A click that no widget takes ends the run with one line that says which.
TEST(Window, AClickNoWidgetTakesEndsTheRunWithOneLine) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-bad-click");
  const std::string environment =
      "env NBODY_GL_DEBUG=1 NBODY_PANEL_CLICKS=" + (scratch / "clicks.txt").string() + " ";
  std::ofstream(scratch / "clicks.txt") << "2 nbody-gl > no such switch\n";
  const auto result = test::runNbody("run --bodies 256 --frames 4", scratch,
                                     underXvfb(scratch, "640x400") + environment);
  EXPECT_EQ(result.exitCode, 1) << result.err;
  EXPECT_NE(result.err.find("panel click at frame 2: no widget took \"nbody-gl > no such switch\""),
            std::string::npos)
      << result.err;
}

// `mpiexec -n 3 nbody run`: rank 0's window shows what one process's window shows, the other
// ranks computing their shares on their own contexts (a picture of the same bits).
TEST(Window, UnderMpiexecShowsWhatOneProcessShows) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-ranks");
  std::ofstream(scratch / "path.txt")
      << "0 60 30 7\n";  // read by every rank alike (one keyframe: no timing)
  const std::string run =
      "--engine tree --bodies 3001 --frames 6 --steps-per-frame 2 --hide-panel --width 320 "
      "--height 240 --camera-path " +
      (scratch / "path.txt").string() + " --screenshot ";
  runWindow(scratch, run + (scratch / "one.png").string());
  const std::string launcher = mpiexecOf(3);
  const std::string printed = runWindow(scratch, run + (scratch / "three.png").string(), launcher);
  EXPECT_NE(printed.find("frames 6, steps 12"), std::string::npos) << printed;
  EXPECT_TRUE(test::readWholeFile(scratch / "three.png") ==
              test::readWholeFile(scratch / "one.png"));
  // The panel's split: every rank's own line under one heading.
  EXPECT_NE(printed.find(
                "run: 3 ranks, exchange through shared window; ms a step (force | down, MPI, up):"),
            std::string::npos)
      << printed;
  for (const int rank : {0, 1, 2})
    EXPECT_NE(printed.find("run: rank " + std::to_string(rank) + " ("), std::string::npos)
        << rank << printed;
  // The decomposed tree: each rank holds and draws its own bodies, the light added across them.
  const std::string apart = "--set distribute=decompose " + run + (scratch / "two.png").string();
  runWindow(scratch, apart, mpiexecOf(2));
  EXPECT_NE(test::readWholeFile(scratch / "stderr.txt")
                .find("N = 3001; each rank draws its own bodies, composited"),
            std::string::npos);
  EXPECT_TRUE(test::readWholeFile(scratch / "two.png") == test::readWholeFile(scratch / "one.png"));
}

// `run --load` of a snapshot in 3 part files under 2 ranks of the decomposed tree: each rank
// reads its share of the files (app/run/snapshot_share.h: a damaged file is named by the one rank
// that read it, and the window ends in one line) and the window shows one process's picture from
// every file, bit for bit, after a Reset too (each rank's part uploaded again) and the panel's Load
// of it (read a share a rank again); where the engine holds no parts (the replicated tree) the
// files are read whole instead, at the start and by Load.
TEST(Window, FromAPartSnapshotUnderMpiexecEachRankReadsItsShare) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-part-input");
  const auto at = [&](const std::string& name) { return (scratch / name).string(); };
  const test::CommandResult parts = test::runNbody(
      "simulate -q --engine tree --set distribute=decompose --scene galaxies --bodies 3001 "
      "--steps 1 --snapshot-files ranks -o " +
          at("part.hdf5"),
      scratch, mpiexecOf(3));
  ASSERT_EQ(parts.exitCode, 0) << parts.err;
  std::ofstream(scratch / "clicks.txt")
      << "2 nbody-gl > Reset (R)\n3 nbody-gl > Load snapshot\n4 nbody-gl > Hide (H)\n";
  const std::string environment = "env NBODY_PANEL_CLICKS=" + at("clicks.txt") + " ";
  const std::string view = "--frames 6 --steps-per-frame 1 --width 320 --height 240 --screenshot ";
  const std::string run = "--engine tree --set distribute=decompose " + view;
  runWindow(scratch, run + at("one.png") + " --load " + at("part.0.hdf5"), environment);
  // What one process's Load said after the file's name (N, step, method): the ranks' to say too.
  const std::string oneSaid = test::readWholeFile(scratch / "stderr.txt");
  const std::size_t loadedAt = oneSaid.find("run: loaded " + at("part.0.hdf5") + ": N = 3001");
  ASSERT_NE(loadedAt, std::string::npos) << oneSaid;
  const std::size_t figuresAt = oneSaid.find(':', loadedAt + 5);
  const std::string loaded = oneSaid.substr(figuresAt, oneSaid.find('\n', figuresAt) - figuresAt);
  const std::string printed = runWindow(
      scratch, run + at("two.png") + " --load " + at("part.2.hdf5"), environment + mpiexecOf(2));
  EXPECT_NE(printed.find("run: panel clicks: 3 of 3 taken"), std::string::npos) << printed;
  const std::string said = test::readWholeFile(scratch / "stderr.txt");
  EXPECT_NE(said.find("N = 3001; each rank draws its own bodies, composited"), std::string::npos);
  EXPECT_NE(said.find("run: loaded " + at("part.2.hdf5") + loaded +
                      ", each rank reading its share of the files\n"),
            std::string::npos)
      << said;
  EXPECT_TRUE(test::readWholeFile(scratch / "two.png") == test::readWholeFile(scratch / "one.png"));
  // The replicated tree holds no parts: the share read is given up and the files read whole.
  runWindow(scratch,
            "--engine tree --set distribute=replicate " + view + at("whole.png") + " --load " +
                at("part.1.hdf5"),
            environment + mpiexecOf(2));
  EXPECT_NE(test::readWholeFile(scratch / "stderr.txt")
                .find("run: loaded " + at("part.1.hdf5") + loaded + "\n"),
            std::string::npos);
  EXPECT_TRUE(test::readWholeFile(scratch / "whole.png") ==
              test::readWholeFile(scratch / "one.png"));
  // Files 0 and 1 are rank 0's share, file 2 rank 1's: its damage is rank 1's alone to find.
  std::filesystem::create_directories(scratch / "damaged");
  for (const std::string file : {"part.0.hdf5", "part.1.hdf5", "part.2.hdf5"}) {
    const std::string bytes = test::readWholeFile(scratch / file);
    std::ofstream(scratch / "damaged" / file, std::ios::binary)
        << (file == "part.2.hdf5" ? bytes.substr(0, 3000) : bytes);
  }
  const test::CommandResult failed =
      test::runNbody("run " + run + at("failed.png") + " --load " + at("damaged/part.0.hdf5"),
                     scratch, underXvfb(scratch, "640x400") + mpiexecOf(2));
  EXPECT_NE(failed.exitCode, 0);
  EXPECT_NE(failed.err.find("rank 1 of 2 ("), std::string::npos) << failed.err;
  EXPECT_NE(failed.err.find("part.2.hdf5: HDF5"), std::string::npos) << failed.err;
  EXPECT_FALSE(std::filesystem::exists(scratch / "failed.png"));
}

// While the ranks of a decomposed tree hold the bodies apart, the panel's switches that need
// every body in one place are turned back, saying so, and the rest work from the parts (the
// histogram counts every rank's bodies): driven under NBODY_GL_DEBUG in a screen tall enough for
// the panel with its ranks' lines.
TEST(Window, WithTheBodiesApartTurnsBackWhatNeedsThemAll) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-apart");
  std::ofstream(scratch / "clicks.txt") << "1 nbody-gl > density\n3 nbody-gl > by energy\n"
                                           "5 nbody-gl > cells\n7 nbody-gl > histogram\n"
                                           "9 nbody-gl > by radius\n11 nbody-gl > Fit camera\n"
                                           "13 nbody-gl > Reset (R)\n";
  const std::string launcher =
      "env NBODY_GL_DEBUG=1 NBODY_PANEL_CLICKS=" + (scratch / "clicks.txt").string() + " " +
      mpiexecOf(2);
  const std::string printed =
      runWindow(scratch,
                "--engine tree --set distribute=decompose --bodies 1500 --frames 18 "
                "--steps-per-frame 1 --width 1280 --height 1500",
                launcher, "1280x1600");
  const std::string complaints = test::readWholeFile(scratch / "stderr.txt");
  EXPECT_EQ(complaints.find("GL error"), std::string::npos) << complaints;
  EXPECT_EQ(complaints.find("GL: "), std::string::npos) << complaints;
  EXPECT_NE(printed.find("run: panel clicks: 7 of 7 taken"), std::string::npos) << printed;
  EXPECT_NE(printed.find("run: view: sprites, colour by radius linear, range auto, hidden "
                         "components none, overlays none, histogram of radius linear"),
            std::string::npos)
      << printed;
  // The histogram counted every rank's bodies: each once, in a bin or beyond.
  std::smatch counted;
  ASSERT_TRUE(std::regex_search(printed, counted,
                                std::regex("histogram at step [0-9]+: ([0-9]+) bodies in 48 bins "
                                           "from [^ ]+ to [^ ]+, ([0-9]+) beyond")))
      << printed;
  EXPECT_EQ(std::stol(counted[1]) + std::stol(counted[2]), 1500) << printed;
}

// The panel's Save while 2 ranks of the decomposed tree hold the bodies apart writes a GADGET HDF5
// file a rank (app/run/snapshot_parts.h) of the state one process's Save writes whole: read back by
// one process, the same bytes; its Load then reads the parts a share a rank, and the window goes on
// to one process's picture.
TEST(Window, SavesInPartsWhileTheRanksHoldTheBodiesApart) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-save-parts");
  std::ofstream(scratch / "clicks.txt")
      << "2 nbody-gl > Save snapshot\n4 nbody-gl > Load snapshot\n5 nbody-gl > Hide (H)\n";
  const std::string run =
      "--engine tree --set distribute=decompose --scene galaxies --bodies 3001 --frames 7 "
      "--steps-per-frame 1 --width 320 --height 240 --screenshot ";
  // Each run in a folder of its own, where its Save writes; what it said of the save and the load.
  const auto runIn = [&](const std::string& folder, const std::string& ranks) {
    std::filesystem::create_directories(scratch / folder);
    runWindow(scratch, run + (scratch / (folder + ".png")).string(),
              "env -C " + (scratch / folder).string() +
                  " NBODY_PANEL_CLICKS=" + (scratch / "clicks.txt").string() + " " + ranks);
    return test::readWholeFile(scratch / "stderr.txt");
  };
  const std::string oneSaid = runIn("one", ""), twoSaid = runIn("two", mpiexecOf(2));
  std::smatch one, two;
  ASSERT_TRUE(std::regex_search(
      oneSaid, one, std::regex("run: snapshot: wrote ([^ ]+[.]nbody) at step ([0-9]+)")))
      << oneSaid;
  ASSERT_TRUE(std::regex_search(
      twoSaid, two,
      std::regex("run: snapshot: wrote ([^ ]+)[.]hdf5 in 2 parts, a GADGET HDF5 file a rank "
                 "\\(([^ ]+[.]0[.]hdf5) [.][.][.]\\), at step ([0-9]+)")))
      << twoSaid;
  EXPECT_EQ(two[3], one[2]);
  EXPECT_EQ(two[2], two[1].str() + ".0.hdf5");
  EXPECT_TRUE(std::filesystem::equivalent(std::filesystem::path(two[1].str()).parent_path(),
                                          scratch / "two"));
  EXPECT_TRUE(std::filesystem::exists(two[1].str() + ".1.hdf5"));
  EXPECT_NE(twoSaid.find("run: loaded " + two[2].str() + ": N = 3001"), std::string::npos);
  EXPECT_NE(twoSaid.find(", each rank reading its share of the files"), std::string::npos);
  // Both read back by one process: the same state.
  for (const auto& [saved, csv] : {std::pair{one[1].str(), "one.csv"}, {two[2].str(), "two.csv"}})
    ASSERT_EQ(
        test::runNbody("simulate -q --steps 0 --input " + saved + " -o " + (scratch / csv).string(),
                       scratch)
            .exitCode,
        0);
  EXPECT_TRUE(test::readWholeFile(scratch / "two.csv") == test::readWholeFile(scratch / "one.csv"));
  EXPECT_TRUE(test::readWholeFile(scratch / "two.png") == test::readWholeFile(scratch / "one.png"));
  EXPECT_EQ(test::temporaryFilesIn(scratch / "two"), std::vector<std::string>{});
}

// Under `distribute=auto` 2 ranks keep 3001 bodies apart where one GPU cannot hold them
// replicated (the largest texture lowered to 54 x 54 texels, 2916 bodies), and a smaller N chosen
// in the panel starts over replicated without gathering the state it replaces (which past the
// largest texture is refused): the ranks draw one process's picture of it. Checked by mutation:
// gathering turned back on before the new scene's upload refuses it (the run stays at 3001).
TEST(Window, UnderAutoASmallerNAfterOnePastTheLargestTextureStartsOver) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-auto-smaller");
  std::ofstream(scratch / "clicks.txt")
      << "2 nbody-gl > N\n4 ##Combo_00 > 1024\n6 nbody-gl > Hide (H)\n";
  const std::string run =
      "--engine tree --scene galaxies --bodies 3001 --frames 9 --steps-per-frame 1 --width 1280 "
      "--height 800 --screenshot ";  // a lower window clips the N combo's list
  const std::string clicks = "env NBODY_PANEL_CLICKS=" + (scratch / "clicks.txt").string() + " ";
  runWindow(scratch, run + (scratch / "one.png").string(), clicks);
  const std::string printed = runWindow(scratch, run + (scratch / "two.png").string(),
                                        clicks + "NBODY_LARGEST_TEXTURE=54 " + mpiexecOf(2));
  const std::string said = test::readWholeFile(scratch / "stderr.txt");
  EXPECT_NE(printed.find("run: panel clicks: 3 of 3 taken"), std::string::npos) << printed;
  EXPECT_NE(said.find("N = 3001; each rank draws its own bodies, composited"), std::string::npos)
      << said;
  EXPECT_NE(printed.find(", N = 1024, "), std::string::npos) << printed << said;
  EXPECT_TRUE(test::readWholeFile(scratch / "two.png") == test::readWholeFile(scratch / "one.png"));
}

// A cluster on a circular orbit in a moving external potential: 3 ranks draw one process's picture
// (the potential reaches them with each frame's order), which is not the picture without the
// potential; the panel shows it without a GL error.
TEST(Window, InAPotentialUnderMpiexecShowsWhatOneProcessShows) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-potential");
  std::ofstream(scratch / "path.txt") << "0 60 30 7\n";
  const std::string run =
      "--engine tree --bodies 3001 --orbit-radius 1 --orbit-speed 1 --frames 6 "
      "--steps-per-frame 2 --dt 0.01 --hide-panel --width 320 --height 240 --camera-path " +
      (scratch / "path.txt").string();
  const std::string potential = " --potential 'mw2014+point:mass=0.05,circle=1.5;0.8;0.3'";
  runWindow(scratch, run + potential + " --screenshot " + (scratch / "one.png").string());
  runWindow(scratch, run + " --screenshot " + (scratch / "none.png").string());
  const std::string launcher = mpiexecOf(3);
  const std::string printed = runWindow(
      scratch, run + potential + " --screenshot " + (scratch / "three.png").string(), launcher);
  EXPECT_NE(printed.find("frames 6, steps 12"), std::string::npos) << printed;
  EXPECT_TRUE(test::readWholeFile(scratch / "three.png") ==
              test::readWholeFile(scratch / "one.png"));
  EXPECT_FALSE(test::readWholeFile(scratch / "none.png") ==
               test::readWholeFile(scratch / "one.png"));
  runWindow(scratch, "--engine fragment --bodies 256 --frames 3 --potential mw2014");
}

TEST(Window, StartsFromASnapshotWithItsStepAndSettings) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-load");
  const auto snapshot = scratch / "start.nbody";
  ASSERT_EQ(
      test::runNbody("simulate --scene disk --bodies 300 --method rk2 --dt 0.002 --steps 3 -q -o " +
                         snapshot.string(),
                     scratch)
          .exitCode,
      0);
  // One step a frame: the run goes on from the snapshot's step 3 to step 3 + 5.
  const std::string printed =
      runWindow(scratch, "--load " + snapshot.string() + " --frames 5 --steps-per-frame 1");
  EXPECT_NE(printed.find(", rk2, N = 300,"), std::string::npos) << printed;
  EXPECT_NE(printed.find("frames 5, steps 8,"), std::string::npos) << printed;
  // A method given on the command line wins over the snapshot's, as in simulate --input.
  const std::string given =
      runWindow(scratch, "--load " + snapshot.string() + " --frames 1 --method rk4");
  EXPECT_NE(given.find(", rk4, N = 300,"), std::string::npos) << given;
  // One frame measures no rate: it says so instead of printing zeros.
  EXPECT_NE(given.find("rates n/a"), std::string::npos) << given;
  EXPECT_EQ(given.find("iterations/s"), std::string::npos) << given;
}

// SIGINT ends the window at the next frame: exit 130, one line, and the --screenshot it had not
// written yet is not left behind half-written or as a temporary file.
TEST(Window, SigintEndsItLeavingNoScreenshot) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-sigint");
  const auto png = scratch / "never.png", err = scratch / "stderr.txt", code = scratch / "code.txt";
  // The shell waits for the window's first line (it is set up and drawing), then interrupts it
  // ($ escaped from the outer shell that xvfb-run's command line goes through).
  const std::string script = std::string(NBODY_EXECUTABLE) +
                             " run --engine cpu --bodies 256 --frames 1000000 " + "--screenshot " +
                             png.string() + " 2>" + err.string() + " & pid=\\$!; " +
                             "until grep -q '^run: ' " + err.string() + "; do sleep 0.05; done; " +
                             "kill -INT \\$pid; wait \\$pid; echo \\$? >" + code.string();
  ASSERT_EQ(std::system((underXvfb(scratch, "640x480") + "sh -c \"" + script + "\"").c_str()), 0);
  const std::string complaints = test::readWholeFile(err);
  EXPECT_EQ(test::readWholeFile(code), "130\n") << complaints;
  EXPECT_NE(complaints.find("nbody: stopped by SIGINT after frame "), std::string::npos)
      << complaints;
  EXPECT_NE(complaints.find(png.string() + " was not written"), std::string::npos) << complaints;
  EXPECT_FALSE(std::filesystem::exists(png));
  EXPECT_EQ(test::temporaryFilesIn(scratch.path()), std::vector<std::string>{});
}

// The X server goes away mid-run (Xvfb stopped, an ssh connection lost) with a screenshot and a
// recording pending: Xlib's own handler ended nbody with exit 1 and their temporary files left.
// It ends as SIGHUP would, at once: 129, one line, nothing left.
TEST(Window, TheXServerGoingAwayEndsItAsAHangUpLeavingNothing) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-x-gone");
  const auto err = scratch / "stderr.txt", code = scratch / "code.txt";
  // Under xvfb-run the X server and this script are the children of one process: once the window
  // draws, the script ends the server (waiting 20 s at most for either).
  std::ofstream(scratch / "x.sh") << NBODY_EXECUTABLE
                                  << " run --engine cpu --bodies 256 --frames 1000000 --screenshot "
                                  << (scratch / "w.png").string() << " --record "
                                  << (scratch / "m.mp4").string() << " 2>" << err.string()
                                  << " & pid=$!\n"
                                  << "i=0; until grep -q '^run: ' " << err.string()
                                  << " || ! kill -0 $pid 2>/dev/null || [ $i -ge 400 ]; do "
                                  << "sleep 0.05; i=$((i + 1)); done\n"
                                  << "sleep 0.5; pkill -x -P $PPID Xvfb\n"
                                  << "i=0; while kill -0 $pid 2>/dev/null && [ $i -lt 400 ]; do "
                                     "sleep 0.05; i=$((i + 1)); done\n"
                                  << "kill -KILL $pid 2>/dev/null; wait $pid; echo $? >"
                                  << code.string() << "\n";
  std::system((underXvfb(scratch, "640x480") + "sh " + (scratch / "x.sh").string()).c_str());
  const std::string complaints = test::readWholeFile(err);
  EXPECT_EQ(test::readWholeFile(code), "129\n") << complaints;
  EXPECT_NE(complaints.find(
                "nbody: stopped at once: the connection to the X server was lost (as by SIGHUP); "
                "unfinished outputs removed"),
            std::string::npos)
      << complaints;
  EXPECT_FALSE(std::filesystem::exists(scratch / "w.png"));
  EXPECT_FALSE(std::filesystem::exists(scratch / "m.mp4"));
  EXPECT_EQ(test::temporaryFilesIn(scratch.path()), std::vector<std::string>{});
}

// Under mpiexec rank 0 reads the panel-click script alone (the others run no panel): rank 1 used
// to take its broadcast for a frame order and die asking for 7769 PiB.
TEST(Window, PanelClicksUnderMpiexecAreRankZerosAlone) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-ranks-clicks");
  std::ofstream(scratch / "clicks.txt") << "2 nbody-gl > Pause (Space)\n";
  const std::string launcher =
      "env NBODY_PANEL_CLICKS=" + (scratch / "clicks.txt").string() + " " + mpiexecOf(2);
  const std::string printed =
      runWindow(scratch, "--bodies 1024 --frames 6 --width 320 --height 240", launcher);
  EXPECT_NE(printed.find("run: panel clicks: 1 of 1 taken"), std::string::npos)
      << printed << test::readWholeFile(scratch / "stderr.txt");
}

TEST(Window, ADamagedSnapshotToStartFromFailsWithOneLine) {
  ScratchFolder scratch("window-load-damaged");
  const auto snapshot = scratch / "start.nbody";
  ASSERT_EQ(
      test::runNbody("simulate --bodies 64 --steps 1 -q -o " + snapshot.string(), scratch).exitCode,
      0);
  std::filesystem::resize_file(snapshot, std::filesystem::file_size(snapshot) - 8);
  // It is read before the window opens: no display needed to say what is wrong with it.
  const auto result = test::runNbody("run --load " + snapshot.string(), scratch,
                                     "env -u DISPLAY -u WAYLAND_DISPLAY");
  EXPECT_EQ(result.exitCode, 1) << result.err;
  EXPECT_EQ(test::lineCount(result.err), 1u) << result.err;
  EXPECT_NE(result.err.find("start.nbody: truncated"), std::string::npos) << result.err;
}

// The two front-ends of one session: the window under Xvfb and `nbody serve`'s offscreen picture
// (no display) draw the same picture for the same options, within the golden pictures' threshold
// (tests/goldens). Paused, so that both show the first state; the panel hidden, since its figures
// (frame times) differ from run to run; every overlay on, so that Dear ImGui's drawing is compared.
TEST(Window, AndServeDrawTheSamePicture) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-and-serve");
  const std::string same =
      " --bodies 2048 --scene disk --paused --hide-panel --overlays all "
      "--frames 3 --width 640 --height 400 --screenshot ";
  const auto window = scratch / "window.png", served = scratch / "served.png";
  runWindow(scratch, same + window.string());
  const std::string serve = std::string(NBODY_EXECUTABLE) + " serve --port 0" + same +
                            served.string() + " >" + (scratch / "serve.txt").string() + " 2>&1";
  ASSERT_EQ(std::system(serve.c_str()), 0) << test::readWholeFile(scratch / "serve.txt");
  const std::string compare = std::string(NBODY_EXECUTABLE) + " compare --max-delta 2 " +
                              window.string() + " " + served.string() + " >" +
                              (scratch / "compare.txt").string() + " 2>&1";
  EXPECT_EQ(std::system(compare.c_str()), 0) << test::readWholeFile(scratch / "compare.txt");
  EXPECT_GT(meanLight(readPng(served), {220, 100, 420, 300}), 10.0) << "no bodies served";
}

TEST(Window, RunWithoutADisplayFailsWithOneLine) {
  ScratchFolder scratch("window-no-display");
  const auto result =
      test::runNbody("run --bodies 64 --frames 1", scratch, "env -u DISPLAY -u WAYLAND_DISPLAY");
  EXPECT_EQ(result.exitCode, 1) << result.err;
  EXPECT_EQ(test::lineCount(result.err), 1u) << result.err;
  EXPECT_NE(result.err.find("nbody: error:"), std::string::npos) << result.err;
}

TEST(Window, NoCommandWithoutADisplayRunsTheBenchmarkAndSaysWhy) {
  ScratchFolder scratch("window-fallback");
  const auto result = test::runNbody("", scratch, "env -u DISPLAY -u WAYLAND_DISPLAY");
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.err.find(
                "nbody: no window (DISPLAY and WAYLAND_DISPLAY are unset); running the headless "
                "benchmark instead\n"),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.out.find("GFLOPS"), std::string::npos) << result.out;
}

// `run --play`: at a rate no frame keeps up with, each frame shows the next snapshot and playing
// stops at the last. The series' last picture is what a series of its first and last files shows
// at its end (camera and colours fitted to the same first snapshot), and differs from what a
// series of the first file alone shows.
TEST(Window, PlaysASeriesOfSnapshotsThroughToItsLast) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-play");
  const auto file = [&](const std::string& folder, const std::string& step) {
    return scratch / folder / ("step-" + step + ".nbody");
  };
  for (const char* folder : {"all", "ends", "first"})
    std::filesystem::create_directories(scratch / folder);
  ASSERT_EQ(test::runNbody(
                "simulate --scene disk --bodies 400 --dt 0.01 --steps 60 --snapshot-every 20 -q "
                "--snapshot-path " +
                    file("all", "{step}").string() + " -o " + (scratch / "final.nbody").string(),
                scratch)
                .exitCode,
            0);
  for (const auto& [folder, step] :
       {std::pair{"ends", "000000020"}, {"ends", "000000060"}, {"first", "000000020"}})
    std::filesystem::copy_file(file("all", step), file(folder, step));
  const auto play = [&](const std::string& folder, int frames) {
    const auto png = scratch / (folder + ".png");
    const std::string printed =
        runWindow(scratch, "--play '" + file(folder, "*").string() + "' --frames " +
                               std::to_string(frames) + " --play-rate 1e6 --hide-panel " +
                               "--width 320 --height 240 --screenshot " + png.string());
    return std::pair{printed, test::readWholeFile(png)};
  };
  const auto [printed, last] = play("all", 6);
  EXPECT_NE(printed.find("run: series at snapshot 3 of 3, " + file("all", "000000060").string()),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("frames 6, steps 60,"), std::string::npos)
      << printed;  // the snapshot's step
  EXPECT_FALSE(last.empty());
  EXPECT_TRUE(last == play("ends", 3).second);
  EXPECT_FALSE(last == play("first", 3).second);
}

// run --camera-path: the window's camera follows the path (here one keyframe, where it holds):
// the picture is the one --camera draws from the same direction and distance, not the default's.
TEST(Window, FollowsACameraPath) {
  ASSERT_NO_FATAL_FAILURE(requireXvfb());
  ScratchFolder scratch("window-path");
  std::ofstream(scratch / "path.txt") << "# seconds yaw pitch distance\n0 120 10 12\n";
  const std::string run =
      "--bodies 1024 --frames 2 --steps-per-frame 1 --hide-panel --width 320 --height 240 ";
  runWindow(scratch, run + "--camera-path " + (scratch / "path.txt").string() + " --screenshot " +
                         (scratch / "path.png").string());
  runWindow(scratch, run + "--camera 120,10,12 --screenshot " + (scratch / "camera.png").string());
  runWindow(scratch, run + "--screenshot " + (scratch / "default.png").string());
  const std::string onPath = test::readWholeFile(scratch / "path.png");
  EXPECT_FALSE(onPath.empty());
  EXPECT_TRUE(onPath == test::readWholeFile(scratch / "camera.png"));
  EXPECT_FALSE(onPath == test::readWholeFile(scratch / "default.png"));
}

TEST(Window, APlayPatternThatCannotPlayFailsWithOneLineBeforeTheWindow) {
  ScratchFolder scratch("window-play-bad");
  const std::string noDisplay = "env -u DISPLAY -u WAYLAND_DISPLAY";
  const std::string pattern = (scratch / "none-*.nbody").string();
  auto result = test::runNbody("run --play '" + pattern + "'", scratch, noDisplay);
  EXPECT_EQ(result.exitCode, 2) << result.err;
  EXPECT_EQ(test::lineCount(result.err), 1u) << result.err;
  EXPECT_NE(result.err.find("no snapshot file matches " + pattern), std::string::npos)
      << result.err;
  ASSERT_EQ(
      test::runNbody("simulate --bodies 64 --steps 1 -q -o " + (scratch / "start.nbody").string(),
                     scratch)
          .exitCode,
      0);
  result =
      test::runNbody("run --play '" + pattern + "' --load " + (scratch / "start.nbody").string(),
                     scratch, noDisplay);
  EXPECT_EQ(result.exitCode, 2) << result.err;
  EXPECT_NE(result.err.find("--load excludes --play"), std::string::npos) << result.err;
  result = test::runNbody("run --play-rate 5", scratch, noDisplay);
  EXPECT_EQ(result.exitCode, 2) << result.err;
  EXPECT_NE(result.err.find("--play-rate requires --play"), std::string::npos) << result.err;
  // A damaged first file: there is nothing to show, and the loader says what is wrong with it.
  std::filesystem::copy_file(scratch / "start.nbody", scratch / "none-1.nbody");
  std::filesystem::resize_file(scratch / "none-1.nbody", 20);
  result = test::runNbody("run --play '" + pattern + "'", scratch, noDisplay);
  EXPECT_EQ(result.exitCode, 1) << result.err;
  EXPECT_EQ(test::lineCount(result.err), 1u) << result.err;
  EXPECT_NE(result.err.find("none-1.nbody: truncated"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace nbody
