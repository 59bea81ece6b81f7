#include "app/run/engine_session.h"

#include <cstdlib>

#include "engines/registry.h"
#include "app/run/rank_agreement.h"
#include "gl/debug.h"
#include "parallel/ranks.h"

namespace nbody {

bool glDebugWanted() {
#ifdef NDEBUG
  return std::getenv("NBODY_GL_DEBUG") != nullptr;
#else
  return true;
#endif
}

std::unique_ptr<gl::HeadlessContext> openHeadlessContext() {
  gl::chooseDevice(ranks().nodeRank());
  auto context = gl::HeadlessContext::create(glDebugWanted());
  if (glDebugWanted()) gl::installDebugCallback();
  return context;
}

// A distributed run's ranks each take a GPU of their node, and make their contexts and engines
// together: a rank that cannot ends every rank (rank_agreement.h).
EngineSession openEngine(const std::string& name, const EngineSettings& settings,
                         std::unique_ptr<gl::HeadlessContext> context, bool withGlContext, bool quiet) {
  const EngineEntry* entry = findEngine(name);
  if (!entry) throw UsageError("unknown engine " + name);
  EngineSession session;
  session.context = std::move(context);
  onEveryRankAlike([&] {
    if ((entry->needsGl || withGlContext) && !session.context) session.context = openHeadlessContext();
    session.engine = createEngine(name, settings);
  });
  if (session.context) setRankDevice(session.context->info().device);
  if (session.context && !quiet) reportRanksOnce(session.context->info().device, session.context->info().renderer);
  return session;
}

}  // namespace nbody
