#!/usr/bin/env python3
"""Generates small hostile inputs for the resource-bound tests (tests/cases/bounds.sh).

  hostile.py deep N OUT.json.gz     N nested complete events (one thread, each inside the
                                    previous), plus a kernel launched from the innermost
  hostile.py wide N OUT.json.gz     N sibling events under one parent
  hostile.py nvtx N OUT.sqlite BASE.sqlite   BASE with N nested NVTX ranges added
  hostile.py tarbomb MB OUT.tar.gz  a tar.gz whose one trace inflates to MB MiB (blanks, then one event)
  hostile.py zipbomb MB OUT.zip     an nsys-jax zip whose Parquet member inflates to MB MiB
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


if __name__ == "__main__":
    kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if kind == "nvtx":
        nvtx(n, out, sys.argv[4])
    else:
        {"deep": deep, "wide": wide, "tarbomb": tarbomb, "zipbomb": zipbomb}[kind](n, out)
