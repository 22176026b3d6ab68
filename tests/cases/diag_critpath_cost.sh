# The critical path pass on an nsys export without steps (the whole trace is one window)
# must not dominate memory: on a 45 MB export (bench/mknsys.sh, 8,000 copies of the shared
# saxpy one: 496 K graph events) the peak RSS of `summary` stays within 1.25 times that of
# the reader alone (tests/test_read_dump). Measured (bench/README.md): reader 119 MB; summary
# 124 MB without the issue-24 passes, 165 MB with the first critical path pass (1.39x: it
# built the whole-trace graph twice and sorted two 32-byte records per CPU event), 139 MB
# now (1.17x). The critical path's output on that export is checked in diag_critpath.sh /
# the nsys golden; here only its cost. Release build only (ASan's memory is not comparable).
. "$ROOT/tests/lib.sh"
need_traces
case "${BUILD_KIND:-}" in *asan*) echo "release build only"; exit 77 ;; esac
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time"; exit 77; }
command -v sqlite3 >/dev/null || { echo "needs the sqlite3 CLI"; exit 77; }
NS=$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite
"$ROOT/bench/mknsys.sh" "$WORK/big.sqlite" 8000 "$NS" >/dev/null 2>&1 || die "mknsys"
RD=$(dirname "$TD")/tests/test_read_dump
[ -x "$RD" ] || die "$RD missing"
/usr/bin/time -f %M -o "$WORK/r.rss" "$RD" "$WORK/big.sqlite" >/dev/null 2>&1 || die "read"
/usr/bin/time -f %M -o "$WORK/s.rss" "$TD" summary --format json -o "$WORK/s.json" "$WORK/big.sqlite" \
    >/dev/null 2>"$WORK/s.err" || die "summary: $(cat "$WORK/s.err")"
grep -q '"critical_path"' "$WORK/s.json" || die "no critical_path table"
r=$(tail -n 1 "$WORK/r.rss") s=$(tail -n 1 "$WORK/s.rss")
echo "peak RSS: reader $r KiB, summary $s KiB"
[ $((s * 100)) -le $((r * 125)) ] || die "summary takes $s KiB, over 1.25 x the reader's $r KiB"
exit 0
