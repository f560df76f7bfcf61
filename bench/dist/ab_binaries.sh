#!/bin/sh
# Interleaved A/B of two spmv_petsc binaries (e.g. a baseline build of main
# against this tree's): the two run alternating as separate processes,
# `reps` times each, on the same arguments; one line per matrix per process
# with the medians (ms per product) and the ratios measured in that process,
# then the medians over the processes per binary and the ratio B/A of
# those. Takes no lock: wrap it in `flock /tmp/vseg-bench.lock`.
#
#   sh bench/dist/ab_binaries.sh A_BINARY B_BINARY NP REPS ARGS...
#   e.g. sh bench/dist/ab_binaries.sh /tmp/vseg-base/bench/dist/spmv_petsc \
#          build/bench/dist/spmv_petsc 4 3 4 18 30
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
a=$1; b=$2; np=$3; reps=$4; shift 4
log=$(mktemp)
rep=0
while [ $rep -lt $reps ]; do
  for who in A B; do
    if [ $who = A ]; then bin=$a; else bin=$b; fi
    mpiexec --oversubscribe -n $np $bin "$@" 2>/dev/null |
      awk -v who="$who" -v np="$np" -v l="$(cut -d' ' -f1 /proc/loadavg)" '
        /^spmv_petsc stencil/ {m="stencil"} /^spmv_petsc rmat/ {m="rmat"}
        /product: vseg median/ { v=$4; for (i=1;i<=NF;i++) if ($i=="PETSc" && $(i+1)=="median") p=$(i+2) }
        /^  2D mesh/ { for (i=1;i<=NF;i++) if ($i=="product" && $(i+1)=="median") s=$(i+2) }
        /^  2D cb/ { for (i=1;i<=NF;i++) if ($i=="product" && $(i+1)=="median") cb=$(i+2);
          printf "%s np %s %-7s ld %5s 1D %6.2f 2D %6.2f cb %6.2f P %6.2f | 1D/P %.2f 2D/P %.2f cb/P %.2f 2D/cb %.2f\n",
                 who, np, m, l, v, s, cb, p, v/p, s/p, cb/p, s/cb }' | tee -a "$log"
  done
  rep=$((rep + 1))
done
# Medians over the processes, per binary and matrix: 2D ms, 2D/PETSc, 2D/cb.
for m in stencil rmat; do
  for who in A B; do
    for col in 10 19 23; do
      grep "^$who .* $m " "$log" | awk -v c=$col '{print $c}' | sort -n |
        awk '{v[NR]=$1} END {if (NR) printf "%s ", v[int((NR+1)/2)]}'
    done | awk -v w=$who -v m=$m '{printf "median %s %-7s 2D ms %s 2D/P %s 2D/cb %s\n", w, m, $1, $2, $3}'
  done
done
rm -f "$log"
