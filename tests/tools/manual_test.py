#!/usr/bin/env python3
"""The commands' manual, docs/commands.md, names every option of every command, as `--help` does:
a manual that falls behind the program fails here.

What is compared:
  - the commands: the names under "Subcommands:" of `NBODY --help`;
  - a command's options: the long names (`--name`) of the option lines under "Options:" of
    `NBODY CMD --help`, as CLI11 prints them (an option line starts with two spaces and a dash;
    its description, where wrapped, is indented further); `--help` itself is left out;
  - the manual's sections: each command has one, a level-2 heading whose text is the command's
    name as code alone, ``## `CMD` `` (GitHub's anchor: `#CMD`); other `##` headings, in plain
    text, such as the contents, are not command sections;
  - a section's options: every `--name` in the first column of its options tables, the Markdown
    tables whose header's first cell is `option` (short aliases such as `-n` and positionals
    beside them are ignored; the other columns may name options freely).

Every disagreement is one line: a command without a section, a section (or a repeated one) that
names no command of --help, an option of --help missing from its command's table, an option in a
table that --help lacks.

Usage: manual_test.py NBODY DOCS_COMMANDS_MD. Needs /usr/bin/python3 only; prints "N passed,
M failed" and exits non-zero on a failure.
"""
import re
import subprocess
import sys

from checks import check, summary

SECTION = re.compile(r"^##\s+`([^`\s]+)`\s*$")
LONG_OPTION = re.compile(r"--[A-Za-z0-9][A-Za-z0-9-]*")


def help_text(nbody, *command):
    asked = " ".join(["nbody", *command, "--help"])
    try:
        done = subprocess.run([nbody, *command, "--help"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        check(False, f"`{asked}` did not run: {e}")
        return ""
    check(done.returncode == 0, f"`{asked}` exits {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def listed_under(text, heading):
    """The first words of the entries under `heading` ("Options:", "Subcommands:"): lines
    indented by exactly two spaces, up to the next heading."""
    entries, inside = [], False
    for line in text.splitlines():
        if line and not line[0].isspace():
            inside = line.strip() == heading
        elif inside and re.match(r"^  \S", line):
            entries.append(line.split()[0])
    return entries


def commands_of(nbody):
    return listed_under(help_text(nbody), "Subcommands:")


def options_of(nbody, command):
    options = set()
    for names in listed_under(help_text(nbody, command), "Options:"):
        options.update(name for name in names.split(",") if name.startswith("--"))
    options.discard("--help")
    return options


def table_cells(line):
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def manual_sections(path):
    """[(command, set of options in its tables)] in the order of the page."""
    sections = []
    in_table = False  # inside an options table (its header's first cell `option`)
    with open(path, encoding="utf-8") as page:
        for line in page:
            heading = SECTION.match(line)
            if heading:
                sections.append((heading.group(1), set()))
                in_table = False
                continue
            if line.startswith("#"):  # any other heading ends a command section's level 2
                if line.startswith("## "):
                    sections.append((None, set()))
                in_table = False
                continue
            if not line.lstrip().startswith("|"):
                in_table = False
                continue
            cells = table_cells(line)
            if not in_table:
                in_table = cells[0].strip("` *").lower() == "option"
                continue  # the header row
            if sections and sections[-1][0] is not None and not set(cells[0]) <= set("-: "):
                sections[-1][1].update(LONG_OPTION.findall(cells[0]))
    return [(command, options) for command, options in sections if command is not None]


def main():
    nbody, manual = sys.argv[1], sys.argv[2]
    commands = commands_of(nbody)
    check(len(commands) >= 1, "`nbody --help` lists no subcommands")
    sections = manual_sections(manual)
    named = [command for command, _ in sections]
    for command in commands:
        check(command in named, f"{command}: no section ## `{command}` in {manual}")
    for command in sorted(set(named)):
        check(command in commands, f"section ## `{command}`: `nbody --help` has no command {command}")
        check(named.count(command) == 1, f"section ## `{command}` appears {named.count(command)} times")
    for command, documented in sections:
        if command not in commands:
            continue
        offered = options_of(nbody, command)
        for option in sorted(offered):
            check(option in documented, f"{command}: {option} (in `nbody {command} --help`) is missing from the manual's table")
        for option in sorted(documented):
            check(option in offered, f"{command}: {option} is in the manual's table but not in `nbody {command} --help`")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
