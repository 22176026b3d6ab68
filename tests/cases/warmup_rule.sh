# The warm-up rule text agrees with what was dropped, for Kineto steps and XLA modules,
# for every --warmup mode: no "Dropped ..." when nothing was, and a count when something was.
. "$ROOT/tests/lib.sh"
need_traces
for f in "$TRACES/nsys-jax/pax_fsdp4_4proc_proc0.zip" "$ROOT/examples/hta_nccl_data.json.gz" \
         "$TRACES/torch-cpu/torch_transformer_cpu_5steps.json"; do
    for w in auto none 1 2 50; do
        "$TD" summary --format json --warmup $w "$f" >"$WORK/s.json" 2>/dev/null ||
            die "summary --warmup $w $f"
        $PY - "$WORK/s.json" "$w" "$f" <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1])); w = sys.argv[2]
wu = s["warmup"]
assert wu["mode"] == w, "mode %r for --warmup %s" % (wu["mode"], w)
rule = wu["rule"]
if wu["dropped"] == 0:
    assert not rule.lower().startswith("dropped"), "%s --warmup %s: %r with 0 dropped" % (sys.argv[3], w, rule)
else:
    assert w != "none" and ("no " not in rule.lower()[:3]), "%s --warmup %s: %r with %d dropped" % (sys.argv[3], w, rule, wu["dropped"])
PY
    done
done
exit 0
