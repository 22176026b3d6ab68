# Hostile XPlane inputs (made here, wire format by hand): each damaged file is an input
# error (exit 3) whose message names the file and the byte offset where the damage is,
# read as a file and from stdin (the two readings of read/xplane.c: streamed and in
# memory); a file with a huge repeated field (200,000 stats on one event, 100,000 empty
# lines) is read in bounded time; an XSpace without events exits 7; unknown fields,
# planes and wire types that exist (fixed32/64, groups) are skipped; stats an XProf
# version leaves out (hlo_module, program_id, correlation_id) are warned about.
. "$ROOT/tests/lib.sh"
$PY - "$WORK" <<'PYEOF' || die "generator"
import sys, os
W = sys.argv[1]
def v(x):
    o = bytearray()
    while True:
        c = x & 0x7f; x >>= 7
        if x: o.append(c | 0x80)
        else: o.append(c); return bytes(o)
def k(f, w): return v(f << 3 | w)
def ld(f, b): return k(f, 2) + v(len(b)) + b
NAME = ld(2, b"/device:GPU:0")
def plane(body): return ld(1, NAME + body)
def stat(md, val): return ld(4, k(1, 0) + v(md) + k(3, 0) + v(val))
def event(md, off, dur, stats=b""): return ld(4, k(1, 0) + v(md) + k(2, 0) + v(off) + k(3, 0) + v(dur) + stats)
def line(evs): return ld(3, k(1, 0) + v(7) + ld(2, b"Stream #7") + k(3, 0) + v(1000) + evs)
meta = ld(4, k(1, 0) + v(1) + ld(2, k(1, 0) + v(1) + ld(2, b"kern")))
smeta = ld(5, k(1, 0) + v(9) + ld(2, k(1, 0) + v(9) + ld(2, b"correlation_id")))
good = plane(line(event(1, 0, 5000000, stat(9, 3))) + meta + smeta)
files = {
    # a plane of 100000 bytes in a file of a few
    "past_end": k(1, 2) + v(100000) + NAME + k(3, 2),
    # a line longer than its plane (the plane ends first)
    "past_msg": ld(1, NAME + k(3, 2) + v(500) + b"\x08\x07"),
    # groups nested 40 deep inside a plane (unknown field 15)
    "deep": plane(k(15, 3) * 40 + k(15, 4) * 40),
    # a varint cut by the end of the file
    "varint": good + b"\x0a\xff\xff",
    # wire type 7
    "wiretype": plane(k(3, 7)),
    # an event name of 2 MiB (names are limited to 1 MiB)
    "huge_string": plane(ld(4, k(1, 0) + v(1) + ld(2, k(1, 0) + v(1) + ld(2, b"x" * (2 << 20))))),
    # only hostnames: no events
    "empty": plane(b"") + ld(4, b"host0"),
    # 200,000 stats on one event and 100,000 empty lines, and skipped oddities: an unknown
    # plane, fixed32/64 and group fields, an unknown stat
    "huge_repeated": plane(line(event(1, 0, 5000000, stat(9, 3) * 200000)) +
                           ld(3, b"") * 100000 + meta + smeta + k(14, 5) + b"\0\0\0\0" +
                           k(13, 1) + b"\0" * 8 + k(12, 3) + k(11, 0) + v(1) + k(12, 4))
                     + ld(1, ld(2, b"Unknown plane") + ld(3, b"\x08\x01")) + k(9, 0) + v(3),
    "good": good,
    # hlo_module (a str_value) but no program_id, and no correlation_id
    "noprog": plane(line(event(1, 0, 5000000, ld(4, k(1, 0) + v(10) + ld(5, b"jit_f")))) + meta +
                    ld(5, k(1, 0) + v(10) + ld(2, k(1, 0) + v(10) + ld(2, b"hlo_module")))),
}
for n, b in files.items():
    open(os.path.join(W, n + ".xplane.pb"), "wb").write(b)
PYEOF
# file, error text (with its byte offset)
while read -r f want; do
    for how in file stdin; do
        if [ $how = file ]; then
            expect_exit 3 "$TD" summary "$WORK/$f.xplane.pb" >/dev/null 2>"$WORK/err" || die "$f ($how)"
            name="$WORK/$f.xplane.pb"
        else
            expect_exit 3 "$TD" summary - <"$WORK/$f.xplane.pb" >/dev/null 2>"$WORK/err" || die "$f ($how)"
            name=stdin
        fi
        grep -qF "$name: byte $want" "$WORK/err" || { cat "$WORK/err"; die "$f ($how): expected '$name: byte $want'"; }
    done
done <<'EOF2'
past_end 0: length 100000 runs past the end of the input
past_msg 17: length 500 runs past the end of its message (byte 22)
deep 48: groups nested deeper than 32
varint 90: truncated varint
wiretype 17: wire type 7 does not exist
huge_string 34: a string of 2097152 bytes (more than 1048576)
EOF2
expect_exit 7 "$TD" summary "$WORK/empty.xplane.pb" >/dev/null 2>"$WORK/err" || die "empty"
grep -q "holds no events" "$WORK/err" || die "empty: message"
s=$(date +%s%N)
"$TD" summary --format json -o "$WORK/h.json" "$WORK/huge_repeated.xplane.pb" 2>"$WORK/err" || { cat "$WORK/err"; die "huge repeated"; }
ms=$((($(date +%s%N) - s) / 1000000))
[ "$ms" -lt 20000 ] || die "huge repeated field: ${ms} ms"
"$TD" summary --format json -o "$WORK/g.json" "$WORK/good.xplane.pb" 2>"$WORK/err" || die "good"
# what could not be computed is said, not guessed
grep -q "1 of 1 device events carry no hlo_module stat" "$WORK/err" || { cat "$WORK/err"; die "no hlo_module: warning"; }
"$TD" summary "$WORK/noprog.xplane.pb" >/dev/null 2>"$WORK/err" || die "noprog"
grep -q "1 device events carry hlo_module but no program_id" "$WORK/err" || { cat "$WORK/err"; die "no program_id: warning"; }
grep -q "no device event carries a correlation_id" "$WORK/err" || die "no correlation_id: warning"
$PY - "$WORK/h.json" "$WORK/g.json" <<'PYEOF' || exit 1
import json, sys
for p in sys.argv[1:]:
    d = json.load(open(p))
    k = d["kernels_by_device"]
    assert len(k) == 1 and k[0]["calls"] == 1 and k[0]["total_ns"] == 5000, k
    assert d["inputs"][0]["format"] == "xplane"
PYEOF
