# Small inputs that expand (issue 42, "No small input makes memory explode"): each is made
# here (tests/gen/hostile.py: gzip members, xz and deflate of zeros, not committed) and
# each bound of io/bound.h is met: the part is skipped or cut with a warning that names
# it, or the run fails with exit 3 naming the file; the release build stays under 300 MiB
# of peak RSS on each (the ASan build checks the messages and exit statuses only).
# Before the bounds: the 128 MiB name took 730 MB and passed without a word, the events
# 181 MB, the gzipped SQLite 1 GB, the HLO dump 117 MB (2 GB of zeros: 1.06 GB), all
# silently but the SQLite.
. "$ROOT/tests/lib.sh"
G="$ROOT/tests/gen/hostile.py"
asan=0; case "${BUILD_KIND:-}" in *asan*) asan=1 ;; esac
gen() { # gen KIND N FILE [BASE]: made once per test run (tests/lib.sh once), copied to WORK
    local k=$1 n=$2 f=$3
    shift 3
    mk() { $PY "$G" "$k" "$n" "$ONCE/$f" "$@"; }
    once "bomb-$k-$n" mk "$@" && cp "$ONCE/$f" "$WORK/$f"
}
# run EXPECTED-EXIT NAME ARGS...: tracedoc ARGS under /usr/bin/time; its exit status must
# be EXPECTED-EXIT and (release build) its peak RSS under 300 MiB; stderr in WORK/err
run() {
    local want=$1 what=$2
    shift 2
    /usr/bin/time -f '%M %e' -o "$WORK/time" "$TD" "$@" >"$WORK/out" 2>"$WORK/err"
    local rc=$? kb s
    kb=$(tail -n 1 "$WORK/time" | cut -d' ' -f1)
    s=$(tail -n 1 "$WORK/time" | cut -d' ' -f2)
    echo "$what: exit $rc, $((kb / 1024)) MiB, $s s"
    [ "$rc" = "$want" ] || { cat "$WORK/err"; die "$what: exit $rc, expected $want"; }
    [ $asan = 1 ] || [ "$kb" -lt $((300 * 1024)) ] || die "$what: peak RSS $((kb / 1024)) MiB"
}
has() { grep -qF -- "$1" "$WORK/err" || { cat "$WORK/err"; die "no message: $1"; }; }

# one event whose name is 128 MiB of 'a' (0.13 MB of gzip), then an ordinary event: the
# large event is skipped with a warning, the other one read
gen strbomb 128 str.json.gz || die "generator"
run 0 "128 MiB name" summary --format json -o "$WORK/str.json" "$WORK/str.json.gz"
has "str.json.gz: byte 16 (uncompressed): an event larger than 64 MiB skipped (1 such events)"
checked $PY - "$WORK/str.json" <<'EOF' || die "the event after the skipped one"
import sys
txt = open(sys.argv[1]).read()
assert '"op"' in txt, "event 'op' not in the summary"
assert "aaaaaaaa" not in txt, "the skipped name is in the summary"
EOF

# names of 1 MiB (under the event bound): cut to their first 64 KiB, whole characters
# (the cut falls inside a 3-byte character here), with a warning
$PY - "$WORK/long.json" <<'EOF' || die "generator"
import json, sys
name = "b" * 65535 + "\u20ac" * 349526          # 65535 + 3 * 349526 bytes: 1.06 MiB
ev = [{"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": 1, "dur": 5},
      {"ph": "X", "cat": "cpu_op", "name": name + "x", "pid": 1, "tid": 1, "ts": 9, "dur": 5}]
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"), ensure_ascii=False)
EOF
run 0 "1 MiB names" summary --format json -o "$WORK/long.out.json" "$WORK/long.json"
has "long.json: 2 strings longer than 64 KiB cut to their first 64 KiB"
checked $PY - "$WORK/long.out.json" <<'EOF' || die "cut names"
import json, sys
def strings(v):
    if isinstance(v, str): yield v
    elif isinstance(v, dict):
        for k, x in v.items(): yield k; yield from strings(x)
    elif isinstance(v, list):
        for x in v: yield from strings(x)
s = [x for x in strings(json.load(open(sys.argv[1]))) if x.startswith("bbbb")]
assert s, "no cut name in the summary"
# 65535 'b' and no part of the euro sign (it would end at byte 65538)
assert all(x == "b" * 65535 for x in s), sorted(set(len(x) for x in s))
EOF

# 200 MiB of identical small events in 0.6 MB of gzip: refused once they hold 64 MiB
gen evbomb 200 ev.json.gz || die "generator"
run 3 "200 MiB of events" summary "$WORK/ev.json.gz"
grep -qE "ev.json.gz: byte [0-9]+ \(uncompressed\): the events read so far hold [0-9]+ MiB in memory, from the first [0-9]+ KiB of the input as stored \(more than 32 times that\): refused as a decompression bomb" "$WORK/err" ||
    { cat "$WORK/err"; die "events message"; }

# an SQLite header and 1 GiB of zeros in 1 MB of gzip (read whole): refused at 64 MiB
gen sqlitegz 1024 sq.gz || die "generator"
run 3 "gzipped 1 GiB SQLite" summary "$WORK/sq.gz"
has "sq.gz: decompresses to more than 64 MiB, from the first"
has "refused as a decompression bomb"
# the same as the member of a tar.gz: the archive as stored bounds its members
gen tarsqlite 256 ts.tar.gz || die "generator"
run 3 "tar.gz member of 256 MiB" summary "$WORK/ts.tar.gz"
has "ts.tar.gz:big.sqlite: decompresses to more than 64 MiB"

# an nsys-jax zip (0.1 MB) whose Parquet member inflates to 128 MiB of zeros
gen zipbomb 128 zb.zip || die "generator"
run 3 "zip member of 128 MiB" summary "$WORK/zb.zip"
has "zb.zip: member nvtx_gpu_proj_trace/trace.parquet: decompresses to more than 64 MiB, more than this 0.1 MiB archive may hold in memory: refused as a decompression bomb"

# its trace.parquet (43 bytes) says 10 M rows: a column would be 80-160 MB; 1,000 rows
# go on to the next check (the file holds no row groups)
gen pqrows 10000000 pq.zip || die "generator"
run 3 "Parquet of 10 M rows in 43 bytes" summary "$WORK/pq.zip"
has "pq.zip:nvtx_gpu_proj_trace/trace.parquet: 10000000 rows in 43 bytes: a column would hold more than 32 times the file's size in memory (at least 64 MiB): refused as a decompression bomb"
gen pqrows 1000 pq1k.zip || die "generator"
run 3 "Parquet of 1,000 rows in 43 bytes" summary "$WORK/pq1k.zip"
has "row groups hold 0 rows, footer says 1000"

if [ -n "${TRACES:-}" ] && [ -f "$TRACES/nsys-jax/pax_fsdp4_4proc_proc0.zip" ]; then
    # the step function's HLO dump replaced by an xz of 96 MiB of zeros (the 2.3 MB
    # archive may hold 76 MiB): skipped with a warning, the rest of the archive read
    gen hlobomb 96 hlo.zip "$TRACES/nsys-jax/pax_fsdp4_4proc_proc0.zip" || die "generator"
    run 0 "HLO dump of 96 MiB" summary "$WORK/hlo.zip"
    has "hlo.zip: member dump/module_0040.pjit__wrapped_step_fn.sm_8.0_gpu_after_optimizations.hlo.pb.xz: decompresses to 96 MiB, more than this 2.3 MiB archive may hold in memory: skipped (no message sizes from program 40)"
fi
if [ -n "${TRACES:-}" ] && [ -f "$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite" ]; then
    # a kernel table that is a view is not read, and the run says so
    gen nsysview 0 view.sqlite "$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite" || die "generator"
    run 0 "kernel table as a view" summary "$WORK/view.sqlite"
    has "view.sqlite: CUPTI_ACTIVITY_KIND_KERNEL is a view, not an ordinary table: not read (its rows are missing from the report)"
fi
exit 0
