#!/usr/bin/env bash
# tests/stress/run.sh [BUILD]: the slow tests (./build.sh stress): many rounds of
# what tests/cases/fault_*.sh check once. Each prints its rounds and fails on the first
# round that breaks the rule.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
TD=$ROOT/${1:-build}/tracedoc
EX=$ROOT/examples/hta_nccl_data.json.gz
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export SOURCE_DATE_EPOCH=1700000000 # the same trace gives the same bytes: old run == new run
fail() { echo "stress: $*"; exit 1; }
listing() { (cd "$1" && find . -printf '%y %p\n' | LC_ALL=C sort && find . -type f -print0 |
    LC_ALL=C sort -z | xargs -0 sha256sum); }

# 1. kill -9 at random moments of a report of the same trace: the directory is always
# that run, whole (with a mix, or a file missing, the listing differs)
"$TD" summary "$EX" --format json -o "$WORK/s.json" || fail "summary"
"$TD" report "$EX" -o "$WORK/r" >/dev/null || fail "first report"
listing "$WORK/r" >"$WORK/old"
for i in $(seq 1 60); do
    setsid "$TD" report "$EX" -o "$WORK/r" >/dev/null 2>&1 & p=$!
    sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
    kill -9 -- -$p 2>/dev/null
    wait $p 2>/dev/null
    listing "$WORK/r" | cmp -s - "$WORK/old" || fail "kill round $i: the directory is neither run"
done
echo "kill -9 at random moments: 60 rounds, the directory was always one run"

# 2. 40 rounds of 16 concurrent appends to a new history database
for round in $(seq 1 40); do
    rm -f "$WORK/h.db"
    pids=""
    for i in $(seq 1 16); do
        "$TD" report "$WORK/s.json" --format json --history "$WORK/h.db" -o "$WORK/o$i" >/dev/null 2>"$WORK/e$i" &
        pids="$pids $!"
    done
    for p in $pids; do wait "$p" || fail "round $round: an append failed: $(cat "$WORK"/e*)"; done
    [ "$(sqlite3 "$WORK/h.db" 'SELECT count(*) FROM runs')" = 16 ] || fail "round $round: runs lost"
done
echo "history: 40 rounds of 16 concurrent appends to a new database, no run lost"

# 3. folded stacks read in chunks on two threads (src/read/folded.c) against the same file read in
# order through a pipe: the same drawing, messages and exit status
/usr/bin/python3 tests/stress/flame_split.py "$TD" 1000 || fail "flame on two threads"
