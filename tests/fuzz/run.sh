#!/usr/bin/env bash
# tests/fuzz/run.sh BUILD SECONDS [HARNESS...]: runs each libFuzzer harness of BUILD (made
# with make BUILD=... FUZZ=1 CC=clang fuzz) for SECONDS, one after the other, on seeds
# made here from tests/data, examples/, templates/, tests/golden/ and slices of
# ../shared/traces, plus the kept inputs of tests/fuzz/corpus/HARNESS. Crashes, leaks
# and timeouts are written to tests/fuzz/findings/HARNESS/; copy each one, once fixed,
# into tests/fuzz/corpus/HARNESS/ so the normal test run replays it.
set -u
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
B=${1:-build-fuzz}
case "$B" in /*) ;; *) B=$ROOT/$B ;; esac # the seeds are also written from other folders
secs=${2:-60}
shift 2 2>/dev/null || true
TRACES=${TRACES:-$(cd "$ROOT/../shared/traces" 2>/dev/null && pwd)}
S=$B/seeds
rm -rf "$S"
mkdir -p "$S"/{chrome,input,parquet,folded,template,baseline,xz,hlo,aiu,complog,samba,telemetry,tds}
# Chrome JSON: the small test traces and the first 8 KB of real ones (cut mid-event)
cp tests/data/read_small.json tests/data/e2e/hostile.json "$S/chrome/"
zcat examples/hta_nccl_data.json.gz | head -c 8192 >"$S/chrome/example-8k.json"
if [ -d "$TRACES" ]; then
    i=0
    for f in $(find "$TRACES/kineto" "$TRACES/torch-cpu" -name '*.json.gz' 2>/dev/null | sort | head -6); do
        zcat "$f" 2>/dev/null | head -c 6000 >"$S/chrome/slice$i.json"; i=$((i + 1))
    done
    NS=$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite
    if [ -f "$NS" ] && command -v sqlite3 >/dev/null; then
        # the real export cut to 8 rows per table and the tables read/nsys.c reads (78 KB)
        head -c 65536 "$NS" >"$S/input/saxpy-64k.sqlite"
        cp "$NS" "$S/input/saxpy-small.sqlite" && chmod u+w "$S/input/saxpy-small.sqlite"
        keep=" StringIds ThreadNames ProcessStreams TARGET_INFO_SESSION_START_TIME TARGET_INFO_GPU TARGET_INFO_CUDA_STREAM CUPTI_ACTIVITY_KIND_MEMCPY CUPTI_ACTIVITY_KIND_MEMSET CUPTI_ACTIVITY_KIND_KERNEL CUPTI_ACTIVITY_KIND_RUNTIME NVTX_EVENTS OSRT_API "
        for t in $(sqlite3 "$S/input/saxpy-small.sqlite" "SELECT name FROM sqlite_master WHERE type='table'"); do
            case "$keep" in
            *" $t "*) sqlite3 "$S/input/saxpy-small.sqlite" "DELETE FROM $t WHERE rowid NOT IN (SELECT rowid FROM $t ORDER BY rowid LIMIT 8)" ;;
            *) sqlite3 "$S/input/saxpy-small.sqlite" "DROP TABLE $t" 2>/dev/null ;;
            esac
        done
        sqlite3 "$S/input/saxpy-small.sqlite" "VACUUM"
    fi
    z=$(ls "$TRACES"/nsys-jax/*.zip 2>/dev/null | head -1)
    if [ -n "$z" ]; then
        for m in $(unzip -Z1 "$z" | grep 'hlo.pb.xz$' | head -3); do
            unzip -p "$z" "$m" >"$S/xz/$(basename "$m")"
        done
        # the after-optimisation HloProtos, decompressed, up to 64 KB each
        for m in $(unzip -Z1 "$z" | grep 'after_optimizations.hlo.pb.xz$' | head -12); do
            unzip -p "$z" "$m" | xz -dc 2>/dev/null | head -c 65536 >"$S/hlo/$(basename "$m" .xz)"
        done
        unzip -p "$z" $(unzip -Z1 "$z" | grep 'report_nvtx_pushpop_trace.csv.xz$' | head -1) 2>/dev/null |
            head -c 20000 >"$S/xz/pushpop-cut.csv.xz"
    fi
fi
if [ -d "$TRACES/aiu" ]; then
    # the real IBM AIU flex traces (hex and decimal counters, 4 devices) and compile logs
    cp "$TRACES"/aiu/*.json "$S/aiu/"
    cp "$TRACES"/aiu/*.txt "$TRACES"/aiu/*.log "$S/complog/"
fi
cp tests/data/telemetry/*.txt tests/data/telemetry/*.csv "$S/telemetry/"
# SambaTune artifacts: the example's CSVs as one input, form-feed lines between files
(for f in examples/sambanova/decoder/*.csv; do cat "$f"; printf '\f\n'; done) >"$S/samba/decoder.txt"
"$ROOT/build/tracedoc" stack-trace examples/sambanova/decoder -o "$S/samba/report.json" >/dev/null 2>&1
cp tests/data/read_small.json.gz tests/data/read_multimember.json.gz "$S/input/"
gzip -c tests/data/read_small.json >"$S/input/small.json.gz"
tar -C tests/data -czf "$S/input/two.tar.gz" read_small.json e2e/hostile.json
(cd tests/data && zip -q "$S/input/small.zip" read_small.json)
cp tests/data/parquet/*.parquet "$S/parquet/"
"$ROOT/build/tracedoc" fold examples/hta_nccl_data.json.gz 2>/dev/null | head -50 >"$S/folded/example.folded"
printf 'a;b;c 10\na;b 5\nx 1\n' >"$S/folded/tiny.folded"
cp templates/*.tdt "$S/template/"
for f in tests/golden/analyse/hta_nccl_data.summary.json tests/golden/nsys/saxpy.summary.json; do
    [ -f "$f" ] && cp "$f" "$S/baseline/"
done
printf 'tracedoc fuzz seed\n' | xz -c >"$S/xz/text.xz"
# IPU exports: the two examples, cut, and a small export with every record kind
mkdir -p "$S/ipu"
cp examples/ipu/detailed.jsonl examples/ipu/lwp.jsonl "$S/ipu/"
head -c 3000 examples/ipu/detailed.jsonl >"$S/ipu/detailed-cut.jsonl"
[ -x tools/gen_ipu.py ] && python3 tools/gen_ipu.py detailed "$S/ipu/tiny.jsonl" --runs 1 --layers 1 --tiles 4 2>/dev/null
# partial summaries: a Kineto part with collectives, a small one, an XLA part (nsys-jax);
# the big ones cut to their first 6 records of each type (and a new end line), so that
# they stay complete parts of a few KB
tds_cut() {
    "$ROOT/build/tracedoc" summarize "$1" -o "$S/tds/full.tds" 2>/dev/null &&
        awk -F'\t' '$1 == "end" { next } $1 == "rec" && ++c[$2] > 6 { next } { print; n++ }
                    END { printf "end\t%d\n", n }' "$S/tds/full.tds" >"$S/tds/$2"
    rm -f "$S/tds/full.tds"
}
tds_cut examples/hta_nccl_data.json.gz nccl.tds
"$ROOT/build/tracedoc" summarize tests/data/read_small.json -o "$S/tds/small.tds" 2>/dev/null
[ -n "${z:-}" ] && tds_cut "$z" nsysjax.tds
# rocprofv3 JSON: the hand-made files of tests/gen/rocprof_small.py and slices of the sample
mkdir -p "$S/rocprof"
/usr/bin/python3 tests/gen/rocprof_small.py "$S/rocprof"
if [ -f "$TRACES/rocprof/908_results.json.gz" ]; then
    zcat "$TRACES/rocprof/908_results.json.gz" | head -c 12000 >"$S/rocprof/908-head.json"
    zcat "$TRACES/rocprof/908_results.json.gz" | head -c 18402000 | tail -c 6000 |
        sed '1s/^[^{]*/{"rocprofiler-sdk-tool":[{"buffer_records":{"kernel_dispatch":[/' >"$S/rocprof/908-dispatch.json"
fi
cp tests/fuzz/corpus/rocprof/*.csv "$S/rocprof/" 2>/dev/null
# XPlane: the shared sample cut to 1-3 events per line, with and without its HLO protos
mkdir -p "$S/xplane"
XP=$TRACES/xplane/934987a2fc2f.xplane.pb
if [ -f "$XP" ]; then
    python3 bench/mkxplane.py "$XP" "$S/xplane/one.xplane.pb" --max-events 1 --no-metadata
    python3 bench/mkxplane.py "$XP" "$S/xplane/meta.xplane.pb" --max-events 2
    gzip -c "$S/xplane/one.xplane.pb" >"$S/xplane/one.xplane.pb.gz"
fi
harnesses=${*:-$(ls "$B"/fuzz/ 2>/dev/null | sed 's/^fuzz_//')}
for h in $harnesses; do
    h=${h#fuzz_}
    bin=$B/fuzz/fuzz_$h
    [ -x "$bin" ] || { echo "fuzz: $bin missing" >&2; continue; }
    mkdir -p "tests/fuzz/findings/$h" "$B/corpus/$h" "$S/$h"
    kept=tests/fuzz/corpus/$h
    [ -d "$kept" ] || kept=
    echo "fuzz: $h for ${secs}s"
    start=$(date +%s)
    "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=131072 \
        -artifact_prefix="tests/fuzz/findings/$h/" -print_final_stats=1 \
        "$B/corpus/$h" "$S/$h" $kept >"$B/fuzz-$h.log" 2>&1
    rc=$?
    end=$(date +%s)
    echo "fuzz: $h: exit $rc after $((end - start)) s; $(grep -E 'stat::number_of_executed_units' "$B/fuzz-$h.log" | awk '{print $2}') runs; log $B/fuzz-$h.log"
    ls "tests/fuzz/findings/$h" | sed "s/^/fuzz: $h: finding /"
done
