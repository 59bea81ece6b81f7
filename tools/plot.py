#!/usr/bin/python3
"""Plots what nbody writes: energy error over time, and benchmark throughput.

  plot.py energy OUT.png RUN.csv...   from `nbody simulate --diagnostics RUN.csv`: |dE/E0| and the
                                      momentum drift |P - P0| over time, one line per method
  plot.py bench OUT.png RESULTS.json...  from `nbody bench --json RESULTS.json`: billion
                                      interactions/s against N, one line per engine and method
  plot.py speed-accuracy OUT.png FILE...  steps (or force evaluations) per second against the
                                      99th-percentile force error, a panel per model and N, a
                                      line per code through its opening angles. FILE: a bench
                                      JSON of an approximate engine (nbody-gl), or a CSV of any
                                      code's figures with the columns code, model, bodies, theta,
                                      per_second, p99 (docs/bench/h200_speed_accuracy.csv)

Needs matplotlib (Debian: python3-matplotlib; tools/setup.sh installs it); run it with the
system python, /usr/bin/python3. Exit status 0 on success, 1 with a one-line message otherwise.
"""
import argparse
import collections
import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)


class InputError(Exception):
    """A file that cannot be plotted; the message names it and the problem."""


def read_diagnostics(path):
    """Rows of one diagnostics CSV, grouped by (engine, method): lists of (time, |dE/E0|, |dP|)."""
    needed = {"time", "engine", "method", "relative_energy_error", "momentum_drift"}
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = needed - set(reader.fieldnames or [])
            if missing:
                raise InputError(f"{path}: not a diagnostics CSV (no column {', '.join(sorted(missing))})")
            runs = collections.defaultdict(list)
            for line, row in enumerate(reader, start=2):
                try:
                    point = (float(row["time"]), abs(float(row["relative_energy_error"])),
                             float(row["momentum_drift"]))
                except (TypeError, ValueError):
                    raise InputError(f"{path}:{line}: not a number")
                runs[(row["engine"], row["method"])].append(point)
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror}")
    if not runs:
        raise InputError(f"{path}: no rows")
    return runs


def plot_drift(axes, labelled, column, ylabel, title):
    """One line per run of column `column` of its points, on a log scale. Zeros (the first row,
    and drifts that are exactly zero) cannot be shown there and are left out."""
    for label, points in sorted(labelled):
        shown = [p for p in points if p[column] > 0]
        axes.plot([p[0] for p in shown], [p[column] for p in shown], marker=".", label=label)
    if any(p[column] > 0 for _, points in labelled for p in points):
        axes.set_yscale("log")
    else:
        title += " (exactly zero)"
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.grid(True, which="both", alpha=0.3)


def plot_energy(output, paths):
    labelled = []  # (label, points)
    for path in paths:
        for (engine, method), points in read_diagnostics(path).items():
            label = f"{method} ({engine})"
            if len(paths) > 1 and any(l == label for l, _ in labelled):
                label += f", {os.path.basename(path)}"
            labelled.append((label, points))
    figure, (energy, momentum) = plt.subplots(2, 1, sharex=True, figsize=(8, 7))
    plot_drift(energy, labelled, 1, "|E - E0| / |E0|", "Energy error over time")
    plot_drift(momentum, labelled, 2, "|P - P0|", "Momentum drift")
    energy.legend()
    momentum.set_xlabel("time")
    figure.tight_layout()
    figure.savefig(output, dpi=120)


def read_bench(path):
    try:
        with open(path) as f:
            report = json.load(f)
        results = report["results"]
        return [(r["engine"], r["method"], bool(r.get("readback", False)), int(r["bodies"]),
                 float(r["interactions_per_second"]), r.get("renderer", "")) for r in results]
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror}")
    except (ValueError, KeyError, TypeError) as e:
        raise InputError(f"{path}: not an nbody bench report ({type(e).__name__}: {e})")


def plot_bench(output, paths):
    lines = collections.defaultdict(dict)  # (engine, method, readback) -> {N: interactions/s}
    renderers = set()
    for path in paths:
        for engine, method, readback, bodies, rate, renderer in read_bench(path):
            lines[(engine, method, readback)][bodies] = rate
            renderers.add(renderer)
    if not lines:
        raise InputError("no results in " + ", ".join(paths))
    figure, axes = plt.subplots(figsize=(8, 5))
    for (engine, method, readback), rates in sorted(lines.items()):
        sizes = sorted(rates)
        label = f"{engine}, {method}" + (", readback" if readback else "")
        axes.plot(sizes, [rates[n] * 1e-9 for n in sizes], marker="o", label=label)
    axes.set_xscale("log", base=2)
    axes.set_xlabel("N (bodies)")
    axes.set_ylabel("billion interactions / s")
    named = sorted(r for r in renderers if r)
    axes.set_title("Throughput on " + "; ".join(named) if named else "Throughput")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(output, dpi=120)


SPEED_ACCURACY_COLUMNS = ("code", "model", "bodies", "theta", "per_second", "p99")


def theta_of(variant):
    """The opening angle in a bench variant such as "theta=0.43 order=2 ...", or None."""
    for item in variant.split():
        if item.startswith("theta="):
            return item[len("theta="):]
    return None


def read_speed_accuracy_json(path, report):
    """Points of a bench report: (code, model, bodies, theta, per second, p99), one per result with
    a force error (the approximate engines)."""
    points = []
    for r in report["results"]:
        error = r.get("accuracy", {}).get("force_error", {}).get("p99")
        if error is None:
            continue
        model = report["scene"].replace("uniform-sphere", "uniform")
        points.append(("nbody-gl", model, int(r["bodies"]), theta_of(r["variant"]) or "?",
                       float(r["steps_per_second"]), float(error)))
    if not points:
        raise InputError(f"{path}: no result with a force error (bench an approximate engine, such as the tree)")
    return points


def read_speed_accuracy_csv(path, f):
    reader = csv.DictReader(f)
    missing = set(SPEED_ACCURACY_COLUMNS) - set(reader.fieldnames or [])
    if missing:
        raise InputError(f"{path}: not a speed-accuracy CSV (no column {', '.join(sorted(missing))})")
    points = []
    for line, row in enumerate(reader, start=2):
        try:
            points.append((row["code"], row["model"], int(row["bodies"]), row["theta"],
                           float(row["per_second"]), float(row["p99"])))
        except (TypeError, ValueError):
            raise InputError(f"{path}:{line}: not a number")
    if not points:
        raise InputError(f"{path}: no rows")
    return points


def read_speed_accuracy(path):
    try:
        with open(path, newline="") as f:
            if path.endswith(".json"):
                try:
                    return read_speed_accuracy_json(path, json.load(f))
                except (ValueError, KeyError, TypeError) as e:
                    raise InputError(f"{path}: not an nbody bench report ({type(e).__name__}: {e})")
            return read_speed_accuracy_csv(path, f)
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror}")


def plot_speed_accuracy(output, paths):
    panels = collections.defaultdict(lambda: collections.defaultdict(list))  # (model, N) -> code -> points
    for path in paths:
        for code, model, bodies, theta, per_second, p99 in read_speed_accuracy(path):
            panels[(model, bodies)][code].append((p99, per_second, theta))
    keys = sorted(panels)
    codes = sorted({code for panel in panels.values() for code in panel})
    colours = {code: f"C{k}" for k, code in enumerate(codes)}  # one colour a code in every panel
    columns = min(2, len(keys))
    rows = (len(keys) + columns - 1) // columns
    figure, axes = plt.subplots(rows, columns, figsize=(6 * columns, 4.5 * rows), squeeze=False)
    for k, (model, bodies) in enumerate(keys):
        ax = axes[k // columns][k % columns]
        for code, points in sorted(panels[(model, bodies)].items()):
            points.sort()
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=code, color=colours[code])
            for p99, per_second, theta in points:
                ax.annotate(f"{theta}", (p99, per_second), textcoords="offset points", xytext=(4, 4),
                            fontsize=8, color=colours[code])
        ax.margins(0.12)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("99th-percentile relative force error")
        ax.set_ylabel("steps (evaluations) / s")
        ax.set_title(f"{model}, N = {bodies:,}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    for k in range(len(keys), rows * columns):
        axes[k // columns][k % columns].axis("off")
    figure.suptitle("Speed against accuracy (labels: opening angle theta)")
    figure.tight_layout()
    figure.savefig(output, dpi=120)


PLOTS = {"energy": plot_energy, "bench": plot_bench, "speed-accuracy": plot_speed_accuracy}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=sorted(PLOTS))
    parser.add_argument("output", help="PNG file to write")
    parser.add_argument("inputs", nargs="+", help="diagnostics CSV, bench JSON or speed-accuracy CSV files")
    args = parser.parse_args()
    temporary = args.output + f".tmp-{os.getpid()}.png"
    try:
        PLOTS[args.kind](temporary, args.inputs)
        os.replace(temporary, args.output)  # whole or not at all, like nbody's own files
    except InputError as e:
        print(f"plot.py: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"plot.py: error: cannot write {args.output}: {e.strerror}", file=sys.stderr)
        return 1
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
