# Partial summaries of the four nsys-jax archives of one PAX FSDP job, one `summarize`
# each, then `merge`: the same summary.json as `report` of the four at once (modules
# with the top-module cut after merging, thunks, HLO ops, compile phases, runtime
# totals, collectives), except the collectives' wait_ns, which needs the clock alignment
# over every process and is null in a merge of several parts (README). Tree == flat.
. "$ROOT/tests/lib.sh"
need_traces
J="$TRACES/nsys-jax"
for i in 0 1 2 3; do
    "$TD" summarize "$J/pax_fsdp4_4proc_proc$i.zip" -o "$WORK/p$i.tds" || die "summarize $i"
done
"$TD" summary --format json "$J"/pax_fsdp4_4proc_proc*.zip >"$WORK/all.json" || die "summary"
"$TD" summary --format json "$WORK"/p[0-3].tds >"$WORK/flat.json" || die "merge"
$PY "$ROOT/tests/merge_cmp.py" --null wait_ns "$WORK/all.json" "$WORK/flat.json" || die "merge != report"
"$TD" merge "$WORK/p0.tds" "$WORK/p1.tds" -o "$WORK/a.tds" || die "merge a"
"$TD" merge "$WORK/p3.tds" "$WORK/p2.tds" -o "$WORK/b.tds" || die "merge b"
"$TD" summary --format json "$WORK/a.tds" "$WORK/b.tds" >"$WORK/tree.json" || die "tree"
cmp "$WORK/tree.json" "$WORK/flat.json" || die "tree merge differs from the flat merge"
# one part made of all four processes keeps its wait (nothing to align across parts)
"$TD" summarize "$J"/pax_fsdp4_4proc_proc*.zip -o "$WORK/one.tds" || die "summarize all"
"$TD" summary --format json "$WORK/one.tds" >"$WORK/one.json" || die "summary one"
$PY "$ROOT/tests/merge_cmp.py" "$WORK/all.json" "$WORK/one.json" || die "one part != report"
exit 0
