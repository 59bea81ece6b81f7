#include "diagnostics/diagnostics_log.h"

#include <ostream>

#include "io/csv.h"

namespace nbody {
namespace {

constexpr const char* kHeader =
    "step,time,engine,method,kinetic,potential,total,relative_energy_error,"
    "momentum_x,momentum_y,momentum_z,momentum_drift,"
    "angular_momentum_x,angular_momentum_y,angular_momentum_z,"
    "centre_of_mass_x,centre_of_mass_y,centre_of_mass_z";

void writeVector(std::ostream& out, glm::dvec3 v) {
  out << ',' << formatDouble(v.x) << ',' << formatDouble(v.y) << ',' << formatDouble(v.z);
}

}  // namespace

DiagnosticsLog::DiagnosticsLog(OutputFile& file, std::string engine, std::string method)
    : file_(file), engine_(std::move(engine)), method_(std::move(method)) {
  file_.stream() << kHeader << '\n';
}

void DiagnosticsLog::record(long long step, double time, const Diagnostics& d) {
  if (!first_) first_ = d;
  std::ostream& out = file_.stream();
  out << step << ',' << formatDouble(time) << ',' << engine_ << ',' << method_ << ','
      << formatDouble(d.kinetic) << ',' << formatDouble(d.potential + d.external) << ','
      << formatDouble(d.total()) << ',' << formatDouble(relativeEnergyError(*first_, d));
  writeVector(out, d.momentum);
  out << ',' << formatDouble(momentumDrift(*first_, d));
  writeVector(out, d.angularMomentum);
  writeVector(out, d.centreOfMass);
  out << '\n';
  try {
    file_.flush();
  } catch (const OutputError&) {
    if (!file_.readerWentAway())
      throw;  // a pipe's reader that left ends the rows only: said when the run ends
  }
}

}  // namespace nbody
