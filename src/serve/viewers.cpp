#include "serve/viewers.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <utility>
#include "util/std_compat.h"

namespace nbody {

FrameMessageParts frameMessageParts(const EncodedFrame& frame) {
  FrameMessageParts parts;
  std::size_t at = 0;
  const auto put = [&](std::uint64_t value, std::size_t size) {
    for (std::size_t k = 0; k < size; ++k) parts.header[at++] = std::uint8_t(value >> (8 * k));
  };
  for (const char c : kFrameMagic) put(std::uint8_t(c), 1);
  put(frame.sequence, 8);
  put(frame.width, 2);
  put(frame.height, 2);
  put(kJpegCodec, 1);
  put(frame.still ? kStillFrameFlag : 0, 1);
  put(0, 2);
  put(bit_cast<std::uint64_t>(frame.serverTime), 8);
  parts.picture = frame.jpeg;
  return parts;
}

std::vector<std::uint8_t> frameMessage(const EncodedFrame& frame) {
  const FrameMessageParts parts = frameMessageParts(frame);
  std::vector<std::uint8_t> message(kFrameHeaderBytes + parts.picture.size());
  std::copy(parts.header.begin(), parts.header.end(), message.begin());
  std::copy(parts.picture.begin(), parts.picture.end(), message.begin() + kFrameHeaderBytes);
  return message;
}

ViewerBoard::ViewerBoard(std::size_t mostViewers, int credit)
    : mostViewers_(mostViewers), credit_(credit) {
  if (mostViewers < 1)
    throw std::invalid_argument("a viewer board needs room for at least one viewer");
  if (credit < 1) throw std::invalid_argument("a viewer's credit must be at least one frame");
}

void ViewerBoard::publish(std::shared_ptr<const EncodedFrame> frame) {
  if (!frame) return;
  {
    std::lock_guard lock(mutex_);
    if (latest_ && frame->sequence <= latest_->sequence) return;
    latest_.swap(frame);
  }
  // `frame` now holds the one replaced, freed here (if no viewer holds it) outside the lock.
}

std::shared_ptr<const EncodedFrame> ViewerBoard::latest() const {
  std::lock_guard lock(mutex_);
  return latest_;
}

std::optional<ViewerId> ViewerBoard::join() {
  std::lock_guard lock(mutex_);
  if (viewers_.size() >= mostViewers_) return std::nullopt;
  const ViewerId id = nextId_++;
  viewers_.push_back(
      Viewer{.id = id, .credit = credit_, .lastSent = {}, .unacknowledged = {}, .counters = {}});
  if (!controller_) controller_ = id;
  return id;
}

void ViewerBoard::leave(ViewerId viewer) {
  std::lock_guard lock(mutex_);
  std::erase_if(viewers_, [&](const Viewer& v) { return v.id == viewer; });
  if (controller_ != viewer) return;
  controller_.reset();
  if (!viewers_.empty()) controller_ = viewers_.front().id;
}

bool ViewerBoard::acknowledge(ViewerId viewer, std::uint64_t sequence) {
  std::lock_guard lock(mutex_);
  Viewer* found = find(viewer);
  if (!found) return false;
  // Frames reach a viewer in order on one stream: an acknowledgement covers every frame sent up to
  // it, so a frame the page never acknowledged (it could not decode it) does not hold its credit.
  const auto sent = std::find(found->unacknowledged.begin(), found->unacknowledged.end(), sequence);
  if (sent == found->unacknowledged.end()) return false;
  const auto covered = sent - found->unacknowledged.begin() + 1;
  found->unacknowledged.erase(found->unacknowledged.begin(), sent + 1);
  found->credit += int(covered);
  found->counters.framesAcknowledged += std::uint64_t(covered);
  return true;
}

bool ViewerBoard::awaitsAcknowledgement(ViewerId viewer) const {
  std::lock_guard lock(mutex_);
  const Viewer* found = find(viewer);
  return found && !found->unacknowledged.empty();
}

std::shared_ptr<const EncodedFrame> ViewerBoard::takeFrameFor(ViewerId viewer) {
  std::lock_guard lock(mutex_);
  Viewer* found = find(viewer);
  if (!found || !latest_ || found->credit < 1) return nullptr;
  if (found->lastSent && latest_->sequence <= *found->lastSent) return nullptr;
  --found->credit;
  found->lastSent = latest_->sequence;
  found->unacknowledged.push_back(latest_->sequence);
  ++found->counters.framesSent;
  return latest_;
}

bool ViewerBoard::takeControl(ViewerId viewer) {
  std::lock_guard lock(mutex_);
  if (!find(viewer)) return false;
  controller_ = viewer;
  return true;
}

bool ViewerBoard::mayControl(ViewerId viewer) const {
  std::lock_guard lock(mutex_);
  return controller_ == viewer;
}

std::optional<ViewerId> ViewerBoard::controller() const {
  std::lock_guard lock(mutex_);
  return controller_;
}

std::size_t ViewerBoard::viewerCount() const {
  std::lock_guard lock(mutex_);
  return viewers_.size();
}

std::optional<ViewerCounters> ViewerBoard::countersOf(ViewerId viewer) const {
  std::lock_guard lock(mutex_);
  const Viewer* found = find(viewer);
  if (!found) return std::nullopt;
  return found->counters;
}

const ViewerBoard::Viewer* ViewerBoard::find(ViewerId viewer) const {
  const auto found = std::find_if(viewers_.begin(), viewers_.end(),
                                  [&](const Viewer& v) { return v.id == viewer; });
  return found == viewers_.end() ? nullptr : &*found;
}

ViewerBoard::Viewer* ViewerBoard::find(ViewerId viewer) {
  return const_cast<Viewer*>(std::as_const(*this).find(viewer));
}

MessageRate::MessageRate(double perSecond, double burst)
    : perSecond_(perSecond), burst_(burst), tokens_(burst) {
  if (!(std::isfinite(perSecond) && perSecond > 0))
    throw std::invalid_argument("a message rate must be finite and > 0");
  if (!(std::isfinite(burst) && burst >= 1))
    throw std::invalid_argument("a message burst must be finite and >= 1");
}

bool MessageRate::allow(double nowSeconds) {
  if (!std::isfinite(nowSeconds)) return false;
  if (lastSeconds_ && nowSeconds > *lastSeconds_)
    tokens_ = std::min(burst_, tokens_ + (nowSeconds - *lastSeconds_) * perSecond_);
  if (!lastSeconds_ || nowSeconds > *lastSeconds_) lastSeconds_ = nowSeconds;
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

}  // namespace nbody
