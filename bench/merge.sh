#!/bin/sh
# bench/merge.sh [N] - partial summaries at scale: N ranks (default 1000) made by copying
# the 8 real ranks of the PARAM DLRM Kineto job (../shared/traces/kineto), each copy with
# its own distributedInfo rank and world size; `tracedoc summarize` of every rank (two at
# a time), then `tracedoc merge` of the N parts into summary.json, with the merge's wall
# time and peak RSS (/usr/bin/time -v). Goal: merge of 1,000 parts < 10 s, < 1 GiB.
# Uses about 1 GB of disk in $BENCH_DIR (default /tmp/tracedoc-bench-merge).
set -eu
N=${1:-1000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TD=${TD:-$ROOT/build/tracedoc}
W=${BENCH_DIR:-/tmp/tracedoc-bench-merge}
rm -rf "$W" && mkdir -p "$W/src" "$W/t" "$W/p"
tar xzf "$ROOT/../shared/traces/kineto/param_dlrm_8ranks.tar.gz" -C "$W/src"
python3 - "$W/src/dlrm_kineto" "$W/t" "$N" <<'PYEOF'
import glob, json, sys
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
files = sorted(glob.glob(src + "/*.json"))
texts = [open(f).read() for f in files]
for k in range(n):
    d = json.loads(texts[k % len(texts)])
    d["distributedInfo"]["rank"] = k
    d["distributedInfo"]["world_size"] = n
    json.dump(d, open(f"{out}/rank{k:05d}.json", "w"))
PYEOF
echo "$N ranks: $(du -sh "$W/t" | cut -f1) of traces"
t0=$(date +%s.%N)
ls "$W"/t/*.json | xargs -P 2 -I{} sh -c '"$0" summarize "$1" -o "$2/p/$(basename "$1" .json).tds"' "$TD" {} "$W"
t1=$(date +%s.%N)
echo "summarize: $(echo "$t1 - $t0" | bc) s wall for $N ranks (2 at a time); parts: $(du -sh "$W/p" | cut -f1)"
/usr/bin/time -v "$TD" merge "$W"/p/*.tds -o "$W/out" --format json 2>"$W/merge.time"
grep -E "Elapsed|Maximum resident|User time|System time" "$W/merge.time"
