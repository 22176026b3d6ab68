#!/usr/bin/env python3
"""Export a Graphcore PopVision report (profile.pop) to tracedoc's open format
(tracedoc.ipu/1, JSON Lines; README "Graphcore IPU export").

    python3 tools/popvision_export.py profile.pop -o profile.ipu.jsonl [--lwp-tiles 0,1472]

Needs the Poplar SDK's `pva` module (libpva, "PopVision Analysis library Python API").
Uses only its documented objects: pva.openReport, report.poplarVersion,
report.compilation.target (numIPUs, tilesPerIpu, clockFrequency), report.execution.runs
(name, microseconds, steps), step.program (type, name), step.ipus (activeCycles,
cycles, tileBalance, activeTileBalance, dataIn, dataOut), step.cyclesByTile, and for
lightweight profiling report.execution.blocks(tile) (cyclesFrom, cyclesTo, program,
isCommon/isStreamCopy/isBlockFlush/isOverflow). It cannot run without an IPU report:
tests/cases/ipu_exporter.sh runs it against a stand-in `pva` module.
"""
import argparse
import json
import sys

TYPES = {"OnTileExecute", "DoExchange", "GlobalExchange", "StreamCopyBegin",
         "StreamCopyMid", "StreamCopyEnd", "Sync", "ExternalSync", "SyncAns"}


def val(obj, name, default=None):
    """A libpva property (or a C++-style accessor method) or default."""
    v = getattr(obj, name, default)
    return v() if callable(v) else v


def enum_name(v):
    """pva enums print as Type.X and have .name; plain strings pass through."""
    return getattr(v, "name", None) or str(v).split(".")[-1]


def direction(program):
    """StreamCopyMid direction: an exported attribute when libpva has one, else the
    debug name (Poplar names remote-buffer copies '... Remote -> Device ...')."""
    for attr in ("direction", "copyType"):
        d = val(program, attr)
        if d is not None:
            return enum_name(d)
    name = val(program, "name") or ""
    return "RemoteBuffer" if "Remote" in name else "Host"


def minmax(o):
    return {"min": int(o.min), "max": int(o.max)}


def step_record(step, tiles):
    prog = step.program
    ptype = enum_name(prog.type)
    p = {"type": ptype, "name": val(prog, "name") or ""}
    if ptype == "StreamCopyMid":
        p["direction"] = direction(prog)
    by_tile = list(val(step, "cyclesByTile") or [])
    ipus = []
    for i, ipu in enumerate(step.ipus):
        n = int(val(ipu, "ipu", i))
        ac = ipu.activeCycles
        e = {"ipu": n, "activeCycles": {"cyclesFrom": minmax(ac.cyclesFrom),
                                        "cyclesTo": minmax(ac.cyclesTo)}}
        for k in ("cycles", "dataIn", "dataOut"):
            if val(ipu, k) is not None:
                e[k] = int(val(ipu, k))
        for k in ("tileBalance", "activeTileBalance"):
            v = val(ipu, k)
            if v is not None:
                e[k] = min(1.0, max(0.0, float(v)))
        if len(by_tile) >= (n + 1) * tiles:
            e["cyclesByTile"] = [int(c) for c in by_tile[n * tiles:(n + 1) * tiles]]
        ipus.append(e)
    return {"type": "step", "program": p, "ipus": ipus}


def block_kind(b):
    if val(b, "isOverflow"):
        return "Overflow"
    if val(b, "isBlockFlush"):
        return "BufferFlush"
    if val(b, "isStreamCopy"):
        return enum_name(b.program.type)  # StreamCopyBegin / Mid / End
    return "Common"


def export(report, out, lwp_tiles=None):
    tg = report.compilation.target
    tiles = int(tg.tilesPerIpu)
    nipus = int(tg.numIPUs)
    hdr = {"type": "report", "schema": "tracedoc.ipu/1",
           "target": {"numIPUs": nipus, "tilesPerIpu": tiles,
                      "clockFrequency": float(tg.clockFrequency)},
           "poplarVersion": val(report.poplarVersion, "string")}
    blocks_of = getattr(report.execution, "blocks", None)
    if blocks_of is not None:
        sel = lwp_tiles if lwp_tiles is not None else [i * tiles for i in range(nipus)]
        hdr["lwp"] = {"selectedTiles": sel}

    def put(o):
        out.write(json.dumps(o, separators=(",", ":")) + "\n")

    put(hdr)
    for r, run in enumerate(report.execution.runs):
        rec = {"type": "run", "run": r, "name": val(run, "name") or "Engine::run #%d" % r}
        us = val(run, "microseconds")
        if us is not None:
            rec["microseconds"] = {"start": int(us.start), "end": int(us.end)}
        put(rec)
        for step in run.steps:
            put(step_record(step, tiles))
    if blocks_of is not None:
        for tile in range(nipus * tiles):  # StreamCopy blocks appear on any tile
            for b in blocks_of(tile):
                kind = block_kind(b)
                f, t = val(b, "cyclesFrom"), val(b, "cyclesTo")
                rec = {"type": "block", "tile": tile, "kind": kind,
                       "cyclesFrom": None if f is None else int(f),
                       "cyclesTo": None if t is None else int(t)}
                if kind == "Common":
                    rec["name"] = val(b.program, "name")
                put(rec)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("profile", help="profile.pop")
    ap.add_argument("-o", "--output", default="-", help="output .jsonl (default stdout)")
    ap.add_argument("--lwp-tiles", help="selected LWP tiles, global ids (default: tile 0 of "
                    "each IPU, Poplar's profiler.blocks.tile default)")
    args = ap.parse_args()
    import pva  # the Poplar SDK's libpva
    report = pva.openReport(args.profile)
    tiles = [int(x) for x in args.lwp_tiles.split(",")] if args.lwp_tiles else None
    if args.output == "-":
        export(report, sys.stdout, tiles)
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            export(report, f, tiles)


if __name__ == "__main__":
    main()
