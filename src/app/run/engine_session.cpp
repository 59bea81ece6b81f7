#include "app/run/engine_session.h"

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <vector>

#include "app/run/rank_agreement.h"
#include "engines/gpu_capacity.h"
#include "engines/registry.h"
#include "engines/stage_kernel.h"
#include "gl/debug.h"
#include "io/output_file.h"
#include "parallel/ranks.h"

namespace nbody {

std::unique_ptr<gl::HeadlessContext> openHeadlessContext() {
  gl::chooseDevice(ranks().nodeRank());
  auto context = gl::HeadlessContext::create(gl::debugWanted());
  if (gl::debugWanted()) gl::installDebugCallback();
  return context;
}

void dumpProgramsWhereAsked() {
  const char* folder = std::getenv("NBODY_DUMP_PROGRAMS");
  if (folder == nullptr || *folder == '\0') return;
  setProgramDump([folder = std::filesystem::path(folder)](const std::string& key,
                                                          const std::vector<char>& binary) {
    const std::filesystem::path base = folder / std::to_string(std::hash<std::string>{}(key));
    OutputGroup files;
    for (const std::string extension : {".bin", ".key"}) {
      std::error_code error;  // a pipe there would hold the run in open(): these are files
      if (const auto kind = std::filesystem::status(base.string() + extension, error).type();
          kind != std::filesystem::file_type::regular &&
          kind != std::filesystem::file_type::not_found)
        throw std::runtime_error("cannot write " + base.string() + extension +
                                 ": NBODY_DUMP_PROGRAMS writes regular files, and this is none");
    }
    files.open(base.string() + ".bin").write(binary.data(), binary.size());
    files.open(base.string() + ".key").stream() << key << "\n";
    files.commit();
  });
}

// A distributed run's ranks each take a GPU of their node, and make their contexts and engines
// together: a rank that cannot ends every rank (rank_agreement.h).
EngineSession openEngine(const std::string& name, const EngineSettings& settings,
                         std::unique_ptr<gl::HeadlessContext> context, bool withGlContext,
                         bool quiet) {
  const EngineEntry* entry = findEngine(name);
  if (!entry) throw UsageError("unknown engine " + name);
  EngineSession session;
  session.context = std::move(context);
  onEveryRankAlike([&] {
    if ((entry->needsGl || withGlContext) && !session.context)
      session.context = openHeadlessContext();
    session.engine = createEngine(name, settings);
  });
  if (session.context) {
    agreeLimitsAcrossRanks();  // every rank has a context here, or none has
    setRankDevice(session.context->info().device);
  }
  if (session.context && !quiet)
    reportRanksOnce(session.context->info().device, session.context->info().renderer);
  return session;
}

}  // namespace nbody
