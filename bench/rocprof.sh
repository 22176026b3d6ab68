#!/usr/bin/env bash
# bench/rocprof.sh - the rocprofv3 JSON reader on a ~1 GB file (not a test). Builds
# bench/data/rocprof_${SIZE_MB}m.json once with bench/mkrocprof.py (the shared MI350X
# sample's dispatches repeated, times shifted; synthetic) and a gzip copy, then runs, under
# /usr/bin/time -v, RUNS times each: the reader alone (tests/test_read_dump: read, hash,
# scan, sort; no analysis) and `tracedoc summary --format json` (reading plus every pass)
# on the plain and the gzipped file. Prints per run kind the least wall and CPU (user +
# sys) seconds, MB/s of the uncompressed JSON per wall second, and the peak RSS.
# Env: BUILD (default build), SIZE_MB (default 1024), RUNS (default 3).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SIZE_MB=${SIZE_MB:-1024}
RUNS=${RUNS:-3}
data=bench/data
mkdir -p "$data"
json=$data/rocprof_${SIZE_MB}m.json
[ -x /usr/bin/time ] || { echo "bench/rocprof.sh: needs /usr/bin/time" >&2; exit 2; }
make -s -j2 BUILD="$BUILD" "$BUILD/tracedoc" "$BUILD/tests/test_read_dump"
[ -s "$json" ] || /usr/bin/python3 bench/mkrocprof.py "$json" "$SIZE_MB"
[ -s "$json.gz" ] || gzip -6 -c "$json" >"$json.gz"
bytes=$(stat -c %s "$json")
cat "$json" >/dev/null
run() { # LABEL CMD...
    local label=$1 best_w="" best_c="" best_r=""
    shift
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -v -o "$data/rp_time.txt" "$@" >/dev/null 2>"$data/rp_err.txt" ||
            { cat "$data/rp_err.txt" >&2; echo "$label failed" >&2; return 1; }
        w=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$data/rp_time.txt")
        c=$(awk -F': ' '/User time|System time/ {s+=$2} END {print s}' "$data/rp_time.txt")
        r=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$data/rp_time.txt")
        if [ -z "$best_w" ] || awk "BEGIN{exit !($w < $best_w)}"; then best_w=$w; fi
        if [ -z "$best_c" ] || awk "BEGIN{exit !($c < $best_c)}"; then best_c=$c; fi
        if [ -z "$best_r" ] || [ "$r" -lt "$best_r" ]; then best_r=$r; fi
    done
    awk -v l="$label" -v w="$best_w" -v c="$best_c" -v r="$best_r" -v b="$bytes" 'BEGIN {
        printf "%-34s wall %6.2f s  %6.0f MB/s  cpu %6.2f s (%4.0f MB/s)  peak RSS %6.1f MiB (%.1f%% of the JSON)\n",
            l, w, b / 1e6 / w, c, b / 1e6 / c, r / 1024, r * 1024 * 100 / b }'
}
echo "$json: $bytes bytes"
run "reader alone (test_read_dump)" "$BUILD/tests/test_read_dump" "$json"
run "summary --format json" "$BUILD/tracedoc" summary --format json "$json"
run "summary --format json (gzip)" "$BUILD/tracedoc" summary --format json "$json.gz"
