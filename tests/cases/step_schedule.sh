# torch.profiler's schedule records only its active steps: the recorded ProfilerStep
# numbers show the active windows (runs of consecutive numbers) and the numbers missing
# before and between them (summary "schedule.*" and the steps table's "window" column).
# Expected values by hand from the step numbers: a synthetic trace made as the schedule
# schedule(wait=1, warmup=2, active=3, repeat=2) leaves it (#3-#5 and #9-#11 recorded,
# 0-2 and 6-8 missing), and the real torch-cpu trace (ProfilerStep#2..#6, counted with
# grep below, independently of tracedoc).
. "$ROOT/tests/lib.sh"
$PY - "$WORK/sched.json" <<'PY'
import json, sys
ev, t = [], 0
for n in (3, 4, 5, 9, 10, 11):
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % n,
               "pid": 1, "tid": 1, "ts": t, "dur": 900})
    ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1,
               "ts": t + 10, "dur": 500})
    t += 1000 if n not in (5,) else 4000   # the unrecorded steps 6-8 take time too
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
"$TD" summary --format json "$WORK/sched.json" >"$WORK/s.json" 2>"$WORK/err" || { cat "$WORK/err"; die "summary"; }
$PY - "$WORK/s.json" <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
sc = s["schedule"]
assert sc["first_step"] == 3, sc
assert sc["windows"] == 2, sc
assert sc["missing_steps"] == 6, sc          # 0, 1, 2 and 6, 7, 8
assert "ProfilerStep#3-5, ProfilerStep#9-11" in sc["steps"], sc["steps"]
assert "before and between the windows" in sc["steps"], sc["steps"]
win = [(r["step"], r["window"]) for r in s["steps"]]
assert win == [(3, 1), (4, 1), (5, 1), (9, 2), (10, 2), (11, 2)], win
PY
# one window starting at 0: nothing missing, no schedule sentence about it
$PY - "$WORK/zero.json" <<'PY'
import json, sys
ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % n, "pid": 1,
       "tid": 1, "ts": n * 1000, "dur": 900} for n in range(4)]
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
"$TD" summary --format json "$WORK/zero.json" >"$WORK/z.json" 2>/dev/null || die "summary zero"
$PY - "$WORK/z.json" <<'PY' || exit 1
import json, sys
sc = json.load(open(sys.argv[1]))["schedule"]
assert (sc["first_step"], sc["windows"], sc["missing_steps"]) == (0, 1, 0), sc
assert "missing" not in sc["steps"], sc["steps"]
PY
need_traces
T=$TRACES/torch-cpu/torch_transformer_cpu_5steps.json
nums=$(grep -o '"ProfilerStep#[0-9]*"' "$T" | tr -dc '0-9\n' | sort -n | uniq)
first=$(echo "$nums" | head -1)
count=$(echo "$nums" | wc -l)
last=$(echo "$nums" | tail -1)
[ $((last - first + 1)) = "$count" ] || die "the torch-cpu trace's steps are not consecutive"
"$TD" summary --format json "$T" >"$WORK/t.json" 2>/dev/null || die "summary torch-cpu"
$PY - "$WORK/t.json" "$first" "$count" <<'PY' || exit 1
import json, sys
sc = json.load(open(sys.argv[1]))["schedule"]
first, count = int(sys.argv[2]), int(sys.argv[3])
assert (sc["first_step"], sc["windows"], sc["missing_steps"]) == (first, 1, first), sc
assert sc["steps"].startswith("%d steps recorded in 1 active window" % count), sc["steps"]
PY
exit 0
