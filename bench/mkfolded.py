#!/usr/bin/env python3
"""Synthetic folded stacks for the flamegraph benchmark (labelled synthetic): N lines of
either short native-like stacks (3-8 frames, e.g. perf output) or Python-like deep stacks
(40-70 frames "file.py:function:line" as py-spy/austin write them), counts 1..1000.
400 base call paths with 25 tips each (10,000 distinct stacks, as a profile of one
program has), lines in random order (no help from sorting).
Usage: mkfolded.py short|python N OUT"""
import random, sys

kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rng = random.Random(42)
libs = ["libc.so.6", "libtorch_cpu.so", "libcudart.so", "python3.11", "libnccl.so"]
fns = [f"{p}_{i}" for p in ("read", "write", "mm", "conv", "step", "alloc", "sync", "launch")
       for i in range(40)]
pyfiles = [f"/opt/app/pkg{i}/module{j}.py" for i in range(6) for j in range(12)]
pyfns = [f"{v}_{i}" for v in ("forward", "backward", "load", "apply", "call", "wrap")
         for i in range(30)]
# a few hundred base call paths, each with a few tips, as profiles of one program are
bases = []
for b in range(400):
    if kind == "short":
        base = [f"{rng.choice(libs)}`{rng.choice(fns)}" for _ in range(rng.randint(2, 5))]
    else:
        base = [f"{rng.choice(pyfiles)}:{rng.choice(pyfns)}:{rng.randint(1, 900)}"
                for _ in range(rng.randint(35, 60))]
    for t in range(25):
        tip = [rng.choice(fns) if kind == "short" else
               f"{rng.choice(pyfiles)}:{rng.choice(pyfns)}:{rng.randint(1, 900)}"
               for _ in range(rng.randint(1, 3 if kind == "short" else 10))]
        bases.append(";".join(base + tip))
with open(out, "w") as f:
    for i in range(n):
        f.write(rng.choice(bases) + " " + str(rng.randint(1, 1000)) + "\n")
