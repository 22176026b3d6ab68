/* analyse/xla/compile.c - XLA compile statistics from the push/pop ranges of nsys-jax
 * archives (formats.md sec. 4), as nsys-jax's generate_compilation_statistics and the
 * analysis notebook define them: XlaCompile subtrees; worker-thread ranges grafted under
 * the deepest main-thread range containing them and credited a share of the parallel
 * region's wall time in proportion to their non-child time; non-TSL ranges folded into
 * their parents; autotuner measurement/compilation detail collapsed; the non-child time
 * of each process's first XlaCompile range (library loading) shown apart; phases
 * grouped as the notebook summarises them (passes lumped unless --compile-passes). */
#include "analyse/xla/xla.h"
#include "analyse/rows.h"
#include "partial/partial.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- compile statistics (push/pop ranges) ------------------------------------------- */

typedef struct cr {
    int64_t dur, dchild, dnon;
    int64_t parent;      /* index, -1 none */
    int retained;        /* 1 main thread, 2 grafted worker root, 3 worker descendant */
    int nan;             /* child times unknown (grafted workers) */
    int main;
    td_str clean;
    int64_t credit;      /* non-child ns credited to this range's phase */
} cr;

typedef struct phase { td_str name; int64_t non_child; } phase;

static int cmp_phase(const void *a, const void *b)
{
    const phase *x = a, *y = b;
    if (x->non_child != y->non_child) return x->non_child > y->non_child ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

/* Remove every occurrence of pat from buf (in place). */
static void erase_all(char *buf, const char *pat)
{
    size_t pl = strlen(pat);
    if (!pl) return;
    char *p;
    while ((p = strstr(buf, pat))) memmove(p, p + pl, strlen(p + pl) + 1);
}


static int is_compile(const char *nm) { return xla_starts(nm, "TSL:XlaCompile:#module="); }

static const td_range *g_cr;   /* for cmp_start */
static int cmp_start(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const td_range *p = &g_cr[i], *q = &g_cr[j];
    if (p->start != q->start) return p->start < q->start ? -1 : 1;
    if (p->level != q->level) return p->level < q->level ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* Deepest retained main-thread range of an XlaCompile strictly containing worker range
 * w (or the XlaCompile itself when none does); -1 when w is outside every compile. */
static int64_t graft_parent(const td_range *R, const cr *c, const int64_t *cid,
                            const size_t *M, size_t nM, size_t w)
{
    size_t lo = 0, hi = nM;   /* last main range starting before w */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (R[M[mid]].start < R[w].start) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return -1;
    int64_t a = (int64_t)M[lo - 1];
    for (int g = 0; a >= 0 && g < XLA_MAXUP; g++, a = c[a].parent) {
        if (c[a].retained != 1) return -1;
        int64_t C = cid[a];
        if (C < 0 || R[w].start < R[C].start || R[w].end > R[C].end) return -1;
        if (a == C) return C;
        if (R[a].start < R[w].start && R[a].end > R[w].end) return a;
    }
    return -1;
}

static void phase_add(phase **ph, size_t *nph, size_t *phcap, xla_idmap *phmap, td_str name,
                      int64_t ns)
{
    int64_t k = xla_idmap_get(phmap, name);
    if (k < 0) {
        phase *p = TD_PUSH(*ph, *nph, *phcap);
        p->name = name;
        p->non_child = 0;
        k = (int64_t)(*nph - 1);
        xla_idmap_put(phmap, name, (uint32_t)k);
    }
    (*ph)[k].non_child += ns;
}

/* How the notebook summarises phases: `:#module=split_module#` (parallel backend
 * compilation) stripped, every XlaPass:#... / XlaPassPipeline:#... lumped as "XlaPass"
 * unless passes are kept apart; autotuner measurements are already collapsed. */
static td_str group_name(td_strtab *st, td_str clean, int keep_passes, td_buf *g)
{
    const char *nm = td_strget(st, clean);
    if (!keep_passes && (xla_starts(nm, "XlaPass:#") || xla_starts(nm, "XlaPassPipeline:#")))
        return td_intern_cstr(st, "XlaPass");
    static const char suf[] = ":#module=split_module#";
    size_t l = strlen(nm);
    if (l >= sizeof suf - 1 && !strcmp(nm + l - (sizeof suf - 1), suf)) {
        g->n = 0;
        td_buf_put(g, nm, l - (sizeof suf - 1));
        return td_intern_cstr(st, td_buf_cstr(g));
    }
    return clean;
}

static void compile_trace(xctx *x, int ti, td_trace *t, phase **ph, size_t *nph, size_t *phcap,
                          xla_idmap *phmap, td_flame *fl, int64_t **seen, size_t *nseen,
                          size_t *seencap)
{
    size_t n = t->ncompile;
    if (!n) return;
    const td_range *R = t->compile;
    td_strtab *st = x->set->strs;
    cr *c = td_xcalloc(n, sizeof *c);
    xla_idmap im;
    xla_idmap_init(&im, n);
    for (size_t i = 0; i < n; i++) xla_idmap_put(&im, R[i].range_id, (uint32_t)i);
    for (size_t i = 0; i < n; i++) {
        c[i].dur = R[i].end - R[i].start;
        c[i].parent = xla_idmap_get(&im, R[i].parent_id);
        if (c[i].parent == (int64_t)i) c[i].parent = -1;
    }
    xla_idmap_free(&im);
    /* DurChild = time of direct children (what nsys writes in the CSV) */
    for (size_t i = 0; i < n; i++) if (c[i].parent >= 0) c[c[i].parent].dchild += c[i].dur;
    for (size_t i = 0; i < n; i++) c[i].dnon = c[i].dur - c[i].dchild;
    uint8_t *isc = td_xcalloc(n, 1);
    for (size_t i = 0; i < n; i++) isc[i] = (uint8_t)is_compile(td_strget(st, R[i].name));
    /* main thread: the one with the most XlaCompile ranges */
    uint32_t mtrack = UINT32_MAX;
    {
        size_t *cnt = td_xcalloc(t->ntracks + 1, sizeof *cnt), best = 0;
        for (size_t i = 0; i < n; i++)
            if (isc[i] && R[i].track < t->ntracks && ++cnt[R[i].track] > best) {
                best = cnt[R[i].track];
                mtrack = R[i].track;
            }
        free(cnt);
    }
    if (mtrack == UINT32_MAX) { free(isc); free(c); return; }
    /* cid: the XlaCompile range above each range (on its own thread), -1 none */
    int64_t *cid = td_xmalloc(n * sizeof *cid);
    for (size_t i = 0; i < n; i++) {
        cid[i] = -1;
        int64_t a = (int64_t)i;
        for (int g = 0; a >= 0 && g < XLA_MAXUP; g++, a = c[a].parent)
            if (isc[a]) { cid[i] = a; break; }
        if (cid[i] >= 0 && (R[cid[i]].track != R[i].track || R[i].start < R[cid[i]].start
                            || R[i].end > R[cid[i]].end)) cid[i] = -1;
        if (cid[i] >= 0) c[i].retained = 1;
    }
    /* splice worker ranges under the deepest main-thread range containing them */
    size_t *M = td_xmalloc(n * sizeof *M), nM = 0;
    for (size_t i = 0; i < n; i++) if (c[i].retained == 1 && R[i].track == mtrack) M[nM++] = i;
    g_cr = R;
    qsort(M, nM, sizeof *M, cmp_start);
    size_t *W = td_xmalloc(n * sizeof *W), nW = 0;
    for (size_t w = 0; w < n; w++)
        if (c[w].parent < 0 && R[w].track != mtrack && !c[w].retained) W[nW++] = w;
    for (size_t k = 0; k < nW; k++) {
        size_t w = W[k];
        int64_t np = graft_parent(R, c, cid, M, nM, w);
        if (np < 0) continue;
        c[w].parent = np;
        c[np].nan = 1;
        c[w].retained = 2;
    }
    free(W); free(M); free(cid); free(isc);
    /* worker subtrees follow their grafted roots */
    for (size_t i = 0; i < n; i++) {
        if (c[i].retained) continue;
        int64_t p = c[i].parent;
        for (int g = 0; p >= 0 && g < XLA_MAXUP; g++, p = c[p].parent) {
            if (c[p].retained == 2) { c[i].retained = 3; break; }
            if (c[p].retained) break;
        }
    }
    /* fold non-TSL ranges (cuBLAS, NCCL...) into their TSL parents */
    for (size_t i = 0; i < n; i++) {
        if (!c[i].retained || xla_starts(td_strget(st, R[i].name), "TSL:")) continue;
        c[i].retained = 0;
        int64_t p = c[i].parent;
        if (p >= 0) { c[p].dchild -= c[i].dur; c[p].dnon += c[i].dur; }
    }
    for (size_t i = 0; i < n; i++) {
        if (!c[i].retained) continue;
        int g = 0;
        for (int64_t p = c[i].parent; p >= 0 && g < XLA_MAXUP; p = c[p].parent, g++)
            if (!c[p].retained) { c[i].retained = 0; break; }
    }
    /* program name and id: from XlaCompileBackend ranges, up to their parent, then down */
    td_str *pname = td_xcalloc(n, sizeof *pname);
    int64_t *pid = td_xmalloc(n * sizeof *pid);
    for (size_t i = 0; i < n; i++) pid[i] = -1;
    for (size_t i = 0; i < n; i++) {
        const char *nm = td_strget(st, R[i].name), *v;
        size_t vl;
        if (!c[i].retained || !xla_starts(nm, "TSL:XlaCompileBackend:#module=")) continue;
        if (!xla_field(nm, "module", &v, &vl)) continue;
        td_str mn = td_intern(st, v, vl);
        if (!xla_field(nm, "program_id", &v, &vl)) continue;
        int64_t id = strtoll(v, NULL, 10);
        pname[i] = mn; pid[i] = id;
        if (c[i].parent >= 0) { pname[c[i].parent] = mn; pid[c[i].parent] = id; }
        /* trace index in the high bits: program ids are per process */
        *TD_PUSH(*seen, *nseen, *seencap) = (int64_t)((uint64_t)ti << 40 | (uint64_t)id);
    }
    for (size_t i = 0; i < n; i++) {
        if (pid[i] >= 0 || !c[i].retained) continue;
        int g = 0;
        for (int64_t p = c[i].parent; p >= 0 && g < XLA_MAXUP; p = c[p].parent, g++)
            if (pid[p] >= 0) { pid[i] = pid[p]; pname[i] = pname[p]; break; }
    }
    /* clean names: no TSL: prefix, no program id or module name */
    char *buf = NULL;
    size_t bcap = 0;
    for (size_t i = 0; i < n; i++) {
        if (!c[i].retained) continue;
        const char *nm = td_strget(st, R[i].name);
        if (xla_starts(nm, "TSL:")) nm += 4;
        size_t l = strlen(nm) + 1;
        if (l > bcap) { bcap = l * 2; buf = td_xrealloc(buf, bcap); }
        memcpy(buf, nm, l);
        if (pid[i] >= 0) {
            const char *pn = td_strget(st, pname[i]);
            size_t pl = strlen(pn) + 32;
            char *pat = td_xmalloc(pl);
            snprintf(pat, pl, ",program_id=%lld", (long long)pid[i]);
            erase_all(buf, pat);
            snprintf(pat, pl, ",module=%s", pn);
            erase_all(buf, pat);
            snprintf(pat, pl, ":#module=%s#", pn);
            erase_all(buf, pat);
            free(pat);
        }
        c[i].clean = td_intern_cstr(st, buf);
    }
    free(buf); free(pname); free(pid);
    /* collapse autotuner detail */
    td_str meas = td_intern_cstr(st, "XlaAutotunerMeasurement");
    td_str comp = td_intern_cstr(st, "XlaAutotunerCompilation");
    for (size_t i = 0; i < n; i++)
        if (c[i].retained && xla_starts(td_strget(st, c[i].clean), "XlaAutotunerMeasurement"))
            c[i].clean = meas;
    for (int pass = 0; pass < 2; pass++) {
        td_str which = pass ? comp : meas;
        uint8_t *col = td_xcalloc(n, 1);
        for (size_t i = 0; i < n; i++)
            if (c[i].retained && c[i].clean == which) col[i] = 1;
        for (size_t i = 0; i < n; i++) {
            if (!c[i].retained) continue;
            int g = 0;
            for (int64_t p = c[i].parent; p >= 0 && g < XLA_MAXUP; p = c[p].parent, g++)
                if (col[p]) { c[i].retained = 0; break; }
        }
        for (size_t i = 0; i < n; i++)
            if (col[i]) { c[i].dchild = 0; c[i].dnon = c[i].dur; c[i].nan = 0; }
        free(col);
    }
    for (size_t i = 0; i < n; i++) c[i].main = c[i].retained && R[i].track == mtrack;
    /* parallel regions: main-thread ranges that are parents of worker ranges. Like
     * nsys-jax, a region covers every descendant of its launcher (all depths). */
    typedef struct region { int64_t ps, pe, worker, maindur; } region;
    int64_t *ri = td_xmalloc(n * sizeof *ri);
    region *rg = NULL;
    size_t nrg = 0, rgcap = 0;
    for (size_t i = 0; i < n; i++) ri[i] = -1;
    for (size_t i = 0; i < n; i++)
        if (c[i].retained && !c[i].main && c[i].parent >= 0 && c[c[i].parent].main
            && ri[c[i].parent] < 0) {
            region *r = TD_PUSH(rg, nrg, rgcap);
            r->ps = INT64_MAX; r->pe = INT64_MIN; r->worker = 0; r->maindur = 0;
            ri[c[i].parent] = (int64_t)(nrg - 1);
        }
    for (int pass = 0; pass < 2 && nrg; pass++)
        for (size_t j = 0; j < n; j++) {
            if (!c[j].retained) continue;
            int g = 0;
            for (int64_t a = c[j].parent; a >= 0 && g < XLA_MAXUP; a = c[a].parent, g++) {
                if (ri[a] < 0 || !c[a].retained) continue;
                region *r = &rg[ri[a]];
                if (pass == 0) {
                    if (c[j].main) { r->maindur += c[j].dur; continue; }
                    if (R[j].start < r->ps) r->ps = R[j].start;
                    if (R[j].end > r->pe) r->pe = R[j].end;
                    r->worker += c[j].dnon;
                } else if (!c[j].main && r->worker > 0) {
                    c[j].credit += (int64_t)llround((double)(r->pe - r->ps) * (double)c[j].dnon
                                                    / (double)r->worker);
                }
            }
        }
    for (size_t L = 0; L < n; L++) {
        if (ri[L] < 0) continue;
        region *r = &rg[ri[L]];
        c[L].dchild = r->maindur + (r->pe - r->ps);
        c[L].dnon = c[L].dur - c[L].dchild;
        c[L].nan = 0;
    }
    free(rg); free(ri);
    for (size_t i = 0; i < n; i++)
        if (c[i].main) c[i].credit = c[i].nan ? 0 : c[i].dnon;
    /* the first compilation loads libraries (cuBLAS, cuDNN...): the notebook labels
     * the non-child time of the 0th XlaCompile range apart */
    td_str xc = td_intern_cstr(st, "XlaCompile");
    td_str lib = td_intern_cstr(st, "[non-leaf time in 0th XlaCompile range]");
    for (size_t i = 0; i < n; i++) {
        if (!c[i].main || c[i].clean != xc) continue;
        if (c[i].credit > 0) {
            phase_add(ph, nph, phcap, phmap, lib, c[i].credit);
            td_flame_add(x->s, fl, "XlaCompile;[non-leaf time in 0th XlaCompile range]",
                         c[i].credit);
            c[i].credit = 0;
        }
        break;
    }
    /* phases and the compile flame */
    td_buf b = {0}, g = {0};
    for (size_t i = 0; i < n; i++) {
        if (!c[i].retained) continue;
        phase_add(ph, nph, phcap, phmap, group_name(st, c[i].clean, x->o->compile_passes, &g),
                  c[i].credit);
        if (c[i].credit <= 0) continue;
        td_str stk[XLA_MAXUP];
        int d = 0;
        for (int64_t p = (int64_t)i; p >= 0 && d < XLA_MAXUP; p = c[p].parent) {
            if (!c[p].retained) break;
            stk[d++] = c[p].clean;
        }
        b.n = 0;
        for (int k2 = d - 1; k2 >= 0; k2--) {
            const char *s = td_strget(st, stk[k2]);
            if (b.n) td_buf_putc(&b, ';');
            for (; *s; s++) td_buf_putc(&b, *s == ';' ? ':' : *s == '\n' ? ' ' : *s);
        }
        td_flame_add(x->s, fl, td_buf_cstr(&b), c[i].credit);
    }
    td_buf_free(&b);
    td_buf_free(&g);
    free(c);
}

void xla_compile(xctx *x, int64_t **seen, size_t *nseen)
{
    td_traceset *set = x->set;
    td_summary *s = x->s;
    phase *ph = NULL;
    size_t nph = 0, phcap = 0;
    size_t seencap = 0;
    *seen = NULL;
    *nseen = 0;
    int have_compile = 0;
    for (size_t i = 0; i < set->n; i++) have_compile |= set->tr[i]->ncompile > 0;
    td_flame *cfl = have_compile ? td_sum_flame(s, "compile", "Compile phases") : NULL;
    xla_idmap phmap;
    xla_idmap_init(&phmap, 1024);   /* phase names (a few hundred) */
    for (size_t i = 0; i < set->n; i++)
        if (set->tr[i]->ncompile) compile_trace(x, (int)i, set->tr[i], &ph, &nph, &phcap, &phmap,
                                                cfl, seen, nseen, &seencap);
    xla_idmap_free(&phmap);
    if (*nseen) qsort(*seen, *nseen, sizeof **seen, cmp_i64);
    if (cfl) td_flame_finish(cfl);
    if (nph) {
        qsort(ph, nph, sizeof *ph, cmp_phase);
        for (size_t i = 0; x->part && i < nph; i++) {   /* every phase: the cut comes after */
            const char *pn = td_strget(set->strs, ph[i].name);
            td_part_add(x->part, TD_R_PHASE, pn, strlen(pn), &ph[i].non_child);
        }
        int64_t tot = 0;
        for (size_t i = 0; i < nph; i++) tot += ph[i].non_child;
        td_sum_set_int(s, "compile.total_ns", "Compile time", TD_T_NS, tot);
        td_table *t = td_sum_table(s, "compile.phases", "Compile phases (top 99%)");
        td_table_cols(t, "name:text:Phase", "non_child_ns:ns:Non-child time",
                      "share:share:Share", NULL);
        int64_t acc = 0;
        for (size_t i = 0; i < nph && tot > 0; i++) {
            if ((double)acc >= 0.99 * (double)tot) break;
            if (ph[i].non_child <= 0) break;
            td_row_phase(s, t, td_table_add_row(t), td_strget(set->strs, ph[i].name),
                         ph[i].non_child, tot);
            acc += ph[i].non_child;
        }
    }
    free(ph);
}
