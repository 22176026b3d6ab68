# XPlane as the ranks of one job: a TensorBoard/XProf log directory
# (LOGDIR/plugins/profile/RUN/HOST.xplane.pb, two hosts made here from the shared sample)
# reads the newest run's hosts as two ranks and says which run it read; the run's other
# files of those hosts (XProf's HOST.trace.json.gz) are left out; the profile directory and
# a run's own directory read as well. The same layout with torch's
# tensorboard_trace_handler files (HOST.pt.trace.json.gz) reads too (it exited 3 "no traces
# in this directory" before). `summarize` of each host then `merge` gives the job's module,
# thunk and HLO-op tables of `report` of both (an XPlane holds no process index, so each
# host's part says rank 0: the per-rank tables are not compared).
. "$ROOT/tests/lib.sh"
need_traces
X="$TRACES/xplane/934987a2fc2f.xplane.pb"
K="$TRACES/kineto/hta_mi250_minitoy.json.gz"
[ -f "$X" ] && [ -f "$K" ] && [ -f "$TRACES/kineto/param_dlrm_8ranks.tar.gz" ] || { echo "no XPlane sample"; exit 77; }
L="$WORK/logdir"
new="$L/plugins/profile/2026_05_02_10_00_00" old="$L/plugins/profile/2026_05_01_09_00_00"
mkdir -p "$new" "$old" "$WORK/tb/plugins/profile/2026_05_01_00_00_00"
for h in hostA hostB; do
    $PY "$ROOT/bench/mkxplane.py" "$X" "$new/$h.xplane.pb" --host $h || die "mkxplane"
done
cp "$K" "$new/hostA.trace.json.gz"   # stands for XProf's conversion of hostA's XPlane
cp "$X" "$old/only.xplane.pb"
"$TD" summary --format json -o "$WORK/l.json" "$L" 2>"$WORK/err" || { cat "$WORK/err"; die "log directory"; }
grep -qF "read the newest, $new" "$WORK/err" || { cat "$WORK/err"; die "which run was read"; }
grep -q "1 file beside the hosts' XPlanes" "$WORK/err" || { cat "$WORK/err"; die "conversion skipped"; }
"$TD" summary --format json -o "$WORK/p.json" "$L/plugins/profile/" 2>/dev/null || die "profile dir"
"$TD" summary --format json -o "$WORK/o.json" "$old" 2>/dev/null || die "a run's directory"
D="$TRACES/kineto/param_dlrm_8ranks.tar.gz"   # two ranks of a DLRM job, as the handler names them
for i in 0 1; do
    tar xzf "$D" -O --wildcards "dlrm_kineto/worker${i}_*" | gzip -1 \
        >"$WORK/tb/plugins/profile/2026_05_01_00_00_00/worker$i.1694128201545.pt.trace.json.gz" || die "tar"
done
"$TD" summary --format json -o "$WORK/tb.json" "$WORK/tb" 2>"$WORK/err" || { cat "$WORK/err"; die "tensorboard_trace_handler log directory"; }
grep -q "read the newest" "$WORK/err" || die "tb: which run"
# summarize + merge of the two hosts = report of both
"$TD" summarize "$new/hostA.xplane.pb" -o "$WORK/a.tds" 2>/dev/null || die "summarize A"
"$TD" summarize "$new/hostB.xplane.pb" -o "$WORK/b.tds" 2>/dev/null || die "summarize B"
"$TD" merge --format json -o "$WORK/m" "$WORK/a.tds" "$WORK/b.tds" 2>/dev/null || die "merge"
"$TD" report --format json -o "$WORK/r" "$new/hostA.xplane.pb" "$new/hostB.xplane.pb" 2>/dev/null || die "report"
checked $PY - "$WORK/l.json" "$WORK/p.json" "$WORK/o.json" "$WORK/tb.json" "$WORK/m/summary.json" "$WORK/r/summary.json" <<'PYEOF'
import json, sys
l, p, o, tb, m = (json.load(open(x)) for x in sys.argv[1:6])
assert l["trace"]["ranks"] == 2, l["trace"]
assert [i["path"].rsplit("/", 1)[1] for i in l["inputs"]] == ["hostA.xplane.pb", "hostB.xplane.pb"], l["inputs"]
assert [i["format"] for i in l["inputs"]] == ["xplane", "xplane"]
assert [i["rank"] for i in l["inputs"]] == [0, 1]
assert p["inputs"] == l["inputs"]
assert o["trace"]["ranks"] == 1 and o["inputs"][0]["path"].endswith("only.xplane.pb")
assert tb["trace"]["ranks"] == 2 and all(i["format"] == "chrome-json" for i in tb["inputs"]), tb["trace"]
r = json.load(open(sys.argv[6]))
assert m["trace"]["ranks"] == 2 and m["modules"][0]["executions"] == 10, m["modules"]
for k in ("modules", "thunks", "hlo_ops", "hlo_opcodes"):
    assert m[k] == r[k], k
PYEOF
