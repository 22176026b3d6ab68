# tests/lib.sh - helpers for tests/cases/*.sh (source it).
# golden NAME FILE: compare FILE with tests/golden/NAME; with UPDATE_GOLDEN=1 (release build
# only), copy FILE to tests/golden/NAME instead.
set -u
golden() {
    local name=$1 file=$2
    if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
        mkdir -p "$(dirname "$ROOT/tests/golden/$name")"
        cp "$file" "$ROOT/tests/golden/$name"
        return 0
    fi
    if [ ! -f "$ROOT/tests/golden/$name" ]; then
        echo "missing tests/golden/$name (run ./build.sh golden and read the diff)"
        return 1
    fi
    if ! cmp -s "$file" "$ROOT/tests/golden/$name"; then
        echo "differs from tests/golden/$name:"
        diff -u "$ROOT/tests/golden/$name" "$file" | head -40
        return 1
    fi
}
need_traces() {
    [ -n "${TRACES:-}" ] && [ -d "$TRACES" ] || { echo "../shared/traces not found"; exit 77; }
}
die() { echo "$*"; exit 1; }
# expect_exit CODE CMD...: run CMD, require its exit status
expect_exit() {
    local want=$1; shift
    "$@"; local rc=$?
    [ "$rc" = "$want" ] || { echo "expected exit $want, got $rc: $*"; return 1; }
}
PY=/usr/bin/python3
# once KEY FUNC [ARGS...]: a step whose result does not depend on the build (a reference
# tool's output, a generated input) runs once per tests/run.sh run, for every build: the
# first caller runs FUNC with ONCE set to an empty directory it fills (FUNC must succeed,
# else once fails and the next caller tries again); every caller then gets ONCE set to
# that directory. Outside tests/run.sh (no TD_ONCE_DIR) the directory is the case's own.
once() {
    local key=$1 base=${TD_ONCE_DIR:-$WORK/.once}
    shift
    mkdir -p "$base" || return 1
    (
        flock 9 || exit 1
        [ -f "$base/$key.done" ] && exit 0
        rm -rf "${base:?}/$key" && mkdir -p "$base/$key" || exit 1
        ONCE=$base/$key "$@" || exit 1
        : >"$base/$key.done"
    ) 9>"$base/$key.lock" || return 1
    ONCE=$base/$key
}
# looks_elsewhere: true when a check of a document's looks in a viewer (LibreOffice,
# Chromium) can be left to the release build's run of the same case: this case runs on
# another build (ASan/UBSan, portable), tests/run.sh runs the release build too (it sets
# TD_RELEASE), and the document is byte-identical to the release build's. A viewer sees
# only the bytes, so the case then requires the bytes (same_as_release) and skips the
# viewer; the code that writes the document still runs on this build.
looks_elsewhere() {
    [ "${BUILD_KIND:-build}" != build ] && [ -n "${TD_RELEASE:-}" ] && [ -x "$TD_RELEASE/tracedoc" ]
}
# same_as_release MINE THEIRS: MINE (written by this build) is byte-identical to THEIRS
# (the same document written by the release build), or the case fails saying so
same_as_release() {
    cmp -s "$1" "$2" && return 0
    echo "$(basename "$1") differs from the release build's: the viewer check of the release build does not cover this build"
    return 1
}
