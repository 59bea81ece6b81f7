#pragma once
// Reading what nbody is given (states, snapshots, pictures): whole, once, from a regular file or
// a pipe. A device is refused before a byte is read: /dev/zero or /dev/urandom never end, and
// reading one would fill the memory. In a distributed run rank 0 reads and sends the bytes to the
// other ranks (parallel/ranks.h).

#include <filesystem>
#include <string>

namespace nbody {

// What may be read, and what becomes of it: a file or a pipe (what a user names), which no output
// of the run may replace afterwards; a regular file only (the other parts of a snapshot of several
// files, which the first part's name makes: a pipe there would block for ever, and is refused
// without waiting); or a file or pipe the user edits in place through nbody, which the run may
// write again (the camera path: the window's Load, edit, Save; the command line's same-file check
// keeps --camera-path from any other output).
enum class InputKinds { filesAndPipes, filesOnly, editedInPlace };

// The file's bytes. Throws std::runtime_error naming the file and the problem (missing, a folder,
// a device, a socket, unreadable, a loop of links, a folder on the way that cannot be searched,
// too large for the memory left). Every regular file read joins the files no output of the run
// may replace (io/files_read.h).
std::string readInputFile(const std::filesystem::path& path,
                          InputKinds kinds = InputKinds::filesAndPipes);
// The same, read by this process alone, whatever the ranks: for files of rank 0's own (the window's
// camera path), which the other ranks never ask for.
std::string readInputFileHere(const std::filesystem::path& path,
                              InputKinds kinds = InputKinds::filesAndPipes);

// What `error` (an errno from opening or looking at `path`) means for it, in words that name the
// cause: "a loop of symbolic links", "the folder a/b cannot be searched (Permission denied)",
// "Too many open files: the open-file limit (ulimit -n) is 5".
std::string whyUnreachable(const std::filesystem::path& path, int error);

}  // namespace nbody
