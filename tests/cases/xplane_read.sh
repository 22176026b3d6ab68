# XPlane (`*.xplane.pb`, the XSpace protobuf of jax.profiler / XProf): the shared sample
# (JAX + Transformer Engine fused attention on one AMD GPU, with HLO protos in
# /host:metadata) read as a file, gzip-compressed and from stdin (held in memory) gives one
# summary; its kernel totals per device, GPU timeline, per-HLO-op times and counts and the
# module's kernel time equal the independent decoding in
# ../shared/oracles/xplane/934987a2fc2f (xplane_oracle.json, device_events.csv) within 1%,
# computed here from those files; the HLO protos give the opcodes and op_name.
. "$ROOT/tests/lib.sh"
need_traces
X="$TRACES/xplane/934987a2fc2f.xplane.pb"
O="$TRACES/../oracles/xplane/934987a2fc2f"
[ -f "$X" ] && [ -d "$O" ] || { echo "no XPlane sample"; exit 77; }
"$TD" summary --format json -o "$WORK/s.json" "$X" 2>"$WORK/err" || { cat "$WORK/err"; die "summary"; }
gzip -c "$X" >"$WORK/h.xplane.pb.gz"
"$TD" summary --format json -o "$WORK/gz.json" "$WORK/h.xplane.pb.gz" 2>/dev/null || die "summary of the gzip file"
"$TD" summary --format json -o "$WORK/stdin.json" - <"$X" 2>/dev/null || die "summary from stdin"
checked $PY - "$WORK/s.json" "$WORK/gz.json" "$WORK/stdin.json" "$O/xplane_oracle.json" "$O/device_events.csv" <<'PYEOF'
import csv, json, sys
s, gz, sin = (json.load(open(p)) for p in sys.argv[1:4])
orc = json.load(open(sys.argv[4]))
rows = list(csv.DictReader(open(sys.argv[5])))
def near(a, b, what):
    assert abs(a - b) <= 0.01 * max(abs(b), 1e-9), f"{what}: {a} vs oracle {b}"
for other in (gz, sin):   # the three readings agree (all but the input's name and bytes)
    for k in ("kernels_by_device", "gpu_timeline", "modules", "thunks", "hlo_ops", "runtime"):
        assert other[k] == s[k], k
assert s["inputs"][0]["format"] == "xplane", s["inputs"]
# kernel totals per device (oracle: per device plane)
for dv in orc["devices"]:
    if not dv["kernel_count"]:
        continue
    dev = int(dv["plane_name"].rsplit(":", 1)[1])
    ks = [k for k in s["kernels_by_device"] if k["device"] == dev]
    assert sum(k["calls"] for k in ks) == dv["kernel_count"], dev
    near(sum(k["total_ns"] for k in ks) / 1e3, dv["kernel_time_us"], f"kernel time dev {dev}")
    tl = [g for g in s["gpu_timeline"] if g["device"] == dev and g["scope"] == "trace"][0]
    o = dv["tracelens_gpu_timeline"]   # ms
    for k in ("computation", "busy", "idle", "total", "exposed_memcpy", "total_comm"):
        near(tl[k + "_ns"] / 1e6, o[k + "_time"], f"gpu_timeline {k} dev {dev}")
# per HLO op: from the per-event rows of the oracle (kernel count, summed time)
per = {}
for r in rows:
    if r["class"] != "kernel" or not r["hlo_op"]:
        continue
    c = per.setdefault(r["hlo_op"], [0, 0])
    c[0] += 1
    c[1] += int(r["dur_ps"]) / 1e6   # us
assert per and {o["name"] for o in orc["totals"]["per_hlo_op"]} == set(per)
th = {t["name"]: t for t in s["thunks"]}
assert set(th) == set(per), set(th) ^ set(per)
for op, (n, us) in per.items():
    assert th[op]["calls"] == n, (op, th[op]["calls"], n)
    near(th[op]["total_ns"] / 1e3, us, f"hlo op {op}")
# per HLO module: kernel time inside the module's executions
mods = {}
for r in rows:
    if r["class"] == "kernel" and r["hlo_module"]:
        mods[r["hlo_module"]] = mods.get(r["hlo_module"], 0) + int(r["dur_ps"]) / 1e6
assert [m["name"] for m in s["modules"]] == list(mods), s["modules"]
near(s["runtime"]["thunks_ns"] / 1e3, sum(mods.values()), "module kernel time")
# the HLO protos of /host:metadata were decoded: opcodes and op_name
ops = {o["opcode"] for o in s["hlo_opcodes"]}
assert {"fusion", "custom-call"} <= ops, ops
assert th["te_fused_attn_forward_ffi.10"]["op_name"].endswith("te_fused_attn_forward_ffi"), "op_name"
PYEOF
