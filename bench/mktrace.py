#!/usr/bin/python3
"""bench/mktrace.py OUT [SIZE_MB]: a large, valid Kineto trace made of the real traces in
../shared/traces/kineto, for benchmarks (not for tests).

The events of every shared Kineto trace are copied as their original text (Kineto's
pretty-printed layout, which is what the reader has to be fast on), shifted in time so the
sources follow one another, and repeated until the file reaches SIZE_MB (default 1024).
The header (deviceProperties, distributedInfo) is the A100 trace's."""
import gzip, json, os, re, sys

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(here, "..", "..", "shared", "traces", "kineto")
out, size = sys.argv[1], int(sys.argv[2]) * (1 << 20) if len(sys.argv) > 2 else 1 << 30
names = sorted(f for f in os.listdir(src) if f.endswith(".json.gz"))

def events_text(text):
    """The text between the '[' of traceEvents and its closing ']' (events only)."""
    k = text.index('"traceEvents"')
    a = text.index("[", k)
    # the array ends at the last ']' before the keys that may follow it
    depth, i, n, instr = 0, a, len(text), False
    while i < n:
        ch = text[i]
        if instr:
            if ch == "\\":
                i += 1
            elif ch == '"':
                instr = False
        elif ch == '"':
            instr = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                return text[a + 1:i].strip().rstrip(",")
        i += 1
    raise SystemExit("no traceEvents end")

sources = []
for f in names:
    text = gzip.open(os.path.join(src, f), "rt", encoding="utf-8", errors="surrogateescape").read()
    d = json.loads(text)
    ts = [e["ts"] for e in d["traceEvents"] if "ts" in e and isinstance(e["ts"], (int, float))]
    lo, hi = int(min(ts)), int(max(ts)) + 1
    sources.append((f, events_text(text), lo, hi - lo + 1000))
    if f.startswith("hta_a100"):
        header = {k: d[k] for k in ("schemaVersion", "deviceProperties", "distributedInfo") if k in d}

ts_re = re.compile(r'("ts": ?)(-?\d+)')
base = 1700000000000000
written = 0
with open(out, "w", encoding="utf-8", errors="surrogateescape") as fo:
    h = json.dumps(header, indent=2)
    fo.write(h[:-1].rstrip() + ',\n  "traceEvents": [\n')
    first = True
    t = base
    while written < size:
        for f, body, lo, span in sources:
            off = t - lo
            shifted = ts_re.sub(lambda m: m.group(1) + str(int(m.group(2)) + off), body)
            if not first:
                fo.write(",\n")
            fo.write(shifted)
            first = False
            written += len(shifted)
            t += span
            if written >= size:
                break
    fo.write('\n  ],\n  "traceName": "bench"\n}\n')
print(out, os.path.getsize(out))
