/* The engine's side of a run over several MPI ranks (docs/architecture.md, "Several ranks"):
 * each rank runs the same window loop on its own partitions and devices; these calls keep
 * the ranks in step and make one run's results of theirs.
 *
 * Every rank makes the same collective calls in the same order, whatever fails: a rank whose
 * window failed still takes part, saying so, and the agreement that follows hands every rank
 * the lowest failing rank's sentence (dist_agree), so that all of them stop together with
 * one message and none waits for a rank that left. */
#ifndef CLNETSIM_RANK_STEP_H
#define CLNETSIM_RANK_STEP_H
#include "engine/engine.h"

typedef struct rank_agreement {
    sim_time_ns begin;      /* the least next begin of every rank (event-driven windows) */
    int stop;               /* the greatest stop signal any rank caught (0: none) */
    double exchange_s;      /* this rank's time in the models' end_ranks */
    double agree_s;         /* and in the agreements */
    /* a window's wall time: this rank's before rank_end_window, the longest of every
     * rank's after it (adaptive granularity: every rank then decides alike) */
    double step_s;
} rank_agreement;

/* Whether this run has several ranks. */
int rank_several(void);

/* Before the first window: RC, this rank's set-up (model, injector, start point), and its
 * least pending time BEGIN. Returns 0 with AG->begin the run's, or the agreed error. */
int rank_agree_start(int rc, sim_time_ns begin, rank_agreement *ag, cn_error *err);

/* After this rank's window PLAN (RC its outcome: 0, or the error of its plan, sets or
 * end_window): the model's end_ranks (its records between ranks), then the window's
 * agreement in one reduction: any failure, the greatest stop signal (STOP, this rank's),
 * whether every rank is finished, the least next begin (EVENT_SYNC), the events so far
 * (summed), the least next window, the longest step time (AG->step_s) and whether any
 * rank's step was irregular. OUT becomes the run's; returns 0 or the agreed error. */
int rank_end_window(const model_ops *ops, struct model_state *m, const window_plan *plan,
                    int rc, int stop, int event_sync, window_outcome *out,
                    rank_agreement *ag, cn_error *err);

/* After the model's results (RC: 0, or its error): the run's results from every rank's,
 * on every rank. Metrics set whole must agree; partial ones combine by their declared
 * reduction (metric_combine); the events, bytes and injector counts are summed; the devices
 * of every rank are listed in rank order (as many as a report holds). With one process it
 * only checks that each partial metric has a value. Returns 0 or the agreed error. */
int rank_combine_results(int rc, run_results *res, const rank_agreement *ag, cn_error *err);

#endif
