/* The order of a window's sets against the kinds' declared reads and writes (plan_order.h). */
#include "engine/plan_order.h"
#include "engine/engine.h"

int plan_order_init(plan_order *order, const model_ops *ops, cn_error *err)
{
    *order = (plan_order){.ops = ops};
    if (ops->n_kinds > PLAN_ORDER_MAX_KINDS || ops->n_flows > 32)
        return cn_fail(err, CN_ERR_RUNTIME, "model '%s' declares %d event kinds and %d flows: "
                       "at most %d and 32", ops->name, ops->n_kinds, ops->n_flows,
                       PLAN_ORDER_MAX_KINDS);
    uint32_t known = ops->n_flows == 32 ? UINT32_MAX : (1u << ops->n_flows) - 1;
    for (int k = 0; k < ops->n_kinds; k++) {
        const event_kind *a = &ops->kinds[k];
        uint32_t stray = (a->reads | a->writes) & ~known;
        if (stray)
            return cn_fail(err, CN_ERR_RUNTIME, "model '%s': event kind '%s' reads or writes "
                           "flow %d, but the model declares %d flows", ops->name, a->name,
                           __builtin_ctz(stray), ops->n_flows);
        for (int j = 0; j < ops->n_kinds; j++)
            if (j != k && (ops->kinds[j].writes & a->reads))
                order->after[k] |= 1u << j;
    }
    return 0;
}

/* The sentence of a set that comes before the set LATER it depends on. */
static int refuse(const plan_order *order, const window_plan *plan, int early, int later,
                  cn_error *err)
{
    const model_ops *ops = order->ops;
    const event_set *a = &plan->sets[early], *b = &plan->sets[later];
    uint32_t shared = ops->kinds[a->kind].reads & ops->kinds[b->kind].writes;
    return cn_fail(err, CN_ERR_RUNTIME, "internal error: model '%s' planned window %lld with "
                   "set %d (%s, partition %d), which reads the flow '%s', before set %d (%s, "
                   "partition %d), which writes it: a set must come after the sets of other "
                   "kinds that write what it reads", ops->name, (long long)plan->index,
                   early + 1, ops->kinds[a->kind].name, a->partition,
                   ops->flows[__builtin_ctz(shared)], later + 1, ops->kinds[b->kind].name,
                   b->partition);
}

int plan_order_check(const plan_order *order, const window_plan *plan, cn_error *err)
{
    /* from the last set back: the kinds seen so far are those that run later */
    uint32_t later_kinds = 0;
    for (int s = plan->n_sets - 1; s >= 0; s--) {
        int k = plan->sets[s].kind;
        if (k < 0 || k >= order->ops->n_kinds)
            return cn_fail(err, CN_ERR_RUNTIME, "internal error: model '%s' planned window "
                           "%lld with set %d of kind %d, which it does not declare",
                           order->ops->name, (long long)plan->index, s + 1, k);
        if (order->after[k] & later_kinds) {
            int t = s + 1;
            while (!(order->after[k] & (1u << plan->sets[t].kind)))
                t++;
            return refuse(order, plan, s, t, err);
        }
        later_kinds |= 1u << k;
    }
    return 0;
}
