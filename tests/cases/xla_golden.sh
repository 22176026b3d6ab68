# Regression goldens for the XLA pass on the pax nsys-jax archives (values checked
# independently by xla_modules.sh and xla_compile.sh; these pin everything else):
# the XLA summary of process 0 and of all four processes (thunks table cut to its top
# 25 rows to keep the files small) and the compile and device folded stacks of
# process 0.
. "$ROOT/tests/lib.sh"
need_traces
T=$(dirname "$TD")/tests/test_xla
[ -x "$T" ] || { echo "test_xla helper not built"; exit 77; }
Z=$TRACES/nsys-jax
trim() {
    $PY -c '
import json, sys
d = json.load(sys.stdin)
d["thunks"] = d["thunks"][:25]
for k in ("variability", "collective_instances"):
    d[k] = d[k][:25]
json.dump(d, sys.stdout, indent=1, sort_keys=False)
print()'
}
"$T" json "$Z/pax_fsdp4_4proc_proc0.zip" | trim >"$WORK/proc0.json" || die "proc0"
"$T" json "$Z"/pax_fsdp4_4proc_proc{0,1,2,3}.zip | trim >"$WORK/all4.json" || die "all4"
"$T" fold compile "$Z/pax_fsdp4_4proc_proc0.zip" >"$WORK/compile.folded" || die "fold compile"
"$T" fold device "$Z/pax_fsdp4_4proc_proc0.zip" >"$WORK/device.folded" || die "fold device"
rc=0
golden xla/pax_proc0.summary.json "$WORK/proc0.json" || rc=1
golden xla/pax_all4.summary.json "$WORK/all4.json" || rc=1
golden xla/pax_proc0.compile.folded "$WORK/compile.folded" || rc=1
golden xla/pax_proc0.device.folded "$WORK/device.folded" || rc=1
exit $rc
