#!/usr/bin/env python3
"""Write a SYNTHETIC Graphcore IPU export (tracedoc.ipu/1, JSON Lines; README "Graphcore
IPU export") for examples and tests. Deterministic: the same arguments give the same
bytes (a fixed linear congruential generator, no wall clock, no hash order).

  tools/gen_ipu.py detailed OUT.jsonl [--runs N] [--layers N] [--tiles N] [--ipus N]
                   [--exchange-scale F]
  tools/gen_ipu.py lwp OUT.jsonl [--runs N]

Every number is made up: the files say "synthetic": true and the documents show it.
The default sizes give the small examples in examples/ipu/; large values (e.g.
--runs 200 --layers 40 --tiles 1472) give a benchmark input.
"""
import argparse
import json
import sys


class Lcg:
    """Numerical Recipes LCG: deterministic across Python versions and platforms."""

    def __init__(self, seed):
        self.x = seed & 0xFFFFFFFF

    def next(self):
        self.x = (1664525 * self.x + 1013904223) & 0xFFFFFFFF
        return self.x

    def randint(self, lo, hi):
        return lo + self.next() % (hi - lo + 1)


def line(f, obj):
    f.write(json.dumps(obj, separators=(",", ":"), sort_keys=False))
    f.write("\n")


def header(f, ipus, tiles, lwp_tiles=None):
    h = {"type": "report", "schema": "tracedoc.ipu/1", "synthetic": True,
         "generator": "tools/gen_ipu.py", "poplarVersion": "3.3.0 (synthetic)",
         "target": {"numIPUs": ipus, "tilesPerIpu": tiles, "clockFrequency": 1330000000.0}}
    if lwp_tiles is not None:
        h["lwp"] = {"selectedTiles": lwp_tiles}
    line(f, h)


def step_entry(rng, ipu, start, length, tiles, active, kind):
    """One step on one IPU: BSP cycles per tile, active cycles and balance inputs."""
    if kind == "sync":
        by_tile = [length] * tiles
    else:
        by_tile = [0] * tiles
        for t in range(active):
            by_tile[t] = length if t == 0 else rng.randint(length // 2, length)
    act = [c for c in by_tile if c > 0]
    skew = rng.randint(0, 3)
    e = {"ipu": ipu,
         "activeCycles": {"cyclesFrom": {"min": start, "max": start + skew},
                          "cyclesTo": {"min": start + min(act), "max": start + length}},
         "cycles": length, "cyclesByTile": by_tile}
    return e


def detailed(f, args):
    rng = Lcg(11)
    header(f, args.ipus, args.tiles)
    clock = [0] * args.ipus
    tiles = args.tiles
    # --exchange-scale F: every DoExchange F times longer (a known change for `diff`)
    scaled = lambda c: int(round(c * args.exchange_scale))
    for r in range(args.runs):
        line(f, {"type": "run", "run": r, "name": "Engine::run #%d" % r,
                 "microseconds": {"start": 1000 + r * 40, "end": 1000 + r * 40 + 5 + r % 2}})

        def step(ptype, name, per_ipu, extra=None, data=None):
            prog = {"type": ptype, "name": name}
            if extra:
                prog.update(extra)
            ipus = []
            for ipu, (length, active, kind) in per_ipu.items():
                e = step_entry(rng, ipu, clock[ipu], length, tiles, active, kind)
                if data:
                    e["dataIn"], e["dataOut"] = data
                ipus.append(e)
                clock[ipu] += length
            line(f, {"type": "step", "program": prog, "ipus": ipus})

        allipu = lambda length, active, kind: {i: (length, active, kind) for i in range(args.ipus)}
        step("StreamCopyBegin", "input/copy", allipu(40, tiles, "sync"))
        step("StreamCopyMid", "input/copy", allipu(300 + 10 * r, max(1, tiles // 4), "busy"),
             {"direction": "Host"}, (4096, 0))
        step("StreamCopyEnd", "input/copy", allipu(30, tiles, "sync"))
        for layer in range(args.layers):
            for ipu in range(args.ipus):
                base = 900 + 150 * layer + 70 * ipu
                step("OnTileExecute", "model/layer%d/matmul/Conv" % layer,
                     {ipu: (base + rng.randint(0, 60), tiles - ipu * (tiles // 4), "busy")},
                     {"vertexTypes": ["poplin::ConvPartial1x1Out<half,float,true,false>"]})
                step("Sync", "", {ipu: (25 + rng.randint(0, 10), tiles, "sync")})
                step("DoExchange", "model/layer%d/matmul/exchange" % layer,
                     {ipu: (scaled(200 + rng.randint(0, 40)), tiles // 2, "busy")}, None,
                     (8192 + 512 * layer, 8192 + 512 * layer))
                step("Sync", "", {ipu: (20 + rng.randint(0, 5), tiles, "sync")})
            step("ExternalSync", "", allipu(60, tiles, "sync"))
            step("GlobalExchange", "model/layer%d/pipeline/ipu_copy" % layer,
                 allipu(400 + rng.randint(0, 50), tiles // 4, "busy"), None, (16384, 16384))
            step("SyncAns", "", allipu(15, tiles, "sync"))
        step("StreamCopyBegin", "output/copy", allipu(35, tiles, "sync"))
        step("StreamCopyMid", "output/copy", allipu(250, max(1, tiles // 8), "busy"),
             {"direction": "RemoteBuffer" if r % 2 else "Mixed"}, (0, 2048))
        step("StreamCopyEnd", "output/copy", allipu(25, tiles, "sync"))


def lwp(f, args):
    """Two IPUs, tile 0 selected on each (global tiles 0 and T), two pipeline stages per
    run with a nested op, StreamCopy triplets on an unselected I/O tile, buffer flushes,
    and one overflow region on IPU 1 that exercises the three overflow rules."""
    rng = Lcg(23)
    t = args.tiles
    header(f, args.ipus, t, [i * t for i in range(args.ipus)])
    base = [2157434837, 2157535120]
    for r in range(args.runs):
        for ipu in range(min(args.ipus, 2)):
            at = base[ipu] + r * 170000
            tile = ipu * t
            io = ipu * t + t - 1
            for k, kind in enumerate(("StreamCopyBegin", "StreamCopyMid", "StreamCopyEnd")):
                n = [80000, 1500, 82000][k] + rng.randint(0, 999)
                line(f, {"type": "block", "tile": io, "kind": kind, "cyclesFrom": at,
                         "cyclesTo": at + n})
                at += n + 36
            stage = 7236 + rng.randint(0, 4)
            line(f, {"type": "block", "tile": tile, "kind": "Common", "name": "stage%d" % (ipu + 1),
                     "cyclesFrom": at, "cyclesTo": at + stage})
            line(f, {"type": "block", "tile": tile, "kind": "Common", "name": "op2",
                     "cyclesFrom": at + 3600, "cyclesTo": at + 3600 + 3623})
            at += stage + 100
            line(f, {"type": "block", "tile": tile, "kind": "BufferFlush", "cyclesFrom": at,
                     "cyclesTo": at + 900})
    if args.ipus >= 2:
        # IPU 1 overflow region after the runs: one block ends inside (no end), one starts
        # inside (Unknown), one lies inside (not recorded)
        tile = t
        o0 = base[1] + args.runs * 170000 + 10000
        line(f, {"type": "block", "tile": tile, "kind": "Common", "name": "stage2",
                 "cyclesFrom": o0 - 2000, "cyclesTo": o0 + 500})
        line(f, {"type": "block", "tile": tile, "kind": "Common", "name": "op2",
                 "cyclesFrom": o0 + 1000, "cyclesTo": o0 + 2000})
        line(f, {"type": "block", "tile": tile, "kind": "Overflow", "cyclesFrom": o0,
                 "cyclesTo": o0 + 5000})
        line(f, {"type": "block", "tile": tile, "kind": "Common", "name": "stage2",
                 "cyclesFrom": None, "cyclesTo": o0 + 9000})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kind", choices=["detailed", "lwp"])
    ap.add_argument("out")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--tiles", type=int, default=16)
    ap.add_argument("--ipus", type=int, default=2)
    ap.add_argument("--exchange-scale", type=float, default=1.0,
                    help="detailed: DoExchange steps this many times longer")
    args = ap.parse_args()
    with (sys.stdout if args.out == "-" else open(args.out, "w", encoding="utf-8", newline="\n")) as f:
        (detailed if args.kind == "detailed" else lwp)(f, args)


if __name__ == "__main__":
    main()
