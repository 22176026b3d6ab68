#!/usr/bin/python3
"""Independent expectations for tracedoc's Nsight Systems SQLite reader, computed
straight from the database with Python's sqlite3 module (no tracedoc code involved).

  nsys_expect.py kern_sum DB          cuda_gpu_kern_sum as nsys stats defines it (CSV)
  nsys_expect.py nvtx DB              NVTX ranges with their GPU projection (TSV)
  nsys_expect.py compare EXPECT.csv GOT.csv   compare two kern_sum CSVs numerically
  nsys_expect.py synth DB             write a small synthetic export (several kernels)
"""
import csv
import math
import sqlite3
import sys


def tables(db):
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def kern_sum(path):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    names = dict(db.execute("SELECT id, value FROM StringIds"))
    groups = {}
    for start, end, dn, sn in db.execute(
            "SELECT start, end, demangledName, shortName FROM CUPTI_ACTIVITY_KIND_KERNEL"):
        name = names.get(dn) if dn is not None else names.get(sn)
        groups.setdefault(name, []).append(end - start)
    total_all = sum(sum(v) for v in groups.values())
    rows = []
    for name, d in groups.items():
        d.sort()
        n = len(d)
        tot = sum(d)
        avg = tot / n
        med = d[n // 2] if n % 2 else (d[n // 2 - 1] + d[n // 2]) / 2
        # sample standard deviation (n - 1); nsys reports 0 for one instance
        sd = math.sqrt(sum((x - avg) ** 2 for x in d) / (n - 1)) if n > 1 else 0.0
        rows.append([100.0 * tot / total_all, tot, n, avg, med, d[0], d[-1], sd, name])
    rows.sort(key=lambda r: (-r[1], r[8]))
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)",
                "Min (ns)", "Max (ns)", "StdDev (ns)", "Name"])
    for r in rows:
        w.writerow([repr(x) if isinstance(x, float) else x for x in r])


def compare(exp_path, got_path):
    exp = list(csv.reader(open(exp_path)))
    got = list(csv.reader(open(got_path)))
    if exp[0] != got[0]:
        sys.exit("header differs:\n expected %s\n got      %s" % (exp[0], got[0]))
    if len(exp) != len(got):
        sys.exit("expected %d rows, got %d" % (len(exp) - 1, len(got) - 1))
    # rows come by total time, largest first; the order among equal totals is free
    tot = exp[0].index("Total Time (ns)")
    totals = [int(r[tot]) for r in got[1:]]
    if totals != sorted(totals, reverse=True):
        sys.exit("rows are not sorted by total time: %s" % totals)
    name = exp[0].index("Name")
    exp[1:] = sorted(exp[1:], key=lambda r: (-int(r[tot]), r[name]))
    got[1:] = sorted(got[1:], key=lambda r: (-int(r[tot]), r[name]))
    ints = {"Total Time (ns)", "Instances", "Min (ns)", "Max (ns)"}
    for i, (e, g) in enumerate(zip(exp[1:], got[1:]), 1):
        for col, a, b in zip(exp[0], e, g):
            if col == "Name":
                ok = a == b
            elif col in ints:
                ok = b.lstrip("-").isdigit() and int(a) == int(b)
            else:
                # nsys prints these with one decimal: agree to well below that
                ok = abs(float(a) - float(b)) <= 1e-4 + 1e-9 * abs(float(a))
            if not ok:
                sys.exit("row %d column %r: expected %s, got %s" % (i, col, a, b))
    print("ok: %d rows" % (len(exp) - 1))


def nvtx(path):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    have = tables(db)
    names = dict(db.execute("SELECT id, value FROM StringIds"))
    P = lambda g: g // 0x1000000 % 0x1000000
    # device work by (pid, correlationId)
    work = {}
    for tab in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                "CUPTI_ACTIVITY_KIND_MEMSET"):
        if tab in have:
            for s, e, gp, c, dev in db.execute(
                    "SELECT start, end, globalPid, correlationId, deviceId FROM " + tab):
                work.setdefault((P(gp), c), []).append((s, e, dev))
    calls = {}
    for s, e, gt, c in db.execute(
            "SELECT start, end, globalTid, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME"):
        calls.setdefault(gt, []).append((s, e, c))
    domains = {d: t for t, d in db.execute(
        "SELECT text, domainId FROM NVTX_EVENTS WHERE eventType = 75")}
    out = []
    for s, e, typ, text, tid, gt, dom in db.execute(
            "SELECT start, end, eventType, text, textId, globalTid, domainId FROM NVTX_EVENTS "
            "WHERE eventType IN (59, 60) AND end IS NOT NULL"):
        name = text if text is not None else names.get(tid, "")
        if dom and dom in domains:
            name = "%s:%s" % (domains[dom], name)
        # correlation ids of calls fully inside the range, each once
        corrs = {c for cs, ce, c in calls.get(gt, []) if cs >= s and ce <= e and c}
        ops = [w for c in corrs for w in work.get((P(gt), c), [])]
        g0 = min(o[0] for o in ops) if ops else -1
        g1 = max(o[1] for o in ops) if ops else -1
        dev = min(ops)[2] if ops else -1
        out.append([s, e, name, gt, typ, g0, g1, len(ops), dev, 0, 0])
    # nesting of push/pop ranges per thread by containment
    pp = sorted((r for r in out if r[4] == 59), key=lambda r: (r[3], r[0], -r[1]))
    stack = []
    for r in pp:
        while stack and not (stack[-1][3] == r[3] and stack[-1][0] <= r[0] and r[1] <= stack[-1][1]):
            stack.pop()
        if stack:
            r[9] = stack[-1][9] + 1
            stack[-1][10] += 1
        stack.append(r)
    out.sort(key=lambda r: (r[0], -r[1], r[2]))
    for r in out:
        print("\t".join(str(x) for x in (r[2], r[0], r[1], r[5], r[6], r[7], r[8], r[9], r[10])))


def synth(path, nproc=1):
    """Kernels with odd and even instance counts, a single instance, ties in total time.
    nproc=2: the calls alternate between two MPI processes (pids 200 = rank 1 and
    100 = rank 0) that reuse the same correlation ids."""
    db = sqlite3.connect(path)
    db.executescript("""
    CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER,
      contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,
      demangledName INTEGER, shortName INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER,
      blockX INTEGER, blockY INTEGER, blockZ INTEGER);
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER,
      globalTid INTEGER, correlationId INTEGER, nameId INTEGER);
    """)
    names = ["void gemm<float, 128>(float const*, float*, int)", "relu_kernel",
             "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
             "single(int)", "tie_a", "tie_b", "cudaLaunchKernel_v7000", "cudaLaunchKernel"]
    db.executemany("INSERT INTO StringIds VALUES(?, ?)", list(enumerate(names, 1)))
    db.execute("CREATE TABLE ThreadNames(nameId INTEGER, priority INTEGER, globalTid INTEGER)")
    db.executemany("INSERT INTO StringIds VALUES(?, ?)", [(20, "MPI Rank 0"), (21, "MPI Rank 1")])
    procs = [(77, None)] if nproc == 1 else [(200, 21), (100, 20)]
    for pid, nm in procs:
        if nm:
            db.execute("INSERT INTO ThreadNames VALUES(?, 0, ?)", (nm, pid * 0x1000000 + pid))
    durs = {1: [1000, 1500, 1200, 4000], 2: [10, 11, 13, 17, 19], 3: [5000, 5003],
            4: [123], 5: [300, 300], 6: [200, 400]}
    t, n = 1000, 0
    for k, ds in sorted(durs.items()):
        for i, d in enumerate(ds):
            dev = i % 2
            pid = procs[n % len(procs)][0]
            corr = n // len(procs) + 1   # processes reuse the same correlation ids
            gp, gt = pid * 0x1000000, pid * 0x1000000 + pid
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(?,?,0,?,?,7)",
                       (t, t + 5, gt, corr))
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(?,?,67,?,?,8)",
                       (t - 1, t + 6, gt, corr))
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(?,?,?,1,?,?,?,?,?,1,1,1,32,1,1)",
                       (t + 10, t + 10 + d, dev, 7 + dev, corr, gp, k, k))
            t += 10000
            n += 1
    db.commit()


def synth_nvtx(path, seed):
    """Random NVTX ranges over CUDA calls on several threads of one process: nested and
    sibling push/pop ranges in two domains, start/end ranges, calls straddling range
    edges, duplicated runtime rows, graph-like launches with several kernels, memcpys.
    All timestamps are distinct so that every order is well defined."""
    import random
    rnd = random.Random(seed)
    db = sqlite3.connect(path)
    db.executescript("""
    CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER,
      streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);
    CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER, end INTEGER, deviceId INTEGER,
      streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER);
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER,
      globalTid INTEGER, correlationId INTEGER, nameId INTEGER);
    CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER, text TEXT,
      globalTid INTEGER, textId INTEGER, domainId INTEGER);
    """)
    db.executemany("INSERT INTO StringIds VALUES(?, ?)",
                   [(1, "cudaLaunchKernel_v7000"), (2, "kern"), (3, "registered")])
    used = set()

    def stamp(lo, hi):
        while True:
            v = rnd.randrange(lo, hi)
            if v not in used:
                used.add(v)
                return v
    gp = 42 * 0x1000000
    db.execute("INSERT INTO NVTX_EVENTS VALUES(0, NULL, 75, 'D', ?, NULL, 3)", (gp + 1,))
    corr = 1
    for tid in (1, 2, 3):
        gt = gp + tid
        for _ in range(120):   # calls
            s = stamp(0, 10_000_000)
            e = s + rnd.randrange(50, 5000)
            used.add(e)
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(?,?,0,?,?,1)", (s, e, gt, corr))
            if rnd.random() < 0.5:   # the duplicated outer row
                db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(?,?,67,?,?,1)",
                           (s - 1, e + 1, gt, corr))
            for _ in range(rnd.choice([0, 1, 1, 1, 2, 3])):
                ks = stamp(s + 10, s + 900_000)
                tab = "KERNEL" if rnd.random() < 0.8 else "MEMCPY"
                last = (2,) if tab == "KERNEL" else (100, 1)
                db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_%s VALUES(?,?,?,?,?,?,%s)" %
                           (tab, ",".join("?" * len(last))),
                           (ks, ks + rnd.randrange(100, 100_000), rnd.randrange(2), 7, corr, gp) + last)
            corr += 1

        def nest(lo, hi, depth):
            t = lo
            while depth < 4 and t < hi - 1000:
                s = stamp(t, min(hi - 500, t + 2_000_000))
                e = stamp(s + 100, min(hi, s + 3_000_000))
                if rnd.random() < 0.5:
                    db.execute("INSERT INTO NVTX_EVENTS VALUES(?,?,59,?,?,NULL,0)",
                               (s, e, "r%d" % depth, gt))
                else:
                    db.execute("INSERT INTO NVTX_EVENTS VALUES(?,?,59,NULL,?,3,3)", (s, e, gt))
                nest(s + 1, e, depth + 1)
                t = e + 1
        nest(0, 10_000_000, 0)
        for _ in range(5):
            s = stamp(0, 9_000_000)
            db.execute("INSERT INTO NVTX_EVENTS VALUES(?,?,60,'se',?,NULL,0)",
                       (s, stamp(s + 1, 10_000_000), gt))
    db.commit()


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "kern_sum":
        kern_sum(sys.argv[2])
    elif cmd == "nvtx":
        nvtx(sys.argv[2])
    elif cmd == "compare":
        compare(sys.argv[2], sys.argv[3])
    elif cmd == "synth_nvtx":
        synth_nvtx(sys.argv[2], int(sys.argv[3]))
    elif cmd == "synth":
        synth(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    else:
        sys.exit("unknown command " + cmd)
