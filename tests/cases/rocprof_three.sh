# The three readings of one rocprofv3 run (issue 39): JSON, the CSV set and the rocpd SQLite
# database give the same summary.json (every key but the inputs' paths, sizes and digests).
# No public CSV set or rocpd database exists: tests/gen/rocprof_convert.py makes them from
# the JSON (SYNTHETIC, labelled so in the database's rocpd_metadata and the file names),
# with rocprofv3's CSV columns and the published rocpd schema (../shared/docs/rocprof), for
# the shared MI350X sample and the hand-made small file (HIP launches, ROCTx steps, a copy).
# Also: a directory of CSV files of two processes is two ranks; two JSON files are two ranks
# of one job and `summarize` + `merge` of them gives the same kernel table; damaged CSV and
# database inputs fail with the file and line (exit 3).
. "$ROOT/tests/lib.sh"
need_traces
T=$TRACES/rocprof/908_results.json.gz
[ -f "$T" ] || { echo "rocprof sample missing"; exit 77; }
DOCS=$TRACES/../docs/rocprof
gen() {
    mkdir -p "$ONCE/908" "$ONCE/small" &&
        ROCPROF_DOCS=$DOCS $PY "$ROOT/tests/gen/rocprof_convert.py" "$T" "$ONCE/908" &&
        $PY "$ROOT/tests/gen/rocprof_small.py" "$ONCE/small" &&
        ROCPROF_DOCS=$DOCS $PY "$ROOT/tests/gen/rocprof_convert.py" "$ONCE/small/small.json" "$ONCE/small"
}
once rocprof_convert gen || die "generator"
for s in 908 small; do
    mkdir -p "$WORK/csv$s" && cp "$ONCE/$s"/*.csv "$WORK/csv$s/" || die "csv $s"
done
"$TD" summary --format json "$T" >"$WORK/j908.json" || die "json 908"
"$TD" summary --format json "$WORK/csv908" >"$WORK/c908.json" || die "csv 908"
"$TD" summary --format json "$ONCE/908/synthetic908_results.db" >"$WORK/d908.json" || die "rocpd 908"
"$TD" summary --format json "$ONCE/small/small.json" >"$WORK/jsmall.json" || die "json small"
"$TD" summary --format json "$WORK/csvsmall" >"$WORK/csmall.json" || die "csv small"
gzip -c "$ONCE/small/synthetic4242_results.db" >"$WORK/small.db.gz"
"$TD" summary --format json "$WORK/small.db.gz" >"$WORK/dsmall.json" || die "rocpd small (gzip, read in memory)"
$PY - "$WORK" <<'EOF' || die "the three readings differ"
import json, sys
w = sys.argv[1]
for s, nk in (("908", 44), ("small", 1)):
    j, c, d = (json.load(open(f"{w}/{x}{s}.json")) for x in "jcd")
    assert [i["format"] for i in (j["inputs"][0], c["inputs"][0], d["inputs"][0])] == \
        ["rocprof-json", "rocprof-csv", "rocpd"], s
    assert len(j["kernels"]) == nk, (s, len(j["kernels"]))
    for name, o in (("csv", c), ("rocpd", d)):
        diff = [k for k in j if k not in ("inputs", "inputs_label") and j[k] != o.get(k)]
        assert not diff, (s, name, diff)
    print(s, "JSON = CSV = rocpd:", len(j), "keys;", sum(k["calls"] for k in j["kernels"]), "kernels")
small = json.load(open(f"{w}/jsmall.json"))
assert small["launches"][0]["launches"] == 7 and len(small["steps"]) == 3, small["launches"]
EOF
sqlite3 "$ONCE/908/synthetic908_results.db" "SELECT value FROM rocpd_metadata WHERE tag = 'synthetic'" |
    grep -q "rocprof_convert.py" || die "the database is not labelled synthetic"

# two processes' CSV files in one directory: two ranks
mkdir -p "$WORK/two"
cp "$WORK"/csvsmall/*.csv "$WORK/two/"
for f in "$WORK"/csvsmall/*.csv; do
    b=$(basename "$f"); sed 's/^\(HIP_RUNTIME_API\|MARKER_CORE_API\),\([^,]*\),4242,/\1,\2,4243,/' "$f" >"$WORK/two/${b/4242/4243}"
done
"$TD" summary --format json "$WORK/two" >"$WORK/two.json" || die "two prefixes"
$PY - "$WORK/two.json" <<'EOF' || die "two prefixes: ranks"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["trace"]["ranks"] == 2 and [k["calls"] for k in d["kernels"]] == [12], (d["trace"], d["kernels"])
assert [i["path"].rsplit("/", 1)[1] for i in d["inputs"]] == ["synthetic4242_*.csv", "synthetic4243_*.csv"], d["inputs"]
EOF
# two JSON files: ranks of one job; summarize + merge gives the kernel table of reading both
sed 's/"pid": 4242/"pid": 4243/' "$ONCE/small/small.json" >"$WORK/small2.json"
"$TD" summary --format json "$ONCE/small/small.json" "$WORK/small2.json" >"$WORK/both.json" || die both
"$TD" summarize "$ONCE/small/small.json" -o "$WORK/p1.tds" 2>/dev/null || die summarize1
"$TD" summarize "$WORK/small2.json" -o "$WORK/p2.tds" 2>/dev/null || die summarize2
"$TD" merge "$WORK/p1.tds" "$WORK/p2.tds" -o "$WORK/m" --format json 2>/dev/null || die merge
$PY - "$WORK/both.json" "$WORK/m/summary.json" <<'EOF' || die "merge of rocprof parts"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["trace"]["ranks"] == b["trace"]["ranks"] == 2, (a["trace"], b["trace"])
assert a["kernels"] == b["kernels"] and a["kernels"][0]["calls"] == 12, (a["kernels"], b["kernels"])
assert b["inputs"][0]["format"] == "rocprof-json"
EOF

# damaged: a number that is not one (file and line), a kernel CSV without its time columns,
# a rocpd database without its tables
sed '3s/,[0-9]*,\([0-9]*\),0,0,/,12x,\1,0,0,/' "$WORK/csv908/synthetic908_kernel_trace.csv" | head -50 >"$WORK/bad_kernel_trace.csv"
expect_exit 3 "$TD" summary "$WORK/bad_kernel_trace.csv" >/dev/null 2>"$WORK/e1" || exit 1
grep -q "bad_kernel_trace.csv: line 3: Start_Timestamp: not a number" "$WORK/e1" || { cat "$WORK/e1"; die "bad number message"; }
printf 'Kind,Agent_Id,Queue_Id,Kernel_Name\nKERNEL_DISPATCH,Agent 2,1,k\n' >"$WORK/x_kernel_trace.csv"
expect_exit 3 "$TD" summary "$WORK/x_kernel_trace.csv" >/dev/null 2>"$WORK/e2" || exit 1
grep -q "x_kernel_trace.csv: line 1: Correlation_Id: column missing from the header" "$WORK/e2" || { cat "$WORK/e2"; die "missing column message"; }
sqlite3 "$WORK/empty.db" "CREATE TABLE rocpd_info_agent (id INTEGER)" || die sqlite3
expect_exit 3 "$TD" summary "$WORK/empty.db" >/dev/null 2>"$WORK/e3" || exit 1
grep -q "empty.db: rocpd database: a required view is missing or damaged" "$WORK/e3" || { cat "$WORK/e3"; die "rocpd message"; }
exit 0
