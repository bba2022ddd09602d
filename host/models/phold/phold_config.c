/* The PHOLD model's option group: [phold] (docs/models/phold.md), its rules between keys and
 * its part of docs/keys.md. Its values are a phold_values (phold_values.h), kept in a phold
 * scenario's model values, where the model and its oracle read them (phold_values_of). Help
 * texts end up in a Markdown table: no '|' in them. */
#include <stddef.h>
#include <stdio.h>

#include "common/philox.h"
#include "config/config_internal.h"
#include "models/phold/phold.h"
#include "models/phold/phold_values.h"

#define FIELD(f) offsetof(phold_values, f)
_Static_assert(sizeof(phold_values) <= SCENARIO_MODEL_BYTES,
               "PHOLD's values must fit a scenario's model values (host/config/config.h)");

enum phold_config_key {
    PK_CFG_LPS,
    PK_CFG_POPULATION,
    PK_CFG_REMOTE,
    PK_CFG_LOOKAHEAD,
    PK_CFG_MEAN,
    PK_CFG_PER_READ,
    PK_CFG_COUNT
};

static const config_key phold_keys[PK_CFG_COUNT] = {
    [PK_CFG_LPS] = {"phold", "lps", KT_INT, FIELD(lps), 1, PHOLD_MAX_LPS, 0, "LPs", NULL,
                     "1000",
                     "Number N of logical processes (LPs), numbered 0 to N - 1. The model's "
                     "definition gives no default; 1000 is clnetsim's."},
    [PK_CFG_POPULATION] = {"phold", "population", KT_INT, FIELD(population), 1,
                            PHOLD_MAX_POPULATION, 0, "events per LP", NULL, "16",
                            "Events E that each LP holds at the start. Each executed event "
                            "creates exactly one new event, so N x E events stay pending for "
                            "the whole run."},
    [PK_CFG_REMOTE] = {"phold", "remote", KT_PROBABILITY, FIELD(remote), 0, 0, 0, NULL,
                        NULL, "0.1",
                        "Probability r that the new event of an executed event goes to another "
                        "LP, drawn uniformly among the N - 1 others; otherwise it stays on the "
                        "LP that executed it (always, when N = 1)."},
    [PK_CFG_LOOKAHEAD] = {"phold", "lookahead", KT_TIME_NS, FIELD(lookahead_ns), 0,
                           KEY_TIME_MAX, KEY_MIN_OPEN, NULL, NULL, "0.1",
                           "Fixed part A of every delay: a new event lands at least A after the "
                           "event that created it (the first events at A plus a draw). It is "
                           "the lookahead: the window length of the parallel engine."},
    [PK_CFG_MEAN] = {"phold", "mean", KT_TIME_NS, FIELD(mean_ns), 0, KEY_TIME_MAX, 0,
                      NULL, NULL, "0.9",
                      "Mean M of the exponential part of every delay, added to lookahead: a "
                      "draw from a table of 65536 quantiles of the exponential law (at most "
                      "about 11.8 x M). 0: every delay is exactly lookahead. Exact rules: "
                      "docs/models/phold.md."},
    [PK_CFG_PER_READ] = {"phold", "windows_per_read", KT_INT, FIELD(windows_per_read), 0,
                          PHOLD_MAX_PER_READ, 0, "windows", NULL, "0",
                          "Windows that a device runs before the host reads its state back: "
                          "between them the device itself finds the next window's begin, the "
                          "least pending time (the results are the same for every value). "
                          "0: chosen by the run as it goes, from the events per second it "
                          "measures (adaptive granularity, starting at 16). Runs on one "
                          "device in one process only: with several devices or MPI ranks "
                          "every window ends on the host."},
};

/* Their ids in the registry (model_config.first_key). */
static int first_key;
#define K_PHOLD_LPS (first_key + PK_CFG_LPS)
#define K_PHOLD_POPULATION (first_key + PK_CFG_POPULATION)
#define K_PHOLD_LOOKAHEAD (first_key + PK_CFG_LOOKAHEAD)
#define K_PHOLD_MEAN (first_key + PK_CFG_MEAN)

/* Every executed event has t < duration; its new event lands at most lookahead plus the
 * largest exponential delay later, and the table's largest entry, -M ln(0.5 / 65536), is
 * below 12 M; a window ends one lookahead after its least time. So no time a phold run
 * computes passes duration + 2 x lookahead + 12 x mean, which must stay within the clock's
 * limit (config.h, SCENARIO_MAX_TIME_NS). */
#define PHOLD_DELAY_MEANS 12

/* WHERE(K_A, K_B, ...): where the one of those keys set last was set (host/config/checks.c). */
#define WHERE(...) CONFIG_WHERE(ctx, where, __VA_ARGS__)

static int check(load_ctx *ctx)
{
    const scenario *sc = &ctx->sc;
    const phold_values *p = config_values(ctx, &phold_config);
    char where[400], a[64], b[64], c[64], d[64];
    if (sc->duration_ns <= 0)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [simulation] duration: the phold model needs a duration > 0: its "
                       "events never run out",
                       WHERE(K_DURATION, K_MODEL));
    /* Both follow from the keys' ranges (lps < 2^31, population <= 2^20); kept here so that
     * widening a range cannot let the event count overflow or LP ids pass 32 bits. */
    int64_t events = 0;
    if (__builtin_mul_overflow(p->lps, p->population, &events) ||
        (uint64_t)p->lps > UINT32_MAX)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [phold] lps = %lld with population = %lld: expected at most "
                       "4294967295 LPs and lps x population within int64",
                       WHERE(K_PHOLD_LPS, K_PHOLD_POPULATION), (long long)p->lps,
                       (long long)p->population);
    typedef unsigned __int128 wide;
    wide end = (wide)sc->duration_ns + 2 * (wide)p->lookahead_ns +
               PHOLD_DELAY_MEANS * (wide)p->mean_ns;
    if (end > (wide)SCENARIO_MAX_TIME_NS) {
        config_format_loaded(ctx, K_DURATION, a, sizeof a);
        config_format_loaded(ctx, K_PHOLD_LOOKAHEAD, b, sizeof b);
        config_format_loaded(ctx, K_PHOLD_MEAN, c, sizeof c);
        format_scaled(SCENARIO_MAX_TIME_NS, 9, d, sizeof d);
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [simulation] duration = %s s with [phold] lookahead = %s s and mean "
                       "= %s s: simulated time could pass %s s (2^62 ns, about 146 years), the "
                       "limit of the simulation clock; expected duration + 2 x lookahead + %d x "
                       "mean <= %s s",
                       WHERE(K_DURATION, K_PHOLD_LOOKAHEAD, K_PHOLD_MEAN), a, b, c, d,
                       PHOLD_DELAY_MEANS, d);
    }
    return 0;
}

static void derive(void *values)
{
    phold_values *p = values;
    p->remote_threshold = philox_threshold(p->remote);
}

const model_config phold_config = {
    .model = "phold",
    .summary = "the PHOLD benchmark of parallel simulators: logical processes passing events, "
               "docs/models/phold.md",
    .keys = phold_keys,
    .n_keys = PK_CFG_COUNT,
    .first_key = &first_key,
    .values_size = sizeof(phold_values),
    .check = check,
    .derive = derive,
    .reference = "`model = phold`: the PHOLD benchmark (docs/models/phold.md). Its events never "
                 "run\nout, so it needs `[simulation] duration` > 0, the end time of the run.\n\n",
};
