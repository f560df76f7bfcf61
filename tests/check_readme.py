#!/usr/bin/env python3
"""Keeps the README's C++ examples honest.

usage: check_readme.py README.md tests/readme_examples.cpp BUILT_EXAMPLE

1. Every ```cpp block of the README appears verbatim in readme_examples.cpp
   (which is compiled into BUILT_EXAMPLE), so the two cannot drift apart.
2. BUILT_EXAMPLE prints exactly the ```text block that follows the README's
   first ```cpp block.
Exits 1 naming the first block that differs.
"""
import re
import subprocess
import sys


def main() -> int:
    readme_path, source_path, exe = sys.argv[1:4]
    readme = open(readme_path, encoding="utf-8").read()
    source = open(source_path, encoding="utf-8").read()
    blocks = list(re.finditer(r"```cpp\n(.*?)```\n", readme, re.S))
    if not blocks:
        print(f"{readme_path}: no ```cpp block found")
        return 1
    for n, m in enumerate(blocks, 1):
        if m.group(1) not in source:
            line = readme.count("\n", 0, m.start()) + 1
            print(f"{readme_path}:{line}: ```cpp block {n} does not appear verbatim in {source_path}")
            return 1
    expected = re.search(r"```text\n(.*?)```\n", readme[blocks[0].end():], re.S)
    if expected is None:
        print(f"{readme_path}: no ```text block (the expected output) after the first ```cpp block")
        return 1
    run = subprocess.run([exe], capture_output=True, text=True, timeout=60)
    if run.returncode != 0 or run.stdout != expected.group(1):
        print(f"{exe} exited {run.returncode}; printed:\n{run.stdout}{run.stderr}expected:\n{expected.group(1)}")
        return 1
    print(f"{len(blocks)} README block(s) match {source_path}; the output matches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
