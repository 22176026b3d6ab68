#!/usr/bin/python3
"""Writes the small Parquet files of tests/data/parquet/ and, next to each, FILE.expected:
one line per column "name<TAB>TYPE<TAB>v1<TAB>v2...", NULL for nulls, doubles as %.6f.

This is an independent, minimal Parquet *writer* (Thrift compact protocol by hand), so
tracedoc's reader is checked against files it did not produce. Features covered: data
page v1 and v2, PLAIN, PLAIN_DICTIONARY and RLE_DICTIONARY, RLE and bit-packed runs in
definition levels and dictionary indices, RLE booleans, UNCOMPRESSED, SNAPPY (literal
stream), GZIP and ZSTD (zstd CLI) codecs, several row groups and pages per chunk,
optional columns with nulls, BOOLEAN, INT32, INT64, FLOAT, DOUBLE, BYTE_ARRAY.
Files named bad_*.parquet use features the reader rejects; their .expected holds the
words the error message must contain.  Run: /usr/bin/python3 gen.py (in this folder)."""
import gzip, struct, subprocess, zlib

BOOL, I32, I64, FLT, DBL, BA = 0, 1, 2, 4, 5, 6
TNAME = {BOOL: "BOOLEAN", I32: "INT32", I64: "INT64", FLT: "FLOAT", DBL: "DOUBLE", BA: "BYTE_ARRAY"}
PLAIN, PLAIN_DICT, RLE, DELTA_BP, RLE_DICT = 0, 2, 3, 5, 8
UNC, SNAPPY, GZIP, LZ4, ZSTD = 0, 1, 2, 5, 6

def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F; n >>= 7
        if n: out.append(b | 0x80)
        else: out.append(b); return bytes(out)
def zz(n): return varint((n << 1) ^ (n >> 63))

class T:  # Thrift compact writer
    def __init__(s): s.b = bytearray(); s.last = [0]
    def fh(s, fid, ty):
        d = fid - s.last[-1]
        if 0 < d <= 15: s.b.append(d << 4 | ty)
        else: s.b.append(ty); s.b += zz(fid)
        s.last[-1] = fid
    def i32(s, fid, v): s.fh(fid, 5); s.b += zz(v)
    def i64(s, fid, v): s.fh(fid, 6); s.b += zz(v)
    def bin(s, fid, v): s.fh(fid, 8); s.b += varint(len(v)) + v
    def boolean(s, fid, v): s.fh(fid, 1 if v else 2)
    def begin(s, fid=None):
        if fid is not None: s.fh(fid, 12)
        s.last.append(0)
    def end(s): s.b.append(0); s.last.pop()
    def lst(s, fid, ety, n):
        s.fh(fid, 9)
        s.b.append(n << 4 | ety if n < 15 else 0xF0 | ety)
        if n >= 15: s.b += varint(n)
    def list_begin_struct(s): s.last.append(0)

def plain(ty, vals):
    if ty == BOOL:
        out = bytearray((len(vals) + 7) // 8)
        for i, v in enumerate(vals):
            if v: out[i // 8] |= 1 << (i % 8)
        return bytes(out)
    fmt = {I32: "<i", I64: "<q", FLT: "<f", DBL: "<d"}.get(ty)
    if fmt: return b"".join(struct.pack(fmt, v) for v in vals)
    return b"".join(struct.pack("<I", len(v)) + v for v in (x.encode() for x in vals))

def bitpack(vals, bw):
    vals = list(vals) + [0] * (-len(vals) % 8)
    acc = nbits = 0; out = bytearray()
    for v in vals:
        acc |= v << nbits; nbits += bw
        while nbits >= 8: out.append(acc & 0xFF); acc >>= 8; nbits -= 8
    return bytes(out)

def hybrid(vals, bw, style):
    """style 'bp': one bit-packed run; 'rle': RLE runs; 'mix': RLE for runs >= 8."""
    if style == "bp" or not vals:
        return varint((len(vals) + 7) // 8 << 1 | 1) + bitpack(vals, bw)
    out = bytearray(); i = 0; pend = []
    nb = (bw + 7) // 8
    def flush():
        nonlocal pend
        if pend:
            # bit-packed runs must be whole groups of 8: pad by RLE-encoding the rest
            k = len(pend) // 8 * 8
            if k: out.extend(varint(k // 8 << 1 | 1) + bitpack(pend[:k], bw))
            for v in pend[k:]: out.extend(varint(1 << 1) + v.to_bytes(nb, "little"))
            pend = []
    while i < len(vals):
        j = i
        while j < len(vals) and vals[j] == vals[i]: j += 1
        if style == "rle" or j - i >= 8:
            flush(); out += varint((j - i) << 1) + vals[i].to_bytes(nb, "little")
        else: pend += vals[i:j]
        i = j
    flush()
    return bytes(out)

def snappy_literal(data):
    out = bytearray(varint(len(data))); i = 0
    while i < len(data):
        chunk = data[i:i + 60000]; n = len(chunk) - 1
        if n < 60: out.append(n << 2)
        elif n < 256: out += bytes([60 << 2, n])
        else: out += bytes([61 << 2]) + struct.pack("<H", n)
        out += chunk; i += len(chunk)
    return bytes(out)

def compress(codec, data):
    if codec == UNC: return data
    if codec == SNAPPY: return snappy_literal(data)
    if codec == GZIP: return gzip.compress(data, mtime=0)
    if codec == ZSTD: return subprocess.run(["zstd", "-q", "-c", "-"], input=data, capture_output=True, check=True).stdout
    if codec == LZ4: return data  # never decoded: the reader rejects the codec first
    raise ValueError(codec)

def page_header(ptype, usize, csize, sub):
    t = T(); t.i32(1, ptype); t.i32(2, usize); t.i32(3, csize)
    fid = {0: 5, 2: 7, 3: 8}[ptype]
    t.begin(fid); sub(t); t.end(); t.b.append(0)
    return bytes(t.b)

def column_chunk(col, vals, codec, v2, pages, dict_enc, def_style):
    """Returns (bytes, encodings) for one chunk; offsets are fixed up by the caller."""
    ty, opt = col["type"], col["optional"]
    out = bytearray(); encs = {RLE}
    dvals = None
    if dict_enc:
        dvals = []
        for v in vals:
            if v is not None and v not in dvals: dvals.append(v)
        body = plain(ty, dvals); cb = compress(codec, body)
        def sub(t): t.i32(1, len(dvals)); t.i32(2, PLAIN_DICT if dict_enc == "plain_dict" else PLAIN)
        out += page_header(2, len(body), len(cb), sub) + cb
        encs.add(PLAIN_DICT if dict_enc == "plain_dict" else PLAIN)
    per = -(-len(vals) // pages)
    for p in range(pages):
        pv = vals[p * per:(p + 1) * per]
        if not pv: continue
        defs = [0 if v is None else 1 for v in pv]
        present = [v for v in pv if v is not None]
        if dvals is not None:
            idx = [dvals.index(v) for v in present]
            bw = max(1, (len(dvals) - 1).bit_length())
            values = bytes([bw]) + hybrid(idx, bw, "mix"); enc = PLAIN_DICT if dict_enc == "plain_dict" else RLE_DICT
        elif col.get("rle_bool"):
            h = hybrid([int(v) for v in present], 1, "rle"); values = struct.pack("<I", len(h)) + h; enc = RLE
        else:
            values = plain(ty, present); enc = PLAIN
        encs.add(enc)
        lv = hybrid(defs, 1, def_style) if opt else b""
        if not v2:
            body = (struct.pack("<I", len(lv)) + lv if opt else b"") + values
            cb = compress(codec, body)
            def sub(t): t.i32(1, len(pv)); t.i32(2, enc); t.i32(3, RLE); t.i32(4, RLE)
            out += page_header(0, len(body), len(cb), sub) + cb
        else:
            cv = compress(codec, values)
            def sub(t):
                t.i32(1, len(pv)); t.i32(2, len(pv) - len(present)); t.i32(3, len(pv))
                t.i32(4, enc); t.i32(5, len(lv)); t.i32(6, 0)
                if codec == UNC: t.boolean(7, False)
            out += page_header(3, len(lv) + len(values), len(lv) + len(cv), sub) + lv + cv
    return bytes(out), sorted(encs), dvals is not None

def write(path, cols, data, groups, codec=UNC, v2=False, pages=1, dict_cols=(), def_style="mix",
          bad=None, expected=None):
    n = len(data[cols[0]["name"]])
    body = bytearray(b"PAR1")
    rgs = []
    per = -(-n // groups)
    for g in range(groups):
        lo, hi = g * per, min(n, (g + 1) * per)
        chunks = []
        for c in cols:
            start = len(body)
            de = ("plain_dict" if c["name"].endswith("_pd") else "rle_dict") if c["name"] in dict_cols or c["name"].endswith("_pd") else None
            b, encs, has_dict = column_chunk(c, data[c["name"]][lo:hi], codec, v2, pages, de, def_style)
            if bad == "delta" and c["name"] == cols[-1]["name"]:
                b = page_header(0, 4, 4, lambda t: (t.i32(1, hi - lo), t.i32(2, DELTA_BP), t.i32(3, RLE), t.i32(4, RLE))) + b"\0\0\0\0"
                encs = [DELTA_BP]
            body += b
            chunks.append((c, start, len(b), encs, has_dict, hi - lo))
        rgs.append((chunks, hi - lo))
    t = T(); t.begin()
    t.i32(1, 1)
    leaves = [("schema", None, len(cols))] + [(c["name"], c, 0) for c in cols]
    if bad == "nested":
        leaves = [("schema", None, len(cols))] + [(c["name"], c, 0) for c in cols[:-1]] + [("grp", "group", 1), (cols[-1]["name"], cols[-1], 0)]
    t.lst(2, 12, len(leaves))
    for name, c, nch in leaves:
        t.list_begin_struct()
        if c == "group":
            t.i32(3, 1); t.bin(4, name.encode()); t.i32(5, nch)
        elif c is None:
            t.bin(4, name.encode()); t.i32(5, nch)
        else:
            t.i32(1, c["type"]); t.i32(3, 2 if bad == "nested" and c is cols[-1] else (1 if c["optional"] else 0)); t.bin(4, name.encode())
        t.end()
    t.i64(3, n)
    t.lst(4, 12, len(rgs))
    for chunks, rows in rgs:
        t.list_begin_struct()
        t.lst(1, 12, len(chunks))
        tot = 0
        for c, start, size, encs, has_dict, nv in chunks:
            tot += size
            t.list_begin_struct()
            t.i64(2, start)
            t.begin(3)
            t.i32(1, c["type"])
            t.lst(2, 5, len(encs))
            for e in encs: t.b += zz(e)
            t.lst(3, 8, 1); t.b += varint(len(c["name"])) + c["name"].encode()
            t.i32(4, LZ4 if bad == "lz4" else codec)
            t.i64(5, nv); t.i64(6, size); t.i64(7, size)
            if has_dict:
                # the first page is the dictionary; the data page follows it
                t.i64(9, start + 1); t.i64(11, start)
            else:
                t.i64(9, start)
            t.end()
            t.end()
        t.i64(2, tot); t.i64(3, rows)
        t.end()
    t.bin(6, b"tracedoc tests/data/parquet/gen.py")
    t.end()
    meta = bytes(t.b)[:-0 or None]
    body += meta + struct.pack("<I", len(meta)) + b"PAR1"
    open(path, "wb").write(body)
    with open(path + ".expected", "w") as f:
        if expected is not None:
            f.write(expected + "\n"); return
        for c in cols:
            vals = data[c["name"]]
            def fmt(v):
                if v is None: return "NULL"
                if c["type"] in (FLT, DBL): return "%.6f" % v
                if c["type"] == BOOL: return str(int(v))
                return str(v)
            f.write("\t".join([c["name"], TNAME[c["type"]]] + [fmt(v) for v in vals]) + "\n")

N = 100
cols = [dict(name="id", type=I64, optional=False), dict(name="x", type=DBL, optional=True),
        dict(name="name", type=BA, optional=True), dict(name="flag", type=BOOL, optional=False),
        dict(name="small", type=I32, optional=False), dict(name="f", type=FLT, optional=True)]
data = {
    "id": [10_000_000_000 + 7 * i for i in range(N)],
    "x": [None if i % 7 == 3 else i * 0.25 - 3 for i in range(N)],
    "name": [None if i % 11 == 5 else ["alpha", "beta", "gamma", "dé", ""][i % 5] + str(i // 30) for i in range(N)],
    "flag": [i % 3 == 0 for i in range(N)],
    "small": [-(i * i) if i % 2 else i for i in range(N)],
    "f": [None if i < 9 else i / 4 for i in range(N)],
}
write("plain_v1.parquet", cols, data, groups=1)
write("multi_rg_snappy.parquet", cols, data, groups=3, codec=SNAPPY, pages=2, def_style="bp")
write("dict_v2_gzip.parquet", cols, data, groups=2, codec=GZIP, v2=True, dict_cols=("name", "small"))
write("dict_v1_zstd.parquet", cols, data, groups=1, codec=ZSTD, pages=3, dict_cols=("name", "x", "id"), def_style="rle")
cols_pd = [dict(name="s_pd", type=BA, optional=True), dict(name="b", type=BOOL, optional=False, rle_bool=True)]
data_pd = {"s_pd": [None if i % 4 == 0 else "v%d" % (i % 3) for i in range(40)], "b": [i % 5 < 2 for i in range(40)]}
write("plain_dict_v2.parquet", cols_pd, data_pd, groups=1, v2=True)
write("bad_lz4.parquet", cols[:2], data, groups=1, bad="lz4", expected="column 'id'\tLZ4")
write("bad_delta.parquet", cols[:2], data, groups=1, bad="delta", expected="column 'x'\tDELTA_BINARY_PACKED")
write("bad_nested.parquet", cols[:2], data, groups=1, bad="nested", expected="column 'grp.x'\tnested or repeated")

# The nsys 2024.5+ layout of nvtx_gpu_proj_trace/trace.parquet (no "TSL:" prefix, times
# already projected): one module "m" (program 5) run 3 times on the pax archive's main
# thread (PID = TID = 215733), durations 100, 200, 300 ns, two thunks each.
alt = [dict(name="Text", type=BA, optional=False), dict(name="Start", type=I64, optional=False),
       dict(name="End", type=I64, optional=False), dict(name="PID", type=I64, optional=False),
       dict(name="TID", type=I64, optional=False), dict(name="Range ID", type=I64, optional=False),
       dict(name="Parent ID", type=I64, optional=True)]
rows = {c["name"]: [] for c in alt}
rid = 1
for k in range(3):
    s0 = 1000 * (k + 1); d = 100 * (k + 1); mid = rid
    for text, s, e, par in (("XlaModule:#hlo_module=m,program_id=5#", s0, s0 + d, None),
                            ("Thunk:#hlo_op=fusion.1#", s0, s0 + d // 2, mid),
                            ("Thunk:#hlo_op=copy.2#", s0 + d // 2, s0 + d, mid)):
        for c, v in zip(alt, (text, s, e, 215733, 215733, rid, par)): rows[c["name"]].append(v)
        rid += 1
write("alt_trace.parquet", alt, rows, groups=1, dict_cols=("Text",))
