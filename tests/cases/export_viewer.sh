# `tracedoc export --format chrome` opened in a real viewer (issue 13): Perfetto's UI is
# not reachable from this machine, so the export of every stack is loaded into
# speedscope (https://www.speedscope.app, MIT, from the npm registry, pinned and checked
# by SHA-256), a third-party web viewer with its own Chrome Trace Event importer, in
# headless Chromium. Expected values come from the exported JSON, read here by Python:
# speedscope lists one profile per thread lane that has slices, named
# "PROCESS (pid P), THREAD (tid T)" from the process_name/thread_name metadata, and
# opens without an import error. Skipped when chromium is missing or speedscope cannot
# be downloaded (no network). On the ASan/UBSan and portable builds the exports are
# required byte-identical to the release build's, whose run of this case opens them in
# speedscope (tests/lib.sh looks_elsewhere).
. "$ROOT/tests/lib.sh"
need_traces
CHROME=$(command -v chromium || command -v chromium-browser) || { echo "chromium not installed"; exit 77; }
VER=1.25.0
SHA=2831f1e0d26df914b477e522d78b8485511495a6af81a0b88158f8b48f9e0d03
CACHE=${TD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tracedoc}/speedscope-$VER
if ! looks_elsewhere && [ ! -f "$CACHE/dist/release/index.html" ]; then
    mkdir -p "$CACHE" || exit 77
    $PY - "$VER" "$SHA" "$CACHE" <<'PY' || { echo "speedscope $VER not reachable (npm registry)"; exit 77; }
import hashlib, io, sys, tarfile, urllib.request
ver, sha, dst = sys.argv[1:4]
data = urllib.request.urlopen(
    "https://registry.npmjs.org/speedscope/-/speedscope-%s.tgz" % ver, timeout=30).read()
if hashlib.sha256(data).hexdigest() != sha:
    sys.exit("speedscope %s: SHA-256 differs" % ver)
with tarfile.open(fileobj=io.BytesIO(data)) as t:
    for m in t.getmembers():
        if m.isfile() and m.name.startswith("package/dist/release/"):
            m.name = m.name[len("package/"):]
            t.extract(m, dst)
PY
fi
cd "$WORK" || exit 1
mkdir site || exit 1

S="$TRACES" E="$ROOT/examples"
exports() { # exports TRACEDOC DIR
    "$1" export "$S/nsys/pipit_saxpy_mpi_cuda_a100.sqlite" -o "$2/nsys.json" 2>/dev/null || die "export nsys"
    "$1" export "$S/nsys-jax/pax_fsdp4_4proc_proc0.zip" -o "$2/jax.json" 2>/dev/null || die "export nsys-jax"
    "$1" export "$E/ipu/detailed.jsonl" -o "$2/ipu.json" 2>/dev/null || die "export ipu"
    "$1" export "$E/ipu/lwp.jsonl" -o "$2/lwp.json" 2>/dev/null || die "export lwp"
    "$1" export "$E/sambanova/decoder" -o "$2/samba.json" 2>/dev/null || die "export samba"
    "$1" export "$S/aiu/allreduce_tp4.json" -o "$2/aiu.json" 2>/dev/null || die "export aiu"
    "$1" export "$S/kineto/hta_mi250_minitoy.json.gz" -o "$2/kineto.json" 2>/dev/null || die "export kineto"
}
exports "$TD" site
if looks_elsewhere; then
    mkdir rel && exports "$TD_RELEASE/tracedoc" rel
    for k in nsys jax ipu lwp samba aiu kineto; do same_as_release site/$k.json rel/$k.json || exit 1; done
    echo "the exports are the release build's, byte for byte: speedscope opens them in its run"
    exit 0
fi
cp "$CACHE"/dist/release/* site/ || die "copy speedscope"

# a local web server (speedscope fetches the profile by URL)
PORT=""
for p in $(seq $((20000 + RANDOM % 20000)) 7 60000 | head -20); do
    (cd site && exec $PY -m http.server "$p" --bind 127.0.0.1) >http.log 2>&1 &
    SRV=$!
    sleep 0.5
    if kill -0 $SRV 2>/dev/null && $PY -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:%s/index.html' % sys.argv[1], timeout=5)" "$p" 2>/dev/null; then
        PORT=$p
        break
    fi
    kill $SRV 2>/dev/null
done
[ -n "$PORT" ] || die "no local port for the web server"
trap 'kill $SRV 2>/dev/null' EXIT

for k in nsys jax ipu lwp samba aiu kineto; do
    timeout -k 10 90 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$WORK/chrome-$k" --virtual-time-budget=15000 --dump-dom \
        "http://127.0.0.1:$PORT/index.html#profileURL=http://127.0.0.1:$PORT/$k.json" \
        >"$k.dom" 2>/dev/null
    $PY - "site/$k.json" "$k.dom" <<'PY' || die "speedscope: $k"
import html, json, re, sys
doc = json.load(open(sys.argv[1]))
ev = doc["traceEvents"] if isinstance(doc, dict) else doc
dom = open(sys.argv[2], encoding="utf-8").read()
assert "Something went wrong" not in dom and "Unrecognized format" not in dom, dom[-2000:]
pname, tname, lanes = {}, {}, set()
for e in ev:
    if e.get("ph") == "M" and e.get("name") == "process_name":
        pname[e["pid"]] = e["args"]["name"]
    elif e.get("ph") == "M" and e.get("name") == "thread_name":
        tname[(e["pid"], e["tid"])] = e["args"]["name"]
    elif e.get("ph") in ("X", "B"):
        lanes.add((e["pid"], e["tid"]))
assert lanes, "no slices exported"
titles = [html.unescape(t) for t in re.findall(r'<tr title="([^"]*)"', dom)]
assert len(titles) == len(lanes), ("profiles", len(titles), "lanes", len(lanes), titles[:5])
for pid, tid in lanes:
    want = "(pid %s)" % pid, "(tid %s)" % tid
    hit = [t for t in titles if want[0] in t and t.endswith(want[1])]
    assert len(hit) == 1, (pid, tid, hit, titles[:5])
    if pid in pname:
        assert hit[0].startswith(pname[pid] + " (pid"), (hit[0], pname[pid])
    if (pid, tid) in tname:
        assert ", %s (tid %s)" % (tname[(pid, tid)], tid) in hit[0], (hit[0], tname[(pid, tid)])
print("%s: %d profiles" % (sys.argv[1], len(titles)))
PY
done
exit 0
