# Partial summaries of the 8 ranks of the PARAM DLRM Kineto job (the shared tar): one
# `summarize` per rank, then `merge`. Expected: the summary.json of `report` of all ranks
# at once (tests/merge_cmp.py: exact for counts, sums, min/max, interval totals, the
# per-rank tables, the straggler wait and the findings; medians within the DDSketch
# bound). A tree merge (4 + 4, then the two) gives the same bytes as the flat merge, and
# the folded stacks of the merge equal the report's.
. "$ROOT/tests/lib.sh"
need_traces
mkdir -p "$WORK/r" && tar xzf "$TRACES/kineto/param_dlrm_8ranks.tar.gz" -C "$WORK/r" || die "tar"
D="$WORK/r/dlrm_kineto"
for f in "$D"/*.json; do
    "$TD" summarize "$f" -o "$WORK/$(basename "$f" .json).tds" || die "summarize $f"
done
set -- "$WORK"/worker*.tds
[ $# = 8 ] || die "expected 8 partials, got $#"
"$TD" report --format json,folded -o "$WORK/all" "$D"/*.json || die "report"
"$TD" merge "$@" -o "$WORK/flat" --format json,folded || die "merge"
$PY "$ROOT/tests/merge_cmp.py" "$WORK/all/summary.json" "$WORK/flat/summary.json" || die "merge != report"
for k in cpu device; do
    cmp "$WORK/all/$k.folded" "$WORK/flat/$k.folded" || die "$k.folded differs"
done
# the checks above must be able to fail: a job without one rank is not the job
"$TD" merge "${@:2}" -o "$WORK/seven" --format json || die "merge 7"
$PY "$ROOT/tests/merge_cmp.py" "$WORK/all/summary.json" "$WORK/seven/summary.json" >/dev/null &&
    die "7 ranks compared equal to 8"
# tree: merges of merges
"$TD" merge "$1" "$2" "$3" "$4" -o "$WORK/a.tds" || die "merge a"
"$TD" merge "$5" "$6" "$7" "$8" -o "$WORK/b.tds" || die "merge b"
"$TD" merge "$WORK/b.tds" "$WORK/a.tds" -o "$WORK/ab.tds" || die "merge ab"
# written the way the flat merge was (merge -o DIR), so both carry the same report.* scalars
"$TD" merge "$WORK/ab.tds" -o "$WORK/tree" --format json || die "merge tree"
cmp "$WORK/tree/summary.json" "$WORK/flat/summary.json" || die "tree merge differs from the flat merge"
# the straggler wait of the collectives is there (8 ranks, same instance counts)
$PY - "$WORK/flat/summary.json" <<'PYEOF' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
w = [r["wait_ns"] for r in d["collectives"]]
assert w and all(x is not None for x in w), w
assert d["trace"]["ranks"] == 8 and len(d["inputs"]) == 8
assert [r["rank"] for r in d["inputs"]] == list(range(8))
PYEOF
exit 0
