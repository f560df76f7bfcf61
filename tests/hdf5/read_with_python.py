#!/usr/bin/env python3
"""Reads a file vseg wrote with h5py and with dask, and checks the segment
sums against vseg's own: the layout of notes/hdf5.md is readable by other tools.

usage: read_with_python.py WRITE_SAMPLE_EXE WORK_DIR
Exits 77 (Meson's SKIP) when h5py, dask or numpy is missing."""
import os
import subprocess
import sys

try:
    import dask.array as da
    import h5py
    import numpy as np
except ImportError as e:
    print(f"skipping: {e} (install python3-h5py python3-dask python3-numpy)")
    sys.exit(77)

exe, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
path = os.path.join(work, "sample.h5")
out = subprocess.run([exe, path], check=True, capture_output=True, text=True).stdout
expected = np.array([int(line) for line in out.split()], dtype=np.int64)

with h5py.File(path, "r") as f:
    assert f.attrs["vseg_layout"] == b"vseg-nested", f.attrs["vseg_layout"]
    assert int(f.attrs["vseg_version"]) == 1
    assert int(f.attrs["depth"]) == 1
    assert f.attrs["fields"] == b"values"
    assert f["values"].attrs["element_type"] == b"int64"
    offsets = f["offsets_0"][...]
    values = f["values"][...]
    assert offsets[0] == 0 and offsets[-1] == len(values)

    # h5py + numpy: reduceat per segment (reduceat gives x[i] for an empty
    # segment, so those are zeroed).
    lengths = np.diff(offsets)
    starts = np.minimum(offsets[:-1], max(len(values) - 1, 0))
    by_numpy = np.add.reduceat(values, starts) if len(values) else np.zeros(len(lengths), np.int64)
    by_numpy[lengths == 0] = 0

    # dask over the h5py dataset, in chunks: prefix sums, differenced at the offsets.
    lazy = da.from_array(f["values"], chunks=4096)
    prefix = da.concatenate([da.zeros(1, dtype=np.int64), da.cumsum(lazy)])
    by_dask = (prefix[offsets[1:]] - prefix[offsets[:-1]]).compute()

for name, got in [("h5py+numpy", by_numpy), ("dask", by_dask)]:
    if got.shape != expected.shape or not np.array_equal(got, expected):
        bad = np.nonzero(got != expected)[0][:5] if got.shape == expected.shape else "shape"
        print(f"{name}: segment sums differ from vseg::sum_s at {bad}")
        sys.exit(1)
print(f"{len(expected)} segment sums agree (vseg, h5py+numpy, dask)")
