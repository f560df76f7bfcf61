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
touches cost far more: see notes/vcode.md). --after-vinterp PATH runs NESL's
vinterp (PATH, with run.py's -m) on the program before every run, as run.py
does, and prints its median and each build's ratio to it: the conditions of
the side-by-side table (vinterp frees its memory just before).
"""
import argparse
import resource
import statistics
import subprocess
import sys
import time

from benchlock import take_bench_lock
from run import VINTERP_WORDS


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("program")
    ap.add_argument("runs", type=int)
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--gap", type=float, default=0.0)
    ap.add_argument("--after-vinterp", metavar="PATH")
    a = ap.parse_args()
    lock = take_bench_lock()  # held until the process exits
    times = {b: [] for b in a.builds}
    vinterp_walls = []
    for r in range(a.runs):
        shift = r % len(a.builds)
        for b in a.builds[shift:] + a.builds[:shift]:
            if a.gap:
                time.sleep(a.gap)
            if a.after_vinterp:
                t0 = time.perf_counter()
                subprocess.run([a.after_vinterp, "-m", VINTERP_WORDS, a.program], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, check=True)
                vinterp_walls.append(time.perf_counter() - t0)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run([b, a.program], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            times[b].append((wall, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime))
    if vinterp_walls:
        print(f"vinterp: wall median {statistics.median(vinterp_walls) * 1e3:.1f} ms")
    for b in a.builds:
        walls = sorted(t[0] for t in times[b])
        ratio = f", vinterp / median {statistics.median(vinterp_walls) / statistics.median(walls):.2f}x" if vinterp_walls else ""
        print(f"{b}: wall median {statistics.median(walls) * 1e3:.1f} ms, min {walls[0] * 1e3:.1f}, "
              f"q3 {walls[3 * len(walls) // 4] * 1e3:.1f}; user {statistics.median(t[1] for t in times[b]) * 1e3:.1f} ms, "
              f"system {statistics.median(t[2] for t in times[b]) * 1e3:.1f} ms{ratio}")


if __name__ == "__main__":
    main()
