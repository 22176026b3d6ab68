#!/usr/bin/env bash
# Runs every test: unit test programs, then tests/cases/*.sh, once per build in
# TD_BUILDS (default: the release build and the ASan/UBSan build).
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
builds=${TD_BUILDS:-build build-asan}
only=${1:-}
pass=0 fail=0 skip=0
failed=()
for b in $builds; do
    case "$b" in /*) bp=$b ;; *) bp=$ROOT/$b ;; esac
    [ -x "$bp/tracedoc" ] || { echo "tests/run.sh: $b/tracedoc missing" >&2; fail=$((fail + 1)); continue; }
    for t in "$bp"/tests/test_*; do
        [ -x "$t" ] || continue
        n="$b:unit:$(basename "$t")"
        [ -n "$only" ] && [[ "$n" != *"$only"* ]] && continue
        if (cd "$ROOT" && "$t") >"/tmp/td-test.$$.log" 2>&1; then
            pass=$((pass + 1)); echo "ok   $n"
        else
            fail=$((fail + 1)); failed+=("$n"); echo "FAIL $n"; sed 's/^/     /' "/tmp/td-test.$$.log" | tail -30
        fi
    done
    for c in tests/cases/*.sh; do
        [ -f "$c" ] || continue
        n="$b:$(basename "$c" .sh)"
        [ -n "$only" ] && [[ "$n" != *"$only"* ]] && continue
        # goldens are written from the release build only
        ug=${UPDATE_GOLDEN:-0}
        [ "$b" = build ] || [ "${TD_GOLDEN_ANY:-0}" = 1 ] || ug=0
        work=$(mktemp -d)
        TD="$bp/tracedoc" WORK="$work" UPDATE_GOLDEN=$ug BUILD_KIND="$b" \
            bash "$c" >"$work/.log" 2>&1
        rc=$?
        if [ $rc = 0 ]; then
            pass=$((pass + 1)); echo "ok   $n"
        elif [ $rc = 77 ]; then
            skip=$((skip + 1)); echo "skip $n: $(tail -1 "$work/.log")"
        else
            fail=$((fail + 1)); failed+=("$n"); echo "FAIL $n (exit $rc)"; sed 's/^/     /' "$work/.log" | tail -40
        fi
        rm -rf "$work"
    done
done
rm -f "/tmp/td-test.$$.log"
[ ${#failed[@]} -gt 0 ] && printf 'failed: %s\n' "${failed[@]}"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
