# Damaged partial summaries are refused (partial/read.c): every part carries a
# `sum sha256 HEX` line (SHA-256 of the lines before it, checked here with Python's
# hashlib), so a single bit flip in a name is refused naming the file and line; a total
# that overflows 64 bits when merged is refused naming the file and line; a part written
# before the sum line existed (none) still merges, to the same figures.
. "$ROOT/tests/lib.sh"
EX="$ROOT/examples/hta_nccl_data.json.gz"
"$TD" summarize "$EX" -o "$WORK/a.tds" || die "summarize"
# the sum line is the SHA-256 of the lines before it
$PY - "$WORK/a.tds" <<'PY' || die "sum line is not the SHA-256 of the lines before it"
import hashlib, sys
lines = open(sys.argv[1], 'rb').read().split(b'\n')
assert lines[-1] == b'' and lines[-2].startswith(b'end\t') and lines[-3].startswith(b'sum\tsha256\t')
body = b''.join(l + b'\n' for l in lines[:-3])
assert lines[-3].split(b'\t')[2].decode() == hashlib.sha256(body).hexdigest()
assert int(lines[-2].split(b'\t')[1]) == len(lines) - 2
PY
"$TD" merge "$WORK/a.tds" -o "$WORK/good.tds" || die "merge of a good part"
"$TD" merge "$WORK/a.tds" --format json -o "$WORK/good" || die "merge of a good part to documents"
# one bit flipped in a kernel's name ('v' of "void" -> 'w')
n=$(grep -n -m1 '^rec	kern	void' "$WORK/a.tds" | cut -d: -f1)
[ -n "$n" ] || die "no kernel record"
sed "${n}s/^rec	kern	void/rec	kern	woid/" "$WORK/a.tds" >"$WORK/flip.tds"
cmp -s "$WORK/a.tds" "$WORK/flip.tds" && die "no flip made"
expect_exit 3 "$TD" merge "$WORK/flip.tds" -o "$WORK/x.tds" 2>"$WORK/err" || exit 1
grep -q "^tracedoc: $WORK/flip.tds: line [0-9]*: checksum mismatch: the part is damaged" "$WORK/err" || die "flip message: $(cat "$WORK/err")"
[ -e "$WORK/x.tds" ] && die "output written from a damaged part"
# a second record of that kernel whose total overflows 64 bits when merged, with a
# correct sum line (a part that is whole, but whose figures cannot be)
$PY - "$WORK/a.tds" "$WORK/big.tds" "$n" <<'PY' || die "making the overflowing part"
import hashlib, sys
lines = open(sys.argv[1], 'rb').read().split(b'\n')[:-3]
n = int(sys.argv[3])
f = lines[n - 1].split(b'\t')
f[4] = b'9223372036854775807'  # kern values: count, total, ...: the total
lines.insert(n, b'\t'.join(f))
body = b''.join(l + b'\n' for l in lines)
out = body + b'sum\tsha256\t' + hashlib.sha256(body).hexdigest().encode() + b'\n'
out += b'end\t%d\n' % (len(lines) + 1)
open(sys.argv[2], 'wb').write(out)
PY
expect_exit 3 "$TD" merge "$WORK/big.tds" -o "$WORK/x.tds" 2>"$WORK/err" || exit 1
grep -q "^tracedoc: $WORK/big.tds: line $((n + 1)): kern record '.*': a total overflows 64 bits when merged" "$WORK/err" || die "overflow message: $(cat "$WORK/err")"
# a part without the sum line (written before it existed): merged, same figures
grep -v '^sum	' "$WORK/a.tds" | sed '$s/.*/end	'"$(($(wc -l <"$WORK/a.tds") - 2))/" >"$WORK/old.tds"
"$TD" merge "$WORK/old.tds" --format json -o "$WORK/old" || die "merge of a part without a sum line"
cmp -s "$WORK/old/summary.json" "$WORK/good/summary.json" || die "a part without the sum line merges differently"
exit 0
