/* Adaptive granularity (host/engine/granularity.h) against a model of a run whose knob has a
 * best value: a step of knob value v runs v x E events in A + v x E x C x (1 + v / K) seconds
 * (a fixed cost per step, amortised by larger v, and a cost per event that grows with v: the
 * best is v* = sqrt(A K / (E C))). The controller must find the best rung of its ladder, run
 * at >= 95% of the best fixed value's rate over the run (its probes included), follow a best
 * value that moves, see through a load that ramps up while it compares, never move a fixed
 * knob, and ignore empty steps. No device. */
#include <math.h>
#include <stdio.h>

#include "../common/check.h"
#include "engine/granularity.h"

typedef struct load {
    double a, e, c, k;   /* the step's law, above */
    double noise;        /* each step's time times 1 +- up to this (a fixed sequence) */
    int ramp;            /* steps over which E grows from E / ramp to E (0: none) */
    int faster;          /* steps over which every rate grows by 30% a step (0: none) */
} load;

static uint64_t lcg = 12345;

static double jitter(double amount)
{
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return 1.0 + amount * ((double)(lcg >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static void step_of(const load *l, int64_t v, int step, uint64_t *events, double *seconds)
{
    double e = l->e;
    if (l->ramp > 0 && step < l->ramp)
        e *= (double)(step + 1) / (double)l->ramp;
    double ev = (double)v * e;
    *events = (uint64_t)ev;
    *seconds = (l->a + ev * l->c * (1.0 + (double)v / l->k)) * jitter(l->noise);
    *seconds /= pow(1.3, step < l->faster ? step : l->faster);
}

static double rate_of(const load *l, int64_t v)
{
    double ev = (double)v * l->e;
    return ev / (l->a + ev * l->c * (1.0 + (double)v / l->k));
}

static int best_rung(const granularity *g, const load *l)
{
    int best = 0;
    for (int i = 1; i < g->n_rungs; i++)
        if (rate_of(l, g->value[i]) > rate_of(l, g->value[best]))
            best = i;
    return best;
}

/* Runs STEPS steps under L (L2 from step SWITCH on, when not NULL); the run's events per
 * second over all of them into *RATE. */
static void run(granularity *g, const load *l, const load *l2, int sw, int steps, double *rate)
{
    double ev_all = 0, s_all = 0;
    for (int i = 0; i < steps; i++) {
        uint64_t ev;
        double s;
        step_of(l2 && i >= sw ? l2 : l, gran_value(g), i, &ev, &s);
        ev_all += (double)ev;
        s_all += s;
        gran_step(g, ev, s);
    }
    *rate = ev_all / s_all;
}

static void test_ladder(void)
{
    granularity g;
    CHECK(gran_init(&g, 1, 600000, 1000, 0) == 0);
    static const int64_t want[] = {1, 3, 7, 15, 31, 62, 125, 250, 500, 1000, 2000, 4000, 8000,
                                   16000, 32000, 64000, 128000, 256000, 512000, 600000};
    CHECK_I64(g.n_rungs, (int64_t)(sizeof want / sizeof want[0]));
    for (int i = 0; i < g.n_rungs && i < (int)(sizeof want / sizeof want[0]); i++)
        CHECK_I64(g.value[i], want[i]);
    CHECK_I64(gran_value(&g), 1000);
    gran_free(&g);
    /* one value: fixed, never moved, whatever it measures */
    CHECK(gran_init(&g, 5, 5, 5, 0) == 0);
    CHECK(g.phase == GRAN_FIXED);
    for (int i = 0; i < 100; i++)
        CHECK(gran_step(&g, 1000, 0.01) == 0);
    CHECK_I64(gran_value(&g), 5);
    gran_free(&g);
    /* a start outside the range is brought into it */
    CHECK(gran_init(&g, 1, 100, 1000, 0) == 0);
    CHECK_I64(gran_value(&g), 100);
    gran_free(&g);
}

static void test_finds_best(const char *what, const load *l, int steps)
{
    granularity g;
    CHECK(gran_init(&g, 1, 1000000, 1000, 0) == 0);
    int best = best_rung(&g, l);
    double rate;
    run(&g, l, NULL, 0, steps, &rate);
    double eff = rate / rate_of(l, g.value[best]);
    printf("%s: best %lld, chosen %lld, %.4f of the best's rate (%llu probes, %llu moves)\n",
           what, (long long)g.value[best], (long long)gran_value(&g), eff,
           (unsigned long long)g.probes, (unsigned long long)g.moves);
    if (l->noise == 0)
        CHECK_I64(gran_value(&g), g.value[best]);
    else /* within a rung of it */
        CHECK(g.base >= best - 1 && g.base <= best + 1);
    CHECK(eff >= 0.95);
    gran_free(&g);
}

static void test_follows(void)
{
    /* the best moves from 8000 to about 250 halfway */
    load before = {1e-3, 100, 1e-8, 64000, 0, 0, 0}, after = {1e-3, 100, 1e-8, 62.5, 0, 0, 0};
    granularity g;
    CHECK(gran_init(&g, 1, 1000000, 1000, 0) == 0);
    double rate;
    run(&g, &before, &after, 1500, 3000, &rate);
    int best = best_rung(&g, &after);
    printf("follows: best after the change %lld, chosen %lld\n", (long long)g.value[best],
           (long long)gran_value(&g));
    CHECK_I64(g.value[g.base], g.value[best]);
    gran_free(&g);
}

/* The start is the best, and every rate grows by 30% a step for a while (a run's start,
 * whose events per window grow): a probe measured after A would look better than A for the
 * growth alone; measured between two periods of A, it does not. (Steps of 1.1 s: no ramp.) */
static void test_growth_at_best(void)
{
    load growth = {0.5, 100, 1e-6, 200, 0, 0, 20};
    granularity g;
    CHECK(gran_init(&g, 1, 1000000, 1000, 0) == 0);
    CHECK_I64(g.value[best_rung(&g, &growth)], 1000);
    double rate;
    run(&g, &growth, NULL, 0, 60, &rate);
    printf("growth at the best: chosen %lld (%llu probes, %llu moves)\n",
           (long long)gran_value(&g), (unsigned long long)g.probes, (unsigned long long)g.moves);
    CHECK_U64(g.moves, 0);
    CHECK_I64(g.value[g.base], 1000);
    gran_free(&g);
}

/* A plateau (Kademlia on a GPU: a fixed cost per launch, then the same cost per window
 * whatever the launch's size): the ramp's second step lasts about GRAN_RAMP_S, and no later
 * step is let last more than GRAN_STEP_MAX_S. */
static void test_plateau(void)
{
    granularity g;
    CHECK(gran_init(&g, 1, 1000000, 1000, 0) == 0);
    double longest = 0;
    int64_t second = 0;
    for (int i = 0; i < 300; i++) {
        int64_t v = gran_value(&g);
        double s = 0.002 + 4e-6 * (double)v;
        if (i == 1)
            second = v;
        if (i > 0 && s > longest)
            longest = s;
        gran_step(&g, (uint64_t)v * 100, s);
    }
    printf("plateau: second step %lld windows, longest step %.3f s, chosen %lld\n",
           (long long)second, longest, (long long)gran_value(&g));
    CHECK(second >= 128000);
    CHECK(longest <= GRAN_STEP_MAX_S * 1.01);
    CHECK(gran_value(&g) >= 128000); /* beyond, less than GRAN_MARGIN to gain */
    gran_free(&g);
}

/* A proportional knob (model_knob.proportional) on a run of ALL units whose steps cost a fixed
 * A seconds plus C a unit (Kademlia's windows per launch on a GPU): a first step 16 times
 * shorter than the start, then steps aimed at GRAN_PROPORTIONAL_STEP_S, none longer; a run
 * that fits in one such step ends in two or three, and the whole run takes at most 5% more
 * than with the best fixed value (every unit in one step). */
static void test_proportional(const char *what, int64_t all, double a, double c, int steps_want)
{
    granularity g;
    CHECK(gran_init(&g, 1, all, 1000, 1) == 0);
    CHECK_I64(gran_value(&g), 62);
    CHECK_I64(g.start, 62);
    double total = 0, longest = 0;
    int steps = 0;
    for (int64_t done = 0; done < all; steps++) {
        int64_t v = gran_value(&g) < all - done ? gran_value(&g) : all - done;
        double s = a + c * (double)v;
        total += s;
        longest = s > longest ? s : longest;
        done += v;
        gran_step(&g, (uint64_t)v * 100, s);
    }
    double best = a + c * (double)all;
    printf("proportional, %s: %d steps, longest %.3f s, %.4f of the best's rate\n", what,
           steps, longest, best / total);
    if (steps_want > 0)
        CHECK_I64(steps, steps_want);
    CHECK(longest <= GRAN_PROPORTIONAL_STEP_S * 1.01);
    CHECK(best / total >= 0.95);
    gran_free(&g);
}

static void test_empty_steps(void)
{
    granularity g;
    CHECK(gran_init(&g, 1, 1000, 10, 0) == 0);
    CHECK(gran_step(&g, 0, 3.0) == 0); /* a long step: no ramp */
    for (int i = 0; i < 50; i++)       /* no events: no period ends, nothing moves */
        CHECK(gran_step(&g, 0, 0.5) == 0);
    CHECK_U64(g.periods, 0);
    CHECK_I64(gran_value(&g), 10);
    /* the first period with events, then a probe of the next value up */
    CHECK(gran_step(&g, 100, 0.01) == 1);
    CHECK_U64(g.periods, 1);
    CHECK_I64(gran_value(&g), 20);
    gran_free(&g);
}

int main(void)
{
    test_ladder();
    load steady = {1e-3, 100, 1e-8, 64000, 0, 0, 0};
    test_finds_best("steady, best 8000", &steady, 8000);
    load small = {1e-3, 100, 1e-8, 4, 0, 0, 0};
    test_finds_best("steady, best about 63", &small, 40000);
    load noisy = {1e-3, 100, 1e-8, 64000, 0.02, 0, 0};
    test_finds_best("2% noise", &noisy, 8000);
    load ramp = {1e-3, 100, 1e-8, 64000, 0, 200, 0};
    test_finds_best("a load ramping up over 200 steps", &ramp, 8000);
    test_follows();
    test_growth_at_best();
    test_plateau();
    /* 10 000 windows in 0.03 s and in 1 s; 600 000 in 3 s; a long run: 10^7 in 100 s */
    test_proportional("0.03 s", 10000, 5e-4, 2.95e-6, 2);
    test_proportional("1 s", 10000, 2e-3, 1e-4, 2);
    test_proportional("3 s", 600000, 2e-3, 5e-6, 3);
    test_proportional("100 s", 10000000, 2e-3, 1e-5, 0);
    test_empty_steps();
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
