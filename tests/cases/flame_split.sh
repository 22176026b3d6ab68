# tracedoc flame reads a large folded file on two threads (src/read/folded.c: chunks
# taken in turn, the two trees merged); what it draws and says must be what a reading in
# order gives. The reference is the same file through a pipe (process substitution: read
# once, in order, never split). TD_SPLIT_MIN=1 reads these small files as a 64 MiB one
# would be, TD_SPLIT_CHUNK cuts them in chunks of that many bytes (1 MiB for a large
# file): 4096 (lines of 150-400 bytes, each chunk's last line read past its end) and 97
# (lines longer than a chunk: most chunks hold no line start).
# Also: folded stacks and traces through a pipe or standard input are read whole (the
# look at their first bytes keeps them: io/peek.h); a pipe once lost its first 4 KiB.
# And a gzipped file of folded stacks is drawn as the plain one.
. "$ROOT/tests/lib.sh"
$PY - "$WORK" <<'PYEOF'
import sys
w = sys.argv[1]
# 120 distinct stacks of 20-40 frames, 6000 lines in a fixed order (a few negative
# counts in each half: flamegraph.pl skips them, tracedoc warns with their number)
stacks = [";".join(f"mod{(s * 7 + d) % 13}.fn{(s + d * 3) % 29}" for d in range(20 + s % 21))
          for s in range(120)]
lines = []
for i in range(6000):
    c = -3 if i % 1500 == 7 else (i * 37) % 1000 + 1
    lines.append(f"{stacks[(i * 7919) % 120]} {c}\n")
base = "".join(lines)
tails = {"clean": "", "badtail": "main;x 1.2.3\n", "fractail": "main;frac 1.5\n",
         "difftail": "main;d 5 7\n", "overflow": "main;big 9223372036854775807\n",
         # fits, but not in thousandths: the decimal count after it fails (line 6002)
         "scaleover": "main;big 9300000000000000\nmain;frac 1.5\n"}
for k, t in tails.items():
    with open(f"{w}/{k}.folded", "w") as f:
        f.write(base + t)
with open(f"{w}/badhead.folded", "w") as f:
    f.write("main;ok 1\nmain;x 1.2.3\n" + base)
PYEOF
# the file name as it appears in the drawing and messages, made neutral
neutral() { sed -e "s|$WORK/$1.folded|INPUT|g" -e 's|/dev/fd/[0-9]*|INPUT|g' -e 's|stdin|INPUT|g'; }
for v in clean badtail fractail difftail overflow scaleover badhead; do
    "$TD" flame --minwidth 0 -o "$WORK/$v.pipe.svg" <(cat "$WORK/$v.folded") 2>"$WORK/$v.pipe.err"
    echo $? >"$WORK/$v.pipe.rc"
    for chunk in 97 4096; do
    TD_SPLIT_MIN=1 TD_SPLIT_CHUNK=$chunk "$TD" flame --minwidth 0 -o "$WORK/$v.split.svg" \
        "$WORK/$v.folded" 2>"$WORK/$v.split.err"
    echo $? >"$WORK/$v.split.rc"
    # the two threads' result is kept when nothing went wrong (else the file is read
    # again in order): --timings says which
    TD_SPLIT_MIN=1 TD_SPLIT_CHUNK=$chunk "$TD" flame --timings --minwidth 0 -o "$WORK/t.svg" \
        "$WORK/$v.folded" 2>"$WORK/$v.how" >/dev/null
    case $v in # (a file with a bad line says no timings)
    clean | difftail) grep -q "folded stacks, on two threads)" "$WORK/$v.how" ;;
    fractail) grep -q "on two threads, then again in order" "$WORK/$v.how" ;; # (units)
    esac || die "$v (chunks of $chunk): not read as expected: $(cat "$WORK/$v.how")"
    cmp -s "$WORK/$v.split.rc" "$WORK/$v.pipe.rc" ||
        die "$v (chunks of $chunk): exit $(cat "$WORK/$v.split.rc") read on two threads, $(cat "$WORK/$v.pipe.rc") in order"
    [ "$(neutral "$v" <"$WORK/$v.split.err")" = "$(neutral "$v" <"$WORK/$v.pipe.err")" ] ||
        die "$v (chunks of $chunk): messages differ: $(cat "$WORK/$v.split.err") / $(cat "$WORK/$v.pipe.err")"
    if [ -e "$WORK/$v.pipe.svg" ]; then
        [ "$(neutral "$v" <"$WORK/$v.split.svg")" = "$(neutral "$v" <"$WORK/$v.pipe.svg")" ] ||
            die "$v (chunks of $chunk): the flamegraph read on two threads differs from the one read in order"
    else
        [ ! -e "$WORK/$v.split.svg" ] || die "$v: written on error"
    fi
    done
done
# what each variant must be (by hand: 6000 lines, the tail is line 6001, the bad head line 2)
grep -q "badtail.folded: line 6001: expected 'frame;frame;... COUNT'" "$WORK/badtail.split.err" ||
    die "badtail: $(cat "$WORK/badtail.split.err")"
grep -q "badhead.folded: line 2: expected" "$WORK/badhead.split.err" ||
    die "badhead: $(cat "$WORK/badhead.split.err")"
grep -q "overflow.folded: line 6001: count too large" "$WORK/overflow.split.err" ||
    die "overflow: $(cat "$WORK/overflow.split.err")"
grep -q "scaleover.folded: line 6002: count too large (the counts add up to more than 2^63 thousandths)" \
    "$WORK/scaleover.split.err" || die "scaleover: $(cat "$WORK/scaleover.split.err")"
grep -q "4 lines with a negative count skipped" "$WORK/clean.split.err" ||
    die "clean: negative lines: $(cat "$WORK/clean.split.err")"
# the total: the sum of the positive counts (x 1000 once a decimal count is seen)
total=$($PY -c "
import sys
t = 0
for l in open(sys.argv[1]):
    c = int(l.rsplit(' ', 1)[1])
    t += c if c > 0 else 0
print(t)" "$WORK/clean.folded")
grep -q "<g data-v=\"$total\"><title>all" "$WORK/clean.split.svg" || die "clean: total $total not drawn"
grep -q "<g data-v=\"$((total * 1000 + 1500))\"><title>all" "$WORK/fractail.split.svg" ||
    die "fractail: total in thousandths"
grep -q "<g data-v=\"$((total + 7))\"><title>all" "$WORK/difftail.split.svg" ||
    die "difftail: total"
# standard input: folded stacks and a trace
"$TD" flame --minwidth 0 -o "$WORK/stdin.svg" - <"$WORK/clean.folded" 2>/dev/null ||
    die "folded stacks on standard input"
[ "$(neutral clean <"$WORK/stdin.svg")" = "$(neutral clean <"$WORK/clean.pipe.svg")" ] ||
    die "folded stacks on standard input drawn otherwise"
# a gzipped file of folded stacks (decoded as it is read; never split)
gzip -c "$WORK/clean.folded" >"$WORK/clean.folded.gz"
"$TD" flame --minwidth 0 -o "$WORK/gz.svg" "$WORK/clean.folded.gz" 2>"$WORK/gz.err" ||
    die "gzipped folded stacks: $(cat "$WORK/gz.err")"
[ "$(sed "s|$WORK/clean.folded.gz|INPUT|g" "$WORK/gz.svg")" = "$(neutral clean <"$WORK/clean.pipe.svg")" ] ||
    die "gzipped folded stacks drawn otherwise"
grep -q "4 lines with a negative count skipped" "$WORK/gz.err" || die "gzipped: $(cat "$WORK/gz.err")"
gzip -c "$WORK/badtail.folded" >"$WORK/badtail.folded.gz"
expect_exit 3 "$TD" flame -o "$WORK/gzbad.svg" "$WORK/badtail.folded.gz" 2>"$WORK/gzbad.err" || exit 1
grep -q "badtail.folded.gz: line 6001: expected" "$WORK/gzbad.err" || die "gzipped bad line: $(cat "$WORK/gzbad.err")"
T=$ROOT/examples/hta_nccl_data.json.gz
"$TD" flame -o "$WORK/trace.file.svg" "$T" || die "trace"
"$TD" flame -o "$WORK/trace.pipe.svg" <(cat "$T") || die "a trace through a pipe"
"$TD" flame -o "$WORK/trace.stdin.svg" - <"$T" || die "a trace on standard input"
strip() { grep -v 'id="subtitle"\|<title>[^<]*\(json\|/dev/fd\|stdin\)' "$1"; }
[ "$(strip "$WORK/trace.file.svg")" = "$(strip "$WORK/trace.pipe.svg")" ] ||
    die "a trace through a pipe drawn otherwise"
[ "$(strip "$WORK/trace.file.svg")" = "$(strip "$WORK/trace.stdin.svg")" ] ||
    die "a trace on standard input drawn otherwise"
exit 0
