#!/bin/sh
# bench/cpd/run.sh DATA_DIR OUT.csv: the nightly's change-point detector over annotated
# series (doc/nightly.md "How good is the detector"). For every series listed in
# DATA_DIR/series.csv (column `id`; the series is DATA_DIR/ID.csv, its column `value`)
# it runs `tracedoc history --detect` -- the detector `report --history` uses, offline over
# the whole series, one setting for every series -- and writes OUT.csv with one row
# `id,cp` per change point (the index of the first point of the new regime, TCPD's
# convention), `id,` for a series without one. Score it with TCPDBench's scorer:
#   python3 ../shared/cpd/score.py OUT.csv --data DATA_DIR
# TRACEDOC: the binary (default: build/tracedoc beside this script's repository).
# The one bench setting: --tolerance 0 (no relative minimum effect: the series have no
# unit and may cross zero); significance and everything else as in a nightly.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 DATA_DIR OUT.csv" >&2; exit 2; }
data=$1
out=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
td=${TRACEDOC:-$here/build/tracedoc}
[ -f "$data/series.csv" ] || { echo "$0: $data/series.csv: no such file" >&2; exit 3; }
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
: >"$tmp"
# the first column of series.csv, header skipped
tail -n +2 "$data/series.csv" | cut -d, -f1 | while IFS= read -r id; do
    [ -n "$id" ] || continue
    cps=$("$td" history --detect "$data/$id.csv" --tolerance 0) ||
        { echo "$0: $id: tracedoc failed" >&2; exit 1; }
    if [ -z "$cps" ]; then
        printf '%s,\n' "$id" >>"$tmp"
    else
        printf '%s\n' "$cps" | sed "s|^|$id,|" >>"$tmp"
    fi
done
mv "$tmp" "$out"
trap - EXIT
