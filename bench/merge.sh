#!/bin/sh
# bench/merge.sh [N] - partial summaries at scale: N ranks (default 1000) made by copying
# the 8 real ranks of the PARAM DLRM Kineto job (../shared/traces/kineto), each copy with
# its own distributedInfo rank and world size; `tracedoc summarize` of every rank (two at
# a time), then `tracedoc merge --files-from` of the N parts into a merged part and into
# summary.json, with the merge's wall time, CPU and peak RSS (/usr/bin/time -v).
# PARTS=copy (for 10,000 ranks: summarizing each copy costs ~0.3 s of CPU): only the 8
# real ranks are summarized (as ranks 0-7 of N); rank k's part is then rank k%8's part
# with its rank (the rank cells of every per-rank table's rows, the input record, the cpu
# stacks' "rank R" frames), its input's name and its sum line changed: the bytes
# `summarize` writes for that copy, bar the SHA-256 and path of the input. Goal (issue 22): 10,000 parts merged in < 30 s,
# < 1 GiB. Disk: ~250 KB per part (plus ~0.8 MB of JSON per rank without PARTS=copy) in
# $BENCH_DIR (default /tmp/tracedoc-bench-merge).
set -eu
N=${1:-1000}
PARTS=${PARTS:-summarize}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TD=${TD:-$ROOT/build/tracedoc}
W=${BENCH_DIR:-/tmp/tracedoc-bench-merge}
rm -rf "$W" && mkdir -p "$W/src" "$W/t" "$W/p"
tar xzf "$ROOT/../shared/traces/kineto/param_dlrm_8ranks.tar.gz" -C "$W/src"
M=$N
[ "$PARTS" = copy ] && M=8
python3 - "$W/src/dlrm_kineto" "$W/t" "$M" "$N" <<'PYEOF'
import glob, json, sys
src, out, m, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
files = sorted(glob.glob(src + "/*.json"))
texts = [open(f).read() for f in files]
for k in range(m):
    d = json.loads(texts[k % len(texts)])
    d["distributedInfo"]["rank"] = k
    d["distributedInfo"]["world_size"] = n
    json.dump(d, open(f"{out}/rank{k:05d}.json", "w"))
PYEOF
echo "$N ranks ($PARTS): $(du -sh "$W/t" | cut -f1) of traces summarized"
t0=$(date +%s.%N)
ls "$W"/t/*.json | xargs -P 2 -I{} sh -c '"$0" summarize "$1" -o "$2/p/$(basename "$1" .json).tds"' "$TD" {} "$W"
t1=$(date +%s.%N)
echo "summarize: $(echo "$t1 - $t0" | bc) s wall for $M ranks (2 at a time)"
if [ "$PARTS" = copy ]; then
    python3 - "$W/p" "$N" <<'PYEOF'
import hashlib, sys
d, n = sys.argv[1], int(sys.argv[2])
src = [open(f"{d}/rank{k:05d}.tds").read().split("\n") for k in range(8)]
# the rank column of each per-rank table, from its table line ("key:type:title" cells)
rankcol = {}
for l in src[0]:
    f = l.split("\t")
    if f[0] == "table":
        for c, spec in enumerate(f[4:]):
            if spec.split(":")[0] == "rank":
                rankcol[f[1]] = 2 + c
for k in range(8, n):
    r = k % 8
    old, new = f"rank{r:05d}.json", f"rank{k:05d}.json"
    out = []
    for l in src[r]:
        f = l.split("\t")
        if f[0] == "row" and f[1] in rankcol and f[rankcol[f[1]]] == str(r):
            f[rankcol[f[1]]] = str(k)
        elif f[:2] == ["rec", "input"]:
            f[3] = str(k)
        elif f[:2] == ["rec", "flame"]:
            f[2] = f[2].replace(f"\\urank {r} ", f"\\urank {k} ")
        elif f[0] == "sum":  # the SHA-256 of the lines before it
            f[2] = hashlib.sha256("".join(x + "\n" for x in out).encode()).hexdigest()
        out.append("\t".join(f).replace(old, new))
    open(f"{d}/rank{k:05d}.tds", "w").write("\n".join(out))
PYEOF
fi
echo "parts: $(ls "$W"/p | wc -l), $(du -sh "$W/p" | cut -f1)"
ls "$W"/p/*.tds >"$W/parts.txt"
sync
/usr/bin/time -v "$TD" merge --files-from "$W/parts.txt" -o "$W/merged.tds" 2>"$W/merge-tds.time"
echo "merge -o merged.tds:"
grep -E "Elapsed|Maximum resident|User time|System time" "$W/merge-tds.time"
/usr/bin/time -v "$TD" merge --files-from "$W/parts.txt" -o "$W/out" --format json 2>"$W/merge.time"
echo "merge -o DIR --format json:"
grep -E "Elapsed|Maximum resident|User time|System time" "$W/merge.time"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('summary.json: trace.ranks', d['trace']['ranks'], 'inputs', len(d['inputs']))" "$W/out/summary.json"
uptime
