#!/usr/bin/env python3
"""Runs vseg-vcode on a malformed program and checks that it fails cleanly:
a non-zero exit status (not a signal), nothing on standard output, and a
message on standard error that names the line and contains the expected text.

  check_error.py VSEG_VCODE PROGRAM LINE TEXT [OPTION...]

LINE "-" means the message names no line (the program is not read at all);
the OPTIONs go to vseg-vcode before the program.
"""
import subprocess
import sys


def main():
    exe, program, line, text = sys.argv[1:5]
    options = sys.argv[5:]
    run = subprocess.run([exe, *options, program], capture_output=True, timeout=120)
    err = run.stderr.decode("latin-1")
    problems = []
    if run.returncode <= 0:
        problems.append(f"exit status {run.returncode}, expected a positive one")
    if run.stdout:
        problems.append("unexpected standard output: " + run.stdout.decode("latin-1")[:200])
    if line != "-" and f"line {line}:" not in err:
        problems.append(f"the message does not name line {line}")
    if text not in err:
        problems.append(f"the message does not contain {text!r}")
    if problems:
        print("stderr was: " + err)
        print("\n".join(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
