# AIU flex reader edge cases on small hand-made traces (expected values computed by hand
# from formats.md sec. 9): counter wrap, hex and decimal counters, unsigned 64-bit tids,
# out-of-order events, duplicated pairs, several pids, truncated and damaged files, the
# --aiu-freq warning, and the compile log of acelyzer's unit test (dt_cycles_table.log).
. "$ROOT/tests/lib.sh"
need_traces
$PY - "$WORK" <<'PY'
import json, sys
w = sys.argv[1]
def pair(name, pid, tid, b, e, ts, **extra):
    attr = {"TS%d" % (i + 1): v for i, v in enumerate(ts)}; attr.update(extra)
    return [{"attr": attr, "name": name, "ph": "B", "pid": pid, "tid": tid, "ts": b},
            {"attr": attr, "name": name, "ph": "E", "pid": pid, "tid": tid, "ts": e}]
ev = []
# pid 0: TS3 0xffffff00 -> TS4 256 wraps: 512 cycles; at 512 MHz that is 1.000 us
ev += pair("k_1 Cmpt Exec", 0, 18446744073709551615, 1000.0, 1001.0,
           ["0xfffffe00", "0xffffff00", "0xffffff00", "256", "300"])
# pid 0: 1024 cycles (hex) = 2 us, listed before an earlier event (out of order)
ev = pair("k_2 Cmpt Exec", 0, 18446744073709551615, 1010.0, 1012.0,
          ["0x10", "0x10", "0x100", "0x500", "0x500"]) + ev
# duplicated pair, counted once
ev += pair("k_2 Cmpt Exec", 0, 18446744073709551615, 1010.0, 1012.0,
           ["0x10", "0x10", "0x100", "0x500", "0x500"])
# pid 7: one DmaI of 4096 bytes, TS1->TS2 = 256 cycles = 0.5 us; a Prep, an Exec
ev += pair("load DmaI", 7, 5, 2000.0, 2000.5, ["1000", "1256", "1256", "1256", "1256"], Bytes="4096")
ev += pair("p Cmpt Prep", 7, 6, 2001.0, 2002.0, ["0", "0", "512", "512", "512"])
ev += pair("q Cmpt Exec", 7, 9, 2003.0, 2004.0, ["0", "0", "0", "512", "512"])
json.dump(ev, open(w + "/edge.json", "w"))
s = json.dumps(ev)
open(w + "/trunc.json", "w").write(s[: s.rindex('{"attr"') + 40])   # cut inside the last event
open(w + "/bad.json", "w").write(s.replace('"ph": "E"', '"ph" "E"', 1))
open(w + "/unpaired.json", "w").write(json.dumps(ev[:-1]))
# kernels of acelyzer's dt_cycles_table.log, 100 us each at 1000 MHz
k = []
for i, n in enumerate(["addmm_MatMul-BMM_1", "addmm_1_MatMul-BMM_1", "bmm-BMM_1", "sub", "nothere"]):
    k += pair(n + " Cmpt Exec", 0, 1, 100.0 * i, 100.0 * i + 100, ["0", "0", "0", str(100000), "100000"])
json.dump(k, open(w + "/dt.json", "w"))
PY
"$TD" summary --format json --aiu-freq 512:800 "$WORK/edge.json" >"$WORK/e.json" 2>"$WORK/e.err" ||
    die "summary edge"
grep -q "1 duplicated" "$WORK/e.err" || die "duplicate not reported"
$PY - "$WORK/e.json" <<'PY' || die "edge values"
import json, sys
s = json.load(open(sys.argv[1]))
k = {(r["device"], r["name"]): r for r in s["aiu_kernels"]}
assert k[(0, "k_[N]")]["calls"] == 2, k
assert k[(0, "k_[N]")]["min_ns"] == 1000 and k[(0, "k_[N]")]["max_ns"] == 2000, k  # wrap, hex
assert k[(7, "q")]["total_ns"] == 1000, k
d = {r["device"]: r for r in s["aiu_devices"]}
assert sorted(d) == [0, 7], d
# device 0: kernels end at host E: [1000,1001] and [1010,1012] us: span 12 us, busy 3 us
assert d[0]["span_ns"] == 12000 and d[0]["kernel_ns"] == 3000, d[0]
x = s["aiu_transfers"][0]
assert (x["device"], x["kind"], x["bytes"], x["total_ns"]) == (7, "data_in", 4096, 500), x
assert abs(x["gbps"] - 4096 / 500) < 1e-6, x
assert d[7]["prep_max_depth"] == 1, d[7]
assert s["trace"]["devices"] == 2
# implied clock: 512 cycles/1 us, 1024/2 us (device 0); 512/1 us (device 7)
assert abs(s["aiu"]["implied_soc_mhz"] - 512) < 1e-6, s["aiu"]
PY
# the frequency warning names both clocks
"$TD" summary --format json --aiu-freq 600 "$WORK/edge.json" 2>/dev/null | grep -q "600.000 MHz is more than 10% away from the 512.000 MHz" ||
    die "no --aiu-freq warning"
"$TD" summary --format json --aiu-freq 560 "$WORK/edge.json" 2>/dev/null | grep -q "more than 10% away" &&
    die "warning within 10%"
# truncated: the events before the cut are kept, with a warning naming the byte
"$TD" summary "$WORK/trunc.json" >/dev/null 2>"$WORK/t.err" || die "truncated file refused"
grep -q "truncated" "$WORK/t.err" || die "no truncation warning"
# unpaired B: warned
"$TD" summary "$WORK/unpaired.json" >/dev/null 2>"$WORK/u.err" || die "unpaired refused"
grep -q "1 B events without their E" "$WORK/u.err" || die "no unpaired warning"
# damaged: exit 3 naming the file and byte
expect_exit 3 "$TD" summary "$WORK/bad.json" 2>"$WORK/b.err" >/dev/null || exit 1
grep -q "bad.json: byte [0-9]*: expected ':'" "$WORK/b.err" || die "bad message: $(cat "$WORK/b.err")"
# compile log without a table: exit 3 naming it
printf '[DeepRT] nothing here\n' >"$WORK/empty.log"
expect_exit 3 "$TD" summary --compile-log "$WORK/empty.log" "$WORK/edge.json" 2>"$WORK/c.err" >/dev/null || exit 1
grep -q "empty.log: no DeepRT Perf Summary table" "$WORK/c.err" || die "complog message"
expect_exit 2 "$TD" summary --aiu-freq 0:800 "$WORK/edge.json" 2>/dev/null || exit 1
expect_exit 2 "$TD" summary --aiu-freq 560:x "$WORK/edge.json" 2>/dev/null || exit 1
# dt_cycles_table.log: acelyzer's unit test reads 27648, 27648, 12288 ideal cycles
# (category Bmm_fp16); sub has 0 cycles (Broadcast); an unknown kernel goes to "other"
"$TD" summary --format json --aiu-freq 1000:800 --compile-log "$TRACES/aiu/dt_cycles_table.log" \
    "$WORK/dt.json" >"$WORK/dt.out" 2>/dev/null || die "dt summary"
$PY - "$WORK/dt.out" <<'PY' || die "dt_cycles_table values"
import json, sys
s = json.load(open(sys.argv[1]))
c = {r["category"]: r for r in s["aiu_categories"]}
assert c["Bmm_fp16"]["ideal_cycles"] == 27648 * 2 + 12288 and c["Bmm_fp16"]["calls"] == 3, c
assert c["Bmm_fp16"]["ideal_ns"] == round((27648 * 2 + 12288) / 0.8), c["Bmm_fp16"]
assert c["Broadcast"]["calls"] == 1 and c["Broadcast"]["ideal_cycles"] == 0, c
assert c["other"]["calls"] == 1, c
assert c["Total"]["calls"] == 5 and abs(c["Total"]["pt_util"] - (67584 / 0.8) / 500000) < 1e-6, c
assert "Total" == s["aiu_categories"][-1]["category"]
PY
exit 0
