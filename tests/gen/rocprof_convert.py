#!/usr/bin/env python3
"""tests/gen/rocprof_convert.py RESULTS.json[.gz] OUT_DIR [PREFIX]

SYNTHETIC test data: converts one rocprofv3 JSON file into the other two outputs rocprofv3
writes for the same run, as a test of tracedoc's three readers (no public rocpd database
or CSV set exists):

- PREFIX_agent_info.csv, PREFIX_kernel_trace.csv, PREFIX_hip_api_trace.csv,
  PREFIX_memory_copy_trace.csv, PREFIX_marker_api_trace.csv (only those with rows), with
  the columns of rocprofv3's CSV output (ROCprofiler-SDK source/lib/output/generateCSV.cpp:
  Agent_Id as "Agent N" with N the agent's logical node id, Kernel_Name truncated as
  `rocprofv3 --truncate-kernels` writes it);
- PREFIX_results.db, a rocpd SQLite database made with the published schema
  (../shared/docs/rocprof/rocpd_tables.sql, rocpd_views.sql, data_views.sql, schema 3)
  filled as generateRocpd.cpp fills it (agent id = node id, kernel symbol id = kernel id,
  display_name = formatted name, rocpd_event.stack_id = internal correlation id,
  correlation_id = external; API calls and ROCTx ranges in rocpd_region). Its
  rocpd_metadata has a row ("synthetic", "tests/gen/rocprof_convert.py from FILE").

PREFIX defaults to "synthetic" + the process id. Standard library only (csv, sqlite3).
"""
import csv
import gzip
import json
import os
import sqlite3
import sys

src, out = sys.argv[1], sys.argv[2]
opener = gzip.open if src.endswith(".gz") else open
with opener(src, "rt") as f:
    tool = json.load(f)["rocprofiler-sdk-tool"][0]
meta = tool["metadata"]
pid = meta.get("pid", 0)
prefix = sys.argv[3] if len(sys.argv) > 3 else f"synthetic{pid}"
docs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared/docs/rocprof")
docs = os.environ.get("ROCPROF_DOCS", docs)

kinds = tool["strings"]["buffer_records"]
kind_name = lambda k: kinds[k]["kind"] if 0 <= k < len(kinds) else f"kind {k}"  # noqa: E731


def op_name(k, o):
    ops = kinds[k]["operations"] if 0 <= k < len(kinds) else []
    return ops[o] if 0 <= o < len(ops) else f"kind {k} operation {o}"


msgs = {m["key"]: m["value"] for m in tool["strings"].get("marker_api", [])}
agents = tool["agents"]
by_handle = {a["id"]["handle"]: a for a in agents}
gpus = [a for a in agents if a.get("type") == 2]
gpu_index = {a["id"]["handle"]: a.get("gpu_index", i) for i, a in enumerate(gpus)}
ksyms = {k["kernel_id"]: k for k in tool["kernel_symbols"]}
buf = tool["buffer_records"]


def agent_label(h):
    a = by_handle.get(h)
    return f"Agent {a['logical_node_id']}" if a else f"Agent {h}"


def w(name, header, rows):
    if not rows:
        return
    with open(os.path.join(out, f"{prefix}_{name}.csv"), "w", newline="") as f:
        cw = csv.writer(f, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
        cw.writerow(header)
        cw.writerows(rows)


# ---- CSV
w("agent_info", ["Node_Id", "Logical_Node_Id", "Agent_Type", "Cpu_Cores_Count", "Simd_Count",
                 "Cu_Count", "Name", "Vendor_Name", "Product_Name", "Model_Name"],
  [[a.get("node_id", 0), a.get("logical_node_id", 0), "GPU" if a.get("type") == 2 else "CPU",
    a.get("cpu_cores_count", 0), a.get("simd_count", 0), a.get("cu_count", 0), a.get("name", ""),
    a.get("vendor_name", ""), a.get("product_name", ""), a.get("model_name", "")] for a in agents])
KHDR = ["Kind", "Agent_Id", "Queue_Id", "Stream_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id",
        "Kernel_Name", "Correlation_Id", "Start_Timestamp", "End_Timestamp", "LDS_Block_Size",
        "Scratch_Size", "VGPR_Count", "Accum_VGPR_Count", "SGPR_Count", "Workgroup_Size_X",
        "Workgroup_Size_Y", "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"]
rows = []
for r in buf.get("kernel_dispatch", []):
    di = r["dispatch_info"]
    ks = ksyms.get(di["kernel_id"], {})
    wg, gr = di["workgroup_size"], di["grid_size"]
    rows.append([kind_name(r["kind"]), agent_label(di["agent_id"]["handle"]), di["queue_id"]["handle"],
                 r.get("stream_id", {}).get("handle", 0), r["thread_id"], di["dispatch_id"],
                 di["kernel_id"], ks.get("truncated_kernel_name", ""), r["correlation_id"]["internal"],
                 r["start_timestamp"], r["end_timestamp"], di.get("group_segment_size", 0),
                 di.get("private_segment_size", 0), ks.get("arch_vgpr_count", 0),
                 ks.get("accum_vgpr_count", 0), ks.get("sgpr_count", 0),
                 wg["x"], wg["y"], wg["z"], gr["x"], gr["y"], gr["z"]])
w("kernel_trace", KHDR, rows)
AHDR = ["Domain", "Function", "Process_Id", "Thread_Id", "Correlation_Id", "Start_Timestamp",
        "End_Timestamp"]
for key, name in (("hip_api", "hip_api_trace"), ("hsa_api", "hsa_api_trace")):
    w(name, AHDR, [[kind_name(r["kind"]), op_name(r["kind"], r["operation"]), pid, r["thread_id"],
                    r["correlation_id"]["internal"], r["start_timestamp"], r["end_timestamp"]]
                   for r in buf.get(key, [])])
w("marker_api_trace", AHDR,
  [[kind_name(r["kind"]), msgs.get(r["correlation_id"]["internal"], op_name(r["kind"], r["operation"])),
    pid, r["thread_id"], r["correlation_id"]["internal"], r["start_timestamp"], r["end_timestamp"]]
   for r in buf.get("marker_api", [])])
w("memory_copy_trace", ["Kind", "Direction", "Stream_Id", "Source_Agent_Id", "Destination_Agent_Id",
                        "Correlation_Id", "Start_Timestamp", "End_Timestamp"],
  [[kind_name(r["kind"]), op_name(r["kind"], r["operation"]), r.get("stream_id", {}).get("handle", 0),
    agent_label(r["src_agent_id"]["handle"]), agent_label(r["dst_agent_id"]["handle"]),
    r["correlation_id"]["internal"], r["start_timestamp"], r["end_timestamp"]]
   for r in buf.get("memory_copy", [])])

# ---- rocpd
db = os.path.join(out, f"{prefix}_results.db")
if os.path.exists(db):
    os.remove(db)
con = sqlite3.connect(db)
UUID, GUID = "_00000000synthetic", "00000000-0000-0000-0000-synthetic000"
for f in ("rocpd_tables.sql", "rocpd_views.sql", "data_views.sql"):
    sql = open(os.path.join(docs, f)).read().replace("{{uuid}}", UUID).replace("{{guid}}", GUID)
    con.executescript(sql)
T = lambda t: f"rocpd_{t}{UUID}"  # noqa: E731
strings = {}


def sid(s):
    if s not in strings:
        cur = con.execute(f"INSERT INTO {T('string')} (guid, string) VALUES (?, ?)", (GUID, s))
        strings[s] = cur.lastrowid
    return strings[s]


events = [0]


def event(cat, corr):
    cur = con.execute(f"INSERT INTO {T('event')} (guid, category_id, stack_id, parent_stack_id, "
                      "correlation_id) VALUES (?, ?, ?, ?, ?)",
                      (GUID, sid(cat), corr["internal"], corr["internal"], corr["external"]))
    return cur.lastrowid


con.execute(f"INSERT INTO {T('metadata')} (tag, value) VALUES ('synthetic', ?)",
            (f"tests/gen/rocprof_convert.py from {os.path.basename(src)}",))
node = meta.get("node", {})
con.execute(f"INSERT INTO {T('info_node')} (id, guid, hash, machine_id, hostname) VALUES (1, ?, ?, ?, ?)",
            (GUID, node.get("hash", 0), node.get("machine_id", "synthetic"), node.get("hostname", "")))
con.execute(f"INSERT INTO {T('info_process')} (id, guid, nid, pid, init, fini, start, end, command) "
            "VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?)",
            (pid, GUID, pid, meta.get("init_time"), meta.get("fini_time"), meta.get("init_time"),
             meta.get("fini_time"), " ".join(meta.get("command", []))))
threads = set()
for key in ("kernel_dispatch", "hip_api", "hsa_api", "marker_api", "memory_copy"):
    threads.update(r["thread_id"] for r in buf.get(key, []))
for t in sorted(threads):
    con.execute(f"INSERT INTO {T('info_thread')} (id, guid, nid, pid, tid) VALUES (?, ?, 1, ?, ?)",
                (t, GUID, pid, t))
for a in agents:
    gpu = a.get("type") == 2
    con.execute(f"INSERT INTO {T('info_agent')} (id, guid, nid, pid, type, absolute_index, "
                "logical_index, type_index, name, model_name, vendor_name, product_name, user_name) "
                "VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (a.get("node_id", 0), GUID, pid, "GPU" if gpu else "CPU", a.get("node_id", 0),
                 a.get("logical_node_id", 0),
                 gpu_index[a["id"]["handle"]] if gpu else a.get("logical_node_id", 0),
                 a.get("name", ""), a.get("model_name", ""), a.get("vendor_name", ""),
                 a.get("product_name", ""), a.get("product_name", "")))
node_of = {a["id"]["handle"]: a.get("node_id", 0) for a in agents}
for c in tool.get("code_objects", []):
    if c.get("code_object_id", 0) == 0:
        continue
    con.execute(f"INSERT INTO {T('info_code_object')} (id, guid, nid, pid, agent_id, uri, load_base, "
                "load_size, load_delta) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?)",
                (c["code_object_id"], GUID, pid, node_of.get(c["agent_id"]["handle"]), c.get("uri", ""),
                 c.get("load_base", 0), c.get("load_size", 0), c.get("load_delta", 0)))
have_co = {r[0] for r in con.execute(f"SELECT id FROM {T('info_code_object')}")}
for k in tool["kernel_symbols"]:
    if k["kernel_id"] == 0 and k["code_object_id"] == 0:
        continue
    if k["code_object_id"] not in have_co:
        con.execute(f"INSERT INTO {T('info_code_object')} (id, guid, nid, pid) VALUES (?, ?, 1, ?)",
                    (k["code_object_id"], GUID, pid))
        have_co.add(k["code_object_id"])
    con.execute(f"INSERT INTO {T('info_kernel_symbol')} (id, guid, nid, pid, code_object_id, kernel_name, "
                "display_name, kernel_object, group_segment_size, private_segment_size, sgpr_count, "
                "arch_vgpr_count, accum_vgpr_count) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (k["kernel_id"], GUID, pid, k["code_object_id"], k["kernel_name"],
                 k["formatted_kernel_name"], k.get("kernel_object", 0), k.get("group_segment_size", 0),
                 k.get("private_segment_size", 0), k.get("sgpr_count", 0), k.get("arch_vgpr_count", 0),
                 k.get("accum_vgpr_count", 0)))
queues, streams = set(), set()
for r in buf.get("kernel_dispatch", []):
    queues.add(r["dispatch_info"]["queue_id"]["handle"])
    streams.add(r.get("stream_id", {}).get("handle", 0))
for r in buf.get("memory_copy", []):
    streams.add(r.get("stream_id", {}).get("handle", 0))
for q in sorted(queues):
    con.execute(f"INSERT INTO {T('info_queue')} (id, guid, nid, pid, name) VALUES (?, ?, 1, ?, ?)",
                (q, GUID, pid, f"Queue {q}"))
for s in sorted(streams):
    con.execute(f"INSERT INTO {T('info_stream')} (id, guid, nid, pid, name) VALUES (?, ?, 1, ?, ?)",
                (s, GUID, pid, f"Stream {s}"))
empty = sid("")
for r in buf.get("kernel_dispatch", []):
    di = r["dispatch_info"]
    ev = event(kind_name(r["kind"]), r["correlation_id"])
    wg, gr = di["workgroup_size"], di["grid_size"]
    con.execute(f"INSERT INTO {T('kernel_dispatch')} (guid, nid, pid, tid, agent_id, kernel_id, "
                "dispatch_id, queue_id, stream_id, start, end, private_segment_size, group_segment_size, "
                "workgroup_size_x, workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y, "
                "grid_size_z, region_name_id, event_id) VALUES "
                "(?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (GUID, pid, r["thread_id"], node_of[di["agent_id"]["handle"]], di["kernel_id"],
                 di["dispatch_id"], di["queue_id"]["handle"], r.get("stream_id", {}).get("handle", 0),
                 r["start_timestamp"], r["end_timestamp"], di.get("private_segment_size", 0),
                 di.get("group_segment_size", 0), wg["x"], wg["y"], wg["z"], gr["x"], gr["y"], gr["z"],
                 empty, ev))
for key in ("hip_api", "hsa_api", "marker_api"):
    for r in buf.get(key, []):
        corr = r["correlation_id"]
        name = msgs.get(corr["internal"]) if key == "marker_api" else None
        name = name if name is not None else op_name(r["kind"], r["operation"])
        ev = event(kind_name(r["kind"]), corr)
        con.execute(f"INSERT INTO {T('region')} (guid, nid, pid, tid, start, end, name_id, event_id) "
                    "VALUES (?, 1, ?, ?, ?, ?, ?, ?)",
                    (GUID, pid, r["thread_id"], r["start_timestamp"], r["end_timestamp"], sid(name), ev))
for r in buf.get("memory_copy", []):
    ev = event(kind_name(r["kind"]), r["correlation_id"])
    con.execute(f"INSERT INTO {T('memory_copy')} (guid, nid, pid, tid, start, end, name_id, dst_agent_id, "
                "src_agent_id, size, stream_id, event_id) VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (GUID, pid, r["thread_id"], r["start_timestamp"], r["end_timestamp"],
                 sid(op_name(r["kind"], r["operation"])), node_of[r["dst_agent_id"]["handle"]],
                 node_of[r["src_agent_id"]["handle"]], r.get("bytes", 0),
                 r.get("stream_id", {}).get("handle", 0), ev))
con.commit()
# the views of data_views.sql see every row (a check of the references, as rocpd's tools read)
n = con.execute("SELECT count(*) FROM kernels").fetchone()[0]
assert n == len(buf.get("kernel_dispatch", [])), (n, "kernels view")
con.close()
