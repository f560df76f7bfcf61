#!/usr/bin/env python3
"""Replication on virtual segments, side by side with NESL's vinterp.

  replication.py VSEG_VCODE [--runs N] [--nesl DIR] [--vinterp PATH]

Compiles with NESL's compiler
  * tests/vcode/nesl/spmv.nesl (nested SpMV, the vector v free in the inner
    loop, so NESL replicates v once per non-zero) at r = 10 rows of
    k = 1 .. 1000 non-zeros over n = 10^4 elements: replication factor
    r * k = 10 .. 10^4;
  * tests/vcode/nesl/tree.nesl (DPH's treeLookup: the table, 20,000
    elements, free in the recursion, so NESL replicates it at every level)
    for m = 16 .. 4096 keys: m copies of the table at the last level;
  * tests/vcode/nesl/bfs.nesl (BFS, the adjacency lists of n vertices, 8
    each, free in the apply-to-each over the frontier, so NESL makes one
    copy of all of them per frontier vertex: f*n lists at a frontier of f)
    for n = 1000 .. 4000 (the replication factor shown is n).
--cases WORD runs only the rows whose label contains WORD (e.g. BFS).
Runs vseg-vcode and vinterp interleaved, N runs
each (default 3), every output checked equal, and prints the median wall
time (min-max), the median peak RSS (/usr/bin/time -v) and the ratios.
NESL is built with ../shared/nesl/build into --nesl (default
/tmp/nesl-compiler) and vinterp with ../shared/vcode/reference/build when
absent. Takes /tmp/vseg-bench.lock while it measures.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from benchlock import take_bench_lock

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
# (source, NESL expression, what the row shows, replication factor)
CASES = [("spmv", f"run_smvp(10, {k}, 10000)", f"SpMV 10 x {k}", 10 * k) for k in (1, 10, 100, 1000)] + \
        [("tree", f"run_tree(20000, {m})", f"treeLookup {m} keys", m) for m in (16, 256, 4096)] + \
        [("bfs", f"run_bfs({n}, 8)", f"BFS {n} x 8", n) for n in (1000, 2000, 4000)]


def run(cmd, cwd):
    start = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, cwd=cwd, text=True)
    secs = time.perf_counter() - start  # /usr/bin/time's wall clock has 10 ms steps
    if r.returncode != 0:
        sys.exit(f"{cmd} failed: {r.stderr[-500:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1))
    return r.stdout, secs, rss / 1024.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vseg")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--nesl", default="/tmp/nesl-compiler")
    ap.add_argument("--vinterp")
    ap.add_argument("--cases", default="")
    a = ap.parse_args()
    cases = [c for c in CASES if a.cases in c[2]]
    vseg = os.path.abspath(a.vseg)
    vinterp = a.vinterp or subprocess.run([os.path.join(SHARED, "vcode/reference/build")], capture_output=True,
                                          text=True, check=True).stdout.strip()
    if not os.path.exists(os.path.join(a.nesl, "neslc")):
        subprocess.run([os.path.join(SHARED, "nesl/build"), a.nesl], check=True, capture_output=True)
    work = tempfile.mkdtemp(prefix="vseg-replication-")
    for source in sorted({c[0] for c in cases}):
        subprocess.run(["cp", os.path.join(ROOT, f"tests/vcode/nesl/{source}.nesl"), work], check=True)
    print("| program (replication factor) | vseg-vcode s | vinterp s | speed-up | vseg-vcode MB | vinterp MB | memory ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    with take_bench_lock():
        for i, (source, expression, label, factor) in enumerate(cases):
            name = f"{source}_{i}"
            subprocess.run([os.path.join(a.nesl, "neslc"), source, expression, name], cwd=work,
                           check=True, capture_output=True)
            prog = os.path.join(work, name + ".vcode")
            t = {"vseg": [], "vinterp": []}
            m = {"vseg": [], "vinterp": []}
            for _ in range(a.runs):
                out_v, s, mb = run([vseg, prog], work)
                t["vseg"].append(s), m["vseg"].append(mb)
                out_n, s, mb = run([vinterp, "-m", "400000000", prog], work)
                t["vinterp"].append(s), m["vinterp"].append(mb)
                if out_v != out_n:
                    sys.exit(f"{name}: outputs differ:\n{out_v}\n{out_n}")
            med = {x: statistics.median(t[x]) for x in t}
            mem = {x: statistics.median(m[x]) for x in m}
            print(f"| {label} ({factor}) | {med['vseg']:.3f} ({min(t['vseg']):.3f}-{max(t['vseg']):.3f}) "
                  f"| {med['vinterp']:.3f} ({min(t['vinterp']):.3f}-{max(t['vinterp']):.3f}) "
                  f"| {med['vinterp'] / med['vseg']:.1f}x | {mem['vseg']:.0f} | {mem['vinterp']:.0f} "
                  f"| {mem['vinterp'] / mem['vseg']:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
