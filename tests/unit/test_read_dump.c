/* test_read_dump: a probe for the shell tests (tests/cases/read_*.sh). Without
 * arguments (as tests/run.sh runs it) it reads tests/data and checks a few facts; with
 * arguments it reads each like `tracedoc` does (td_read_input + td_read_finish) and
 * prints, per trace, one line of key=value facts that the shell tests compare with an
 * independent count (python3 json.load), then the warnings, one per line. Exit status 3
 * on a read error (message on stderr), like tracedoc. TD_PROBE_QUIET=1 prints one line
 * and skips the statistics (bench/run.sh times the reader with it). */
#define _POSIX_C_SOURCE 200809L
#include "read/read.h"
#include "unit.h"
#include <stdlib.h>

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void dump(const td_traceset *s)
{
    for (size_t i = 0; i < s->n; i++) {
        const td_trace *t = s->tr[i];
        size_t x = 0, kern = 0, inst = 0, cpu = 0, b = 0, sorted = 1;
        int64_t ts_sum = 0, dur_sum = 0;
        for (size_t j = 0; j < t->nev; j++) {
            const td_event *v = &t->ev[j];
            x += v->ph == 'X';
            b += v->ph == 'B';
            kern += v->kind == TD_K_KERNEL;
            inst += v->kind == TD_K_INSTANT;
            cpu += v->kind == TD_K_CPU_OP;
            ts_sum += v->ts % 1000000007;
            dur_sum += v->dur;
            if (j && (v->ts < v[-1].ts || (v->ts == v[-1].ts && v->dur > v[-1].dur)))
                sorted = 0;
        }
        /* distinct tids over X events (Python: len({e["tid"] for X events})) */
        int64_t *tids = malloc((t->nev + 1) * sizeof *tids);
        size_t nt = 0;
        for (size_t j = 0; j < t->nev; j++)
            if (t->ev[j].ph == 'X')
                tids[nt++] = t->tracks[t->ev[j].track].tid;
        qsort(tids, nt, sizeof *tids, cmp64);
        size_t distinct = 0;
        for (size_t j = 0; j < nt; j++)
            distinct += j == 0 || tids[j] != tids[j - 1];
        free(tids);
        printf("path=%s format=%s gzip=%d bytes=%llu sha256=%s nevents=%llu nev=%zu x=%zu "
               "b=%zu kernels=%zu cpu_ops=%zu instants=%zu flows=%zu counters=%zu tids=%zu "
               "rank=%d world_size=%d devices=%zu dur_sum=%lld sorted=%zu\n",
               t->path, td_format_name(t->format), t->gzip, (unsigned long long)t->bytes,
               t->sha256, (unsigned long long)t->nevents, t->nev, x, b, kern, cpu, inst,
               t->nflows, t->ncounters, distinct, t->rank, t->world_size, t->ndevices,
               (long long)dur_sum, sorted);
        (void)ts_sum;
    }
    for (size_t i = 0; i < s->warnings.n; i++)
        printf("warning: %s\n", s->warnings.msg[i]);
}

int main(int argc, char **argv)
{
    td_traceset *s = td_traceset_new();
    td_err e = {0};
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            if (td_read_input(s, argv[i], &e) != TD_OK) {
                fprintf(stderr, "tracedoc: %s\n", e.msg);
                td_traceset_free(s);
                return 3;
            }
        }
        td_read_finish(s);
        if (getenv("TD_PROBE_QUIET")) /* bench: the reader's cost only */
            printf("%zu traces, %zu events in the first\n", s->n, s->n ? s->tr[0]->nev : 0);
        else
            dump(s);
        td_traceset_free(s);
        return 0;
    }
    /* no arguments: the hand-made inputs in tests/data */
    CHECK(td_read_input(s, "tests/data/read_small.json", &e) == TD_OK);
    CHECK(td_read_input(s, "tests/data/read_small.json.gz", &e) == TD_OK);
    CHECK(td_read_input(s, "tests/data/read_multimember.json.gz", &e) == TD_OK);
    td_read_finish(s);
    CHECK_EQ_INT(s->n, 3);
    if (s->n == 3) {
        CHECK_EQ_INT(s->tr[0]->nev, 3);
        CHECK_EQ_INT(s->tr[0]->gzip, 0);
        CHECK_EQ_INT(s->tr[1]->nev, 3);
        CHECK_EQ_INT(s->tr[1]->gzip, 1);
        CHECK_EQ_INT(s->tr[2]->nev, 3); /* two gzip members, split inside an event */
        for (int k = 0; k < 3; k++) {
            CHECK_EQ_INT(s->tr[k]->ev[0].ts, 1000500);
            CHECK_EQ_INT(s->tr[k]->ev[0].dur, 2000250);
        }
    }
    td_traceset_free(s);
    s = td_traceset_new();
    CHECK(td_read_input(s, "tests/data/read_not_a_trace.txt", &e) == TD_E_FORMAT);
    CHECK(strstr(e.msg, "read_not_a_trace.txt: not a trace (expected Chrome JSON, gzip, tar, "
                        "SQLite, zip or XPlane)") != NULL);
    td_traceset_free(s);
    return UNIT_DONE();
}
