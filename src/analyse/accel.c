/* analyse/accel.c - which accelerator the traces ran on, named as the trace names it:
 * trace.accelerator ("CUDA", "ROCm", "SPYRE", "MTIA", "HPU", "XPU", "AIU", "PRIVATEUSE1") and
 * trace.device_word, the word documents use for the device ("GPU" for CUDA/ROCm, else
 * the accelerator's name), so a Spyre trace never reads "GPU". Rules (README
 * "Accelerator naming"): an AIU flex trace is AIU; Kineto categories privateuse1_* are
 * SPYRE when a device or process name says Spyre/AIU (else PRIVATEUSE1), mtia_* MTIA,
 * hpu_* HPU, xpu_* XPU; any other device work is CUDA, or ROCm when a device's name says
 * AMD/Radeon/Instinct (torch names ROCm devices CUDA; the trace's deviceProperties do not). */
#include "analyse/internal.h"
#include <string.h>
#include <strings.h>

static int has_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (; s && *s; s++)
        if (!strncasecmp(s, w, n))
            return 1;
    return 0;
}

void td_an_accel(td_actx *a)
{
    int pu1 = 0, mtia = 0, hpu = 0, xpu = 0, aiu = 0, spyre = 0, dev = 0, rocm = 0;
    for (size_t i = 0; i < a->n; i++) {
        const td_trace *t = a->tc[i].t;
        if (t->format == TD_FMT_AIU_FLEX)
            aiu = 1;
        if (t->format == TD_FMT_ROCPROF_JSON || t->format == TD_FMT_ROCPROF_CSV ||
            t->format == TD_FMT_ROCPD)
            rocm = 1; /* rocprofv3 profiles AMD GPUs only */
        if (a->tc[i].ndev)
            dev = 1;
        for (size_t k = 0; k < t->ncats; k++) {
            const char *c = td_name(a, t->cats[k]);
            if (!strncasecmp(c, "privateuse1", 11))
                pu1 = 1;
            else if (!strncasecmp(c, "mtia_", 5))
                mtia = 1;
            else if (!strncasecmp(c, "hpu_", 4))
                hpu = 1;
            else if (!strncasecmp(c, "xpu_", 4))
                xpu = 1;
        }
        for (size_t k = 0; k < t->ndevices; k++) {
            const char *n = td_name(a, t->devices[k].name);
            if (has_word(n, "spyre") || has_word(n, "aiu"))
                spyre = 1;
            /* torch on ROCm names its devices CUDA; the device properties say AMD */
            if (has_word(n, "amd") || has_word(n, "radeon") || has_word(n, "instinct"))
                rocm = 1;
        }
        for (size_t k = 0; k < t->ntracks; k++) {
            const char *n = td_name(a, t->tracks[k].process_name);
            if (has_word(n, "spyre") || has_word(n, "aiu"))
                spyre = 1;
        }
    }
    const char *acc = aiu ? "AIU" : pu1 ? (spyre ? "SPYRE" : "PRIVATEUSE1") : mtia ? "MTIA"
                    : hpu ? "HPU" : xpu ? "XPU" : dev ? (rocm ? "ROCm" : "CUDA") : NULL;
    if (!acc)
        return;
    a->accel = acc;
    a->devword = strcmp(acc, "CUDA") && strcmp(acc, "ROCm") ? acc : "GPU";
    td_sum_set_str(a->s, "trace.accelerator", "Accelerator", acc);
    td_sum_set_str(a->s, "trace.device_word", "Device kind", a->devword);
}
