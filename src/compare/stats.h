/* compare/stats.h - the statistics behind regression detection (pure functions on
 * arrays of doubles; no summary, no I/O):
 *  - Mann-Whitney U rank test for two samples (two runs' per-step times),
 *  - Student and Welch t tests,
 *  - E-divisive means change points with a Student t test of significance, as Apache
 *    Otava / Hunter describe it (Matteson & James 2014; Fleming et al., ICPE 2023). */
#ifndef TD_ANALYSE_STATS_H
#define TD_ANALYSE_STATS_H
#include <stddef.h>

/* Two-sided Mann-Whitney U test of x[0..nx) against y[0..ny). *u receives U of x
 * (number of pairs with x > y, ties counting 1/2). The p value is exact (distribution
 * of U by counting) when min(nx, ny) < 8 and there are no ties, otherwise the normal
 * approximation with tie correction and continuity correction (the rule and results of
 * scipy.stats.mannwhitneyu(..., alternative='two-sided', method='auto')).
 * Returns the p value, or NaN when a sample is empty. */
double td_mannwhitney(const double *x, size_t nx, const double *y, size_t ny, double *u);

/* Student's t distribution: two-sided p value of |t| with df degrees of freedom. */
double td_t_pvalue(double t, double df);

/* Two-sample Student t test (pooled variance) on raw samples; two-sided p value, NaN
 * when nx + ny < 3. A zero pooled variance gives p 0 when the means differ, 1 when not. */
double td_ttest(const double *x, size_t nx, const double *y, size_t ny);

/* Welch's t test from summary statistics (mean, sample std, count); two-sided p, NaN
 * when a count is below 2 or both std are 0 with equal means. */
double td_welch(double m1, double s1, double n1, double m2, double s2, double n2);

/* The lag-1 autocorrelation rho of the noise of x[0..n), robust to level shifts: from
 * the ratio of the mean squared differences at lag 2 and lag 1 (1 + rho for AR(1) noise),
 * each without its largest 25% (the differences a shift touches); 0 unless it exceeds 4
 * standard errors of the estimate for independent noise (7 / sqrt(n)), at most 0.9;
 * 0 when n < 50 (too few differences to tell correlation from a few shifts). */
double td_noise_rho(const double *x, size_t n);

/* E-divisive means change points of x[0..n): hierarchical bisection by the energy
 * statistic (alpha = 1, O(n^2) per segment) with a Student t test between the two sides
 * of each candidate inside its segment, its t and degrees of freedom scaled by
 * (1 - rho) / (1 + rho) for the series' noise autocorrelation rho (td_noise_rho, or the
 * lag-1 autocorrelation of the residuals about the two sides' means when smaller; 0 for
 * independent runs); a candidate is kept when p < max_p, one straight line through the
 * segment does not fit it as well as the two levels or the best three (a drift is not a
 * change, a staircase is), and the
 * relative difference of the segment means is at least min_effect. Afterwards every change point is tested
 * again against its neighbouring change points and dropped if it no longer passes.
 * Writes up to cap indices i (the first point of the new segment, 1 <= i < n) in
 * increasing order into cp, with their p values in p (may be NULL); returns how many. */
size_t td_edivisive(const double *x, size_t n, double max_p, double min_effect, size_t *cp,
                    double *p, size_t cap);

/* Median of v[0..n) (v is sorted in place); NaN when n == 0. */
double td_median(double *v, size_t n);

#endif
