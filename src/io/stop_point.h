#pragma once
// Where the readers' long work looks for a stop asked for by a signal: between the parts of a
// large input, and every 0.1 s while a child process reads one (io/isolated_call.h). The hook is
// app/run/stop_signals.h's: what says a stop was asked for, and what throws the run's own stop.
// Without it (the tests of io alone), nothing stops.

#include <string>

namespace nbody {

void setStopPoint(int (*requested)() noexcept, void (*stop)(int signal, const std::string& what));

// The signal that asked to stop, or 0.
int stopAskedFor() noexcept;

// Throws the run's own stop where one was asked for, saying `what` ("while reading big.csv").
void stopPoint(const std::string& what);

}  // namespace nbody
