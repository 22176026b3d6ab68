/* compare/triage.c - the suspect range of a history's regression. See compare/triage.h. */
#define _POSIX_C_SOURCE 200809L
#include "compare/triage.h"
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

typedef struct runinfo {
    int64_t id;
    const char *commit;
    char date[16];
} runinfo;

static void run_of(const td_summary *cur, const td_hist *h, size_t i, runinfo *r)
{
    memset(r, 0, sizeof *r);
    if (i < h->nruns) {
        r->id = h->id ? h->id[i] : (int64_t)i + 1;
        r->commit = h->commit ? h->commit[i] : "";
        time_t t = h->time ? (time_t)h->time[i] : 0;
        struct tm tm;
        if (t > 0 && gmtime_r(&t, &tm))
            strftime(r->date, sizeof r->date, "%Y-%m-%d", &tm);
        return;
    }
    r->id = h->next_id;
    r->commit = td_sum_text(cur, "meta.commit");
    const char *d = td_sum_text(cur, "trace.captured");
    if (!d || strlen(d) < 10)
        d = td_sum_text(cur, "date");
    if (d && strlen(d) >= 10)
        snprintf(r->date, sizeof r->date, "%.10s", d);
}

/* "run 41 (last good, commit a1b2c3, 2026-11-02)" */
static void describe(char *dst, size_t cap, const runinfo *r, const char *role)
{
    int n = snprintf(dst, cap, "run %lld (%s", (long long)r->id, role);
    if (n > 0 && (size_t)n < cap && r->commit && *r->commit)
        n += snprintf(dst + n, cap - (size_t)n, ", commit %s", r->commit);
    if (n > 0 && (size_t)n < cap && r->date[0])
        n += snprintf(dst + n, cap - (size_t)n, ", %s", r->date);
    if (n > 0 && (size_t)n < cap)
        snprintf(dst + n, cap - (size_t)n, ")");
}

/* meta.commit_url with every {commit} replaced by commit; NULL without either. */
static char *commit_url(td_summary *cur, const char *commit)
{
    const char *u = td_sum_text(cur, "meta.commit_url");
    if (!u || !*u || !commit || !*commit)
        return NULL;
    td_buf b = {0};
    for (const char *p = u; *p;) {
        const char *q = strstr(p, "{commit}");
        if (!q) {
            td_buf_puts(&b, p);
            break;
        }
        td_buf_put(&b, p, (size_t)(q - p));
        td_buf_puts(&b, commit);
        p = q + 8;
    }
    char *s = td_arena_strdup(cur->a, td_buf_cstr(&b));
    td_buf_free(&b);
    return s;
}

void td_triage_suspect(td_summary *cur, const td_hist *h, size_t bad, size_t good)
{
    if (bad == SIZE_MAX || bad > h->nruns)
        return;
    runinfo b, g;
    run_of(cur, h, bad, &b);
    char bs[300], gs[300], text[700];
    describe(bs, sizeof bs, &b, "first bad");
    if (good != SIZE_MAX && good < bad) {
        run_of(cur, h, good, &g);
        describe(gs, sizeof gs, &g, "last good");
        snprintf(text, sizeof text, "changed between %s and %s", gs, bs);
        td_sum_set_int(cur, "suspect.last_good_run", "Last good run", TD_T_INT, g.id);
        td_sum_set_str(cur, "suspect.last_good_commit", "Last good commit",
                       g.commit ? g.commit : "");
        char *gu = commit_url(cur, g.commit);
        if (gu)
            td_sum_set_str(cur, "suspect.last_good_url", "Last good commit (link)", gu);
        if (b.commit && *b.commit && g.commit && *g.commit && strcmp(b.commit, g.commit)) {
            char bis[300];
            snprintf(bis, sizeof bis, "git bisect start %s %s", b.commit, g.commit);
            td_sum_set_str(cur, "suspect.bisect", "Bisect", bis);
        }
    } else
        snprintf(text, sizeof text, "changed at %s, the first run of the series", bs);
    td_sum_set_str(cur, "suspect.range", "Suspect range", text);
    td_sum_set_int(cur, "suspect.first_bad_run", "First bad run", TD_T_INT, b.id);
    td_sum_set_str(cur, "suspect.first_bad_commit", "First bad commit", b.commit ? b.commit : "");
    char *bu = commit_url(cur, b.commit);
    if (bu)
        td_sum_set_str(cur, "suspect.first_bad_url", "First bad commit (link)", bu);
}

void td_triage_verdict(td_summary *cur)
{
    const char *v = td_sum_text(cur, "verdict"), *r = td_sum_text(cur, "suspect.range");
    if (!v || !r || strncmp(v, "REGRESSED", 9))
        return;
    const char *bis = td_sum_text(cur, "suspect.bisect");
    char *t = td_arena_printf(cur->a, "%s Suspect range: %s%s%s.", v, r, bis ? "; " : "",
                              bis ? bis : "");
    td_sum_set_str(cur, "verdict", "Verdict", t);
}
