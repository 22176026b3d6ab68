# Reader on every real Chrome trace in ../shared/traces (kineto/*.json.gz, the tar.gz of 8
# ranks, torch-cpu): event counts, kinds, durations, sizes and hashes against an
# independent python3 json.load of the same bytes.
. "$ROOT/tests/lib.sh"
need_traces
PROBE=$(dirname "$TD")/tests/test_read_dump
[ -x "$PROBE" ] || die "missing $PROBE"
files=$(ls "$TRACES"/kineto/*.json.gz "$TRACES"/kineto/*.tar.gz "$TRACES"/torch-cpu/*.json)
# python reference (runs while the probe reads)
$PY - $files >"$WORK/want" <<'PYEOF' &
import sys, json, gzip, tarfile, hashlib, io
from decimal import Decimal
KERNEL = {"kernel", "mtia_ccp_events", "xpu_kernel"}
def facts(path, raw):
    data = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    d = json.loads(data, parse_float=Decimal)
    ev = d["traceEvents"] if isinstance(d, dict) else d
    X = [e for e in ev if e.get("ph") == "X"]
    kern = sum(1 for e in X if str(e.get("cat", "")).lower() in KERNEL)
    inst = sum(1 for e in ev if e.get("ph") in ("i", "I"))
    flows = sum(1 for e in ev if e.get("ph") in ("s", "t", "f"))
    tids = len({e.get("tid", 0) for e in X})
    dur = sum(int((Decimal(e.get("dur", 0)) * 1000).to_integral_value(rounding="ROUND_HALF_UP")) for e in X)
    rank = d.get("distributedInfo", {}).get("rank") if isinstance(d, dict) else None
    print("path=%s bytes=%d sha256=%s nevents=%d x=%d kernels=%d instants=%d flows=%d tids=%d dur_sum=%d sorted=1"
          % (path, len(raw), hashlib.sha256(raw).hexdigest(), len(ev), len(X), kern, inst, flows, tids, dur))
for f in sys.argv[1:]:
    raw = open(f, "rb").read()
    if f.endswith(".tar.gz"):
        with tarfile.open(fileobj=io.BytesIO(raw)) as tf:
            for m in tf:
                if m.isfile():
                    facts(f + ":" + m.name, tf.extractfile(m).read())
    else:
        facts(f, raw)
PYEOF
pyjob=$!
"$PROBE" $files >"$WORK/got" 2>"$WORK/err" || { cat "$WORK/err"; die "probe failed"; }
wait $pyjob || die "python reference failed"
# compare the keys python computed
keys="path bytes sha256 nevents x kernels instants flows tids dur_sum sorted"
sel() { grep '^path=' "$1" | tr ' ' '\n' | grep -E "^($(echo $keys | tr ' ' '|'))=" ; }
sel "$WORK/got" >"$WORK/got.k"
sel "$WORK/want" >"$WORK/want.k"
diff "$WORK/want.k" "$WORK/got.k" >"$WORK/diff" || { head -40 "$WORK/diff"; die "reader facts differ from python"; }
n=$(grep -c '^path=' "$WORK/got")
[ "$n" = 17 ] || die "expected 17 traces, got $n"
# the same facts when the read buffer is tiny (every event straddles refills)
TD_READ_BUF=97 "$PROBE" $files >"$WORK/got.small" 2>&1 || { head "$WORK/got.small"; die "probe failed with a small buffer"; }
cmp -s "$WORK/got" "$WORK/got.small" || { diff "$WORK/got" "$WORK/got.small" | head; die "results depend on the buffer size"; }
# and without the read-ahead thread
TD_NO_READ_THREAD=1 "$PROBE" $files >"$WORK/got.nt" 2>&1 || die "probe failed without read-ahead"
cmp -s "$WORK/got" "$WORK/got.nt" || { diff "$WORK/got" "$WORK/got.nt" | head; die "results depend on the read-ahead thread"; }
# no warnings on these clean files
if grep -q '^warning:' "$WORK/got"; then grep '^warning:' "$WORK/got"; die "unexpected warnings"; fi
# ranks: distributedInfo ranks of the 8 DLRM workers are distinct -> kept
"$PROBE" "$TRACES"/kineto/param_dlrm_8ranks.tar.gz | grep -o 'worker[0-9]_step.* rank=[0-9]*' | \
    sed 's/^worker\([0-9]\).* rank=\([0-9]*\)$/\1 \2/' | while read w r; do
        [ "$w" = "$r" ] || die "worker$w got rank $r"
    done || exit 1
exit 0
