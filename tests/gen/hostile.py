#!/usr/bin/env python3
"""Generates small hostile inputs for the resource-bound tests (tests/cases/bounds.sh).

  hostile.py deep N OUT.json.gz     N nested complete events (one thread, each inside the
                                    previous), plus a kernel launched from the innermost
  hostile.py wide N OUT.json.gz     N sibling events under one parent
  hostile.py nvtx N OUT.sqlite BASE.sqlite   BASE with N nested NVTX ranges added
  hostile.py tarbomb MB OUT.tar.gz  a tar.gz whose one trace inflates to MB MiB (blanks, then one event)
  hostile.py zipbomb MB OUT.zip     an nsys-jax zip whose Parquet member inflates to MB MiB
  hostile.py strbomb MB OUT.json.gz a Kineto trace whose first event's name is MB MiB of 'a'
                                    (a gzip of 1 MiB members: made in no time, 1 KB a MiB)
  hostile.py evbomb MB OUT.json.gz  a gzip of MB MiB of identical small events
  hostile.py sqlitegz MB OUT.gz     a gzip of an SQLite header and MB MiB of zeros
  hostile.py hlobomb MB OUT.zip BASE.zip   BASE (an nsys-jax archive) whose step function's
                                    HLO dump is an xz of MB MiB of zeros
  hostile.py nsysview 0 OUT.sqlite BASE.sqlite   BASE whose kernel table is a view
  hostile.py pqrows N OUT.zip       an nsys-jax zip whose trace.parquet (a few hundred bytes)
                                    says it holds N rows of one INT64 column
  hostile.py xplanehlo MB OUT.xplane.pb.gz  an XSpace (gzip) whose /host:metadata plane
                                    holds an "Hlo Proto" stat of MB MiB of zeros
  hostile.py tarsqlite MB OUT.tar.gz  a tar.gz whose one member is an SQLite header and MB
                                    MiB of zeros
"""
import gzip, io, json, sqlite3, sys, tarfile, zipfile


def deep(n, out):
    ev = []
    for i in range(n):
        ev.append({"ph": "X", "cat": "cpu_op", "name": "op%d" % (i % 7), "pid": 1, "tid": 1,
                   "ts": i, "dur": 2 * (n - i) + 10, "args": {}})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
               "ts": n, "dur": 5, "args": {"correlation": 1}})
    ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": n + 3,
               "dur": 4, "args": {"correlation": 1, "device": 0, "stream": 7}})
    data = json.dumps({"traceEvents": ev, "displayTimeUnit": "ms"}, separators=(",", ":"))
    with gzip.open(out, "wb", compresslevel=9) as f:
        f.write(data.encode())


def wide(n, out):
    ev = [{"ph": "X", "cat": "cpu_op", "name": "parent", "pid": 1, "tid": 1, "ts": 0,
           "dur": 3 * n + 10, "args": {}}]
    for i in range(n):
        ev.append({"ph": "X", "cat": "cpu_op", "name": "c%d" % (i % 5), "pid": 1, "tid": 1,
                   "ts": 1 + 3 * i, "dur": 2, "args": {}})
    with gzip.open(out, "wb", compresslevel=9) as f:
        f.write(json.dumps({"traceEvents": ev}).encode())


def nvtx(n, out, base):
    """A copy of a real Nsight Systems export (base) with n nested NVTX push/pop ranges
    added on the thread that makes the CUDA runtime calls, around all of them."""
    import shutil
    shutil.copyfile(base, out)
    db = sqlite3.connect(out)
    tid, t0, t1 = db.execute("SELECT globalTid, min(start), max(end) FROM "
                             "CUPTI_ACTIVITY_KIND_RUNTIME GROUP BY globalTid "
                             "ORDER BY count(*) DESC LIMIT 1").fetchone()
    rows = [(t0 - n + i, t1 + n - i, 59, "range%d" % (i % 9), tid) for i in range(n)]
    db.executemany("INSERT INTO NVTX_EVENTS(start,end,eventType,text,globalTid) "
                   "VALUES(?,?,?,?,?)", rows)
    db.commit()
    db.close()


def tarbomb(mb, out):
    # one event after the blanks: a trace that holds events (an empty one is exit 7)
    ev = b'{"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 1, "dur": 2}'
    data = b'{"traceEvents":[' + b" " * (mb << 20) + ev + b"]}"
    with tarfile.open(out, "w:gz", compresslevel=9) as t:
        ti = tarfile.TarInfo("big.json")
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))


def zipbomb(mb, out):
    """An nsys-jax-looking archive whose Parquet member inflates to mb MiB."""
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("nvtx_gpu_proj_trace/trace.parquet", b"PAR1" + b"\0" * (mb << 20) + b"PAR1")


def gz_repeat(out, head, body, times, tail):
    """head, then body `times` times, then tail, as a gzip of several members: body is
    compressed once and its member repeated (a reader sees one stream)."""
    zb = gzip.compress(body, 9)
    with open(out, "wb") as f:
        f.write(gzip.compress(head, 9))
        for _ in range(times):
            f.write(zb)
        f.write(gzip.compress(tail, 9))


def strbomb(mb, out):
    gz_repeat(out, b'{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"', b"a" * (1 << 20), mb,
              b'","pid":1,"tid":1,"ts":1,"dur":2},{"ph":"X","cat":"cpu_op","name":"op",'
              b'"pid":1,"tid":1,"ts":5,"dur":2}]}')


def evbomb(mb, out):
    ev = b'{"ph":"i","s":"t","name":"a","pid":1,"tid":1,"ts":1},'
    body = ev * ((1 << 20) // len(ev))
    gz_repeat(out, b'{"traceEvents":[', body, mb, ev[:-1] + b"]}")


def sqlitegz(mb, out):
    gz_repeat(out, b"SQLite format 3\0", b"\0" * (1 << 20), mb, b"")


def hlobomb(mb, out, base):
    import lzma
    c = lzma.LZMACompressor(preset=0)
    z = b"\0" * (1 << 20)
    bomb = b"".join([c.compress(z) for _ in range(mb)] + [c.flush()])
    with zipfile.ZipFile(base) as src, zipfile.ZipFile(out, "w") as dst:
        for i in src.infolist():
            d = src.read(i.filename)
            if "wrapped_step_fn" in i.filename and i.filename.endswith("_gpu_after_optimizations.hlo.pb.xz"):
                d = bomb
            dst.writestr(i, d)


def tarsqlite(mb, out):
    size = mb << 20
    ti = tarfile.TarInfo("big.sqlite")
    ti.size = size
    head = ti.tobuf(tarfile.USTAR_FORMAT) + b"SQLite format 3\0" + b"\0" * ((1 << 20) - 16)
    # the member's data, then the tar's two zero blocks and padding to 10 KiB records:
    # zeros too, in the last 1 MiB member of the gzip
    gz_repeat(out, head, b"\0" * (1 << 20), mb - 1, b"\0" * 10240)


def pqrows(n, out):
    """Parquet's footer (Thrift compact protocol) by hand: version 1, a schema of a root
    and one required INT64 leaf 'a', num_rows n, no row groups."""
    def uv(x):
        b = b""
        while True:
            if x < 0x80:
                return b + bytes([x])
            b += bytes([(x & 0x7F) | 0x80])
            x >>= 7
    zz = lambda x: uv((x << 1) ^ (x >> 63))
    st = lambda s: uv(len(s)) + s
    root = b"\x48" + st(b"schema") + b"\x15" + zz(1) + b"\x00"
    leaf = b"\x15" + zz(2) + b"\x25" + zz(0) + b"\x18" + st(b"a") + b"\x00"
    meta = (b"\x15" + zz(1) + b"\x19\x2c" + root + leaf + b"\x16" + zz(n) + b"\x19\x0c" +
            b"\x00")
    pq = b"PAR1" + meta + len(meta).to_bytes(4, "little") + b"PAR1"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("nvtx_gpu_proj_trace/trace.parquet", pq)


def xplanehlo(mb, out):
    """The protobuf wire format by hand: XSpace.planes(1) = XPlane{name(2)
    "/host:metadata", stat_metadata(5) {9: "Hlo Proto"}, event_metadata(4) {1:
    XEventMetadata{id 1, name "m", stats(5) = XStat{metadata_id 9, bytes_value(6)}}}}."""
    def v(x):
        o = bytearray()
        while True:
            c = x & 0x7F
            x >>= 7
            if x:
                o.append(c | 0x80)
            else:
                o.append(c)
                return bytes(o)
    k = lambda f, w: v(f << 3 | w)
    ld = lambda f, b: k(f, 2) + v(len(b)) + b
    n = mb << 20
    smeta = ld(5, k(1, 0) + v(9) + ld(2, k(1, 0) + v(9) + ld(2, b"Hlo Proto")))
    stat_head = k(1, 0) + v(9) + k(6, 2) + v(n)             # XStat up to its bytes
    stat = k(5, 2) + v(len(stat_head) + n) + stat_head       # XEventMetadata.stats
    emd_head = k(1, 0) + v(1) + ld(2, b"m") + stat
    emd_len = len(emd_head) + n
    entry_head = k(1, 0) + v(1) + k(2, 2) + v(emd_len) + emd_head
    entry = k(4, 2) + v(len(entry_head) + n) + entry_head   # event_metadata map entry
    body_head = ld(2, b"/host:metadata") + smeta + entry
    head = k(1, 2) + v(len(body_head) + n) + body_head       # XSpace.planes
    gz_repeat(out, head, b"\0" * (1 << 20), mb, b"")


def nsysview(_, out, base):
    import shutil
    shutil.copyfile(base, out)
    db = sqlite3.connect(out)
    db.execute("ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO kernels_real")
    db.execute("CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS SELECT * FROM kernels_real")
    db.commit()
    db.close()


if __name__ == "__main__":
    kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if kind in ("nvtx", "hlobomb", "nsysview"):
        {"nvtx": nvtx, "hlobomb": hlobomb, "nsysview": nsysview}[kind](n, out, sys.argv[4])
    else:
        {"deep": deep, "wide": wide, "tarbomb": tarbomb, "zipbomb": zipbomb, "strbomb": strbomb,
         "evbomb": evbomb, "sqlitegz": sqlitegz, "tarsqlite": tarsqlite, "pqrows": pqrows, "xplanehlo": xplanehlo}[kind](n, out)
