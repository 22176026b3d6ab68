# A synthetic job of 128 ranks made by copying a real trace (the HTA MI250 mini trace,
# ranks set in distributedInfo, kernel durations varied by rank): per-rank partials
# merged flat, and in a tree (8 merges of 16, then one merge of the 8 results), equal
# the report of all 128 traces at once (tests/merge_cmp.py), and the tree gives the same
# bytes as the flat merge. (The cost is one process per rank; the sanitizer build, about
# 5x slower, makes 40 ranks; each summarize costs about 0.06 s of CPU, mostly process start.)
. "$ROOT/tests/lib.sh"
need_traces
N=128
[ "${BUILD_KIND:-build}" = build ] || N=40
G=$((N / 8))
mkdir -p "$WORK/t" "$WORK/p" "$WORK/g"
$PY - "$TRACES/kineto/hta_mi250_minitoy.json.gz" "$WORK/t" $N <<'PYEOF' || exit 1
import gzip, json, sys
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = json.load(gzip.open(src))
for k in range(n):
    d["distributedInfo"] = {"backend": "nccl", "rank": k, "world_size": n}
    # rank k's kernels run k % 7 us longer, so ranks differ and the medians move
    for e in d["traceEvents"]:
        if e.get("cat") == "kernel":
            e["dur"] = e.get("_dur0", e["dur"])
            e["_dur0"] = e["dur"]
            e["dur"] = e["_dur0"] + k % 7
    json.dump(d, open(f"{out}/rank{k:04d}.json", "w"))
PYEOF
ls "$WORK"/t/*.json | xargs -P 2 -I{} sh -c '"$0" summarize "$1" -o "$2/p/$(basename "$1" .json).tds"' "$TD" {} "$WORK" ||
    die "summarize"
[ "$(ls "$WORK"/p/*.tds | wc -l)" = $N ] || die "missing partials"
"$TD" summary --format json "$WORK"/t/*.json >"$WORK/all.json" || die "summary of all"
"$TD" summary --format json "$WORK"/p/*.tds >"$WORK/flat.json" || die "flat merge"
$PY "$ROOT/tests/merge_cmp.py" "$WORK/all.json" "$WORK/flat.json" || die "merge != report"
for g in $(seq 0 7); do
    set --
    for k in $(seq $((g * G)) $((g * G + G - 1))); do set -- "$@" "$WORK/p/rank$(printf %04d $k).tds"; done
    "$TD" merge "$@" -o "$WORK/g/g$g.tds" || die "merge group $g"
done
"$TD" summary --format json "$WORK"/g/*.tds >"$WORK/tree.json" || die "tree merge"
cmp "$WORK/tree.json" "$WORK/flat.json" || die "tree merge differs from the flat merge"
$PY - "$WORK/flat.json" $N <<'PYEOF' || exit 1
import json, sys
d, n = json.load(open(sys.argv[1])), int(sys.argv[2])
assert d["trace"]["ranks"] == n and d["trace"]["world_size"] == n, d["trace"]
assert [r["rank"] for r in d["inputs"]] == list(range(n))
PYEOF
exit 0
