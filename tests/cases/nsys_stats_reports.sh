# nsys stats reports beside cuda_gpu_kern_sum (issue 13): cuda_api_sum,
# cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum, nvtx_sum, osrt_sum with nsys's column names;
# expected values computed here from the SQLite export with Python's sqlite3 and
# statistics (nsys's definitions: Time (%) = total/sum x 100, median of the middle two,
# sample standard deviation, MB = 10^6 bytes, runtime names without _vNNNN).
. "$ROOT/tests/lib.sh"
need_traces
DB="$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite"
# osrt_sum: no shared export has OS runtime rows (saxpy's OSRT_API table is empty), so a
# copy of saxpy gets OSRT_API rows in nsys's own schema of that table, on the real
# process's thread, with random durations and names (several calls each, one single call)
cp "$DB" "$WORK/osrt.sqlite" || die "copy"
$PY - "$WORK/osrt.sqlite" <<'PY' || exit 1
import random, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
rnd = random.Random(13)
(gtid,), = c.execute("select globalTid from CUPTI_ACTIVITY_KIND_RUNTIME limit 1")
(t0, t1), = c.execute("select min(start), max(end) from CUPTI_ACTIVITY_KIND_RUNTIME")
(sid,), = c.execute("select max(id) from StringIds")
names = {"pthread_cond_timedwait": 7, "poll": 12, "ioctl": 40, "read": 4, "sem_wait": 1}
rows = []
for k, (nm, n) in enumerate(sorted(names.items())):
    c.execute("insert into StringIds values(?, ?)", (sid + 1 + k, nm))
    for _ in range(n):
        st = rnd.randrange(t0, t1 - 10**7)
        rows.append((st, st + rnd.randrange(1, 10**7), 27, gtid, sid + 1 + k, 0, 0, 0))
c.executemany("insert into OSRT_API values(?, ?, ?, ?, ?, ?, ?, ?)", rows)
c.commit()
PY
"$TD" summary "$WORK/osrt.sqlite" --format csv --table osrt_sum > "$WORK/osrt_sum.csv" 2>"$WORK/err" || { cat "$WORK/err"; die "table osrt_sum"; }
for t in cuda_api_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum nvtx_sum; do
    "$TD" summary "$DB" --format csv --table $t > "$WORK/$t.csv" 2>"$WORK/err" || { cat "$WORK/err"; die "table $t"; }
done
$PY - "$DB" "$WORK" <<'PY' || exit 1
import sqlite3, sys, csv, re, statistics as stt
db, w = sys.argv[1], sys.argv[2]
c = sqlite3.connect(db)
S = dict(c.execute("select id, value from StringIds"))
def groups(rows):
    g = {}
    for n, v in rows:
        g.setdefault(n, []).append(v)
    return g
def check(table, g, count, label, mb=False):
    rows = list(csv.DictReader(open("%s/%s.csv" % (w, table))))
    assert set(r[label] for r in rows) == set(g), (table, [r[label] for r in rows], list(g))
    tot = sum(sum(v) for v in g.values())
    prev = None
    for r in rows:
        v = g[r[label]]
        assert int(r[count]) == len(v), (table, r)
        if mb:
            assert abs(float(r["Total (MB)"]) - sum(v) / 1e6) < 1e-6, r
            assert abs(float(r["Med (MB)"]) - stt.median(v) / 1e6) < 1e-6, r
            key = float(r["Total (MB)"])
        else:
            assert int(r["Total Time (ns)"]) == sum(v), (table, r, sum(v))
            assert abs(float(r["Time (%)"]) - 100 * sum(v) / tot) < 1e-4, r
            assert abs(float(r["Med (ns)"]) - stt.median(v)) < 1e-3, r
            assert int(r["Min (ns)"]) == min(v) and int(r["Max (ns)"]) == max(v), r
            sd = stt.stdev(v) if len(v) > 1 else 0.0
            assert abs(float(r["StdDev (ns)"]) - sd) <= 1e-6 * max(1, sd), (r, sd)
            key = int(r["Total Time (ns)"])
        assert prev is None or key <= prev, "not sorted by total"
        prev = key
# nsys 2022 exports some calls twice (cudaMemcpy and cudaMemcpy_v3020, same thread and
# correlation id): one call each, the row without the version suffix kept
calls = {}
for s, e, n, g, k in c.execute("select start, end, nameId, globalTid, correlationId from CUPTI_ACTIVITY_KIND_RUNTIME"):
    nm = S[n]
    old = calls.get((g, k))
    if old is None or (re.search(r"_v\d+$", old[0]) and not re.search(r"_v\d+$", nm)):
        calls[(g, k)] = (nm, e - s)
api = groups((re.sub(r"_v\d+$", "", nm), d) for nm, d in calls.values())
check("cuda_api_sum", api, "Num Calls", "Name")
kinds = {1: "HtoD", 2: "DtoH", 8: "DtoD", 10: "PtoP"}
mem = list(c.execute("select start, end, bytes, copyKind from CUPTI_ACTIVITY_KIND_MEMCPY"))
assert mem, "the saxpy export has memcpys"
mt = groups(("[CUDA memcpy %s]" % kinds[k], e - s) for s, e, b, k in mem)
ms = groups(("[CUDA memcpy %s]" % kinds[k], b) for s, e, b, k in mem)
for s, e, b in c.execute("select start, end, bytes from CUPTI_ACTIVITY_KIND_MEMSET"):
    mt.setdefault("[CUDA memset]", []).append(e - s)
    ms.setdefault("[CUDA memset]", []).append(b)
check("cuda_gpu_mem_time_sum", mt, "Count", "Operation")
check("cuda_gpu_mem_size_sum", ms, "Count", "Operation", mb=True)
# NVTX push/pop ranges (eventType 59), named Domain:text as nsys names them
dom = {}
for d, t in c.execute("select domainId, text from NVTX_EVENTS where eventType = 75"):
    dom[d] = t
nv = groups(((dom.get(d, "") + ":" if dom.get(d) else "") + (t if t is not None else S.get(tid, "")), e - s)
            for s, e, d, t, tid in c.execute(
                "select start, end, domainId, text, textId from NVTX_EVENTS where eventType = 59 and end is not null"))
check("nvtx_sum", nv, "Instances", "Range")
# OS runtime calls by name (the copy with OSRT_API rows)
o = sqlite3.connect(w + "/osrt.sqlite")
OS = dict(o.execute("select id, value from StringIds"))
osrt = groups((OS[n], e - s) for s, e, n in o.execute("select start, end, nameId from OSRT_API"))
assert len(osrt) == 5, osrt
check("osrt_sum", osrt, "Num Calls", "Name")
PY
# a Kineto trace has none of these reports
"$TD" summary "$ROOT/examples/hta_nccl_data.json.gz" --format csv --table cuda_api_sum >/dev/null 2>&1 && die "cuda_api_sum for a Kineto trace"
exit 0
