# The history database survives (compare/history.c): 16 reports appending to a new
# database at once all land (the schema is created in one transaction the others wait
# for); a database of a newer version (tracedoc_history.version 99) and a damaged one
# (PRAGMA quick_check fails) are refused with exit 3 naming the file; a lock held past
# the wait is "busy", exit 8.
. "$ROOT/tests/lib.sh"
command -v sqlite3 >/dev/null || { echo "no sqlite3 CLI"; exit 77; }
EX="$ROOT/examples/hta_nccl_data.json.gz"
DB=$WORK/runs.db
"$TD" summary "$EX" --format json -o "$WORK/s.json" || die "summary"
pids=""
for i in $(seq 1 16); do
    "$TD" report "$WORK/s.json" --format json --history "$DB" -o "$WORK/o$i" >/dev/null 2>"$WORK/e$i" &
    pids="$pids $!"
done
i=0
for p in $pids; do
    i=$((i + 1))
    wait "$p" || die "concurrent append $i: exit $?: $(cat "$WORK/e$i")"
done
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM runs')" = 16 ] || die "runs lost: $(sqlite3 "$DB" 'SELECT count(*) FROM runs')"
[ "$(sqlite3 "$DB" 'SELECT count(*), max(version) FROM tracedoc_history')" = "1|1" ] ||
    die "version not written once: $(sqlite3 "$DB" 'SELECT * FROM tracedoc_history')"
# a newer version
cp "$DB" "$WORK/v99.db"
sqlite3 "$WORK/v99.db" "UPDATE tracedoc_history SET version = 99"
expect_exit 3 "$TD" report "$WORK/s.json" --format json --history "$WORK/v99.db" -o "$WORK/o" 2>"$WORK/err" || exit 1
grep -qx "tracedoc: $WORK/v99.db: history database version 99 is newer than this tracedoc knows (1): use a newer tracedoc" "$WORK/err" || die "version message: $(cat "$WORK/err")"
[ "$(sqlite3 "$WORK/v99.db" 'SELECT count(*) FROM runs')" = 16 ] || die "appended to a newer version"
# damaged: the header of page 2 overwritten (a page an append does not read)
cp "$DB" "$WORK/bad.db"
printf '\377\377\377\377\377\377\377\377' | dd of="$WORK/bad.db" bs=1 seek=4096 conv=notrunc 2>/dev/null
cp "$WORK/bad.db" "$WORK/bad.orig"
expect_exit 3 "$TD" report "$WORK/s.json" --format json --history "$WORK/bad.db" -o "$WORK/o" 2>"$WORK/err" || exit 1
grep -q "^tracedoc: $WORK/bad.db: damaged database (PRAGMA quick_check: " "$WORK/err" || die "damaged message: $(cat "$WORK/err")"
cmp -s "$WORK/bad.db" "$WORK/bad.orig" || die "the damaged database was written to"
# a lock held by another writer past the wait: busy (exit 8), not "not a tracedoc history database"
{ echo "BEGIN EXCLUSIVE;"; echo "INSERT INTO runs(id) VALUES(100000);"; sleep 3; echo "ROLLBACK;"; } | sqlite3 "$DB" & h=$!
sleep 1
TD_TEST_BUSY_MS=500 expect_exit 8 "$TD" report "$WORK/s.json" --format json --history "$DB" -o "$WORK/o" 2>"$WORK/err" || { wait $h; exit 1; }
grep -qx "tracedoc: $DB: busy: another process has held the database's lock for more than 0.5 s" "$WORK/err" || { wait $h; die "busy message: $(cat "$WORK/err")"; }
wait $h
"$TD" report "$WORK/s.json" --format json --history "$DB" -o "$WORK/o" >/dev/null || die "after the lock"
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM runs')" = 17 ] || die "append after the lock"
exit 0
