#!/usr/bin/env python3
"""Build tests/data/nsysjax/one_process_4gpu.zip: an nsys-jax archive of before mid-2024
(no thread-metadata.parquet) of ONE process driving 4 GPUs, from the shared 4-process
archives ../shared/traces/nsys-jax/pax_fsdp4_4proc_proc{0..3}.zip (one GPU each).

How (issue 21): in such a process PjRt runs a program of several devices on each device's
launcher thread and a single-device program on the calling (main) thread. So:
- the main thread (TID = PID = proc0's 215733) keeps proc0's XlaCompile ranges and its
  single-device programs (jit_convert_element_type, threefry, reshape, transpose,
  unstack, concatenate, pjit__identity) with their thunks;
- launcher thread k (proc k's XlaLauncher TID) gets proc k's multi-device programs
  (jit__psum, pjit_init_model_from_seed, pjit__wrapped_step_fn) with their thunks, the
  range ids moved by k x 10^7 so that they stay unique;
- autotuning modules (no program id) and NCCL ranges are left out, and each module keeps
  its first 24 top-level thunks (with what they contain), its end moved to its last kept
  range's end and NumGPUOps / NumChild recounted, so the file stays small.
Input: the archives' nvtx_gpu_proj_trace/trace.parquet decoded to TSV by
tests/gen/pq_dump.c (argv: four TSV files); output: the zip (argv[5]), whose only member is
nvtx_gpu_proj_trace/trace.parquet, written here as plain uncompressed Parquet.
"""
import struct, sys, zipfile

MULTI = ("jit__psum", "pjit_init_model_from_seed", "pjit__wrapped_step_fn")
KEEP = 24
LAUNCHER = [216695, 216691, 216697, 216693]
PID = 215733


def rows(path):
    with open(path) as f:
        hdr = f.readline().rstrip("\n").split("\t")
        for line in f:
            v = dict(zip(hdr, line.rstrip("\n").split("\t")))
            yield v


def field(name, key):
    body = name.split("#")[1] if "#" in name else ""
    for kv in body.split(","):
        if kv.startswith(key + "="):
            return kv[len(key) + 1:]
    return None


def select(path, k):
    rs = [r for r in rows(path) if r["Name"] != "NULL" and r["RangeId"] != "NULL"]
    byid = {r["RangeId"]: r for r in rs}
    kids = {}
    for r in rs:
        kids.setdefault(r["ParentId"], []).append(r)
    out = []

    def subtree(r, acc):
        acc.append(r)
        for c in kids.get(r["RangeId"], []):
            subtree(c, acc)

    for r in rs:
        n = r["Name"]
        if n.startswith("TSL:XlaCompile:") and k == 0:
            out.append(dict(r, TID=str(PID), Lvl="0", NumChild="0", ParentId="NULL"))
            continue
        if not n.startswith("TSL:XlaModule:") or field(n, "program_id") is None:
            continue
        if r["ParentId"] != "NULL" and r["ParentId"] in byid:
            continue  # nested module: autotuning inside compilation
        multi = field(n, "hlo_module") in MULTI
        if not multi and k != 0:
            continue
        tid = LAUNCHER[k] if multi else PID
        top = kids.get(r["RangeId"], [])[:KEEP]
        sub = []
        for c in top:
            subtree(c, sub)
        end = max([int(c["Projected Start"]) + int(c["Projected Duration"]) for c in sub] or
                  [int(r["Projected Start"]) + int(r["Projected Duration"])])
        m = dict(r, TID=str(tid), NumChild=str(len(top)),
                 NumGPUOps=str(sum(int(c["NumGPUOps"]) for c in top if c["NumGPUOps"] != "NULL")),
                 **{"Projected Duration": str(end - int(r["Projected Start"]))})
        out.append(m)
        for c in sub:
            nc = len([x for x in kids.get(c["RangeId"], [])])
            out.append(dict(c, TID=str(tid), NumChild=str(nc)))
    off = k * 10 ** 7
    for r in out:
        r["PID"] = str(PID)
        r["RangeId"] = str(int(r["RangeId"]) + off)
        if r["ParentId"] != "NULL":
            r["ParentId"] = str(int(r["ParentId"]) + off)
    return out


# ---- a minimal Parquet writer: one row group, one PLAIN data page v1 per column, every
# column OPTIONAL (definition levels as one bit-packed run), UNCOMPRESSED
def varint(n):
    b = bytearray()
    while True:
        x = n & 0x7F
        n >>= 7
        if n:
            b.append(x | 0x80)
        else:
            b.append(x)
            return bytes(b)


def zz(n):
    return varint((n << 1) ^ (n >> 63))


class T:  # Thrift compact protocol, struct fields in increasing id order
    def __init__(self):
        self.b = bytearray()
        self.last = [0]

    def fh(self, fid, t):
        d = fid - self.last[-1]
        if 0 < d <= 15:
            self.b.append((d << 4) | t)
        else:
            self.b.append(t)
            self.b += zz(fid)
        self.last[-1] = fid

    def i32(self, fid, v):
        self.fh(fid, 5)
        self.b += zz(v)

    def i64(self, fid, v):
        self.fh(fid, 6)
        self.b += zz(v)

    def s(self, fid, v):
        self.fh(fid, 8)
        v = v.encode()
        self.b += varint(len(v)) + v

    def begin(self, fid):
        self.fh(fid, 12)
        self.last.append(0)

    def end(self):
        self.b.append(0)
        self.last.pop()

    def lst(self, fid, t, n):
        self.fh(fid, 9)
        self.b.append((n << 4) | t if n < 15 else 0xF0 | t)
        if n >= 15:
            self.b += varint(n)

    def lbegin(self):  # a struct element of a list
        self.last.append(0)


def parquet(cols, nrows):
    """cols: [(name, 'str'|'i64', values with None)]"""
    out = bytearray(b"PAR1")
    meta = []
    for name, kind, vals in cols:
        bits = bytearray((len(vals) + 7) // 8)
        data = bytearray()
        for i, v in enumerate(vals):
            if v is None:
                continue
            bits[i // 8] |= 1 << (i % 8)
            if kind == "i64":
                data += struct.pack("<q", v)
            else:
                e = v.encode()
                data += struct.pack("<I", len(e)) + e
        run = varint(((len(vals) + 7) // 8) << 1 | 1) + bytes(bits)
        page = struct.pack("<I", len(run)) + run + data
        h = T()
        h.i32(1, 0)
        h.i32(2, len(page))
        h.i32(3, len(page))
        h.begin(5)
        h.i32(1, len(vals))
        h.i32(2, 0)
        h.i32(3, 3)
        h.i32(4, 3)
        h.end()
        h.b.append(0)
        off = len(out)
        out += h.b + page
        meta.append((name, kind, off, len(h.b) + len(page), len(vals)))
    f = T()
    f.i32(1, 1)
    f.lst(2, 12, len(cols) + 1)
    f.lbegin(); f.s(4, "schema"); f.i32(5, len(cols)); f.end()
    for name, kind, _ in cols:
        f.lbegin()
        f.i32(1, 2 if kind == "i64" else 6)
        f.i32(3, 1)
        f.s(4, name)
        if kind == "str":
            f.i32(6, 0)
        f.end()
    f.i64(3, nrows)
    f.lst(4, 12, 1)
    f.lbegin()
    f.lst(1, 12, len(meta))
    for name, kind, off, size, n in meta:
        f.lbegin()
        f.i64(2, off)
        f.begin(3)
        f.i32(1, 2 if kind == "i64" else 6)
        f.lst(2, 5, 2); f.b += zz(0) + zz(3)
        f.lst(3, 8, 1); f.b += varint(len(name.encode())) + name.encode()
        f.i32(4, 0)
        f.i64(5, n)
        f.i64(6, size)
        f.i64(7, size)
        f.i64(9, off)
        f.end()
        f.end()
    f.i64(2, sum(m[3] for m in meta))
    f.i64(3, nrows)
    f.end()
    f.b.append(0)
    out += f.b + struct.pack("<I", len(f.b)) + b"PAR1"
    return bytes(out)


def main():
    rs = []
    for k in range(4):
        rs += select(sys.argv[1 + k], k)
    rs.sort(key=lambda r: (int(r["Projected Start"]), int(r["RangeId"])))
    spec = [("Name", "str"), ("Projected Start", "i64"), ("Projected Duration", "i64"),
            ("PID", "i64"), ("TID", "i64"), ("NumGPUOps", "i64"), ("Lvl", "i64"),
            ("NumChild", "i64"), ("RangeId", "i64"), ("ParentId", "i64")]
    cols = []
    for name, kind in spec:
        v = [r[name] for r in rs]
        v = [None if x == "NULL" else (int(x) if kind == "i64" else x) for x in v]
        cols.append((name, kind, v))
    with zipfile.ZipFile(sys.argv[5], "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("nvtx_gpu_proj_trace/trace.parquet", parquet(cols, len(rs)))


main()
