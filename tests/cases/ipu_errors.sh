# Damaged and hostile IPU exports: exit 3 with a message naming the file, the line and
# the byte offset; a truncated last line is a warning; no partial report is left.
. "$ROOT/tests/lib.sh"
H='{"type":"report","schema":"tracedoc.ipu/1","target":{"numIPUs":1,"tilesPerIpu":2,"clockFrequency":1e9}}'
R='{"type":"run"}'
S='{"type":"step","program":{"type":"OnTileExecute","name":"x"},"ipus":[{"ipu":0,"activeCycles":{"cyclesFrom":{"min":0,"max":0},"cyclesTo":{"min":5,"max":9}}}]}'
# bad FILE WANT LINE...: FILE gets the lines; tracedoc must exit 3 with WANT in its message
bad() {
    local f=$WORK/$1 want=$2; shift 2
    printf '%s\n' "$@" >"$f"
    expect_exit 3 "$TD" summary "$f" >/dev/null 2>"$WORK/err" || return 1
    grep -qF -- "$want" "$WORK/err" || { echo "expected '$want', got: $(cat "$WORK/err")"; return 1; }
}
bad nohdr.jsonl "nohdr.jsonl: line 1 (byte 0): the first record must be the report header" "$R" "$H" || exit 1
bad schema.jsonl "unsupported schema 'tracedoc.ipu/2'" '{"type":"report","schema":"tracedoc.ipu/2","target":{}}' || exit 1
bad notarget.jsonl "line 1 (byte 0): missing 'target' object" '{"type":"report","schema":"tracedoc.ipu/1"}' || exit 1
bad clock.jsonl "'clockFrequency': expected a positive number" '{"type":"report","schema":"tracedoc.ipu/1","target":{"numIPUs":1,"tilesPerIpu":2,"clockFrequency":0}}' || exit 1
bad ipus.jsonl "'numIPUs': expected 1 to 65536" '{"type":"report","schema":"tracedoc.ipu/1","target":{"numIPUs":4000000000,"tilesPerIpu":2,"clockFrequency":1}}' || exit 1
bad norun.jsonl "line 2 (byte $((${#H} + 1))): a step before any run record" "$H" "$S" || exit 1
bad neg.jsonl "'cycles': expected a non-negative integer" "$H" "$R" '{"type":"step","program":{"type":"Sync"},"ipus":[{"ipu":0,"cycles":-5,"activeCycles":{"cyclesFrom":{"min":0,"max":0},"cyclesTo":{"min":5,"max":9}}}]}' || exit 1
bad tiles.jsonl "'cyclesByTile': expected an array of tilesPerIpu (2) counts" "$H" "$R" '{"type":"step","program":{"type":"Sync"},"ipus":[{"ipu":0,"cyclesByTile":[1,2,3],"activeCycles":{"cyclesFrom":{"min":0,"max":0},"cyclesTo":{"min":5,"max":9}}}]}' || exit 1
bad ipu.jsonl "ipu 7 is not below numIPUs 1" "$H" "$R" '{"type":"step","program":{"type":"Sync"},"ipus":[{"ipu":7,"activeCycles":{"cyclesFrom":{"min":0,"max":0},"cyclesTo":{"min":5,"max":9}}}]}' || exit 1
H2='{"type":"report","schema":"tracedoc.ipu/1","target":{"numIPUs":2,"tilesPerIpu":2,"clockFrequency":1e9}}'
bad twice.jsonl "IPU 0 appears twice" "$H2" "$R" '{"type":"step","program":{"type":"Sync"},"ipus":[{"ipu":0,"activeCycles":{"cyclesFrom":{"min":0,"max":0},"cyclesTo":{"min":5,"max":9}}},{"ipu":0,"activeCycles":{"cyclesFrom":{"min":0,"max":0},"cyclesTo":{"min":5,"max":9}}}]}' || exit 1
bad minmax.jsonl "'activeCycles.cyclesTo': max 3 is below min 5" "$H" "$R" '{"type":"step","program":{"type":"Sync"},"ipus":[{"ipu":0,"activeCycles":{"cyclesFrom":{"min":0,"max":0},"cyclesTo":{"min":5,"max":3}}}]}' || exit 1
bad dup.jsonl "duplicate object key" "$H" "$R" '{"type":"step","type":"run"}' || exit 1
bad huge.jsonl "too big" "$H" "$R" '{"type":"step","program":{"type":"Sync"},"ipus":[{"ipu":0,"cycles":99999999999999999999999,"activeCycles":{}}]}' || exit 1
bad kind.jsonl "got 'Bogus'" "$H" '{"type":"block","tile":0,"kind":"Bogus"}' || exit 1
bad btile.jsonl "'tile' 9: the target has 2 tiles" "$H" '{"type":"block","tile":9,"kind":"Common","cyclesFrom":1,"cyclesTo":2}' || exit 1
bad ovf.jsonl "an Overflow block needs cyclesFrom and cyclesTo" "$H" '{"type":"block","tile":0,"kind":"Overflow","cyclesFrom":1}' || exit 1
bad rec.jsonl "unknown record type 'frobnicate'" "$H" '{"type":"frobnicate"}' || exit 1
bad second.jsonl "a second report header" "$H" "$H" || exit 1
bad arr.jsonl "expected a JSON object" "$H" '[1,2]' || exit 1
# invalid JSON in the middle: the byte offset points at the bad character
printf '%s\n%s\n%s\n' "$H" "$R" '{"type":"step", oops}' >"$WORK/syn.jsonl"
expect_exit 3 "$TD" summary "$WORK/syn.jsonl" >/dev/null 2>"$WORK/err" || exit 1
# jansson reports where it stopped: the byte must fall inside the bad token
got=$(sed -n 's/.*syn.jsonl: line 3 (byte \([0-9]*\)): invalid JSON.*/\1/p' "$WORK/err")
[ -n "$got" ] || die "no line/byte: $(cat "$WORK/err")"
$PY -c "import sys; d=open(sys.argv[1],'rb').read(); i=d.index(b'oops'); assert i <= int(sys.argv[2]) < i+4, (i, sys.argv[2])" "$WORK/syn.jsonl" "$got" || exit 1
# hostile nesting: a line of 100000 '[' is refused by the parser's depth limit, no crash
{ echo "$H"; $PY -c "print('[' * 100000)"; } >"$WORK/deep.jsonl"
expect_exit 3 "$TD" summary "$WORK/deep.jsonl" >/dev/null 2>"$WORK/err" || exit 1
grep -q "deep.jsonl: line 2" "$WORK/err" || die "deep: $(cat "$WORK/err")"
# a truncated last record is a warning; what came before is kept
{ printf '%s\n%s\n%s\n' "$H" "$R" "$S"; printf '%s' "${S:0:60}"; } >"$WORK/cut.jsonl"
"$TD" summary --format json "$WORK/cut.jsonl" >"$WORK/cut.json" 2>"$WORK/err" || die "cut: $(cat "$WORK/err")"
grep -q "cut.jsonl: line 4: truncated last record ignored" "$WORK/err" || die "no truncation warning: $(cat "$WORK/err")"
$PY -c "import json,sys; s=json.load(open(sys.argv[1])); assert s['ipu_runs'][0]['steps']==1" "$WORK/cut.json" || die "cut: steps kept"
# gzip-compressed export, CRLF line ends, names with markup and control characters
printf '%s\r\n%s\r\n%s\r\n' "$H" "$R" '{"type":"step","program":{"type":"OnTileExecute","name":"<b>&amp;/=cmd|x\u0001/\u00e9"},"ipus":[{"ipu":0,"activeCycles":{"cyclesFrom":{"min":0,"max":0},"cyclesTo":{"min":5,"max":9}}}]}' | gzip -n >"$WORK/z.jsonl.gz"
"$TD" summary --format json "$WORK/z.jsonl.gz" >"$WORK/z.json" 2>"$WORK/err" || die "gzip: $(cat "$WORK/err")"
$PY -c "import json,sys; s=json.load(open(sys.argv[1])); assert s['ipu_steps'][0]['cycles']==9, s['ipu_steps']" "$WORK/z.json" || exit 1
"$TD" report -o "$WORK/zr" "$WORK/z.jsonl.gz" 2>"$WORK/err" || die "report on hostile names: $(cat "$WORK/err")"
# a failed report leaves no documents behind
expect_exit 3 "$TD" report -o "$WORK/out" "$WORK/syn.jsonl" 2>/dev/null || exit 1
[ ! -e "$WORK/out/summary.json" ] && [ ! -e "$WORK/out/report.pdf" ] || die "partial output left"
: >"$WORK/empty.jsonl"
expect_exit 7 "$TD" summary "$WORK/empty.jsonl" >/dev/null 2>&1 || exit 1
exit 0
