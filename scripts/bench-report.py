#!/usr/bin/env python3
"""Writes notes/bench.md and the plots from bench_spmv's JSON output.

Called by scripts/bench-report: bench-report.py JSON PEAK NOTES_MD NOTES_DIR.
Environment: BENCH_MACHINE (the machine line, scripts/bench-common.sh),
UPTIME_BEFORE, UPTIME_AFTER, COMMAND, COMMIT, VSEG_BENCH_ROUNDS.
"""
import json, os, re, subprocess, sys

json_path, peak_path, notes_path, notes_dir = sys.argv[1:5]
data = json.load(open(json_path))
ctx = data["context"]
bench = {b["run_name"].split("/iterations")[0]: b for b in data["benchmarks"]
         if b.get("run_type", "iteration") == "iteration"}

CONTENDERS = ["hand", "vseg", "eigen", "graphblas"]
LABEL = {"hand": "hand CSR (oneTBB, 4 partial sums on rows >= 16)", "vseg": "vseg nested API", "eigen": "Eigen 3.4 (OpenMP)",
         "graphblas": "GraphBLAS GrB_mxv", "gather": "gather limit", "read": "read limit"}
WORKLOADS = [("stencil27_160", "27-point stencil 160^3"), ("stencil7_256", "7-point stencil 256^3"),
             ("rmat23", "R-MAT scale 23, edge factor 16"), ("circuit", "circuit-like 2^23 rows")]

out = []
out.append("Machine: {}; TBB/OpenMP/GraphBLAS threads: {}. GB = 10^9 bytes."
           .format(os.environ.get("BENCH_MACHINE", "?"), ctx.get("threads", "?")))
out.append("")
def load1(uptime):
    try:
        return float(uptime.split("load average:")[1].split(",")[0])
    except (IndexError, ValueError):
        return None

before = os.environ.get("UPTIME_BEFORE", "?").strip()
after = os.environ.get("UPTIME_AFTER", "?").strip()
loads = [l for l in (load1(before), load1(after)) if l is not None]
busy = not loads or max(loads) > 2.5  # 2 cores: more than the benchmark's own two threads
out.append("Run {}; source: commit {}. Load (`uptime`) before: `{}`; after: `{}`. {}"
           "The contenders of a workload run interleaved (see above), so the ratios and "
           "fractions compare like with like."
           .format(ctx["date"], os.environ.get("COMMIT", "?"), before, after,
                   "Other work shared the 2 cores, so absolute times are inflated. " if busy else ""))
out.append("")
out.append("Command: `{}` (medians over {} interleaved rounds).".format(
    os.environ.get("COMMAND", "scripts/bench-report"), os.environ.get("VSEG_BENCH_ROUNDS", "9")))
out.append("")

# ---- SpMV
out.append("### SpMV")
out.append("")
out.append("GB/s = 12 bytes per non-zero / median time. `vs hand` = time / hand-written time "
           "(lower is better). `of read` = GB/s over the read-only rate measured in the same rounds "
           "(sum over 512 MiB). `of gather` (random-column matrices) = the time of "
           "sum_k val[k]*x[col[k]] over the same non-zeros without rows, over the contender's time.")
out.append("")
out.append("| matrix | rows | nnz | contender | median ms | min ms | GB/s | vs hand | of read | of gather |")
out.append("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|")
plot_rows = []
targets = []
for key, title in WORKLOADS:
    b = bench.get("spmv/" + key)
    if not b:
        continue
    nnz, rows = b["nnz"], b["rows"]
    read_gbs = b["probe_bytes"] / (b["read_ms"] * 1e-3) / 1e9
    hand = b.get("hand_ms")
    gather = b.get("gather_ms")
    gbs = {}
    for c in CONTENDERS + (["gather"] if gather else []):
        t = b.get(c + "_ms")
        if t is None:
            continue
        g = 12 * nnz / (t * 1e-3) / 1e9
        gbs[c] = g
        out.append("| {} | {:.0f} | {:.0f} | {} | {:.1f} | {:.1f} | {:.2f} | {} | {:.0%} | {} |".format(
            title, rows, nnz, LABEL[c], t, b[c + "_min_ms"], g,
            "{:.2f}x".format(t / hand) if hand else "–", g / read_gbs,
            "{:.0%}".format(gather / t) if gather and c != "gather" else "–"))
    out.append("| {} | | | read limit (512 MiB) | {:.1f} | {:.1f} | {:.2f} | | 100% | |".format(
        title, b["read_ms"], b["read_min_ms"], read_gbs))
    plot_rows.append((key, [gbs.get(c, 0) for c in CONTENDERS], read_gbs, gbs.get("gather", 0)))
    v = b.get("vseg_ms")
    if v and hand:
        regular = key.startswith("stencil")
        others = [b[c + "_ms"] for c in ("eigen", "graphblas") if c + "_ms" in b]
        targets.append((title, v / hand, gbs["vseg"] / read_gbs, all(v < o for o in others),
                        [o / v for o in others], regular))

out.append("")
out.append("Targets (vseg nested API):")
out.append("")
out.append("| matrix | vs hand (target <= 1.10x, four-accumulator hand loop) | of read (target >= 75%, regular) | ahead of Eigen and GraphBLAS | their time / vseg's |")
out.append("|---|---:|---:|---|---|")
for title, r, f, ahead, others, regular in targets:
    out.append("| {} | {:.2f}x {} | {:.0%} {} | {} | {} |".format(
        title, r, "met" if r <= 1.10 else "MISSED by {:.0%}".format(r / 1.10 - 1),
        f, ("met" if f >= 0.75 else "MISSED") if regular else "(gather-bound)",
        "yes" if ahead else "NO", ", ".join("{:.2f}".format(o) for o in others)))
out.append("")

# ---- replication
out.append("### Replication consumed by lifted indexing")
out.append("")
out.append("`sum_s (index_l (replicate m xs) iss)`: 2^20 lookups cut into m segments, segment k "
           "reading the k-th virtual copy of xs (n doubles). `copy` builds the m copies "
           "(n·m doubles, run while n·m <= 2^27) and does the same lookups.")
out.append("")
out.append("| n | m | vseg ms | copy ms | copy / vseg |")
out.append("|---:|---:|---:|---:|---:|")
rep = {}
for name, b in bench.items():
    m = re.match(r"replicate/(\d+)/(\d+)$", name)
    if m:
        n, mm = int(m.group(1)), int(m.group(2))
        rep[(n, mm)] = (b.get("vseg_ms"), b.get("copy_ms"))
flat_lines = []
for n in sorted({k[0] for k in rep}):
    vs = []
    for mm in sorted(k[1] for k in rep if k[0] == n):
        v, c = rep[(n, mm)]
        vs.append(v)
        out.append("| 2^{} | {} | {:.2f} | {} | {} |".format(
            n.bit_length() - 1, mm, v, "{:.1f}".format(c) if c else "–",
            "{:.0f}x".format(c / v) if c else "–"))
    flat_lines.append("n = 2^{}: vseg time over m = 1..1024 from {:.2f} to {:.2f} ms (max/min {:.2f})".format(
        n.bit_length() - 1, min(vs), max(vs), max(vs) / min(vs)))
out.append("")
for l in flat_lines:
    out.append("- " + l)
out.append("")

# ---- treeLookup
t = bench.get("treelookup")
if t:
    out.append("### treeLookup (table 2^24, 2^24 queries)")
    out.append("")
    out.append("| version | median ms | min ms |")
    out.append("|---|---:|---:|")
    out.append("| vseg (vectorised, examples/treelookup.cpp) | {:.0f} | {:.0f} |".format(t["vseg_ms"], t["vseg_min_ms"]))
    out.append("| flat vector (parallel gather) | {:.0f} | {:.0f} |".format(t["flat_ms"], t["flat_min_ms"]))
    out.append("")
    out.append("vseg / flat = {:.2f}x (target <= 2x: {}).".format(
        t["vseg_ms"] / t["flat_ms"], "met" if t["vseg_ms"] / t["flat_ms"] <= 2.0 else "MISSED"))
    out.append("")

# ---- peak memory
out.append("### Peak memory of the nested SpMV")
out.append("")
out.append("`bench_spmv --peak-memory=W` in a fresh process: the matrix (row lengths, int32 "
           "columns, values) and x are built, the peak RSS is reset (`/proc/self/clear_refs`), "
           "then the nested arrays are built from the row lengths and the SpMV runs 3 times. "
           "`peak` = VmHWM minus the process's own baseline (RSS before, less matrix and x); "
           "compared with matrix + x + y.")
out.append("")
out.append("| matrix | matrix MB | x + y MB | peak MB | over matrix + vectors | /usr/bin/time -v max RSS MB |")
out.append("|---|---:|---:|---:|---:|---:|")
timev = {}
for line in open(peak_path):
    if line.startswith("time-v"):
        parts = line.split()
        timev[parts[1]] = int(parts[-1]) * 1024
for line in open(peak_path):
    if not line.startswith("workload="):
        continue
    kv = dict(p.split("=", 1) for p in line.split())
    mb = lambda x: int(x) / 1e6
    base = int(kv["process_base"])
    peak = int(kv["peak_rss"]) - base
    ref = int(kv["matrix_bytes"]) + int(kv["vector_bytes"])
    out.append("| {} | {:.0f} | {:.0f} | {:.0f} | {:+.1%} {} | {} |".format(
        kv["workload"], mb(kv["matrix_bytes"]), mb(kv["vector_bytes"]), peak / 1e6, peak / ref - 1,
        "(target <= 10%: {})".format("met" if peak / ref - 1 <= 0.10 else "MISSED"),
        "{:.0f}".format(timev[kv["workload"]] / 1e6) if kv["workload"] in timev else "–"))
out.append("")
out.append("(`/usr/bin/time -v` counts the whole process, matrix generation included, so it is "
           "above the SpMV's own peak.)")
out.append("")
out.append("Plots: [SpMV GB/s](bench-spmv.svg), [replication cost against m](bench-replicate.svg).")

# ---- plots
spmv_dat = os.path.join(notes_dir, ".bench-spmv.dat")
with open(spmv_dat, "w") as f:
    f.write("matrix " + " ".join(CONTENDERS) + " read gather\n")
    for key, vals, read, gather in plot_rows:
        f.write(key + " " + " ".join("{:.3f}".format(v) for v in vals) + " {:.3f} {:.3f}\n".format(read, gather))
rep_dat = os.path.join(notes_dir, ".bench-replicate.dat")
with open(rep_dat, "w") as f:
    for n in sorted({k[0] for k in rep}):
        for mm in sorted(k[1] for k in rep if k[0] == n):
            v, c = rep[(n, mm)]
            f.write("{} {} {} {}\n".format(n, mm, v, c if c else "NaN"))
        f.write("\n\n")
ns = sorted({k[0] for k in rep})
gp = """
set terminal svg size 900,480 font "sans,11"
set output '{spmv_svg}'
set title "SpMV, GB/s under 12 bytes per non-zero (2 threads; higher is better)"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.85 border -1
set key top right
set ylabel "GB/s"
set yrange [0:*]
set grid ytics
plot '{spmv_dat}' using 2:xtic(1) title "hand CSR (oneTBB)", '' using 3 title "vseg nested API", \\
     '' using 4 title "Eigen (OpenMP)", '' using 5 title "GraphBLAS", '' using 6 title "read limit", \\
     '' using 7 title "gather limit"
set output '{rep_svg}'
set title "replicate m times + lifted indexing (2^20 lookups): time against m"
set style data linespoints
set logscale xy
set xlabel "m (copies)"
set ylabel "ms"
set key top left
set yrange [*:*]
plot {series}
""".format(spmv_svg=os.path.join(notes_dir, "bench-spmv.svg"), spmv_dat=spmv_dat,
           rep_svg=os.path.join(notes_dir, "bench-replicate.svg"),
           series=", ".join(
               "'{d}' index {i} using 2:3 title 'vseg n=2^{b}', '{d}' index {i} using 2:4 title 'copy n=2^{b}'"
               .format(d=rep_dat, i=i, b=n.bit_length() - 1) for i, n in enumerate(ns)))
try:
    subprocess.run(["gnuplot"], input=gp, text=True, check=True)
except (OSError, subprocess.CalledProcessError) as e:
    out.append("")
    out.append("(gnuplot failed: {}; no plots written.)".format(e))
for p in (spmv_dat, rep_dat):
    os.remove(p)

# ---- write between the markers
begin, end = "<!-- generated by scripts/bench-report: begin -->", "<!-- generated by scripts/bench-report: end -->"
text = open(notes_path).read() if os.path.exists(notes_path) else "# Benchmarks\n\n" + begin + "\n" + end + "\n"
if begin not in text:
    text += "\n" + begin + "\n" + end + "\n"
a, b = text.index(begin), text.index(end)
text = text[:a] + begin + "\n" + "\n".join(out) + "\n" + text[b:]
open(notes_path, "w").write(text)
print("wrote", notes_path)
