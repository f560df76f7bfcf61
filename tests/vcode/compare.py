#!/usr/bin/env python3
"""Runs vseg-vcode on one NESL program and compares its standard output and
standard error with NESL's reference outputs.

  compare.py VSEG_VCODE PROGRAMS_DIR EXPECTED_DIR NAME
  compare.py VSEG_VCODE NAME     (directories from $VSEG_SHARED/vcode, else
                                  from $VSEG_SHARED_DEFAULT, set by Meson)

Everything is compared byte for byte except:
  * the value STOP_TIMER pushed: in a program that calls STOP_TIMER, the last
    stdout line is the elapsed time, so only its shape "( <float> )" is checked;
  * FLOAT values may differ from NESL's within 1e-12 relative, because
    +_REDUCE FLOAT and +_SCAN FLOAT sum in fixed blocks (deterministic on any
    thread count) where NESL sums left to right. Only lines of FLOAT vectors
    ("( d.ddddde+xx ... )") qualify; every other token must match exactly.
$VSEG_VCODE_OPTIONS, when set, holds options (split at spaces) for vseg-vcode,
given before the program. Exit status 0 on a match, 1 on a difference (printed), 2 on a usage error,
77 (Meson's SKIP) when the shared programs are absent.
"""
import os
import re
import subprocess
import tempfile
import sys

FLOAT = re.compile(r"^-?(\d\.\d{14}e[+-]\d+|nan|-nan|inf|-inf)$")


def float_close(a, b):
    if a == b:
        return True
    if not (FLOAT.match(a) and FLOAT.match(b)):
        return False
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    if x != x or y != y:  # nan never matches a number (and the spellings differ)
        return False
    return abs(x - y) <= 1e-12 * max(abs(x), abs(y))


def lines_match(got, want):
    if got == want:
        return True
    g, w = got.split(" "), want.split(" ")
    if len(g) != len(w) or g[0] != "(" or w[0] != "(":
        return False
    return all(float_close(x, y) for x, y in zip(g, w))


def compare(what, got, want, timer):
    got_lines, want_lines = got.split("\n"), want.split("\n")
    if timer and len(want_lines) >= 2 and len(got_lines) == len(want_lines):
        # the STOP_TIMER value is the last line (before the final newline)
        t_got, t_want = got_lines[-2], want_lines[-2]
        if re.match(r"^\( \S+ \)$", t_got) and re.match(r"^\( \S+ \)$", t_want):
            got_lines[-2] = want_lines[-2] = "( <timer> )"
    if len(got_lines) != len(want_lines):
        print(f"{what}: {len(got_lines) - 1} lines, expected {len(want_lines) - 1}")
        show(got_lines, want_lines)
        return False
    for i, (g, w) in enumerate(zip(got_lines, want_lines)):
        if not lines_match(g, w):
            print(f"{what}: line {i + 1} differs")
            print(f"  got:      {g[:300]}")
            print(f"  expected: {w[:300]}")
            return False
    return True


def show(got, want):
    for i in range(max(len(got), len(want))):
        g = got[i] if i < len(got) else "<none>"
        w = want[i] if i < len(want) else "<none>"
        if g != w:
            print(f"  first difference at line {i + 1}:\n  got:      {g[:300]}\n  expected: {w[:300]}")
            return


def main():
    if len(sys.argv) == 3:  # VSEG_VCODE NAME, with the shared directory from the environment
        shared = os.environ.get("VSEG_SHARED")
        shared = os.path.join(shared, "vcode") if shared else os.environ.get("VSEG_SHARED_DEFAULT", "")
        sys.argv[2:2] = [os.path.join(shared, "programs"), os.path.join(shared, "expected")]
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    exe, programs, expected, name = sys.argv[1:]
    exe, programs, expected = (os.path.abspath(p) for p in (exe, programs, expected))
    if not os.path.isdir(programs) or not os.path.isdir(expected):
        print(f"SKIP: the shared NESL programs {programs} are absent (put the shared directory "
              "beside the checkout as ../shared, set VSEG_SHARED, or configure with -Dshared_dir=DIR)")
        return 77
    program = os.path.join(programs, name + ".vcode")
    with open(program) as f:
        timer = "STOP_TIMER" in f.read()
    # nesltest writes and reads scratch files: run it in a private directory
    with tempfile.TemporaryDirectory() as scratch:
        options = os.environ.get("VSEG_VCODE_OPTIONS", "").split()
        run = subprocess.run([exe, *options, program], capture_output=True, cwd=scratch)
    with open(os.path.join(expected, name + ".out"), "rb") as f:
        want_out = f.read().decode("latin-1")
    with open(os.path.join(expected, name + ".err"), "rb") as f:
        want_err = f.read().decode("latin-1")
    ok = run.returncode == 0
    if not ok:
        print(f"exit status {run.returncode}")
    got_out, got_err = run.stdout.decode("latin-1"), run.stderr.decode("latin-1")
    ok = compare("stdout", got_out, want_out, timer) and ok
    ok = compare("stderr", got_err, want_err, False) and ok
    if not ok and got_err:
        print("stderr was:\n" + got_err[-2000:])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
