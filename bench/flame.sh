#!/usr/bin/env bash
# bench/flame.sh - `tracedoc flame` of 1 M folded lines (not a test): the two kinds
# bench/mkfolded.py makes (short native-like stacks, 89 MB; Python-like deep stacks,
# 2.0 GB), built once in bench/data. Runs the binaries given, interleaved (A B A B ...),
# each under /usr/bin/time, and prints per binary and kind the minimum CPU seconds
# (user + sys) and lines per CPU second, the minimum wall time and lines per second of
# wall time (a file of 64 MiB or more is read on two threads), and the peak RSS, then
# checks that every binary drew the same SVG (cmp).
# Usage: bench/flame.sh TRACEDOC [TRACEDOC...]   Env: RUNS (default 3), KINDS
# (default "short python"), LINES (default 1000000).
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
KINDS=${KINDS:-short python}
LINES=${LINES:-1000000}
[ $# -ge 1 ] || { echo "usage: bench/flame.sh TRACEDOC [TRACEDOC...]" >&2; exit 2; }
data=bench/data
mkdir -p "$data"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for k in $KINDS; do
    f=$data/$k-$LINES.folded
    [ -s "$f" ] || python3 bench/mkfolded.py "$k" "$LINES" "$f"
    for r in $(seq "$RUNS"); do
        i=0
        for td in "$@"; do
            i=$((i + 1))
            /usr/bin/time -f "%U %S %e %M" -o "$out/t" "$td" flame -o "$out/$k.$i.svg" "$f" \
                2>/dev/null
            echo "$k $i $(cat "$out/t")" >>"$out/all"
        done
    done
    i=0
    for td in "$@"; do
        i=$((i + 1))
        awk -v k="$k" -v i="$i" -v n="$LINES" -v td="$td" '
            $1 == k && $2 == i { c = $3 + $4; if (!cpu || c < cpu) cpu = c
                                 if (!w || $5 < w) w = $5; if ($6 > rss) rss = $6 }
            END { printf "%-7s %-28s cpu %.2f s (%.2f M lines/s)  wall %.2f s (%.2f M lines/s)  peak RSS %.1f MB\n",
                         k, td, cpu, n / cpu / 1e6, w, n / w / 1e6, rss / 1024 }' "$out/all"
        cmp -s "$out/$k.1.svg" "$out/$k.$i.svg" || echo "$k: $td drew another SVG" >&2
    done
done
