#!/usr/bin/env bash
# Runs every test: unit test programs, the replay of the fuzzing inputs kept in
# tests/fuzz/corpus (tests/fuzz/README.md), then tests/cases/*.sh, once per build in
# TD_BUILDS (default: the release build, the ASan/UBSan build, and the portable build
# when it exists - there only the unit tests and the reader/golden cases).
# The jobs of every build run in parallel (TD_JOBS, default: the number of cores),
# longest first by tests/case-times.txt; results are printed in a fixed order (build,
# then name) as they become available, with the seconds each took, then the 15 slowest.
# TD_TIMES_OUT=FILE writes every job's seconds in the format of tests/case-times.txt.
# A case script gets TD (the tracedoc binary), ROOT, TRACES (../shared/traces), WORK (a
# scratch directory) and UPDATE_GOLDEN; it exits 0 = pass, 77 = skip, else fail.
# Ends with the line "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export ROOT LC_ALL=C TZ=UTC SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1700000000}
export TRACES=${TRACES:-$(cd "$ROOT/../shared/traces" 2>/dev/null && pwd)}
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99
if [ -z "${TD_BUILDS:-}" ]; then
    builds="build build-asan"
    [ -x "$ROOT/build-portable/tracedoc" ] && builds="$builds build-portable"
else
    builds=$TD_BUILDS
fi
# the portable build (scalar paths) runs what reads traces and compares outputs
portable_cases=${TD_PORTABLE_CASES:-'read_|golden|fold|analyse_|nsys_|xla_|cli|safe_output'}
jobs=${TD_JOBS:-$(nproc 2>/dev/null || echo 2)}
only=${1:-}
pass=0 fail=0 skip=0
failed=()
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# what the cases share within this run (tests/lib.sh): the results of steps that do not
# depend on the build (once), and the release build, whose run of a case checks a
# document's looks in a viewer for every build that writes the same bytes (looks_elsewhere)
export TD_ONCE_DIR=$tmp/once
TD_RELEASE=
for b in $builds; do [ "$b" = build ] && TD_RELEASE=$ROOT/build; done
export TD_RELEASE

if [ -z "$TRACES" ] || [ ! -d "$TRACES" ]; then
    need=$(grep -l 'need_traces\|\$TRACES' tests/cases/*.sh | xargs -n1 basename | sed 's/\.sh$//' | tr '\n' ' ')
    echo "tests/run.sh: ../shared/traces not found (set TRACES=DIR to use other traces):"
    echo "  skipped, wholly or in part: the cases that read the shared real traces: $need"
    echo "  and the unit-test checks on those traces (test_nsys, test_parquet, test_xla);"
    echo "  everything else runs on the small inputs in tests/data and examples/."
fi

# --- the job list: (build, kind, name, command) in print order ---
names=() kinds=() cmds=() bps=()
for b in $builds; do
    case "$b" in /*) bp=$b ;; *) bp=$ROOT/$b ;; esac
    if [ ! -x "$bp/tracedoc" ]; then
        echo "tests/run.sh: $b/tracedoc missing" >&2
        fail=$((fail + 1)); failed+=("$b:tracedoc missing")
        continue
    fi
    for t in "$bp"/tests/test_*; do
        [ -x "$t" ] || continue
        n="$b:unit:$(basename "$t")"
        [ -n "$only" ] && [[ "$n" != *"$only"* ]] && continue
        names+=("$n"); kinds+=(unit); cmds+=("$t"); bps+=("$bp")
    done
    for t in "$bp"/tests/replay_fuzz_*; do
        [ -x "$t" ] || continue
        h=$(basename "$t"); h=${h#replay_fuzz_}
        n="$b:fuzz-replay:$h"
        [ -n "$only" ] && [[ "$n" != *"$only"* ]] && continue
        names+=("$n"); kinds+=(replay); cmds+=("$t $ROOT/tests/fuzz/corpus/$h"); bps+=("$bp")
    done
    for c in tests/cases/*.sh; do
        [ -f "$c" ] || continue
        n="$b:$(basename "$c" .sh)"
        [ -n "$only" ] && [[ "$n" != *"$only"* ]] && continue
        if [ "$(basename "$b")" = build-portable ] && ! [[ "$(basename "$c")" =~ $portable_cases ]]; then
            continue
        fi
        names+=("$n"); kinds+=(case); cmds+=("$c"); bps+=("$bp")
    done
done

run_one() { # index: writes $tmp/$i.log, $tmp/$i.time (seconds) and $tmp/$i.rc
    local i=$1 b=${names[$1]%%:*} rc t0=$EPOCHREALTIME
    case "${kinds[$i]}" in
    unit | replay)
        (cd "$ROOT" && ${cmds[$i]}) >"$tmp/$i.log" 2>&1
        rc=$? ;;
    case)
        # goldens are written from the release build only
        local ug=${UPDATE_GOLDEN:-0} work
        [ "$b" = build ] || [ "${TD_GOLDEN_ANY:-0}" = 1 ] || ug=0
        work=$(mktemp -d)
        TD="${bps[$i]}/tracedoc" WORK="$work" UPDATE_GOLDEN=$ug BUILD_KIND="$b" \
            bash "${cmds[$i]}" >"$tmp/$i.log" 2>&1
        rc=$?
        rm -rf "$work" ;;
    esac
    awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", b - a }' >"$tmp/$i.time"
    # CPU seconds (user + system) of every process the job waited for: the second line
    # of `times` in this subshell (which runs only this job; not in a pipe: that forks)
    times >"$tmp/$i.times"
    awk 'NR == 2 { s = 0; for (f = 1; f <= 2; f++) { split($f, p, /[ms]/); s += p[1] * 60 + p[2] }
        printf "%.1f\n", s }' "$tmp/$i.times" >"$tmp/$i.cpu"
    echo $rc >"$tmp/$i.rc.part" && mv "$tmp/$i.rc.part" "$tmp/$i.rc"
}

printed=0
print_ready() { # prints finished results in order, as far as they are contiguous
    while [ $printed -lt ${#names[@]} ] && [ -f "$tmp/$printed.rc" ]; do
        local i=$printed rc n=${names[$printed]} t
        rc=$(cat "$tmp/$i.rc"); t=$(cat "$tmp/$i.time")
        if [ "$rc" = 0 ]; then
            pass=$((pass + 1)); echo "ok   $n ($t s)"
        elif [ "$rc" = 77 ] && [ "${kinds[$i]}" = case ]; then
            skip=$((skip + 1)); echo "skip $n ($t s): $(tail -1 "$tmp/$i.log")"
        else
            fail=$((fail + 1)); failed+=("$n")
            echo "FAIL $n (exit $rc, $t s)"; sed 's/^/     /' "$tmp/$i.log" | tail -40
        fi
        printed=$((printed + 1))
    done
}

# longest first, over every build (so that the last minutes are not one slow case
# running alone): the seconds each took in a recent run are in tests/case-times.txt
# ("WALL BUILD:NAME CPU"; the CPU seconds order them when given: on a loaded machine the
# wall time says more about the load than about the job; a job not listed counts 5 s);
# results still print in order
declare -A est=()
if [ -f tests/case-times.txt ]; then
    while read -r sec n cpu _; do
        [ -n "$n" ] && [ "${sec#\#}" = "$sec" ] && est[$n]=${cpu:-$sec}
    done <tests/case-times.txt
fi
# a case that spends its time waiting (its first lines say "# tests/run.sh: waits", as
# slurm.sh waits for Slurm's scheduler) runs beside the TD_JOBS others, not in a slot of
# theirs, and starts first
declare -A waits=()
for i in "${!names[@]}"; do
    [ "${kinds[$i]}" = case ] && head -20 "${cmds[$i]}" | grep -q '^# tests/run.sh: waits' &&
        waits[$i]=1
done
order=$(for i in "${!names[@]}"; do
    n=${names[$i]}; k=$(basename "${n%%:*}"):${n#*:}
    if [ -n "${waits[$i]:-}" ]; then echo "1e9 $i"; else echo "${est[$k]:-5} $i"; fi
done | sort -s -k1,1gr | cut -d' ' -f2)

busy() { # the running jobs that take a slot
    local p n=0
    for p in $(jobs -rp); do [ -n "${waiting_pid[$p]:-}" ] || n=$((n + 1)); done
    echo $n
}
declare -A waiting_pid=()
# next_job: sets i to the first job of the order not yet started whose case is not running
# on another build at the moment (else the first one): the two builds' runs of a case then
# run one after the other, so that the second finds the first's checks (checked), cuts
# (once) and documents (looks_elsewhere) done instead of doing them too or waiting
left=($order)
live=()
next_job() {
    local j k c pick=0 still=()
    local -A running=()
    for j in "${live[@]}"; do
        [ -f "$tmp/$j.rc" ] || { running[${names[$j]#*:}]=1; still+=("$j"); }
    done
    live=("${still[@]}")
    for k in "${!left[@]}"; do
        c=${names[${left[$k]}]#*:}
        if [ -z "${running[$c]:-}" ]; then pick=$k; break; fi
    done
    i=${left[$pick]}
    unset "left[$pick]"
    left=("${left[@]}")
    live+=("$i")
}
suite_t0=$EPOCHREALTIME
while [ ${#left[@]} -gt 0 ]; do
    next_job
    if [ "${kinds[$i]}" = unit ] && [ "$jobs" -le 1 ]; then
        (run_one "$i")
    else
        run_one "$i" &
        [ -n "${waits[$i]:-}" ] && waiting_pid[$!]=1
        while [ "$(busy)" -ge "$jobs" ]; do
            wait -n 2>/dev/null || true
            print_ready
        done
    fi
    print_ready
done
while [ $printed -lt ${#names[@]} ]; do
    wait -n 2>/dev/null || sleep 0.2
    print_ready
done
wait
if [ ${#names[@]} -gt 1 ]; then
    cpu_total=$(cat "$tmp"/*.cpu | awk '{ s += $1 } END { printf "%.0f", s }')
    echo "slowest (seconds of wall time and of CPU each, ${jobs} at a time; the suite took $(awk -v a="$suite_t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s, $cpu_total s of CPU):"
    for i in "${!names[@]}"; do echo "$(cat "$tmp/$i.time") $(cat "$tmp/$i.cpu") ${names[$i]}"; done |
        sort -rn | head -15 | awk '{ printf "  %6.1f  %6.1f  %s\n", $1, $2, $3 }'
fi
# TD_TIMES_OUT=FILE: the seconds of every job, in the format of tests/case-times.txt
if [ -n "${TD_TIMES_OUT:-}" ]; then
    {
        echo "# seconds each test job took in a run of tests/run.sh ($jobs at a time, $(nproc) cores,"
        echo "# load $(cut -d' ' -f1-3 /proc/loadavg) at the end), read by tests/run.sh to start the"
        echo "# longest first (a job not listed counts 5 s). Refresh: TD_TIMES_OUT=FILE tests/run.sh"
        echo "# Columns: wall seconds, job, CPU seconds (user + system, every process it waited for)"
        for i in "${!names[@]}"; do
            n=${names[$i]}; echo "$(cat "$tmp/$i.time") $(basename "${n%%:*}"):${n#*:} $(cat "$tmp/$i.cpu")"
        done | sort -k1,1gr
    } >"$TD_TIMES_OUT"
fi
[ ${#failed[@]} -gt 0 ] && printf 'failed: %s\n' "${failed[@]}"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
