#pragma once
// The regular files this process has read: the inputs, every part of a snapshot of several files,
// the members of a series played, a panel-click script (not a camera path, which the window's
// editor saves over on purpose: the command line's same-file check keeps it from the other
// outputs). Known by device and inode, so that however an output is named (`..`, `//`, a symbolic
// or hard link, `{step}`), none of them is replaced: the output layer (io/output_file.h) refuses
// one when it is opened and again just before its rename. A command that reads its inputs before
// it opens its outputs (simulate, the window) fails before its work; one that opens them first
// (shot, record, accuracy) fails before the rename at the latest, the file untouched.

#include <filesystem>
#include <optional>

#include <sys/stat.h>

namespace nbody {

// Remembers the file `file` describes (a regular file; anything else is not remembered), read
// under the name `path`. Thread-safe (a series is read ahead on a thread of its own).
void noteFileRead(const struct stat& file, const std::filesystem::path& path);
// The same for a file about to be read (a member of a series): looked up by name now.
void noteFileRead(const std::filesystem::path& path);

// The name the file `file` describes was read under, if this process read it and that name still
// leads to it unchanged (a file read and removed may have left its inode number to another; a
// file another process has changed since is not what was read).
std::optional<std::filesystem::path> nameReadAs(const struct stat& file);

// For tests: forget every file.
void forgetFilesRead();

}  // namespace nbody
