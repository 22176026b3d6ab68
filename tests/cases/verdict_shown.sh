# Issue 38 §3: a regression exit shows the regression. `report --baseline` with the default
# (bug-report) template exits 1 and its PDF lists what it judged (the regressed and
# improved rows, named, before and after in units) in a section the checklist points to;
# the workbook has a Changes sheet. Against a NOT COMPARABLE baseline the checklist points
# to no regression section. A change from a near-zero baseline is given as before -> after
# ("2.00 MiB -> 18.50 GiB"), never as a percentage (doc/nightly.md "Percentages").
# Expected values: the step times from the traces' ProfilerStep events (DLRM rank 1 against
# rank 0, one step each), the memory peaks from the edited summaries.
. "$ROOT/tests/lib.sh"
need_traces
command -v pdftotext >/dev/null || { echo "no poppler"; exit 77; }
cd "$WORK" || exit 1
K=$TRACES/kineto
tar xzf "$K/param_dlrm_8ranks.tar.gz" --wildcards 'dlrm_kineto/worker0_*' 'dlrm_kineto/worker1_*' || die untar
r0=$(ls dlrm_kineto/worker0_*); r1=$(ls dlrm_kineto/worker1_*)
"$TD" report "$r0" -o base --format json 2>/dev/null || die "base report"
"$TD" report "$r1" --baseline base/summary.json -o cur >cur.out 2>cur.err; rc=$?
[ $rc = 1 ] || die "report --baseline: exit $rc (want 1): $(cat cur.err)"
pdftotext -layout cur/report.pdf cur.txt || die pdftotext
$PY - "$r0" "$r1" cur/summary.json cur.txt cur/report.xlsx <<'PYEOF' || exit 1
import json, re, sys, openpyxl
def step_ms(path):
    d = json.load(open(path))
    st = [e for e in d["traceEvents"] if e.get("ph") == "X" and
          e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")]
    assert len(st) == 1, len(st)
    return "%.3f ms" % (st[0]["dur"] / 1000.0)
b, a = step_ms(sys.argv[1]), step_ms(sys.argv[2])
s = json.load(open(sys.argv[3]))
txt = open(sys.argv[4]).read()
m = re.search(r"REGRESSED: (\d+) metrics? regressed", s["verdict"])
assert m, s["verdict"]
nreg = int(m.group(1))
listed = [r for r in s["changes"] if r["direction"] in ("regressed", "improved")]
assert sum(r["direction"] == "regressed" for r in listed) == nreg, listed
# the PDF: a section that lists them, each row named, the step time in ms as the trace has it
assert "Changes against the baseline" in txt, "no changes section in the bug-report PDF"
sec = txt[txt.index("Changes against the baseline"):]
for r in listed:
    assert r["name"][:30] in sec, ("not listed in the PDF", r["name"])
row = [l for l in sec.splitlines() if l.strip().startswith("Step time (median")]
assert row and b in row[0] and a in row[0] and "regressed" in row[0], (row, b, a)
assert len(re.findall(r"\bregressed\b", sec.split("Key figures")[0])) >= nreg, sec[:2000]
# the checklist points to that section
ck = " ".join(txt[txt.rindex("For a regression"):].split())
assert "Changes against the baseline" in ck and "regression section" not in ck, ck[:300]
# the workbook: a Changes sheet with the same rows, before and after in units
wb = openpyxl.load_workbook(sys.argv[5])
assert "Changes" in wb.sheetnames, wb.sheetnames
rows = list(wb["Changes"].iter_rows(values_only=True))
head = rows[0]
names = [x[0] for x in rows[1:]]
for r in listed:
    assert r["name"] in names, (r["name"], names)
i = names.index("Step time (median of the steady steps)") + 1
cells = [str(c) for c in rows[i]]
assert b in cells and a in cells, (cells, b, a)
PYEOF
# NOT COMPARABLE: an AMD single-rank trace against the V100 rank
"$TD" report "$K/hta_mi250_minitoy.json.gz" --baseline base/summary.json -o nc >/dev/null 2>&1; rc=$?
[ $rc = 6 ] || die "not comparable: exit $rc (want 6)"
pdftotext nc/report.pdf nc.txt || die pdftotext
grep -qi "regression section\|listed in the section" nc.txt && die "NOT COMPARABLE: the PDF's checklist points to a regression section"
$PY - nc/summary.json <<'PYEOF' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
it = [r for r in s["checklist"] if r["item"].startswith("For a regression")][0]
# not ticked (the PDF draws ticked items only; stderr tells the author what to add)
assert not it["ok"] and "not comparable" in it["detail"] and "device type" in it["detail"], it
PYEOF
# floors: a CPU peak of 2 MiB before, 18.5 GiB after (summaries of the V100 trace, edited)
"$TD" report "$K/tbplugin_resnet50_v100_oldformat.json.gz" -o v --format json 2>/dev/null || die "v100"
$PY - v/summary.json <<'PYEOF' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
cpu = [r for r in d["memory"] if r["device"] == "cpu"][0]
gpu = [r for r in d["memory"] if r["device"] != "cpu"][0]
cpu["peak_allocated_bytes"] = 2 * 2**20
json.dump(d, open("mb.json", "w"))
cpu["peak_allocated_bytes"] = int(18.5 * 2**30)
gpu["peak_allocated_bytes"] = int(gpu["peak_allocated_bytes"] * 1.25)   # +25.0%: a percentage
json.dump(d, open("mc.json", "w"))
PYEOF
"$TD" diff mb.json mc.json -o md >md.out 2>/dev/null; rc=$?
[ $rc = 1 ] || die "floors: exit $rc (want 1)"
$PY - md.out md/summary.json md/report.md md/junit.xml <<'PYEOF' || exit 1
import json, re, sys
out, md, ju = (open(p).read() for p in (sys.argv[1], sys.argv[3], sys.argv[4]))
s = json.load(open(sys.argv[2]))
ch = {r["metric"]: r for r in s["changes"]}
cpu = ch["memory.peak_allocated_bytes:cpu"]
assert cpu["direction"] == "regressed" and cpu["change"] is None, cpu
gpu = [r for k, r in ch.items() if k.startswith("memory.peak_allocated_bytes:") and k != "memory.peak_allocated_bytes:cpu"][0]
assert abs(gpu["change"] - 0.25) < 1e-3, gpu
for name, t in (("stdout", out), ("summary.json", json.dumps(s)), ("report.md", md), ("junit.xml", ju)):
    big = [p for p in re.findall(r"[+-]?[\d,]+(?:\.\d+)?%", t) if abs(float(p.rstrip("%").replace(",", ""))) >= 10000]
    assert not big, (name, big)
assert "2.00 MiB -> 18.50 GiB" in s["verdict"] or "+25.0%" in s["verdict"], s["verdict"]
assert "2.00 MiB" in out and "18.50 GiB" in out and "+25.0%" in out, out
PYEOF
exit 0
