# The nightly detector's quality on annotated series (issue 41): bench/cpd/run.sh runs
# `tracedoc history --detect` (the detector `report --history` uses) over the shared
# Turing Change Point Dataset series, and TCPDBench's scorer (../shared/cpd/score.py, an
# independent implementation of the metrics) must give an F1 above the best published
# default method on them (binseg, 0.767). Also: `--detect` reads a series' `value` column,
# leaves missing values out (a change point is reported at its row), and names a bad
# file and line (exit 3).
. "$ROOT/tests/lib.sh"
CPD="$ROOT/../shared/cpd"
[ -f "$CPD/score.py" ] && [ -f "$CPD/data/series.csv" ] || { echo "../shared/cpd not found"; exit 77; }
t0=$(date +%s)
TRACEDOC="$TD" "$ROOT/bench/cpd/run.sh" "$CPD/data" "$WORK/pred.csv" || die "bench/cpd/run.sh failed"
t1=$(date +%s)
[ $((t1 - t0)) -lt 60 ] || die "the bench took $((t1 - t0)) s for $(($(wc -l <"$CPD/data/series.csv") - 1)) series"
$PY "$CPD/score.py" "$WORK/pred.csv" --data "$CPD/data" --json "$WORK/score.json" >"$WORK/score.txt" ||
    { cat "$WORK/score.txt"; die "score.py failed"; }
$PY - "$WORK/score.json" "$WORK/pred.csv" "$CPD/data/series.csv" <<'PY' || { cat "$WORK/score.txt"; die "score"; }
import csv, json, sys
s = json.load(open(sys.argv[1]))
ids = [r["id"] for r in csv.DictReader(open(sys.argv[3]))]
rows = [r for r in csv.reader(open(sys.argv[2]))]
assert all(len(r) == 2 for r in rows) and {r[0] for r in rows} == set(ids), rows[:3]
a = s["summary"]["all"]
assert a["n"] == len(ids), a
# the published default methods on these series (../shared/cpd/README.md): binseg 0.767,
# pelt 0.750, amoc 0.740, bocpd 0.718, none 0.700
assert a["f1"] > 0.767, a
assert a["precision"] > 0.8 and a["recall"] > 0.7, a
# a series with no change in any annotation gets none (a false alarm costs most)
assert s["series"]["tcpd/quality_control_5"]["n_pred"] == 0, s["series"]["tcpd/quality_control_5"]
PY
# --detect on a series made here: 12 points near 10, a missing value, 12 near 20 (TCPD's
# layout, index,value,time): the change is at row 13, the first point of the new level
$PY - "$WORK/s.csv" "$WORK/bad.csv" "$WORK/nocol.csv" <<'PY'
import sys
noise = [0.1, -0.2, 0.15, 0, -0.1, 0.2, -0.15, 0.05, 0.1, -0.05, 0, 0.12]
v = [10 + e for e in noise] + ["nan"] + [20 + e for e in noise]
open(sys.argv[1], "w").write("index,value,time\n" + "".join("%d,%s,\n" % (i, x) for i, x in enumerate(v)))
open(sys.argv[2], "w").write("value\n1\n2\nabc\n")
open(sys.argv[3], "w").write("a,b\n1,2\n")
PY
"$TD" history --detect "$WORK/s.csv" >"$WORK/cp" || die "--detect"
[ "$(cat "$WORK/cp")" = 13 ] || { cat "$WORK/cp"; die "--detect: expected the change at row 13"; }
expect_exit 3 "$TD" history --detect "$WORK/bad.csv" 2>"$WORK/err" || exit 1
grep -q 'bad.csv: line 4' "$WORK/err" || { cat "$WORK/err"; die "bad value not named"; }
expect_exit 3 "$TD" history --detect "$WORK/nocol.csv" 2>"$WORK/err" || exit 1
grep -q 'nocol.csv: line 1: no column `value`' "$WORK/err" || { cat "$WORK/err"; die "no value column"; }
exit 0
