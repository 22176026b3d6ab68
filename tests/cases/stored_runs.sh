# A stored run (the summary.json a report wrote) given back to report and diff, as the
# doc/commands.md allows: documents of the stored run, compared with a baseline or a history,
# and a stored run that was itself compared before (its comparison is made anew, not
# added to). Real traces of several stacks. Before: `report summary.json` aborted on the
# checklist table it already had, `diff` of a compared run crashed (SIGSEGV), and the
# documents of a stored run showed keys (trace.span_ns, total_ns) for titles and headers.
. "$ROOT/tests/lib.sh"
need_traces
command -v pdftotext >/dev/null || { echo "pdftotext not installed"; exit 77; }
cd "$WORK" || exit 1
export SOURCE_DATE_EPOCH=1700000000
n=0
for in in "$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite" \
          "$TRACES/kineto/hta_mtia_inference_rank0.json.gz" "$ROOT/examples/ipu/lwp.jsonl" \
          "$TRACES/nsys-jax/pax_fsdp4_4proc_proc0.zip"; do
    n=$((n + 1))
    "$TD" report "$in" -o a$n --format json,folded,pdf --template nightly >/dev/null 2>&1 || die "report $in"
    # the documents of the stored run: the same summary.json bytes (labels keep titles,
    # types, notes), and, but for the IPU timeline (its segments are not in summary.json),
    # the same PDF text: titles, column headers, units and the flamegraphs from the stacks
    "$TD" report a$n/summary.json -o b$n --template nightly --format json,pdf,xlsx >/dev/null 2>b$n.err ||
        { cat b$n.err; die "report of the stored run of $in"; }
    [ -s b$n/report.pdf ] && [ -s b$n/report.xlsx ] || die "no documents for the stored run of $in"
    cmp -s a$n/summary.json b$n/summary.json || { diff a$n/summary.json b$n/summary.json | head; die "stored run of $in: summary.json differs"; }
    pdftotext -layout a$n/report.pdf a$n.txt && pdftotext -layout b$n/report.pdf b$n.txt || die pdftotext
    case $in in
    *lwp*) grep -q "IPU 0 tile 0" a$n.txt || die "no IPU timeline in the fresh report" ;;
    *) diff -w a$n.txt b$n.txt >/dev/null || { diff -w a$n.txt b$n.txt | head -20; die "stored run of $in: PDF text differs"; } ;;
    esac
    # compared with itself, then that compared run compared again
    "$TD" report a$n/summary.json -o c$n --baseline a$n/summary.json --format json >/dev/null 2>c$n.err ||
        { cat c$n.err; die "report --baseline of $in"; }
    "$TD" report c$n/summary.json -o d$n --baseline a$n/summary.json --format json,pdf,xlsx,md >/dev/null 2>d$n.err ||
        { cat d$n.err; die "report --baseline of a compared run of $in"; }
    "$TD" diff c$n/summary.json c$n/summary.json -o e$n >e$n.out 2>e$n.err ||
        { cat e$n.err; die "diff of a compared run of $in"; }
    rm -f h.db
    "$TD" report a$n/summary.json -o f$n --history h.db --format json >/dev/null 2>&1 || die "history 1: $in"
    "$TD" report c$n/summary.json -o g$n --history h.db --format json >/dev/null 2>g$n.err ||
        { cat g$n.err; die "history 2 of a compared run of $in"; }
    $PY - a$n c$n d$n e$n g$n <<'PY' || die "$in"
import json, sys
a, c, d, e, g = (json.load(open(x + "/summary.json")) for x in sys.argv[1:6])
# the comparison is made anew: the same findings as the first comparison, once each
assert d["findings"] == c["findings"], (d["findings"], c["findings"])
assert len(set(d["findings"])) == len(d["findings"]), d["findings"]
assert c["findings"][:len(a["findings"])] == a["findings"], "the run's own findings kept"
assert d["verdict"].startswith("OK: no metric regressed"), d["verdict"]
# diff names its own baseline (the compared run itself) in the verdict
assert e["findings"][:-1] == c["findings"][:-1], (e["findings"], c["findings"])
assert e["findings"][-1] == e["verdict"] and "baseline " + sys.argv[2] + "/summary.json" in e["verdict"], e["verdict"]
assert g["verdict"].startswith(("OK", "FIRST RUN")), g["verdict"]
assert sum(f == g["verdict"] for f in g["findings"]) == 1, g["findings"]
# the tables of the comparison are the new ones (one row per metric, not twice)
m = [r["metric"] for r in d.get("comparisons", [])]
assert m and len(m) == len(set(m)), "comparison rows repeated"
assert "metrics" not in d["regression"], "the tolerance table is gone (issue 21)"
PY
done
exit 0
