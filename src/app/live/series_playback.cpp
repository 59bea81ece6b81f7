#include "app/live/series_playback.h"

#include <exception>
#include <utility>

#include "engines/engine.h"
#include "parallel/ranks.h"

namespace nbody {

SeriesPlayback::SeriesPlayback(const std::string& pattern, double rate, bool waitForReads)
    : waitForReads_(waitForReads) {
  auto player = std::make_unique<SeriesPlayer>(listPlayedSeries(pattern));
  player->setRate(rate);
  player->waitForReads(waitForReads);
  player->play();
  player_ = std::move(player);
}

SeriesPlayback::Outcome SeriesPlayback::follow(AppSettings& settings, LiveSimulation& simulation,
                                               double seconds) {
  Outcome outcome = carryOutRequests(settings);
  if (!player_) return outcome;
  if (const std::optional<Snapshot> due = player_->advance(seconds)) {
    std::string why = show(settings, simulation, *due);
    outcome.shown = why.empty();
    if (!why.empty()) outcome.message = std::move(why);
  }
  return outcome;
}

// The panel's requests, then what they leave: the requests cleared, the pattern and rate kept.
SeriesPlayback::Outcome SeriesPlayback::carryOutRequests(AppSettings& settings) {
  Outcome outcome = settings.series.open ? openRequested(settings) : Outcome{};
  if (player_) steer(settings, outcome);
  SeriesRequests done;
  done.pattern = settings.series.pattern;
  done.rate = settings.series.rate;
  settings.series = std::move(done);
  return outcome;
}

// "Open series": the new series replaces the one playing; one that cannot open leaves it as it was.
SeriesPlayback::Outcome SeriesPlayback::openRequested(AppSettings& settings) {
  const SeriesRequests& r = settings.series;
  try {
    *this = SeriesPlayback(r.pattern, r.rate, waitForReads_);
  } catch (const std::exception& e) {
    return {false, std::string("could not open the series: ") + e.what()};
  }
  settings.paused = true;  // the run stops where it is; Space now plays and pauses the series
  const std::size_t files = player_->size();
  return {true,
          "opened " + r.pattern + ": " + std::to_string(files) + (files == 1 ? " file" : " files")};
}

// The panel's buttons and the keys: Space and Run toggle playing (the run itself stays paused while
// a series is open), N and Step go one snapshot on, "Continue simulating from here" closes it.
void SeriesPlayback::steer(AppSettings& settings, Outcome& outcome) {
  SeriesRequests& r = settings.series;
  if (!settings.paused) r.togglePlaying = !r.togglePlaying;
  if (settings.singleStep) r.stepBy += 1;
  if (r.togglePlaying) player_->playing() ? player_->pause() : player_->play();
  if (r.stepBy != 0) player_->stepBy(r.stepBy);
  if (r.seekTo) player_->seek(*r.seekTo);
  if (r.rate > 0.0) player_->setRate(r.rate);
  if (r.continueHere) {
    outcome.message = "continuing from " + player_->file(player_->index()).string();
    player_.reset();
    shownProblem_.clear();
  }
  settings.paused = player_ != nullptr;
  settings.singleStep = false;
}

std::string SeriesPlayback::show(AppSettings& settings, LiveSimulation& simulation,
                                 const Snapshot& snapshot) {
  try {
    simulation.continueFrom(settings, snapshot);
    measureBodies(settings.render, snapshot.state,
                  snapshot.time);  // radius and L_z from its own centre
    shownProblem_.clear();
  } catch (const std::exception& e) {
    shownProblem_ = player_->file(player_->index()).string() + ": " + e.what();
  }
  return shownProblem_;
}

SeriesFigures SeriesPlayback::figures() const {
  SeriesFigures f;
  f.available = !ranks().distributed();
  if (!player_) return f;
  f.open = true;
  f.playing = player_->playing();
  f.index = player_->index();
  f.size = player_->size();
  f.file = player_->file(f.index).string();
  f.problem = player_->problem().empty() ? shownProblem_ : player_->problem();
  return f;
}

}  // namespace nbody
