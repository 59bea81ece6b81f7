#!/usr/bin/env python3
"""Checks the GL 4.1 / ES 3.0 subset's sources (src/gl/level.h) against a GL 4.1 core loader with
no extensions: macOS's OpenGL, which WebGL2's ES 3.0 is a subset of in what nbody uses. A call,
enum or loader flag of GL 4.2 or later in those sources is an error here, where the build's GL 4.5
loader would take it.

    gl41_check.py BUILD_DIR SOURCE...

BUILD_DIR holds compile_commands.json (CMAKE_EXPORT_COMPILE_COMMANDS); a SOURCE is preprocessed
with its own command from there, the GL 4.5 loader's include folder swapped for a GL 4.1 loader's
that glad generates into BUILD_DIR/glad41 (Debian's python3-glad, offline: --reproducible). What
the 4.1 loader declares it expands (glFoo to glad_glFoo, GL_FOO to its number) or knows (its
types); a name that only the 4.5 loader declares stays in the preprocessed text, outside string
literals, where a compile against the 4.1 loader would stop at it. So the same sources fail as a
compile with -fsyntax-only would, in a tenth of its time (preprocessing only). The code only such
a loader compiles (under !defined(GL_VERSION_4_5)) the web build compiles whole (tools/web.sh).

Only the loader differs from the build's own compile, so only a file that names an OpenGL call or
enum (gl[A-Z]..., GL_...) can differ: every SOURCE that names one is checked, and each project
header that names one once, inside the first SOURCE that includes it (its build's depfile says
which; a SOURCE without a depfile is checked). About half of the sources."""

import concurrent.futures
import functools
import json
import os
import re
import shlex
import subprocess
import sys


def generate_loader(build):
    folder = os.path.join(build, "glad41")
    if not os.path.exists(os.path.join(folder, "include", "glad", "gl.h")):
        # --extensions names one that adds no entry point: without it glad takes every extension,
        # direct state access and compute included.
        subprocess.run([sys.executable, "-m", "glad", "--quiet", "--reproducible", "--api",
                        "gl:core=4.1", "--extensions", "GL_EXT_texture_filter_anisotropic",
                        "--out-path", folder, "c"], check=True)
    return os.path.join(folder, "include")


def preprocess_command(entry, build, loader):
    words = shlex.split(entry["command"])
    glad45 = os.path.join(build, "glad", "include")
    command, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
        elif word in ("-c", "-MD", "-MMD"):
            continue
        elif word == glad45 or word == "-I" + glad45:
            command.append(word.replace(glad45, loader))
        else:
            command.append(word)
    return command + ["-E", "-P"]


GL_NAME = re.compile(rb"\bgl[A-Z]\w*|\bGL_[A-Z0-9_]+")
# What a loader may declare: calls (glFoo), enums (GL_FOO), types and glad's flags (GLsync,
# GLDEBUGPROC, GLAD_GL_VERSION_4_3).
DECLARED = re.compile(r"\b(?:gl[A-Z]\w*|GL[A-Za-z_]\w*)")
# String and character literals, raw ones first (a shader's text holds GL_ words of GLSL's).
LITERAL = re.compile(r'R"([^()\\\s]{0,16})\((?:.|\n)*?\)\1"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')

INLINE_DEFINITION = re.compile(r"\binline\s+[\w:*&\s]+?\b((?:gl[A-Z]|GL)\w*)\s*\(")
DIGIT_SEPARATOR = re.compile(r"(?<=[0-9A-Fa-f])'(?=[0-9A-Fa-f])")  # 1'000, not a literal's quote


def loader_names(include):
    with open(os.path.join(include, "glad", "gl.h")) as f:
        return set(DECLARED.findall(f.read()))


def names_beyond(preprocessed, newer_only):
    """The names of the newer loader alone that the preprocessed text uses outside literals, less
    those it defines itself as inline functions (gl/desktop_calls.h's stand-ins, where a compile
    finds them declared too)."""
    code = LITERAL.sub(" ", DIGIT_SEPARATOR.sub("", preprocessed))
    own = set(INLINE_DEFINITION.findall(code))
    return sorted({name for name in DECLARED.findall(code) if name in newer_only and name not in own})


@functools.cache
def names_gl(path):
    with open(path, "rb") as f:
        return GL_NAME.search(f.read()) is not None


def included_headers(entry, root):
    """The project's headers the build's depfile lists for this entry, or None without one."""
    words = shlex.split(entry["command"])
    output = words[words.index("-o") + 1] if "-o" in words else None
    depfile = output and os.path.join(entry["directory"], output + ".d")
    if not depfile or not os.path.exists(depfile):
        return None
    with open(depfile) as f:
        paths = f.read().replace("\\\n", " ").split()
    headers = (os.path.realpath(os.path.join(entry["directory"], p)) for p in paths)
    return [h for h in headers if h.startswith(root) and h.endswith(".h")]


def sources_to_compile(sources, entries, root):
    """The sources that name GL, then one includer of each header that names GL and none of them
    includes; a source whose headers are unknown is kept."""
    headers = {s: included_headers(entries[s], root) for s in sources}
    chosen = [s for s in sources if headers[s] is None or names_gl(s)]
    covered = {h for s in chosen for h in headers[s] or []}
    for source in sources:
        wanted = [h for h in headers[source] or [] if h not in covered and names_gl(h)]
        if wanted and source not in chosen:
            chosen.append(source)
            covered.update(headers[source])
    return chosen


def main():
    build, sources = os.path.realpath(sys.argv[1]), [os.path.realpath(s) for s in sys.argv[2:]]
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = {os.path.realpath(e["file"]): e for e in json.load(f)}
    missing = [s for s in sources if s not in entries]
    if missing or not sources:
        print("gl41_check: no compile command for: " + " ".join(missing or ["(no sources)"]))
        return 1
    root = os.path.commonpath(sources) + os.sep
    listed, sources = len(sources), sources_to_compile(sources, entries, root)
    loader = generate_loader(build)
    newer_only = loader_names(os.path.join(build, "glad", "include")) - loader_names(loader)

    def check(source):
        entry = entries[source]
        done = subprocess.run(preprocess_command(entry, build, loader), cwd=entry["directory"],
                              capture_output=True, text=True)
        if done.returncode != 0:
            return source, done.returncode, done.stderr
        beyond = names_beyond(done.stdout, newer_only)
        return source, len(beyond), "".join(f"error: {n} is not GL 4.1's\n" for n in beyond)

    failed = 0
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        for source, code, errors in pool.map(check, sources):
            if code != 0:
                failed += 1
                lines = [l for l in errors.splitlines() if "error" in l][:5]
                print(f"FAILED {source}:\n  " + "\n  ".join(lines))
    print(f"gl41_check: {len(sources) - failed} of {len(sources)} sources need only GL 4.1"
          f" (of {listed}: those naming GL, and each header naming GL once)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
