#!/usr/bin/env bash
# tracedoc build entry point. The README's two commands:
#   ./build.sh run    install what is missing, build, write the example report to out/
#   ./build.sh test   install what is missing, build (release + ASan/UBSan), run every test
# Other commands: build, deps, golden (regenerate golden files: read the diff before
# committing), bench (benchmarks, see bench/README), stress (slow tests: kills at
# random moments, rounds of concurrent writers, folded files read in halves against in
# order; tests/stress/run.sh), fuzz [SECONDS] (libFuzzer harnesses,
# see tests/fuzz/README.md), clean.
set -euo pipefail
cd "$(dirname "$0")"
export LC_ALL=C

# Debian packages: libraries (-dev), and the tools the tests use to check documents
# (slurm-wlm and munge: tests/cases/slurm.sh runs doc/scale-out.md's job on a real Slurm).
BUILD_PKGS="build-essential pkg-config libxlsxwriter-dev libcairo2-dev libpango1.0-dev
  libcsv-dev libisal-dev libsqlite3-dev liblzma-dev libarchive-dev
  libsnappy-dev libzstd-dev zlib1g-dev libfontconfig-dev libssl-dev libjansson-dev"
# ./build.sh bench: RapidJSON, the reference parser bench/run.sh compares with (issue 23)
BENCH_PKGS="rapidjson-dev g++ time"
# ./build.sh fuzz: clang and its sanitizer/libFuzzer runtime
FUZZ_PKGS="clang libclang-rt-dev"
TEST_PKGS="poppler-utils qpdf python3 python3-openpyxl libreoffice-calc-nogui chromium xz-utils time sqlite3
  zip unzip python3-scipy slurm-wlm munge"

deps() {
    local want="$BUILD_PKGS"
    [ "${1:-}" = test ] && want="$want $TEST_PKGS"
    [ "${1:-}" = fuzz ] && want="$want $FUZZ_PKGS"
    [ "${1:-}" = bench ] && want="$want $BENCH_PKGS"
    local missing=()
    for p in $want; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
            missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "build.sh: installing ${missing[*]}" >&2
        local sudo=""
        [ "$(id -u)" = 0 ] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
            "${missing[@]}" >/dev/null
    fi
}

timed() { # timed CMD...: runs CMD, then prints its wall seconds on stderr
    local t0=$SECONDS
    "$@" || return
    echo "build.sh: $* took $((SECONDS - t0)) s" >&2
}

build() {
    local j
    j=$(nproc 2>/dev/null || echo 2)
    if [ "${1:-}" = all ]; then
        # release (build), ASan/UBSan (build-asan) and portable (build-portable: no
        # CPU-specific code, the paths arm64 builds use; it compiles only the files
        # TD_PORTABLE changes and shares the release build's other objects) in one make,
        # so that the cores stay busy; tests/run.sh runs the reader and golden cases on
        # the portable build
        timed make -s -j"$j" test-builds
    else
        timed make -s -j"$j" BUILD=build
    fi
}

example_trace() {
    local f
    for f in examples/*.json.gz examples/*.json; do
        [ -f "$f" ] && { echo "$f"; return 0; }
    done
    return 0
}

cmd=${1:-build}
case "$cmd" in
deps) deps test ;;
build) deps; build all ;;
run)
    deps
    build
    ex=$(example_trace)
    [ -n "$ex" ] || { echo "build.sh: no example trace in examples/" >&2; exit 1; }
    ./build/tracedoc report "$ex" -o out --timings
    echo "build.sh: report written to out/:"
    ls -l out/
    ;;
test)
    deps test
    build all
    tests/run.sh
    ;;
golden)
    deps test
    build
    UPDATE_GOLDEN=1 TD_BUILDS=build tests/run.sh
    git status --short tests/golden/ || true
    echo "build.sh: goldens regenerated; read 'git diff tests/golden/' before committing." >&2
    ;;
bench) deps bench; build; bench/run.sh "${@:2}" ;;
stress) deps test; build; tests/stress/run.sh build ;; # slow fault tests (tests/stress/)
fuzz)
    # ./build.sh fuzz [SECONDS [HARNESS...]]: every libFuzzer harness for SECONDS (default
    # 60) each, one after the other; findings go to tests/fuzz/findings/HARNESS/
    deps fuzz
    make -s -j"$(nproc 2>/dev/null || echo 2)" BUILD=build-fuzz FUZZ=1 CC=clang fuzz
    tests/fuzz/run.sh build-fuzz "${2:-60}" "${@:3}"
    ;;
clean) rm -rf build build-asan build-portable build-fuzz out ;;
*)
    echo "usage: ./build.sh [run|test|build|golden|bench|stress|fuzz [SECONDS]|deps|clean]" >&2
    exit 2
    ;;
esac
