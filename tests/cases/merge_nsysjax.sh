# Partial summaries of the four nsys-jax archives of one PAX FSDP job, one `summarize`
# each, then `merge`: the merged summary.json equals `report` of the four at once for
# what XLA parts merge (README "Not merged"): inputs, trace.*, warm-up, modules (every
# module; the top-module cut after merging), compile phases and time. The top-module
# views and the cross-process collective views are absent from the merge (not wrong),
# and tree == flat.
. "$ROOT/tests/lib.sh"
need_traces
J="$TRACES/nsys-jax"
for i in 0 1 2 3; do
    "$TD" summarize "$J/pax_fsdp4_4proc_proc$i.zip" -o "$WORK/p$i.tds" || die "summarize $i"
done
"$TD" summary --format json "$J"/pax_fsdp4_4proc_proc*.zip >"$WORK/all.json" || die "summary"
"$TD" summary --format json "$WORK"/p[0-3].tds >"$WORK/flat.json" || die "merge"
NOT=runtime,thunks,hlo_ops,hlo_opcodes,variability,collective_instances,collective_wait_histogram,collectives
$PY "$ROOT/tests/merge_cmp.py" --skip findings --absent $NOT "$WORK/all.json" "$WORK/flat.json" ||
    die "merge != report"
$PY - "$WORK/flat.json" <<'PYEOF' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["trace"]["ranks"] == 4 and len(d["modules"]) > 1, d["trace"]
assert d["compile"]["total_ns"] > 0 and d["compile"]["phases"]
PYEOF
"$TD" merge "$WORK/p0.tds" "$WORK/p1.tds" -o "$WORK/a.tds" || die "merge a"
"$TD" merge "$WORK/p3.tds" "$WORK/p2.tds" -o "$WORK/b.tds" || die "merge b"
"$TD" summary --format json "$WORK/a.tds" "$WORK/b.tds" >"$WORK/tree.json" || die "tree"
cmp "$WORK/tree.json" "$WORK/flat.json" || die "tree merge differs from the flat merge"
exit 0
