#!/usr/bin/env python3
"""Checks that glibc loads the right copy of libvseg-vcode, and that both copies
print the same thing.

  hwcaps.py VSEG_VCODE LIBDIR PROGRAM.vcode

LIBDIR is where the baseline libvseg-vcode.so was built; its x86-64-v3 copy
is LIBDIR/glibc-hwcaps/x86-64-v3/libvseg-vcode.so (lib/vcode/meson.build).
The program runs three times, with LD_DEBUG=libs so that the loader names the
library it initialises:

  1. as it is: the x86-64-v3 copy must be loaded when the loader reports
     x86-64-v3 as supported (`ld.so --help`), the baseline one otherwise;
  2. with AVX2 masked (GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2): the baseline
     copy must be loaded;
  3. with the loader's hwcaps subdirectories masked the same way and one
     thread, to check that the thread count does not change the output either.

The standard outputs must be byte for byte equal: both copies are built
without FMA contraction (-ffp-contract=off), so every FLOAT is the same.
Exit status 0 when all holds, 1 otherwise (the difference printed).
"""
import os
import re
import subprocess
import sys

LOADER = "/lib64/ld-linux-x86-64.so.2"
MASK = "glibc.cpu.hwcaps=-AVX2"


def v3_supported():
    out = subprocess.run([LOADER, "--help"], capture_output=True, text=True, check=True).stdout
    return re.search(r"^\s*x86-64-v3 \(supported", out, re.M) is not None


def run(exe, program, tunables, options=()):
    env = dict(os.environ, LD_DEBUG="libs")
    # As a user runs it: Meson's test runner puts the directories of built
    # libraries on LD_LIBRARY_PATH, the x86-64-v3 one included, which would
    # load that copy whatever the CPU. The executable's RUNPATH finds both.
    env.pop("LD_LIBRARY_PATH", None)
    if tunables:
        env["GLIBC_TUNABLES"] = tunables
    p = subprocess.run([exe, *options, program], capture_output=True, text=True, env=env, timeout=300)
    if p.returncode != 0:
        sys.exit(f"hwcaps: {exe} {program} exited with {p.returncode}:\n{p.stderr[-2000:]}")
    loaded = re.findall(r"calling init: (\S*/libvseg-vcode\.so)$", p.stderr, re.M)
    if len(loaded) != 1:
        sys.exit(f"hwcaps: expected one libvseg-vcode.so initialised, the loader named {loaded}")
    return os.path.realpath(loaded[0]), p.stdout


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    exe, libdir, program = sys.argv[1:]
    baseline = os.path.realpath(os.path.join(libdir, "libvseg-vcode.so"))
    v3 = os.path.realpath(os.path.join(libdir, "glibc-hwcaps", "x86-64-v3", "libvseg-vcode.so"))
    for path in (baseline, v3):
        if not os.path.isfile(path):
            sys.exit(f"hwcaps: {path} was not built")
    failed = False
    expected = v3 if v3_supported() else baseline
    runs = [("as it is", None, (), expected), (MASK, MASK, (), baseline), (MASK + ", -t 1", MASK, ("-t", "1"), baseline)]
    outputs = []
    for name, tunables, options, want in runs:
        got, out = run(exe, program, tunables, options)
        print(f"{name}: loaded {got}")
        if got != want:
            print(f"  expected {want}")
            failed = True
        outputs.append(out)
    for (name, *_), out in zip(runs[1:], outputs[1:]):
        if out != outputs[0]:
            print(f"output {name} differs from the unmasked run:\n--- unmasked\n{outputs[0][:2000]}\n--- {name}\n{out[:2000]}")
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
