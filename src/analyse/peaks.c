/* analyse/peaks.c - device peaks for the per-op roofline (analyse/op_perf.c): dense
 * (no structured sparsity) TFLOP/s per data type and memory bandwidth in TB/s, from the
 * vendor's datasheet named in each row. Where a datasheet gives a sparse figure only,
 * the dense one is half of it. FP32 matrix math on NVIDIA is the CUDA-core FP32 figure
 * (torch's default for float32 matmul is no TF32); AMD's FP32 is the matrix-core figure.
 * A device name matches a row when it contains every "&"-separated word of `match`
 * (case-insensitive); the first matching row wins, so specific rows come first.
 * `--peak TFLOPS:TBPS` overrides all of it (doc/commands.md). */
#include "analyse/internal.h"
#include <string.h>
#include <strings.h>

static const td_peak PEAKS[] = {
    /* device, match, fp64, fp32, tf32, bf16, fp16, fp8, int8, TB/s, source */
    {"NVIDIA H100 SXM5", "H100&HBM3", 34, 67, 494.7, 989.4, 989.4, 1978.9, 1978.9, 3.35,
     "NVIDIA H100 Tensor Core GPU datasheet (2023), H100 SXM column"},
    {"NVIDIA H100 SXM5", "H100&SXM", 34, 67, 494.7, 989.4, 989.4, 1978.9, 1978.9, 3.35,
     "NVIDIA H100 Tensor Core GPU datasheet (2023), H100 SXM column"},
    {"NVIDIA H100 NVL", "H100&NVL", 30, 60, 417.5, 835.5, 835.5, 1670.5, 1670.5, 3.9,
     "NVIDIA H100 Tensor Core GPU datasheet (2023), H100 NVL column"},
    {"NVIDIA H100 PCIe", "H100&PCIe", 26, 51, 378, 756, 756, 1513, 1513, 2.0,
     "NVIDIA H100 Tensor Core GPU datasheet (2022), H100 PCIe column"},
    {"NVIDIA H200 SXM", "H200", 34, 67, 494.7, 989.4, 989.4, 1978.9, 1978.9, 4.8,
     "NVIDIA H200 Tensor Core GPU datasheet (2024), H200 SXM column"},
    {"NVIDIA A100 SXM4 80GB", "A100&80GB&SXM", 9.7, 19.5, 156, 312, 312, 0, 624, 2.039,
     "NVIDIA A100 Tensor Core GPU datasheet (2021), A100 80GB SXM column"},
    {"NVIDIA A100 PCIe 80GB", "A100&80GB", 9.7, 19.5, 156, 312, 312, 0, 624, 1.935,
     "NVIDIA A100 Tensor Core GPU datasheet (2021), A100 80GB PCIe column"},
    {"NVIDIA A100 40GB", "A100", 9.7, 19.5, 156, 312, 312, 0, 624, 1.555,
     "NVIDIA A100 Tensor Core GPU datasheet (2021), A100 40GB PCIe/SXM columns"},
    {"NVIDIA V100 PCIe", "V100&PCIe", 7, 14, 0, 0, 112, 0, 0, 0.9,
     "NVIDIA Tesla V100 GPU datasheet (2020), V100 PCIe column"},
    {"NVIDIA V100 SXM2", "V100", 7.8, 15.7, 0, 0, 125, 0, 0, 0.9,
     "NVIDIA Tesla V100 GPU datasheet (2020), V100 SXM2 column"},
    {"NVIDIA L40S", "L40S", 0, 91.6, 183, 362.05, 362.05, 733, 733, 0.864,
     "NVIDIA L40S GPU datasheet (2023)"},
    {"AMD Instinct MI300X", "MI300X", 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9, 5.3,
     "AMD Instinct MI300X accelerator data sheet (2023)"},
    {"AMD Instinct MI250X", "MI250X", 95.7, 95.7, 0, 383, 383, 0, 383, 3.2768,
     "AMD Instinct MI250X accelerator data sheet (2021)"},
    {"AMD Instinct MI250", "MI250", 90.5, 90.5, 0, 362.1, 362.1, 0, 362.1, 3.2768,
     "AMD Instinct MI250 accelerator data sheet (2021)"},
};

/* 1 when s contains w[0..n) ignoring case */
static int has_word(const char *s, const char *w, size_t n)
{
    for (; *s; s++)
        if (!strncasecmp(s, w, n))
            return 1;
    return 0;
}

const td_peak *td_peak_for(const char *device)
{
    if (!device)
        return NULL;
    for (size_t i = 0; i < sizeof PEAKS / sizeof PEAKS[0]; i++) {
        const char *m = PEAKS[i].match;
        int ok = 1;
        while (ok && *m) {
            size_t n = strcspn(m, "&");
            ok = has_word(device, m, n);
            m += n + (m[n] == '&');
        }
        if (ok)
            return &PEAKS[i];
    }
    return NULL;
}

double td_peak_tflops(const td_peak *p, const char *dtype)
{
    if (!p || !dtype)
        return 0;
    if (!strcmp(dtype, "fp64"))
        return p->fp64;
    if (!strcmp(dtype, "fp32"))
        return p->fp32;
    if (!strcmp(dtype, "tf32"))
        return p->tf32;
    if (!strcmp(dtype, "bf16"))
        return p->bf16;
    if (!strcmp(dtype, "fp16"))
        return p->fp16;
    if (!strcmp(dtype, "fp8"))
        return p->fp8;
    if (!strcmp(dtype, "int8"))
        return p->int8;
    return 0;
}

size_t td_peaks_list(const td_peak **out)
{
    *out = PEAKS;
    return sizeof PEAKS / sizeof PEAKS[0];
}
