# Shared by the benchmark scripts (scripts/bench-report, scripts/bench-primitives,
# scripts/bench-smoke); sourced, not run. POSIX sh.

# The default build directory of the checkout at $1: inside it (build*/ is
# gitignored), so two checkouts never share one, and every benchmark script
# of this checkout reuses the same configuration.
bench_build_dir() {
  printf '%s/build-bench\n' "$1"
}

# Takes the machine-wide benchmark lock on file descriptor 9 and holds it
# until the calling script exits: two benchmark scripts never run at once
# (a compile or another timing run would be measured too). Waits, saying so.
bench_lock() {
  exec 9>>/tmp/vseg-bench.lock
  if ! flock -n 9; then
    echo "$(basename "$0"): waiting for the benchmark lock /tmp/vseg-bench.lock (another benchmark is running)" >&2
    flock 9
  fi
}

# One line describing the machine: CPU model, cores, threads per core,
# hypervisor, L3, RAM. The model comes from lscpu, else /proc/cpuinfo (some
# VMs and ARM kernels leave lscpu's "Model name" empty), else `uname -m`.
bench_machine() {
  info=$(LC_ALL=C lscpu 2>/dev/null || true)
  model=$(printf '%s\n' "$info" | sed -n 's/^Model name:[[:space:]]*//p' | head -n 1)
  if [ -z "$model" ] || [ "$model" = "-" ]; then
    model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
  fi
  [ -n "$model" ] || model="$(uname -m) (model unknown)"
  cpus=$(printf '%s\n' "$info" | sed -n 's/^CPU(s):[[:space:]]*//p' | head -n 1)
  [ -n "$cpus" ] || cpus=$(nproc)
  tpc=$(printf '%s\n' "$info" | sed -n 's/^Thread(s) per core:[[:space:]]*//p' | head -n 1)
  hyp=$(printf '%s\n' "$info" | sed -n 's/^Hypervisor vendor:[[:space:]]*//p' | head -n 1)
  l3=$(printf '%s\n' "$info" | sed -n 's/^L3 cache:[[:space:]]*//p' | head -n 1)
  ram=$(awk '/^MemTotal:/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)
  line="$model ($cpus cores"
  [ -z "$tpc" ] || line="$line, $tpc thread(s) per core"
  [ -z "$hyp" ] || line="$line, $hyp guest"
  line="$line)"
  [ -z "$l3" ] || line="$line, L3 $l3"
  printf '%s, %s GiB RAM\n' "$line" "$ram"
}
