# The flame stacks of merged parts (partial/stacks.c keeps each "KIND<0x1f>STACK" key as
# two interned halves cut at its first ';'): keys with escapes, without ';', ending or
# starting with ';', of an unknown kind, merged byte for byte. Expected values are
# computed here from the parts' own `rec flame` lines (formats: a merged part holds each
# key once with the sum of its values, in the order keys are first met; the folded
# stacks are the cpu keys' stacks in byte order with their sums): the merged part's flame
# records, the tree merge's bytes, cpu.folded, a sum past 2^63 refused. Then 1,000 parts
# of 300 stacks rooted at their own rank: peak memory stays far below what a copy of
# every key costs (issue 22: 10,000 parts in < 1 GiB).
. "$ROOT/tests/lib.sh"
cat >"$WORK/tiny.json" <<'JSON'
{"distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 3},
 "deviceProperties": [{"id": 0, "name": "GPU"}],
 "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1000, "dur": 50},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1010, "dur": 5, "args": {"correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1020, "dur": 20, "args": {"correlation": 1, "device": 0, "stream": 7}}
 ]}
JSON
"$TD" summarize "$WORK/tiny.json" -o "$WORK/tiny.tds" || die "summarize tiny"
# parts: rank k of n, plus the odd stacks (values differ per part, some keys shared)
cat >"$WORK/mk.py" <<'PYEOF'
import hashlib, os, sys
src, out, n, extra = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
lines = open(src).read().split("\n")
assert lines[-1] == "" and lines[-2].startswith("end\t") and lines[-3].startswith("sum\t")
body = lines[:-3]
odd = [  # (key as written in the file, base value)
    ("cpu\\urank {k} thread 1 (a\\tb);x\\\\y;aten::mm", 5),
    ("cpu\\urank {k} thread 1 (a\\tb)", 7),
    ("cpu\\urank {k} thread 1 (a\\tb);", 11),
    ("cpu\\u;lead;;", 13),
    ("cpu\\ushared;\\ux\\r;y", 17),
    ("zzz\\ua;b", 19),
    ("device\\uGPU 0;gemm", 23),
]
os.makedirs(out, exist_ok=True)
for k in range(n):
    b = []
    for l in body:
        f = l.split("\t")
        if f[:2] == ["row", "inputs"]:
            f[2], f[5], f[7] = f"rank{k}.json", "%064x" % (k + 1), str(k)
        elif f[:2] == ["row", "gpu_timeline"]:
            f[2] = str(k)
        elif f[:2] == ["rec", "input"]:
            f[2], f[3] = f"rank{k}.json\\urank{k}.json", str(k)
        elif f[:2] == ["rec", "flame"]:
            f[2] = f[2].replace("rank 0 ", f"rank {k} ")
        elif f[0] == "world_size":
            f[1] = str(n)
        b.append("\t".join(f))
    for key, v in odd:
        b.append(f"rec\tflame\t{key.format(k=k)}\t{v * (k + 1)}")
    for j in range(extra):  # many stacks under this rank's own root
        b.append(f"rec\tflame\tcpu\\urank {k} thread 9 (python3);forward;layer{j};"
                 f"aten::linear;aten::addmm;cudaLaunchKernel\t{j + 1}")
    text = "".join(x + "\n" for x in b)
    text += "sum\tsha256\t" + hashlib.sha256(text.encode()).hexdigest() + "\n"
    text += f"end\t{len(b) + 1}\n"
    open(f"{out}/rank{k:04d}.tds", "w").write(text)
PYEOF
$PY "$WORK/mk.py" "$WORK/tiny.tds" "$WORK/p" 3 0 || die "making the parts"
P="$WORK/p"
"$TD" merge "$P"/rank000[0-2].tds -o "$WORK/m.tds" || die "merge"
# expected flame records: from the parts' lines
$PY - "$WORK/m.tds" "$P"/rank000[0-2].tds <<'PYEOF' || exit 1
import sys
def flames(path):
    out = []
    for l in open(path, newline="\n").read().split("\n"):
        f = l.split("\t")
        if f[:2] == ["rec", "flame"]:
            out.append((f[2], int(f[3])))
    return out
want, order = {}, []
for p in sys.argv[2:]:
    for k, v in flames(p):
        if k not in want:
            order.append(k)
        want[k] = want.get(k, 0) + v
got = flames(sys.argv[1])
assert len(got) == len(set(k for k, _ in got)), "a key twice in the merged part"
assert dict(got) == want, (set(dict(got).items()) ^ set(want.items()))
assert [k for k, _ in got] == order, "not in the order first met"
assert want["zzz\\ua;b"] == 19 * 6 and want["cpu\\ushared;\\ux\\r;y"] == 17 * 6
PYEOF
# a tree merge: the same bytes
"$TD" merge "$P/rank0000.tds" "$P/rank0001.tds" -o "$WORK/a.tds" || die "merge a"
"$TD" merge "$WORK/a.tds" "$P/rank0002.tds" -o "$WORK/t.tds" || die "merge tree"
cmp "$WORK/m.tds" "$WORK/t.tds" || die "the tree merge differs from the flat merge"
# cpu.folded: the cpu keys' stacks, summed, in byte order
"$TD" merge "$P"/rank000[0-2].tds -o "$WORK/docs" --format json,folded || die "merge -o DIR"
"$TD" merge "$P"/rank000[0-2].tds -o "$WORK/json" --format json || die "merge -o DIR json"
cmp "$WORK/docs/summary.json" "$WORK/json/summary.json" ||
    die "summary.json differs when no stacks are drawn"
$PY - "$WORK/docs/cpu.folded" "$P"/rank000[0-2].tds <<'PYEOF' || exit 1
import sys
def unesc(s):
    m = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r", "u": "\x1f"}
    o, i = [], 0
    while i < len(s):
        if s[i] == "\\":
            o.append(m[s[i + 1]]); i += 2
        else:
            o.append(s[i]); i += 1
    return "".join(o)
want = {}
for p in sys.argv[2:]:
    for l in open(p, newline="\n").read().split("\n"):
        f = l.split("\t")
        if f[:2] == ["rec", "flame"]:
            kind, stack = unesc(f[2]).split("\x1f", 1)
            if kind == "cpu":
                want[stack] = want.get(stack, 0) + int(f[3])
exp = "".join(f"{s} {want[s]}\n" for s in sorted(want, key=lambda x: x.encode()))
got = open(sys.argv[1], newline="\n").read()
assert got == exp, (got, exp)
PYEOF
# a flame sum past 2^63 is refused, naming the record: 2^62 in two parts
for k in 1 2; do
    $PY - "$P/rank000$k.tds" >"$WORK/big$k.tds" <<'PYEOF' || exit 1
import hashlib, sys
t = open(sys.argv[1], newline="\n").read().split("\n")
for i, l in enumerate(t):
    if l.startswith("rec\tflame\tcpu\\ushared;"):
        t[i] = l.rsplit("\t", 1)[0] + "\t" + str(2 ** 62)
body = "".join(l + "\n" for l in t[:-3])
sys.stdout.write(body + "sum\tsha256\t" + hashlib.sha256(body.encode()).hexdigest() + "\n" + t[-2] + "\n")
PYEOF
done
"$TD" merge "$WORK/big1.tds" "$P/rank0000.tds" -o "$WORK/big.tds" || die "merge of one big part"
expect_exit 3 "$TD" merge "$WORK/big.tds" "$WORK/big2.tds" -o "$WORK/x.tds" 2>"$WORK/e" || exit 1
grep -q "big2.tds: line [0-9]*: flame record 'cpu.shared;.*overflows 64 bits" "$WORK/e" ||
    die "overflow: $(cat "$WORK/e")"
# 1,000 parts of 300 stacks under their own rank (300,000 stacks of ~100 bytes): peak RSS
# 78 MB when each stack was a record and a copy of its key, 25 MB as interned halves
# (release build only; the sanitizer build's allocator is another measure)
[ "${BUILD_KIND:-build}" = build ] || exit 0
$PY "$WORK/mk.py" "$WORK/tiny.tds" "$WORK/many" 1000 300 || die "making 1,000 parts"
ls "$WORK"/many/*.tds >"$WORK/many.txt"
/usr/bin/time -f "%M" -o "$WORK/rss" "$TD" merge --files-from "$WORK/many.txt" -o "$WORK/many.tds" ||
    die "merge of 1,000 parts"
[ "$(grep -c "^rec	flame	cpu.urank [0-9]* thread 9 " "$WORK/many.tds")" = 300000 ] ||
    die "expected 300,000 rank stacks"
rss=$(tail -1 "$WORK/rss")
echo "merge of 1,000 parts, 300,000 stacks: peak RSS $rss KB"
[ "$rss" -lt 50000 ] || die "peak RSS $rss KB (expected < 50 MB)"
rm -rf "$WORK/many" "$WORK/many.tds"
exit 0
