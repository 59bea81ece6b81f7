#pragma once
// Reading what nbody is given (states, snapshots, pictures): whole, once, from a regular file or
// a pipe. A device is refused before a byte is read: /dev/zero or /dev/urandom never end, and
// reading one would fill the memory. In a distributed run rank 0 reads and sends the bytes to the
// other ranks (parallel/ranks.h).

#include <filesystem>
#include <string>

namespace nbody {

// The file's bytes. Throws std::runtime_error naming the file and the problem (missing, a folder,
// a device, unreadable).
std::string readInputFile(const std::filesystem::path& path);

}  // namespace nbody
