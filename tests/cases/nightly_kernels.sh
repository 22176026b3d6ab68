# New and vanished kernels on real traces: the ranks of the real 8-rank DLRM job
# (../shared/traces/kineto/param_dlrm_8ranks.tar.gz) differ in their kernels: ranks 3
# and 4 run three cub radix-sort kernels the others do not. Compared as runs (diff, and
# a --history of ranks 0-2, then rank 3, then rank 5), the kernels with at least 0.1% of
# the kernel time must be listed as new / vanished with their totals, the smaller ones
# only counted. Expected values: computed here in Python from the raw trace JSON.
. "$ROOT/tests/lib.sh"
need_traces
cd "$WORK" || exit 1
tar xzf "$TRACES/kineto/param_dlrm_8ranks.tar.gz" || die "tar"
for i in 0 1 2 3 5; do
    ln -s "$(ls "$WORK"/dlrm_kineto/worker${i}_*.json)" "$WORK/w$i.json"
done
$PY - "$WORK" >"$WORK/expect" <<'PYEOF' || die "reference"
import json, sys
w = sys.argv[1]
def kernels(i):
    ev = json.load(open("%s/w%d.json" % (w, i)))["traceEvents"]
    k = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") == "kernel":
            k[e["name"]] = k.get(e["name"], 0) + e["dur"] * 1000
    return k
k0, k3 = kernels(0), kernels(3)
t3 = sum(k3.values())
extra = {n: v for n, v in k3.items() if n not in k0}
assert len(extra) == 3, extra
listed = {n: v for n, v in extra.items() if v >= 0.001 * t3}
small = {n: v for n, v in extra.items() if v < 0.001 * t3}
assert len(listed) >= 1 and len(small) >= 1, (listed, small)
json.dump({"listed": listed, "small": sorted(small)}, sys.stdout)
PYEOF
check() { # check SUMMARY.json DIRECTION: the new/vanished rows are exactly the listed kernels
    $PY - "$WORK/expect" "$1" "$2" <<'PYEOF'
import json, sys
exp = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
d = sys.argv[3]
rows = {c["metric"]: c for c in s["changes"] if c["direction"] in ("new", "vanished")}
want = {"kernel.total_ns:" + n: v for n, v in exp["listed"].items()}
assert set(rows) == set(want), (sorted(rows), sorted(want))
for m, v in want.items():
    c = rows[m]
    assert c["direction"] == d, c
    got = c["after"] if d == "new" else c["before"]
    assert abs(got - v) <= 1, (m, got, v)
    assert c["unit"] == "ns"
for n in exp["small"]:
    assert "kernel.total_ns:" + n not in rows
assert s["change_counts"][d] == len(want)
PYEOF
}
"$TD" diff w0.json w3.json -o d03 >/dev/null; [ $? -le 1 ] || die "diff 0 3"
check d03/summary.json new || die "diff: new kernels"
"$TD" diff w3.json w0.json -o d30 >/dev/null; [ $? = 1 ] || die "diff 3 0: a vanished kernel fails"
check d30/summary.json vanished || die "diff: vanished kernels"
# JUnit: the vanished kernel's test case fails
$PY - d30/junit.xml "$WORK/expect" <<'PYEOF' || die "junit"
import json, sys, xml.etree.ElementTree as ET
exp = json.load(open(sys.argv[2]))
# the name is the display name and unit; the key is in the last parentheses
cases = {c.get("name")[c.get("name").rindex(" (") + 2:-1] if " (" in c.get("name") else c.get("name"): c
         for c in ET.parse(sys.argv[1]).getroot().iter("testcase")}
for n in exp["listed"]:
    c = cases["kernel.total_ns:" + n]
    assert c.find("failure") is not None, n
PYEOF
# a history: ranks 0-2 as three nights, then rank 3 (new kernels), then rank 5 (gone)
for i in 0 1 2 3 5; do
    SOURCE_DATE_EPOCH=$((1767225600 + i * 86400)) "$TD" report w$i.json -o n$i --format json \
        --template nightly --history runs.db --meta commit=rank$i >/dev/null 2>"err$i"
    [ $? -le 1 ] || { cat "err$i"; die "night $i"; }
done
check n3/summary.json new || die "history: new kernels"
check n5/summary.json vanished || die "history: vanished kernels"
exit 0
