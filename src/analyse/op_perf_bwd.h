/* analyse/op_perf_bwd.h - the device time of the per-op performance model's calls
 * (analyse/op_perf_bwd.c), forward and backward, for analyse/op_perf.c. */
#ifndef TD_ANALYSE_OP_PERF_BWD_H
#define TD_ANALYSE_OP_PERF_BWD_H

#include "analyse/internal.h"

/* Pairs (event << 32 | call) in ascending order (a radix sort). */
void td_opp_sort_pairs(uint64_t *pairs, size_t n);

/* The host event with this start, track and name (events are sorted by start, longer
 * first), a cpu_op when cpu_op is set, else any that is not device work; -1 none. The
 * op of a shape record and the events of a sequence-number record are found so. */
int32_t td_opp_host_event(const td_trace *t, int64_t ts, uint32_t track, td_str name, int cpu_op);

/* pairs[np]: (event << 32 | call), sorted. out[call] = the union of the device intervals
 * (kernels, memcpy, memset) launched under the events paired with the call (an event's
 * own subtree); calls without any keep their value. */
void td_opp_union(const td_tctx *cx, const uint64_t *pairs, size_t np, int64_t *out);

/* The backward functions autograd links to the calls whose op events are evs[nc] (as
 * TraceLens's trace_to_tree.py link_all_fwd_bwd_events): per sequence number (the
 * trace's td_seqrec), the first `autograd::engine::evaluate_function:` event, linked to
 * the latest event with that number on another thread. A call gets the functions linked
 * to any event of its subtree, own[call] = 1 when one is linked to its op itself.
 * Returns the pairs (function event << 32 | call), sorted, in *out (free()), and their
 * number. */
size_t td_opp_bwd_pairs(const td_tctx *cx, const uint32_t *evs, size_t nc, uint8_t *own,
                        uint64_t **out);

#endif
