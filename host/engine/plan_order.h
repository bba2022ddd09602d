/* The order of a window's event sets, checked against what their kinds declare
 * (event_kind.reads and writes, bits of model_ops.flows): a set that reads a flow which a
 * set of another kind writes in the same window must come after it, since on a device's
 * in-order queue the plan's order is the order in which the kernels see the flows. Sets of
 * one kind are free among themselves (a kind's kernels are race-free across partitions). */
#ifndef CLNETSIM_PLAN_ORDER_H
#define CLNETSIM_PLAN_ORDER_H
#include <stdint.h>

#include "common/error.h"

struct model_ops;
struct window_plan;

#define PLAN_ORDER_MAX_KINDS 16 /* ENGINE_MAX_KINDS */

/* What the check needs of a model, worked out once per run: per kind, the kinds (other than
 * itself) that write a flow it reads. */
typedef struct plan_order {
    const struct model_ops *ops;
    uint32_t after[PLAN_ORDER_MAX_KINDS]; /* bit k: kind k writes a flow this kind reads */
} plan_order;

/* Checks OPS's declaration (at most PLAN_ORDER_MAX_KINDS kinds, each mask naming only the
 * model's n_flows flows) and fills ORDER. Returns 0, or CN_ERR_RUNTIME with ERR saying which
 * kind declares which flow bit. */
int plan_order_init(plan_order *order, const struct model_ops *ops, cn_error *err);

/* Checks PLAN's sets in order: 0, or CN_ERR_RUNTIME with a sentence naming the window, both
 * sets (number, kind, partition) and the flow. One pass over the sets. */
int plan_order_check(const plan_order *order, const struct window_plan *plan, cn_error *err);

#endif
