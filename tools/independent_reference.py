#!/usr/bin/env python3
"""Checks `nbody simulate` against an integrator that shares no code with it.

Plain Python in double precision: the force law and Euler, midpoint (RK2) and classic RK4 are
written out here by hand, not from the project's Butcher tableaux. For each problem below (none of
them used by the unit tests) it makes the initial state with `nbody simulate --steps 0`, advances
it here and with every engine and method of `nbody simulate`, and compares every body.

usage: independent_reference.py PATH/TO/nbody [--engines cpu,fragment]  (default: every engine `nbody engines` lists)
Exit status 0 when every run agrees within its tolerance, 1 otherwise.
"""
import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile

# (name, scene, bodies, seed, steps, dt, softening, G)
PROBLEMS = [
    ("softened uniform sphere, G = 0.7", "uniform-sphere", 64, 21, 25, 0.01, 0.1, 0.7),
    ("unsoftened Plummer sphere", "plummer", 48, 5, 20, 0.002, 0.0, 1.0),
]
# Largest |difference| allowed: float32 output rounding (~1e-7 at |x| ~ 1) for an engine that
# computes in double (the CPU engine); float32 arithmetic throughout for the GPU engines (see
# tests/gl/gpu_engine_test.cpp).
DOUBLE_TOLERANCE, FLOAT_TOLERANCE = 1e-6, 1e-5


def listed_engines(nbody):
    """Every engine `nbody engines` lists: whether it computes in double precision, and the
    settings that make an approximate engine (a tree) sum directly."""
    listing = subprocess.run([nbody, "engines"], check=True, capture_output=True, text=True).stdout
    engines, current = {}, None
    for line in listing.splitlines():
        if line and not line[0].isspace():
            current = line.split()[0]
            engines[current] = {"double": False, "exact": []}
        elif line.strip() == "precision: double":
            engines[current]["double"] = True
        elif "direct summation with:" in line:
            engines[current]["exact"] = line.split("direct summation with:")[1].split()
    return engines


def read_state(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    pos = [[float(r["x"]), float(r["y"]), float(r["z"])] for r in rows]
    vel = [[float(r["vx"]), float(r["vy"]), float(r["vz"])] for r in rows]
    mass = [float(r["mass"]) for r in rows]
    return pos, vel, mass


def accelerations(pos, mass, eps2, g):
    acc = []
    for xi in pos:
        ax = ay = az = 0.0
        for xj, mj in zip(pos, mass):
            dx, dy, dz = xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]
            r2 = dx * dx + dy * dy + dz * dz + eps2
            if r2 == 0.0:
                continue  # the body itself
            s = mj / (r2 * math.sqrt(r2))
            ax += s * dx
            ay += s * dy
            az += s * dz
        acc.append([g * ax, g * ay, g * az])
    return acc


def axpy(base, h, *terms):
    """base + h * sum(terms), body by body."""
    return [[b[k] + h * sum(t[i][k] for t in terms) for k in range(3)] for i, b in enumerate(base)]


def scaled(h, v):
    return [[h * c for c in row] for row in v]


def step(method, pos, vel, mass, h, eps2, g):
    f = lambda x: accelerations(x, mass, eps2, g)
    if method == "euler":
        return axpy(pos, h, vel), axpy(vel, h, f(pos))
    if method == "rk2":  # midpoint rule
        a1 = f(pos)
        x2, v2 = axpy(pos, h / 2, vel), axpy(vel, h / 2, a1)
        return axpy(pos, h, v2), axpy(vel, h, f(x2))
    if method == "rk4":
        a1 = f(pos)
        x2, v2 = axpy(pos, h / 2, vel), axpy(vel, h / 2, a1)
        a2 = f(x2)
        x3, v3 = axpy(pos, h / 2, v2), axpy(vel, h / 2, a2)
        a3 = f(x3)
        x4, v4 = axpy(pos, h, v3), axpy(vel, h, a3)
        a4 = f(x4)
        return (axpy(pos, h / 6, vel, scaled(2, v2), scaled(2, v3), v4),
                axpy(vel, h / 6, a1, scaled(2, a2), scaled(2, a3), a4))
    if method == "symplectic-euler":  # kick, then drift with the new velocity
        new_vel = axpy(vel, h, f(pos))
        return axpy(pos, h, new_vel), new_vel
    if method == "leapfrog":  # kick half, drift, kick half
        half = axpy(vel, h / 2, f(pos))
        new_pos = axpy(pos, h, half)
        return new_pos, axpy(half, h / 2, f(new_pos))
    raise ValueError(method)


METHODS = ("euler", "rk2", "rk4", "symplectic-euler", "leapfrog")


def max_difference(a, b):
    return max(math.dist(p, q) for p, q in zip(a, b))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nbody")
    parser.add_argument("--engines", help="comma separated (default: every engine)")
    args = parser.parse_args()
    listed = listed_engines(args.nbody)
    engines = args.engines.split(",") if args.engines else list(listed)
    tolerance = {e: DOUBLE_TOLERANCE if listed[e]["double"] else FLOAT_TOLERANCE for e in engines}
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        for name, scene, n, seed, steps, dt, eps, g in PROBLEMS:
            initial = os.path.join(scratch, "initial.csv")
            subprocess.run([args.nbody, "simulate", "--engine", "cpu", "--scene", scene,
                            "--bodies", str(n), "--seed", str(seed), "--steps", "0",
                            "-o", initial, "-q"], check=True)
            pos0, vel0, mass = read_state(initial)
            for method in METHODS:
                pos, vel = pos0, vel0
                for _ in range(steps):
                    pos, vel = step(method, pos, vel, mass, dt, eps * eps, g)
                for engine in engines:
                    out = os.path.join(scratch, "out.csv")
                    subprocess.run([args.nbody, "simulate", "--engine", engine, *listed[engine]["exact"],
                                    "--method", method,
                                    "--input", initial, "--steps", str(steps), "--dt", str(dt),
                                    "--softening", str(eps), "--gravity", str(g), "-o", out, "-q"],
                                   check=True)
                    got_pos, got_vel, _ = read_state(out)
                    dx, dv = max_difference(got_pos, pos), max_difference(got_vel, vel)
                    ok = max(dx, dv) < tolerance[engine]
                    failures += not ok
                    print(f"{'ok  ' if ok else 'FAIL'} {name}: {engine:8} {method:16} "
                          f"max |dx| = {dx:.2e}, max |dv| = {dv:.2e} (tolerance {tolerance[engine]:g})")
    runs = len(PROBLEMS) * len(METHODS) * len(engines)
    print(f"{runs - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
