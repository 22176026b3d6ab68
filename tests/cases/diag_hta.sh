# Acceptance (issue 24): the diagnosis tables idle_breakdown, launches, queue_length and
# comm_overlap against Holistic Trace Analysis's own output (../shared/oracles/analyses/
# <trace>/hta/*_no_ns_rounding.csv) on every shared Kineto trace. HTA drops the last
# ProfilerStep and the device work launched from it: tests/hta_window.py cuts each trace
# the same way first. HTA's launch statistics and queue length only see the launch calls
# it names: for those two tables the cut also drops device work launched by other calls
# (and the script lists what it dropped); tracedoc on the plain cut counts that work too,
# which is checked here as HTA's count + what was dropped. Rules in tests/diag_compare.py;
# idle_breakdown per category to the ns in tests/diag_idle.py.
# The cuts do not depend on the build: they are made once per test run (tests/lib.sh once)
# and read by every build's run of this case; a comparison whose tracedoc CSV is
# byte-identical to one already compared in this run (the release build's) is not
# recomputed (tests/lib.sh checked).
. "$ROOT/tests/lib.sh"
need_traces
O=$TRACES/../oracles/analyses
[ -d "$O" ] || { echo "oracles missing"; exit 77; }
fail=0
for tr in "$TRACES"/kineto/*.gz "$TRACES"/kineto-shapes/*.gz; do
    n=$(basename "$tr"); n=${n%.json.gz}; n=${n%.tar.gz}
    H=$O/$n/hta
    [ -d "$H" ] || continue
    W=$WORK/$n
    mkdir -p "$W"
    cut_trace() { # the three cuts from one read: all/, launch/ + launch.txt, queue/ + queue.txt
        $PY "$ROOT/tests/hta_window.py" --three "$tr" "$ONCE"
    }
    once "hta_window-$n" cut_trace || die "hta_window $n"
    C=$ONCE
    # every table of the plain cut from one run (report's CSV files are summary --table's)
    "$TD" report --format csv -o "$W/all" "$C"/all/*.json >/dev/null 2>"$W/all.err" ||
        die "tracedoc $n: $(cat "$W/all.err")"
    for t in idle_breakdown launches; do
        [ -f "$W/all/$t.csv" ] || die "tracedoc $n: no $t.csv"
        mv "$W/all/$t.csv" "$W/$t.csv"
    done
    # no communication kernel: no comm_overlap table (HTA writes NaN, 0/0)
    if [ -f "$W/all/comm_overlap.csv" ]; then mv "$W/all/comm_overlap.csv" "$W/comm_overlap.csv"
    else : >"$W/comm_overlap.csv"; fi
    # HTA sees no launch at all on AMD traces: nothing left, no table
    "$TD" summary --format csv --table launches "$C"/launch/*.json >"$W/launches_hta.csv" 2>/dev/null \
        || { grep -q '^0,0,' "$H/launch_stats_summary_no_ns_rounding.csv" || die "tracedoc $n launches"; : >"$W/launches_hta.csv"; }
    "$TD" summary --format csv --table queue_length "$C"/queue/*.json >"$W/queue_length.csv" || die "tracedoc $n"
    # idle time by cause to the ns: HTA's rule applied as HTA runs it (= HTA's figures) and
    # as tracedoc defines it (= tracedoc's), the differences explained (tests/diag_idle.py)
    out=$(checked $PY "$ROOT/tests/diag_idle.py" "$W/idle_breakdown.csv" "$H" "$C"/all/*.json) || { echo "$n idle_breakdown:"; echo "$out"; fail=1; }
    for c in "comm_overlap $W/comm_overlap.csv" \
             "launches $W/launches_hta.csv" "queue_length $W/queue_length.csv $C/queue.txt"; do
        set -- $c
        out=$(checked $PY "$ROOT/tests/diag_compare.py" "$1" "$2" "$H" ${3:-}) || { echo "$n $1:"; echo "$out"; fail=1; }
    done
    # every launch HTA leaves out is counted: tracedoc = HTA + what the cut dropped
    checked $PY - "$W/launches.csv" "$H/launch_stats_summary_no_ns_rounding.csv" "$C/launch.txt" "$n" <<'PYEOF' || fail=1
import csv, re, sys
mine = sum(int(r["launches"]) for r in csv.DictReader(open(sys.argv[1])))
hta = sum(int(r["n"]) for r in csv.DictReader(open(sys.argv[2])))
extra = sum(int(m) for m in re.findall(r": (\d+) device events launched by", open(sys.argv[3]).read()))
if mine != hta + extra:
    print("%s: tracedoc counts %d launches, HTA %d + %d it leaves out" % (sys.argv[4], mine, hta, extra))
    sys.exit(1)
PYEOF
done
exit $fail
