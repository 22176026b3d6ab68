# The analysis passes' order in summary.json does not depend on which thread ran them:
# kernels, the critical path and variability run on a second thread beside other passes
# (their tables moved into the summary where they used to run: src/analyse/analyse.c),
# and summary.json must be byte for byte what running every pass on one thread gives
# (TD_TEST_SERIAL=1), on real traces of each kind that has a critical path: Kineto with
# steps (A100, 16 ranks' rank 0), Kineto with shapes and SDPA (H100), an 8-rank Kineto
# archive, an nsys export and an nsys-jax archive (no critical path: the same either
# way). `report --timings` names every pass with its wall time and the peak RSS after it,
# and says how long the passes on the second thread took there. These traces are small:
# below 100,000 events the passes run on one thread (TD_SIDE_MIN=0 here: always a second
# thread), which the last check sees.
. "$ROOT/tests/lib.sh"
need_traces
i=0
for f in kineto/hta_a100_ws16_rank0.json.gz kineto-shapes/tl_h100_bert_small.json.gz \
    kineto/param_dlrm_8ranks.tar.gz nsys/pipit_saxpy_mpi_cuda_a100.sqlite \
    nsys-jax/pax_fsdp4_4proc_proc0.zip; do
    i=$((i + 1))
    TD_SIDE_MIN=0 "$TD" report --format json --timings -o "$WORK/t$i" "$TRACES/$f" 2>"$WORK/t$i.err" ||
        die "$f: report failed: $(cat "$WORK/t$i.err")"
    TD_TEST_SERIAL=1 "$TD" report --format json -o "$WORK/s$i" "$TRACES/$f" 2>"$WORK/s$i.err" ||
        die "$f: serial report failed: $(cat "$WORK/s$i.err")"
    cmp -s "$WORK/t$i/summary.json" "$WORK/s$i/summary.json" ||
        die "$f: summary.json differs from every pass on one thread: $(diff "$WORK/s$i/summary.json" "$WORK/t$i/summary.json" | head -5)"
    case $f in nsys-jax/*) ;; # its kernels come from the NVTX projection: no path
    *) grep -q '"critical_path"' "$WORK/t$i/summary.json" || die "$f: no critical_path table" ;;
    esac
    for w in 'read  ' 'analyse  ' '  nest  ' '  steps  ' '  op_perf  ' 'kernels (thread)' 'critpath (thread)' 'render (all)'; do
        grep -q "^tracedoc: timings: *${w}" "$WORK/t$i.err" ||
            die "$f: --timings says nothing of '$w': $(grep timings "$WORK/t$i.err")"
    done
    # every pass line: a name, milliseconds, the peak RSS so far
    grep '^tracedoc: timings:   ' "$WORK/t$i.err" |
        grep -Ev '^tracedoc: timings:   [a-z_]+( [a-z()]+)? +[0-9]+\.[0-9]{3} ms \(peak RSS [0-9]+\.[0-9] MiB\)$' &&
        die "$f: a pass line of --timings is not 'NAME MS ms (peak RSS MIB MiB)'"
    ! grep -q '^tracedoc: timings:   critpath  ' "$WORK/t$i.err" ||
        die "$f: the critical path ran on the main thread"
done
# a small trace without TD_SIDE_MIN: every pass on the main thread, the same summary
"$TD" report --format json --timings -o "$WORK/small" "$TRACES/kineto-shapes/tl_h100_bert_small.json.gz" \
    2>"$WORK/small.err" || die "small trace: $(cat "$WORK/small.err")"
cmp -s "$WORK/small/summary.json" "$WORK/s2/summary.json" || die "small trace: summary.json differs"
! grep -q '(thread)' "$WORK/small.err" || die "a 71 KB trace used a second thread for its passes"
grep -q '^tracedoc: timings:   critpath  ' "$WORK/small.err" || die "small trace: no critpath line"
exit 0
