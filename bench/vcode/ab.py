#!/usr/bin/env python3
"""Interleaved A/B timing of two or more vseg-vcode builds on one program.

    python3 bench/vcode/ab.py PROGRAM.vcode RUNS BUILD_A BUILD_B [...]

Runs the builds alternately, RUNS times each, the order rotated by one
build each round (on this VM the later runs of a round were measured
faster), so that the VM's drift over minutes (notes/vcode.md) and the
position in a round fall on all of them alike, and prints per build
the median, minimum and third quartile of the wall time and the medians of
user and system time. --gap S sleeps S seconds before every run (after a
few seconds idle this VM hands freed memory back to its host, and first
touches cost far more: see notes/vcode.md).
"""
import argparse
import resource
import statistics
import subprocess
import sys
import time

from benchlock import take_bench_lock


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("program")
    ap.add_argument("runs", type=int)
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--gap", type=float, default=0.0)
    a = ap.parse_args()
    lock = take_bench_lock()  # held until the process exits
    times = {b: [] for b in a.builds}
    for r in range(a.runs):
        shift = r % len(a.builds)
        for b in a.builds[shift:] + a.builds[:shift]:
            if a.gap:
                time.sleep(a.gap)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run([b, a.program], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            times[b].append((wall, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime))
    for b in a.builds:
        walls = sorted(t[0] for t in times[b])
        print(f"{b}: wall median {statistics.median(walls) * 1e3:.1f} ms, min {walls[0] * 1e3:.1f}, "
              f"q3 {walls[3 * len(walls) // 4] * 1e3:.1f}; user {statistics.median(t[1] for t in times[b]) * 1e3:.1f} ms, "
              f"system {statistics.median(t[2] for t in times[b]) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
