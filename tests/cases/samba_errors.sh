# SambaTune stack tracing: inconsistent, damaged and hostile artifact sets. Each bad set
# must exit 3 with a message naming the file and the line (never crash, never write a
# half report); hostile names must come out as valid JSON and PDF text.
. "$ROOT/tests/lib.sh"
base() { # a good set in $1
    mkdir -p "$1"
    printf 'hypersection,hyperfunction,tflop,est_pmus,est_pcus,est_latency_us\na,f,0.1,1,1,10\nb,g,0.2,2,2,20\n' >"$1/l1.csv"
    printf 'hypersection,global_id\na,1\nb,2\n' >"$1/ids.csv"
    printf 'call,global_id\n0,1\n1,2\n2,1\n' >"$1/sched.csv"
}
# bad NAME FILE CONTENT PATTERN: replace FILE in a good set, expect exit 3 and PATTERN
bad() {
    local name=$1 file=$2 content=$3 pat=$4 d="$WORK/$1"
    base "$d"
    printf "$content" >"$d/$file"
    "$TD" stack-trace "$d" -o "$WORK/$name.json" >/dev/null 2>"$WORK/err"; local rc=$?
    [ "$rc" = 3 ] || { cat "$WORK/err"; die "$name: exit $rc, expected 3"; }
    grep -q -- "$pat" "$WORK/err" || { cat "$WORK/err"; die "$name: message does not match '$pat'"; }
    [ ! -e "$WORK/$name.json" ] || die "$name: an output was written"
    ls "$WORK" | grep -q "$name.json.tmp" && die "$name: temporary file left"
    return 0
}
bad unknown_id sched.csv 'call,global_id\n0,1\n1,7\n' "sched.csv: line 3: section call to unknown hypersection id 7"
bad no_hf_l2 ids.csv 'hypersection,global_id\na,1\nb,2\nc,3\n' "ids.csv: line 4: hypersection 'c' has no hyperfunction"
bad no_hf_l1 l1.csv 'hypersection,hyperfunction,tflop,est_pmus,est_pcus,est_latency_us\na,,0.1,1,1,10\n' "l1.csv: line 2: hypersection 'a' has no hyperfunction"
bad negative l1.csv 'hypersection,hyperfunction,tflop,est_pmus,est_pcus,est_latency_us\na,f,0.1,1,1,10\nb,g,0.2,2,2,-5\n' "l1.csv: line 3: negative latency"
bad neg_l4 l4.csv 'hypersection,measured_latency_us,avg_ddr_request_bytes,ddr_bw_gbps,pcie_bw_gbps,tflop_utilization\n# comment\na,-1.5,64,1,1,0.5\n' "l4.csv: line 3: negative latency"
bad util l4.csv 'hypersection,measured_latency_us,avg_ddr_request_bytes,ddr_bw_gbps,pcie_bw_gbps,tflop_utilization\na,1,64,1,1,45\n' "l4.csv: line 2: column 'tflop_utilization': expected a fraction"
bad l4_unknown l4.csv 'hypersection,measured_latency_us,avg_ddr_request_bytes,ddr_bw_gbps,pcie_bw_gbps,tflop_utilization\nzz,1,64,1,1,0.5\n' "l4.csv: line 2: unknown hypersection 'zz'"
bad fields sched.csv 'call,global_id\n0,1\n1,2,3\n' "sched.csv: line 3: 3 fields, the header has 2"
bad order sched.csv 'call,global_id\n0,1\n2,2\n' "sched.csv: line 3: call 2 out of order"
bad quote ids.csv 'hypersection,global_id\na,1\n"b,2\n' "ids.csv: line 3: quoted field not closed"
bad number l1.csv 'hypersection,hyperfunction,tflop,est_pmus,est_pcus,est_latency_us\na,f,x1,1,1,10\n' "l1.csv: line 2: column 'tflop': expected a number"
bad dup_gid ids.csv 'hypersection,global_id\na,1\nb,1\n' "ids.csv: global id 1 is given to both"
bad dup_hs l1.csv 'hypersection,hyperfunction,tflop,est_pmus,est_pcus,est_latency_us\na,f,0.1,1,1,10\na,f,0.1,1,1,10\n' "l1.csv: line 3: hypersection 'a' listed twice"
bad second_l1 l1b.csv 'hypersection,hyperfunction,tflop,est_pmus,est_pcus,est_latency_us\na,f,0.1,1,1,10\n' "a second layer-1 file"
bad missing_col l3.csv 'hypersection,final_pmus,final_pcus,min_latency_us\na,1,1,1\n' "l3.csv: line 1: layer-3 file without column 'max_latency_us'"
bad minmax l3.csv 'hypersection,final_pmus,final_pcus,min_latency_us,max_latency_us\na,1,1,9,3\n' "l3.csv: line 2: min_latency_us is above max_latency_us"
bad huge_us l1.csv 'hypersection,hyperfunction,tflop,est_pmus,est_pcus,est_latency_us\na,f,0.1,1,1,99999999999999999999999\n' "l1.csv: line 2: column 'est_latency_us': expected a time"
bad nul ids.csv 'hypersection,global_id\na,1\nb\0,2\n' "ids.csv: line 3: NUL byte"

# a schedule without the id map: the layer that would resolve it is missing
d="$WORK/noids"; base "$d"; rm "$d/ids.csv"
"$TD" summary "$d" >/dev/null 2>"$WORK/err"; [ $? = 3 ] || die "schedule without ids: exit"
grep -q "sched.csv: line 2: section call to global id 1, but no layer-2 id map" "$WORK/err" || { cat "$WORK/err"; die "noids message"; }

# layers may be missing: layer 1 alone is a report (no calls), and says what it lacks
d="$WORK/only1"; base "$d"; rm "$d/ids.csv" "$d/sched.csv"
"$TD" summary --format json "$d" >"$WORK/o.json" 2>/dev/null || die "layer 1 alone failed"
$PY - "$WORK/o.json" <<'EOF' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
m = s["samba"]["missing"]
for w in ("schedule (layer 2) is missing", "Layer 3 is missing", "Layer 4 is missing", "No host breakdown"):
    assert w in m, (w, m)
assert s["hypersections"][0]["calls"] is None and s["hyperfunctions"][0]["total_ns"] is None
EOF
"$TD" report "$d" -o "$WORK/only1rep" --format pdf,json || die "report of layer 1 alone"

# hostile names: quotes, markup, a newline, invalid UTF-8, a formula, long names
d="$WORK/hostile"; mkdir -p "$d"
printf 'hypersection,hyperfunction,tflop,est_pmus,est_pcus,est_latency_us\n"<b>""x""</b>&",=SUM(A1),0.1,1,1,10\n"two\nlines;semi",\xff\xfe bad utf8,0.1,1,1,20\n%s,h,0.1,1,1,5\n' "$(head -c 3000 /dev/zero | tr '\0' n)" >"$d/l1.csv"
printf 'hypersection,global_id\n"<b>""x""</b>&",1\n"two\nlines;semi",2\n%s,3\n' "$(head -c 3000 /dev/zero | tr '\0' n)" >"$d/ids.csv"
printf 'call,global_id\n0,1\n1,2\n2,3\n3,1\n' >"$d/sched.csv"
"$TD" stack-trace "$d" -o "$WORK/h_chrome_tracing_report.json" || die "hostile stack-trace"
$PY -c "import json,sys; d=json.load(open(sys.argv[1])); assert any(e.get('name')=='<b>\"x\"</b>&' for e in d['traceEvents'])" "$WORK/h_chrome_tracing_report.json" || die "hostile JSON"
"$TD" summary --format json "$WORK/h_chrome_tracing_report.json" >/dev/null || die "hostile read back"
"$TD" report "$d" -o "$WORK/hrep" || die "hostile report"
qpdf --check "$WORK/hrep/report.pdf" >/dev/null || die "hostile PDF fails qpdf"
$PY "$ROOT/tests/xlsx_dump.py" "$WORK/hrep/report.xlsx" --check >/dev/null || die "hostile workbook"
grep -q "two lines:semi" "$WORK/hrep/sections.folded" || die "folded names not cleaned"

# damaged: a truncated report, a truncated tar.gz, empty files, garbage with a header
base "$WORK/good"
"$TD" stack-trace "$WORK/good" -o "$WORK/good_chrome_tracing_report.json" || die "good"
sz=$(stat -c %s "$WORK/good_chrome_tracing_report.json")
head -c $((sz / 2)) "$WORK/good_chrome_tracing_report.json" >"$WORK/cut.json"
"$TD" summary "$WORK/cut.json" >/dev/null 2>"$WORK/err"; [ $? = 3 ] || die "truncated report: exit"
grep -q "cut.json: line [0-9]*, column [0-9]*" "$WORK/err" || { cat "$WORK/err"; die "truncated report message"; }
tar -C "$WORK/good" -czf "$WORK/good.tar.gz" .
head -c 100 "$WORK/good.tar.gz" >"$WORK/cut.tar.gz"
"$TD" summary "$WORK/cut.tar.gz" >/dev/null 2>"$WORK/err"; rc=$?
[ "$rc" = 3 ] || { cat "$WORK/err"; die "truncated tar.gz: exit $rc"; }
grep -q "cut.tar.gz" "$WORK/err" || die "truncated tar.gz: no file name"
: >"$WORK/good/empty.csv"   # an empty file in the directory is skipped
"$TD" summary "$WORK/good" >/dev/null || die "empty file in the set"
# not stack-tracing data
"$TD" stack-trace "$ROOT/examples" -o "$WORK/x_chrome_tracing_report.json" >/dev/null 2>"$WORK/err"; rc=$?
[ "$rc" = 3 ] && grep -q "no stack-tracing data" "$WORK/err" || { cat "$WORK/err"; die "stack-trace of a Kineto trace: exit $rc"; }
# a large schedule (100k calls) is quick and bounded
d="$WORK/big"; base "$d"
$PY -c "
import sys
with open(sys.argv[1], 'w') as f:
    f.write('call,global_id\n')
    for i in range(100000): f.write('%d,%d\n' % (i, 1 + i % 2))" "$d/sched.csv"
"$TD" summary --format json "$d" | $PY -c "import json,sys; s=json.load(sys.stdin); assert s['samba']['section_calls']==100000" || die "big schedule"
exit 0
