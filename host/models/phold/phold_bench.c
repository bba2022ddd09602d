/* What selftest and bench need of PHOLD (engine.h, model_bench): the PHOLD oracle
 * (host/oracle/phold_oracle.c) as a run's members, and the LPs that a benchmark case's size
 * counts, each with the scenario's population pending all along. */
#include <stdio.h>

#include "models/phold/phold.h"
#include "oracle/phold_oracle.h"

void phold_reference_results(const phold_oracle_params *p, const phold_oracle_result *o,
                             run_results *want)
{
    snprintf(want->model, sizeof want->model, "phold");
    want->seed = p->seed;
    const struct { const char *name; uint64_t v; } all[] = {
        {"lps", (uint64_t)p->lps},
        {"population", (uint64_t)p->population},
        {"events", (uint64_t)o->events},
        {"remote", (uint64_t)o->remote},
        {"time_sum_ns", o->time_sum_ns},
        {"lp_weighted_sum", o->lp_weighted_sum},
        {"lp_events_min", (uint64_t)o->lp_events_min},
        {"lp_events_max", (uint64_t)o->lp_events_max},
        {"last_time_ns", (uint64_t)o->last_time_ns},
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        results_add_metric(want, all[i].name, all[i].v);
}

static int phold_reference(const scenario *sc, run_results *want, char *why, size_t cap)
{
    phold_oracle_params p;
    phold_oracle_result o;
    phold_oracle_params_from(sc, &p);
    if (phold_oracle_run(&p, &o, why, cap) != PHOLD_ORACLE_OK)
        return 1;
    phold_reference_results(&p, &o, want);
    return 0;
}

static int64_t phold_size(const scenario *sc, int64_t *pending)
{
    *pending = phold_values_of(sc)->population; /* every executed event creates one: E per LP always */
    return phold_values_of(sc)->lps;
}

/* N LPs, each with the scenario's population. */
static int phold_resize(const scenario *sc, int64_t n, char out[][96], int max, cn_error *err)
{
    (void)sc;
    if (max < 1) {
        cn_fail(err, CN_ERR_INPUT, "internal error: too few sizing overrides");
        return -1;
    }
    snprintf(out[0], 96, "phold.lps=%lld", (long long)n);
    return 1;
}

const model_bench phold_bench = {
    .title = "PHOLD",
    .reference_name = "the PHOLD oracle",
    .reference = phold_reference,
    .size = phold_size,
    .resize = phold_resize,
    .shapes = &phold_shapes,
};
