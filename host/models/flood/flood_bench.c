/* What selftest and bench need of the flood (engine.h, model_bench): its sequential reference
 * (host/oracle/flood_oracle.c) as the flood's declared metrics, and the node count that a
 * benchmark case's size counts, with the overrides of --sizes. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/flood/flood.h"
#include "models/flood/flood_metrics.h"
#include "oracle/flood_oracle.h"

void flood_reference_results(const flood_oracle_result *o, run_results *want)
{
    snprintf(want->model, sizeof want->model, "flood");
    want->seed = o->seed;
    results_declare(want, &flood_metric_set);
    const struct { const char *name; wide_int v; int used; } m[] = {
        {"nodes", o->nodes, 1},
        {"generated", o->generated, 1},
        {"delivered", o->delivered, 1},
        {"transmissions", o->transmissions, 1},
        {"receptions", o->receptions, 1},
        {"first_receptions", o->first_receptions, 1},
        {"hops_sum", o->hops_sum, 1},
        {"latency_sum_ns", o->latency_sum_ns, 1},
        {"end_time_ns", o->end_time_ns, 1},
        {"windows", o->windows, 1},
        {"links", o->links, o->capped},
        {"links_cut", o->links_cut, o->capped},
        {"capacity_drops", o->capacity_drops, o->has_capacity},
        {"dead_nodes", o->dead_nodes, o->has_energy},
        {"first_death_ns", o->first_death_ns, o->has_energy},
        {"energy_spent_nj", o->energy_spent_nj, o->has_energy},
        {"deliverable", o->deliverable, o->n_flows > 0},
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (m[i].used)
            results_set(want, m[i].name, m[i].v);
    for (int f = 0; f < o->n_flows; f++) {
        const oracle_flow_result *of = &o->flows[f];
        int row = results_add_row(want, of->name);
        results_set_cell(want, row, "generated", of->generated);
        results_set_cell(want, row, "deliverable", of->deliverable);
        results_set_cell(want, row, "delivered", of->delivered);
        results_set_cell(want, row, "hops_sum", of->hops_sum);
        results_set_cell(want, row, "latency_sum_ns", of->latency_sum_ns);
    }
}

static int flood_reference(const scenario *sc, run_results *want, char *why, size_t cap)
{
    /* the oracle's result holds the flows' rows: too large for the stack of a worker */
    flood_oracle_result *o = calloc(1, sizeof *o);
    if (!o) {
        snprintf(why, cap, "out of host memory");
        return 1;
    }
    int bad = flood_oracle_run(sc, o) != ORACLE_OK;
    if (bad)
        snprintf(why, cap, "the reference model refused it");
    else
        flood_reference_results(o, want);
    free(o);
    return bad;
}

static int64_t flood_size(const scenario *scn, int64_t *pending)
{
    const flood_values *sc = flood_values_of(scn);
    *pending = 0;
    return flood_node_count(sc);
}

/* For functions that return a count: sets ERR (bad input) and returns -1. */
static int fail_count(cn_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail_count(cn_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cn_vfail(err, CN_ERR_INPUT, fmt, ap);
    va_end(ap);
    return -1;
}

/* Millimetres as the INI's metres, exactly: "1234.567". */
static void metres(char *buf, size_t cap, const char *key, int64_t mm)
{
    snprintf(buf, cap, "%s=%lld.%03lld", key, (long long)(mm / 1000), (long long)(mm % 1000));
}

/* N nodes at the density of SC: grid, rows = cols = round(sqrt(N)); uniform, nodes = N and
 * both sides times sqrt(N / nodes); areas, N / count nodes per area. A destination at the
 * last node stays at the last node. */
static int flood_resize(const scenario *scn, int64_t n, char out[][96], int max, cn_error *err)
{
    const flood_values *sc = flood_values_of(scn);
    int k = 0;
    if (max < 4)
        return fail_count(err, "internal error: too few sizing overrides");
    int64_t base = flood_node_count(sc);
    if (sc->placement == PLACEMENT_AREAS) {
        /* N / count nodes per area, as square as a whole shape allows: rows the largest
         * divisor of N / count not above its square root (150 in 6 areas: 5 x 5; 303000:
         * 202 x 250) */
        if (n % sc->areas != 0)
            return fail_count(err, "--sizes: %lld nodes cannot be shared equally by the %lld "
                              "areas of '%s': expected a multiple of %lld", (long long)n,
                              (long long)sc->areas, scn->path, (long long)sc->areas);
        int64_t per = n / sc->areas, rows = 1;
        for (int64_t d = 1; d <= per / d; d++)
            if (per % d == 0)
                rows = d;
        snprintf(out[k++], 96, "topology.rows=%lld", (long long)rows);
        snprintf(out[k++], 96, "topology.cols=%lld", (long long)(per / rows));
    } else if (sc->placement == PLACEMENT_GRID) {
        int64_t side = llround(sqrt((double)n));
        if (side < 1)
            side = 1;
        snprintf(out[k++], 96, "topology.rows=%lld", (long long)side);
        snprintf(out[k++], 96, "topology.cols=%lld", (long long)side);
    } else {
        /* the same nodes per unit of area: both sides times sqrt(n / base) */
        double f = sqrt((double)n / (double)base);
        double w = (double)sc->width_mm * f, h = (double)sc->height_mm * f;
        if (w > (double)SCENARIO_MAX_SIDE_MM || h > (double)SCENARIO_MAX_SIDE_MM)
            return fail_count(err, "--sizes: %lld nodes at the density of '%s' need "
                              "an area side above the largest accepted", (long long)n, scn->path);
        snprintf(out[k++], 96, "topology.nodes=%lld", (long long)n);
        metres(out[k++], 96, "topology.width", llround(w));
        metres(out[k++], 96, "topology.height", llround(h));
    }
    if (sc->destination == base - 1)
        snprintf(out[k++], 96, "traffic.destination=-1");
    return k;
}

const model_bench flood_bench = {
    .title = "flood",
    .reference_name = "the sequential reference",
    .reference = flood_reference,
    .size = flood_size,
    .resize = flood_resize,
    .shapes = &flood_shapes,
};
