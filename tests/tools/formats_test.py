#!/usr/bin/env python3
"""What readers and writers we did not write make of nbody's GADGET, TIPSY and XDMF files, and of
theirs nbody reads (docs/formats.md). Debian's h5dump, splash, h5py and yt:

  h5dump   the HDF5 layout: attribute types and lengths, no cosmology, BoxSize 0, dataset types;
  h5py     every body of our HDF5 against the CSV of the same run (both hold the CPU engine's
           doubles: positions and masses exactly, velocities scaled to km/s within 1e-12), the
           units and time; files it writes that nbody
           must read (GADGET-4's 2-entry arrays, SWIFT's units, several files, gzip) or refuse
           (cosmological, claims beyond the stored bytes, type 6, a missing dataset); the same
           bodies in datasets nbody reads in place and in ones libhdf5 converts, the same run;
  yt       our HDF5 (N, total mass, first and last body, time, not cosmological, components as
           particle types) and TIPSY (every position, velocity and mass); GADGET-2 files of both
           formats and byte orders from its fake_gadget_binary, which nbody must read as yt does;
  splash   every body of our GADGET-2 binary (not TIPSY: Debian's splash 3.6.0 misreads binary
           TIPSY files, one written by hand in either layout too, so yt reads our TIPSY);
  the XDMF index: every DataItem names a dataset h5py finds, of that shape and precision, for a
           series in one folder, one with a folder a snapshot, and one written in parts;
  parts    a run on 3 ranks writing a GADGET HDF5 file a rank (--snapshot-files ranks): h5py finds
           the one file's bodies in them, bit for bit; yt loads them as one snapshot.

Usage: formats_test.py NBODY. Needs /usr/bin/python3 with h5py and yt (tools/setup.sh installs
them); reads GADGET-2's two-galaxy sample from $NBODY_GADGET_SAMPLES (default: the repository's
assets/gadget); prints "N passed, M failed" and exits non-zero on a failure.
"""
import math
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

import h5py
import numpy as np

from checks import check, summary

NBODY = sys.argv[1]
GRAVITY_CGS = 6.672e-8  # GADGET-2's, from which nbody takes G in a file's units
def nbody(*arguments):
    return subprocess.run([NBODY, *map(str, arguments)], capture_output=True, text=True)


def simulate(*arguments, ranks=1):
    """The CPU engine's run; under mpiexec with `ranks` ranks writing its states in parts, a GADGET
    HDF5 file a rank (--snapshot-files ranks), where ranks > 1."""
    if ranks == 1:
        done = nbody("simulate", "--engine", "cpu", "-q", *arguments)
    else:
        # Under AddressSanitizer (tools/sanitize.sh) no leak check in the ranks: Open MPI's
        # components, unloaded at MPI_Finalize, leave blocks LeakSanitizer can only call "<unknown
        # module>", as Mesa's do in the GL tier; the one-process runs keep theirs.
        leak_checks_off = (os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
        environment = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                           OMPI_MCA_rmaps_base_oversubscribe="1", ASAN_OPTIONS=leak_checks_off)
        done = subprocess.run(["mpiexec", "-n", str(ranks), NBODY, "simulate", "--engine", "cpu", "-q",
                               "--snapshot-files", "ranks", *map(str, arguments)],
                              capture_output=True, text=True, env=environment)
    if done.returncode != 0:
        raise RuntimeError(f"nbody simulate {arguments} failed: {done.stderr}")
    return done


def read_csv(path):
    return np.genfromtxt(path, delimiter=",", names=True, dtype=None)


def gadget_gravity(length, mass, velocity):
    time = length / velocity
    return GRAVITY_CGS * mass * time * time / length ** 3


def velocity_scale(run_gravity):
    return math.sqrt(gadget_gravity(3.085678e21, 1.989e43, 1e5) / run_gravity)


def by_id(table):
    return {int(row["id"]): row for row in table}


def check_h5dump(path, real):
    dump = subprocess.run(["h5dump", "-H", "-A", path], capture_output=True, text=True).stdout

    def attribute(name):
        found = re.search(r'ATTRIBUTE "' + re.escape(name) + r'" \{\s*DATATYPE\s+(\S+)\s*DATASPACE\s+([^\n]+)', dump)
        return (found.group(1), found.group(2).strip()) if found else None

    for name in ("NumPart_ThisFile", "NumPart_Total", "NumPart_Total_HighWord"):
        check(attribute(name) == ("H5T_STD_U32LE", "SIMPLE { ( 6 ) / ( 6 ) }"), f"h5dump: {name} is 6 x uint32")
    check(attribute("MassTable") == ("H5T_IEEE_F64LE", "SIMPLE { ( 6 ) / ( 6 ) }"), "h5dump: MassTable 6 x double")
    for name in ("Time", "Redshift", "BoxSize"):
        check(attribute(name) == ("H5T_IEEE_F64LE", "SCALAR"), f"h5dump: {name} is a double")
    for name in ("Omega0", "OmegaLambda", "HubbleParam", "Code"):
        check(attribute(name) is None, f"h5dump: no {name}")
    for dataset in ("Coordinates", "Velocities", "Masses"):
        found = re.search(r'DATASET "' + dataset + r'" \{\s*DATATYPE\s+(\S+)', dump)
        check(found and found.group(1) == real, f"h5dump: {dataset} is {real}")
    found = re.search(r'DATASET "ParticleIDs" \{\s*DATATYPE\s+(\S+)', dump)
    check(found and found.group(1) == "H5T_STD_U32LE", "h5dump: ParticleIDs are uint32")


def check_h5py(path, table, run_gravity):
    with h5py.File(path, "r") as f:
        header = f["Header"].attrs
        units = f["Units"].attrs
        check(list(header["NumFilesPerSnapshot"].flat) == [1], "h5py: one file")
        check(float(header["Redshift"]) == 0 and float(header["BoxSize"]) == 0, "h5py: redshift 0, BoxSize 0")
        check(int(f["RuntimePars"].attrs["PeriodicBoundariesOn"]) == 0, "h5py: not periodic (SWIFT)")
        check(units["Unit length in cgs (U_L)"] == units["UnitLength_in_cm"], "h5py: units in both namings")
        gravity = gadget_gravity(units["UnitLength_in_cm"], units["UnitMass_in_g"], units["UnitVelocity_in_cm_per_s"])
        check(abs(gravity - 43007.1) < 0.05, f"h5py: the units' G is 43007.1 ({gravity})")
        scale = math.sqrt(gravity / run_gravity)
        rows = by_id(table)
        counts = header["NumPart_ThisFile"]
        seen = 0
        for ptype in range(6):
            if counts[ptype] == 0:
                check(f"PartType{ptype}" not in f, f"h5py: no PartType{ptype}")
                continue
            group = f[f"PartType{ptype}"]
            ids = group["ParticleIDs"][:]
            check(ids.min() >= 1, f"h5py: PartType{ptype} IDs from 1")
            for k, body in enumerate(ids):
                row = rows[int(body)]
                seen += 1
                # The CPU engine's doubles, in both files: the CSV's digits read back to them exactly.
                same = (int(row["component"]) == ptype and
                        all(group["Coordinates"][k, c] == row[n] for c, n in enumerate("xyz")) and
                        group["Masses"][k] == row["mass"] and
                        all(abs(group["Velocities"][k, c] - float(row[n]) * scale) <=
                            1e-12 * abs(float(row[n]) * scale) for c, n in enumerate(("vx", "vy", "vz"))))
                if not same:
                    check(False, f"h5py: body {body} differs from the CSV")
                    return
        check(seen == len(table), f"h5py: every body, {seen} of {len(table)}")
        return float(header["Time"]), scale, units["UnitTime_in_s"]


def check_yt_hdf5(path, table, scale, time, time_unit):
    import yt
    yt.set_log_level(50)
    ds = yt.load(path)
    data = ds.all_data()
    check(ds.cosmological_simulation == 0, "yt: not cosmological")
    kinds = sorted(ds.particle_types_raw)
    components = sorted({f"PartType{int(c)}" for c in table["component"]})
    check(kinds == components, f"yt: particle types {kinds} are the components {components}")
    check(len(data["all", "particle_index"]) == len(table), "yt: N")
    mass = float(data["all", "particle_mass"].sum().in_units("Msun"))
    check(abs(mass / (1e10 * float(np.sum(table["mass"].astype(np.float64)))) - 1) < 1e-6, f"yt: total mass {mass}")
    gyr = float(ds.current_time.in_units("Gyr"))
    # yt's own kpc and Gyr differ from GADGET-2's in the sixth digit.
    check(abs(gyr - time * time_unit / 3.15576e16) <= 1e-5 * max(gyr, 1e-30), f"yt: time {gyr} Gyr")
    ids = data["all", "particle_index"].d.astype(np.int64)
    positions = data["all", "particle_position"].in_units("kpc").d
    velocities = data["all", "particle_velocity"].in_units("km/s").d
    rows = by_id(table)
    for body in (int(table["id"][0]), int(table["id"][-1])):
        k = int(np.nonzero(ids == body)[0][0])
        row = rows[body]
        check(np.allclose(positions[k], [row["x"], row["y"], row["z"]], rtol=1e-6, atol=0),
              f"yt: body {body}'s position")
        check(np.allclose(velocities[k], np.array([row["vx"], row["vy"], row["vz"]]) * scale, rtol=1e-6, atol=1e-9),
              f"yt: body {body}'s velocity")


def check_yt_tipsy(path, table):
    import yt
    ds = yt.load(path)
    data = ds.all_data()
    positions = data["all", "particle_position"].d
    check(len(positions) == len(table), "yt TIPSY: N")
    expected = np.stack([table["x"], table["y"], table["z"]], axis=1)  # every body dark: file order
    check(np.array_equal(positions.astype(np.float32), expected.astype(np.float32)), "yt TIPSY: every position")
    # In code units (yt's own defaults for a file without a .param would scale them).
    velocities = data["all", "particle_velocity"].in_units("code_velocity").d
    expected = np.stack([table["vx"], table["vy"], table["vz"]], axis=1)
    check(np.array_equal(velocities.astype(np.float32), expected.astype(np.float32)), "yt TIPSY: every velocity")
    masses = data["all", "particle_mass"].in_units("code_mass").d
    check(np.array_equal(masses.astype(np.float32), table["mass"].astype(np.float32)), "yt TIPSY: every mass")


def check_splash(path, table, scale, scratch):
    subprocess.run(["splash", "to", "ascii", "-f", "gadget", os.path.basename(path)], cwd=scratch,
                   capture_output=True, text=True)
    rows = np.loadtxt(path + ".ascii", comments="#")
    order = np.argsort(table["component"], kind="stable")  # the file's order: by type
    check(rows.shape[0] == len(table), f"splash: N {rows.shape[0]}")
    xyz = np.stack([table[n][order] for n in "xyz"], axis=1).astype(np.float32)
    check(np.array_equal(rows[:, 0:3].astype(np.float32), xyz), "splash: every position")
    v = np.stack([table[n][order] for n in ("vx", "vy", "vz")], axis=1).astype(np.float64) * scale
    check(np.allclose(rows[:, 3:6], v, rtol=2 ** -23, atol=0), "splash: every velocity, in km/s")
    check(np.array_equal(rows[:, 6].astype(np.float32), table["mass"][order].astype(np.float32)), "splash: every mass")


def check_fake_gadget_binary(scratch):
    import yt
    from yt.frontends.gadget.testing import fake_gadget_binary
    for fmt in (1, 2):
        for endian in ("<", ">"):
            name = os.path.join(scratch, f"fake-{fmt}{'le' if endian == '<' else 'be'}")
            fake_gadget_binary(filename=name, fmt=fmt, endian=endian)
            simulate("--input", name, "--steps", 0, "-o", name + ".csv")
            ours = read_csv(name + ".csv")
            ds = yt.load(name)
            data = ds.all_data()
            for ptype, component in (("Gas", 0), ("Halo", 1), ("Disk", 2), ("Stars", 4)):
                mine = ours[ours["component"] == component]
                theirs = data[ptype, "Coordinates"].d
                same = len(mine) == len(theirs) and np.array_equal(
                    np.stack([mine[n] for n in "xyz"], axis=1).astype(np.float32), theirs.astype(np.float32))
                ids = data[ptype, "ParticleIDs"].d.astype(np.int64)
                check(same and np.array_equal(mine["id"].astype(np.int64), ids),
                      f"fake_gadget_binary format {fmt} {endian}: {ptype} as yt reads it")


def write_h5(path, counts, masses=None, header_extra=None, groups=None, units=None, files=1):
    """A GADGET HDF5 file in h5py's hands: `counts` of any length, datasets for each type."""
    with h5py.File(path, "w") as f:
        header = f.create_group("Header")
        header.attrs["NumPart_ThisFile"] = np.array(counts, dtype=np.uint64)
        header.attrs["NumPart_Total"] = np.array(counts, dtype=np.uint64)
        header.attrs["MassTable"] = np.array(masses if masses is not None else [0.0] * len(counts))
        header.attrs["Time"] = 0.25
        header.attrs["NumFilesPerSnapshot"] = files
        for key, value in (header_extra or {}).items():
            header.attrs[key] = value
        for where, attributes in (units or {}).items():
            group = f.require_group(where)
            for key, value in attributes.items():
                group.attrs[key] = value
        for ptype, count in enumerate(counts):
            if count == 0 or (groups is not None and ptype not in groups):
                continue
            g = f.create_group(f"PartType{ptype}")
            g["Coordinates"] = np.arange(3 * count, dtype=np.float64).reshape(count, 3) + 0.5
            g["Velocities"] = -np.arange(3 * count, dtype=np.float64).reshape(count, 3)
            g["ParticleIDs"] = np.arange(1, count + 1, dtype=np.uint64) + 1000 * ptype
            if masses is None or masses[ptype] == 0:
                g["Masses"] = np.full(count, 0.125, dtype=np.float32)


def check_real_world_hdf5(scratch):
    mpc = {"/Parameters": {"UnitLength_in_cm": 3.085678e24, "UnitMass_in_g": 1.989e43,
                           "UnitVelocity_in_cm_per_s": 1e5}}
    gadget4 = os.path.join(scratch, "gadget4.hdf5")
    write_h5(gadget4, [0, 5], masses=[0.0, 0.5], header_extra={"BoxSize": np.array([10.0, 10.0, 10.0])}, units=mpc)
    done = simulate("--input", gadget4, "--steps", 0, "-o", gadget4 + ".csv")
    table = read_csv(gadget4 + ".csv")
    check(len(table) == 5 and np.all(table["mass"] == 0.5) and np.all(table["component"] == 1) and
          table["x"][1] == 3.5 and table["id"][4] == 1005, "GADGET-4 layout: 2-entry arrays, MassTable, u64")
    expected = gadget_gravity(3.085678e24, 1.989e43, 1e5)
    said = re.search(r"G = (\S+) from", done.stderr)
    check(said and abs(float(said.group(1)) / expected - 1) < 1e-12, f"G from /Parameters' units: {done.stderr}")
    swift = os.path.join(scratch, "swift.hdf5")
    write_h5(swift, [0, 2, 3], units={"/Units": {"Unit length in cgs (U_L)": 3.085678e21,
                                                 "Unit mass in cgs (U_M)": 1.989e43,
                                                 "Unit time in cgs (U_t)": 3.085678e16}})
    done = simulate("--input", swift, "--steps", 0, "-o", swift + ".csv")
    check(len(read_csv(swift + ".csv")) == 5 and "43007.1" in done.stderr, f"SWIFT's units: {done.stderr}")
    for index in (0, 1):
        write_h5(os.path.join(scratch, f"multi.{index}.hdf5"), [0, 2, 1], files=2)
    with h5py.File(os.path.join(scratch, "multi.0.hdf5"), "a") as f:
        f["Header"].attrs["NumPart_Total"] = np.array([0, 4, 2], dtype=np.uint64)
    with h5py.File(os.path.join(scratch, "multi.1.hdf5"), "a") as f:
        f["Header"].attrs["NumPart_Total"] = np.array([0, 4, 2], dtype=np.uint64)
    simulate("--input", os.path.join(scratch, "multi.0.hdf5"), "--steps", 0, "-o", os.path.join(scratch, "m.csv"))
    check(len(read_csv(os.path.join(scratch, "m.csv"))) == 6, "several files: base.0.hdf5 and base.1.hdf5")
    radii = os.path.join(scratch, "radii.hdf5")  # nbody's own Radius datasets, written by h5py
    write_h5(radii, [0, 2, 3])
    with h5py.File(radii, "a") as f:
        f["PartType1"]["Radius"] = np.array([0.5, 0.25])
        f["PartType2"]["Radius"] = np.array([1.0 / 3.0, 0.0, 2.0])
    simulate("--input", radii, "--steps", 0, "-o", radii + ".csv")
    table = read_csv(radii + ".csv")
    check(list(table["radius"]) == [0.5, 0.25, 1.0 / 3.0, 0.0, 2.0], f"Radius read: {list(table['radius'])}")
    simulate("--input", radii + ".csv", "--steps", 0, "-o", radii + ".again.hdf5")
    with h5py.File(radii + ".again.hdf5", "r") as f:
        written = list(f["PartType1/Radius"][:]) + list(f["PartType2/Radius"][:])
        check(written == [0.5, 0.25, 1.0 / 3.0, 0.0, 2.0] and f["PartType2/Radius"].dtype == np.float64,
              f"Radius written as float64: {written}")
    with h5py.File(radii, "a") as f:
        del f["PartType2/Radius"]
    refused = nbody("simulate", "--engine", "cpu", "-q", "--input", radii, "--steps", 0, "-o", "/dev/null")
    check(refused.returncode != 0 and "PartType2 lacks the bodies' Radius" in refused.stderr,
          f"Radius in some groups alone refused: {refused.stderr}")
    packed = os.path.join(scratch, "packed.hdf5")
    write_h5(packed, [0, 4])
    with h5py.File(packed, "a") as f:
        del f["PartType1/Coordinates"]
        f["PartType1"].create_dataset("Coordinates", data=np.zeros((4, 3)), compression="gzip")
    check(nbody("simulate", "--engine", "cpu", "-q", "--input", packed, "--steps", 0, "-o", "/dev/null").returncode == 0,
          "gzip-compressed datasets")


def check_values_where_stored(scratch):
    """The same bodies in datasets nbody reads in place (contiguous, little-endian: the child says
    where, the parent reads them) and in ones libhdf5 converts in the child (chunked, gzip,
    big-endian, signed IDs): the same run, byte for byte, float32 and float64 alike."""
    positions = [[0.5, -0.0, 1e-40], [3e38, -2.25, 0.1], [1.0 / 3.0, 7.0, -1e-3]]
    velocities = [[-1e-310, 2.0, 0.3], [4.0, 5e-45, -6.0], [1e5, -0.7, 8.0]]
    layouts = {"contiguous": ("<", "u", {}), "chunked": ("<", "u", {"chunks": True}),
               "gzip": ("<", "u", {"compression": "gzip"}), "big-endian": (">", "i", {})}
    for size in (4, 8):
        runs = {}
        for layout, (order, sign, options) in layouts.items():
            path = os.path.join(scratch, f"stored-{size}-{layout}.hdf5")
            with h5py.File(path, "w") as f:
                header = f.create_group("Header")
                header.attrs["NumPart_ThisFile"] = np.array([0, 3], dtype=np.uint32)
                header.attrs["Time"] = 0.5
                g = f.create_group("PartType1")
                real = f"{order}f{size}"
                g.create_dataset("Coordinates", data=np.array(positions, dtype=real), **options)
                g.create_dataset("Velocities", data=np.array(velocities, dtype=real), **options)
                g.create_dataset("Masses", data=np.array([0.125, 1.0 / 3.0, 2.0], dtype=real), **options)
                g.create_dataset("ParticleIDs", data=np.array([2 ** 31 - 1, 3, 9], dtype=f"{order}{sign}{size}"),
                                 **options)
            simulate("--input", path, "--steps", 0, "-o", path + ".nbody")
            with open(path + ".nbody", "rb") as f:
                runs[layout] = f.read()
        check(all(run == runs["contiguous"] for run in runs.values()),
              f"float{8 * size} read in place and by libhdf5 alike: "
              f"{[layout for layout, run in runs.items() if run != runs['contiguous']]} differ")


def hostile_files(scratch):
    def made(name, build):
        path = os.path.join(scratch, name + ".hdf5")
        build(path)
        return path

    def claims_beyond_storage(path):
        write_h5(path, [0, 3])
        with h5py.File(path, "a") as f:
            f["Header"].attrs["NumPart_ThisFile"] = np.array([0, 10 ** 9], dtype=np.uint64)
            del f["PartType1/Coordinates"]
            f["PartType1"].create_dataset("Coordinates", shape=(10 ** 9, 3), dtype=np.float32)  # never written

    def integer_positions(path):
        write_h5(path, [0, 3])
        with h5py.File(path, "a") as f:
            del f["PartType1/Coordinates"]
            f["PartType1/Coordinates"] = np.zeros((3, 3), dtype=np.int32)

    return [
        ("cosmological", made("cosmo", lambda p: write_h5(p, [0, 3], header_extra={"Redshift": 2.0})),
         "cosmological"),
        ("more bodies than stored", made("bomb", claims_beyond_storage), "claims 3000000000 values but stores 0"),
        ("a count that is no dataset's", made("short", lambda p: write_h5(p, [0, 3], header_extra={
            "NumPart_ThisFile": np.array([0, 5], dtype=np.uint32)})), "is not 5 x 3 values"),
        ("type 6", made("type6", lambda p: write_h5(p, [0, 1, 0, 0, 0, 0, 0, 2], groups=[1])), "type 7"),
        ("no ParticleIDs", made("noids", lambda p: (write_h5(p, [0, 2]), h5py.File(p, "a").__delitem__(
            "PartType1/ParticleIDs"))), "no dataset /PartType1/ParticleIDs"),
        ("integer positions", made("ints", integer_positions), "no floating-point numbers"),
        ("truncated", made("cut", lambda p: (write_h5(p, [0, 50]), os.truncate(p, os.path.getsize(p) // 2))), None),
        ("no /Header", made("plain", lambda p: h5py.File(p, "w").create_dataset("x", data=[1])), "no group /Header"),
    ]


def check_hostile(scratch):
    for what, path, expected in hostile_files(scratch):
        done = nbody("simulate", "--engine", "cpu", "--input", path, "--steps", 0, "-o", path + ".csv")
        lines = done.stderr.strip().splitlines()
        check(done.returncode == 1 and len(lines) == 1 and path in lines[0] and
              (expected is None or expected in lines[0]) and not os.path.exists(path + ".csv"),
              f"hostile HDF5, {what}: exit {done.returncode}, {done.stderr.strip()}")


def check_xdmf(scratch, pattern, folders=(), ranks=1):
    """A series written to `pattern` (below scratch/series-K-R, `folders` made first; by `ranks`
    ranks in parts where more than one): its index lists both snapshots, and every DataItem names a
    dataset of the shape, width and time it says."""
    folder = os.path.join(scratch, f"series-{len(folders)}-{ranks}")
    for made in folders:
        os.makedirs(os.path.join(folder, made))
    os.makedirs(folder, exist_ok=True)
    simulate("--scene", "galaxies", "-n", 64, "--steps", 2, "--snapshot-every", 1, "--snapshot-path",
             os.path.join(folder, pattern), "-o", os.path.join(folder, "final.hdf5"), ranks=ranks)
    root = ElementTree.parse(os.path.join(folder, "s.xmf")).getroot()
    series = root.find("Domain/Grid")
    check(series.get("CollectionType") == "Temporal" and len(series.findall("Grid")) == 2,
          f"XDMF of {pattern}: two snapshots")
    for snapshot in series.findall("Grid"):
        time = float(snapshot.find("Time").get("Value"))
        for item in snapshot.iter("DataItem"):
            file, dataset = item.text.split(":")
            with h5py.File(os.path.join(folder, file), "r") as f:
                data = f[dataset]
                dims = tuple(int(d) for d in item.get("Dimensions").split())
                check(data.shape == dims and data.dtype.itemsize == int(item.get("Precision")) and
                      float(f["Header"].attrs["Time"]) == time, f"XDMF: {item.text}")


def bodies_by_id(files):
    """Every body of the GADGET HDF5 `files` by ID: (position, velocity, mass) as stored."""
    bodies = {}
    for path in files:
        with h5py.File(path, "r") as f:
            for group in (g for g in f if g.startswith("PartType")):
                data = f[group]
                for k, body in enumerate(data["ParticleIDs"][:]):
                    bodies[int(body)] = (tuple(data["Coordinates"][k]), tuple(data["Velocities"][k]),
                                         float(data["Masses"][k]))
    return bodies


def check_parts(scratch, run, one_file):
    """The run of `one_file` on 3 ranks, written in parts: h5py finds in them together the bodies of
    the one file, every number the same, and headers that say 3 files and the whole's totals; yt
    loads the parts as one snapshot of every body."""
    simulate(*run, "-o", os.path.join(scratch, "parts.hdf5"), ranks=3)
    files = [os.path.join(scratch, f"parts.{k}.hdf5") for k in range(3)]
    with h5py.File(one_file, "r") as f:
        totals = list(f["Header"].attrs["NumPart_Total"])
    held = []
    for path in files:
        with h5py.File(path, "r") as f:
            header = f["Header"].attrs
            held.append(int(sum(header["NumPart_ThisFile"])))
            check(int(header["NumFilesPerSnapshot"]) == 3 and list(header["NumPart_Total"]) == totals,
                  f"h5py: {os.path.basename(path)} is one of 3 files of the whole")
    whole = bodies_by_id([one_file])
    check(bodies_by_id(files) == whole and sum(held) == len(whole) and max(held) < len(whole),
          f"h5py: the parts ({held} bodies) hold the one file's {len(whole)} bodies, bit for bit")
    import yt
    yt.set_log_level(50)
    data = yt.load(files[0]).all_data()
    ids = sorted(int(i) for i in data["all", "particle_index"].d)
    check(ids == sorted(whole), f"yt: the parts as one snapshot of {len(ids)} bodies")


def main():
    with tempfile.TemporaryDirectory(prefix="nbody-formats-") as scratch:
        run = ["--scene", "galaxies", "-n", 1000, "--steps", 3, "--dt", 0.01]
        for extension in ("hdf5", "csv", "gadget", "tipsy"):
            simulate(*run, "-o", os.path.join(scratch, "run." + extension))
        table = read_csv(os.path.join(scratch, "run.csv"))
        hdf5 = os.path.join(scratch, "run.hdf5")
        check_h5dump(hdf5, "H5T_IEEE_F64LE")  # a G = 1 run, scaled: doubles
        time, scale, time_unit = check_h5py(hdf5, table, 1.0)
        check(time == 0.03 / scale, f"h5py: the time in GADGET's units ({time})")
        check_yt_hdf5(hdf5, table, scale, time, time_unit)
        check_yt_tipsy(os.path.join(scratch, "run.tipsy"), table)
        check_splash(os.path.join(scratch, "run.gadget"), table, scale, scratch)
        sample = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "assets", "gadget")
        galaxy = os.path.join(os.environ.get("NBODY_GADGET_SAMPLES", sample), "galaxy_littleendian.dat")
        simulate("--input", galaxy, "--steps", 0, "-o", os.path.join(scratch, "galaxy.hdf5"))
        check_h5dump(os.path.join(scratch, "galaxy.hdf5"), "H5T_IEEE_F32LE")  # in GADGET's units: float32
        check_fake_gadget_binary(scratch)
        check_real_world_hdf5(scratch)
        check_values_where_stored(scratch)
        check_hostile(scratch)
        check_xdmf(scratch, "s-{step}.hdf5")
        check_xdmf(scratch, "f-{step}/s.hdf5", ("f-000000001", "f-000000002"))
        check_xdmf(scratch, "s-{step}.hdf5", ranks=3)
        check_parts(scratch, run, hdf5)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
