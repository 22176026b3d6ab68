# Damaged and hostile inputs: truncated at many offsets (plain and gzip), corrupt bytes,
# empty file, 0-event trace, hostile names, deep nesting, a gzip stream that expands a lot
# (must stream in bounded memory), stdin, directories and tar archives.
# Every run must exit 0 (with a warning when data was lost) or 3 with a message naming
# the file and a byte offset - never crash.
. "$ROOT/tests/lib.sh"
need_traces
PROBE=$(dirname "$TD")/tests/test_read_dump
src="$TRACES/kineto/hta_mi250_minitoy.json.gz"
gzip -dc "$src" >"$WORK/t.json"
size=$(stat -c %s "$WORK/t.json")

# run_ok_or_3 FILE: exit 0 with a warning naming FILE when data was lost, or 3 naming
# FILE and a byte offset
run_ok_or_3() {
    local f=$1 rc
    "$TD" summary --format json "$f" >"$WORK/out" 2>"$WORK/err"; rc=$?
    case $rc in
    0) ;;
    3) grep -q "^tracedoc: $f:.*byte [0-9]" "$WORK/err" || { cat "$WORK/err"; echo "exit 3 without file and byte offset ($f)"; return 1; } ;;
    *) cat "$WORK/err" | head -20; echo "exit $rc on $f"; return 1 ;;
    esac
}

# 1. truncated at ~20 offsets, plain and gzip
for i in $(seq 1 20); do
    off=$(( (size * i) / 21 + i * 7 ))
    head -c "$off" "$WORK/t.json" >"$WORK/cut.json"
    run_ok_or_3 "$WORK/cut.json" || die "truncated at $off"
done
# a truncation inside the event array keeps the events before it and warns
head -c $((size / 2)) "$WORK/t.json" >"$WORK/half.json"
"$TD" summary --format json "$WORK/half.json" >/dev/null 2>"$WORK/err" || die "half file: exit $?"
grep -q "warning: $WORK/half.json: truncated at byte $((size / 2)); kept [0-9]* events" "$WORK/err" || { cat "$WORK/err"; die "no truncation warning"; }
csize=$(stat -c %s "$src")
for i in 3 7 11 15 19; do
    head -c $(( csize * i / 20 )) "$src" >"$WORK/cut.json.gz"
    run_ok_or_3 "$WORK/cut.json.gz" || die "gzip truncated at $i/20"
done

# 2. corrupt bytes in the middle (plain: garbage; gzip: broken deflate)
$PY - "$WORK/t.json" "$WORK/bad.json" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
k = d.index(b"},", len(d) // 2) + 2
d[k:k] = b" @#!\x00 "
open(sys.argv[2], "wb").write(d)
PY
expect_exit 3 "$TD" summary "$WORK/bad.json" 2>"$WORK/err" || exit 1
grep -q "^tracedoc: $WORK/bad.json: byte [0-9]*: expected" "$WORK/err" || { cat "$WORK/err"; die "garbage message"; }
$PY - "$src" "$WORK/bad.json.gz" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
for k in range(len(d) // 3, len(d) // 3 + 64):
    d[k] ^= 0x5a
open(sys.argv[2], "wb").write(d)
PY
run_ok_or_3 "$WORK/bad.json.gz" || die "corrupt gzip"

# 3. empty file, not a trace, a 0-event trace, a JSON file without traceEvents
: >"$WORK/empty.json"
expect_exit 7 "$TD" summary "$WORK/empty.json" 2>"$WORK/err" || exit 1
grep -q "$WORK/empty.json: the input holds no events (an empty file)" "$WORK/err" || die "empty message"
printf 'id,name\n1,x\n' >"$WORK/x.csv"
expect_exit 3 "$TD" summary "$WORK/x.csv" 2>"$WORK/err" || exit 1
grep -q "x.csv: not a trace (expected Chrome JSON, gzip, tar, SQLite, zip or XPlane)" "$WORK/err" || die "not-a-trace message"
printf '{"traceEvents": []}' >"$WORK/zero.json"
"$PROBE" "$WORK/zero.json" | grep -q 'nevents=0 nev=0' || die "0-event trace"
expect_exit 7 "$TD" summary --format json "$WORK/zero.json" >/dev/null 2>"$WORK/err" || exit 1
grep -q "zero.json: the input holds no events" "$WORK/err" || die "0-event trace: message"
printf '{"a": 1}' >"$WORK/noev.json"
expect_exit 3 "$TD" summary "$WORK/noev.json" 2>"$WORK/err" || exit 1

# 4. hostile names survive reading and come out as valid JSON
$PY - "$WORK/hostile.json" <<'PY'
import json, sys
name = 'a"b<c>&d\n=cmd|\' /C calc\'!A0 \u202e\x01'
ev = [{"ph": "X", "cat": "cpu_op", "name": name, "pid": name, "tid": 1, "ts": 10 + i, "dur": 5} for i in range(3)]
ev.append({"ph": "X", "cat": "kernel", "name": name * 50, "pid": 0, "tid": 7, "ts": 12, "dur": 1, "args": {"device": 0, "stream": 7}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
"$TD" summary --format json "$WORK/hostile.json" >"$WORK/h.out" 2>"$WORK/err" || { cat "$WORK/err"; die "hostile names: exit $?"; }
$PY -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/h.out" || die "summary.json invalid with hostile names"

# 5. deep nesting (iterative skip with a depth limit, not recursion)
$PY -c 'import sys; sys.stdout.write("[{\"ph\":\"X\",\"ts\":1,\"args\":" + "[" * 200000 + "]" * 200000 + "}]")' >"$WORK/deep.json"
expect_exit 3 "$TD" summary "$WORK/deep.json" 2>"$WORK/err" || exit 1
grep -q "deep.json: byte [0-9]*: nesting deeper than 1024 levels" "$WORK/err" || { cat "$WORK/err"; die "deep nesting message"; }
$PY -c 'import sys; sys.stdout.write("{\"otherData\":" + "{\"a\":" * 900 + "1" + "}" * 900 + ",\"traceEvents\":[{\"ph\":\"X\",\"ts\":1}]}")' >"$WORK/deep2.json"
"$PROBE" "$WORK/deep2.json" | grep -q 'nev=1 ' || die "900 levels of nesting are fine"

# 6. a small gzip stream that expands to 256 MiB: streamed in bounded memory
$PY - "$WORK/bomb.json.gz" <<'PY'
import sys, zlib
c = zlib.compressobj(9, zlib.DEFLATED, 31)
out = [c.compress(b'{"traceEvents": [')]
blk = b" " * (1 << 20)
for _ in range(256):
    out.append(c.compress(blk))
out.append(c.compress(b'{"ph":"X","name":"x","ts":1,"dur":1}]}'))
out.append(c.flush())
open(sys.argv[1], "wb").write(b"".join(out))
PY
[ "$(stat -c %s "$WORK/bomb.json.gz")" -lt 1000000 ] || die "bomb too large"
if [ -x /usr/bin/time ] && [ "${BUILD_KIND#*asan}" = "$BUILD_KIND" ]; then
    /usr/bin/time -f '%M' -o "$WORK/rss" "$PROBE" "$WORK/bomb.json.gz" >"$WORK/b.out" || die "bomb"
    rss=$(tail -1 "$WORK/rss")
    [ "$rss" -lt 65536 ] || die "gzip stream not bounded: peak RSS $rss KiB"
else
    "$PROBE" "$WORK/bomb.json.gz" >"$WORK/b.out" || die "bomb"
fi
grep -q 'nev=1 ' "$WORK/b.out" || die "bomb: event after 256 MiB of blanks"

# 7. stdin, directories, tar archives
"$PROBE" - <"$src" | grep -q '^path=stdin .*gzip=1 .*nevents=220 ' || die "stdin"
gzip -dc "$src" | "$TD" summary --format json - >/dev/null 2>"$WORK/err" || { cat "$WORK/err"; die "stdin summary"; }
mkdir -p "$WORK/dir/sub"
cp "$WORK/t.json" "$WORK/dir/b.json"
cp "$src" "$WORK/dir/a.json.gz"
printf 'notes\n' >"$WORK/dir/README"
printf '{"config": 1}\n' >"$WORK/dir/c_config.json"
cp "$WORK/t.json" "$WORK/dir/sub/ignored.json"
"$PROBE" "$WORK/dir" >"$WORK/d.out" || die "directory"
[ "$(grep -c '^path=' "$WORK/d.out")" = 2 ] || { cat "$WORK/d.out"; die "directory: 2 traces expected"; }
grep '^path=' "$WORK/d.out" | head -1 | grep -q "^path=$WORK/dir/a.json.gz " || die "directory order"
mkdir -p "$WORK/nodir"; printf 'x\n' >"$WORK/nodir/x.txt"
expect_exit 3 "$TD" summary "$WORK/nodir" 2>"$WORK/err" || exit 1
grep -q "nodir: no traces in this directory" "$WORK/err" || die "empty dir message"
(cd "$WORK/dir" && tar cf "$WORK/t.tar" b.json a.json.gz README)
"$PROBE" "$WORK/t.tar" >"$WORK/tar.out" || die "tar"
grep -q "^path=$WORK/t.tar:b.json .*gzip=0 .*nevents=220 " "$WORK/tar.out" || { cat "$WORK/tar.out"; die "tar member b.json"; }
grep -q "^path=$WORK/t.tar:a.json.gz .*gzip=1 .*nevents=220 " "$WORK/tar.out" || die "tar member a.json.gz"
[ "$(grep -c '^path=' "$WORK/tar.out")" = 2 ] || die "tar: 2 traces"
gzip -c "$WORK/t.tar" >"$WORK/t.tar.gz"
"$PROBE" "$WORK/t.tar.gz" | grep -c '^path=' | grep -qx 2 || die "tar.gz"
tsz=$(stat -c %s "$WORK/t.tar.gz")
for i in 2 5 9 13 17; do
    head -c $(( tsz * i / 20 )) "$WORK/t.tar.gz" >"$WORK/cut.tar.gz"
    run_ok_or_3 "$WORK/cut.tar.gz" || die "truncated tar.gz at $i/20"
done
# 8. content sniffing hands SQLite and zip (also gzipped, also from stdin) to their
# readers, with size and hash of the bytes as stored
sq="$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite"
zp="$TRACES/nsys-jax/pax_fsdp4_4proc_proc0.zip"
gzip -c "$sq" >"$WORK/n.bin"
for f in "$sq" "$zp" "$WORK/n.bin"; do
    "$PROBE" "$f" >"$WORK/s.out" 2>"$WORK/err" || { cat "$WORK/err"; die "probe on $f"; }
    want="bytes=$(stat -c %s "$f") sha256=$(sha256sum "$f" | cut -c1-64)"
    grep -q "^path=$f format=nsys-[a-z]* gzip=[01] $want " "$WORK/s.out" || { head -2 "$WORK/s.out"; die "sniffing $f"; }
done
grep -q "^path=$WORK/n.bin format=nsys-sqlite gzip=1 " "$WORK/s.out" || die "gzipped SQLite"
"$PROBE" - <"$zp" | grep -q "^path=stdin format=nsys-jax " || die "zip on stdin"
# nothing was extracted next to the archive
[ ! -e "$WORK/b.json" ] || die "archive member written to disk"
exit 0
