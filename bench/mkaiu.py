#!/usr/bin/env python3
"""bench/mkaiu.py - a large IBM AIU flex trace made by replicating a real one.

    bench/mkaiu.py OUT SIZE_MB [SRC]

SRC (default ../shared/traces/aiu/allreduce_tp4.json, 27 KB, 56 events) is copied as
its original text (pretty-printed, the layout the reader has to be fast on), event by
event, into one bare JSON array, as many times as it takes to pass SIZE_MB MiB. Copy k
has every "ts" shifted by k * (span of SRC + 1000 us), so the copies follow one another
in time and no pair of one copy equals a pair of another (exact duplicates are counted
once by the reader). The decimal text of ts is shifted digit-exactly (no float round
trip). Device counters (attr TS1..TS5) are copied as they are. SIZE_MB 0 writes one copy.
"""
import json
import re
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, size_mb = sys.argv[1], float(sys.argv[2])
    src = sys.argv[3] if len(sys.argv) > 3 else "../shared/traces/aiu/allreduce_tp4.json"
    text = open(src, encoding="utf-8").read()
    events = json.loads(text)
    body = text.strip()
    assert body[0] == "[" and body[-1] == "]", "not a bare JSON array"
    body = body[1:-1].strip()
    # split the body at the "ts" numbers: pieces[0] ts0 pieces[1] ts1 ...
    tsre = re.compile(r'("ts"\s*:\s*)(-?\d+)(\.\d+)?')
    pieces, ints, fracs, last = [], [], [], 0
    for m in tsre.finditer(body):
        pieces.append(body[last:m.end(1)])
        ints.append(int(m.group(2)))
        fracs.append(m.group(3) or "")
        last = m.end()
    pieces.append(body[last:])
    assert len(ints) == len(events), (len(ints), len(events))
    ts = [e["ts"] for e in events]
    step = int(max(ts) - min(ts)) + 1000  # whole microseconds: the decimals stay as written
    limit = int(size_mb * (1 << 20))
    n = 0
    with open(out, "w", encoding="utf-8") as f:
        f.write("[\n")
        written = 2
        k = 0
        while True:
            shift = k * step
            parts = [pieces[0]]
            for i in range(len(ints)):
                parts.append(str(ints[i] + shift) + fracs[i])
                parts.append(pieces[i + 1])
            chunk = ("" if k == 0 else ",\n") + "".join(parts)
            f.write(chunk)
            written += len(chunk.encode("utf-8"))
            n += len(ints)
            k += 1
            if written >= limit:
                break
        f.write("\n]\n")
    print(f"{out}: {k} copies of {src}, {n} events, {written + 3} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
