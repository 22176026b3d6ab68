#!/usr/bin/env python3
"""Compare two summary.json files: the report of all ranks at once (first) and the merge
of partial summaries (second). Exact for every count, sum, min/max, interval total and
text; medians (median_ns, "Med (ns)") within the DDSketch bound (relative 0.005, +1 ns for
rounding to whole ns); sample standard deviations within 1 ns (the merge computes them
from exact sums of squares, the report in two passes over doubles); other reals within
1e-6 relative. Keys named in --null must be null in the merge (not mergeable) and are
otherwise skipped; keys named in --absent must be absent from the merge (not merged) and
are otherwise skipped; keys named in --skip are not compared. Exit 1 and a list of the differences when they differ."""
import json, re, sys


ALPHA = 0.005
MED = {"median_ns", "Med (ns)"}
STD = {"std_ns", "StdDev (ns)", "thunks_std"}


def close(k, x, y):
    if x == y:
        return True
    if isinstance(x, bool) or isinstance(y, bool):
        return False
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):
        if k in MED:
            return abs(x - y) <= ALPHA * abs(x) + 1
        if k in STD:
            return abs(x - y) <= 1 + 1e-9 * abs(x)
        if isinstance(x, float) or isinstance(y, float):
            return abs(x - y) <= 1e-6 * max(1.0, abs(x))
    return False


def main():
    args = sys.argv[1:]
    nulls, absent = set(), set()
    skip = set()
    while args and args[0] in ("--null", "--absent", "--skip"):
        {"--null": nulls, "--absent": absent, "--skip": skip}[args[0]].update(args[1].split(","))
        args = args[2:]
    a = json.load(open(args[0]))
    b = json.load(open(args[1]))
    errs = []

    def walk(x, y, path):
        if isinstance(x, dict) and isinstance(y, dict):
            for k in sorted(set(x) | set(y)):
                if k in skip:
                    continue
                if k in absent:
                    if k in y:
                        errs.append(f"{path}.{k}: in the merge, expected absent")
                    continue
                if k in nulls:
                    if y.get(k) is not None:
                        errs.append(f"{path}.{k}: merge has {y.get(k)!r}, expected null")
                    continue
                if k not in x or k not in y:
                    errs.append(f"{path}.{k}: only in {'report' if k in x else 'merge'}")
                    continue
                walk(x[k], y[k], f"{path}.{k}")
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                errs.append(f"{path}: {len(x)} rows in the report, {len(y)} in the merge")
                return
            for i, (p, q) in enumerate(zip(x, y)):
                walk(p, q, f"{path}[{i}]")
        elif not close(path.rsplit(".", 1)[-1], x, y):
            errs.append(f"{path}: report {x!r}, merge {y!r}")

    walk(a, b, "")
    for e in errs[:40]:
        print(e)
    if errs:
        print(len(errs), "differences")
        sys.exit(1)


main()
