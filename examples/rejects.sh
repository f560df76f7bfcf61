#!/usr/bin/env bash
# rejects.sh EXPECTED PROGRAM [ARGS...]: PROGRAM run with ARGS must fail
# with an ordinary exit status (1-125: no crash, no signal) and print
# EXPECTED (a fixed string) on stderr.
set -uo pipefail
expected=$1
shift
err=$("$@" 2>&1 >/dev/null)
status=$?
if [ "$status" -eq 0 ] || [ "$status" -gt 125 ]; then
  echo "$* exited with status $status; expected an error naming: $expected"
  exit 1
fi
if ! grep -qF -- "$expected" <<<"$err"; then
  echo "$* printed: $err"
  echo "expected: $expected"
  exit 1
fi
echo "rejected: $err"
