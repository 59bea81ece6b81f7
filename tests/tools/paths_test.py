#!/usr/bin/env python3
"""No file of the repository reaches outside it: the repository is the whole project, so code,
CMake, tests and documentation name only what a fresh checkout holds.

The files: what `git ls-files -co --exclude-standard` lists in the root (tracked files, and new
ones not yet committed that git does not ignore: what a commit would hold), or, where the root is
no git checkout, every file under it except the folders build*/ at the root, dot-folders and
__pycache__. Left out: binary files (a NUL byte in their first 8 KiB, or no UTF-8), and
docs/bench/, the raw records of measurements (what the machines printed, their paths included,
kept as they were printed: a record is not rewritten).

A finding, one line each, `FILE:LINE: ...`:
  - a relative path whose `..` segments climb above the repository root, resolved from the file's
    folder (from the root after ${CMAKE_SOURCE_DIR}, $SOURCE_DIR, $root and the like; another
    variable or placeholder before it is taken as a folder below the file's); or resolved from the
    root, as prose and comments often write paths, where from the file's folder it names nothing
    (an `#include` of a file one folder up names one, and passes);
  - a Markdown link (`[text](target)`, `![alt](target)`, `[id]: target`) whose relative target
    leaves the repository, is none of its files or folders, or names a heading (`#anchor`) its
    page does not have; web addresses are not checked, nor links in code;
  - an absolute path into this machine's own folders: under work, home, root, mnt, media, srv,
    scratch, workspace or Users at the top of the file system, the repository's own absolute path
    or the folder it sits in, or a second checkout kept in tmp/clean. System paths are not the
    repository's and are allowed: usr, etc, dev, proc, sys, opt, tmp, var, bin, sbin, lib, lib64,
    run (/usr/bin/python3, /dev/shm, /proc/self/environ, /opt/nbody-xvfb for the device machine).
    Other names that start with a slash are no paths of this machine and are not flagged: HDF5
    objects (/Header, /PartType1), .gitignore's anchored patterns, the made-up folders of tests.
Before the files, the rules are tried on made-up lines, so a scanner that finds nothing fails.

Usage: paths_test.py REPO_ROOT. Needs /usr/bin/python3 only; prints each finding, then one check a
file and "N passed, M failed"; exits non-zero on any finding.
"""
import os
import posixpath
import re
import subprocess
import sys
import urllib.parse

from checks import check, summary

# The records of measurements, left as they were printed (their paths are the machines').
RECORDS = ("docs/bench/",)

# First folders of absolute paths that are a machine's own (flagged; the system's, /usr, /dev, /tmp
# and the like, are not), written without their slash so that this file does not name them; and
# the repository's own path, wherever it is.
MACHINE_FOLDERS = ("work", "home", "root", "mnt", "media", "srv", "scratch", "workspace", "Users")
MACHINE_PATHS = ("tmp/clean",)  # a second checkout of the repository on this machine

# Variables that name the repository root; other variables and placeholders ({d}) are taken as a
# folder below the file's.
ROOT_VARIABLE = re.compile(r"^\$\{?(CMAKE_SOURCE_DIR|PROJECT_SOURCE_DIR|CMAKE_HOME_DIRECTORY|NBODY_SOURCE_DIR|"
                           r"SOURCE_DIR|REPO_ROOT|ROOT|root|repo|repository)\}?$")
FILE_FOLDER_VARIABLE = re.compile(r"^\$\{?(CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR)\}?$")

PATH_RUN = re.compile(r"[\w.\-/{}$@+~%*]+")
ABSOLUTE = re.compile(r"(?<![\w.\-/~:$}\])>@])/[A-Za-z_][\w.\-]*(?:/[\w.\-{}*$@+]*)*")
WEB = re.compile(r"\b[A-Za-z][A-Za-z0-9+.\-]*://\S*")
LINK = re.compile(r"\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s[^>]*(?:name|id)=\"([^\"]+)\"")


def listed_files(root):
    """Paths relative to `root`, with / between folders."""
    try:
        top = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"], capture_output=True, text=True)
        if top.returncode == 0 and os.path.realpath(top.stdout.strip()) == os.path.realpath(root):
            # Tracked files only: a developer's own untracked files (a virtual environment, an
            # editor's settings, a compile_commands.json link) name their machine's paths.
            listing = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True)
            names = sorted({name for name in listing.stdout.decode().split("\0") if name})
            return [name for name in names if os.path.isfile(os.path.join(root, name))]
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []
    for folder, folders, files in os.walk(root):
        relative = os.path.relpath(folder, root)
        folders[:] = sorted(name for name in folders
                            if not name.startswith(".") and name != "__pycache__"
                            and not (relative == "." and name.startswith("build")))
        found.extend(posixpath.normpath(posixpath.join(relative.replace(os.sep, "/"), name)) for name in sorted(files))
    return found


def text_of(path):
    """The file's text, or None for a binary file."""
    with open(path, "rb") as f:
        data = f.read()
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def climbs(path):
    return path == ".." or path.startswith("../")


def resolve_run(run, folder, before):
    """The repository-relative paths a run of path characters names, from the file's folder and
    from the root ([] where it names no relative path with a name after its `..` segments)."""
    parts = run.split("/")
    if ".." not in parts or not any(part not in ("", ".", "..") for part in parts[parts.index("..") + 1:]):
        return []
    bases = [folder, ""]
    if parts[0] == "":  # a slash first: absolute, unless a base expression stands before it
        if before not in (")", "}", "\"", "'"):
            return []
        parts = parts[1:]
    elif ROOT_VARIABLE.match(parts[0]):
        bases, parts = [""], parts[1:]
    elif FILE_FOLDER_VARIABLE.match(parts[0]):
        bases, parts = [folder], parts[1:]
    return [posixpath.normpath(posixpath.join(base, *parts)) for base in bases] if parts else []


def climbing_paths(line, folder, repository):
    """[(text, resolved)] of the relative paths in `line` that climb above the root: from the
    file's folder, or from the root where from the file's folder they name nothing."""
    found = []
    line = WEB.sub(" ", line)
    for match in PATH_RUN.finditer(line):
        run = match.group(0).rstrip(".,;:")
        if "../" not in run and not run.endswith("/.."):
            continue
        before = line[match.start() - 1] if match.start() > 0 else ""
        resolved = resolve_run(run, folder, before)
        if resolved and climbs(resolved[0]):
            found.append((run, resolved[0]))
        elif len(resolved) == 2 and climbs(resolved[1]) and not repository.holds(resolved[0]):
            found.append((run, resolved[1]))
    return found


def machine_paths(line, root):
    """The absolute paths in `line` into this machine's own folders."""
    denied = ["/" + name for name in MACHINE_FOLDERS + MACHINE_PATHS]
    real = os.path.realpath(root)
    denied.append(real)
    line = WEB.sub(lambda m: m.group(0)[len("file://"):] if m.group(0).startswith("file://") else " ", line)
    found = []
    for match in ABSOLUTE.finditer(line):
        path = match.group(0)
        if any(path == prefix or path.startswith(prefix + "/") for prefix in denied):
            found.append(path)
    return found


def slug(heading):
    """GitHub's anchor for a heading: links and code marks dropped, lower case, punctuation
    removed, spaces as hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors_of(text):
    anchors, seen, fenced = set(), {}, False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        heading = HEADING.match(line)
        if heading:
            name = slug(heading.group(1))
            count = seen.get(name, 0)
            seen[name] = count + 1
            anchors.add(name if count == 0 else f"{name}-{count}")
        anchors.update(HTML_ANCHOR.findall(line))
    return anchors


class Repository:
    def __init__(self, root, files):
        self.root = root
        self.files = set(files)
        self.folders = {""}
        for name in files:
            parts = name.split("/")
            for k in range(1, len(parts)):
                self.folders.add("/".join(parts[:k]))
        self.anchors = {}

    def holds(self, name):
        return name in self.files or name in self.folders

    def anchors_of(self, name):
        if name not in self.anchors:
            text = text_of(os.path.join(self.root, name)) if name in self.files else None
            self.anchors[name] = anchors_of(text) if text is not None else set()
        return self.anchors[name]


def link_findings(target, name, repository, page_text):
    """What is wrong with the Markdown link `target` in the page `name`, or None."""
    target = target.strip("<>")
    if not target:
        return "an empty link target"
    if re.match(r"^[A-Za-z][A-Za-z0-9+.\-]*:", target) or target.startswith("//"):
        return None  # a web address, mailto: ...
    path, _, anchor = target.partition("#")
    path = urllib.parse.unquote(path.split("?")[0])
    folder = posixpath.dirname(name)
    resolved = posixpath.normpath(path[1:] if path.startswith("/") else posixpath.join(folder, path)) if path else name
    if climbs(resolved):
        return f"the link `{target}` leaves the repository ({resolved})"
    if resolved == ".":
        resolved = ""
    if resolved not in repository.files and resolved not in repository.folders:
        return f"the link `{target}` names nothing in the repository ({resolved})"
    if anchor and resolved.endswith(".md") and resolved in repository.files:
        anchors = anchors_of(page_text) if resolved == name else repository.anchors_of(resolved)
        if urllib.parse.unquote(anchor).lower() not in anchors:
            return f"the link `{target}`: {resolved} has no heading #{anchor}"
    return None


def findings_of(name, text, repository):
    """[(line number, what)] for one file's text."""
    findings = []
    folder = posixpath.dirname(name)
    markdown = name.lower().endswith(".md")
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        scanned = line
        if markdown:
            if FENCE.match(line):
                fenced = not fenced
            elif not fenced:
                prose = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
                targets = [m.group(1) for m in LINK.finditer(prose)] + [m.group(1) for m in REFERENCE.finditer(prose)]
                for target in targets:
                    what = link_findings(target, name, repository, text)
                    if what:
                        findings.append((number, what))
                    scanned = scanned.replace(target, " ")
        for run, resolved in climbing_paths(scanned, folder, repository):
            findings.append((number, f"`{run}` climbs above the repository root (to {resolved})"))
        for path in machine_paths(scanned, repository.root):
            findings.append((number, f"`{path}` is a path on this machine, not in the repository"))
    return findings


def check_the_rules(root):
    """The rules on made-up lines: each must find what it should, and nothing in allowed lines."""
    up, slash = "..", "/"
    repository = Repository(root, ["README.md", "docs/a.md", "tests/tools/t.py", "src/io/x.h"])
    must_find = [
        ("README.md", f"see {up}{slash}shared/docs/formats.md"),
        ("tests/tools/t.py", f"os.path.join(here, \"{up}/{up}/{up}/shared/data\")"),
        ("tests/CMakeLists.txt", f"${{CMAKE_SOURCE_DIR}}/{up}/shared/data/gadget"),
        ("src/io/x.h", f"// ({up}/{up}/{up}/shared/docs/formats.md, \"Units\")"),
        ("src/io/x.h", f"// ({up}/shared/docs/formats.md, \"Units\"): beside the repository"),
        ("docs/a.md", "[formats](formats.md)"),
        ("docs/a.md", f"[up]({up}/{up}/elsewhere.md)"),
        ("docs/a.md", f"[a heading]({up}/README.md#no-such-heading)"),
        ("README.md", f"data in {slash}work{slash}shared/data"),
        ("README.md", f"cd {slash}home/someone/nbody"),
        ("tools/x.sh", f"cd {slash}tmp/clean/build"),
    ]
    for name, line in must_find:
        check(findings_of(name, line + "\n", repository), f"the rules find nothing in {name}: {line}")
    must_pass = [
        ("tools/x.sh", "exec /usr/bin/python3 \"$@\"; ls /dev/shm /proc/self/environ /opt/nbody-xvfb/bin /tmp/x.csv"),
        ("src/io/x.h", "// /Header, /PartType1/Coordinates and /NbodyGL; /nonexistent-folder/out.csv"),
        ("src/io/y.cpp", f"#include \"{up}/io/x.h\""),
        ("tests/tools/t.py", "\"{d}/sub/../same.csv\", \"./x/../out.csv\", \"f-{step}/../s.hdf5\""),
        ("docs/a.md", "a relative `../../..` path; [this](#section); [web](https://example.org/../x)\n## Section"),
        ("README.md", "[a page](docs/a.md), [a folder](src/io/), ![a picture](docs/a.md)"),
        ("tools/x.sh", "cd \"$(dirname \"$0\")/..\"; $BUNDLE_DIR/../$XVFB_BUNDLE_NAME/mpi; ~/.cache"),
        ("docs/a.md", "```\n[not a link](nowhere.md)\n```\n## Section"),
    ]
    for name, text in must_pass:
        found = findings_of(name, text + "\n", repository)
        check(not found, f"the rules flag an allowed line in {name}: {text}: {found}")


def main():
    root = os.path.abspath(sys.argv[1])
    check_the_rules(root)
    files = listed_files(root)
    check(len(files) > 0, f"no files found under {root}")
    repository = Repository(root, files)
    for name in files:
        if name.startswith(RECORDS):
            continue
        text = text_of(os.path.join(root, name))
        if text is None:
            continue
        findings = findings_of(name, text, repository)
        for number, what in findings:
            print(f"{name}:{number}: {what}")
        check(not findings, f"{name}: {len(findings)} reference(s) outside the repository")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
