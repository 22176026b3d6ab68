#!/usr/bin/env python3
"""tests/rocprof_check.py SUMMARY.json ORACLE_DIR TRACE.json.gz

Checks tracedoc's summary of a rocprofv3 JSON file against TraceLens's rocprof report
(kernel_summary.csv, gpu_timeline.csv) and the independent reading
(independent_rocprof_oracle.json) in ORACLE_DIR (see its README.md), and against the trace
itself for the first-to-last span. Every expected number is read from those files.

TraceLens's kernel_summary leaves nanoseconds in the columns it labels ms and us (README
"Unit bug"): its "Total Kernel Time (ms)" is us and its "(us)" columns are ns, so they are
compared with our ns figures as such. Counts are exact, times within 1% (and the
independent reading's sums, minima and maxima exactly).

gpu_timeline: TraceLens's total_time is the profiling session (metadata init..fini), ours
the first to the last device activity, so total and idle are checked against those
definitions: busy and the kernel and memory unions equal TraceLens's, our total is the
trace's first dispatch start to last dispatch end, and TraceLens's idle is our idle plus the
session time outside that span.
Exit 0 when everything agrees, 1 otherwise (one line per disagreement)."""
import csv
import gzip
import json
import sys

summ, odir, trace = sys.argv[1], sys.argv[2], sys.argv[3]
d = json.load(open(summ))
bad = []


def near(a, b, rel=0.01, absn=0.0):
    return abs(a - b) <= max(rel * abs(b), absn)


# ---- kernel table vs TraceLens kernel_summary (unit bug: ms column is us, us columns ns)
ours = {r["name"]: r for r in d["kernels"]}
tl = list(csv.DictReader(open(f"{odir}/kernel_summary.csv", encoding="utf-8")))
if len(tl) != len(ours):
    bad.append(f"kernel names: TraceLens {len(tl)}, tracedoc {len(ours)}")
mean_col = next(c for c in tl[0] if c.startswith("Mean Kernel Time"))
med_col = next(c for c in tl[0] if c.startswith("Median Kernel Time"))
min_col = next(c for c in tl[0] if c.startswith("Min Kernel Time"))
max_col = next(c for c in tl[0] if c.startswith("Max Kernel Time"))
for r in tl:
    o = ours.get(r["name"])
    if o is None:
        bad.append(f"kernel {r['name']!r} missing")
        continue
    if o["calls"] != int(r["Count"]):
        bad.append(f"{r['name']}: calls {o['calls']} != TraceLens {r['Count']}")
    checks = (("total_ns", float(r["Total Kernel Time (ms)"]) * 1e3),  # really us
              ("mean_ns", float(r[mean_col])), ("median_ns", float(r[med_col])),
              ("min_ns", float(r[min_col])), ("max_ns", float(r[max_col])))
    for k, want in checks:
        # our mean/median are whole ns: allow 1 ns besides the 1%
        if not near(o[k], want, 0.01, 1.0):
            bad.append(f"{r['name']}: {k} {o[k]} vs TraceLens {want}")
    if not near(o["share"] * 100, float(r["Percentage (%)"]), 0.01, 1e-3):
        bad.append(f"{r['name']}: share {o['share']} vs TraceLens {r['Percentage (%)']}%")

# ---- the independent reading: exact
ind = json.load(open(f"{odir}/independent_rocprof_oracle.json"))
for r in ind["per_kernel_name"]:
    o = ours.get(r["name"])
    if o is None:
        bad.append(f"independent: kernel {r['name']!r} missing")
        continue
    for k, ok in (("count", "calls"), ("sum_ns", "total_ns"), ("min_ns", "min_ns"), ("max_ns", "max_ns")):
        if o[ok] != r[k]:
            bad.append(f"independent: {r['name']}: {ok} {o[ok]} != {r[k]}")
if sum(o["calls"] for o in ours.values()) != ind["dispatch_count"]:
    bad.append("dispatch count")

# ---- GPU timeline
row = next(r for r in d["gpu_timeline"] if r["device"] == "all" and r["scope"] == "trace")
tlt = {r["type"]: float(r["time ms"]) for r in csv.DictReader(open(f"{odir}/gpu_timeline.csv"))}
ms = lambda ns: ns / 1e6  # noqa: E731
kernel_union = row["computation_ns"] + row["exposed_comm_ns"]
for what, mine, want in (("busy", ms(row["busy_ns"]), tlt["busy_time"]),
                         ("kernel union", ms(kernel_union), tlt["kernel"]),
                         ("memory", ms(row["total_memcpy_ns"]), tlt["memory"]),
                         ("busy (independent)", ms(row["busy_ns"]), ind["busy_union_ms"])):
    if not near(mine, want, 0.01, 1e-6):
        bad.append(f"timeline {what}: {mine} ms vs {want} ms")
# our total: first dispatch start to last dispatch end, read from the trace itself
with gzip.open(trace, "rt") as f:
    tool = json.load(f)["rocprofiler-sdk-tool"][0]
kd = tool["buffer_records"]["kernel_dispatch"]
span = max(r["end_timestamp"] for r in kd) - min(r["start_timestamp"] for r in kd)
if row["total_ns"] != span:
    bad.append(f"timeline total {row['total_ns']} ns != first-to-last dispatch {span} ns")
if row["idle_ns"] != row["total_ns"] - row["busy_ns"]:
    bad.append("idle != total - busy")
session = tool["metadata"]["fini_time"] - tool["metadata"]["init_time"]
if not near(ms(session), tlt["total_time"], 1e-6):
    bad.append(f"TraceLens total_time {tlt['total_time']} is not the session {ms(session)}")
if not near(ms(row["idle_ns"] + session - span), tlt["idle"], 0.01):
    bad.append(f"TraceLens idle {tlt['idle']} ms != our idle + session outside the span")

for b in bad:
    print(b)
if bad:
    sys.exit(1)
print(f"{len(tl)} kernel names, {ind['dispatch_count']} dispatches, busy {ms(row['busy_ns']):.3f} ms "
      f"agree with TraceLens and the independent reading")
