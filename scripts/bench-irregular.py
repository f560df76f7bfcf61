#!/usr/bin/env python3
"""Runs bench/irregular: every problem against every contender, in
interleaved rounds, one fresh process per run, and reports the medians.

  scripts/bench-irregular.py --bin BUILD/bench/irregular [--rounds N]
                             [--only W1,W2] [--notes FILE --plot FILE] [--smoke]

A round runs each contender once, in an order rotated from round to round;
a run prints its time, its peak RSS and the digest of its answer (see
bench/irregular/harness.hpp). Every answer must equal the serial one's
digest, and the first-occurrence order of remove-duplicates must equal it
where the contender promises it; a mismatch fails the whole run.

--smoke runs every problem once at a tiny size (the 'bench-smoke' test);
--notes writes the tables between the generated markers of FILE, --plot an
SVG of the times relative to serial (gnuplot). The scripts/bench-irregular
wrapper builds, takes the benchmark lock and passes these.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

# name, problem, full size, smoke size, what the size means
WORKLOADS = [
    ("bfs-rmat", "bfs-rmat", 22, 10, "R-MAT, 2^22 vertices, 8 edge samples per vertex, symmetrised"),
    ("bfs-grid", "bfs-grid", 2000, 40, "2000 x 2000 grid, 4-neighbour"),
    ("sort", "sort", 10_000_000, 20_000, "10^7 doubles"),
    ("sort-kv", "sort-kv", 10_000_000, 20_000, "10^7 (uint32 key, int64 value) pairs, n/4 distinct keys"),
    ("spgemm-poisson", "spgemm-poisson", 1000, 30, "A*A, A the 5-point Poisson matrix of a 1000^2 grid"),
    ("spgemm-rmat", "spgemm-rmat", 16, 9, "A*A, A an R-MAT 2^16 adjacency (4 samples per vertex, symmetrised)"),
    ("dedup", "dedup", 10_000_000, 20_000, "10^7 int64, 10% distinct"),
    ("wordcount", "wordcount", 5_000_000, 5_000, "5*10^6 words (Zipf-like over 10^5 words)"),
    ("quickhull", "quickhull", 10_000_000, 20_000, "upper hull of 10^7 points in the unit disc"),
    ("primes", "primes", 100_000_000, 100_000, "primes up to 10^8"),
]
CONTENDERS = ["vseg", "parlay", "parlay_tbb", "serial", "tbb"]
LABELS = {"vseg": "vseg", "parlay": "ParlayLib", "parlay_tbb": "ParlayLib (TBB)", "serial": "serial C++",
          "tbb": "oneTBB"}


def run_one(exe, problem, size, env):
    """One run in a fresh process: a dict of its printed fields."""
    p = subprocess.run([exe, problem, str(size)], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError("{} {} {}: exit {}: {}".format(os.path.basename(exe), problem, size, p.returncode,
                                                          p.stderr.strip()))
    fields = dict(line.split(None, 1) for line in p.stdout.splitlines() if line.strip())
    return {"time": float(fields["time_s"]), "rss": int(fields["peak_rss_kb"]),
            "input_rss": int(fields["input_rss_kb"]), "digest": fields["digest"].strip(),
            "order_digest": fields.get("order_digest", "").strip(), "faults": int(fields.get("page_faults", "-1"))}


def check(workload, contender, r, ref):
    if r["digest"] != ref["digest"]:
        raise RuntimeError("{}: {}'s answer differs from serial's (digest {} != {})".format(
            workload, contender, r["digest"], ref["digest"]))
    if r["order_digest"] and ref["order_digest"] and r["order_digest"] != ref["order_digest"]:
        raise RuntimeError("{}: {}'s first-occurrence order differs from serial's".format(workload, contender))


def run_workload(bindir, contenders, workload, problem, size, rounds, env, log):
    exes = {c: os.path.join(bindir, "irregular_" + c) for c in contenders}
    ref = run_one(exes["serial"], problem, size, env)  # also fills the input cache
    runs = {c: [] for c in contenders}
    for k in range(rounds):
        order = contenders[k % len(contenders):] + contenders[:k % len(contenders)]
        for c in order:
            r = run_one(exes[c], problem, size, env)
            check(workload, c, r, ref)
            runs[c].append(r)
        log("  round {}: {}".format(k + 1, "  ".join("{} {:.3f}s".format(c, runs[c][-1]["time"]) for c in contenders)))
    return runs


def summary(runs):
    out = {}
    for c, rs in runs.items():
        ts = [r["time"] for r in rs]
        out[c] = {"median": statistics.median(ts), "min": min(ts), "max": max(ts),
                  "rss": statistics.median(r["rss"] for r in rs),
                  "input_rss": statistics.median(r["input_rss"] for r in rs),
                  "faults": statistics.median(r["faults"] for r in rs)}
    return out


def fmt_time(s):
    return "{:.1f} ms".format(s * 1e3) if s < 10 else "{:.2f} s".format(s)


def tables(results, rounds):
    lines = []
    for workload, what, s in results:
        lines += ["", "### {} — {}".format(workload, what), "",
                  "| contender | time, median (min–max) | peak RSS | ÷ ParlayLib | ÷ ParlayLib (TBB) | ÷ serial | page faults |",
                  "|---|---|---|---|---|---|---|"]
        for c in s:
            def ratio(ref):
                return "{:.2f}".format(s[c]["median"] / s[ref]["median"]) if ref in s else "–"
            lines.append("| {} | {} ({}–{}) | {:.0f} MB | {} | {} | {} | {:.0f} |".format(
                LABELS[c], fmt_time(s[c]["median"]), fmt_time(s[c]["min"]), fmt_time(s[c]["max"]),
                s[c]["rss"] / 1024, ratio("parlay"), ratio("parlay_tbb"), ratio("serial"), s[c]["faults"]))
    lines += ["", "### vseg against the targets", "",
              "Ratios of medians; the ParlayLib column takes the faster of its two builds. Targets: "
              "time ≤ 1.25 × ParlayLib, ahead of it on half the problems, ≥ 1.6 × faster than serial, "
              "peak RSS ≤ 1.5 × ParlayLib's.", "",
              "| problem | vseg ÷ best ParlayLib | speed-up over serial | peak RSS ÷ ParlayLib | met |",
              "|---|---|---|---|---|"]
    ahead = 0
    for workload, _, s in results:
        if "vseg" not in s:
            continue
        pl = [c for c in ("parlay", "parlay_tbb") if c in s]
        best = min(pl, key=lambda c: s[c]["median"]) if pl else None
        rt = s["vseg"]["median"] / s[best]["median"] if best else float("nan")
        sp = s["serial"]["median"] / s["vseg"]["median"]
        mem = s["vseg"]["rss"] / s[best]["rss"] if best else float("nan")
        ahead += rt < 1
        missed = [m for m, bad in (("time", rt > 1.25), ("speed-up", sp < 1.6), ("memory", mem > 1.5)) if bad]
        lines.append("| {} | {:.2f} | {:.2f} | {:.2f} | {} |".format(
            workload, rt, sp, mem, "yes" if not missed else "no: " + ", ".join(missed)))
    lines += ["", "vseg is ahead of ParlayLib on {} of {} problems ({} rounds each).".format(
        ahead, sum(1 for _, _, s in results if "vseg" in s), rounds)]
    return lines


def write_notes(path, lines, header):
    begin, end = "<!-- generated by scripts/bench-irregular: begin -->", "<!-- generated by scripts/bench-irregular: end -->"
    text = open(path).read() if os.path.exists(path) else "# bench/irregular\n\n{}\n{}\n".format(begin, end)
    if begin not in text:
        text += "\n{}\n{}\n".format(begin, end)
    head, rest = text.split(begin, 1)
    tail = rest.split(end, 1)[1]
    with open(path, "w") as f:
        load = open("/proc/loadavg").read().split()[:3]
        header = [h.replace("$LOAD_AFTER", ", ".join(load)) for h in header]
        f.write(head + begin + "\n" + "\n".join(header + lines) + "\n" + end + tail)


def plot(path, results):
    """Grouped bars: each contender's median time relative to serial."""
    cs = [c for c in CONTENDERS if any(c in s for _, _, s in results)]
    with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as dat:
        dat.write("workload " + " ".join(cs) + "\n")
        for w, _, s in results:
            dat.write(w + " " + " ".join("{:.4f}".format(s["serial"]["median"] / s[c]["median"]) if c in s else "NaN"
                                         for c in cs) + "\n")
    script = """set terminal svg size 960,420 font 'sans,11' background '#ffffff'
set output '{out}'
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top left
set ylabel 'speed-up over serial C++ (median, higher is better)'
set logscale y 2
set yrange [0.25:*]
set grid ytics
set xtics rotate by -25 scale 0
plot {plots}
""".format(out=path, plots=", ".join("'{}' using {}:xtic(1) title '{}'".format(dat.name, i + 2, LABELS[c])
                                      for i, c in enumerate(cs)))
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    os.unlink(dat.name)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--rounds", type=int, default=int(os.environ.get("VSEG_BENCH_ROUNDS", "7")))
    ap.add_argument("--only", default="")
    ap.add_argument("--notes")
    ap.add_argument("--plot")
    ap.add_argument("--header", action="append", default=[])
    ap.add_argument("--smoke", action="store_true")
    a = ap.parse_args()
    contenders = [c for c in CONTENDERS if os.path.exists(os.path.join(a.bin, "irregular_" + c))]
    if "serial" not in contenders:
        sys.exit("bench-irregular: no irregular_serial in " + a.bin)
    env = dict(os.environ)
    cache = tempfile.TemporaryDirectory() if a.smoke else None
    env["VSEG_IRREGULAR_CACHE"] = cache.name if cache else os.path.join(a.bin, "input-cache")
    os.makedirs(env["VSEG_IRREGULAR_CACHE"], exist_ok=True)
    only = set(filter(None, a.only.split(",")))
    rounds = 1 if a.smoke else a.rounds
    results = []
    try:
        for name, problem, full, tiny, what in WORKLOADS:
            if only and name not in only:
                continue
            print("{} ({})".format(name, "smoke size {}".format(tiny) if a.smoke else what), flush=True)
            runs = run_workload(a.bin, contenders, name, problem, tiny if a.smoke else full, rounds, env,
                                lambda s: print(s, flush=True))
            results.append((name, what, summary(runs)))
            if a.notes and not a.smoke:  # after every workload: a cut-short run keeps what it measured
                write_notes(a.notes, tables(results, rounds), a.header)
    except RuntimeError as e:
        sys.exit("bench-irregular: " + str(e))
    lines = tables(results, rounds)
    print("\n".join(lines))
    if a.notes and not a.smoke:
        write_notes(a.notes, lines, a.header)
    if a.plot and not a.smoke:
        plot(a.plot, results)


if __name__ == "__main__":
    main()
