#!/usr/bin/env bash
# bench/run.sh - reader throughput and memory on a ~1 GB Kineto trace (not a test).
# Builds bench/data/kineto_1024m.json (+ .gz) from the shared traces once (bench/mktrace.py),
# then runs `tracedoc summary --format json` on the plain and the gzipped file and, for
# comparison, python3's json.load on the plain file, each under /usr/bin/time -v
# (Debian package `time`); also the reader alone (tests/test_read_dump: read + sort, no
# analysis), with and without its read-ahead thread, and `tracedoc summary` pinned to one
# core (taskset -c 0: both threads share it). Prints the best wall time, MB/s of
# the uncompressed JSON, CPU seconds (user + sys) and peak RSS.
# First, the issue-23 figure: `tracedoc report --format json` of the file end to end against
# RapidJSON's SAX parser only parsing it (bench/rapidjson_sax.cpp, g++ -O2, Debian package
# rapidjson-dev), run interleaved (A B A B ...), the minimum of each, and their ratios.
# Env: BUILD (default build-bench, a release build made here), SIZE_MB (default 1024),
# RUNS (default 3; the best run is reported), NOPY=1 to skip python, ONLY_REF=1 to stop
# after the RapidJSON comparison.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-bench}
SIZE_MB=${SIZE_MB:-1024}
RUNS=${RUNS:-3}
data=bench/data
mkdir -p "$data"
json=$data/kineto_${SIZE_MB}m.json
[ -x /usr/bin/time ] || { echo "bench/run.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
make -s -j2 BUILD="$BUILD" "$BUILD/tracedoc" "$BUILD/tests/test_read_dump"
rj=$BUILD/bench/rapidjson_sax
if [ ! -x "$rj" ] || [ "$rj" -ot bench/rapidjson_sax.cpp ]; then
    [ -f /usr/include/rapidjson/reader.h ] ||
        { echo "bench/run.sh: needs RapidJSON (apt-get install rapidjson-dev)" >&2; exit 2; }
    mkdir -p "$BUILD/bench"
    # RAPIDJSON_SSE42: RapidJSON's SIMD whitespace skipping (the fastest build of its reader)
    g++ -O2 -DRAPIDJSON_SSE42 -msse4.2 -Wall -Wextra -o "$rj" bench/rapidjson_sax.cpp
fi
if [ ! -s "$json" ]; then
    echo "making $json ..." >&2
    /usr/bin/python3 bench/mktrace.py "$json" "$SIZE_MB" >&2
fi
bytes=$(stat -c %s "$json")
cat "$json" >/dev/null  # page cache

measure() { # LABEL CMD... -> one line: label, best wall s, MB/s, CPU s, peak RSS MiB
    local label=$1; shift
    local best="" rss="" cpu=""
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -v -o "$data/time.txt" "$@" >/dev/null 2>"$data/stderr.txt" || {
            cat "$data/stderr.txt" >&2; echo "$label failed" >&2; return 1; }
        local w r u
        w=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$data/time.txt")
        r=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$data/time.txt")
        u=$(awk -F': ' '/User time|System time/ {s+=$2} END {print s}' "$data/time.txt")
        if [ -z "$best" ] || awk "BEGIN{exit !($w < $best)}"; then best=$w; rss=$r; cpu=$u; fi
    done
    awk -v l="$label" -v w="$best" -v b="$bytes" -v r="$rss" -v c="$cpu" \
        'BEGIN { printf "%-36s %7.2f s %6.0f MB/s  cpu %6.2f s  %6.0f MiB peak RSS (%2.0f%% of the JSON)\n", l, w, b/1e6/w, c, r/1024, r*1024*100/b }'
}

one() { # CMD... -> "wall cpu rss_kib" of one run under /usr/bin/time -v
    /usr/bin/time -v -o "$data/time.txt" "$@" >/dev/null 2>"$data/stderr.txt" || {
        cat "$data/stderr.txt" >&2; echo "failed: $*" >&2; return 1; }
    awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; w=s}
        /User time|System time/ {c+=$2} /Maximum resident set size/ {r=$2}
        END {print w, c, r}' "$data/time.txt"
}

versus() { # tracedoc report --format json vs RapidJSON SAX, interleaved, min of each
    local tw="" tc="" tr="" rw="" rc="" rr="" w c r i
    for i in $(seq "$RUNS"); do
        rm -rf "$data/report"
        read -r w c r < <(one "$BUILD/tracedoc" report --format json -o "$data/report" "$json")
        echo "  run $i: tracedoc report --format json: wall $w s, cpu $c s, $((r / 1024)) MiB" >&2
        tw=$(awk -v a="$tw" -v b="$w" 'BEGIN{print (a=="" || b<a) ? b : a}')
        tc=$(awk -v a="$tc" -v b="$c" 'BEGIN{print (a=="" || b<a) ? b : a}')
        tr=$(awk -v a="$tr" -v b="$r" 'BEGIN{print (a=="" || b<a) ? b : a}')
        read -r w c r < <(one "$rj" "$json")
        echo "  run $i: rapidjson SAX parse only:      wall $w s, cpu $c s, $((r / 1024)) MiB" >&2
        rw=$(awk -v a="$rw" -v b="$w" 'BEGIN{print (a=="" || b<a) ? b : a}')
        rc=$(awk -v a="$rc" -v b="$c" 'BEGIN{print (a=="" || b<a) ? b : a}')
        rr=$(awk -v a="$rr" -v b="$r" 'BEGIN{print (a=="" || b<a) ? b : a}')
    done
    awk -v b="$bytes" -v tw="$tw" -v tc="$tc" -v tr="$tr" -v rw="$rw" -v rc="$rc" -v rr="$rr" 'BEGIN {
        printf "%-36s %7.2f s wall  cpu %6.2f s  %6.1f MiB peak RSS (%4.1f%% of the JSON)\n", "tracedoc report --format json", tw, tc, tr/1024, tr*1024*100/b
        printf "%-36s %7.2f s wall  cpu %6.2f s  %6.1f MiB peak RSS\n", "rapidjson SAX, parse only", rw, rc, rr/1024
        printf "ratio tracedoc / rapidjson: wall %.2fx, cpu %.2fx (goal <= 0.6x); memory %.1f%% of the JSON (goal <= 13%%)\n", tw/rw, tc/rc, tr*1024*100/b }'
}

echo "input: $json: $bytes bytes ($(( bytes >> 20 )) MiB); $(nproc) cores; min of $RUNS interleaved"
export TD_PROBE_QUIET=1
versus
[ "${ONLY_REF:-0}" = 1 ] && exit 0

if [ ! -s "$json.gz" ] || [ "$json.gz" -ot "$json" ]; then
    echo "gzipping ..." >&2
    gzip -6 -c "$json" >"$json.gz.tmp" && mv "$json.gz.tmp" "$json.gz"
fi
gzbytes=$(stat -c %s "$json.gz")
cat "$json.gz" >/dev/null  # page cache
echo "gzip: $gzbytes bytes; best of $RUNS"
measure "reader only, plain" "$BUILD/tests/test_read_dump" "$json"
TD_NO_READ_THREAD=1 measure "reader only, plain, one thread" "$BUILD/tests/test_read_dump" "$json"
measure "reader only, gzip" "$BUILD/tests/test_read_dump" "$json.gz"
TD_NO_READ_THREAD=1 measure "reader only, gzip, one thread" "$BUILD/tests/test_read_dump" "$json.gz"
measure "tracedoc summary, plain JSON" "$BUILD/tracedoc" summary --format json "$json"
measure "tracedoc summary, gzip" "$BUILD/tracedoc" summary --format json "$json.gz"
if command -v taskset >/dev/null; then
    measure "tracedoc summary, plain, one core" taskset -c 0 "$BUILD/tracedoc" summary --format json "$json"
fi
if [ "${NOPY:-0}" != 1 ]; then
    RUNS=1 measure "python3 json.load, plain JSON" /usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$json"
fi
