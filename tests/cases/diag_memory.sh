# Acceptance (issue 24 item 6): the `memory` table against the trace's own [memory] events
# (tests/mem_check.py reads the JSON itself: per device the event count, the largest
# "Total Allocated" and "Total Reserved", the first event at the allocated peak, the
# innermost cpu_op around it), and the peaks against the oracles' cross-check
# (../shared/oracles/analyses/<trace>/memory_peak_ourscript.csv). The same table comes
# through `summarize` + `merge` unchanged. A trace without [memory] events has no table.
# (A comparison of a table byte-identical to one already compared in this run, the
# release build's, is not recomputed: tests/lib.sh checked.)
. "$ROOT/tests/lib.sh"
need_traces
O=$TRACES/../oracles/analyses
n=0
for tr in "$TRACES"/kineto/*.gz "$TRACES"/kineto-shapes/*.gz; do
    b=$(basename "$tr"); b=${b%.json.gz}; b=${b%.tar.gz}
    case $tr in *.tar.gz) continue ;; esac
    if ! "$TD" summary --format csv --table memory "$tr" >"$WORK/$b.csv" 2>"$WORK/$b.err"; then
        grep -q "no table 'memory'" "$WORK/$b.err" || die "tracedoc $b: $(cat "$WORK/$b.err")"
        # no table: then the trace has no [memory] event
        ! zgrep -q '"\[memory\]"' "$tr" || die "$b: [memory] events but no memory table"
        continue
    fi
    checked $PY "$ROOT/tests/mem_check.py" "$tr" "$WORK/$b.csv" >"$WORK/$b.out" || { cat "$WORK/$b.out"; die "$b: memory table != the trace's events"; }
    n=$((n + 1))
    P=$O/$b/memory_peak_ourscript.csv
    [ -f "$P" ] || continue
    $PY - "$WORK/$b.csv" "$P" <<'PYEOF' || die "$b: peaks differ from $P"
import csv, sys
mine = {r["device"]: r for r in csv.DictReader(open(sys.argv[1]))}
for r in csv.DictReader(open(sys.argv[2])):
    t, i = int(r["device_type"]), int(r["device_id"])
    d = ("cpu" if t == 0 else "cuda") + ("" if i < 0 else ":%d" % i)
    m = mine[d]
    assert int(m["events"]) == int(r["n_events"]), (d, m["events"], r["n_events"])
    assert int(m["peak_allocated_bytes"]) == int(r["peak_total_allocated"]), d
    assert int(m["peak_reserved_bytes"]) == int(r["peak_total_reserved"]), d
PYEOF
done
[ $n -ge 1 ] || die "no shared trace with [memory] events"
# memory_timeline (the PDF's memory chart) against the oracle's own read of the events
# (memory_timeline_ourscript.csv: every [memory] event with its totals): at most 200 rows
# per device; each row's interval holds exactly its events, and its allocated and reserved
# bytes are the largest of those events; so the largest row is the peak. Times are aligned
# on the allocated peak (table memory's peak_ns = the oracle's peak_total_allocated_ts).
for P in "$O"/*/memory_timeline_ourscript.csv; do
    b=$(basename "$(dirname "$P")")
    tr=$(ls "$TRACES"/kineto*/"$b".json.gz)
    "$TD" summary --format csv --table memory_timeline "$tr" >"$WORK/$b.tl.csv" || die "$b: no memory_timeline"
    $PY - "$WORK/$b.tl.csv" "$WORK/$b.csv" "$P" "$(dirname "$P")/memory_peak_ourscript.csv" <<'PYEOF' || die "$b: memory_timeline differs from $P"
import csv, sys
from collections import defaultdict
from decimal import Decimal
tl, mem, ev, pk = (list(csv.DictReader(open(p))) for p in sys.argv[1:5])
name = lambda t, i: ("cpu" if int(t) == 0 else "cuda") + ("" if int(i) < 0 else ":%d" % int(i))
ns = lambda x: int(Decimal(x) * 1000)
events = defaultdict(list)
for e in ev:
    events[name(e["device_type"], e["device_id"])].append((ns(e["ts"]), int(e["total_allocated"]), int(e["total_reserved"])))
peak_ts = {name(r["device_type"], r["device_id"]): ns(r["peak_total_allocated_ts"]) for r in pk}
peak_ns = {r["device"]: int(r["peak_ns"]) for r in mem}
rows = defaultdict(list)
for r in tl:
    rows[r["device"]].append(r)
assert set(rows) == set(events), (set(rows), set(events))
for d, rs in rows.items():
    off = peak_ns[d] - peak_ts[d]
    assert len(rs) <= 200, (d, len(rs))
    assert sum(int(r["events"]) for r in rs) == len(events[d]), d
    prev = None
    for r in rs:
        lo, hi = int(r["from_ns"]), int(r["to_ns"])
        assert lo < hi and (prev is None or lo >= prev), (d, r)
        prev = hi
        inside = [e for e in events[d] if lo <= e[0] + off < hi]
        assert len(inside) == int(r["events"]), (d, r, len(inside))
        assert max(e[1] for e in inside) == int(r["allocated_bytes"]), (d, r)
        assert max(e[2] for e in inside) == int(r["reserved_bytes"]), (d, r)
    assert max(int(r["allocated_bytes"]) for r in rs) == max(e[1] for e in events[d]), d
print(b"ok".decode(), {d: len(r) for d, r in rows.items()})
PYEOF
done
# merge: summarize + merge carries the per-rank rows as they are
T=$TRACES/kineto-shapes/tl_h100_bert_small.json.gz
"$TD" summarize "$T" -o "$WORK/p.tds" || die summarize
"$TD" merge "$WORK/p.tds" -o "$WORK/m" --format json || die merge
"$TD" report --format json -o "$WORK/r" "$T" || die report
$PY - "$WORK/r/summary.json" "$WORK/m/summary.json" <<'PYEOF' || die "merge changed the memory table"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["memory"] and a["memory"] == b["memory"], (a.get("memory"), b.get("memory"))
assert a["memory_timeline"] and a["memory_timeline"] == b["memory_timeline"]
assert a["op_perf_roofs"] and a["op_perf_roofs"] == b["op_perf_roofs"]
PYEOF
# the memory chart: in the H100 PDF with its peak named, not in a PDF without [memory] events
"$TD" report --format pdf -o "$WORK/pdf" "$T" 2>/dev/null || die "report pdf"
pdftotext "$WORK/pdf/report.pdf" - | grep -q "peak 96.61 MiB allocated at 4.776 ms, ProfilerStep#6, in aten::empty" ||
    die "no memory chart with its peak in the H100 PDF"
"$TD" report --format pdf -o "$WORK/pdf2" "$TRACES/kineto/hta_ns_resolution_rank0.json.gz" 2>/dev/null || die "report pdf 2"
pdftotext "$WORK/pdf2/report.pdf" - | grep -q "Memory over time" && die "memory chart without [memory] events"
exit 0
