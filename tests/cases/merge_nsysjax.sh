# Partial summaries of the four nsys-jax archives of one PAX FSDP job, one `summarize`
# each, then `merge`: the merged summary.json equals `report` of the four at once, table
# by table (tests/merge_cmp.py: exact; medians and sample standard deviations are not in
# these tables except module std, within 1 ns), including the views that depend on the
# top-module cut of the whole job (runtime.*, thunks, hlo_ops, hlo_opcodes) and the
# cross-process ones (collectives with the straggler wait after nsys-jax's clock
# alignment, collective_instances, collective_wait_histogram), the XLA variability
# table, and the folded stacks of the device, source, opname and compile flamegraphs
# byte for byte. Tree merges in another order (2+0, 3+1, then the two) give the same
# bytes as the flat merge.
. "$ROOT/tests/lib.sh"
need_traces
J="$TRACES/nsys-jax"
for i in 0 1 2 3; do
    "$TD" summarize "$J/pax_fsdp4_4proc_proc$i.zip" -o "$WORK/p$i.tds" || die "summarize $i"
done
"$TD" report --format json,folded -o "$WORK/all" "$J"/pax_fsdp4_4proc_proc*.zip 2>/dev/null ||
    die "report"
"$TD" merge --format json,folded -o "$WORK/flat" "$WORK"/p[0-3].tds 2>/dev/null || die "merge"
$PY "$ROOT/tests/merge_cmp.py" --skip date "$WORK/all/summary.json" "$WORK/flat/summary.json" ||
    die "merge != report"
for k in device source opname compile; do
    [ -s "$WORK/all/$k.folded" ] || die "report wrote no $k.folded"
    cmp "$WORK/all/$k.folded" "$WORK/flat/$k.folded" || die "$k.folded differs"
done
$PY - "$WORK/flat/summary.json" <<'PYEOF' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["trace"]["ranks"] == 4 and len(d["modules"]) > 1, d["trace"]
assert d["compile"]["total_ns"] > 0 and d["compile"]["phases"]
# the views that were missing from merges before: present and not empty
for t in ("thunks", "hlo_ops", "hlo_opcodes", "variability", "collectives",
          "collective_instances", "collective_wait_histogram"):
    assert d.get(t), t
r = d["runtime"]
assert r["busy_in_modules_ns"] + r["idle_in_modules_ns"] + r["idle_between_modules_ns"] == r["wall_ns"], r
# cross-process: waits of instances on all four devices
assert any(c["devices"] == 4 and c["wait_ns"] is not None for c in d["collective_instances"])
PYEOF
"$TD" merge "$WORK/p2.tds" "$WORK/p0.tds" -o "$WORK/a.tds" || die "merge a"
"$TD" merge "$WORK/p3.tds" "$WORK/p1.tds" -o "$WORK/b.tds" || die "merge b"
"$TD" merge --format json,folded -o "$WORK/tree" "$WORK/a.tds" "$WORK/b.tds" 2>/dev/null || die "tree"
for f in summary.json device.folded source.folded opname.folded compile.folded; do
    cmp "$WORK/tree/$f" "$WORK/flat/$f" || die "tree merge: $f differs from the flat merge"
done
# another top-module cut (--threshold 0.5 keeps one program of the job): the views of
# the top modules follow the cut made after merging
for i in 0 1 2 3; do
    "$TD" summarize --threshold 0.5 "$J/pax_fsdp4_4proc_proc$i.zip" -o "$WORK/t$i.tds" ||
        die "summarize --threshold $i"
done
"$TD" summary --format json --threshold 0.5 "$J"/pax_fsdp4_4proc_proc*.zip >"$WORK/all5.json" ||
    die "summary --threshold"
"$TD" summary --format json "$WORK"/t[0-3].tds >"$WORK/flat5.json" || die "merge --threshold"
$PY "$ROOT/tests/merge_cmp.py" --skip date "$WORK/all5.json" "$WORK/flat5.json" ||
    die "merge != report with --threshold 0.5"
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); m=[r for r in d["modules"] if not r["below_cut"]]; assert len(m)==1, m' \
    "$WORK/flat5.json" || die "--threshold 0.5 should keep one program"
exit 0
