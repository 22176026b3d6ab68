#!/usr/bin/env bash
# bench/aiu.sh - the AIU flex reader on a large replicated flex trace (not a test).
# Builds bench/data/aiu_${SIZE_MB}m.json once with bench/mkaiu.py (copies of
# ../shared/traces/aiu/allreduce_tp4.json, times shifted), then runs
# `tracedoc summary --format json --aiu-freq 560:800` on it under /usr/bin/time -v, RUNS
# times; with BEFORE=/path/to/an/older/tracedoc, that binary and this build's take turns
# (A B A B ...), and their outputs (summary.json and stderr) must be byte-identical.
# Prints per binary the least CPU (user + sys) and wall seconds, MB/s of CPU time and
# the peak RSS (MiB and % of the file).
# Env: BUILD (default build), SIZE_MB (default 512), RUNS (default 3), BEFORE.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SIZE_MB=${SIZE_MB:-512}
RUNS=${RUNS:-3}
data=bench/data
mkdir -p "$data"
json=$data/aiu_${SIZE_MB}m.json
[ -x /usr/bin/time ] || { echo "bench/aiu.sh: needs /usr/bin/time" >&2; exit 2; }
[ -s "$json" ] || /usr/bin/python3 bench/mkaiu.py "$json" "$SIZE_MB"
bytes=$(stat -c %s "$json")
cat "$json" >/dev/null
bins="$BUILD/tracedoc"
[ -n "${BEFORE:-}" ] && bins="$BEFORE $bins"
declare -A cpu wall rss
for _ in $(seq "$RUNS"); do
    i=0
    for b in $bins; do
        i=$((i + 1))
        /usr/bin/time -v -o "$data/aiu_time.txt" "$b" summary --format json --aiu-freq 560:800 \
            "$json" >"$data/aiu_out$i.json" 2>"$data/aiu_err$i.txt"
        c=$(awk -F': ' '/User time|System time/ {s+=$2} END {print s}' "$data/aiu_time.txt")
        w=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$data/aiu_time.txt")
        r=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$data/aiu_time.txt")
        if [ -z "${cpu[$b]:-}" ] || awk "BEGIN{exit !($c < ${cpu[$b]})}"; then cpu[$b]=$c; fi
        if [ -z "${wall[$b]:-}" ] || awk "BEGIN{exit !($w < ${wall[$b]})}"; then wall[$b]=$w; fi
        if [ -z "${rss[$b]:-}" ] || [ "$r" -lt "${rss[$b]}" ]; then rss[$b]=$r; fi
    done
    if [ -n "${BEFORE:-}" ]; then
        cmp -s "$data/aiu_out1.json" "$data/aiu_out2.json" || { echo "summary.json differs" >&2; exit 1; }
        cmp -s "$data/aiu_err1.txt" "$data/aiu_err2.txt" || { echo "stderr differs" >&2; exit 1; }
    fi
done
echo "input: $json: $bytes bytes; least of $RUNS runs each (CPU = user + sys)"
for b in $bins; do
    awk -v l="$b" -v c="${cpu[$b]}" -v w="${wall[$b]}" -v r="${rss[$b]}" -v n="$bytes" \
        'BEGIN { printf "%-28s cpu %6.2f s (%4.0f MB/s)  wall %6.2f s  peak RSS %5.0f MiB (%3.0f%% of the file)\n", l, c, n/1e6/c, w, r/1024, r*1024*100/n }'
done
[ -z "${BEFORE:-}" ] || echo "outputs byte-identical (summary.json and stderr)"
