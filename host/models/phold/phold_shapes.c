/* PHOLD's cases of the kernel-shape self-test and its tuning scenarios (engine.h,
 * model_shapes; host/bench/shapes.c and tune.c run them).
 *
 * Every window runs phold.execute (phold_execute_cpu on CPU devices, phold_execute on the
 * others: the case runs whichever the device runs, under the one profile name), phold.deliver
 * (the exchange's delivery of remote events into slots) and phold.min; phold.start fills the
 * LPs at the start and phold.results reduces the statistics at the end. phold.regrow runs only
 * when an LP's slots overflow, which needs more than max(2E, E + 8) events pending at one LP:
 * no small scenario reaches it (tests/phold does, through CLNETSIM_TEST_PHOLD_SLOTS). The
 * cases are small (a few milliseconds of reference and run on PoCL), since the test runs at
 * each size on a device's first use. */
#include <stddef.h>

#include "models/phold/phold.h"

static const model_shape_case cases[] = {
    /* mean 0: LPs hold many events of one time, only the key order (t, origin, serial)
     * decides which runs first; some successors stay at their LP, others leave it */
    {"64 LPs, ties (mean 0), remote 0.5",
     "[simulation]\nmodel = phold\nseed = 31\nduration = 0.6\n[phold]\nlps = 64\n"
     "population = 3\nremote = 0.5\nlookahead = 0.1\nmean = 0\n",
     0, NULL, NULL},
    /* an odd count of LPs in 3 partitions (a short last one, groups left part empty), every
     * successor remote: the exchange between partitions in every window */
    {"67 LPs in 3 partitions, only remote events",
     "[simulation]\nmodel = phold\nseed = 32\nduration = 0.8\n[phold]\nlps = 67\n"
     "population = 2\nremote = 1\nlookahead = 0.05\nmean = 0.2\n[partition]\ncount = 3\n",
     0, NULL, NULL},
};

static const char *const families[] = {"phold", NULL};

/* Enough LPs that every size up to 1024 has several groups to run, in one partition and in
 * four (the exchange), and short: the search runs each at every size. */
static const char *const tune_ini[] = {
    "[simulation]\nmodel = phold\nseed = 1\nduration = 0.2\n[phold]\nlps = 2048\n"
    "population = 2\nremote = 0.1\nlookahead = 0.1\nmean = 0.2\n",
    "[simulation]\nmodel = phold\nseed = 2\nduration = 0.2\n[phold]\nlps = 2048\n"
    "population = 2\nremote = 0.5\nlookahead = 0.1\nmean = 0.2\n[partition]\ncount = 4\n",
};

const model_shapes phold_shapes = {
    .families = families,
    .cases = cases,
    .n_cases = (int)(sizeof cases / sizeof cases[0]),
    .tune_ini = tune_ini,
    .n_tune = (int)(sizeof tune_ini / sizeof tune_ini[0]),
};
