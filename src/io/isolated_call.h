#pragma once
// Runs a piece of work in a child process (fork), for a library that may crash on a hostile file:
// libhdf5 reads whatever a file's structures say, and a damaged file can send it out of bounds.
// The crash then ends the child, and nbody says so in one line. The child's memory is capped (where
// no sanitizer reserves its shadow memory), so a file that talks the library into a huge
// allocation fails there too. The answer comes back through a pipe, as bytes. A stop asked for
// meanwhile (io/stop_point.h) is looked at every 0.1 s: the child is killed, and the run stops.

#include <cstddef>
#include <functional>
#include <string>

namespace nbody {

// What `work` returned. A std::exception it throws comes back as a std::runtime_error with the same
// message; a child that dies (a signal, the memory cap) or ends without an answer is a
// std::runtime_error naming `source` and saying what `library` did.
std::string callIsolated(const std::function<std::string()>& work, const std::string& source,
                         const std::string& library, std::size_t memoryLimitBytes);

}  // namespace nbody
