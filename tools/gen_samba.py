#!/usr/bin/env python3
"""gen_samba.py - make a SYNTHETIC SambaTune stack-tracing artifact set (the open CSV
format of README "SambaNova stack tracing") for a decoder-style model.

Usage: tools/gen_samba.py [--seed N] [--layers L] [--steps S] [--omit LAYER,...]
                          [--host-bound] [--scale K] OUT_DIR

The model: an embedding, L decoder blocks (each: norm, attention, norm, MLP) and an
LM head, run S times (steps). A decoder block's hypersections are compiled once and
called L times per step, so the schedule has S * (2 + 4 L) + ... section calls over a
handful of hypersections. Everything is self-consistent: measured latency is the
estimate times a per-section factor (attention's softmax part is made far above its
estimate); min <= max latency; TFLOP utilisation = (TFLOP / measured seconds) / PEAK.
--scale K multiplies the steps (for reader benchmarks). --omit drops layer files
(1, 2, schedule, 3, 4, host). Only the Python standard library is used (Debian
python3); the output depends only on the arguments.
"""
import argparse
import os
import random

PEAK_TFLOPS = 300.0  # assumed peak of the synthetic chip, TFLOP/s
LABEL = "# SYNTHETIC data made by tools/gen_samba.py (not from SambaNova hardware)\n"

# hyperfunction -> [(hypersection, tflop per call, est PMUs, est PCUs, est latency us,
#                    measured/estimated factor)]
MODEL = [
    ("embedding", [("embedding__gather", 0.0021, 96, 32, 41.5, 1.10)]),
    ("decoder_block", [
        ("decoder_block__norm", 0.0004, 48, 24, 12.25, 1.05),
        ("decoder_block__attention_qkv", 0.1610, 320, 288, 820.0, 1.12),
        ("decoder_block__attention_softmax", 0.0190, 192, 160, 210.0, 2.40),
        ("decoder_block__attention_out", 0.0540, 256, 224, 300.0, 1.08),
        ("decoder_block__mlp", 0.4300, 480, 448, 1900.0, 1.15),
    ]),
    ("lm_head", [("lm_head__matmul", 0.2600, 400, 384, 1250.0, 1.20),
                 ("lm_head__sampling", 0.0008, 64, 32, 95.0, 1.30)]),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--omit", default="")
    ap.add_argument("--host-bound", action="store_true")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    omit = set(x for x in a.omit.split(",") if x)
    os.makedirs(a.out, exist_ok=True)

    secs = []  # (hf, name, tflop, pmus, pcus, est_us, factor)
    for hf, hss in MODEL:
        for (name, tflop, pmus, pcus, est, fac) in hss:
            j = 1 + rnd.uniform(-0.03, 0.03)  # per-seed jitter of the estimate
            secs.append((hf, name, tflop, pmus, pcus, round(est * j, 3), fac))
    gid = {s[1]: 100 + i for i, s in enumerate(secs)}

    def w(fname, header, rows):
        if fname.split("_")[0] in omit:
            return
        with open(os.path.join(a.out, fname + ".csv"), "w", newline="") as f:
            f.write(LABEL)
            f.write(header + "\n")
            for r in rows:
                f.write(",".join(r) + "\n")

    w("1_layer1_hypersections", "hypersection,hyperfunction,tflop,est_pmus,est_pcus,est_latency_us",
      [(s[1], s[0], "%.6f" % s[2], str(s[3]), str(s[4]), "%.3f" % s[5]) for s in secs])
    ir_rows = []
    for s in secs:
        ir = ('"hypersection %s {\n  %%0 = load(ddr)\n  %%1 = compute(%%0)  '
              '# SYNTHETIC IR\n  store(%%1, ddr)\n}"' % s[1])
        ir_rows.append((s[1], str(gid[s[1]]), ir))
    w("2_layer2_ids", "hypersection,global_id,ir", ir_rows)
    order = ["embedding__gather"]
    for _ in range(a.layers):
        order += ["decoder_block__norm", "decoder_block__attention_qkv",
                  "decoder_block__attention_softmax", "decoder_block__attention_out",
                  "decoder_block__norm", "decoder_block__mlp"]
    order += ["lm_head__matmul", "lm_head__sampling"]
    sched = []
    for _ in range(a.steps * a.scale):
        sched += order
    w("schedule_layer2_schedule", "call,global_id",
      [(str(i), str(gid[n])) for i, n in enumerate(sched)])
    l3, l4 = [], []
    for s in secs:
        est = s[5]
        mn = round(est * rnd.uniform(0.85, 0.95), 3)
        mx = round(est * rnd.uniform(1.2, 1.6), 3)
        pm = s[3] - rnd.randrange(0, 9) * 4
        pc = s[4] - rnd.randrange(0, 9) * 4
        l3.append((s[1], str(pm), str(pc), "%.3f" % mn, "%.3f" % mx))
        meas = round(est * s[6] * rnd.uniform(0.98, 1.02), 3)
        util = (s[2] / (meas * 1e-6)) / PEAK_TFLOPS
        req = rnd.choice([256, 512, 1024, 2048, 4096])
        ddr = round(rnd.uniform(40, 180), 2)
        pcie = round(rnd.uniform(0.5, 12), 2)
        l4.append((s[1], "%.3f" % meas, str(req), "%.2f" % ddr, "%.2f" % pcie, "%.4f" % util))
    w("3_layer3_final", "hypersection,final_pmus,final_pcus,min_latency_us,max_latency_us", l3)
    w("4_layer4_benchmark", "hypersection,measured_latency_us,avg_ddr_request_bytes,ddr_bw_gbps,"
      "pcie_bw_gbps,tflop_utilization", l4)
    dev_us = sum(float(r[1]) for r in l4 for n in sched if n == r[0]) if len(sched) < 5000 \
        else 0.0
    if not dev_us:
        m = {r[0]: float(r[1]) for r in l4}
        dev_us = sum(m[n] for n in sched)
    f = 1.4 if a.host_bound else 0.35  # host time as a fraction of device time
    parts = [("SAMBA", 0.38), ("PYTHON TO C", 0.22), ("RUN SETUP", 0.17),
             ("DATA TRANSFER", 0.15), ("OTHER", 0.08)]
    w("host_snprof", "category,time_us",
      [(n, "%.3f" % (dev_us * f * p * rnd.uniform(0.95, 1.05))) for n, p in parts])


if __name__ == "__main__":
    main()
