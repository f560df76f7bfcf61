#!/usr/bin/env bash
# rejects.sh [--times N] EXPECTED PROGRAM [ARGS...]: PROGRAM run with ARGS
# must fail with an ordinary exit status (1-125: no crash, no signal) and
# print EXPECTED (a fixed string) on stderr, on N lines (default: at least
# one; under mpiexec, N = the ranks: every rank reports the error).
set -uo pipefail
times=0
if [ "$1" = "--times" ]; then
  times=$2
  shift 2
fi
expected=$1
shift
err=$("$@" 2>&1 >/dev/null)
status=$?
if [ "$status" -eq 0 ] || [ "$status" -gt 125 ]; then
  echo "$* exited with status $status; expected an error naming: $expected"
  exit 1
fi
found=$(grep -cF -- "$expected" <<<"$err")
if [ "$found" -eq 0 ] || { [ "$times" -gt 0 ] && [ "$found" -ne "$times" ]; }; then
  echo "$* printed: $err"
  echo "expected ${times/#0/at least 1} line(s) with: $expected"
  exit 1
fi
echo "rejected: $err"
