/* compare/triage.h - what a CI owner needs the morning after an alarm (issue 41): the
 * suspect range of a history's regression, the last good and the first bad run with
 * their commits and dates, a ready `git bisect start` line and, with the run metadata
 * `commit_url` (a URL with `{commit}`), the commits' links.
 *
 * Scalars written (only when there is a regression with a history):
 *   suspect.range            "changed between run 41 (last good, commit a1b2c3,
 *                            2026-11-02) and run 42 (first bad, commit d4e5f6, 2026-11-03)"
 *   suspect.bisect           "git bisect start d4e5f6 a1b2c3" (both commits known, differ)
 *   suspect.first_bad_run, suspect.last_good_run     the runs' ids in the database
 *   suspect.first_bad_commit, suspect.last_good_commit
 *   suspect.first_bad_url, suspect.last_good_url     meta.commit_url with {commit} filled */
#ifndef TD_COMPARE_TRIAGE_H
#define TD_COMPARE_TRIAGE_H
#include "compare/changes.h"

/* The suspect range of the regression whose new level starts at run index bad of h
 * (h->nruns: the current run) after run index good (SIZE_MAX: none before it). */
void td_triage_suspect(td_summary *cur, const td_hist *h, size_t bad, size_t good);

/* Appends the suspect range and the bisect line to a REGRESSED verdict. */
void td_triage_verdict(td_summary *cur);

#endif
