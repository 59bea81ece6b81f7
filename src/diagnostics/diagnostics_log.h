#pragma once
// `simulate --diagnostics FILE`: one CSV row of diagnostics every K steps into an output of the
// run (io/output_file.h), committed with the run's other outputs when it ends. Each row is flushed
// as it is written, so a pipe or terminal shows it at once and a full disk fails the run at once
// (a pipe whose reader went away takes no more rows, and the run goes on: its commit says so).
// Columns: step, time, engine, method, kinetic, potential, total,
// relative_energy_error ((E - E0) / |E0|, E0 the run's first row), momentum_x/y/z,
// momentum_drift (|P - P0|), angular_momentum_x/y/z, centre_of_mass_x/y/z.

#include <optional>
#include <string>

#include "diagnostics/diagnostics.h"
#include "io/output_file.h"

namespace nbody {

class DiagnosticsLog {
 public:
  // Writes the header into `file`, which must outlive the log.
  DiagnosticsLog(OutputFile& file, std::string engine, std::string method);

  // Throws OutputError when the row cannot be written (but for a pipe whose reader went away).
  void record(long long step, double time, const Diagnostics& diagnostics);

 private:
  OutputFile& file_;
  std::string engine_, method_;
  std::optional<Diagnostics> first_;
};

}  // namespace nbody
