# tools/popvision_export.py against a stand-in `pva` module that mimics libpva's
# documented Python API (pva.openReport, report.compilation.target, report.execution
# runs/steps/blocks, step.program/ipus/cyclesByTile, enum .name): the export must read
# back into the numbers the stand-in holds.
. "$ROOT/tests/lib.sh"
mkdir -p "$WORK/py"
cat >"$WORK/py/pva.py" <<'PYEOF'
"""Stand-in for libpva: only the properties tools/popvision_export.py reads."""
import enum
class _Type(enum.Enum):
    OnTileExecute = 1; DoExchange = 2; GlobalExchange = 3; StreamCopyBegin = 4
    StreamCopyMid = 5; StreamCopyEnd = 6; Sync = 7; ExternalSync = 8; SyncAns = 9
class Program:
    Type = _Type
    def __init__(self, t, name): self.type = _Type[t]; self.name = name
class _O:
    def __init__(self, **kw): self.__dict__.update(kw)
def _ipu(f, t, cycles, din=None, dout=None, tb=None):
    o = _O(activeCycles=_O(cyclesFrom=_O(min=f, max=f), cyclesTo=_O(min=t, max=t)), cycles=cycles,
           tileBalance=tb, activeTileBalance=None, dataIn=din, dataOut=dout)
    return o
class _Step:
    def __init__(self, t, name, ipus, by_tile): self.program = Program(t, name); self.ipus = ipus; self.cyclesByTile = by_tile
class _Block:
    def __init__(self, kind, name, f, t):
        self.program = Program(kind if kind.startswith("StreamCopy") else "OnTileExecute", name)
        self.cyclesFrom, self.cyclesTo = f, t
        self.isCommon = kind == "Common"; self.isOverflow = kind == "Overflow"
        self.isBlockFlush = kind == "BufferFlush"; self.isStreamCopy = kind.startswith("StreamCopy")
class _Exec:
    def __init__(self):
        s1 = [_Step("OnTileExecute", "m/conv", [_ipu(0, 100, 100, tb=0.5), _ipu(0, 60, 60)], [100, 0, 60, 60]),
              _Step("Sync", "", [_ipu(100, 120, 20), _ipu(60, 120, 60)], [20, 20, 60, 60]),
              _Step("StreamCopyMid", "in Remote -> Device", [_ipu(120, 150, 30, 256, 0)], [30, 0])]
        s2 = [_Step("DoExchange", "m/ex", [_ipu(0, 40, 40, 10, 20), _ipu(0, 10, 10, 5, 5)], [40, 40, 10, 0])]
        self.runs = [_O(name="Engine::run #0", microseconds=_O(start=5, end=9), steps=s1),
                     _O(name="step", microseconds=_O(start=20, end=21), steps=s2)]
    def blocks(self, tile):
        if tile == 0:
            return [_Block("Common", "stage", 1000, 1600), _Block("BufferFlush", "", 1700, 1750)]
        if tile == 3:
            return [_Block("StreamCopyMid", "", 900, 950)]
        return []
class _Report:
    def __init__(self):
        self.compilation = _O(target=_O(numIPUs=2, tilesPerIpu=2, clockFrequency=1.5e9))
        self.poplarVersion = _O(string="3.3.0 (stand-in)")
        self.execution = _Exec()
def openReport(path):
    assert path.endswith(".pop")
    return _Report()
PYEOF
PYTHONPATH="$WORK/py" $PY "$ROOT/tools/popvision_export.py" profile.pop -o "$WORK/x.jsonl" || die "exporter failed"
"$TD" summary --format json "$WORK/x.jsonl" >"$WORK/s.json" 2>"$WORK/err" || die "tracedoc on the export: $(cat "$WORK/err")"
$PY - "$WORK/s.json" "$WORK/x.jsonl" <<'PYEOF' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
lines = [json.loads(l) for l in open(sys.argv[2])]
assert lines[0]["target"] == {"numIPUs": 2, "tilesPerIpu": 2, "clockFrequency": 1.5e9}, lines[0]
assert lines[0]["lwp"] == {"selectedTiles": [0, 2]}
# cyclesByTile is the step's list over all tiles, cut per IPU
conv = lines[2]["ipus"]
assert conv[0]["cyclesByTile"] == [100, 0] and conv[1]["cyclesByTile"] == [60, 60], conv
mid = [l for l in lines if l.get("program", {}).get("type") == "StreamCopyMid"][0]
assert mid["program"]["direction"] == "RemoteBuffer", mid
# run 0: IPU 0 100+20+30 = 150, IPU 1 60+60 = 120 -> 150; run 1: max(40, 10) = 40
assert [(r["name"], r["steps"], r["cycles"], r["time_ns"]) for r in s["ipu_runs"]] == \
    [("Engine::run #0", 3, 150, 4000), ("step", 1, 40, 1000)], s["ipu_runs"]
# tile balance IPU 0 (non-sync steps): the exported 0.5 for the conv, the stream copy's
# 1 of 2 tiles active, the DoExchange's 2 of 2 -> (0.5 + 0.5 + 1) / 3
assert abs(s["ipu"]["0"]["tile_balance"] - (0.5 + 0.5 + 1) / 3) < 2e-6, s["ipu"]
assert s["ipu_stream_copies"][0]["direction"] == "RemoteBuffer" and s["ipu_stream_copies"][0]["in_bytes"] == 256
b = {(r["lane"], r["name"]): r for r in s["lwp_blocks"]}
assert b[("IPU 0 tile 0", "stage")]["cycles"] == 600 and b[("IPU 1 I/O", "StreamCopyMid")]["cycles"] == 50, b
assert s["lwp"]["flushes_hidden"] == 1
PYEOF
exit 0
