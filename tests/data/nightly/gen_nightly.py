#!/usr/bin/python3
"""Make a real nightly series of torch.profiler CPU traces (Debian's python3-torch).

Usage: gen_nightly.py OUTDIR [runs] [slow_from] [active_steps]
Run k (1-based) profiles 10 training steps of the same small transformer as
../../../../shared/traces/torch-cpu/gen_torch_trace.py, one thread. From run slow_from on
the encoder's feed-forward layer is 4x wider (dim_feedforward 256 -> 1024): a real
slowdown of the aten::addmm / aten::mm work and of the step time. Each trace is the
profiler's own output, gzip-compressed; nothing here edits it.
"""
import gzip, os, shutil, sys, tempfile
import torch
from torch import nn
from torch.profiler import profile, ProfilerActivity, schedule, record_function

out = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 30
slow_from = int(sys.argv[3]) if len(sys.argv) > 3 else 21
active = int(sys.argv[4]) if len(sys.argv) > 4 else 10
os.makedirs(out, exist_ok=True)
torch.set_num_threads(1)
for run in range(1, runs + 1):
    ff = 1024 if run >= slow_from else 256
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model=128, nhead=4, dim_feedforward=ff,
                                                         batch_first=True), num_layers=2),
        nn.Flatten(), nn.Linear(128 * 32, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(16, 32, 128)
    y = torch.randint(0, 10, (16,))
    lossf = nn.CrossEntropyLoss()
    with profile(activities=[ProfilerActivity.CPU],
                 schedule=schedule(wait=1, warmup=2, active=active, repeat=1)) as prof:
        for step in range(3 + active + 1):
            with record_function("forward"):
                loss = lossf(model(x), y)
            with record_function("backward"):
                opt.zero_grad(); loss.backward()
            with record_function("optimizer"):
                opt.step()
            prof.step()
    tmp = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    prof.export_chrome_trace(tmp)
    dst = os.path.join(out, "run%02d.json.gz" % run)
    with open(tmp, "rb") as f, gzip.GzipFile(dst, "wb", mtime=0) as g:
        shutil.copyfileobj(f, g)
    os.unlink(tmp)
    print(dst, "ff=%d" % ff, flush=True)
