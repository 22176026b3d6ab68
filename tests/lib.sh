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
