#!/usr/bin/env python3
"""The blocked segmented sum and PageRank-style SpMV of bench/ooc_sum and
examples/ooc_spmv, with dask.array over h5py on the same HDF5 file (the
layout of notes/hdf5.md): blocks of whole rows of the same size, one
numpy.add.reduceat per block, dask's threaded scheduler with the same
number of threads.

usage: ooc_dask.py FILE.h5 sum|spmv --block-elements B --threads T [--iterations I] [--repeat R]
Prints `time <s>` per repeat, then the sums' total (sum) or |x|_1 and x[0] (spmv)."""
import argparse
import time

import dask
import dask.array as da
import h5py
import numpy as np

p = argparse.ArgumentParser()
p.add_argument("file")
p.add_argument("what", choices=["sum", "spmv"])
p.add_argument("--block-elements", type=int, required=True)
p.add_argument("--threads", type=int, required=True)
p.add_argument("--iterations", type=int, default=1)
p.add_argument("--repeat", type=int, default=1)
a = p.parse_args()

with h5py.File(a.file, "r") as f, dask.config.set(scheduler="threads", num_workers=a.threads):
    offsets = f["offsets_0"][...]
    n = len(offsets) - 1
    # Blocks of whole rows, elements + rows at most block_elements: vseg's
    # plan_blocks rule (these rows are far shorter than a block).
    work = offsets + np.arange(n + 1)
    bounds = [0]
    while bounds[-1] < n:
        r0 = bounds[-1]
        r1 = int(np.searchsorted(work, work[r0] + a.block_elements, side="right")) - 1
        bounds.append(min(n, max(r1, r0 + 1)))
    bounds = np.minimum(np.array(bounds), n)
    element_chunks = tuple(int(offsets[b1] - offsets[b0]) for b0, b1 in zip(bounds[:-1], bounds[1:]))
    row_chunks = tuple(int(b1 - b0) for b0, b1 in zip(bounds[:-1], bounds[1:]))
    local_starts = [offsets[b0:b1] - offsets[b0] for b0, b1 in zip(bounds[:-1], bounds[1:])]

    values = da.from_array(f["values"], chunks=(element_chunks,))

    def block_sum(v, block_info=None):
        return np.add.reduceat(v, local_starts[block_info[0]["chunk-location"][0]])

    if a.what == "sum":
        for _ in range(a.repeat):
            t, c = time.perf_counter(), time.process_time()
            sums = values.map_blocks(block_sum, chunks=(row_chunks,), dtype=np.float64).compute()
            print(f"time {time.perf_counter() - t:.4f} s")
            print(f"cpu {time.process_time() - c:.4f} s")
        print(f"segments {len(sums)} total {sums.sum():.17g}")
    else:
        columns = da.from_array(f["columns"], chunks=(element_chunks,))

        def block_spmv(c, v, x=None, block_info=None):
            return np.add.reduceat(v * x[c], local_starts[block_info[0]["chunk-location"][0]])

        for _ in range(a.repeat):
            t, c = time.perf_counter(), time.process_time()
            x = np.full(n, 1.0 / n)
            for _ in range(a.iterations):
                y = da.map_blocks(block_spmv, columns, values, x=x, chunks=(row_chunks,), dtype=np.float64).compute()
                x = y / np.abs(y).sum()
            print(f"time {time.perf_counter() - t:.4f} s")
            print(f"cpu {time.process_time() - c:.4f} s")
        print(f"x_l1 {np.abs(x).sum():.17g} x0 {x[0]:.17g}")
