#!/usr/bin/python3
"""Remakes the reference data of the regression tests, on purpose, after a change that is meant to
alter what nbody computes or draws. Never in CI: a test must not be able to approve itself.

  golden pictures   assets/golden/NAME.png     nbody shot <shot> --out NAME.png, on llvmpipe
  reference states  assets/regression/NAME.csv nbody simulate --engine cpu <simulate>

The cases, their thresholds and the reasons for them are in assets/golden/cases.ini and
assets/regression/cases.ini. Review what changed (git diff --stat; look at the pictures) before
committing.

usage: tools/regenerate_references.py [--nbody build/nbody] [--goldens | --states] [NAME ...]
"""
import argparse
import configparser
import os
import pathlib
import shlex
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "assets" / "golden"
REGRESSION = ROOT / "assets" / "regression"

# The golden pictures are made on Mesa's software renderer, which CI runs the tests on: a GPU's
# pictures differ from llvmpipe's by more than the thresholds allow.
LLVMPIPE_ENVIRONMENT = {"NBODY_EGL_PLATFORM": "surfaceless", "LIBGL_ALWAYS_SOFTWARE": "1",
                        "GALLIUM_DRIVER": "llvmpipe"}


def read_cases(path):
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    if not parser.read(path):
        sys.exit(f"regenerate_references: cannot read {path}")
    return {name: parser[name] for name in parser.sections()}


def chosen(cases, names):
    unknown = [n for n in names if n not in cases]
    return {n: c for n, c in cases.items() if not names or n in names}, unknown


def run(command, environment=None):
    print("  $", " ".join(shlex.quote(str(part)) for part in command), flush=True)
    result = subprocess.run(command, env={**os.environ, **(environment or {})},
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"regenerate_references: failed ({result.returncode}):\n{result.stderr}")
    return result


def regenerate_goldens(nbody, cases):
    for name, case in cases.items():
        result = run([nbody, "shot", *shlex.split(case["shot"]), "--out", GOLDEN / f"{name}.png"],
                     LLVMPIPE_ENVIRONMENT)
        if "renderer llvmpipe" not in result.stderr:
            sys.exit("regenerate_references: the golden pictures must be made on llvmpipe, but nbody "
                     f"said:\n{result.stderr}")


def regenerate_states(nbody, cases):
    for name, case in cases.items():
        run([nbody, "simulate", "--quiet", "--engine", "cpu", *shlex.split(case["simulate"]),
             "--output", REGRESSION / f"{name}.csv"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nbody", default=str(ROOT / "build" / "nbody"), help="the nbody binary")
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--goldens", action="store_true", help="only the golden pictures")
    only.add_argument("--states", action="store_true", help="only the reference states")
    parser.add_argument("names", nargs="*", help="only these cases (default: all)")
    args = parser.parse_args()
    if "CI" in os.environ:
        sys.exit("regenerate_references: refusing to run in CI (CI is set): references are remade "
                 "by a person, on purpose, and reviewed")
    if not os.access(args.nbody, os.X_OK):
        sys.exit(f"regenerate_references: no nbody binary at {args.nbody} (build first, or --nbody)")

    goldens, unknown_goldens = chosen(read_cases(GOLDEN / "cases.ini"), args.names)
    states, unknown_states = chosen(read_cases(REGRESSION / "cases.ini"), args.names)
    if args.names and (set(unknown_goldens) & set(unknown_states)):
        sys.exit(f"regenerate_references: no case named {sorted(set(unknown_goldens) & set(unknown_states))}")
    if not args.states and goldens:
        print(f"golden pictures ({len(goldens)}) into {GOLDEN.relative_to(ROOT)}/")
        regenerate_goldens(args.nbody, goldens)
    if not args.goldens and states:
        print(f"reference states ({len(states)}) into {REGRESSION.relative_to(ROOT)}/")
        regenerate_states(args.nbody, states)
    print("done. Review before committing: git status assets/; look at the pictures.")


if __name__ == "__main__":
    main()
