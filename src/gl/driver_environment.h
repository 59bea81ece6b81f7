#pragma once
// What an OpenGL driver needs of the process before a context is made, checked first: short of
// it, the driver crashes or hangs instead of failing (llvmpipe dies of SIGSEGV in its shader
// compiler under a low address-space limit, waits forever for threads a process limit kept from
// starting, and dies of SIGBUS when its shader cache's index lands on a full file system).

namespace nbody::gl {

// Throws std::runtime_error, one line naming the limit, where the driver could not start: too few
// threads may be started (ulimit -u), or too little address space is left (ulimit -v). Turns
// Mesa's on-disk shader cache off, saying so in one line on stderr, where its folder is full or
// cannot be written: shaders are then compiled every run, as without a cache.
void prepareDriverEnvironment();

}  // namespace nbody::gl
