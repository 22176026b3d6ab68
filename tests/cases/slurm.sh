# doc/scale-out.md's Slurm recipe on a real Slurm (issue 22): munged, slurmctld and slurmd
# on localhost, state, spool and configuration under $WORK (build.sh test installs
# slurm-wlm and munge; this case installs nothing). The scripts are extracted from the doc
# (the fenced blocks after `<!-- scale-out-test: NAME -->`), so the doc and the test
# cannot drift. Checked: the 8 DLRM ranks summarized by the array and merged by the
# dependent job give the summary.json of `report` of the 8 traces (tests/merge_cmp.py, as
# merge_kineto.sh); a synthetic job of a few hundred ranks gives every rank; a job with
# one unreadable trace gets its merge job CANCELLED (not PENDING forever); the tree recipe
# gives the bytes of the flat merge. The daemons are stopped by pid. Skips (77) only when
# Slurm or munge is missing or the daemons cannot start, saying why.
# tests/run.sh: waits (for Slurm's scheduler: ~90 s of wall time, ~15 s of CPU; it runs
# beside the other jobs, not in a slot of theirs)
. "$ROOT/tests/lib.sh"
need_traces
for t in munged slurmctld slurmd sbatch squeue scontrol; do
    command -v $t >/dev/null || [ -x /usr/sbin/$t ] ||
        { echo "$t not installed (./build.sh test installs slurm-wlm and munge)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "the Slurm daemons run as root here (SlurmUser=root): not root"; exit 77; }
PATH=/usr/sbin:$PATH
TD=$(cd "$(dirname "$TD")" && pwd)/$(basename "$TD")
S=$WORK/slurm
mkdir -p "$S/state" "$S/spool" "$S/munge" "$S/log"
chmod 700 "$S/munge"
# ports of this run (two runs on one machine must not meet)
P=$((20000 + ($$ % 5000) * 2))
pids=()
stop() {
    # this cluster's jobs first (their slurmstepd would outlive slurmd), then the daemons
    if [ ${#pids[@]} -gt 1 ] && [ -n "${SLURM_CONF:-}" ]; then
        scancel --quiet --partition=debug 2>/dev/null
        for _ in $(seq 50); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.1; done
    fi
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null
    done
    pids=()
}
trap stop EXIT
skip() { echo "skipped: $*"; for f in "$S"/log/*; do echo "--- $f"; tail -5 "$f"; done; stop; exit 77; }

dd if=/dev/urandom of="$S/munge/munge.key" bs=1024 count=1 2>/dev/null && chmod 400 "$S/munge/munge.key"
munged -F --force --key-file="$S/munge/munge.key" --socket="$S/munge/sock" \
    --pid-file="$S/munge/munged.pid" --log-file="$S/log/munged.log" --seed-file="$S/munge/seed" \
    >>"$S/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$S/munge/sock" ] && break; sleep 0.1; done
[ -S "$S/munge/sock" ] || skip "munged did not start (its log follows)"

mem=$(awk '/MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
cat >"$S/slurm.conf" <<CONF
ClusterName=tdtest
SlurmctldHost=localhost
SlurmctldPort=$P
SlurmdPort=$((P + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/munge/sock
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SchedulerParameters=sched_interval=1,bf_interval=1
MinJobAge=600
MaxArraySize=1001
NodeName=localhost CPUs=2 RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$S/slurm.conf
slurmctld -D -i >>"$S/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N localhost >>"$S/log/slurmd.out" 2>&1 &
pids+=($!)
up=0
for _ in $(seq 100); do
    sinfo -h -o %T 2>/dev/null | grep -q '^idle' && { up=1; break; }
    kill -0 "${pids[1]}" 2>/dev/null || break
    kill -0 "${pids[2]}" 2>/dev/null || break
    sleep 0.2
done
[ $up = 1 ] || skip "slurmctld/slurmd did not bring node localhost up (sinfo: $(sinfo -h 2>&1 | head -2))"

# the recipe's files, from the doc
block() {
    awk -v m="<!-- scale-out-test: $1 -->" '$0 == m { on = 1; next }
        on == 1 && /^```/ { on = 2; next } on == 2 && /^```/ { exit } on == 2 { print }' \
        "$ROOT/doc/scale-out.md"
}
mkdir -p "$WORK/recipe"
for b in summarize.sbatch merge.sbatch submit.sh tree; do
    block $b >"$WORK/recipe/$b"
    [ -s "$WORK/recipe/$b" ] || die "doc/scale-out.md has no block marked $b"
done
head -1 "$WORK/recipe/summarize.sbatch" | grep -q '^#!/bin/bash' || die "summarize.sbatch: no #! line"

# job JOBDIR TRACEDIR: submit.sh in JOBDIR; sets MID (the merge job)
job() {
    mkdir -p "$1" && cp "$WORK"/recipe/*.sbatch "$1/" &&
        (cd "$1" && TRACEDOC=$TD bash "$WORK/recipe/submit.sh" "$2") >"$1/submit.out" 2>&1 ||
        { cat "$1/submit.out"; die "submit.sh in $1"; }
    MID=$(sed -n 's/.*merge: job \([0-9]*\).*/\1/p' "$1/submit.out")
    [ -n "$MID" ] || die "submit.sh printed no merge job: $(cat "$1/submit.out")"
}
state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
# wait_job ID SECONDS: its final state on stdout
wait_job() {
    local s=""
    for _ in $(seq $(($2 * 2))); do
        s=$(state "$1")
        case "$s" in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) break ;; esac
        sleep 0.5
    done
    echo "$s"
}

# 1. the 8 DLRM ranks (Kineto names: workerN_step_S.TS.pt.trace.json)
mkdir -p "$WORK/r" && tar xzf "$TRACES/kineto/param_dlrm_8ranks.tar.gz" -C "$WORK/r" || die "tar"
D="$WORK/r/dlrm_kineto"
job "$WORK/dlrm" "$D"
M1=$MID
# 2. a synthetic job: a tiny one-rank trace copied as N ranks (kernel times vary by rank);
# and 3. a job with an unreadable rank (submitted before it), both while the first runs
N=200
[ "${BUILD_KIND:-build}" = build ] || N=40 # the sanitizer build: 5x slower per rank
mkdir -p "$WORK/syn" "$WORK/bad"
$PY - "$WORK/syn" $N <<'PYEOF' || exit 1
import json, sys
out, n = sys.argv[1], int(sys.argv[2])
for k in range(n):
    d = {"distributedInfo": {"backend": "nccl", "rank": k, "world_size": n},
         "deviceProperties": [{"id": 0, "name": "GPU"}],
         "traceEvents": [
            {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1000, "dur": 50},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
             "ts": 1010, "dur": 5, "args": {"correlation": 1}},
            {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1020,
             "dur": 20 + k % 13, "args": {"correlation": 1, "device": 0, "stream": 7}}]}
    json.dump(d, open(f"{out}/worker{k}_step_12.1694128201545.pt.trace.json", "w"))
PYEOF
cp "$D"/worker[0-2]_*.json "$WORK/bad/" && echo 'not a trace' >"$WORK/bad/worker3_step_12.1.pt.trace.json"
job "$WORK/badjob" "$WORK/bad"
M3=$MID
job "$WORK/synjob" "$WORK/syn"
M2=$MID

s=$(wait_job "$M1" 120)
[ "$s" = COMPLETED ] || { tail -5 "$WORK"/dlrm/slurm-*.out; die "DLRM merge job $M1: $s"; }
"$TD" report --format json -o "$WORK/all" "$D"/*.json || die "report of the 8 ranks"
$PY "$ROOT/tests/merge_cmp.py" "$WORK/all/summary.json" "$WORK/dlrm/report/summary.json" ||
    die "the Slurm job's summary != report's"
[ "$(ls "$WORK"/dlrm/parts/*.pt.trace.json.tds | wc -l)" = 8 ] || die "parts not named NAME.tds"
grep -q "^tracedoc: merge: 8/8 parts" "$WORK"/dlrm/slurm-"$M1".out || die "no --progress in the merge log"

s=$(wait_job "$M3" 120)
[ "$s" = CANCELLED ] || die "merge job of a job with a failed rank: '$s' (expected CANCELLED)"
scontrol show job "$M3" | grep -q "Reason=DependencyNeverSatisfied" || die "cancelled for another reason"
grep -l "worker3_step_12.1.pt.trace.json" "$WORK"/badjob/slurm-*.out >/dev/null || die "the failed task's log"

s=$(wait_job "$M2" 150)
[ "$s" = COMPLETED ] || die "synthetic merge job $M2: $s"
"$TD" report --format json -o "$WORK/syn-all" "$WORK"/syn/*.json || die "report of the synthetic ranks"
$PY "$ROOT/tests/merge_cmp.py" "$WORK/syn-all/summary.json" "$WORK/synjob/report/summary.json" ||
    die "synthetic: the Slurm job's summary != report's"
$PY - "$WORK/synjob/report/summary.json" $N <<'PYEOF' || exit 1
import json, sys
d, n = json.load(open(sys.argv[1])), int(sys.argv[2])
assert d["trace"]["ranks"] == n, d["trace"]
assert sorted(r["rank"] for r in d["inputs"]) == list(range(n))
PYEOF
stop
# the tree recipe on the synthetic job's parts (4 groups): the flat merge's bytes
(cd "$WORK/synjob" && PATH="$(dirname "$TD"):$PATH" GROUP=$((N / 4)) bash -e "$WORK/recipe/tree") >"$WORK/tree.out" 2>&1 ||
    { cat "$WORK/tree.out"; die "tree recipe"; }
[ "$(ls "$WORK"/synjob/groups/*.tds | wc -l)" = 4 ] || die "tree: groups"
"$TD" merge "$WORK/synjob/parts" -o "$WORK/flat" --format json || die "flat merge"
"$TD" merge "$WORK/synjob/groups" -o "$WORK/tree2" --format json || die "tree merge"
cmp "$WORK/flat/summary.json" "$WORK/tree2/summary.json" || die "tree merge != flat merge"
exit 0
