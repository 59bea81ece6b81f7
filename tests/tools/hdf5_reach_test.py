#!/usr/bin/env python3
"""GADGET HDF5 snapshots that reach outside their own file, as h5py writes them: a snapshot is
untrusted input, and reading one must never read another file (the attack of 2026-11-28, F1, F4).

Each hostile file points a dataset, a group or the Header at something else: external raw storage
(absolute, relative and special paths: a 0600 secret, /proc/self/environ, /dev/zero, a FIFO, several
segments), external links (to a dataset, a group, the Header whose attributes are read, a FIFO),
a soft link to an external link, a virtual dataset. Every one must be refused by `simulate` and
`accuracy` with one line naming the snapshot and the dataset, exit 1, no output, within seconds
(a FIFO must not hang it), and no byte of the secret anywhere. Also: negative signed particle IDs
refused, signed ones kept; soft- and hard-link cycles; an output over the other part of a
two-file HDF5 snapshot; the clear messages for a comoving run and a dataset written in part.

Usage: hdf5_reach_test.py NBODY. Needs /usr/bin/python3 with h5py; prints "N passed, M failed"
and exits non-zero on a failure.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

from checks import check, summary

NBODY = sys.argv[1]
N = 64
SECRET = b"TOPSECRET: the launch code is 0123456789abcdef " * 16
def nbody(*arguments, timeout=30):
    try:
        return subprocess.run([NBODY, *map(str, arguments)], capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def snapshot(path, ids=None, skip=()):
    """A one-file GADGET HDF5 snapshot of N bodies of type 1; the datasets in `skip` left out."""
    f = h5py.File(path, "w")
    header = f.create_group("Header")
    header.attrs["NumPart_ThisFile"] = np.array([0, N, 0, 0, 0, 0], "u4")
    header.attrs["MassTable"] = np.zeros(6)
    group = f.create_group("PartType1")
    data = {"Coordinates": np.random.default_rng(1).normal(size=(N, 3)).astype("f4"),
            "Velocities": np.zeros((N, 3), "f4"), "Masses": np.full(N, 1.0 / N, "f4"),
            "ParticleIDs": np.arange(1, N + 1, dtype="u8") if ids is None else ids}
    for name, values in data.items():
        if name not in skip:
            group[name] = values
    return f


def external_storage(scratch, name, segments, dataset="ParticleIDs", dtype="<u8", shape=(N,)):
    path = os.path.join(scratch, name + ".hdf5")
    with snapshot(path, skip=(dataset,)) as f:
        f["PartType1"].create_dataset(dataset, shape=shape, dtype=dtype, external=segments)
    return path


def external_link(scratch, name, where, target_file, target_object):
    path = os.path.join(scratch, name + ".hdf5")
    with snapshot(path) as f:
        del f[where]
        f[where] = h5py.ExternalLink(target_file, target_object)
    return path


def hostile_files(scratch):
    secret = os.path.join(scratch, "secret.txt")
    with open(secret, "wb") as out:
        out.write(SECRET)
    os.chmod(secret, 0o600)
    fifo = os.path.join(scratch, "fifo")
    os.mkfifo(fifo)
    good = os.path.join(scratch, "good.hdf5")
    snapshot(good).close()
    os.symlink(good, os.path.join(scratch, "good-link.hdf5"))
    soft_to_external = os.path.join(scratch, "soft-external.hdf5")
    with snapshot(soft_to_external) as f:
        f["elsewhere"] = h5py.ExternalLink(good, "/PartType1")
        del f["PartType1"]
        f["PartType1"] = h5py.SoftLink("/elsewhere")
    virtual = os.path.join(scratch, "virtual.hdf5")
    layout = h5py.VirtualLayout(shape=(N,), dtype="u8")
    layout[:] = h5py.VirtualSource(good, "/PartType1/ParticleIDs", shape=(N,))
    with snapshot(virtual, skip=("ParticleIDs",)) as f:
        f["PartType1"].create_virtual_dataset("ParticleIDs", layout)
    return [
        ("external storage, an absolute path", external_storage(scratch, "efl-absolute", [(secret, 0, 8 * N)]),
         "/PartType1/ParticleIDs keeps its values in another file"),
        ("external storage, a relative path", external_storage(scratch, "efl-relative", [("secret.txt", 0, 8 * N)]),
         "/PartType1/ParticleIDs keeps its values in another file (secret.txt)"),
        ("external storage, the reader's environment",
         external_storage(scratch, "efl-environ", [("/proc/self/environ", 0, 12 * N)], "Coordinates", "<f4", (N, 3)),
         "/PartType1/Coordinates keeps its values in another file (/proc/self/environ)"),
        ("external storage, /dev/zero", external_storage(scratch, "efl-zero", [("/dev/zero", 0, 8 * N)]),
         "(/dev/zero)"),
        ("external storage, a FIFO", external_storage(scratch, "efl-fifo", [(fifo, 0, 8 * N)]), "a FIFO"),
        ("external storage, several segments",
         external_storage(scratch, "efl-segments", [(secret, 0, 4 * N), (secret, 4 * N, 4 * N)]), "and 1 more"),
        ("an external link to a dataset", external_link(scratch, "xlink-dataset", "PartType1/Coordinates", good,
                                                        "/PartType1/Coordinates"),
         "/PartType1/Coordinates is an external link to"),
        ("an external link to a group", external_link(scratch, "xlink-group", "PartType1", good, "/PartType1"),
         "/PartType1 is an external link to"),
        ("an external link to the Header", external_link(scratch, "xlink-header", "Header", good, "/Header"),
         "/Header is an external link to"),
        ("an external link through a link to the file", external_link(
            scratch, "xlink-through", "PartType1", os.path.join(scratch, "good-link.hdf5"), "/PartType1"),
         "/PartType1 is an external link to"),
        ("an external link to a FIFO", external_link(scratch, "xlink-fifo", "PartType1", fifo, "/PartType1"),
         "/PartType1 is an external link to"),
        ("a soft link to an external link", soft_to_external, "/elsewhere is an external link to"),
        ("a virtual dataset", virtual, "/PartType1/ParticleIDs is a virtual dataset"),
    ]


def outputs_hold_no_secret(path):
    if not os.path.exists(path):
        return True
    with open(path, "rb") as f:
        return SECRET[:16] not in f.read()


def check_hostile(scratch):
    for what, path, expected in hostile_files(scratch):
        if expected == "a FIFO":
            expected = "(" + os.path.join(scratch, "fifo") + ")"
        runs = [("simulate", ["simulate", "--engine", "cpu", "--input", path, "--steps", 0, "-o", path + ".csv"],
                 path + ".csv"),
                ("simulate to .hdf5", ["simulate", "--engine", "cpu", "--input", path, "--steps", 0, "-o",
                                       path + ".out.hdf5"], path + ".out.hdf5"),
                ("accuracy", ["accuracy", "--engine", "cpu", "--input", path, "--json", path + ".json"], path + ".json")]
        for command, arguments, output in runs:
            done = nbody(*arguments, timeout=20)
            if done is None:
                check(False, f"{what}, {command}: still running after 20 s (blocked on another file)")
                continue
            lines = [line for line in done.stderr.decode(errors="replace").splitlines() if line.startswith("nbody: ")]
            check(done.returncode == 1 and len(lines) == 1 and path in lines[0] and expected in lines[0] and
                  "nbody reads nothing outside a snapshot's own file" in lines[0] and not os.path.exists(output),
                  f"{what}, {command}: exit {done.returncode}, {lines}")
            check(outputs_hold_no_secret(output) and SECRET[:16] not in done.stderr and SECRET[:16] not in done.stdout,
                  f"{what}, {command}: the secret was read")


def check_ids(scratch):
    negative = os.path.join(scratch, "ids-negative.hdf5")
    snapshot(negative, ids=-np.arange(1, N + 1, dtype="i8")).close()
    done = nbody("simulate", "--engine", "cpu", "--input", negative, "--steps", 0, "-o", negative + ".csv")
    check(done.returncode == 1 and b"/PartType1/ParticleIDs holds a negative ID (-1, body 0)" in done.stderr,
          f"negative IDs: {done.stderr}")
    signed = os.path.join(scratch, "ids-signed.hdf5")
    snapshot(signed, ids=np.arange(7, N + 7, dtype="i4")).close()
    done = nbody("simulate", "--engine", "cpu", "-q", "--input", signed, "--steps", 0, "-o", signed + ".csv")
    table = np.genfromtxt(signed + ".csv", delimiter=",", names=True) if done.returncode == 0 else None
    check(table is not None and list(table["id"].astype(int)) == list(range(7, N + 7)),
          f"signed IDs from 0 up are kept: {done.stderr}")


def check_link_cycles(scratch):
    soft = os.path.join(scratch, "soft-cycle.hdf5")
    with snapshot(soft) as f:
        f["a"] = h5py.SoftLink("/b")
        f["b"] = h5py.SoftLink("/a")
        del f["PartType1"]
        f["PartType1"] = h5py.SoftLink("/a")
    done = nbody("simulate", "--engine", "cpu", "--input", soft, "--steps", 0, "-o", soft + ".csv")
    check(done.returncode == 1 and b"a loop of soft links" in done.stderr, f"a soft-link cycle: {done.stderr}")
    dotted = os.path.join(scratch, "soft-dot.hdf5")
    with snapshot(dotted, skip=("Coordinates",)) as f:
        f["PartType1/X"] = np.zeros((N, 3), "f4")
        f["PartType1/Coordinates"] = h5py.SoftLink("./X")  # libhdf5 walks "." as no step
    done = nbody("simulate", "--engine", "cpu", "-q", "--input", dotted, "--steps", 0, "-o", dotted + ".csv")
    check(done.returncode == 0, f"a soft link through ./ is read: {done.stderr}")
    hard = os.path.join(scratch, "hard-cycle.hdf5")
    with snapshot(hard) as f:
        f["PartType1/parent"] = f["PartType1"]  # a group that holds itself
    done = nbody("simulate", "--engine", "cpu", "-q", "--input", hard, "--steps", 0, "-o", hard + ".csv")
    check(done.returncode == 0 and os.path.exists(hard + ".csv"), f"a hard-link cycle is harmless: {done.stderr}")


def check_two_parts(scratch):
    parts = [os.path.join(scratch, f"two.{k}.hdf5") for k in (0, 1)]
    for part in parts:
        with snapshot(part) as f:
            f["Header"].attrs["NumFilesPerSnapshot"] = 2
            f["Header"].attrs["NumPart_Total"] = np.array([0, 2 * N, 0, 0, 0, 0], "u4")
    with open(parts[1], "rb") as f:
        before = f.read()
    for output in (parts[1], os.path.join(scratch, ".", "two.1.hdf5")):
        done = nbody("simulate", "--engine", "cpu", "--input", parts[0], "--steps", 0, "-o", output)
        check(done.returncode == 1 and b"it is a file this run reads" in done.stderr, f"-o over part 1: {done.stderr}")
    with open(parts[1], "rb") as f:
        check(f.read() == before, "the other part of a two-file snapshot stays")


def wait_for_a_child(pid, seconds):
    """True once the process has forked (its reader's child runs libhdf5); a fixed sleep was too
    short on a loaded machine, where the signal came before nbody had taken its stop signals."""
    children = f"/proc/{pid}/task/{pid}/children"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open(children) as f:
                if f.read().split():
                    return True
        except OSError:
            return False
        time.sleep(0.005)
    return False


def check_a_stop_while_read(scratch):
    """A stop signal while libhdf5 reads a large compressed file in its child: nbody waited for the
    child (seconds), then said it stopped at step 0. It ends the wait within a fraction of a second."""
    big = os.path.join(scratch, "big.hdf5")
    count = 1 << 20
    with h5py.File(big, "w") as f:
        f.create_group("Header").attrs.update({"NumPart_ThisFile": np.array([0, count, 0, 0, 0, 0], "u4"),
                                                "MassTable": np.array([0, 1.0 / count, 0, 0, 0, 0])})
        group = f.create_group("PartType1")
        values = np.random.default_rng(2).normal(size=(count, 3))
        for name in ("Coordinates", "Velocities"):
            group.create_dataset(name, data=values, compression="gzip", compression_opts=9)
        group.create_dataset("ParticleIDs", data=np.arange(count, dtype="u8"), compression="gzip")
    started = time.monotonic()
    run = subprocess.Popen([NBODY, "simulate", "--engine", "cpu", "--input", big, "--steps", "0", "-o", big + ".nbody"],
                           stderr=subprocess.PIPE)
    reading = wait_for_a_child(run.pid, seconds=30)
    run.send_signal(signal.SIGINT)
    stopped = time.monotonic()
    _, err = run.communicate(timeout=60)
    check(reading and run.returncode == 130 and b"stopped by SIGINT while" in err and time.monotonic() - stopped < 1.5 and
          not os.path.exists(big + ".nbody"),
          f"a stop while reading (reader seen: {reading}): exit {run.returncode} {time.monotonic() - stopped:.1f} s after the signal, "
          f"{time.monotonic() - started:.1f} s in all: {err}")


def check_messages(scratch):
    comoving = os.path.join(scratch, "comoving.hdf5")
    with snapshot(comoving) as f:
        f.create_group("Parameters").attrs["ComovingIntegrationOn"] = 1
    done = nbody("simulate", "--engine", "cpu", "--input", comoving, "--steps", 0, "-o", comoving + ".csv")
    check(done.returncode == 1 and b"a cosmological snapshot (/Parameters ComovingIntegrationOn is set)" in done.stderr,
          f"a comoving run names its flag: {done.stderr}")
    partial = os.path.join(scratch, "partial.hdf5")
    with snapshot(partial, skip=("Coordinates",)) as f:
        data = f["PartType1"].create_dataset("Coordinates", shape=(N, 3), dtype="f4", chunks=(16, 3))
        data[:16] = 1.0  # one chunk of four written
    done = nbody("simulate", "--engine", "cpu", "--input", partial, "--steps", 0, "-o", partial + ".csv")
    check(done.returncode == 1 and f"claims {3 * N} values but stores 192 bytes, where they need {12 * N} bytes".encode()
          in done.stderr, f"a dataset written in part: {done.stderr}")


def main():
    with tempfile.TemporaryDirectory(prefix="nbody-hdf5-reach-") as scratch:
        check_hostile(scratch)
        check_ids(scratch)
        check_link_cycles(scratch)
        check_two_parts(scratch)
        check_a_stop_while_read(scratch)
        check_messages(scratch)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
