# Acceptance (issue 24 item 6): the `memory` table against the trace's own [memory] events
# (tests/mem_check.py reads the JSON itself: per device the event count, the largest
# "Total Allocated" and "Total Reserved", the first event at the allocated peak, the
# innermost cpu_op around it), and the peaks against the oracles' cross-check
# (../shared/oracles/analyses/<trace>/memory_peak_ourscript.csv). The same table comes
# through `summarize` + `merge` unchanged. A trace without [memory] events has no table.
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
    $PY "$ROOT/tests/mem_check.py" "$tr" "$WORK/$b.csv" >"$WORK/$b.out" || { cat "$WORK/$b.out"; die "$b: memory table != the trace's events"; }
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
# merge: summarize + merge carries the per-rank rows as they are
T=$TRACES/kineto-shapes/tl_h100_bert_small.json.gz
"$TD" summarize "$T" -o "$WORK/p.tds" || die summarize
"$TD" merge "$WORK/p.tds" -o "$WORK/m" --format json || die merge
"$TD" report --format json -o "$WORK/r" "$T" || die report
$PY - "$WORK/r/summary.json" "$WORK/m/summary.json" <<'PYEOF' || die "merge changed the memory table"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["memory"] and a["memory"] == b["memory"], (a.get("memory"), b.get("memory"))
PYEOF
exit 0
