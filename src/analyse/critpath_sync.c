/* analyse/critpath_sync.c - the waits the critical path follows when the trace has no
 * cuda_sync events (doc/summary-json.md "critical_path"; not in --critical-path hta):
 *  - a CPU blocked in a synchronizing call waits for the device: a stream, device or
 *    event synchronize (CUDA runtime and driver, HIP) returns when the device work it
 *    waits on ends, the latest device work of the window that ends within the call; a
 *    copy (cudaMemcpy, cudaMemcpyAsync, hipMemcpy*, cuMemcpy*) that returns after the
 *    copy it launched ended (a copy to pageable host memory, the .item(), .cpu(), .to()
 *    of a device tensor) waited for that copy, which waited for the work before it;
 *  - device work that starts more than WAIT_NS after both its launch and the previous
 *    work on its stream ended waited for another stream (cudaStreamWaitEvent): for the
 *    work of another stream of that device that ended last, within WAIT_NS before it.
 * Both edges weigh nothing, as HTA's synchronisation edges. */
#include "analyse/critpath.h"
#include "base/sort.h"
#include <stdlib.h>
#include <string.h>

#define WAIT_NS 20000 /* a cross-stream wait resumes within a few us of the work it waits on */

static const char *const SYNC_CALLS[] = {
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
    "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize",
    "hipDeviceSynchronize", "hipStreamSynchronize", "hipEventSynchronize",
    "synchronizeStream", "synchronize", /* MTIA runtime */
    NULL};
static const char *const COPY_CALLS[] = {
    "cudaMemcpy", "cudaMemcpyAsync", "cudaMemcpy2D", "cudaMemcpy2DAsync", "cuMemcpyDtoH",
    "cuMemcpyDtoHAsync", "cuMemcpyDtoH_v2", "cuMemcpyDtoHAsync_v2", "hipMemcpy",
    "hipMemcpyAsync", "hipMemcpyDtoH", "hipMemcpyDtoHAsync", "hipMemcpyWithStream", NULL};

static int in_list(const char *n, const char *const *l)
{
    for (; *l; l++)
        if (!strcmp(n, *l))
            return 1;
    return 0;
}

/* 1: a synchronize, 2: a copy, 0: neither (memo per name: bit 7 looked up) */
static int call_kind(td_actx *a, uint8_t *memo, size_t nmemo, td_str name)
{
    if (name < nmemo && memo[name])
        return memo[name] & 3;
    const char *n = td_name(a, name);
    int k = in_list(n, SYNC_CALLS) ? 1 : in_list(n, COPY_CALLS) ? 2 : 0;
    if (name < nmemo)
        memo[name] = (uint8_t)(0x80 | k);
    return k;
}

static int64_t end_of(const td_event *e)
{
    return e->ts + e->dur;
}

size_t td_cp_infer_waits(td_actx *a, td_cptrace *p, const int32_t *dk, size_t nd,
                         const int32_t *calls, size_t ncalls, int32_t *dwait, td_cp_wait **cw)
{
    const td_tctx *c = p->c;
    const td_trace *t = c->t;
    *cw = NULL;
    for (size_t j = 0; j < nd; j++)
        dwait[j] = -1;
    if (!nd)
        return 0;
    size_t nmemo = td_strtab_count(a->set->strs) + 1;
    uint8_t *memo = td_xcalloc(nmemo, 1);
    /* the window's device work by end (position in dk) */
    td_keyed *byend = td_xmalloc(nd * sizeof *byend);
    for (size_t j = 0; j < nd; j++)
        byend[j] = (td_keyed){end_of(&t->ev[p->devix[dk[j]]]), (int64_t)j};
    td_sort_keyed(byend, nd);
    /* the CPU waits */
    size_t n = 0, cap = 0;
    td_cp_wait *w = NULL;
    /* a copy call's own copy: the latest-ending one it launched that ends within it */
    int32_t *own = td_xmalloc(ncalls ? ncalls * sizeof *own : sizeof *own);
    for (size_t q = 0; q < ncalls; q++)
        own[q] = -1;
    for (size_t j = 0; j < nd; j++) {
        int32_t r = c->launch[dk[j]];
        const td_event *ce = &t->ev[r];
        if (call_kind(a, memo, nmemo, ce->name) != 2)
            continue;
        /* calls[] is in event order: find r */
        size_t lo = 0, hi = ncalls;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (calls[mid] < r)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == ncalls || calls[lo] != r)
            continue;
        const td_event *d = &t->ev[p->devix[dk[j]]];
        if (end_of(d) < ce->ts || end_of(d) > end_of(ce))
            continue;
        if (own[lo] < 0 || end_of(d) > end_of(&t->ev[p->devix[dk[own[lo]]]]))
            own[lo] = (int32_t)j;
    }
    for (size_t q = 0; q < ncalls; q++) {
        const td_event *ce = &t->ev[calls[q]];
        int kind = call_kind(a, memo, nmemo, ce->name);
        int32_t src = -1;
        if (kind == 2)
            src = own[q];
        else if (kind == 1) { /* the latest end at or before the call's end */
            size_t lo = 0, hi = nd;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (byend[mid].key <= end_of(ce))
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo && byend[lo - 1].key >= ce->ts)
                src = (int32_t)byend[lo - 1].val;
        }
        if (src < 0)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            w = td_xrealloc(w, cap * sizeof *w);
        }
        w[n++] = (td_cp_wait){dk[src], calls[q]};
    }
    free(own);
    /* the device waits: dk is by start; per stream the previous work's end */
    typedef struct { int32_t dev, stream; int64_t end; } sl;
    sl *ls = NULL;
    size_t nls = 0, cls = 0;
    for (size_t j = 0; j < nd; j++) {
        const td_event *d = &t->ev[p->devix[dk[j]]];
        const td_track *tk = &t->tracks[d->track];
        sl *l = NULL;
        for (size_t m = 0; m < nls; m++)
            if (ls[m].dev == tk->device && ls[m].stream == tk->stream)
                l = &ls[m];
        if (!l) {
            if (nls == cls) {
                cls = cls ? 2 * cls : 8;
                ls = td_xrealloc(ls, cls * sizeof *ls);
            }
            l = &ls[nls++];
            *l = (sl){tk->device, tk->stream, INT64_MIN};
        }
        int64_t ready = end_of(&t->ev[c->launch[dk[j]]]);
        if (l->end > ready)
            ready = l->end;
        if (end_of(d) > l->end)
            l->end = end_of(d);
        if (d->ts - ready <= WAIT_NS)
            continue;
        size_t lo = 0, hi = nd;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (byend[mid].key <= d->ts)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t m = lo; m-- > 0 && byend[m].key >= d->ts - WAIT_NS;) {
            const td_track *ok = &t->tracks[t->ev[p->devix[dk[byend[m].val]]].track];
            if (ok->device == tk->device && ok->stream != tk->stream) {
                dwait[j] = dk[byend[m].val];
                break;
            }
        }
    }
    free(ls);
    free(byend);
    free(memo);
    *cw = w;
    return n;
}
