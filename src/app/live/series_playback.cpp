#include "app/live/series_playback.h"

#include <cstdint>
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

// The panel's requests of the series, taken; the pattern and rate stay.
SeriesPlayback::Outcome SeriesPlayback::carryOutRequests(AppSettings& settings) {
  Outcome outcome =
      settings.requests.take(Request::OpenSeries) ? openRequested(settings) : Outcome{};
  if (player_) steer(settings, outcome);
  for (Request kind : {Request::ToggleSeriesPlaying, Request::StepSeries, Request::SeekSeries,
                       Request::ContinueHere})
    settings.requests.take(kind);  // none to steer
  return outcome;
}

// "Open series": the new series replaces the one playing; one that cannot open leaves it as it was.
SeriesPlayback::Outcome SeriesPlayback::openRequested(AppSettings& settings) {
  const SeriesChoice& r = settings.series;
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
  Requests& asks = settings.requests;
  bool toggle = asks.take(Request::ToggleSeriesPlaying);
  if (!settings.paused) toggle = !toggle;
  std::int64_t stepBy = asks.takeValue(Request::StepSeries).value_or(0);
  if (asks.take(Request::SingleStep)) stepBy += 1;
  if (toggle) player_->playing() ? player_->pause() : player_->play();
  if (stepBy != 0) player_->stepBy(stepBy);
  if (const auto seekTo = asks.takeValue(Request::SeekSeries)) player_->seek(std::size_t(*seekTo));
  if (settings.series.rate > 0.0) player_->setRate(settings.series.rate);
  if (asks.take(Request::ContinueHere)) {
    outcome.message = "continuing from " + player_->file(player_->index()).string();
    player_.reset();
    shownProblem_.clear();
  }
  settings.paused = player_ != nullptr;
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
