# Issue 38 item 3: a barrier is not the top finding. On the four pax nsys-jax archives
# jit__psum (84% of module time) all-reduces 4 bytes in 2 thunks: the processes waiting
# for each other (sync_global_devices before a checkpoint), not work. The first finding
# leads with the step module (the top module whose collectives move more than 16 bytes),
# page 1 has its time (xla.step_ns) and the worst straggler is a collective that is work.
# The expected values are computed here from the summary's module and collective rows
# (each program's largest collective, its thunks) with the rule doc/summary-json.md gives.
. "$ROOT/tests/lib.sh"
need_traces
Z=$TRACES/nsys-jax
"$TD" report --format json,pdf -o "$WORK/r" "$Z"/pax_fsdp4_4proc_proc*.zip 2>/dev/null || die "report"
$PY - "$WORK/r/summary.json" <<'PYEOF' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
big = {}
for c in d["collective_instances"]:
    big[c["program_id"]] = max(big.get(c["program_id"], 0), c["bytes"] or 1 << 60)
barrier = lambda m: m["program_id"] in big and big[m["program_id"]] <= 16 and m["thunks_mean"] <= 4
mods = d["modules"]
step = next(m for m in mods if not barrier(m))
bad = False
if not barrier(mods[0]) or mods[0]["name"] != "jit__psum":
    print("the top module is not the psum barrier:", mods[0]); bad = True
if d.get("xla", {}).get("step_ns") != step["mean_ns"] or step["name"] != "pjit__wrapped_step_fn":
    print("xla.step_ns", d.get("xla"), "step module", step); bad = True
f = d["findings"]
ms = "%.3f ms" % (step["mean_ns"] / 1e6)
if not f or not f[0].startswith("The step (pjit__wrapped_step_fn,") or ms not in f[0] or \
   "jit__psum (84%) is a barrier" not in f[0]:
    print("first finding:", f[:1], ms); bad = True
worst = next(c for c in d["collective_instances"] if big[c["program_id"]] > 16)
s = [x for x in f if x.startswith("The worst straggler")]
if not s or "program %d" % worst["program_id"] not in s[0] or "2.816 s" in s[0]:
    print("straggler:", s, worst); bad = True
sys.exit(1 if bad else 0)
PYEOF
# page 1 shows the step time card
pdftotext -f 1 -l 1 "$WORK/r/report.pdf" - | grep -q "Step time" || die "page 1 has no step time"
