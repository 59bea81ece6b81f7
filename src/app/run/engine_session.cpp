#include "app/run/engine_session.h"

#include <cstdlib>

#include "engines/registry.h"
#include "gl/debug.h"

namespace nbody {

bool glDebugWanted() {
#ifdef NDEBUG
  return std::getenv("NBODY_GL_DEBUG") != nullptr;
#else
  return true;
#endif
}

EngineSession openEngine(const std::string& name, const EngineSettings& settings,
                         std::unique_ptr<gl::HeadlessContext> context, bool withGlContext) {
  const EngineEntry* entry = findEngine(name);
  if (!entry) throw UsageError("unknown engine " + name);
  EngineSession session;
  session.context = std::move(context);
  if ((entry->needsGl || withGlContext) && !session.context) {
    session.context = gl::HeadlessContext::create(glDebugWanted());
    if (glDebugWanted()) gl::installDebugCallback();
  }
  session.engine = createEngine(name, settings);
  return session;
}

}  // namespace nbody
