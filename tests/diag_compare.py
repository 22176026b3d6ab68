#!/usr/bin/env python3
"""Compare tracedoc's diagnosis tables with HTA's own output (tests/cases/diag_hta.sh).

Usage: diag_compare.py TABLE TRACEDOC_CSV HTA_DIR [HTA_WINDOW_OUTPUT]
TABLE: launches | queue_length | comm_overlap (idle_breakdown: tests/diag_idle.py). TRACEDOC_CSV is
`tracedoc summary --format csv --table TABLE` on the trace cut by tests/hta_window.py
(with --only launch for launches, --only queue for queue_length). Rules (issue 24):
launch counts, the three rule counts and queue maxima exact; times within 1% (HTA's unweighted
queue mean within 1% + 2/count per tied launch/start pair: see below). Prints one line per mismatch and "ok N" when all N checks pass."""
import csv, re, sys


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def near(a, b, rel=0.01, slack=0.0):
    return abs(a - b) <= rel * max(abs(a), abs(b)) + slack


class Checks:
    """check(ok, what) counts a check and keeps the failed ones' messages; report() prints
    them (or "ok N") and returns the exit status. Shared by the diag_*.py comparisons."""

    def __init__(self):
        self.bad, self.n = [], 0

    def __call__(self, ok, what):
        self.n += 1
        if not ok:
            self.bad.append(what)

    def report(self, ok_line=None):
        for b in self.bad:
            print(b)
        if not self.bad:
            print(ok_line or "ok %d" % self.n)
        return 1 if self.bad else 0


def main():
    table, tdcsv, hta = sys.argv[1:4]
    td = rows(tdcsv) if tdcsv != "-" else []
    check = Checks()

    if table == "launches":
        h = rows(hta + "/launch_stats_summary_no_ns_rounding.csv")
        mine = {r["rank"]: r for r in td}
        for r in h:
            if int(r["n"]) == 0:
                continue
            m = mine.get(r["rank"])
            if m is None:
                check(False, "launches rank %s: none in tracedoc" % r["rank"])
                continue
            for a, b in (("launches", "n"),
                         ("short_kernels", "n_short_kernels(cpu<=50 & gpu<cpu)"),
                         ("runtime_outliers", "n_runtime_outliers(cpu>50)"),
                         ("launch_delay_outliers", "n_launch_delay_outliers(ld>100)")):
                check(int(m[a]) == int(r[b]), "launches rank %s %s: %s vs HTA %s" % (r["rank"], a, m[a], r[b]))
            for a, b in (("launch_delay_mean_ns", "launch_delay_mean"),
                         ("launch_delay_median_ns", "launch_delay_50%"),
                         ("launch_delay_max_ns", "launch_delay_max"),
                         ("cpu_mean_ns", "cpu_duration_mean"), ("gpu_mean_ns", "gpu_duration_mean")):
                check(near(int(m[a]) / 1000, float(r[b]), slack=0.001),
                      "launches rank %s %s: %s ns vs HTA %s us" % (r["rank"], a, m[a], r[b]))
    elif table == "queue_length":
        h = rows(hta + "/queue_length_summary_no_ns_rounding.csv")
        ties = {}
        if len(sys.argv) > 4:
            for rk, st, nt in re.findall(r"^ties rank (\S+) stream (\S+): (\d+)$", open(sys.argv[4]).read(), re.M):
                ties[(rk, st)] = int(nt)
        mine = {(r["rank"], r["stream"]): r for r in td}
        for r in h:
            k = (r["rank"], r["stream"])
            m = mine.get(k)
            if m is None:
                check(False, "queue %s: none in tracedoc" % (k,))
                continue
            check(int(m["max"]) == int(float(r["max"])), "queue %s max: %s vs HTA %s" % (k, m["max"], r["max"]))
            # HTA sorts launches and starts by time with an unstable sort: where a launch
            # and a start on the stream share a time stamp either may come first, which
            # moves its mean over changes by up to 2/count per such pair
            slack = (2.0 * ties.get(k, 0) + 1e-6) / float(r["count"])
            check(near(float(m["mean_changes"]), float(r["mean"]), slack=slack),
                  "queue %s mean_changes: %s vs HTA %s" % (k, m["mean_changes"], r["mean"]))
        check(len(h) == len(td), "queue: %d streams, HTA %d" % (len(td), len(h)))
    elif table == "comm_overlap":
        h = rows(hta + "/comm_comp_overlap_no_ns_rounding.csv")
        mine = {r["rank"]: float(r["share"]) for r in td}
        for r in h:
            p = r["comp_comm_overlap_pctg"]
            if p in ("", "nan", "NaN"):  # HTA: 0/0 with no communication
                check(r["rank"] not in mine, "overlap rank %s: tracedoc has a row" % r["rank"])
                continue
            m = mine.get(r["rank"])
            check(m is not None and abs(round(100 * m, 2) - float(p)) <= 0.011,
                  "overlap rank %s: %s vs HTA %s%%" % (r["rank"], m, p))
    return check.report()


if __name__ == "__main__":
    sys.exit(main())
