#!/bin/sh
# Interleaved A/B of 2D's row blocks (dist11): spmv_petsc runs alternating
# over the given row weights (a negative weight: the nonzero-balanced cuts
# from before dist11), `reps` times; one line per matrix per run with the
# medians (ms per product) and the ratios measured in that process.
# Takes no lock: wrap it in `flock /tmp/vseg-bench.lock`.
#
#   sh bench/dist/ab_row_weight.sh BUILD NP N SCALE ROUNDS REPS WEIGHT...
#   e.g. sh bench/dist/ab_row_weight.sh build 4 64 18 30 2 -1 8
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
build=$1; np=$2; n=$3; scale=$4; rounds=$5; reps=$6; shift 6
rep=0
while [ $rep -lt $reps ]; do
  for w in "$@"; do
    mpiexec --oversubscribe -n $np $build/bench/dist/spmv_petsc $n $scale $rounds - $w 2>/dev/null |
      awk -v w="$w" -v np="$np" -v l="$(cut -d' ' -f1 /proc/loadavg)" '
        /^spmv_petsc stencil/ {m="stencil"} /^spmv_petsc rmat/ {m="rmat"}
        /product: vseg median/ { v=$4; for (i=1;i<=NF;i++) if ($i=="PETSc" && $(i+1)=="median") p=$(i+2) }
        /^  2D mesh/ { for (i=1;i<=NF;i++) if ($i=="product" && $(i+1)=="median") s=$(i+2) }
        /^  2D cb/ { for (i=1;i<=NF;i++) if ($i=="product" && $(i+1)=="median") cb=$(i+2);
          printf "np %s %-7s w %3s ld %5s 1D %6.2f 2D %6.2f cb %6.2f P %6.2f | 1D/P %.2f 2D/P %.2f cb/P %.2f\n",
                 np, m, w, l, v, s, cb, p, v/p, s/p, cb/p }'
  done
  rep=$((rep + 1))
done
