#!/usr/bin/env python3
"""Writes the tables of notes/bench-primitives.md from bench_primitives' JSON.

Called by scripts/bench-primitives: bench-primitives.py JSON NOTES_MD
(NOTES_MD "-" prints the tables only). Environment: BENCH_MACHINE,
LOAD_BEFORE, LOAD_AFTER, COMMAND, COMMIT.
"""
import json, os, re, sys

json_path, notes_path = sys.argv[1:3]
data = json.load(open(json_path))
ctx = data["context"]
groups = {b["run_name"].split("/iterations")[0]: b for b in data["benchmarks"]
          if b.get("run_type", "iteration") == "iteration"}

SHAPES = ["len1", "len4", "len16", "len1024", "giant", "var1-4", "var16-64", "var512-2048", "zipf"]
SEGMENTED = [("vseg", "vseg::sum_s"), ("thrust", "Thrust reduce_by_key"), ("hand", "hand loop (oneTBB)")]
FLAT = [("read", "read limit"), ("copy", "copy limit"), ("fill", "fill limit"), ("gather", "gather limit"),
        ("reduce", "vseg::sum"), ("scan", "vseg::scan"), ("pack", "vseg::pack"),
        ("expand", "vseg::expand"), ("bpermute", "vseg::bpermute")]


def num(b, key, fmt):
    return fmt.format(b[key]) if key in b else "–"


def times(b, c):
    return "{:.2f}".format(b[c + "_ms"]), "{:.2f}–{:.2f}".format(b[c + "_min_ms"], b[c + "_max_ms"])


errors = [(name, b.get("error_message", "?")) for name, b in groups.items() if b.get("error_occurred")]

out = []
out.append("Machine: {}; GB = 10^9 bytes.".format(os.environ.get("BENCH_MACHINE", "?")))
elements = int(ctx.get("elements", "0"))
out.append("TBB threads: {}; elements per array: {} ({} MiB of doubles); {} interleaved rounds per group; "
           "run {}; load average {} before, {} after."
           .format(ctx.get("threads", "?"), elements, elements * 8 // 2**20, ctx.get("rounds", "?"),
                   ctx["date"], os.environ.get("LOAD_BEFORE", "?"), os.environ.get("LOAD_AFTER", "?")))
out.append("Source: commit {}.".format(os.environ.get("COMMIT", "?")))
out.append("")
out.append("Command:")
out.append("")
out.append("    " + os.environ.get("COMMAND", "scripts/bench-primitives"))
out.append("")
for name, msg in errors:
    out.append("**{} failed: {}**".format(name, msg))
    out.append("")
out.append("Medians over the rounds; min–max is the range of the times. GB/s, frac and of read are "
           "medians of the per-round figures, each against the limits measured in the same round "
           "(see above).")
out.append("")

flat = groups.get("flat")
if flat and not flat.get("error_occurred"):
    out.append("| benchmark | median ms | min–max ms | GB/s | frac | of read | of gather |")
    out.append("|---|---:|---:|---:|---:|---:|---:|")
    for c, label in FLAT:
        if c + "_ms" not in flat:
            continue
        med, rng = times(flat, c)
        limit = "limit" in label
        out.append("| {} | {} | {} | {} | {} | {} | {} |".format(
            label, med, rng, num(flat, c + "_gbs", "{:.2f}"),
            "(limit)" if limit else num(flat, c + "_frac", "{:.2f}"),
            "" if limit else num(flat, c + "_of_read", "{:.2f}"),
            "" if limit else num(flat, c + "_of_gather", "{:.2f}")))
    out.append("")

build = groups.get("segd_build")
if build and not build.get("error_occurred"):
    out.append("Building a descriptor from {} lengths (0-15): from INT lengths (the VCODE interpreter's "
               "MAKE_SEGDES) and from int64 ones:".format(int(build.get("segments", 0))))
    out.append("")
    out.append("| benchmark | median ms | min–max ms | GB/s | frac | of read |")
    out.append("|---|---:|---:|---:|---:|---:|")
    for c, label in [("from_int32", "segd::from_int32_lengths"), ("from_int64", "segd::from_lengths")]:
        if c + "_ms" in build:
            med, rng = times(build, c)
            out.append("| {} | {} | {} | {} | {} | {} |".format(
                label, med, rng, num(build, c + "_gbs", "{:.2f}"), num(build, c + "_frac", "{:.2f}"),
                num(build, c + "_of_read", "{:.2f}")))
    out.append("")

out.append("Segmented sum of doubles on the same data: vseg::sum_s, thrust::reduce_by_key (TBB "
           "backend, int32 keys) and the hand-written oneTBB loop (four partial sums), with the "
           "group's own read limit. `uniform` descriptors read no starts or lengths; `listed` ones "
           "read 16 bytes per segment (vseg) or 8 (the hand loop's offsets). `time / vseg` above 1 "
           "means slower than vseg.")
out.append("")
out.append("| shape | segments | descriptor | contender | median ms | min–max ms | GB/s | frac | of read | time / vseg |")
out.append("|---|---:|---|---|---:|---:|---:|---:|---:|---:|")
targets = {}
for shape in SHAPES:
    b = groups.get("sum_s/" + shape)
    if not b or b.get("error_occurred"):
        continue
    desc = "uniform" if b.get("uniform") else "listed"
    first = True
    for c, label in SEGMENTED + [("read", "read limit")]:
        if c + "_ms" not in b:
            continue
        med, rng = times(b, c)
        out.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
            shape if first else "", "{:.0f}".format(b["segments"]) if first else "", desc if first else "",
            label, med, rng, num(b, c + "_gbs", "{:.2f}"),
            "(limit)" if c == "read" else num(b, c + "_frac", "{:.2f}"),
            "" if c == "read" else num(b, c + "_of_read", "{:.2f}"),
            "{:.2f}".format(b[c + "_ms"] / b["vseg_ms"]) if c in ("thrust", "hand") else ""))
        first = False
    targets[shape] = b
out.append("")

# The targets of issue #19 on this run (vseg's of-read figures are medians of per-round ratios).
lines = []
if "var1-4" in targets:
    b = targets["var1-4"]
    lines.append("| lengths 1-4: of read >= 0.6 | {:.2f} | {} |".format(
        b["vseg_of_read"], "met" if b["vseg_of_read"] >= 0.6 else "MISSED"))
    lines.append("| lengths 1-4: Thrust's time / vseg's >= 1.5 | {:.2f} | {} |".format(
        b["thrust_ms"] / b["vseg_ms"], "met" if b["thrust_ms"] / b["vseg_ms"] >= 1.5 else "MISSED"))
for shape in ("var16-64", "len16", "len1024", "var512-2048", "giant", "zipf"):
    if shape in targets:
        r = targets[shape]["vseg_of_read"]
        lines.append("| {}: of read >= 0.8 | {:.2f} | {} |".format(shape, r, "met" if r >= 0.8 else "MISSED"))
if lines:
    out.append("Targets (vseg::sum_s):")
    out.append("")
    out.append("| target | this run | |")
    out.append("|---|---:|---|")
    out.extend(lines)
table = "\n".join(out) + "\n"

if notes_path == "-":
    print(table)
else:
    begin = "<!-- generated by scripts/bench-primitives: begin -->"
    end = "<!-- generated by scripts/bench-primitives: end -->"
    text = open(notes_path).read() if os.path.exists(notes_path) else \
        "# Benchmarks of the primitives\n\n{}\n{}\n".format(begin, end)
    if begin not in text:
        text += "\n" + begin + "\n" + end + "\n"
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
    text = pattern.sub(lambda _: begin + "\n" + table + end, text)
    open(notes_path, "w").write(text)
    print(table)
sys.exit(1 if errors else 0)
