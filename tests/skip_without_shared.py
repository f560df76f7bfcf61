#!/usr/bin/env python3
"""Runs a test that reads the shared test data, or skips it when the data is
absent: one message and exit status 77, which Meson reports as SKIP.

  skip_without_shared.py DIR COMMAND [ARGUMENT...]

DIR is the directory the test needs (its parent is the shared directory,
Meson's -Dshared_dir, by default ../shared beside the source tree).
"""
import os
import sys


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    needed, command = sys.argv[1], sys.argv[2:]
    if not os.path.isdir(needed):
        print(f"SKIP: the shared test data {needed} is absent (put the shared directory "
              "beside the checkout as ../shared, or configure with -Dshared_dir=DIR)")
        return 77
    sys.stdout.flush()
    os.execv(command[0], command)


if __name__ == "__main__":
    sys.exit(main())
