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
# checked CMD [ARGS...]: runs a check - a program whose output and exit status depend only
# on its words, the contents of the files and folders its arguments name, and (when its
# second word is "-", as in `checked $PY - ARGS <<'EOF'`) the script on standard input -
# and keeps what it printed when it passed: a later call in this tests/run.sh run with the
# same words and the same bytes (another build's run of the case, whose outputs are
# byte-identical to the release build's) prints that again and passes without running it.
# The key is the SHA-256 of the words, of the bytes of each named file the case wrote (a
# folder: its files' names and bytes; the path's own spelling does not count: every
# build's run writes into its own WORK), of the name, size and time of each other file
# (traces, oracles, once results: fixed during a run) and of the script. Only for checks
# that read nothing else (no fixed file names, no globs of their own) and write nothing.
checked() {
    local base=${TD_ONCE_DIR:-} a key script="" rc
    if [ "${2:-}" = - ]; then
        script=$(mktemp) && cat >"$script" || return 1
    fi
    if [ -z "$base" ]; then # outside tests/run.sh: just run it
        if [ -n "$script" ]; then "$@" <"$script"; rc=$?; rm -f "$script"; return $rc; fi
        "$@"; return
    fi
    # few processes: a start costs ~10 ms here, and a check can be small
    local abs fixed=() mine=() dirs=()
    key=$(
        for a in "$@"; do
            abs=$a
            [[ "$abs" = /* ]] || abs=$PWD/$a
            if [ ! -e "$a" ]; then
                printf 'word %s\n' "$a"
            elif [ -n "${WORK:-}" ] && [[ "$abs" = "$WORK" || "$abs" = "$WORK"/* ]]; then
                if [ -d "$a" ]; then echo "dir"; dirs+=("$a"); else echo "file"; mine+=("$a"); fi
            else
                # not written by this case (a trace, an oracle, a once result): fixed
                # for the run, its name, size and time are enough
                echo "fixed"; fixed+=("$abs")
            fi
        done
        [ ${#fixed[@]} = 0 ] || find "${fixed[@]}" -printf '%p %s %T@\n'
        # the bytes of what the case wrote, in the order named, not the names
        [ ${#mine[@]} = 0 ] || sha256sum -- "${mine[@]}" | cut -c1-64
        for a in "${dirs[@]}"; do (cd "$a" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum); done
        if [ -n "$script" ]; then sha256sum <"$script"; fi
    ) || return 1
    key=checked-$(printf '%s' "$key" | sha256sum | cut -c1-64)
    mkdir -p "$base" || return 1
    # one at a time per key: a second build's run of the case waits for the first's result
    (
        flock 9 || exit 1
        if [ -f "$base/$key.out" ]; then
            cat "$base/$key.out"
            exit 0
        fi
        if [ -n "$script" ]; then "$@" <"$script" >"$base/$key.tmp"; else "$@" >"$base/$key.tmp"; fi
        rc=$?
        cat "$base/$key.tmp"
        if [ $rc = 0 ]; then mv "$base/$key.tmp" "$base/$key.out"; else rm -f "$base/$key.tmp"; fi
        exit $rc
    ) 9>"$base/$key.lock"
    rc=$?
    rm -f "$script"
    return $rc
}
