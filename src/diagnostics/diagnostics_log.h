#pragma once
// `simulate --diagnostics FILE`: one CSV row of diagnostics every K steps, written atomically when
// the run ends. Columns: step, time, engine, method, kinetic, potential, total,
// relative_energy_error ((E - E0) / |E0|, E0 the run's first row), momentum_x/y/z,
// momentum_drift (|P - P0|), angular_momentum_x/y/z, centre_of_mass_x/y/z.

#include <optional>
#include <string>

#include "diagnostics/diagnostics.h"
#include "io/atomic_file.h"

namespace nbody {

class DiagnosticsLog {
 public:
  // Opens the file now, so an unwritable path fails before the run.
  DiagnosticsLog(const std::string& path, std::string engine, std::string method);

  void record(long long step, double time, const Diagnostics& diagnostics);
  void commit() { file_.commit(); }

 private:
  AtomicFileWriter file_;
  std::string engine_, method_;
  std::optional<Diagnostics> first_;
};

}  // namespace nbody
