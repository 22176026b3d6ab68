# Inputs that are not ranks of one job (issue 13): a directory of unrelated real traces,
# a file given twice, formats mixed, another world size, a rank declared twice, a rank
# captured a day later: refused with exit 3, naming each other run's file and why. The
# expected reasons come from the traces themselves (deviceProperties, distributedInfo,
# read here by Python). Ranks of one job still make one report. The Python work on the
# traces does not depend on the build: the rewritten inputs are made once per test run
# (tests/lib.sh once), the expected values read once (checked).
. "$ROOT/tests/lib.sh"
need_traces
K="$TRACES/kineto"
cd "$WORK" || exit 1

refuse() {   # refuse PATTERN TRACE...: exit 3 and PATTERN (grep -E) in the message
    local pat=$1; shift
    "$TD" summary "$@" >"$WORK/out" 2>"$WORK/err"; local rc=$?
    [ "$rc" = 3 ] || { cat "$WORK/err"; die "exit $rc, expected 3: $*"; }
    [ ! -s "$WORK/out" ] || die "output written for a refused set: $*"
    grep -Eq -- "$pat" "$WORK/err" || { cat "$WORK/err"; die "no '$pat' in the message"; }
}

# 1. the issue's directory: A100, MI250, MTIA and V100 runs copied into one directory
mkdir mix
cp "$K/hta_a100_ws16_rank0.json.gz" "$K/hta_mi250_minitoy.json.gz" \
   "$K/hta_mtia_inference_rank0.json.gz" "$K/tbplugin_resnet50_v100_oldformat.json.gz" mix/
refuse "these 4 traces are not ranks of one job but of 4 runs" mix
checked $PY - "$WORK/err" "$WORK/mix" <<'PY' || exit 1
import gzip, json, os, sys
err = open(sys.argv[1]).read()
d = sys.argv[2]
def dev(f):
    j = json.load(gzip.open(os.path.join(d, f)))
    return j["deviceProperties"][0]["name"]
first = "hta_a100_ws16_rank0.json.gz"
for f in ["hta_mi250_minitoy.json.gz", "hta_mtia_inference_rank0.json.gz",
          "tbplugin_resnet50_v100_oldformat.json.gz"]:
    want = "mix/%s does not belong with mix/%s: device '%s' here, '%s' there" % (
        f, first, dev(f), dev(first))
    assert want in err, (want, err)
PY
# report writes nothing for it
expect_exit 3 "$TD" report mix -o rep 2>/dev/null || exit 1
[ ! -e rep/report.pdf ] && [ ! -e rep/summary.json ] || die "report wrote documents"

# 2. another world size (both A100-SXM4-80GB): the values distributedInfo declares
ws() { checked $PY -c 'import gzip,json,sys; print(json.load(gzip.open(sys.argv[1]))["distributedInfo"]["world_size"])' "$1"; }
A="$K/hta_a100_ws16_rank0.json.gz" S="$K/hta_sampled_rank0.json.gz"
refuse "hta_sampled_rank0.json.gz does not belong with .*hta_a100_ws16_rank0.json.gz: world size $(ws "$S") here, $(ws "$A") there" "$A" "$S"

# 3. one file twice; formats mixed
refuse "param_linear.json.gz does not belong with .*param_linear.json.gz: the same bytes \(SHA-256 [0-9a-f]{12}\.\.\.\) given twice" \
    "$K/param_linear.json.gz" "$K/param_linear.json.gz"
refuse "param_linear.json.gz does not belong with .*pipit_saxpy_mpi_cuda_a100.sqlite: input format chrome-json here, nsys-sqlite there" \
    "$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite" "$K/param_linear.json.gz"

# 4. ranks of the DLRM job: worker1 taken again from another run (every time a day later)
#    and worker0 again with other bytes (a rank declared twice)
mkdir dl && tar -xzf "$K/param_dlrm_8ranks.tar.gz" -C dl || die "untar"
W0=$(ls dl/*/worker0_*.json) W1=$(ls dl/*/worker1_*.json)
# the two rewritten ranks do not depend on the build: written once per test run
rewrite() {
    $PY - "$ONCE" "$K/param_dlrm_8ranks.tar.gz" <<'PY'
import json, sys, tarfile
out = sys.argv[1]
t = tarfile.open(sys.argv[2])
m = {n.split("/")[-1].split("_")[0]: n for n in t.getnames() if n.endswith(".json")}
j = json.load(t.extractfile(m["worker1"]))
day = 86400 * 10**6   # ts are epoch microseconds
for e in j["traceEvents"]:
    if isinstance(e.get("ts"), (int, float)):
        e["ts"] += day
json.dump(j, open(out + "/later_worker1.json", "w"))
json.dump(json.load(t.extractfile(m["worker0"])), open(out + "/again_worker0.json", "w"), indent=1)
PY
}
once job_inputs-dlrm rewrite || die "rewriting worker0/worker1"
cp "$ONCE/later_worker1.json" "$ONCE/again_worker0.json" . || exit 1
refuse "later_worker1.json does not belong with .*worker0_.*: captured 2023-09-08T.* here, 2023-09-07T.* there" "$W0" later_worker1.json
refuse "again_worker0.json does not belong with .*worker0_.*: both are rank 0" "$W0" again_worker0.json

# 5. ranks of one job still make one report: the 8-rank tar, its members as files in a
#    directory, the four nsys-jax archives, one trace of each kind
for set in "$K/param_dlrm_8ranks.tar.gz:8" "dl/dlrm_kineto:8" "$TRACES/nsys-jax:4" \
           "$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite:1" "$K/hta_mi250_minitoy.json.gz:1"; do
    "$TD" summary --format json "${set%:*}" >s.json 2>err || { cat err; die "refused: $set"; }
    $PY -c 'import json, sys; s = json.load(open("s.json"))
assert s["trace"]["ranks"] == int(sys.argv[1]), (sys.argv[2], s["trace"])' "${set##*:}" "$set" || exit 1
done

# 6. IBM AIU flex traces state no device model, world size or time base; a flex trace's
#    pid is its AIU's rank (acelyzer's ingestion), so two files holding the same pid are
#    not ranks of one job. The pids are read here by Python.
AR="$TRACES/aiu/allreduce_tp4.json" SF="$TRACES/aiu/sample_flex_3062_job_4.json"
P=$(checked $PY -c 'import json,sys; a={e["pid"] for e in json.load(open(sys.argv[1]))}; b={e["pid"] for e in json.load(open(sys.argv[2]))}; print(min(a & b))' "$AR" "$SF")
refuse "sample_flex_3062_job_4.json does not belong with .*allreduce_tp4.json: both hold AIU rank $P " "$AR" "$SF"
# the four AIUs of allreduce_tp4 split into one file per pid are ranks of one job: the same
# AIUs and kernel time as the whole file
split_aiu() {
    $PY - "$AR" "$ONCE" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))
for p in sorted({e["pid"] for e in ev}):
    json.dump([e for e in ev if e["pid"] == p], open(sys.argv[2] + "/aiu_rank%d.json" % p, "w"))
PY
}
once job_inputs-aiu split_aiu || die "splitting the AIU file"
cp "$ONCE"/aiu_rank*.json . || exit 1
"$TD" summary --format json --aiu-freq 557 aiu_rank*.json >split.json 2>err || { cat err; die "split AIU ranks refused"; }
"$TD" summary --format json --aiu-freq 557 "$AR" >whole.json 2>/dev/null || die "whole AIU file"
$PY - <<'PY' || exit 1
import json
a, b = json.load(open("split.json")), json.load(open("whole.json"))
assert a["trace"]["devices"] == b["trace"]["devices"] == 4, (a["trace"], b["trace"])
ka = sorted((r["device"], r["kernel_ns"]) for r in a["aiu_devices"])
kb = sorted((r["device"], r["kernel_ns"]) for r in b["aiu_devices"])
assert ka == kb, (ka, kb)
PY
exit 0
