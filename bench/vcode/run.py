#!/usr/bin/env python3
"""Times vseg-vcode on NESL's large benchmark programs and prints a table
beside the reference times of NESL's serial interpreter (from
../shared/vcode/README.md, measured on this machine kind).

  run.py VSEG_VCODE [--repeat N] [--threads T] [--shared DIR] [PROGRAM ...]

The time is the wall time of the whole process (parse + run + output), the
median of N runs (default 5). The program's own STOP_TIMER value, which
excludes parsing and the input generation before START_TIMER, is shown too.
Every run's output is checked against the expected file (timer line excluded).

It then measures the interpretation overhead: the wall time per instruction of
a loop of scalar operations (COPY, CONST, =, IF, -, CALL, RET on one-element
vectors, where the vector work is nil), less the time of an empty program, and
estimates each benchmark's share of it: instructions x that time / wall time.
"""
import argparse
import fcntl
import os
import statistics
import subprocess
import sys
import tempfile
import time

REFERENCE = {  # wall seconds, NESL serial vinterp, -O2 CVL
    "dotp.10000000": 0.31,
    "qs.1000000": 0.31,
    "black-scholes.10000000": 6.90,
    "batcher.1000000": 4.49,
    "radix.1000000": 0.10,
    "muladd-res": 0.44,
}
DEFAULT = ["dotp.10000000", "qs.1000000", "batcher.1000000", "black-scholes.10000000", "radix.1000000"]


# 2.4 million instructions of pure interpretation: a countdown by recursion.
SCALAR_LOOP = """FUNC MAIN
CONST INT 300000
CALL LOOP
RET

FUNC LOOP
COPY 1 0
CONST INT 0
= INT
IF
ELSE
CONST INT 1
- INT
CALL LOOP
ENDIF
RET
"""
EMPTY = "FUNC MAIN\nCONST INT 1\nRET\n"


def median_wall(cmd, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def instructions(cmd):
    """The instruction count vseg-vcode --stats reports for a program."""
    err = subprocess.run(cmd[:1] + ["--stats"] + cmd[1:], capture_output=True, text=True).stderr
    first = err.split("\n")[0].split()
    return int(first[1]) if len(first) > 2 and first[2] == "instructions" else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("programs", nargs="*", default=DEFAULT)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=0)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--shared", default=os.environ.get("VSEG_SHARED", os.path.join(here, "..", "..", "..", "shared")))
    a = ap.parse_args()
    # One benchmark on the machine at a time: the lock scripts/bench-report
    # and scripts/bench-primitives take (scripts/bench-common.sh), held
    # until the process exits.
    lock = open("/tmp/vseg-bench.lock", "a")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print("waiting for the benchmark lock /tmp/vseg-bench.lock", file=sys.stderr, flush=True)
        fcntl.flock(lock, fcntl.LOCK_EX)
    progdir = os.path.join(a.shared, "vcode", "programs")
    expdir = os.path.join(a.shared, "vcode", "expected")
    cmd = [os.path.abspath(a.exe)] + (["--threads", str(a.threads)] if a.threads else [])
    print(f"{'program':<24} {'NESL s':>8} {'vseg s':>8} {'speed-up':>9} {'STOP_TIMER s':>13}")
    ok = True
    measured = []
    for name in a.programs:
        walls, timers = [], []
        with open(os.path.join(expdir, name + ".out")) as f:
            want = f.read().split("\n")[:-2]
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            run = subprocess.run(cmd + [os.path.join(progdir, name + ".vcode")], capture_output=True, text=True)
            walls.append(time.perf_counter() - t0)
            lines = run.stdout.split("\n")
            if run.returncode != 0 or lines[:-2] != want:
                print(f"{name}: wrong output or exit status {run.returncode}: {run.stderr[:300]}")
                ok = False
                break
            timers.append(float(lines[-2].strip("() ")))
        if not timers:
            continue
        wall = statistics.median(walls)
        ref = REFERENCE.get(name)
        ratio = f"{ref / wall:8.2f}x" if ref else "        -"
        print(f"{name:<24} {ref if ref else '-':>8} {wall:8.3f} {ratio:>9} {statistics.median(timers):13.3f}")
        measured.append((name, wall))

    with tempfile.TemporaryDirectory() as tmp:
        loop, empty = os.path.join(tmp, "loop.vcode"), os.path.join(tmp, "empty.vcode")
        with open(loop, "w") as f:
            f.write(SCALAR_LOOP)
        with open(empty, "w") as f:
            f.write(EMPTY)
        start = median_wall(cmd + [empty], a.repeat)
        count = instructions(cmd + [loop])
        per = (median_wall(cmd + [loop], a.repeat) - start) / count
    print(f"\ninterpretation: {per * 1e9:.1f} ns per instruction ({count} scalar instructions), "
          f"process start {start * 1e3:.1f} ms")
    print(f"{'program':<24} {'instructions':>12} {'x ns/instr / wall':>18}")
    for name, w in measured:
        n = instructions(cmd + [os.path.join(progdir, name + ".vcode")])
        print(f"{name:<24} {n:>12} {n * per / w:>17.0%}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
