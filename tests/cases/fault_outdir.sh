# The output directory holds one run or the other (cli/outdir.h): a run killed with
# SIGKILL at a chosen point (the test hook TD_TEST_KILL_AT) leaves the old run's files
# exactly; the stale temporaries a killed run leaves are swept by the next run when that
# process is gone; a second report into a directory being written is refused (exit 8).
. "$ROOT/tests/lib.sh"
need_traces
A="$ROOT/examples/hta_nccl_data.json.gz"
B="$TRACES/kineto/hta_mi250_minitoy.json.gz"
D=$WORK/r
listing() { (cd "$1" && find . -printf '%y %p\n' | LC_ALL=C sort && find . -type f -print0 |
    LC_ALL=C sort -z | xargs -0 sha256sum); }
"$TD" report "$A" --format pdf,svg,json,xlsx,csv -o "$D" || die "first report"
echo mine >"$D/notes.txt" # the user's file: carried over by every run
listing "$D" >"$WORK/old"
# killed after each document, and after the switch
for at in xlsx json csv svg pdf; do
    TD_TEST_KILL_AT=$at setsid -w "$TD" report "$B" --format pdf,svg,json,xlsx,csv -o "$D" 2>/dev/null
    rc=$?
    [ "$rc" = 137 ] || die "kill at $at: exit $rc, not killed"
    listing "$D" | cmp -s - "$WORK/old" || { listing "$D" | diff "$WORK/old" - | head; die "killed at $at: the directory is not the old run"; }
done
ls "$WORK" | grep -q '^r\.tmp\.' || die "no stale stage left to sweep (the hook did not kill)"
# a stale workbook temporary of a dead process inside, a live one's kept
sleep 60 & live=$!
touch "$D/report.xlsx.tmp.999999999.0" "$D/report.xlsx.tmp.$live.0" "$D/data.tmp.999999999.txt"
TD_TEST_KILL_AT=switch setsid -w "$TD" report "$B" --format pdf,svg,json,xlsx,csv -o "$D" 2>/dev/null
[ $? = 137 ] || die "kill at switch"
grep -q minitoy "$D/summary.json" || die "killed after the switch: not the new run"
[ -f "$D/notes.txt" ] || die "the user's file was lost"
"$TD" report "$A" --format pdf,svg,json,xlsx,csv -o "$D" || die "report after the kills"
ls "$WORK" | grep -q '^r\.tmp\.' && die "stale stage not swept: $(ls "$WORK")"
[ -f "$D/report.xlsx.tmp.999999999.0" ] && die "stale temporary of a dead process not swept"
[ -f "$D/report.xlsx.tmp.$live.0" ] || die "a live process's temporary was swept"
[ -f "$D/data.tmp.999999999.txt" ] || die "a file that is not a temporary of ours was swept"
kill $live
rm "$D/report.xlsx.tmp.$live.0" "$D/data.tmp.999999999.txt"
listing "$D" | cmp -s - "$WORK/old" || { listing "$D" | diff "$WORK/old" - | head; die "the same trace again: not the same files"; }
# two reports at once into one directory: one wins, the other is refused with exit 8
for i in 1 2 3 4; do
    "$TD" report "$A" -o "$D" >/dev/null 2>"$WORK/e1" & p1=$!
    "$TD" report "$B" -o "$D" >/dev/null 2>"$WORK/e2" & p2=$!
    wait $p1; r1=$?; wait $p2; r2=$?
    case "$r1 $r2" in
    "0 0") ;; # one finished before the other started
    "0 8") grep -qx "tracedoc: $D: busy: another tracedoc run is writing into this directory" "$WORK/e2" || die "busy message: $(cat "$WORK/e2")" ;;
    "8 0") grep -q "busy" "$WORK/e1" || die "busy message" ;;
    *) die "concurrent reports: exits $r1 $r2: $(cat "$WORK/e1" "$WORK/e2")" ;;
    esac
done
# held lock: refused at once with exit 8
flock -o "$D" sh -c 'echo $$ >"$1"; exec sleep 120' sh "$WORK/held" & h=$! # -o: only flock holds it
for i in $(seq 600); do [ -s "$WORK/held" ] && break; sleep 0.1; done # held, however loaded the machine
[ -s "$WORK/held" ] || die "flock did not take the lock"
expect_exit 8 "$TD" report "$A" -o "$D" 2>"$WORK/err" || exit 1
grep -q "busy" "$WORK/err" || die "no busy message"
kill "$(cat "$WORK/held")"; wait $h 2>/dev/null
"$TD" report "$A" -o "$D" || die "after the lock"
exit 0
