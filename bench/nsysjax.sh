#!/usr/bin/env bash
# bench/nsysjax.sh - `tracedoc report --format json` of the four nsys-jax archives
# (../shared/traces/nsys-jax/*.zip) together and of each alone (not a test). Runs the
# binaries given interleaved (A B A B ...) under /usr/bin/time and prints per binary the
# minimum CPU seconds (user + sys), the minimum wall time, the peak RSS and the minor
# page faults, then checks that every binary wrote the same summary.json (cmp).
# Usage: bench/nsysjax.sh TRACEDOC [TRACEDOC...]   Env: RUNS (default 5), DIR.
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
DIR=${DIR:-../shared/traces/nsys-jax}
[ $# -ge 1 ] || { echo "usage: bench/nsysjax.sh TRACEDOC [TRACEDOC...]" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
set -- "$@"
cases="all $(cd "$DIR" && ls ./*.zip | sed 's|^\./||; s|\.zip$||')"
for c in $cases; do
    if [ "$c" = all ]; then in=$(ls "$DIR"/*.zip); else in=$DIR/$c.zip; fi
    for r in $(seq "$RUNS"); do
        i=0
        for td in "$@"; do
            i=$((i + 1))
            # shellcheck disable=SC2086
            /usr/bin/time -f "%U %S %e %M %R" -o "$out/t" "$td" report --format json \
                -o "$out/$c.$i" $in 2>/dev/null
            echo "$c $i $(cat "$out/t")" >>"$out/all"
        done
    done
    i=0
    for td in "$@"; do
        i=$((i + 1))
        awk -v c="$c" -v i="$i" -v td="$td" '
            $1 == c && $2 == i { x = $3 + $4; if (!cpu || x < cpu) cpu = x
                                 if (!w || $5 < w) w = $5; if ($6 > rss) rss = $6
                                 if (!pf || $7 < pf) pf = $7 }
            END { printf "%-26s %-28s cpu %.2f s  wall %.2f s  peak RSS %.1f MB  faults %d\n",
                         c, td, cpu, w, rss / 1024, pf }' "$out/all"
        cmp -s "$out/$c.1/summary.json" "$out/$c.$i/summary.json" ||
            echo "$c: $td wrote another summary.json" >&2
    done
done
