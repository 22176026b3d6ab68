"""tracedoc's op_perf rows against TraceLens's inference report (perf_csvs/, one CSV per
sheet) of the same SGLang trace: tests/cases/serving_graphs.sh.

usage: serving_check.py SUMMARY.json PERF_CSVS_DIR [MIN_ROWS]
For every op TraceLens's per-category sheets (GEMM, UnaryElementwise, Reduce_fwd, ...)
list under an aten:: name with its input dims, summed over the rows TraceLens splits by
strides: the calls (name_count) exactly and the device time ("Kernel Time (us)_sum") within
1% of tracedoc's op_perf rows of the same op and dims. Kernel time 0 in TraceLens (an op
that launched nothing) is compared as calls only. Exit 0 when all agree and at least
MIN_ROWS (default 3) were compared, 1 otherwise."""
import csv, glob, json, os, sys

def norm(dims):
    s = dims.replace("(", "[").replace(")", "]").replace(" ", "").replace(",]", "]")
    return s

summary, d = sys.argv[1], sys.argv[2]
min_rows = int(sys.argv[3]) if len(sys.argv) > 3 else 3
ours = {}
for r in json.load(open(summary)).get("op_perf", []):
    k = (r["op"], r["shape"].replace(" ", ""))
    o = ours.setdefault(k, [0, 0, 0])
    o[0] += r["calls"]
    o[1] += r.get("kernel_ns") or 0
    o[2] += r.get("graph") or 0
ref = {}
for f in sorted(glob.glob(os.path.join(d, "*.csv"))):
    rows = list(csv.DictReader(open(f, encoding="utf-8")))
    if not rows or "Input Dims_first" not in rows[0] or "name_count" not in rows[0]:
        continue
    tcol = [c for c in rows[0] if c.startswith("Kernel Time (") and c.endswith(")_sum")][0]
    for r in rows:
        if not r["name"].startswith("aten::"):
            continue  # sgl/aiter custom ops: tracedoc models aten ops only
        k = (r["name"], norm(r["Input Dims_first"]))
        x = ref.setdefault(k, [0, 0.0, os.path.basename(f)])
        x[0] += int(r["name_count"])
        x[1] += float(r[tcol] or 0) * 1000.0
bad = n = 0
for k, (calls, ns, sheet) in sorted(ref.items()):
    o = ours.get(k)
    if o is None:
        print("missing in op_perf: %s %s (%s)" % (k[0], k[1], sheet)); bad += 1; continue
    ok = o[0] == calls and (ns == 0 or abs(o[1] - ns) <= 0.01 * ns)
    n += 1
    print("%s %s %s: calls %d / %d, ns %d / %.0f, graph %d" % ("ok " if ok else "BAD", k[0], k[1],
          o[0], calls, o[1], ns, o[2]))
    bad += not ok
print("%d rows compared, %d differ" % (n, bad))
sys.exit(0 if not bad and n >= min_rows else 1)
