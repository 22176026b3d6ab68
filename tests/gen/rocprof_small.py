#!/usr/bin/env python3
"""tests/gen/rocprof_small.py OUT_DIR: small hand-made rocprofv3 JSON files (SYNTHETIC,
written for tests; the layout is rocprofv3-schema.json's) whose expected figures are
computed by hand in the comments, for tests/cases/rocprof_json.sh.

small.json: one GPU agent (gpu_index 0, "AMD Instinct MI300X"), a CPU agent, three ROCTx
ranges ProfilerStep#1..3 of 1,000 ns each on thread 11; in each, two hipLaunchKernel calls
(100 ns) whose dispatches (same internal correlation id) start 50 ns after the call ends
and run 200 ns on HIP stream 3; one hipMemcpy (corr 99) and its 1 MiB host-to-device copy
of 400 ns in step 3 on the same stream. Expected: 6 kernels "gemm_kernel" (1,200 ns), launches 7 with delay
50 ns each, 3 steps of 1,000 ns, memcpy 400 ns, device "AMD Instinct MI300X".
reordered.json: the same content with buffer_records before strings and kernel_symbols
(names resolved at the end): must read the same.
"""
import json
import sys

out = sys.argv[1]
KINDS = ["NONE", "HSA_CORE_API", "HSA_AMD_EXT_API", "HSA_IMAGE_EXT_API", "HSA_FINALIZE_EXT_API",
         "HIP_RUNTIME_API", "HIP_COMPILER_API", "MARKER_CORE_API", "MARKER_CONTROL_API",
         "MARKER_NAME_API", "MEMORY_COPY", "KERNEL_DISPATCH"]
OPS = {"HIP_RUNTIME_API": ["hipApiName", "hipLaunchKernel", "hipMemcpy"],
       "MARKER_CORE_API": ["roctxMarkA", "roctxRangePushA", "roctxRangePop"],
       "MEMORY_COPY": ["MEMORY_COPY_NONE", "MEMORY_COPY_HOST_TO_HOST", "MEMORY_COPY_HOST_TO_DEVICE"],
       "KERNEL_DISPATCH": ["KERNEL_DISPATCH_NONE", "KERNEL_DISPATCH_ENQUEUE", "KERNEL_DISPATCH_COMPLETE"]}
HIP, MARK, COPY, DISP = (KINDS.index(k) for k in ("HIP_RUNTIME_API", "MARKER_CORE_API",
                                                  "MEMORY_COPY", "KERNEL_DISPATCH"))
T0 = 1_000_000
hip, disp, marks, copies, msgs = [], [], [], [], []
corr = 1
for s in range(3):
    base = T0 + s * 1000
    mc = 500 + s
    msgs.append({"key": mc, "value": f"ProfilerStep#{s + 1}"})
    marks.append({"size": 48, "kind": MARK, "operation": 1, "thread_id": 11,
                  "correlation_id": {"internal": mc, "external": 0},
                  "start_timestamp": base, "end_timestamp": base + 1000})
    for j in range(2):
        t = base + 100 + j * 400
        hip.append({"size": 48, "kind": HIP, "operation": 1, "thread_id": 11,
                    "correlation_id": {"internal": corr, "external": 0},
                    "start_timestamp": t, "end_timestamp": t + 100})
        disp.append({"size": 184, "kind": DISP, "operation": 2, "thread_id": 11,
                     "correlation_id": {"internal": corr, "external": 0},
                     "start_timestamp": t + 150, "end_timestamp": t + 350,
                     "dispatch_info": {"size": 72, "agent_id": {"handle": 7}, "queue_id": {"handle": 1},
                                       "kernel_id": 4, "dispatch_id": corr,
                                       "private_segment_size": 0, "group_segment_size": 0,
                                       "workgroup_size": {"x": 256, "y": 1, "z": 1},
                                       "grid_size": {"x": 65536, "y": 1, "z": 1}},
                     "stream_id": {"handle": 3}})
        corr += 1
# a hipMemcpy in step 3 and its copy (corr 99)
t = T0 + 2000 + 850
hip.append({"size": 48, "kind": HIP, "operation": 2, "thread_id": 11,
            "correlation_id": {"internal": 99, "external": 0},
            "start_timestamp": t - 60, "end_timestamp": t - 50})
copies.append({"size": 64, "kind": COPY, "operation": 2, "thread_id": 11,
               "correlation_id": {"internal": 99, "external": 0},
               "start_timestamp": t, "end_timestamp": t + 400,
               "dst_agent_id": {"handle": 7}, "src_agent_id": {"handle": 6}, "bytes": 1 << 20,
               "stream_id": {"handle": 3}})
meta = {"pid": 4242, "init_time": T0 - 5000, "fini_time": T0 + 9000}
agents = [{"size": 312, "id": {"handle": 6}, "type": 1, "name": "AMD EPYC", "product_name": "AMD EPYC",
           "cu_count": 64, "node_id": 0, "logical_node_id": 0},
          {"size": 312, "id": {"handle": 7}, "type": 2, "name": "gfx942",
           "product_name": "AMD Instinct MI300X", "cu_count": 304, "node_id": 1, "logical_node_id": 1,
           "gpu_index": 0}]
strings = {"buffer_records": [{"kind": k, "operations": OPS.get(k, [])} for k in KINDS],
           "marker_api": msgs, "callback_records": []}
ksyms = [{"size": 88, "kernel_id": 4, "code_object_id": 1, "kernel_name": "_Z11gemm_kernelPfS_i.kd",
          "formatted_kernel_name": "gemm_kernel(float*, float*, int)",
          "truncated_kernel_name": "gemm_kernel"}]
buf = {"kernel_dispatch": disp, "hip_api": hip, "hsa_api": [], "marker_api": marks,
       "memory_copy": copies, "memory_allocation": []}
tool = {"metadata": meta, "agents": agents, "counters": [], "strings": strings,
        "code_objects": [{"size": 0, "uri": "x" * 100}], "kernel_symbols": ksyms,
        "host_functions": [], "callback_records": {"counter_collection": []},
        "buffer_records": buf}
json.dump({"rocprofiler-sdk-tool": [tool]}, open(f"{out}/small.json", "w"), indent=1)
re = {"buffer_records": buf, "metadata": meta, "agents": agents, "strings": strings,
      "kernel_symbols": ksyms}
json.dump({"rocprofiler-sdk-tool": [re]}, open(f"{out}/reordered.json", "w"))
