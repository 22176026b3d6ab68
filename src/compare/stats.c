/* compare/stats.c - rank test, t tests and E-divisive change points. See compare/stats.h. */
#define _POSIX_C_SOURCE 200809L
#include "compare/stats.h"
#include "base/util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double td_median(double *v, size_t n)
{
    if (!n)
        return NAN;
    qsort(v, n, sizeof *v, cmp_dbl);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- Mann-Whitney U ---- */
typedef struct { double v; int from_x; } mw_item;

static int cmp_item(const void *a, const void *b)
{
    return cmp_dbl(&((const mw_item *)a)->v, &((const mw_item *)b)->v);
}

/* P(U >= u) for sample sizes m, n without ties: the number of arrangements with U = k
 * is the coefficient of q^k in the Gaussian binomial [m+n choose m]_q, built as the
 * product over i = 1..m of (1 - q^(n+i)) / (1 - q^i) (each division is exact). */
static double mw_exact_sf(size_t m, size_t n, double u)
{
    if (m > n) {
        size_t t = m;
        m = n;
        n = t;
    }
    size_t deg = m * n;
    double *c = td_xcalloc(deg + 1, sizeof *c);
    c[0] = 1;
    for (size_t i = 1; i <= m; i++) {
        for (size_t j = deg; j >= n + i && j <= deg; j--) /* times (1 - q^(n+i)) */
            c[j] -= c[j - (n + i)];
        for (size_t j = i; j <= deg; j++) /* divided by (1 - q^i) */
            c[j] += c[j - i];
    }
    double tot = 0, tail = 0;
    for (size_t k = 0; k <= deg; k++) {
        tot += c[k];
        if ((double)k >= u - 1e-9)
            tail += c[k];
    }
    free(c);
    return tot > 0 ? tail / tot : NAN;
}

double td_mannwhitney(const double *x, size_t nx, const double *y, size_t ny, double *u)
{
    if (!nx || !ny)
        return NAN;
    size_t n = nx + ny;
    mw_item *it = td_xmalloc(n * sizeof *it);
    for (size_t i = 0; i < nx; i++)
        it[i] = (mw_item){x[i], 1};
    for (size_t i = 0; i < ny; i++)
        it[nx + i] = (mw_item){y[i], 0};
    qsort(it, n, sizeof *it, cmp_item);
    /* average ranks over ties; tie term sum(t^3 - t) */
    double r1 = 0, tie = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && it[j].v == it[i].v)
            j++;
        double rank = ((double)i + 1 + (double)j) / 2; /* ranks i+1 .. j */
        double t = (double)(j - i);
        tie += t * t * t - t;
        for (size_t k = i; k < j; k++)
            if (it[k].from_x)
                r1 += rank;
        i = j;
    }
    free(it);
    double n1 = (double)nx, n2 = (double)ny;
    double u1 = r1 - n1 * (n1 + 1) / 2, u2 = n1 * n2 - u1;
    double um = u1 > u2 ? u1 : u2;
    if (u)
        *u = u1;
    double p;
    if ((nx > 8 && ny > 8) || tie > 0) {
        double nn = n1 + n2;
        double s = sqrt(n1 * n2 / 12 * ((nn + 1) - tie / (nn * (nn - 1))));
        if (!(s > 0))
            return 1.0; /* every value equal */
        double z = (um - n1 * n2 / 2 - 0.5) / s;
        p = erfc(z / sqrt(2.0)); /* 2 * normal survival */
    } else {
        p = 2 * mw_exact_sf(nx, ny, um);
    }
    return p > 1 ? 1 : p;
}

/* ---- t distribution ---- */
#define LENTZ_TINY 1e-300

/* One term aa of a modified Lentz evaluation: updates c and d, returns the factor d c. */
static double lentz_step(double aa, double *c, double *d)
{
    *d = 1 + aa * *d;
    if (fabs(*d) < LENTZ_TINY)
        *d = LENTZ_TINY;
    *c = 1 + aa / *c;
    if (fabs(*c) < LENTZ_TINY)
        *c = LENTZ_TINY;
    *d = 1 / *d;
    return *d * *c;
}

/* Continued fraction of the regularized incomplete beta function (modified Lentz): the
 * even and odd terms of each step. */
static double beta_cf(double a, double b, double x)
{
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (fabs(d) < LENTZ_TINY)
        d = LENTZ_TINY;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m;
        h *= lentz_step(m * (b - m) * x / ((a + m2 - 1) * (a + m2)), &c, &d);
        double del = lentz_step(-(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1)), &c, &d);
        h *= del;
        if (fabs(del - 1) < 1e-15)
            break;
    }
    return h;
}

static double inc_beta(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1) / (a + b + 2))
        return exp(lbt) * beta_cf(a, b, x) / a;
    return 1 - exp(lbt) * beta_cf(b, a, 1 - x) / b;
}

double td_t_pvalue(double t, double df)
{
    if (!(df > 0) || isnan(t))
        return NAN;
    if (isinf(t))
        return 0;
    return inc_beta(df / 2, 0.5, df / (df + t * t));
}

static void mean_var(const double *x, size_t n, double *m, double *ss)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    *m = n ? s / (double)n : NAN;
    double q = 0;
    for (size_t i = 0; i < n; i++)
        q += (x[i] - *m) * (x[i] - *m);
    *ss = q; /* sum of squared deviations */
}

double td_ttest(const double *x, size_t nx, const double *y, size_t ny)
{
    if (nx < 1 || ny < 1 || nx + ny < 3)
        return NAN;
    double mx, sx, my, sy;
    mean_var(x, nx, &mx, &sx);
    mean_var(y, ny, &my, &sy);
    double df = (double)(nx + ny - 2);
    double sp2 = (sx + sy) / df;
    double se = sqrt(sp2 * (1.0 / (double)nx + 1.0 / (double)ny));
    if (!(se > 0))
        return mx == my ? 1.0 : 0.0;
    return td_t_pvalue((my - mx) / se, df);
}

double td_welch(double m1, double s1, double n1, double m2, double s2, double n2)
{
    if (!(n1 >= 2 && n2 >= 2) || isnan(m1) || isnan(m2) || isnan(s1) || isnan(s2))
        return NAN;
    double v1 = s1 * s1 / n1, v2 = s2 * s2 / n2;
    if (!(v1 + v2 > 0))
        return m1 == m2 ? NAN : 0.0;
    double t = (m2 - m1) / sqrt(v1 + v2);
    double df = (v1 + v2) * (v1 + v2) / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1));
    return td_t_pvalue(t, df);
}

/* ---- E-divisive means ---- */
/* The split of x[a..b) maximising the energy statistic Q (alpha = 1),
 * Q(t) = m k / (m + k) * (2/(m k) sum|x-y| - sum_{i<j}|x_i-x_j| / C(m,2) - sum_{i<j}|y_i-y_j| / C(k,2))
 * with m = t - a, k = b - t, over a < t < b. The three sums are carried from one t to the
 * next (moving x[t] from the right side to the left changes each by its distances to
 * one side), O((b-a)^2) for the whole segment. Returns the best t (the first of equals). */
static size_t energy_best(const double *x, size_t a, size_t b)
{
    double between = 0, wx = 0, wy = 0;
    for (size_t i = a; i < b; i++)
        for (size_t j = i + 1; j < b; j++)
            wy += fabs(x[i] - x[j]);
    size_t best = 0;
    double bq = -INFINITY;
    for (size_t t = a; t + 1 < b; t++) { /* x[t] moves left: the split at t + 1 */
        double dl = 0, dr = 0;
        for (size_t i = a; i < t; i++)
            dl += fabs(x[t] - x[i]);
        for (size_t j = t + 1; j < b; j++)
            dr += fabs(x[t] - x[j]);
        wy -= dr;
        wx += dl;
        between += dr - dl;
        double m = (double)(t + 1 - a), k = (double)(b - t - 1);
        double e = 2 * between / (m * k);
        if (m > 1)
            e -= wx / (m * (m - 1) / 2);
        if (k > 1)
            e -= (wy > 0 ? wy : 0) / (k * (k - 1) / 2);
        double q = m * k / (m + k) * e;
        if (!best || q > bq + 1e-12 * fabs(bq)) {
            bq = q;
            best = t + 1;
        }
    }
    return best;
}

/* The lag-1 autocorrelation of the series' noise, robust to its level shifts: for AR(1)
 * noise with correlation rho, E (x[i+2] - x[i])^2 / E (x[i+1] - x[i])^2 = 1 + rho, and a
 * level shift touches `lag` of the differences, so the largest TD_EDIV_TRIM of each lag's
 * squared differences (at least `lag` of them) are left out of its mean. 0 for series
 * shorter than TD_EDIV_RHO_MIN_N (too few differences to tell correlation from a few
 * shifts) and unless it is TD_EDIV_RHO_SIG standard errors above 0; at most
 * TD_EDIV_RHO_MAX. The split test uses
 * the smaller of it and the lag-1 autocorrelation of the residuals about the split's two
 * levels (which the shifts the split does not model inflate). */
#define TD_EDIV_TRIM 0.25
#define TD_EDIV_RHO_MAX 0.9
#define TD_EDIV_RHO_SIG 4.0
#define TD_EDIV_RHO_MIN_N 50

static double trimmed_sq_diff(const double *x, size_t n, size_t lag)
{
    size_t m = n - lag;
    double *d = td_xmalloc(m * sizeof *d);
    for (size_t i = 0; i < m; i++)
        d[i] = (x[i + lag] - x[i]) * (x[i + lag] - x[i]);
    qsort(d, m, sizeof *d, cmp_dbl);
    size_t drop = (size_t)(TD_EDIV_TRIM * (double)m);
    if (drop < lag) /* a shift touches lag differences: at least those go */
        drop = lag;
    size_t keep = m - drop;
    double s = 0;
    for (size_t i = 0; i < keep; i++)
        s += d[i];
    free(d);
    return s / (double)keep;
}

double td_noise_rho(const double *x, size_t n)
{
    if (n < TD_EDIV_RHO_MIN_N)
        return 0;
    double d1 = trimmed_sq_diff(x, n, 1), d2 = trimmed_sq_diff(x, n, 2);
    if (!(d1 > 0) || isnan(d2))
        return 0;
    double rho = d2 / d1 - 1;
    /* independent noise: the estimate's standard deviation is 1.74 / sqrt(n) (simulated);
     * below 4 of them it is noise, not correlation (short nightly series) */
    if (rho < TD_EDIV_RHO_SIG * 1.74 / sqrt((double)n))
        return 0;
    return rho > TD_EDIV_RHO_MAX ? TD_EDIV_RHO_MAX : rho;
}

/* A trend, not a change: does one straight line through x[a..b) leave no more squared
 * error than the two levels mx (before t) and my (from t), and than the best three
 * levels of the segment? A smooth drift is split anywhere by a test of means; a step is
 * not fitted by a line as well as by two levels, nor a staircase (two regressions in a
 * row) as well as by three. */
static int trend_fits(const double *x, size_t a, size_t t, size_t b, double mx, double my)
{
    double n = (double)(b - a), su = 0, sy = 0, suu = 0, suy = 0, step = 0, line = 0;
    for (size_t i = a; i < b; i++) {
        double u = (double)(i - a), r = x[i] - (i < t ? mx : my);
        su += u;
        sy += x[i];
        suu += u * u;
        suy += u * x[i];
        step += r * r;
    }
    double den = n * suu - su * su;
    if (!(den > 0))
        return 0;
    double beta = (n * suy - su * sy) / den, alpha = (sy - beta * su) / n;
    for (size_t i = a; i < b; i++) {
        double r = x[i] - alpha - beta * (double)(i - a);
        line += r * r;
    }
    if (line <= step && b - a >= 3) {
        /* the best three levels (prefix sums, O(m^2)): if they beat the line, a staircase */
        size_t m = b - a;
        double *S = td_xmalloc((m + 1) * sizeof *S), *Q = td_xmalloc((m + 1) * sizeof *Q);
        S[0] = Q[0] = 0;
        for (size_t i = 0; i < m; i++) {
            S[i + 1] = S[i] + x[a + i];
            Q[i + 1] = Q[i] + x[a + i] * x[a + i];
        }
        double best = INFINITY;
        for (size_t i = 1; i + 1 < m; i++)
            for (size_t j = i + 1; j < m; j++) {
                double r = Q[m] - S[i] * S[i] / (double)i - (S[j] - S[i]) * (S[j] - S[i]) / (double)(j - i)
                           - (S[m] - S[j]) * (S[m] - S[j]) / (double)(m - j);
                if (r < best)
                    best = r;
            }
        free(S);
        free(Q);
        return line <= best;
    }
    return line <= step;
}

/* Does splitting [a,b) at t pass the significance and effect rules? The Student t
 * test of the two sides, its t and degrees of freedom scaled for autocorrelated noise
 * (the variance of a mean of AR(1) noise is (1 + rho) / (1 - rho) times the iid one),
 * and two levels that a straight line fits as well are a trend, not a split. */
static int split_ok(const double *x, size_t a, size_t t, size_t b, double rho, double max_p,
                    double min_eff, double *p)
{
    size_t nx = t - a, ny = b - t;
    double mx, sx, my, sy;
    mean_var(x + a, nx, &mx, &sx);
    mean_var(x + t, ny, &my, &sy);
    if (rho > 0) { /* the residuals' own lag-1 autocorrelation, if smaller */
        double num = 0;
        for (size_t i = a; i + 1 < b; i++)
            if (i + 1 != t)
                num += (x[i] - (i < t ? mx : my)) * (x[i + 1] - (i + 1 < t ? mx : my));
        double loc = sx + sy > 0 ? num / (sx + sy) : 0;
        if (loc < rho)
            rho = loc < 0 ? 0 : loc;
    }
    if (nx + ny < 3)
        *p = NAN;
    else {
        double df = (double)(nx + ny - 2), sp2 = (sx + sy) / df;
        double se = sqrt(sp2 * (1.0 / (double)nx + 1.0 / (double)ny));
        double f = (1 - rho) / (1 + rho), dfa = df * f;
        if (!(se > 0))
            *p = mx == my ? 1.0 : 0.0;
        else
            *p = td_t_pvalue((my - mx) / se * sqrt(f), dfa < 1 ? 1 : dfa);
    }
    if (!(*p < max_p) || trend_fits(x, a, t, b, mx, my))
        return 0;
    double eff = mx != 0 ? fabs(my - mx) / fabs(mx) : (my != 0 ? INFINITY : 0);
    return eff >= min_eff;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* The segmentation of x[0..n) for noise autocorrelation rho: bounds[0..*nb) (0, the
 * change points, n), increasing; bounds holds n + 2. */
static void segment(const double *x, size_t n, double rho, double max_p, double min_effect,
                    size_t *bounds, size_t *nbp)
{
    /* bounds[0..nb) sorted: segment k is [bounds[k], bounds[k+1]) */
    unsigned char *done = td_xcalloc(n + 2, 1); /* per segment start: no split found */
    size_t nb = 2;
    bounds[0] = 0;
    bounds[1] = n;
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t k = 0; k + 1 < nb; k++) {
            size_t a = bounds[k], b = bounds[k + 1];
            if (done[a] || b - a < 3)
                continue;
            size_t best = energy_best(x, a, b);
            double p;
            if (best && split_ok(x, a, best, b, rho, max_p, min_effect, &p)) {
                memmove(bounds + k + 2, bounds + k + 1, (nb - k - 1) * sizeof *bounds);
                bounds[k + 1] = best;
                nb++;
                changed = 1;
                k++; /* the right half is looked at in the next round */
            } else {
                done[a] = 1;
            }
        }
    }
    /* weak change points: test each against its neighbours again, drop the weakest
     * failing one, repeat */
    for (;;) {
        size_t worst = 0;
        double wp = -1;
        for (size_t k = 1; k + 1 < nb; k++) {
            double p;
            if (!split_ok(x, bounds[k - 1], bounds[k], bounds[k + 1], rho, max_p, min_effect, &p)) {
                double key = isnan(p) ? 2 : p;
                if (key > wp) {
                    wp = key;
                    worst = k;
                }
            }
        }
        if (!worst)
            break;
        memmove(bounds + worst, bounds + worst + 1, (nb - worst - 1) * sizeof *bounds);
        nb--;
    }
    qsort(bounds, nb, sizeof *bounds, cmp_size);
    free(done);
    *nbp = nb;
}

size_t td_edivisive(const double *x, size_t n, double max_p, double min_effect, size_t *cp,
                    double *pv, size_t cap)
{
    if (n < 3 || !cap)
        return 0;
    size_t *bounds = td_xmalloc((n + 2) * sizeof *bounds), nb;
    double rho = td_noise_rho(x, n);
    segment(x, n, rho, max_p, min_effect, bounds, &nb);
    size_t m = 0;
    for (size_t k = 1; k + 1 < nb && m < cap; k++) {
        if (pv)
            split_ok(x, bounds[k - 1], bounds[k], bounds[k + 1], rho, max_p, min_effect, &pv[m]);
        cp[m++] = bounds[k];
    }
    free(bounds);
    return m;
}
