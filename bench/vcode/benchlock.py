"""The machine-wide benchmark lock, as scripts/bench-common.sh takes it.

One benchmark on the machine at a time: scripts/bench-report,
bench-primitives, bench-irregular and the scripts here all hold
/tmp/vseg-bench.lock while they measure.
"""
import fcntl
import sys

LOCK_PATH = "/tmp/vseg-bench.lock"


def take_bench_lock():
    """Blocks until this process holds the lock (saying so if it must wait).
    The lock is held until the returned file is closed or the process exits."""
    lock = open(LOCK_PATH, "a")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print(f"waiting for the benchmark lock {LOCK_PATH}", file=sys.stderr, flush=True)
        fcntl.flock(lock, fcntl.LOCK_EX)
    return lock
