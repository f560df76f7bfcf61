#!/usr/bin/env python3
"""A file written collectively by several MPI ranks is one ordinary vseg
array: its segment sums as the ranks computed them in memory, as the serial
reader (read_sums) reads them, and as h5py + numpy read them agree.

usage: dist_read_with_python.py WORK_DIR READ_SUMS_EXE MPIEXEC [ARGS...] WRITER_EXE
(the file is WORK_DIR/dist-sample.h5, appended to the writer's command).
Exits 77 (Meson's SKIP) when h5py or numpy is missing."""
import os
import subprocess
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:
    print(f"skipping: {e} (install python3-h5py python3-numpy)")
    sys.exit(77)

work, read_sums, writer = sys.argv[1], sys.argv[2], sys.argv[3:]
os.makedirs(work, exist_ok=True)
path = os.path.join(work, "dist-sample.h5")


def sums_of(command):
    out = subprocess.run(command, check=True, capture_output=True, text=True, timeout=60).stdout
    return np.array([int(line) for line in out.split()], dtype=np.int64)


by_ranks = sums_of(writer + [path])
by_serial_reader = sums_of([read_sums, path])
with h5py.File(path, "r") as f:
    assert f.attrs["vseg_layout"] == b"vseg-nested", f.attrs["vseg_layout"]
    assert int(f.attrs["depth"]) == 1 and f.attrs["fields"] == b"values"
    assert f["values"].attrs["element_type"] == b"int64"
    assert f["values"].fletcher32 and f["offsets_0"].fletcher32
    offsets, values = f["offsets_0"][...], f["values"][...]
lengths = np.diff(offsets)
by_h5py = np.add.reduceat(values, np.minimum(offsets[:-1], len(values) - 1))
by_h5py[lengths == 0] = 0

if len(by_ranks) < 3000:
    print(f"the writer printed only {len(by_ranks)} sums")
    sys.exit(1)
for name, got in [("serial reader", by_serial_reader), ("h5py+numpy", by_h5py)]:
    if got.shape != by_ranks.shape or not np.array_equal(got, by_ranks):
        bad = np.nonzero(got != by_ranks)[0][:5] if got.shape == by_ranks.shape else f"shape {got.shape}"
        print(f"{name}: segment sums differ from the ranks' own at {bad}")
        sys.exit(1)
print(f"{len(by_ranks)} segment sums agree (the ranks in memory, the serial reader, h5py+numpy)")
