#include "gl/fence_wait.h"

#include <cstdio>
#include <stdexcept>
#include <string>

namespace nbody::gl {

void waitForFence(GLsync fence, const char* what) {
#if defined(__EMSCRIPTEN__)
  // WebGL2 fails a wait longer than MAX_CLIENT_WAIT_TIMEOUT_WEBGL (often 0), and its reads wait
  // for the commands before them anyway.
  (void)fence, (void)what;
#else
  constexpr GLuint64 kSlice = 1'000'000'000;  // ns
  constexpr int kSlicesBetweenNotes = 60;
  for (int slices = 1;; ++slices) {
    const GLenum waited = glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, kSlice);
    if (waited == GL_ALREADY_SIGNALED || waited == GL_CONDITION_SATISFIED) return;
    if (waited == GL_WAIT_FAILED)
      throw std::runtime_error(std::string("waiting for the GPU failed (") + what + ")");
    if (slices % kSlicesBetweenNotes == 0)
      std::fprintf(stderr, "nbody: still waiting for the GPU after %d s (%s)\n", slices, what);
  }
#endif
}

}  // namespace nbody::gl
