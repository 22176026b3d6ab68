# Partial summaries, what no single part shows:
#  - summarize --meta travels in the part and on to the merge; parts that disagree on a
#    KEY keep the first part's value with a warning; merge --meta overrides;
#  - a kernel called once on each rank has 2 calls in the job: the `variability` table
#    is in the merge although no part has a row (the schema travels with the parts);
#  - Kineto collective rows that tie on total time and type are ordered by message size,
#    dtype NAME and group size in report and merge alike (dtypes interned Long first,
#    Double second: the order by interned id that report had put Long first).
# No kernel name repeats within a rank, so no part has a variability row.
# Two synthetic ranks (written below). Expected values: python from the generated events.
. "$ROOT/tests/lib.sh"
$PY - "$WORK" <<'PY' || die "generator"
import json, sys
w = sys.argv[1]
for rank in (0, 1):
    ev = []
    t = 1000.0
    def k(name, dur, args=None):
        global t
        a = {"device": 0, "stream": 7, "correlation": len(ev) + 1}
        a.update(args or {})
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7,
                   "ts": t, "dur": dur, "args": a})
        t += dur + 1.0
    def nccl(dtype, dur):
        k("ncclKernel_AllReduce_RING_LL_Sum_" + dtype, dur,
          {"Collective name": "allreduce", "In msg nelems": 1024, "Out msg nelems": 1024,
           "Group size": 2, "dtype": dtype})
    nccl("Long", 5.0)           # interned first
    nccl("Double", 5.0)         # same total: ties with the Long row
    k("gemm_kernel", 3.0 + rank)
    k("once_per_rank", 2.0 + rank)   # one call per rank: 2 calls in the job
    json.dump({"schemaVersion": 1, "distributedInfo": {"rank": rank, "world_size": 2},
               "deviceProperties": [{"id": 0, "name": "Synthetic GPU"}],
               "traceEvents": ev}, open(f"{w}/rank{rank}.json", "w"))
PY
"$TD" summarize "$WORK/rank0.json" -o "$WORK/p0.tds" --meta commit=abc --meta run=r0 ||
    die "summarize 0"
"$TD" summarize "$WORK/rank1.json" -o "$WORK/p1.tds" --meta commit=abc --meta run=r1 ||
    die "summarize 1"
grep -q "^kv	meta.commit	text	commit	abc$" "$WORK/p0.tds" || die "meta not in the part"
"$TD" summary --format json "$WORK/rank0.json" "$WORK/rank1.json" --meta commit=abc --meta run=r0 \
    >"$WORK/all.json" || die "summary"
"$TD" summary --format json "$WORK/p0.tds" "$WORK/p1.tds" >"$WORK/flat.json" 2>"$WORK/err" ||
    die "merge"
$PY "$ROOT/tests/merge_cmp.py" --skip warnings "$WORK/all.json" "$WORK/flat.json" ||
    die "merge != report"
"$TD" summary --format json "$WORK/rank0.json" >"$WORK/one.json" || die "summary rank0"
$PY - "$WORK/all.json" "$WORK/flat.json" "$WORK/one.json" <<'PY' || exit 1
import json, sys
a = json.load(open(sys.argv[1]))
m = json.load(open(sys.argv[2]))
# meta: the same key agrees (kept), run disagrees (the first part's, and a warning)
assert m["meta"] == {"commit": "abc", "run": "r0"}, m.get("meta")
assert any("meta.run" in w and "'r0', then 'r1'" in w and "keeps the first part's" in w
           for w in m["warnings"]), m["warnings"]
# variability: once_per_rank has 2 calls (2000 and 3000 ns): mean 2500, sample std 707
assert "variability" not in json.load(open(sys.argv[3])), "a part has a variability row"
v = {r["name"]: r for r in m["variability"]}
assert v["once_per_rank"]["calls"] == 2 and v["once_per_rank"]["mean_ns"] == 2500, v
assert v["once_per_rank"]["std_ns"] == 707, v
# collectives: 2 calls per dtype per rank... one call per rank each: ties on 10000 ns
for d in (a, m):
    rows = [(r["name"], r["total_ns"], r["dtype"]) for r in d["collectives"]]
    assert rows == [("allreduce", 10000, "Double"), ("allreduce", 10000, "Long")], rows
PY
# merge --meta wins over the parts' value
"$TD" summary --format json "$WORK/p0.tds" "$WORK/p1.tds" --meta run=final >"$WORK/o.json" ||
    die "merge --meta"
$PY -c 'import json,sys; m=json.load(open(sys.argv[1]))["meta"]; assert m=={"commit":"abc","run":"final"}, m' \
    "$WORK/o.json" || die "merge --meta does not override"
# tree == flat, meta included
"$TD" merge "$WORK/p0.tds" -o "$WORK/a.tds" || die "merge a"
"$TD" summary --format json "$WORK/a.tds" "$WORK/p1.tds" >"$WORK/tree.json" || die "tree"
cmp "$WORK/tree.json" "$WORK/flat.json" || die "tree differs from flat"
exit 0
