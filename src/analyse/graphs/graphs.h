/* analyse/graphs/graphs.h - CUDA/HIP graph replays: their kernels attributed to the ops
 * of the graph's capture trace (analyse/graphs/graphs.c), before nesting. */
#ifndef TD_ANALYSE_GRAPHS_H
#define TD_ANALYSE_GRAPHS_H

struct td_actx;
void td_an_graphs(struct td_actx *a);         /* before nesting: the attribution */
void td_an_graphs_scalars(struct td_actx *a); /* the `graphs` object, after the run's scalars */

#endif
