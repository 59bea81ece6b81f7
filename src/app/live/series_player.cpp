#include "app/live/series_player.h"

#include <glob.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "engines/engine.h"
#include "io/files_read.h"
#include "io/input_file.h"
#include "parallel/ranks.h"

namespace nbody {
namespace {

std::string_view digitsAt(std::string_view text, std::size_t at) {
  std::size_t end = at;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  return text.substr(at, end - at);
}

// Compares two runs of digits by value: leading zeros aside, the longer is larger.
int compareNumbers(std::string_view a, std::string_view b) {
  const auto significant = [](std::string_view digits) {
    const std::size_t first = digits.find_first_not_of('0');
    return first == std::string_view::npos ? std::string_view{} : digits.substr(first);
  };
  const std::string_view x = significant(a), y = significant(b);
  if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
  return x.compare(y);
}

bool naturallyBefore(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const auto isDigit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
    if (isDigit(a[i]) && isDigit(b[j])) {
      const std::string_view x = digitsAt(a, i), y = digitsAt(b, j);
      if (const int order = compareNumbers(x, y); order != 0) return order < 0;
      i += x.size();
      j += y.size();
    } else if (a[i] != b[j]) {
      return a[i] < b[j];
    } else {
      ++i, ++j;
    }
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;  // equal but for padding: any fixed order
}

// The first thing a pattern could not look at (a folder it may not search, a loop of links), for
// the message when nothing matches.
struct Unmatched {
  std::string path;
  int error = 0;
  void note(const std::string& at, int why) {
    if (path.empty()) path = at, error = why;
  }
  std::string why() const { return path + ": " + whyUnreachable(path, error); }
};

Unmatched* globTrouble =
    nullptr;  // glob's error callback takes no argument of ours: one listing at a time

extern "C" int noteGlobError(const char* path, int error) {
  if (globTrouble != nullptr) globTrouble->note(path, error);
  return 0;  // go on with the rest
}

std::vector<std::string> globbed(const std::string& pattern, Unmatched& unmatched) {
  static std::mutex listing;
  const std::lock_guard lock(listing);
  globTrouble = &unmatched;
  glob_t found{};
  const int status = glob(pattern.c_str(), 0, noteGlobError, &found);
  globTrouble = nullptr;
  std::vector<std::string> names;
  if (status == 0) names.assign(found.gl_pathv, found.gl_pathv + found.gl_pathc);
  globfree(&found);
  return names;
}

// The index nbody writes beside an HDF5 series (s.xmf), which a pattern such as run/* also names.
bool isXdmfIndex(const std::string& name) {
  return std::filesystem::path(name).extension() == ".xmf";
}

}  // namespace

std::vector<std::filesystem::path> listSeries(const std::string& pattern) {
  Unmatched unmatched;
  const std::vector<std::string> matches = globbed(pattern, unmatched);
  std::vector<std::string> names;
  for (const std::string& name : matches) {
    std::error_code error;
    const auto status = std::filesystem::status(name, error);
    if (error)
      unmatched.note(name, error.value());  // a loop of links, a folder not searchable
    else if (std::filesystem::is_regular_file(status) && !isXdmfIndex(name))
      names.push_back(name);
  }
  if (names.empty())
    throw UsageError("no snapshot file matches " + pattern +
                     (unmatched.path.empty() ? "" : " (" + unmatched.why() + ")"));
  std::sort(names.begin(), names.end(), naturallyBefore);
  for (const std::string& name : names)
    noteFileRead(std::filesystem::path(name));  // no output may replace one
  return {names.begin(), names.end()};
}

void addSeriesInputs(CommandFiles& files, const std::string& option, const std::string& pattern) {
  if (pattern.empty()) return;
  for (const std::filesystem::path& file : listSeries(pattern))
    files.inputs.push_back({option, file.string()});
}

std::vector<std::filesystem::path> listPlayedSeries(const std::string& pattern) {
  if (ranks().distributed())
    throw UsageError("a series plays in one process: --play without mpiexec");
  return listSeries(pattern);
}

SeriesPlayer::SeriesPlayer(std::vector<std::filesystem::path> files, Loader loader)
    : files_(std::move(files)), loader_(std::move(loader)) {
  if (files_.empty()) throw std::invalid_argument("a series of snapshots needs at least one file");
  first_ = loader_(files_.front());
  if (files_.size() > 1) readAhead(1);
}

SeriesPlayer::~SeriesPlayer() = default;  // waits for the files still being read

void SeriesPlayer::play() {
  if (index_ + 1 >= files_.size() && !wanted_) seek(0);
  playing_ = true;
  clock_ = 0.0;
}

void SeriesPlayer::pause() {
  playing_ = false;
  if (playedOn_) wanted_.reset();  // a snapshot playing asked for and did not get yet stays unshown
}

void SeriesPlayer::setRate(double snapshotsPerSecond) {
  if (!(snapshotsPerSecond > 0.0) || !std::isfinite(snapshotsPerSecond))
    throw std::invalid_argument("a series plays at a positive number of snapshots a second");
  rate_ = snapshotsPerSecond;
}

void SeriesPlayer::seek(std::size_t index) {
  wanted_ = std::min(index, files_.size() - 1);
  playedOn_ = false;
  clock_ = 0.0;
}

void SeriesPlayer::stepBy(long long snapshots) {
  seek(clamped(static_cast<long long>(index_) + snapshots));
}

std::size_t SeriesPlayer::clamped(long long index) const {
  return std::size_t(std::clamp<long long>(index, 0, static_cast<long long>(files_.size()) - 1));
}

std::optional<Snapshot> SeriesPlayer::advance(double seconds) {
  if (first_) {
    std::optional<Snapshot> first = std::exchange(first_, std::nullopt);
    if (!wanted_ || *wanted_ == 0) {
      wanted_.reset();
      return first;
    }
  }
  if (playing_ && !wanted_) {
    // One snapshot at most a call: a slow frame does not skip snapshots. What is left over counts
    // towards the next one (up to one more), so that the rate holds between frames.
    clock_ += seconds * rate_;
    if (clock_ >= 1.0) {
      clock_ = std::min(clock_ - 1.0, 1.0);
      if (index_ + 1 < files_.size()) {
        wanted_ = index_ + 1;
        playedOn_ = true;
      }
    }
  }
  if (wanted_ && playedOn_ && playing_ && !waitForReads_ && stillReading(*wanted_))
    return std::nullopt;
  std::optional<Snapshot> shown;
  if (wanted_ && *wanted_ != index_) shown = take(*wanted_);
  wanted_.reset();
  if (playing_ && index_ + 1 >= files_.size()) playing_ = false;
  return shown;
}

// The snapshot at `index`, read ahead or now; nothing, saying why, for a file that cannot be read.
// The position moves to `index` either way, so that playing goes on past a damaged file.
std::optional<Snapshot> SeriesPlayer::take(std::size_t index) {
  std::optional<Snapshot> snapshot;
  try {
    if (pending_ && pending_->index == index) {
      std::future<Snapshot> reading = std::move(pending_->snapshot);
      pending_.reset();
      snapshot = reading.get();
    } else {
      snapshot = loader_(files_[index]);
    }
    problem_.clear();
  } catch (const std::exception& e) {
    problem_ = e.what();
    if (problem_.find(files_[index].filename().string()) == std::string::npos)
      problem_ = files_[index].string() + ": " + problem_;
  }
  index_ = index;
  if (index + 1 < files_.size()) readAhead(index + 1);
  return snapshot;
}

bool SeriesPlayer::stillReading(std::size_t index) const {
  return pending_ && pending_->index == index &&
         pending_->snapshot.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
}

void SeriesPlayer::readAhead(std::size_t index) {
  if (pending_ && pending_->index == index) return;
  // A read no longer wanted finishes on its own; waiting for it here would hold a scrub.
  if (pending_) unwanted_.push_back(std::move(pending_->snapshot));
  std::erase_if(unwanted_, [](const std::future<Snapshot>& read) {
    return read.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  });
  pending_ = Pending{index, std::async(std::launch::async, loader_, files_[index])};
}

}  // namespace nbody
