/* read/nsys_split.c - one trace per process of a multi-process Nsight Systems report. */
#include "read/nsys_int.h"

/* MPI rank of a process from nsys's MPI tracing thread name "MPI Rank N"; -1 none. */
static int mpi_rank(rd *r, int64_t pid)
{
    for (size_t i = 0; i < r->nthr; i++) {
        if (r->thr[i].pid != pid)
            continue;
        const char *s = td_strget(r->set->strs, r->thr[i].name);
        if (strncmp(s, "MPI Rank ", 9) == 0 && s[9] >= '0' && s[9] <= '9') {
            char *end;
            long v = strtol(s + 9, &end, 10);
            if (!*end && v < 1000000)
                return (int)v;
        }
    }
    return -1;
}

typedef struct {
    int64_t pid;
    int rank;
} proc;

static int cmp_proc(const void *x, const void *y)
{
    const proc *a = x, *b = y;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* One report can hold several processes (`nsys profile mpirun -np 4 ...`). Each process
 * with CUDA or NVTX activity becomes its own trace (one rank), in MPI rank order when
 * every such process has a distinct "MPI Rank N" thread, else in pid order. The first
 * stays in t; the others are appended to the set as "PATH:pid N". Processes with only
 * OS runtime calls stay with the first. */
void td_nsys_split_processes(rd *r)
{
    td_trace *t = r->t;
    proc *P = NULL;
    size_t np = 0, pcap = 0;
    /* one process on every track (the usual case): it is the one process with CUDA or
     * NVTX activity if any event is not an OS runtime call; no walk over every event */
    int one = 1;
    for (size_t i = 1; i < t->ntracks && one; i++)
        one = t->tracks[i].pid == t->tracks[0].pid;
    for (size_t i = 0; one && i < t->nev; i++)
        if (t->ev[i].kind != TD_K_OTHER) {
            *TD_PUSH(P, np, pcap) = (proc){t->tracks[t->ev[i].track].pid, 0};
            break;
        }
    for (size_t i = 0; !one && i < t->nev; i++) {
        if (t->ev[i].kind == TD_K_OTHER)
            continue;
        int64_t pid = t->tracks[t->ev[i].track].pid;
        size_t k = 0;
        while (k < np && P[k].pid != pid)
            k++;
        if (k == np)
            *TD_PUSH(P, np, pcap) = (proc){pid, 0};
    }
    int distinct = np > 0;
    for (size_t k = 0; k < np; k++) {
        P[k].rank = mpi_rank(r, P[k].pid);
        if (P[k].rank < 0)
            distinct = 0;
        for (size_t j = 0; j < k; j++)
            if (P[j].rank == P[k].rank)
                distinct = 0;
    }
    if (!distinct)
        for (size_t k = 0; k < np; k++)
            P[k].rank = 0;
    sort(P, np, sizeof *P, cmp_proc);
    if (np == 1 && distinct)
        t->rank = P[0].rank;
    if (np < 2) {
        free(P);
        return;
    }
    /* Take t's arrays and deal them out again. */
    td_trace old = *t;
    t->ev = NULL, t->nev = t->ev_cap = 0;
    t->aux = NULL, t->naux = t->aux_cap = 0;
    t->dims = NULL, t->ndims = t->dims_cap = 0;
    t->nccl = NULL, t->nnccl = t->nccl_cap = 0;
    t->tracks = NULL, t->ntracks = t->tracks_cap = 0;
    t->ranges = NULL, t->nranges = t->ranges_cap = 0;
    t->compile = NULL, t->ncompile = t->compile_cap = 0;
    t->mem = NULL, t->nmem = t->mem_cap = 0;
    TD_PUSH(t->aux, t->naux, t->aux_cap);   /* aux id 0 = none */
    memset(&t->aux[0], 0, sizeof t->aux[0]);
    td_trace **dst = td_xcalloc(np, sizeof *dst);
    dst[0] = t;
    for (size_t k = 1; k < np; k++) {
        char *path = td_arena_printf(r->set->arena, "%s:pid %" PRId64, t->path, P[k].pid);
        td_trace *d = td_traceset_add(r->set, path);
        d->format = TD_FMT_NSYS_SQLITE;
        d->gzip = t->gzip;
        d->bytes = t->bytes;
        memcpy(d->sha256, t->sha256, sizeof d->sha256);
        d->base_time_ns = t->base_time_ns;
        d->ncats = 0;
        for (size_t c = 0; c < old.ncats; c++)
            *TD_PUSH(d->cats, d->ncats, d->cats_cap) = old.cats[c];
        for (size_t c = 0; c < old.ndevices; c++)
            *TD_PUSH(d->devices, d->ndevices, d->devices_cap) = old.devices[c];
        dst[k] = d;
    }
    for (size_t k = 0; k < np; k++) {
        dst[k]->world_size = (int)np;
        if (distinct)
            dst[k]->rank = P[k].rank;
        else if (k && t->rank < 0)
            dst[k]->rank = -1;   /* unknown like the first: td_read_finish numbers them */
    }
    /* old track -> (trace, new track) */
    uint32_t *tmap = td_xmalloc((old.ntracks + 1) * sizeof *tmap);
    uint32_t *twho = td_xmalloc((old.ntracks + 1) * sizeof *twho);
    for (size_t i = 0; i < old.ntracks; i++) {
        size_t k = 0;
        while (k < np && P[k].pid != old.tracks[i].pid)
            k++;
        if (k == np)
            k = 0;
        twho[i] = (uint32_t)k;
        tmap[i] = td_trace_track(dst[k], old.tracks[i].pid, old.tracks[i].tid);
        dst[k]->tracks[tmap[i]] = old.tracks[i];
    }
    for (size_t i = 0; i < old.nev; i++) {
        td_trace *d = dst[twho[old.ev[i].track]];
        td_event *ev = td_trace_push_event(d);
        *ev = old.ev[i];
        ev->track = tmap[old.ev[i].track];
        if (ev->aux) {
            td_aux *a;
            ev->aux = td_trace_push_aux(d, &a);
            *a = old.aux[old.ev[i].aux];
            a->nccl = 0;
            const td_nccl *n = td_aux_nccl(&old, old.ev[i].aux);
            if (n)
                *td_trace_push_nccl(d, ev->aux) = *n;
            if (old.ev[i].aux < old.ndims)
                td_trace_set_dims(d, ev->aux, old.dims[old.ev[i].aux].grid,
                                  old.dims[old.ev[i].aux].block);
        }
    }
    for (size_t i = 0; i < old.nranges; i++) {
        td_trace *d = dst[twho[old.ranges[i].track]];
        td_range *g = TD_PUSH(d->ranges, d->nranges, d->ranges_cap);
        *g = old.ranges[i];
        g->track = tmap[old.ranges[i].track];
    }
    for (size_t i = 0; i < old.ncompile; i++) {
        td_trace *d = dst[twho[old.compile[i].track]];
        td_range *g = TD_PUSH(d->compile, d->ncompile, d->compile_cap);
        *g = old.compile[i];
        g->track = tmap[old.compile[i].track];
    }
    for (size_t i = 0; i < old.nmem; i++) {   /* time order kept within each process */
        td_trace *d = dst[twho[old.mem[i].track]];
        td_mem *m = TD_PUSH(d->mem, d->nmem, d->mem_cap);
        *m = old.mem[i];
        m->track = tmap[old.mem[i].track];
    }
    /* rows read are not attributable after deduplication: count what each holds */
    for (size_t k = 0; k < np; k++)
        dst[k]->nevents = dst[k]->nev;
    free(old.ev);
    free(old.aux);
    free(old.dims);
    free(old.nccl);
    free(old.tracks);
    free(old.ranges);
    free(old.compile);
    free(old.mem);
    free(tmap);
    free(twho);
    free(dst);
    free(P);
}
