#!/usr/bin/env bash
# ooc_check.sh OOC_GEN OOC_SPMV WORK_DIR: a small matrix written by ooc_gen,
# multiplied by ooc_spmv under budgets from a few blocks to the whole file;
# every run must print the same checksum.
set -euo pipefail
gen=$1 spmv=$2 work=$3
mkdir -p "$work"
file=$work/m.h5
"$gen" "$file" --rows 20000 --nnz-per-row 9
bytes=$(stat -c %s "$file")
sums=()
for budget in 70000 300000 $((bytes / 4)) $((bytes * 2)); do
  out=$("$spmv" "$file" --memory-budget "$budget" --iterations 3 --keep-cache)
  echo "budget $budget: $(echo "$out" | tr '\n' ';')"
  sums+=("$(echo "$out" | awk '$1 == "checksum" {print $2}')")
done
for s in "${sums[@]}"; do
  if [ -z "$s" ] || [ "$s" != "${sums[0]}" ]; then
    echo "checksums differ: ${sums[*]}"
    exit 1
  fi
done
# A budget below one row's bytes is a clear error, not a crash.
if "$spmv" "$file" --memory-budget 100 --iterations 1 --keep-cache 2> "$work/err"; then
  echo "a 100-byte budget was accepted"; exit 1
fi
grep -q "memory budget" "$work/err"
# A flag's value that is not an integer in range is named in the error.
bash "$(dirname "$0")/rejects.sh" "--rows is '12x'" "$gen" "$work/bad.h5" --rows 12x --nnz-per-row 9
bash "$(dirname "$0")/rejects.sh" "--iterations is '-1'" "$spmv" "$file" --memory-budget 100000 --iterations -1 --keep-cache
echo "checksum ${sums[0]} under every budget"
