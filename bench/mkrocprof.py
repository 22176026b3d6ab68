#!/usr/bin/env python3
"""bench/mkrocprof.py OUT.json SIZE_MB: a large rocprofv3 JSON file (SYNTHETIC, for the
benchmark only) made from ../shared/traces/rocprof/908_results.json.gz: the sample's own
text up to buffer_records (metadata, agents, strings, 9,889 kernel symbols...), then its
43,915 kernel dispatches repeated, each copy shifted in time past the previous one (ids
and correlation ids offset too) and written compactly as rocprofv3 writes them, until the
file reaches SIZE_MB MiB; then the sample's other (empty) buffer_records and the end.
The output is valid JSON; it depends only on SIZE_MB."""
import gzip
import json
import os
import sys

out, size_mb = sys.argv[1], int(sys.argv[2])
src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../shared/traces/rocprof/908_results.json.gz")
raw = gzip.open(os.environ.get("ROCPROF_SAMPLE", src), "rt").read()
tool = json.loads(raw)["rocprofiler-sdk-tool"][0]
head = raw[: raw.rindex('"buffer_records":')]  # the text before the last buffer_records key
disp = tool["buffer_records"]["kernel_dispatch"]
t0 = min(r["start_timestamp"] for r in disp)
span = max(r["end_timestamp"] for r in disp) - t0 + 1_000_000
nid = max(r["dispatch_info"]["dispatch_id"] for r in disp) + 1
ncorr = max(r["correlation_id"]["internal"] for r in disp) + 1
limit = size_mb << 20
with open(out, "w") as f:
    f.write(head)
    f.write('"buffer_records":{"kernel_dispatch":[')
    n, k, first = len(head), 0, True
    while n < limit:
        parts = []
        for r in disp:
            r = json.loads(json.dumps(r)) if k else r
            if k:
                r["start_timestamp"] += k * span
                r["end_timestamp"] += k * span
                r["correlation_id"]["internal"] += k * ncorr
                r["dispatch_info"]["dispatch_id"] += k * nid
            parts.append(json.dumps(r, separators=(",", ":")))
        s = ("" if first else ",") + ",".join(parts)
        first = False
        f.write(s)
        n += len(s)
        k += 1
    rest = {kk: v for kk, v in tool["buffer_records"].items() if kk != "kernel_dispatch"}
    f.write("]," + json.dumps(rest, separators=(",", ":"))[1:] + "}]}")
print(f"{out}: {k} copies, {k * len(disp)} dispatches", file=sys.stderr)
