#include "io/stop_point.h"

namespace nbody {
namespace {

int (*stopRequested)() noexcept = nullptr;
void (*stopNow)(int signal, const std::string& what) = nullptr;

}  // namespace

void setStopPoint(int (*requested)() noexcept, void (*stop)(int signal, const std::string& what)) {
  stopRequested = requested;
  stopNow = stop;
}

int stopAskedFor() noexcept { return stopRequested != nullptr ? stopRequested() : 0; }

void stopPoint(const std::string& what) {
  if (const int signal = stopAskedFor(); signal != 0 && stopNow != nullptr) stopNow(signal, what);
}

}  // namespace nbody
