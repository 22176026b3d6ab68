# One judgement (issue 21): `changes` is the only verdict any output shows. Not comparable
# runs (an 8-rank job against a 1-rank V100 run: device and world size differ, read from
# the traces' metadata) judge no metric anywhere: no changes rows, no "regressed" word on
# stdout, no tolerance table or "regressed by more than" finding in the PDF, workbook,
# report.md or junit.xml; exit 6. Comparable runs (DLRM rank 1 against rank 0): the
# findings' regressed count equals the verdict's and the workbook has no second table.
. "$ROOT/tests/lib.sh"
need_traces
command -v pdftotext >/dev/null || { echo "no poppler"; exit 77; }
cd "$WORK" || exit 1
K="$TRACES/kineto"
J="$K/param_dlrm_8ranks.tar.gz"; V="$K/tbplugin_resnet50_v100_oldformat.json.gz"
"$TD" diff "$J" "$V" -o nc >nc.out 2>nc.err; rc=$?
[ $rc = 6 ] || die "not comparable: exit $rc (want 6)"
grep -q "^NOT COMPARABLE" nc.out || die "no NOT COMPARABLE verdict"
grep -qi "regressed\|improved\|Regression against" nc.out && die "a metric judged on stdout: $(cat nc.out)"
grep -q "^Changes" nc.out && die "a changes table when nothing was compared"
[ -e nc/regression.csv ] && die "regression.csv written when nothing was compared"
for f in nc/report.md nc/junit.xml; do
    grep -qi "regressed by more\|regression against\|type=\"regressed" "$f" && die "$f judges a metric"
done
# junit: the one failing case says what differs, no metric case
[ "$(grep -c '<testcase' nc/junit.xml)" = 1 ] && grep -q 'name="comparability"' nc/junit.xml ||
    die "junit.xml: metric cases when nothing was compared"
# the nightly PDF and workbook against the same not-comparable baseline
"$TD" report "$J" -o bj --format json 2>/dev/null || die "report json"
cp bj/summary.json base.json
"$TD" report "$V" --template nightly --baseline base.json -o rn --format pdf,xlsx,md,junit 2>/dev/null; rc=$?
[ $rc = 6 ] || die "report --baseline not comparable: exit $rc (want 6)"
pdftotext "$(ls rn/*.pdf | head -1)" rn.txt || die pdftotext
grep -q "NOT COMPARABLE" rn.txt || die "nightly PDF: no verdict"
grep -qi "regressed by more\|Regression against the baseline" rn.txt && die "nightly PDF: tolerance judgement"
grep -Eqi "[0-9]+ metrics? regressed" rn.txt && die "nightly PDF: metrics judged when not comparable"
$PY - rn <<'PYEOF' || exit 1
import sys, os, glob, openpyxl
d = sys.argv[1]
x = glob.glob(os.path.join(d, "*.xlsx"))
assert x, os.listdir(d)
wb = openpyxl.load_workbook(x[0])
assert "Regression against the baseline" not in wb.sheetnames, wb.sheetnames
assert "Changes" not in wb.sheetnames, wb.sheetnames
for ws in wb:
    for row in ws.iter_rows(values_only=True):
        for v in row:
            if isinstance(v, str) and ("regressed by more" in v or v == "regressed"):
                sys.exit("workbook %s judges a metric: %r" % (ws.title, v))
PYEOF

# comparable: DLRM rank 1 against rank 0 (two members of the job's archive)
tar xzf "$J" --wildcards 'dlrm_kineto/worker0_*' 'dlrm_kineto/worker1_*' || die untar
r0=$(ls dlrm_kineto/worker0_*); r1=$(ls dlrm_kineto/worker1_*)
"$TD" diff "$r0" "$r1" -o dc >dc.out 2>/dev/null; rc=$?
[ $rc = 1 ] || die "dlrm: exit $rc (want 1)"
$PY - dc/summary.json dc.out <<'PYEOF' || exit 1
import json, re, sys
s = json.load(open(sys.argv[1]))
out = open(sys.argv[2]).read()
v = s["verdict"]
m = re.match(r"REGRESSED: (\d+) metrics? regressed", v)
assert m, v
n = int(m.group(1))
ch = [r for r in s["changes"] if r["direction"] == "regressed"]
assert len(ch) == n, (len(ch), n)
found = [f for f in s["findings"] if re.search(r"\d+ metrics? regressed", json.dumps(f))]
assert len(found) == 1, found            # one finding, the verdict's
assert str(n) + " metric" in json.dumps(found[0]), (found, v)
assert "metrics" not in s["regression"], "tolerance table still in summary.json"
assert s["regression"]["regressed"] == n, (s["regression"], n)
assert "regressed by more" not in out and "Regression against" not in out, out
PYEOF
# named for people, readable units, step time first, no `since` without a history
$PY - dc.out <<'PYEOF' || exit 1
import re, sys
out = open(sys.argv[1]).read()
lines = out.splitlines()
assert lines[0] == "Changes" and lines[2].startswith("Step time (median of the steady steps)"), out
assert "GPU exposed communication" in out, out
assert not re.search(r"\b(gpu|step|kernel|op)\.[a-z_]+_ns", out), "a key on stdout: " + out
assert not re.search(r"\d{6,}(\.\d+)? ns", out), "raw ns on stdout: " + out
assert "14.455 ms" in out and "19.901 ms" in out, out
assert "since" not in out, "since without a history: " + out
PYEOF
grep -q '| Step time (median of the steady steps) |\|Step time (median of the steady steps)' dc/report.md || die "report.md: no reader's name"
grep -q 'gpu.exposed_comm_ns' dc/report.md && die "report.md: a key"

exit 0
