#!/usr/bin/env python3
"""Time per VCODE operation, side by side: NESL's vinterp and vseg-vcode.

    python3 bench/vcode/perop.py PROGRAM.vcode ROUNDS VSEG_VCODE [--nesl DIR] [--fifo]

vinterp has no per-operation profile, so this builds a copy of it that
times each instruction: its main loop (DIR/vcode/main.c, NESL's sources
with the object files of a built tree, default /tmp/nesl-vinterp/nesl)
reads CLOCK_MONOTONIC at the start of every instruction and charges the
time since the previous start to the previous instruction's opcode and
type; the table is written at exit to the file named by $OPPROF. vseg-vcode
is run with `-t 1 --stats` (one thread, as vinterp; steady_clock around
each operation, so both pay about the same ~50 ns of timer per op). The
two run alternately, ROUNDS times each, in the benchmark lock; the table
shows each operation's *minimum* over the rounds (a preempted run only
adds time: on a loaded VM the medians carry 4 ms scheduler slices).
--fifo runs both under SCHED_FIFO (`chrt -f 10`, root only), which keeps
other processes from preempting them.

vinterp's time of an instruction includes its dispatch; vseg-vcode's
covers execute() only, and it does not time CALL, RET and IF, and with
--stats its stack moves go one by one (not as planned runs). Compare the
vector operations row by row; a lazy form moves work from the op that
makes it (DIST, INDEX, element-wise ops kept fused) to the op that reads it.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

from benchlock import take_bench_lock

# The timing added to vinterp's main.c (at the top of its main loop).
PROFILER = r'''
#include <time.h>
static double opprof_seconds[4096][16];
static long opprof_calls[4096][16];
static const char *opprof_names[4096];
static double opprof_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
static void opprof_write(void) {
    FILE *f = fopen(getenv("OPPROF") ? getenv("OPPROF") : "/dev/stderr", "w");
    int v, t;
    for (v = 0; v < 4096; v++)
        for (t = 0; t < 16; t++)
            if (opprof_calls[v][t])
                fprintf(f, "%s\t%d\t%ld\t%.9f\n", opprof_names[v], t, opprof_calls[v][t], opprof_seconds[v][t]);
    fclose(f);
}
'''
LOOP_HEAD = '''    while (pc != TOP_LEVEL) {
	prog_entry_t *instruction = program + pc;	/* current ins */'''
CHARGE = '''
	{
	    double now = opprof_now();
	    if (opprof_previous) {
		int v = opprof_previous->vop, t = opprof_previous->type;
		opprof_seconds[v][t] += now - opprof_start;
		opprof_calls[v][t]++;
		opprof_names[v] = opprof_previous->vopdes ? opprof_previous->vopdes->vopname : "?";
	    }
	    opprof_previous = instruction;
	    opprof_start = opprof_now();
	}'''
TYPES = {3: "BOOL", 4: "INT", 5: "FLOAT", 6: "SEGDES"}  # vinterp's TYPE enum (vcode.h)
STACK_MOVES = {"COPY", "POP", "CPOP"}
CONTROL = {"CALL", "RET", "IF", "ELSE", "ENDIF", "CONST", "START_TIMER", "STOP_TIMER"}


def build_timed_vinterp(nesl, work):
    """A copy of vinterp whose main loop times each instruction."""
    for part in ("vcode", "include", "lib"):
        shutil.copytree(os.path.join(nesl, part), os.path.join(work, part))
    vcode = os.path.join(work, "vcode")
    main_c = os.path.join(vcode, "main.c")
    with open(main_c) as f:
        src = f.read()
    if LOOP_HEAD not in src:
        sys.exit("perop.py: vinterp's main loop is not where expected in " + main_c)
    src = src.replace("static void main_loop PROTO_((void));", "static void main_loop PROTO_((void));" + PROFILER, 1)
    src = src.replace(LOOP_HEAD, "    prog_entry_t *opprof_previous = 0;\n    double opprof_start = 0;\n"
                      "    atexit(opprof_write);\n" + LOOP_HEAD + CHARGE, 1)
    with open(main_c, "w") as f:
        f.write(src)
    objects = [o for o in sorted(os.listdir(vcode)) if o.endswith(".o") and o != "main.o"]
    subprocess.run(["gcc", "-O2", "-g", "-I../include", "-c", "main.c"], cwd=vcode, check=True)
    subprocess.run(["gcc", "-O2", "-L../lib", "-o", "vinterp-timed", "main.o"] + objects +
                   ["-lcvl-serial", "-lm", "-lfl", "-ldl"], cwd=vcode, check=True)
    return os.path.join(vcode, "vinterp-timed")


def vinterp_times(cmd, program, table):
    """{label: (calls, seconds)} of one run of the timed vinterp."""
    subprocess.run(cmd + ["-m", "200000000", program], env=dict(os.environ, OPPROF=table),
                   stdout=subprocess.DEVNULL, check=True)
    times = collections.defaultdict(lambda: [0, 0.0])
    with open(table) as f:
        for line in f:
            name, ty, calls, seconds = line.rstrip("\n").split("\t")
            kind = TYPES.get(int(ty), "")
            label = name if name in STACK_MOVES | CONTROL or not kind else name + " " + kind
            times[label][0] += int(calls)
            times[label][1] += float(seconds)
    return times


def vseg_times(cmd, program):
    """{label: (calls, seconds)} of one `--stats` run of vseg-vcode."""
    err = subprocess.run(cmd + ["-t", "1", "--stats", program], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, check=True).stderr
    times = collections.defaultdict(lambda: [0, 0.0])
    for line in err.splitlines()[1:]:
        m = re.match(r"\s+(.*?)\s+(\d+)\s+([\d.]+) s$", line)
        if m:
            times[m.group(1)][0] += int(m.group(2))
            times[m.group(1)][1] += float(m.group(3))
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("program")
    ap.add_argument("rounds", type=int)
    ap.add_argument("vseg")
    ap.add_argument("--nesl", default="/tmp/nesl-vinterp/nesl")
    ap.add_argument("--fifo", action="store_true")
    a = ap.parse_args()
    prefix = ["chrt", "-f", "10"] if a.fifo else []
    with tempfile.TemporaryDirectory() as work:
        vinterp = build_timed_vinterp(a.nesl, work)
        lock = take_bench_lock()  # held until the process exits
        runs = {"vinterp": [], "vseg": []}
        for _ in range(a.rounds):
            runs["vinterp"].append(vinterp_times(prefix + [vinterp], a.program, os.path.join(work, "table")))
            runs["vseg"].append(vseg_times(prefix + [a.vseg], a.program))
    lock.close()
    labels = set().union(*(r.keys() for rs in runs.values() for r in rs))

    def least(side, label):
        return min((r[label][1] if label in r else 0.0) for r in runs[side]) * 1e3

    def calls(side, label):
        return max((r[label][0] if label in r else 0) for r in runs[side])

    rows = sorted(labels, key=lambda l: -abs(least("vseg", l) - least("vinterp", l)))
    print(f"{'operation':<20} {'calls':>8} {'vinterp ms':>10} {'vseg ms':>9} {'vseg/vinterp':>12}")
    for l in rows:
        vi, vs = least("vinterp", l), least("vseg", l)
        ratio = f"{vs / vi:12.2f}" if vi > 0 else f"{'-':>12}"
        note = "" if calls("vinterp", l) == calls("vseg", l) else f"  (vseg-vcode: {calls('vseg', l)} calls)"
        print(f"{l:<20} {calls('vinterp', l):>8} {vi:10.2f} {vs:9.2f} {ratio}{note}")
    for title, group in (("stack moves", STACK_MOVES), ("control and CONST", CONTROL),
                         ("vector ops", labels - STACK_MOVES - CONTROL)):
        vi = sum(least("vinterp", l) for l in group if l in labels)
        vs = sum(least("vseg", l) for l in group if l in labels)
        print(f"{title}: vinterp {vi:.1f} ms, vseg-vcode {vs:.1f} ms (sums of minima)")


if __name__ == "__main__":
    main()
