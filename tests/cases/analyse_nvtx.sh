# Nsight Systems report: NVTX push/pop ranges are ops (like user_annotation) and device
# work belongs to the innermost op around its launching call. The whole op table is
# recomputed by /usr/bin/python3 straight from the SQLite tables (NVTX_EVENTS,
# CUPTI_ACTIVITY_KIND_RUNTIME/KERNEL/MEMCPY/MEMSET): nesting per thread, self = dur -
# direct children, runtime rows with one correlation id counted once (the outermost),
# device time to the innermost non-API op around the launch.
. "$ROOT/tests/lib.sh"
need_traces
S="$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite"
[ -f "$S" ] || { echo "nsys sample missing"; exit 77; }
"$TD" summary --format csv --table ops "$S" >"$WORK/ops.csv" || die "summary"
$PY - "$S" "$WORK/ops.csv" <<'PYEOF' || exit 1
import collections, csv, re, sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
S = dict(db.execute("select id, value from StringIds"))
dom = {r[0]: r[1] for r in db.execute("select domainId, text from NVTX_EVENTS where eventType = 75")}
ops = []  # start, end, thread, name, correlation id (None for NVTX ranges)
for st, en, tid, txt, txid, dm in db.execute(
        "select start, end, globalTid, text, textId, domainId from NVTX_EVENTS where eventType = 59"):
    name = txt if txt is not None else S[txid]
    ops.append((st, en, tid, dom[dm] + ":" + name if dm in dom else name, None))
seen = set()
for st, en, tid, cid, nid in sorted(db.execute(
        "select start, end, globalTid, correlationId, nameId from CUPTI_ACTIVITY_KIND_RUNTIME"),
        key=lambda r: (r[0], -r[1])):
    if cid in seen:
        continue
    seen.add(cid)
    ops.append((st, en, tid, re.sub(r"_v\d+$", "", S[nid]), cid))
ops.sort(key=lambda o: (o[0], -(o[1] - o[0])))
parent, self_ = [None] * len(ops), [o[1] - o[0] for o in ops]
stacks = collections.defaultdict(list)
for i, o in enumerate(ops):
    s = stacks[o[2]]
    while s and (ops[s[-1]][1] <= o[0] or o[1] > ops[s[-1]][1]):
        s.pop()
    if s:
        parent[i] = s[-1]
        self_[s[-1]] -= o[1] - o[0]
    s.append(i)
launch = {o[4]: i for i, o in enumerate(ops) if o[4] is not None}
dev = collections.Counter()
for tab in ("KERNEL", "MEMCPY", "MEMSET"):
    for st, en, cid in db.execute("select start, end, correlationId from CUPTI_ACTIVITY_KIND_" + tab):
        r = launch.get(cid)
        if r is None:
            continue
        p = parent[r]
        while p is not None and ops[p][4] is not None:
            p = parent[p]
        dev[r if p is None else p] += en - st
ref = collections.defaultdict(lambda: [0, 0, 0, 0])
for i, o in enumerate(ops):
    a = ref[o[3]]
    a[0] += 1; a[1] += self_[i]; a[2] += o[1] - o[0]; a[3] += dev[i]
got = {r["name"]: [int(r["calls"]), int(r["self_ns"]), int(r["total_ns"]), int(r["device_self_ns"])]
       for r in csv.DictReader(open(sys.argv[2]))}
assert got == dict(ref), (got, dict(ref))
# the MPI ranges nsys recorded are there, and the kernels belong to the "saxpy" range
assert got["MPI:MPI_Send"][0] == 10 and got["MPI:MPI_Recv"][0] == 5, got
assert got["saxpy"][3] == 88573480 and got["cudaLaunchKernel"][3] == 0, got
PYEOF
exit 0
