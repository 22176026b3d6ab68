#!/usr/bin/env bash
# tests/tsan.sh - the threads of a run under ThreadSanitizer (not part of tests/run.sh:
# a third build and its runs would cost the suite about two minutes; run it after
# changing what runs on a second thread: the analysis side jobs of src/analyse/analyse.c,
# the readers' helper threads, the document writer's child).
# Builds BUILD (default build-tsan) with clang -fsanitize=thread, then runs `report` and
# `summarize` on shared traces of every kind that starts threads; any report fails it.
# Usage: tests/tsan.sh [TRACES_DIR]   (default ../shared/traces)
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-tsan}
TRACES=${1:-../shared/traces}
command -v clang >/dev/null || { echo "tests/tsan.sh: needs clang" >&2; exit 2; }
make -s -j"$(nproc)" BUILD="$BUILD" CC=clang WERROR= "OPT=-O1 -g -fsanitize=thread" \
    LDFLAGS=-fsanitize=thread "$BUILD/tracedoc"
# the shared traces are small: the analysis side jobs are forced (src/analyse/analyse.c)
export TD_SIDE_MIN=0
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 suppressions=$(pwd)/tests/tsan.supp"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
for f in kineto/hta_a100_ws16_rank0.json.gz kineto-shapes/tl_h100_bert_small.json.gz \
    kineto/param_dlrm_8ranks.tar.gz nsys/pipit_saxpy_mpi_cuda_a100.sqlite \
    nsys-jax/pax_fsdp4_4proc_proc0.zip aiu/sample_flex_3062_job_4.json; do
    for cmd in report summarize; do
        if [ $cmd = report ]; then
            args=(report --format json,pdf,xlsx,svg -o "$work/out")
        else
            args=(summarize -o "$work/part.tds")
        fi
        if "$BUILD/tracedoc" "${args[@]}" "$TRACES/$f" >"$work/log" 2>&1; then
            echo "ok   $cmd $f"
        else
            echo "FAIL $cmd $f (exit $?)"; grep -A30 'ThreadSanitizer' "$work/log" | head -40
            fail=1
        fi
    done
done
exit $fail
