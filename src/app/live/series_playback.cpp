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

SeriesPlayback::Outcome SeriesPlayback::follow(AppSettings& settings, LiveSimulation& simulation, double seconds) {
  Outcome outcome = carryOutRequests(settings);
  if (!player_) return outcome;
  if (const std::optional<Snapshot> due = player_->advance(seconds)) {
    if (std::string why = show(settings, simulation, *due); !why.empty()) outcome.message = std::move(why);
  }
  return outcome;
}

// The panel's buttons and the keys: Space and Run toggle playing (the run itself stays paused while
// a series is open), N and Step go one snapshot on.
SeriesPlayback::Outcome SeriesPlayback::carryOutRequests(AppSettings& settings) {
  SeriesRequests& r = settings.series;
  Outcome outcome;
  if (r.open) {
    try {
      *this = SeriesPlayback(r.pattern, r.rate, waitForReads_);
      const std::size_t files = player_->size();
      outcome = {true, "opened " + r.pattern + ": " + std::to_string(files) + (files == 1 ? " file" : " files")};
      settings.paused = true;  // the run stops where it is; Space now plays and pauses the series
    } catch (const std::exception& e) {
      outcome.message = std::string("could not open the series: ") + e.what();
    }
  }
  if (player_) {
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
  SeriesRequests done;
  done.pattern = r.pattern;
  done.rate = r.rate;
  settings.series = std::move(done);
  return outcome;
}

std::string SeriesPlayback::show(AppSettings& settings, LiveSimulation& simulation, const Snapshot& snapshot) {
  try {
    simulation.continueFrom(settings, snapshot);
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
