/* model/job.c - do these inputs belong to one job? (see model/job.h for the rule)
 *
 * A directory or a command line of unrelated traces (an A100 run, an MI250 run, an MTIA
 * run...) must not become one confident "4 ranks" report: the traces are grouped into the
 * runs they can belong to, and more than one run is refused with every other run's first
 * file and why it is not a rank of the first run. Refusing (rather than reporting the runs
 * side by side) keeps every document about one job: "rank 3 is 31x slower than the median
 * rank" only means something between ranks of one job. */
#include "model/job.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t td_trace_wall_ns(const td_trace *t, int64_t t_ns)
{
    const int64_t lo = 1262304000LL * 1000000000LL;  /* 2010-01-01 */
    const int64_t hi = 4102444800LL * 1000000000LL;  /* 2100-01-01 */
    int64_t w = 0;
    if (t->base_time_ns > 0 && t_ns >= 0 && t_ns < lo)
        w = t->base_time_ns + t_ns;
    else if (t_ns >= lo && t_ns < hi)
        w = t_ns;
    return w >= lo && w < hi ? w : 0;
}

static void utc(char *b, size_t n, int64_t ns)
{
    time_t s = (time_t)(ns / 1000000000);
    struct tm tm;
    if (!gmtime_r(&s, &tm) || !strftime(b, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(b, n, "?");
}

static int known(const char *s)
{
    return s && *s;
}

int td_job_differs(const td_job_facts *a, const td_job_facts *b, char *why, size_t n)
{
    if (known(a->file) && known(b->file) && !strcmp(a->file, b->file))
        return 0;   /* processes of one export */
    if (known(a->sha256) && known(b->sha256) && !strcmp(a->sha256, b->sha256)) {
        snprintf(why, n, "the same bytes (SHA-256 %.12s...) given twice", b->sha256);
        return 1;
    }
    if (known(a->format) && known(b->format) && strcmp(a->format, b->format)) {
        snprintf(why, n, "input format %s here, %s there", b->format, a->format);
        return 1;
    }
    if (known(a->device) && known(b->device) && strcmp(a->device, b->device)) {
        snprintf(why, n, "device '%s' here, '%s' there", b->device, a->device);
        return 1;
    }
    if (a->world_size > 0 && b->world_size > 0 && a->world_size != b->world_size) {
        snprintf(why, n, "world size %" PRId64 " here, %" PRId64 " there", b->world_size,
                 a->world_size);
        return 1;
    }
    if (known(a->backend) && known(b->backend) && strcmp(a->backend, b->backend)) {
        snprintf(why, n, "backend %s here, %s there", b->backend, a->backend);
        return 1;
    }
    if (a->rank >= 0 && a->rank == b->rank) {
        snprintf(why, n, "both are rank %" PRId64, b->rank);
        return 1;
    }
    /* IBM AIU flex traces state no device model, world size or wall-clock time base, but
     * each pid is an AIU's rank: two files holding the same pid are two runs (or one
     * rank given twice) */
    for (size_t i = 0, j = 0; i < a->naiu_ranks && j < b->naiu_ranks;) {
        if (a->aiu_ranks[i] == b->aiu_ranks[j]) {
            snprintf(why, n, "both hold AIU rank %" PRId64 " (a flex trace's pid is its AIU's "
                     "rank)", a->aiu_ranks[i]);
            return 1;
        }
        if (a->aiu_ranks[i] < b->aiu_ranks[j])
            i++;
        else
            j++;
    }
    if (a->start_ns && b->start_ns) {
        int64_t gap = a->start_ns > b->end_ns ? a->start_ns - b->end_ns
                      : b->start_ns > a->end_ns ? b->start_ns - a->end_ns : 0;
        if (gap > TD_JOB_GAP_NS) {
            char x[40], y[40];
            utc(x, sizeof x, b->start_ns);
            utc(y, sizeof y, a->start_ns);
            snprintf(why, n, "captured %s here, %s there", x, y);
            return 1;
        }
    }
    return 0;
}

/* The facts a trace states. nsys's world size is the number of processes in the export,
 * not a declared world size, so it is not compared. */
static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static void facts_of(const td_traceset *set, const td_trace *t, td_job_facts *f, char **file,
                     int64_t **ranks)
{
    memset(f, 0, sizeof *f);
    f->path = t->path;
    f->format = td_format_name(t->format);
    f->device = "";
    for (size_t d = 0; d < t->ndevices; d++)
        if (t->devices[d].name) {
            f->device = td_strget(set->strs, t->devices[d].name);
            break;
        }
    f->backend = t->backend ? td_strget(set->strs, t->backend) : "";
    f->world_size = t->format == TD_FMT_NSYS_SQLITE ? 0 : t->world_size;
    f->rank = t->rank;
    f->sha256 = t->sha256;
    *file = NULL;
    *ranks = NULL;
    if (t->format == TD_FMT_AIU_FLEX && t->naiu) {
        int64_t *r = td_xmalloc(t->naiu * sizeof *r);
        size_t m = 0;
        for (size_t i = 0; i < t->naiu; i++)
            r[i] = t->aiu[i].device;
        qsort(r, t->naiu, sizeof *r, cmp_i64);
        for (size_t i = 0; i < t->naiu; i++)
            if (!m || r[m - 1] != r[i])
                r[m++] = r[i];
        *ranks = r;
        f->aiu_ranks = r;
        f->naiu_ranks = m;
    }
    if (t->format == TD_FMT_NSYS_SQLITE) {
        /* read/nsys.c names the other processes of an export "PATH:pid N" */
        const char *p = strstr(t->path, ":pid ");
        size_t len = p ? (size_t)(p - t->path) : strlen(t->path);
        *file = td_xmalloc(len + 1);
        memcpy(*file, t->path, len);
        (*file)[len] = 0;
        f->file = *file;
    }
    if (t->nev) {
        int64_t t0 = INT64_MAX, t1 = INT64_MIN;
        for (size_t i = 0; i < t->nev; i++) {
            if (t->ev[i].ts < t0)
                t0 = t->ev[i].ts;
            if (t->ev[i].ts + t->ev[i].dur > t1)
                t1 = t->ev[i].ts + t->ev[i].dur;
        }
        f->start_ns = td_trace_wall_ns(t, t0);
        f->end_ns = f->start_ns ? f->start_ns + (t1 - t0) : 0;
    }
}

td_status td_job_check(const td_traceset *set, td_err *e)
{
    size_t n = set->n;
    if (n < 2)
        return TD_OK;
    td_job_facts *f = td_xcalloc(n, sizeof *f);
    char **files = td_xcalloc(n, sizeof *files);
    int64_t **ranks = td_xcalloc(n, sizeof *ranks);
    size_t *run = td_xcalloc(n, sizeof *run);     /* run index of each trace */
    size_t *first = td_xcalloc(n, sizeof *first); /* first trace of each run */
    size_t nruns = 0;
    char why[256];
    for (size_t i = 0; i < n; i++)
        facts_of(set, set->tr[i], &f[i], &files[i], &ranks[i]);
    /* each trace joins the first run it agrees with (with every trace already in it) */
    for (size_t i = 0; i < n; i++) {
        size_t r = 0;
        for (; r < nruns; r++) {
            size_t j = 0;
            while (j < i && (run[j] != r || !td_job_differs(&f[j], &f[i], why, sizeof why)))
                j++;
            if (j == i)
                break;
        }
        if (r == nruns)
            first[nruns++] = i;
        run[i] = r;
    }
    /* a declared world size caps the ranks */
    size_t over = SIZE_MAX;
    for (size_t r = 0; r < nruns && over == SIZE_MAX; r++) {
        size_t cnt = 0;
        for (size_t i = 0; i < n; i++)
            if (run[i] == r)
                cnt++;
        for (size_t i = 0; i < n; i++)
            if (run[i] == r && f[i].world_size > 0 &&
                (f[i].rank >= f[i].world_size || (int64_t)cnt > f[i].world_size)) {
                over = i;
                if (f[i].rank >= f[i].world_size)
                    snprintf(why, sizeof why, "rank %" PRId64 " of a world size of %" PRId64,
                             f[i].rank, f[i].world_size);
                else
                    snprintf(why, sizeof why, "%zu traces of a job of world size %" PRId64,
                             cnt, f[i].world_size);
                break;
            }
    }
    td_status st = TD_OK;
    if (nruns > 1) {
        td_buf b = {0};
        td_buf_printf(&b, "these %zu traces are not ranks of one job but of %zu runs; report "
                      "each run on its own:", n, nruns);
        for (size_t r = 1; r < nruns; r++) {
            size_t i = first[r], j = 0;
            /* why it is not in the first run: the first trace there it disagrees with */
            while (j < i && (run[j] != 0 || !td_job_differs(&f[j], &f[i], why, sizeof why)))
                j++;
            size_t more = 0;
            for (size_t k = 0; k < n; k++)
                more += run[k] == r && k != i;
            char line[600];
            if (more)
                snprintf(line, sizeof line, "\n  %s (and %zu more of its run) does not belong "
                         "with %s: %s", f[i].path, more, f[j < i ? j : first[0]].path, why);
            else
                snprintf(line, sizeof line, "\n  %s does not belong with %s: %s", f[i].path,
                         f[j < i ? j : first[0]].path, why);
            if (b.n + strlen(line) + 40 > sizeof e->msg) {
                td_buf_printf(&b, "\n  ... and %zu more runs", nruns - r);
                break;
            }
            td_buf_puts(&b, line);
        }
        st = td_fail(e, TD_E_FORMAT, "%s", td_buf_cstr(&b));
        td_buf_free(&b);
    } else if (over != SIZE_MAX) {
        st = td_fail(e, TD_E_FORMAT, "%s: not a rank of one job with the other traces: %s",
                     f[over].path, why);
    }
    for (size_t i = 0; i < n; i++) {
        free(files[i]);
        free(ranks[i]);
    }
    free(files);
    free(ranks);
    free(f);
    free(run);
    free(first);
    return st;
}
