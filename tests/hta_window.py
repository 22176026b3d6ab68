#!/usr/bin/env python3
"""Write a Kineto trace cut to the window HTA analyses (tests/cases/diag_*.sh).

HTA (holistictraceanalysis, trace.py _filter_irrelevant_gpu_kernels, with its default
include_last_profiler_step=False) keeps, when the trace names two or more distinct
ProfilerStep#N: the CPU events that start before the last ProfilerStep starts, and the
device events (those with a "stream" arg) whose correlation id is one of those CPU
events'. This writes that subset, so that tracedoc's figures on it can be compared
with HTA's own output. Usage: hta_window.py IN(.json[.gz]|.tar.gz) OUTDIR
(one OUTDIR/<name>.json per trace).
With --three IN OUTDIR, the three cuts below from one read: OUTDIR/all, OUTDIR/launch and
OUTDIR/queue, with what --only prints in OUTDIR/launch.txt and OUTDIR/queue.txt.
With --only launch|queue, device events are also dropped unless the call that launched
them is one HTA's launch statistics (cuda_kernel_analysis.py) or queue length
(trace_symbol_table.py get_runtime_launch_events_mask) recognise: what HTA leaves out
(cudaGraphLaunch's kernels, cuLaunchKernel, HIP launches ...) is printed per stream."""
import collections, gzip, json, os, re, sys, tarfile

LAUNCH = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync",
          "runFunction - job_prep_and_submit_for_execution"}
QUEUE = LAUNCH | {"cuLaunchKernel", "cuLaunchKernelEx", "hipLaunchKernel",
                  "hipExtModuleLaunchKernel", "hipMemsetAsync", "hipMemcpyAsync",
                  "hipMemcpyWithStream"}

STEP = re.compile(r"^ProfilerStep#(\d+)")


def is_dev(e):
    """Device work carries an integer "stream" arg (ROCm runtime calls carry "0x0")."""
    st = (e.get("args") or {}).get("stream")
    return isinstance(st, int) and not isinstance(st, bool)


def corr(e):
    a = e.get("args") or {}
    c = a.get("correlation")
    return -1 if c is None else c


def only(doc, names, name):
    """Drop device events whose launching call is not in names; print what was dropped."""
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    call = {}
    for e in evs:
        a = e.get("args") or {}
        if e.get("ph") == "X" and not is_dev(e) and "correlation" in a:
            call.setdefault(a["correlation"], e.get("name"))
    dropped = collections.Counter()
    keep = []
    for e in evs:
        a = e.get("args") or {}
        if e.get("ph") == "X" and is_dev(e) and call.get(a.get("correlation")) not in names:
            dropped[(a["stream"], call.get(a.get("correlation")))] += 1
            continue
        keep.append(e)
    for (st, c), n in sorted(dropped.items(), key=str):
        if c is None:
            print("%s stream %s: %d device events without a launching call" % (name, st, n))
        else:
            print("%s stream %s: %d device events launched by %s" % (name, st, n, c))
    # launch calls and device starts of one stream at the same time stamp: HTA's unstable
    # sort orders such a pair either way (diag_compare.py allows for it)
    rank = ((doc.get("distributedInfo") or {}).get("rank", 0) if isinstance(doc, dict) else 0)
    calls = {}
    for e in evs:
        a = e.get("args") or {}
        if e.get("ph") == "X" and not is_dev(e) and e.get("name") in names and "correlation" in a:
            calls.setdefault(a["correlation"], e)
    at = collections.defaultdict(lambda: [collections.Counter(), collections.Counter()])
    for e in keep:
        a = e.get("args") or {}
        if e.get("ph") == "X" and is_dev(e) and a.get("correlation") in calls:
            at[a["stream"]][0][float(calls[a["correlation"]]["ts"])] += 1
            at[a["stream"]][1][float(e["ts"])] += 1
    for st, (c0, c1) in sorted(at.items()):
        print("ties rank %s stream %s: %d" % (rank, st, sum((c0 & c1).values())))
    if isinstance(doc, dict):
        doc = dict(doc)
        doc["traceEvents"] = keep
        return doc
    return keep


def cut(doc):
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    steps = [e for e in evs if e.get("ph") == "X" and not is_dev(e) and STEP.match(str(e.get("name", "")))]
    if len({e["name"] for e in steps}) < 2:
        return doc
    last = max(float(e["ts"]) for e in steps)
    keep, cpu_corr = [], set()
    for e in evs:
        if e.get("ph") == "X" and not is_dev(e):
            if float(e["ts"]) >= last:
                continue
            cpu_corr.add(corr(e))
        keep.append(e)
    keep = [e for e in keep if not (e.get("ph") == "X" and is_dev(e)) or corr(e) in cpu_corr]
    if isinstance(doc, dict):
        doc = dict(doc)
        doc["traceEvents"] = keep
        return doc
    return keep


def load(f, name):
    data = f.read()
    if name.endswith(".gz"):
        data = gzip.decompress(data)
    return json.loads(data)


def main():
    args = sys.argv[1:]
    names = None
    if args and args[0] == "--three":
        return three(args[1], args[2])
    if args and args[0] == "--only":
        names = {"launch": LAUNCH, "queue": QUEUE}[args[1]]
        args = args[2:]
    src, out = args
    os.makedirs(out, exist_ok=True)
    for name, doc in read(src):
        base = re.sub(r"\.json(\.gz)?$", "", name)
        with open(os.path.join(out, base + ".json"), "w") as f:
            doc = cut(doc)
            if names is not None:
                doc = only(doc, names, base)
            f.write(json.dumps(doc))  # dumps: the C encoder (dump goes chunk by chunk in Python)


def three(src, out):
    """The three cuts from one read of the trace: OUT/all, OUT/launch and OUT/queue, what
    --only prints in OUT/launch.txt and OUT/queue.txt (diag_hta.sh)."""
    for d in ("all", "launch", "queue"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    txt = {k: open(os.path.join(out, k + ".txt"), "w") for k in ("launch", "queue")}
    for name, doc in read(src):
        base = re.sub(r"\.json(\.gz)?$", "", name)
        doc = cut(doc)
        with open(os.path.join(out, "all", base + ".json"), "w") as f:
            f.write(json.dumps(doc))  # dumps: the C encoder (dump goes chunk by chunk in Python)
        for k, names in (("launch", LAUNCH), ("queue", QUEUE)):
            stdout, sys.stdout = sys.stdout, txt[k]
            try:
                d = only(doc, names, base)
            finally:
                sys.stdout = stdout
            with open(os.path.join(out, k, base + ".json"), "w") as f:
                f.write(json.dumps(d))
    for f in txt.values():
        f.close()


def read(src):
    """(member name, document) of a trace file or of each trace in a tar archive."""
    docs = []
    if src.endswith(".tar.gz") or src.endswith(".tar"):
        with tarfile.open(src) as tf:
            for m in sorted(tf.getmembers(), key=lambda m: m.name):
                if m.isfile() and re.search(r"\.json(\.gz)?$", m.name):
                    docs.append((os.path.basename(m.name), load(tf.extractfile(m), m.name)))
    else:
        with open(src, "rb") as f:
            docs.append((os.path.basename(src), load(f, src)))
    return docs


if __name__ == "__main__":
    main()
