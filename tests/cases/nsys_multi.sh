# One Nsight Systems report holding two MPI processes: one trace (rank) per process,
# ranked by the "MPI Rank N" thread names, and cuda_gpu_kern_sum still over the whole
# report (as nsys stats computes it), checked against tests/data/nsys/nsys_expect.py.
. "$ROOT/tests/lib.sh"
X="$ROOT/tests/data/nsys/nsys_expect.py"
$PY "$X" synth "$WORK/two.sqlite" 2 || die "synth"
"$TD" summary --format json "$WORK/two.sqlite" >"$WORK/sum.json" 2>"$WORK/err" || {
    cat "$WORK/err"; die "summary failed"; }
$PY - "$WORK/sum.json" "$WORK/two.sqlite" <<'PYEOF' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
inp = s["inputs"]
assert [i["path"] for i in inp] == [sys.argv[2], sys.argv[2] + ":pid 200"], inp
assert [i["rank"] for i in inp] == [0, 1], inp          # pid 100 is MPI Rank 0
assert all(i["world_size"] == 2 and i["format"] == "nsys-sqlite" for i in inp), inp
assert s["trace"]["ranks"] == 2, s["trace"]
# 16 launches in all, each counted once although both processes use correlation ids 1..8
ops = {o["name"]: o for o in s["ops"]}
assert ops["cudaLaunchKernel"]["calls"] == 16, ops
assert sum(k["calls"] for k in s["kernels"]) == 16, s["kernels"]
PYEOF
"$TD" summary --format csv --table cuda_gpu_kern_sum "$WORK/two.sqlite" >"$WORK/got.csv" || die "csv"
$PY "$X" kern_sum "$WORK/two.sqlite" >"$WORK/exp.csv" || die "expectation"
$PY "$X" compare "$WORK/exp.csv" "$WORK/got.csv" || { cat "$WORK/got.csv"; die "kern_sum differs"; }
exit 0
