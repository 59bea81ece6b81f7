#!/usr/bin/python3
"""tools/plot.py on what nbody writes: PNGs from diagnostics CSV and bench JSON, and the
speed-accuracy picture from docs/bench/h200_speed_accuracy.csv; one-line errors.

usage: plot_test.py PATH/TO/nbody PATH/TO/tools/plot.py   (exit status 0 when every check passes)
Runs plot.py with the interpreter that runs this script: Debian's /usr/bin/python3, which has
python3-matplotlib. The kepler runs' momentum drift is exactly zero, which a log scale cannot show.
"""
import os
import subprocess
import sys
import tempfile

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def run(*command):
    return subprocess.run(command, capture_output=True, text=True)


def main():
    nbody, plot = sys.argv[1], sys.argv[2]
    failures = []

    def check(condition, what, detail=""):
        print(("ok   " if condition else "FAIL ") + what + ("" if condition else ": " + detail))
        if not condition:
            failures.append(what)

    with tempfile.TemporaryDirectory() as scratch:
        path = lambda name: os.path.join(scratch, name)
        for method in ("euler", "rk4"):
            done = run(nbody, "simulate", "--engine", "cpu", "--scene", "kepler", "--method", method,
                       "--steps", "40", "--dt", "0.01", "--softening", "0", "--diagnostics",
                       path(method + ".csv"), "--diagnostics-every", "5", "-o", path("final.csv"), "-q")
            check(done.returncode == 0, f"simulate {method} writes diagnostics", done.stderr)
        for bodies in ("64", "128"):
            done = run(nbody, "bench", "--engine", "cpu", "--bodies", bodies, "--steps", "2",
                       "--repetitions", "1", "--json", path(f"bench{bodies}.json"))
            check(done.returncode == 0, f"bench N = {bodies} writes JSON", done.stderr)

        done = run(sys.executable, plot, "energy", path("energy.png"), path("euler.csv"), path("rk4.csv"))
        check(done.returncode == 0, "energy plot", done.stderr)
        done = run(sys.executable, plot, "bench", path("bench.png"), path("bench64.json"),
                   path("bench128.json"))
        check(done.returncode == 0, "bench plot", done.stderr)
        figures = os.path.join(os.path.dirname(os.path.abspath(plot)), "..", "docs", "bench",
                               "h200_speed_accuracy.csv")
        done = run(sys.executable, plot, "speed-accuracy", path("speed.png"), figures)
        check(done.returncode == 0, "speed-accuracy plot", done.stderr)
        for name in ("energy.png", "bench.png", "speed.png"):
            with open(path(name), "rb") as f:
                data = f.read()
            check(data.startswith(PNG_MAGIC) and len(data) > 10000, f"{name} is a PNG with a plot in it")

        # A state, not diagnostics.
        done = run(sys.executable, plot, "energy", path("wrong.png"), path("final.csv"))
        check(done.returncode == 1 and done.stderr.count("\n") == 1 and "not a diagnostics CSV" in done.stderr,
              "a state CSV is refused in one line", done.stderr)
        check(not os.path.exists(path("wrong.png")), "no PNG is left after an error")
        # The CPU engine is exact: its report has no force error to place a point by.
        done = run(sys.executable, plot, "speed-accuracy", path("wrong.png"), path("bench64.json"))
        check(done.returncode == 1 and done.stderr.count("\n") == 1 and "no result with a force error" in done.stderr,
              "a bench report of an exact engine is refused in one line", done.stderr)
        done = run(sys.executable, plot, "speed-accuracy", path("wrong.png"), path("euler.csv"))
        check(done.returncode == 1 and done.stderr.count("\n") == 1 and "not a speed-accuracy CSV" in done.stderr,
              "a diagnostics CSV is refused in one line", done.stderr)
        check(sorted(os.listdir(scratch)) == sorted(["euler.csv", "rk4.csv", "final.csv", "bench64.json",
                                                     "bench128.json", "energy.png", "bench.png", "speed.png"]),
              "no temporary files are left")
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
