#!/usr/bin/env python3
"""Compare tracedoc's critical_path table with HTA's own critical path (tests/cases/diag_critpath.sh).

Usage: diag_critpath.py TRACEDOC_CSV HTA_DIR
TRACEDOC_CSV is `tracedoc summary --warmup none --format csv --table critical_path` on the
trace. HTA took the path over one window (hta_metrics_no_ns_rounding.json "critical_path":
its rank and the selected ProfilerStep, or the whole trace when none): the rows of that
rank and step number (empty: the whole trace) must give, per bound_by, HTA's sum in
critical_path_summary_no_ns_rounding.csv within 1% of the path's length (+ 1 ns per edge
for HTA's float microseconds), the same total, and HTA's per edge-type sums
(critical_path_by_edge_type: operator = CPU + device work, launch delay, kernel-kernel).
Prints one line per mismatch and "ok N" when all N checks pass."""
import json, re, sys
from diag_compare import Checks, near, rows

OPERATOR = ("cpu_bound", "gpu_compute_bound", "gpu_communication_bound")
TYPE = {"critical_path_kernel_launch_delay": ("gpu_kernel_launch_overhead",),
        "critical_path_kernel_kernel_delay": ("gpu_kernel_kernel_overhead",),
        "critical_path_operator": OPERATOR}


def main():
    tdcsv, hta = sys.argv[1:3]
    m = json.load(open(hta + "/hta_metrics_no_ns_rounding.json"))["critical_path"]
    sel = m.get("selected") or []
    step = re.search(r"(\d+)$", sel[0]).group(1) if sel else ""
    rank = str(m.get("rank", 0))
    td = {r["bound_by"]: int(r["ns"]) / 1000 for r in rows(tdcsv)
          if r["rank"] == rank and r["step"] == step}
    h = {r["bound_by"]: (float(r["sum"]), int(r["count"]))
         for r in rows(hta + "/critical_path_summary_no_ns_rounding.csv") if r["bound_by"]}
    check = Checks()

    total = sum(v for v, _ in h.values())
    edges = sum(c for _, c in h.values())
    slack = 0.01 * total + edges * 0.001
    check(bool(td), "no tracedoc rows for rank %s step %r" % (rank, step))
    for b, (v, _) in h.items():
        check(abs(td.get(b, 0) - v) <= slack, "%s: tracedoc %s us, HTA %s us" % (b, td.get(b), v))
    for b in td:
        check(b in h or td[b] <= slack, "%s: tracedoc %s us, HTA none" % (b, td[b]))
    check(near(sum(td.values()), total, slack=edges * 0.001),
          "path length: tracedoc %s us, HTA %s us" % (sum(td.values()), total))
    check(abs(sum(td.values()) - m["critical_path_total_weight"]) <= slack,
          "path length: tracedoc %s us, HTA's graph %s us" % (sum(td.values()), m["critical_path_total_weight"]))
    for r in rows(hta + "/critical_path_by_edge_type_no_ns_rounding.csv"):
        if r["type"] in TYPE:
            mine = sum(td.get(b, 0) for b in TYPE[r["type"]])
            check(abs(mine - float(r["sum"])) <= slack,
                  "%s: tracedoc %s us, HTA %s us" % (r["type"], mine, r["sum"]))
    return check.report()


if __name__ == "__main__":
    sys.exit(main())
