/* fixture.h - a representative summary for renderer tests (PDF, XLSX, SVG), built by
 * hand with the table names and keys of the summary contract (doc/summary-json.md).
 * Includes a hostile name in every table with text. */
#ifndef TD_FIXTURE_H
#define TD_FIXTURE_H
#include "summary/summary.h"

#define FIXTURE_HOSTILE "=cmd|' /C calc'!A0 <script>alert(\"x\")</script> & ]]> \n tab\there"

static inline td_summary *fixture_summary(void)
{
    td_summary *s = td_summary_new();
    td_sum_set_str(s, "inputs_label", "Input", "resnet50_rank0.json.gz, resnet50_rank1.json.gz");
    td_sum_set_str(s, "date", "Date", "2023-11-14");
    td_sum_set_str(s, "tool.version", "tracedoc version", "0.1.0");
    td_sum_set_int(s, "trace.span_ns", "Traced time", TD_T_NS, 2480000000LL);
    td_sum_set_int(s, "trace.ranks", "Ranks", TD_T_INT, 2);
    td_sum_set_int(s, "trace.devices", "Devices", TD_T_INT, 2);
    td_sum_set_str(s, "trace.device_name", "Device", "NVIDIA A100-SXM4-80GB");
    td_sum_set_int(s, "trace.world_size", "World size", TD_T_INT, 2);
    td_sum_set_str(s, "warmup.mode", "Warm-up", "auto");
    td_sum_set_int(s, "warmup.dropped", "Warm-up steps dropped", TD_T_INT, 1);
    td_sum_set_str(s, "warmup.rule", "Warm-up rule",
                   "dropped the first step: 3.1x the median of the others");
    td_sum_set_f64(s, "module_cut.threshold", "Module cut-off", TD_T_F64, 0.01);
    td_sum_set_int(s, "module_cut.dropped_modules", "Modules below cut-off", TD_T_INT, 3);
    td_sum_set_int(s, "module_cut.dropped_ns", "Time below cut-off", TD_T_NS, 1200000);
    td_sum_set_int(s, "compile.total_ns", "Compile time", TD_T_NS, 35400000000LL);
    td_sum_set_int(s, "runtime.thunks_ns", "Thunk GPU time", TD_T_NS, 1800000000LL);
    td_sum_set_int(s, "runtime.modules_ns", "Module GPU time", TD_T_NS, 1900000000LL);
    td_sum_set_int(s, "runtime.wall_ns", "Wall time (devices)", TD_T_NS, 2300000000LL);

    td_table *t = td_sum_table(s, "inputs", "Inputs");
    td_table_cols(t, "path:text:Path", "format:text:Format", "bytes:bytes:Size",
                  "sha256:text:SHA-256", "events:int:Events", "rank:int:Rank",
                  "world_size:int:World size", "device_name:text:Device", NULL);
    for (int r = 0; r < 2; r++) {
        size_t i = td_table_add_row(t);
        td_row_str(s, t, i, "path", r ? "traces/resnet50_rank1.json.gz" : "traces/resnet50_rank0.json.gz");
        td_row_str(s, t, i, "format", "chrome-json");
        td_row_int(s, t, i, "bytes", 1159569 + r);
        td_row_str(s, t, i, "sha256", "5f2a9c0d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a19");
        td_row_int(s, t, i, "events", 412345 + r);
        td_row_int(s, t, i, "rank", r);
        td_row_int(s, t, i, "world_size", 2);
        td_row_str(s, t, i, "device_name", "NVIDIA A100-SXM4-80GB");
    }

    t = td_sum_table(s, "gpu_timeline", "GPU timeline");
    td_table_cols(t, "rank:int:Rank", "device:device:Device", "scope:text:Scope",
                  "computation_ns:ns:Computation", "exposed_comm_ns:ns:Exposed comm",
                  "exposed_memcpy_ns:ns:Exposed memcpy", "busy_ns:ns:Busy", "idle_ns:ns:Idle",
                  "total_ns:ns:Total", "total_comm_ns:ns:Total comm",
                  "total_memcpy_ns:ns:Total memcpy", NULL);
    for (int d = -1; d < 2; d++) {
        size_t i = td_table_add_row(t);
        td_row_int(s, t, i, "rank", d < 0 ? 0 : d);
        td_row_int(s, t, i, "device", d);
        td_row_str(s, t, i, "scope", "trace");
        td_row_int(s, t, i, "computation_ns", 1400000000LL + d * 10000000LL);
        td_row_int(s, t, i, "exposed_comm_ns", 300000000LL);
        td_row_int(s, t, i, "exposed_memcpy_ns", 20000000LL);
        td_row_int(s, t, i, "busy_ns", 1720000000LL + d * 10000000LL);
        td_row_int(s, t, i, "idle_ns", 760000000LL - d * 10000000LL);
        td_row_int(s, t, i, "total_ns", 2480000000LL);
        td_row_int(s, t, i, "total_comm_ns", 520000000LL);
        td_row_int(s, t, i, "total_memcpy_ns", 45000000LL);
    }

    t = td_sum_table(s, "steps", "Steps");
    td_table_cols(t, "rank:int:Rank", "name:text:Name", "step:int:Step", "start_ns:ns:Start",
                  "wall_ns:ns:Wall", "device_busy_ns:ns:Device busy", "warmup:bool:Warm-up",
                  NULL);
    for (int k = 0; k < 8; k++) {
        size_t i = td_table_add_row(t);
        char nm[32];
        snprintf(nm, sizeof nm, "ProfilerStep#%d", k + 2);
        td_row_int(s, t, i, "rank", 0);
        td_row_str(s, t, i, "name", nm);
        td_row_int(s, t, i, "step", k + 2);
        td_row_int(s, t, i, "start_ns", k * 300000000LL);
        td_row_int(s, t, i, "wall_ns", k == 0 ? 900000000LL : 290000000LL + (k % 3) * 7000000LL);
        td_row_int(s, t, i, "device_busy_ns", k == 0 ? 400000000LL : 210000000LL + k * 1000000LL);
        td_row_int(s, t, i, "warmup", k == 0);
    }

    t = td_sum_table(s, "modules", "Modules");
    td_table_cols(t, "name:text:Module", "program_id:int:Program", "executions:int:Executions",
                  "thunks_mean:f64:Thunks/exec", "thunks_std:f64:Thunks std",
                  "mean_ns:ns:Mean", "std_ns:ns:Std", "total_ns:ns:Total", "share:share:Share",
                  NULL);
    const char *mods[] = {"pjit__wrapped_step_fn", "jit__psum", FIXTURE_HOSTILE,
                          "a_module_with_a_really_long_name_that_needs_to_be_ellipsized_in_the_middle_of_the_table_cell"};
    for (int k = 0; k < 4; k++) {
        size_t i = td_table_add_row(t);
        td_row_str(s, t, i, "name", mods[k]);
        td_row_int(s, t, i, "program_id", 40 - k);
        td_row_int(s, t, i, "executions", k == 0 ? 3 : 10 * k);
        td_row_f64(s, t, i, "thunks_mean", k == 0 ? 2610 : 12.5);
        td_row_f64(s, t, i, "thunks_std", 0.0);
        td_row_int(s, t, i, "mean_ns", k == 0 ? 127212000LL : 1500000LL / k);
        td_row_int(s, t, i, "std_ns", 350000LL);
        td_row_int(s, t, i, "total_ns", k == 0 ? 381636000LL : 15000000LL);
        td_row_f64(s, t, i, "share", k == 0 ? 0.88 : 0.04);
    }

    t = td_sum_table(s, "kernels", "Kernels");
    td_table_cols(t, "name:text:Kernel", "calls:int:Calls", "total_ns:ns:Total",
                  "mean_ns:ns:Mean", "median_ns:ns:Median", "min_ns:ns:Min", "max_ns:ns:Max",
                  "std_ns:ns:Std", "share:share:Share", NULL);
    const char *kern[] = {
        "volta_sgemm_128x64_nn", "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)",
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
        "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
        FIXTURE_HOSTILE, "cudnn::bn_fw_tr_1C11_kernel_NCHW", "Memcpy HtoD (Pageable -> Device)"};
    for (int k = 0; k < 6; k++) {
        size_t i = td_table_add_row(t);
        td_row_str(s, t, i, "name", kern[k]);
        td_row_int(s, t, i, "calls", 100 * (k + 1));
        td_row_int(s, t, i, "total_ns", 700000000LL / (k + 1));
        td_row_int(s, t, i, "mean_ns", 7000000LL / ((k + 1) * (k + 1)));
        td_row_int(s, t, i, "median_ns", 6900000LL / ((k + 1) * (k + 1)));
        td_row_int(s, t, i, "min_ns", 1000 * (k + 1));
        td_row_int(s, t, i, "max_ns", 9000000LL);
        td_row_int(s, t, i, "std_ns", 120000);
        td_row_f64(s, t, i, "share", 0.41 / (k + 1));
    }

    t = td_sum_table(s, "ops", "Ops");
    td_table_cols(t, "name:text:Name", "calls:int:Calls", "self_ns:ns:Self CPU",
                  "total_ns:ns:CPU total", "avg_ns:ns:CPU avg", "self_share:share:Self %",
                  "total_share:share:Total %", "device_self_ns:ns:Self CUDA",
                  "device_total_ns:ns:CUDA total", NULL);
    const char *ops[] = {"aten::mm", "aten::addmm", "+SUM(A1:A9)", "@import", "-1+2",
                         "aten::convolution_backward"};
    for (int k = 0; k < 6; k++) {
        size_t i = td_table_add_row(t);
        td_row_str(s, t, i, "name", ops[k]);
        td_row_int(s, t, i, "calls", 95 - k);
        td_row_int(s, t, i, "self_ns", 708512000LL / (k + 1));
        td_row_int(s, t, i, "total_ns", 708512000LL / (k + 1) + 1000);
        td_row_int(s, t, i, "avg_ns", 7458000LL / (k + 1));
        td_row_f64(s, t, i, "self_share", 0.5851 / (k + 1));
        td_row_f64(s, t, i, "total_share", 0.5851 / (k + 1));
        td_row_int(s, t, i, "device_self_ns", 1000000LL * k);
        td_row_int(s, t, i, "device_total_ns", 2000000LL * k);
    }

    t = td_sum_table(s, "collectives", "Collectives");
    td_table_cols(t, "name:text:Collective", "bytes:bytes:Message size", "calls:int:Calls",
                  "total_ns:ns:Total", "mean_ns:ns:Mean", "algbw_gbps:gbps:Alg BW",
                  "busbw_gbps:gbps:Bus BW", "group_size:int:Ranks", "dtype:text:Dtype",
                  "hidden_ns:ns:Hidden", "wait_ns:ns:Wait", NULL);
    int64_t sizes[] = {4096, 65536, 1048576, 16777216, 268435456};
    for (int k = 0; k < 5; k++) {
        size_t i = td_table_add_row(t);
        td_row_str(s, t, i, "name", k % 2 ? "allgather" : "allreduce");
        td_row_int(s, t, i, "bytes", sizes[k]);
        td_row_int(s, t, i, "calls", 40 - 5 * k);
        td_row_int(s, t, i, "total_ns", 1000000LL * (k + 1) * (k + 1));
        td_row_int(s, t, i, "mean_ns", 25000LL * (k + 1) * (k + 1));
        td_row_f64(s, t, i, "algbw_gbps", 0.2 * (1 << (2 * k)));
        td_row_f64(s, t, i, "busbw_gbps", 0.35 * (1 << (2 * k)));
        td_row_int(s, t, i, "group_size", 8);
        td_row_str(s, t, i, "dtype", "Float");
        td_row_int(s, t, i, "hidden_ns", 100000LL * k);
        td_row_int(s, t, i, "wait_ns", 50000LL * k);
    }

    t = td_sum_table(s, "variability", "Variability");
    td_table_cols(t, "name:text:Kernel", "calls:int:Calls", "mean_ns:ns:Mean",
                  "std_ns:ns:Std", "cov:f64:CoV", NULL);
    for (int k = 0; k < 6; k++) {
        size_t i = td_table_add_row(t);
        td_row_str(s, t, i, "name", kern[k]);
        td_row_int(s, t, i, "calls", 100 * (k + 1));
        td_row_int(s, t, i, "mean_ns", 7000000LL / ((k + 1) * (k + 1)));
        td_row_int(s, t, i, "std_ns", 120000LL * (k + 1));
        td_row_f64(s, t, i, "cov", 0.017 * (k + 1) * (k + 1));
    }

    t = td_sum_table(s, "compile.phases", "Compile phases");
    td_table_cols(t, "name:text:Phase", "non_child_ns:ns:Non-child time", "share:share:Share",
                  NULL);
    const char *ph[] = {"XlaAutotunerMeasurement", "XlaEmitLlvmIr", "XlaPassPipeline:#name=spmd#",
                        "XlaCompileBackend"};
    for (int k = 0; k < 4; k++) {
        size_t i = td_table_add_row(t);
        td_row_str(s, t, i, "name", ph[k]);
        td_row_int(s, t, i, "non_child_ns", 20000000000LL / (k + 1));
        td_row_f64(s, t, i, "share", 0.48 / (k + 1));
    }

    td_flame *f = td_sum_flame(s, "device", "Device time by module");
    td_flame_add(s, f, "pjit__wrapped_step_fn;volta_sgemm_128x64_nn", 300000000);
    td_flame_add(s, f, "pjit__wrapped_step_fn;ncclKernel_AllReduce", 60000000);
    td_flame_add(s, f, "pjit__wrapped_step_fn;" FIXTURE_HOSTILE, 20000000);
    td_flame_add(s, f, "jit__psum;ncclKernel_AllReduce", 15000000);
    for (int k = 0; k < 50; k++) {
        char st[96];
        snprintf(st, sizeof st, "jit__psum;tiny_kernel_%02d", k);
        td_flame_add(s, f, st, 10000);
    }
    td_flame_finish(f);
    f = td_sum_flame(s, "cpu", "CPU call stacks");
    td_flame_add(s, f, "python 1234;ProfilerStep#3;aten::linear;aten::addmm", 200000000);
    td_flame_add(s, f, "python 1234;ProfilerStep#3;aten::linear;aten::t", 5000000);
    td_flame_add(s, f, "python 1234;ProfilerStep#3;backward;AddmmBackward0;aten::mm", 150000000);
    td_flame_finish(f);

    td_sum_finding(s, "GPU idle 31%% of the traced time, most of it between steps.");
    td_sum_finding(s, "The top kernel (volta_sgemm_128x64_nn) is 41%% of device time.");
    td_sum_finding(s, "Exposed communication is 12%% of the traced time.");
    td_sum_finding(s, "Warm-up removal dropped 1 step (ProfilerStep#2, 3.1x the median).");
    td_sum_warning(s, "resnet50_rank1.json.gz: truncated at byte 1159569; kept 412346 events");
    return s;
}
#endif
