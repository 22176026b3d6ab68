# Resource bounds on hostile inputs generated here (tests/gen/hostile.py): deeply nested
# events (Chrome JSON and nsys NVTX), a huge trace member in a tar.gz, a huge Parquet
# member in a zip. Every pass stays linear: time and peak memory stay small, stacks are
# cut at 512 frames with a warning, the folded totals stay exact.
. "$ROOT/tests/lib.sh"
G="$ROOT/tests/gen/hostile.py"
asan=0; case "${BUILD_KIND:-}" in *asan*) asan=1 ;; esac
# gen KIND N FILE [BASE]: the generator's input, made once per test run for every build
# (it does not depend on the build; tests/lib.sh once), copied to WORK/FILE
gen() {
    local k=$1 n=$2 f=$3
    shift 3
    mk() { $PY "$G" "$k" "$n" "$ONCE/$f" "$@"; }
    once "bounds-$k-$n" mk "$@" && cp "$ONCE/$f" "$WORK/$f"
}
peak() { # peak RSS in MiB and wall seconds of a command: "RSS SECONDS"
    /usr/bin/time -f '%M %e' -o "$WORK/time" "$@" >"$WORK/out" 2>"$WORK/err"
    local rc=$?
    # the last line: GNU time writes "Command exited with non-zero status N" before it
    echo "$(($(tail -n 1 "$WORK/time" | cut -d' ' -f1) / 1024)) $(tail -n 1 "$WORK/time" | cut -d' ' -f2)"
    return $rc
}
# 20,000 nested complete events: was 10.6 s and 1.4 GB (quadratic flamegraph paths)
gen deep 20000 deep.json.gz || die "generator"
r=$(peak "$TD" summary "$WORK/deep.json.gz") || { cat "$WORK/err"; die "summary of the deep trace"; }
echo "deep 20000: $r (MiB, s)"
grep -q "warning: cpu stacks deeper than 512 frames: the frames below are merged into one '(deeper frames merged)' frame (19489 ops)" "$WORK/err" ||
    { cat "$WORK/err"; die "no depth warning"; }
set -- $r
if [ $asan = 0 ]; then
    [ "$1" -lt 150 ] || die "deep 20000: peak RSS $1 MiB"
    awk -v t="$2" 'BEGIN { exit !(t < 8) }' || die "deep 20000: $2 s"
fi
"$TD" fold "$WORK/deep.json.gz" >"$WORK/deep.folded" 2>/dev/null || die "fold"
# deepest line: thread + 512 frames + the merged frame; the values add up to the
# outermost event's duration (2 * 20000 + 10 us), as the generator builds it
awk '{ n = split($0, f, ";"); if (n > m) m = n } END { exit !(m == 514) }' "$WORK/deep.folded" ||
    die "folded depth is not 514 frames"
awk '{ s += $NF } END { exit !(s == 40010000) }' "$WORK/deep.folded" || die "folded total is not 40010 us"
grep -q ';(deeper frames merged) [0-9]*$' "$WORK/deep.folded" || die "no merged frame"
# ten times deeper: memory grows by little, not 100 times
if [ $asan = 0 ]; then
    gen deep 200000 deep2.json.gz || die "generator"
    r2=$(peak "$TD" report "$WORK/deep2.json.gz" -o "$WORK/r2") || { cat "$WORK/err"; die "report of 200000 nested"; }
    echo "deep 200000 report: $r2 (MiB, s)"
    set -- $r2
    [ "$1" -lt 300 ] || die "deep 200000: peak RSS $1 MiB"
    [ -s "$WORK/r2/report.pdf" ] || die "no PDF"
fi
# a tar.gz (0.1 MB) whose trace inflates to 128 MiB of blanks: streamed, not held
gen tarbomb 128 tb.tar.gz || die "generator"
r=$(peak "$TD" summary "$WORK/tb.tar.gz") || { cat "$WORK/err"; die "tar bomb"; }
echo "tar member 128 MiB: $r (MiB, s)"
set -- $r
[ $asan = 1 ] || [ "$1" -lt 100 ] || die "tar member held in memory: $1 MiB"
grep -q 'tb.tar.gz:big.json' "$WORK/out" || die "member not listed"
# an nsys-jax zip whose Parquet member inflates to 32 MiB of zeros: a clear error (past
# the archive's memory bound, 64 MiB here, bounds_bomb.sh)
gen zipbomb 32 zb.zip || die "generator"
expect_exit 3 "$TD" summary "$WORK/zb.zip" 2>"$WORK/err" || exit 1
grep -q 'zb.zip:nvtx_gpu_proj_trace/trace.parquet: byte [0-9]*: invalid Parquet' "$WORK/err" || { cat "$WORK/err"; die "zip message"; }
# nested NVTX ranges in a real nsys export (the shared saxpy report + 20,000 ranges)
NS="${TRACES:-}/nsys/pipit_saxpy_mpi_cuda_a100.sqlite"
if [ -f "$NS" ]; then
    gen nvtx 20000 nv.sqlite "$NS" || die "generator"
    r=$(peak "$TD" summary "$WORK/nv.sqlite") || { cat "$WORK/err"; die "nested NVTX"; }
    echo "nsys 20000 nested NVTX: $r (MiB, s)"
    grep -q "cpu stacks deeper than 512 frames" "$WORK/err" || { cat "$WORK/err"; die "NVTX depth warning"; }
    set -- $r
    [ $asan = 1 ] || [ "$1" -lt 150 ] || die "nested NVTX: $1 MiB"
fi
exit 0
