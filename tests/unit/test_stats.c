/* Statistics of regression detection against hand-computed values; with a file
 * argument (tests/cases/stats_scipy.sh writes it), against scipy's values:
 *   mw NX NY x... y... U P          Mann-Whitney U of x and two-sided p
 *   tt NX NY x... y... P            Student t test (pooled), two-sided p
 *   ed N MAXP MINEFF x... K cp...   E-divisive change points */
#define _POSIX_C_SOURCE 200809L
#include "compare/stats.h"
#include "unit.h"
#include <math.h>
#include <stdlib.h>

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol) * (fabs(b) > 1e-300 ? fabs(b) : 1))

static void hand(void)
{
    double u;
    /* x all below y: U = 0; exact P(U >= 6) = 1/C(5,2) */
    double x1[] = {1, 2}, y1[] = {3, 4, 5};
    CHECK(NEAR(td_mannwhitney(x1, 2, y1, 3, &u), 0.2, 1e-12));
    CHECK(u == 0);
    /* U = 1 (3 > 2); for m = n = 2 the counts of U = 0..4 are 1,1,2,1,1: P(U >= 3) = 2/6 */
    double x2[] = {1, 3}, y2[] = {2, 4};
    CHECK(NEAR(td_mannwhitney(x2, 2, y2, 2, &u), 2.0 / 3, 1e-12));
    CHECK(u == 1);
    /* identical samples: p 1 */
    double z[] = {5, 5, 5};
    CHECK(NEAR(td_mannwhitney(z, 3, z, 3, &u), 1.0, 1e-12));
    CHECK(isnan(td_mannwhitney(z, 0, z, 3, &u)));
    /* t distribution: df 1 is Cauchy, P(|T| > 1) = 1/2; df 2: P(|T| > t) = 1 - t/sqrt(2+t^2) */
    CHECK(NEAR(td_t_pvalue(1, 1), 0.5, 1e-9));
    CHECK(NEAR(td_t_pvalue(2, 2), 1 - 2 / sqrt(6.0), 1e-9));
    CHECK(NEAR(td_t_pvalue(-2, 2), 1 - 2 / sqrt(6.0), 1e-9));
    CHECK(NEAR(td_t_pvalue(0, 7), 1.0, 1e-12));
    /* t test: x = {1,2,3}, y = {4,5,6}: pooled s^2 = 1, se = sqrt(2/3), t = 3/se = 3.674, df 4 */
    double a[] = {1, 2, 3}, b[] = {4, 5, 6};
    double t = 3 / sqrt(2.0 / 3);
    CHECK(NEAR(td_ttest(a, 3, b, 3), td_t_pvalue(t, 4), 1e-12));
    /* Welch with equal variances and sizes equals the pooled test */
    CHECK(NEAR(td_welch(2, 1, 3, 5, 1, 3), td_t_pvalue(t, 4), 1e-9));
    /* E-divisive: one step from ~10 to ~20 at index 5 */
    double s[] = {10, 11, 9, 10, 10.5, 20, 21, 19, 20, 20.5};
    size_t cp[4];
    double p[4];
    CHECK_EQ_INT(td_edivisive(s, 10, 0.001, 0.05, cp, p, 4), 1);
    CHECK_EQ_INT(cp[0], 5);
    CHECK(p[0] < 0.001);
    /* a flat noisy series has none; the same step below the minimum effect has none */
    double f[] = {10, 11, 9, 10, 10.5, 10, 11, 9, 10, 10.5};
    CHECK_EQ_INT(td_edivisive(f, 10, 0.001, 0.05, cp, p, 4), 0);
    double g[] = {100, 100.2, 99.8, 100, 100.1, 101, 101.2, 100.8, 101, 101.1};
    CHECK_EQ_INT(td_edivisive(g, 10, 0.001, 0.05, cp, p, 4), 0);
    CHECK_EQ_INT(td_edivisive(g, 10, 0.001, 0.0, cp, p, 4), 1);
    /* the change at the last point of the series */
    double l[] = {10, 11, 9, 10, 10.5, 10, 11, 9, 10, 30};
    CHECK_EQ_INT(td_edivisive(l, 10, 0.001, 0.05, cp, p, 4), 1);
    CHECK_EQ_INT(cp[0], 9);
    double m[] = {3, 1, 2};
    CHECK(td_median(m, 3) == 2);
}

static int read_n(FILE *f, double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fscanf(f, "%lf", &v[i]) != 1)
            return 0;
    return 1;
}

static void reference(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char kind[8];
    int cases = 0;
    while (fscanf(f, "%7s", kind) == 1) {
        cases++;
        if (!strcmp(kind, "mw") || !strcmp(kind, "tt")) {
            size_t nx, ny;
            if (fscanf(f, "%zu %zu", &nx, &ny) != 2)
                break;
            double *x = malloc((nx + ny + 2) * sizeof *x), want_u = 0, want_p;
            CHECK(read_n(f, x, nx + ny));
            if (!strcmp(kind, "mw")) {
                CHECK(fscanf(f, "%lf %lf", &want_u, &want_p) == 2);
                double u, p = td_mannwhitney(x, nx, x + nx, ny, &u);
                if (!NEAR(p, want_p, 1e-7) || u != want_u)
                    fprintf(stderr, "mw case %d: p %.10g (scipy %.10g), U %g (scipy %g)\n",
                            cases, p, want_p, u, want_u);
                CHECK(NEAR(p, want_p, 1e-7));
                CHECK(u == want_u);
            } else {
                CHECK(fscanf(f, "%lf", &want_p) == 1);
                double p = td_ttest(x, nx, x + nx, ny);
                if (!NEAR(p, want_p, 1e-7))
                    fprintf(stderr, "tt case %d: p %.10g (scipy %.10g)\n", cases, p, want_p);
                CHECK(NEAR(p, want_p, 1e-7));
            }
            free(x);
        } else if (!strcmp(kind, "ed")) {
            size_t n, k;
            double maxp, mineff;
            if (fscanf(f, "%zu %lf %lf", &n, &maxp, &mineff) != 3)
                break;
            double *x = malloc((n + 1) * sizeof *x);
            CHECK(read_n(f, x, n));
            CHECK(fscanf(f, "%zu", &k) == 1);
            size_t cp[64], want[64], got = td_edivisive(x, n, maxp, mineff, cp, NULL, 64);
            for (size_t i = 0; i < k && i < 64; i++)
                CHECK(fscanf(f, "%zu", &want[i]) == 1);
            int same = got == k;
            for (size_t i = 0; same && i < k; i++)
                same = cp[i] == want[i];
            if (!same) {
                fprintf(stderr, "ed case %d: %zu change points (reference %zu):", cases, got, k);
                for (size_t i = 0; i < got; i++)
                    fprintf(stderr, " %zu", cp[i]);
                fprintf(stderr, " / reference");
                for (size_t i = 0; i < k; i++)
                    fprintf(stderr, " %zu", want[i]);
                fputc('\n', stderr);
            }
            CHECK(same);
            free(x);
        } else {
            CHECK(!"unknown reference line");
            break;
        }
    }
    fclose(f);
    fprintf(stderr, "%d reference cases\n", cases);
    CHECK(cases > 0);
}

int main(int argc, char **argv)
{
    hand();
    if (argc > 1)
        reference(argv[1]);
    return UNIT_DONE();
}
