# An nsys-jax archive of mid-2024 or older has no thread-metadata.parquet: each thread
# that launches modules stands for one device (as nsys-jax of that time did), so the
# report is not empty; the warning is on stderr and in summary.json's warnings. The
# figures must be nsys-jax's own for proc0 (its single launching thread is device 0):
# (1) 371.803 ms, (2) 381.636 ms, (3) 389.217 ms.
. "$ROOT/tests/lib.sh"
need_traces
Z=$TRACES/nsys-jax/pax_fsdp4_4proc_proc0.zip
$PY - "$Z" "$WORK/old.zip" <<'PYEOF'
import sys, zipfile
src, dst = zipfile.ZipFile(sys.argv[1]), zipfile.ZipFile(sys.argv[2], "w")
for n in src.namelist():
    if n != "thread-metadata.parquet": dst.writestr(n, src.read(n))
dst.close()
PYEOF
"$TD" summary --format json "$WORK/old.zip" >"$WORK/s.json" 2>"$WORK/err" || die "summary failed"
$PY - "$WORK/s.json" "$WORK/err" <<'PYEOF' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
err = open(sys.argv[2]).read()
r = d["runtime"]
got = tuple(round(r[k] / 1e3) for k in ("thunks_ns", "modules_ns", "wall_ns"))
assert got == (371803, 381636, 389217), got
assert d["trace"]["devices"] == 1, d["trace"]
w = [x for x in d["warnings"] if "thread-metadata.parquet" in x]
assert len(w) == 1, d["warnings"]
assert ("warning: " + w[0]) in err, (w, err)
assert d["modules"][0]["name"] == "pjit__wrapped_step_fn", d["modules"][0]
print("ok")
PYEOF
exit 0
