#!/usr/bin/python3
"""tests/mem_check.py TRACE MEMORY.csv: the `memory` table (tracedoc summary --format csv
--table memory) against the trace's own [memory] events, computed here from the JSON
without tracedoc: per (Device Type, Device Id) the event count, the largest "Total
Allocated" (old traces without it: the running sum of "Bytes") and "Total Reserved", the time of the first event reaching the allocated peak
(ns from the trace's first event), the innermost cpu_op around it on its thread, and the
ProfilerStep around it. Prints each difference; exit 1 on any."""
import csv, gzip, json, sys
from decimal import Decimal

def load(p):
    op = gzip.open if p.endswith(".gz") else open
    with op(p, "rb") as f:
        d = json.loads(f.read(), parse_float=Decimal)
    return d["traceEvents"] if isinstance(d, dict) else d

NAMES = ["cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip", "fpga", "maia", "xla",
         "vulkan", "metal", "xpu", "mps", "meta", "hpu", "ve", "lazy", "ipu", "mtia"]

def ns(x):
    return int((Decimal(x) * 1000).to_integral_value())

ev = load(sys.argv[1])
t0 = min(ns(e["ts"]) for e in ev if "ts" in e and e.get("ph") in ("X", "B", "i", "I", "b", "C", "s", "f", "t"))
dev = {}
for e in ev:
    if e.get("name") != "[memory]" or e.get("ph") not in ("i", "I"):
        continue
    a = e["args"]
    k = (int(a.get("Device Type", -1)), int(a.get("Device Id", -1)))
    d = dev.setdefault(k, {"n": 0, "alloc": None, "res": -1, "ev": None, "run": 0})
    d["n"] += 1
    if "Total Allocated" in a:
        v = int(a["Total Allocated"])
    else:  # old traces (torch 1.8): the running sum of Bytes from the trace start
        d["run"] += int(a.get("Bytes", 0))
        v = d["run"]
    if d["alloc"] is None or v > d["alloc"]:
        d["alloc"], d["ev"] = v, e
    d["res"] = max(d["res"], int(a.get("Total Reserved", -1)))
want = {}
for (t, i), d in dev.items():
    name = NAMES[t] if 0 <= t < len(NAMES) else "type%d" % t
    name = name if i < 0 else "%s:%d" % (name, i)
    p = d["ev"]
    ts = ns(p["ts"])
    ops = [e for e in ev if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "CPU Operator", "Operator")
           and e.get("pid") == p.get("pid") and e.get("tid") == p.get("tid")
           and ns(e["ts"]) <= ts <= ns(e["ts"]) + ns(e.get("dur", 0))]
    ops.sort(key=lambda e: (ns(e["ts"]), -ns(e.get("dur", 0))))
    steps = [e for e in ev if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")
             and ns(e["ts"]) <= ts < ns(e["ts"]) + ns(e.get("dur", 0))]
    want[name] = {"events": str(d["n"]), "peak_allocated_bytes": str(d["alloc"]),
                  "peak_reserved_bytes": str(d["res"]) if d["res"] >= 0 else "",
                  "peak_ns": str(ts - t0),
                  "peak_op": ops[-1]["name"] if ops else "",
                  "peak_step": steps[0]["name"] if steps else None}
rows = {r["device"]: r for r in csv.DictReader(open(sys.argv[2]))}
bad = 0
if set(rows) != set(want):
    print("devices: tracedoc %s, trace %s" % (sorted(rows), sorted(want)))
    bad = 1
for k in sorted(set(rows) & set(want)):
    for c, v in want[k].items():
        if v is None:
            continue
        if rows[k][c] != v:
            print("%s %s: tracedoc %s, trace %s" % (k, c, rows[k][c], v))
            bad = 1
print("%d devices checked" % len(want))
sys.exit(bad)
