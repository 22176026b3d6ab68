#!/usr/bin/env python3
"""SYNTHETIC (made here, not a profiler output): a small torch.profiler (Kineto) trace of
a torch-spyre run, in Kineto's Chrome-JSON layout with PrivateUse1 categories
(privateuse1_runtime, privateuse1_kernel), three iteration_N ranges and a
baseTimeNanoseconds wall-clock base. Used by tests for accelerator naming, steps and
telemetry alignment. Usage: gen_spyre_kineto.py OUT.json"""
import json, sys

BASE = 1_763_800_000_000_000_000  # ns since the epoch: 2025-11-22T08:26:40Z
ev = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python3"}},
      {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "spyre 0"}}]
corr = 1
for it in range(3):
    t0 = 1_000_000 + it * 1_000_000  # us from the base: one iteration a second
    ev.append({"ph": "X", "cat": "user_annotation", "name": f"iteration_{it}", "pid": 1, "tid": 1,
               "ts": t0, "dur": 900_000})
    for k in range(3):
        ts = t0 + 1000 + k * 200_000
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::matmul", "pid": 1, "tid": 1,
                   "ts": ts, "dur": 150_000})
        ev.append({"ph": "X", "cat": "privateuse1_runtime", "name": "spyreLaunchKernel", "pid": 1,
                   "tid": 1, "ts": ts + 10, "dur": 50, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": "privateuse1_kernel", "name": "sdsc_matmul", "pid": 0, "tid": 7,
                   "ts": ts + 100, "dur": 120_000, "args": {"correlation": corr, "device": 0}})
        corr += 1
doc = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "IBM Spyre"}],
       "baseTimeNanoseconds": BASE - 0, "traceEvents": ev, "traceName": "synthetic-spyre"}
json.dump(doc, open(sys.argv[1], "w"), indent=0)
