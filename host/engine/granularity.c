#include <string.h>

#include "engine/granularity.h"

static void add_rung(granularity *g, int64_t v)
{
    for (int i = 0; i < g->n_rungs; i++)
        if (g->value[i] == v)
            return;
    if (g->n_rungs < GRAN_MAX_RUNGS)
        g->value[g->n_rungs++] = v;
}

int gran_init(granularity *g, int64_t lo, int64_t hi, int64_t start, int proportional)
{
    memset(g, 0, sizeof *g);
    if (lo < 1)
        lo = 1;
    if (hi < lo)
        hi = lo;
    start = start < lo ? lo : start > hi ? hi : start;
    g->start = start;
    add_rung(g, start);
    /* the powers of two around the start, each side, and the ends */
    for (int64_t v = start; v / 2 >= lo && v / 2 > 0 && g->n_rungs < GRAN_MAX_RUNGS - 2;)
        add_rung(g, v /= 2);
    for (int64_t v = start; v <= hi / 2 && g->n_rungs < GRAN_MAX_RUNGS - 2;)
        add_rung(g, v *= 2);
    add_rung(g, lo);
    add_rung(g, hi);
    /* ascending (a handful of values: insertion) */
    for (int i = 1; i < g->n_rungs; i++)
        for (int j = i; j > 0 && g->value[j - 1] > g->value[j]; j--) {
            int64_t t = g->value[j];
            g->value[j] = g->value[j - 1];
            g->value[j - 1] = t;
        }
    for (int i = 0; i < g->n_rungs; i++)
        if (g->value[i] == start)
            g->base = g->rung = g->rung_probed = i;
    g->dir = +1; /* coarser first: fewer launches is what most runs gain from */
    g->stride = 1;
    g->phase = g->n_rungs > 1 ? GRAN_RAMP : GRAN_FIXED;
    g->proportional = proportional;
    g->step_max_s = proportional ? GRAN_PROPORTIONAL_STEP_S : GRAN_STEP_MAX_S;
    if (proportional && g->phase == GRAN_RAMP) /* a short first step */
        g->base = g->rung = g->rung_probed =
            g->rung > GRAN_RAMP_BELOW ? g->rung - GRAN_RAMP_BELOW : 0;
    g->start = g->value[g->rung]; /* what the run starts at, for the report */
    return feedback_init(&g->table, g->n_rungs, 1, GRAN_HISTORY);
}

void gran_free(granularity *g)
{
    feedback_free(&g->table);
}

double gran_rate(const granularity *g, int r)
{
    const feedback_series *s = feedback_get(&g->table, r, 0);
    /* the totals: every period there, the table's first (which it keeps from its samples as
     * a kernel's warm-up) too, since a period here is measured after the run's warm-up */
    if (!s || !(s->total_seconds > 0))
        return -1.0;
    return (double)s->total_events / s->total_seconds;
}

/* The next probe from A: the side of DIR, or the other when DIR's runs off the ladder (a
 * missing side counts as refused). Returns the rung, or -1 when there is none. */
static int next_probe(granularity *g)
{
    for (int tries = 0; tries < 2; tries++) {
        int to = g->base + g->dir * g->stride;
        to = to < 0 ? 0 : to >= g->n_rungs ? g->n_rungs - 1 : to;
        /* a step that would last too long (steps last about in proportion to the value) */
        int too_long = g->dir > 0 && g->step_value > 0 &&
                       g->step_s * (double)g->value[to] / (double)g->step_value > g->step_max_s;
        if (to != g->base && !too_long)
            return to;
        g->stride = 1;
        g->dir = -g->dir;
        g->refused++;
    }
    return -1;
}

/* Both sides refused: the next probe waits twice as many periods as the last did. */
static void hold_longer(granularity *g)
{
    g->refused = 0;
    g->wait = g->wait ? (g->wait * 2 > GRAN_MAX_WAIT ? GRAN_MAX_WAIT : g->wait * 2) : 1;
    g->waited = 0;
}

/* After a probe refused: the other side next; once both sides were refused, a longer hold
 * before the next probe. */
static void refuse(granularity *g)
{
    g->dir = -g->dir;
    g->stride = 1;
    g->refused++;
    g->waited = 0;
    if (g->refused >= 2)
        hold_longer(g);
}

static int start_probe(granularity *g)
{
    int to = next_probe(g);
    if (g->refused >= 2) { /* both sides refused, or missing (TO is then -1) */
        hold_longer(g);
        return 0;
    }
    g->rung = to;
    g->phase = GRAN_PROBE;
    g->probes++;
    return 1;
}

/* A ramp's step of EVENTS in SECONDS: the next value one that would last about GRAN_RAMP_S
 * (a proportional knob's: the largest rung that would last at most GRAN_PROPORTIONAL_STEP_S),
 * while the rate grows from one step to the next. The climb begins once a step lasts that
 * long, at the top, or, when the rate fell, back at the value before (the run's first step,
 * warm-up and all, counts too: it can only make the next one look better). */
static int ramp(granularity *g, uint64_t events, double seconds)
{
    double rate = seconds > 0 ? (double)events / seconds : 0;
    if (events > 0 && g->rate_a > 0 && rate <= g->rate_a) {
        int back = g->rung_probed;
        g->phase = GRAN_BASE;
        g->rate_a = 0;
        if (back == g->rung)
            return 0;
        g->rung = g->base = back;
        g->moves++;
        return 1;
    }
    double aim = g->proportional ? g->step_max_s : GRAN_RAMP_S;
    double factor = seconds > aim / GRAN_RAMP_JUMP ? aim / seconds : GRAN_RAMP_JUMP;
    double want = (double)gran_value(g) * factor;
    int to = g->rung;
    while (to + 1 < g->n_rungs && (double)g->value[to + 1] <= want)
        to++;
    if (factor < 2 || to == g->rung) {
        g->phase = GRAN_BASE; /* the next step begins the climb's first period */
        g->rate_a = 0;
        return 0;
    }
    if (events > 0) { /* the value to come back to, and its rate */
        g->rate_a = rate;
        g->rung_probed = g->rung;
    }
    g->rung = g->base = to;
    g->moves++;
    return 1;
}

int gran_step(granularity *g, uint64_t events, double seconds)
{
    if (g->phase == GRAN_FIXED)
        return 0;
    if (!(seconds >= 0))
        seconds = 0;
    g->step_s = seconds;
    g->step_value = gran_value(g);
    if (g->phase == GRAN_RAMP)
        return ramp(g, events, seconds);
    g->events += events;
    g->seconds += seconds;
    /* a period: long enough to be timed, and with events (an empty one says nothing) */
    if (g->seconds < GRAN_PERIOD_S || g->events == 0)
        return 0;
    double rate = (double)g->events / g->seconds;
    feedback_record(&g->table, g->rung, 0, g->events, g->seconds);
    g->periods++;
    g->events = 0;
    g->seconds = 0;
    switch (g->phase) {
    case GRAN_BASE:
        if (g->waited < g->wait) {
            g->waited++;
            return 0;
        }
        g->rate_a = rate;
        return start_probe(g);
    case GRAN_PROBE:
        g->rate_b = rate;
        g->rung_probed = g->rung;
        g->rung = g->base;
        g->phase = GRAN_BACK;
        return 1;
    case GRAN_BACK: {
        double a = rate > g->rate_a ? rate : g->rate_a;
        g->phase = GRAN_BASE;
        if (g->rate_b > a * (1.0 + GRAN_MARGIN)) {
            /* taken: the next step on the same side at once, from B's rate */
            g->base = g->rung_probed;
            g->rung = g->base;
            g->moves++;
            g->refused = 0;
            g->stride = g->stride * 2 > GRAN_MAX_STRIDE ? GRAN_MAX_STRIDE : g->stride * 2;
            g->wait = g->waited = 0;
            g->rate_a = g->rate_b;
            start_probe(g);
            return 1;
        }
        refuse(g);
        /* the second A is the next probe's first, unless the run now holds */
        if (g->wait == 0) {
            g->rate_a = rate;
            return start_probe(g);
        }
        return 0;
    }
    default:
        return 0;
    }
}

/* Its events and time are neither a period's nor the ramp's: the period under way goes on
 * with the next step. */
void gran_skip(granularity *g)
{
    g->skipped++;
}

void gran_report(const granularity *g, granularity_report *rep)
{
    rep->start = g->start;
    rep->final = gran_value(g);
    rep->periods = g->periods;
    rep->probes = g->probes;
    rep->moves = g->moves;
    rep->skipped = g->skipped;
    rep->n_rungs = g->n_rungs;
    for (int i = 0; i < g->n_rungs; i++) {
        rep->rung_value[i] = g->value[i];
        rep->rung_rate[i] = gran_rate(g, i);
    }
}

void gran_print(const granularity_report *rep, FILE *out)
{
    if (!rep->knob[0])
        return;
    if (!rep->adaptive) {
        fprintf(out, "granularity %s: %lld, fixed by the scenario\n", rep->knob,
                (long long)rep->final);
        return;
    }
    fprintf(out, "granularity %s: chosen by the run, %lld at the start and %lld at the end "
            "(%llu periods measured, %llu probes, %llu moves, %llu steps left out)\n",
            rep->knob, (long long)rep->start, (long long)rep->final,
            (unsigned long long)rep->periods, (unsigned long long)rep->probes,
            (unsigned long long)rep->moves, (unsigned long long)rep->skipped);
    for (int i = 0; i < rep->n_rungs; i++)
        if (rep->rung_rate[i] >= 0)
            fprintf(out, "  %-12lld %.4g events/s\n", (long long)rep->rung_value[i],
                    rep->rung_rate[i]);
}

int gran_test_walk(granularity *g, int64_t step)
{
    if (g->n_rungs < 2)
        return 0;
    uint64_t h = (uint64_t)step * 0x9e3779b97f4a7c15ull;
    /* the lower half of the ladder: small values, many steps */
    int to = (int)((h >> 32) % (uint64_t)((g->n_rungs + 1) / 2));
    if (to == g->rung)
        return 0;
    g->rung = g->base = to;
    g->moves++;
    return 1;
}
