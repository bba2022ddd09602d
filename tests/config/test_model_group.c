/* A model's option group is all the configuration needs of it: a test-only model, "toy",
 * registered beside the model table, gets its section parsed, checked, dumped, refused in a
 * scenario of another model, typo hints, -s and a part of the key reference, with no line of
 * host/config naming it. Its values are its own struct, kept in a toy scenario's model values
 * like any model's. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"
#include "config/config_internal.h"

enum { TOY_RATE, TOY_DELAY, TOY_COUNT };

typedef struct toy_values {
    int64_t rate;
    int64_t delay_ns;
} toy_values;

static const toy_values *toy_values_of(const scenario *sc)
{
    return (const toy_values *)(const void *)sc->model_values.bytes;
}

static const config_key toy_keys[TOY_COUNT] = {
    [TOY_RATE] = {"toy", "rate", KT_INT, offsetof(toy_values, rate), 1, 1000, 0, "events", NULL,
                  "10", "Events per second."},
    [TOY_DELAY] = {"toy", "delay", KT_TIME_NS, offsetof(toy_values, delay_ns), 0,
                   KEY_TIME_MAX, KEY_MIN_OPEN, NULL, NULL, "1", "Delay of each event."},
};

static int toy_first_key;
static const model_config toy_config;

/* A rule between keys, with the usual message naming where the value was set. */
static int toy_check(load_ctx *ctx)
{
    char where[400];
    int keys[] = {toy_first_key + TOY_RATE, toy_first_key + TOY_DELAY};
    const toy_values *v = config_values(ctx, &toy_config);
    if (v->rate > 500 && v->delay_ns > 1000000000)
        return cn_fail(ctx->err, CN_ERR_INPUT,
                       "%s: [toy] rate = %lld: expected at most 500 with a delay above 1 s",
                       config_where_latest(ctx, keys, 2, where, sizeof where),
                       (long long)v->rate);
    return 0;
}

static const model_config toy_config = {
    .model = "toy",
    .summary = "a test's model",
    .keys = toy_keys,
    .n_keys = TOY_COUNT,
    .first_key = &toy_first_key,
    .values_size = sizeof(toy_values),
    .check = toy_check,
    .reference = "`model = toy`: a test's model.\n\n",
};

/* The message of loading TEXT with one override OV (NULL: none), "" when it loads. */
static const char *load(const char *text, const char *ov, scenario *sc)
{
    static cn_error err;
    config_override o = {ov, NULL};
    memset(&err, 0, sizeof err);
    return config_load_string("toy.ini", text, ov ? &o : NULL, ov ? 1 : 0, sc, &err) == 0
               ? ""
               : err.msg;
}

#define CHECK_STR(got, want)                                                                  \
    check_at(__FILE__, __LINE__, strcmp((got), (want)) == 0, "%s = \"%s\", expected \"%s\"",    \
             #got, (got), (want))

int main(void)
{
    cn_error reg_err = {0};
    CHECK(config_register_model(&toy_config, &reg_err) == 0);
    scenario *sc = calloc(1, sizeof *sc);
    if (!sc)
        return 1;
    const char *toy = "[simulation]\nmodel = toy\n[toy]\nrate = 7\n";

    CHECK_STR(load(toy, NULL, sc), "");
    CHECK_I64(toy_values_of(sc)->rate, 7);
    CHECK_I64(toy_values_of(sc)->delay_ns, 1000000000);
    CHECK_STR(load(toy, "toy.delay=0.5", sc), "");
    CHECK_I64(toy_values_of(sc)->delay_ns, 500000000);

    char *dump = config_dump_string(sc);
    CHECK(dump && strstr(dump, "\n[simulation]\nmodel = toy\n") != NULL);
    CHECK(dump && strstr(dump, "\n[toy]\nrate = 7\ndelay = 0.5\n") != NULL);
    CHECK(dump && strstr(dump, "[topology]") == NULL && strstr(dump, "[phold]") == NULL);
    CHECK(dump && strstr(dump, "\n[partition]\n") != NULL);
    scenario *again = calloc(1, sizeof *again);
    CHECK(again && strcmp(load(dump, NULL, again), "") == 0);
    CHECK(again && memcmp(again, sc, sizeof *sc) == 0);
    free(again);
    free(dump);

    CHECK_STR(load("[simulation]\nmodel = toy\n[toy]\nrat = 3\n", NULL, sc),
              "toy.ini:4: [toy] unknown key 'rat'; did you mean 'rate'?");
    CHECK_STR(load("[simulation]\nmodel = toy\n[toi]\nrate = 3\n", NULL, sc),
              "toy.ini:4: unknown section [toi] (key 'rate'); did you mean [toy]?");
    CHECK_STR(load(toy, "toy.rate=2000", sc),
              "-s argument 'toy.rate=2000': [toy] rate = 2000: expected an integer in [1, 1000] "
              "(events)");
    CHECK_STR(load(toy, "toy.delay=2", sc), "");
    CHECK_STR(load("[simulation]\nmodel = toy\n[toy]\nrate = 600\ndelay = 2\n", NULL, sc),
              "toy.ini:5: [toy] rate = 600: expected at most 500 with a delay above 1 s");
    CHECK_STR(load("[toy]\nrate = 3\n[flood]\nttl = 2\n", NULL, sc),
              "toy.ini:2: [toy] rate: section [toy] belongs to the toy model, but this "
              "scenario's model is flood");
    CHECK_STR(load(toy, "flood.ttl=2", sc),
              "-s argument 'flood.ttl=2': [flood] ttl: section [flood] belongs to the flood "
              "model, but this scenario's model is toy");
    CHECK_STR(load(toy, "simulation.model=tyo", sc),
              "-s argument 'simulation.model=tyo': [simulation] model = tyo: expected one of: "
              "flood, phold, kademlia, toy");

    char *ref = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&ref, &len);
    if (f) {
        config_print_reference(f);
        fclose(f);
    }
    CHECK(ref && strstr(ref, "\n## Model toy\n\n`model = toy`: a test's model.\n\n| Section") !=
                     NULL);
    CHECK(ref && strstr(ref, "| toy | rate | integer | [1, 1000] events | 10 | Events per "
                             "second. |\n") != NULL);
    CHECK(ref && strstr(ref, "or toy (a test's model). A scenario may set") != NULL);
    free(ref);

    /* the model's values reach the scenario, and nothing else does: the rest of the block is
     * zero, whatever the loads before (a flood scenario fills much more of it) */
    CHECK_STR(load("[topology]\nrows = 3\n", NULL, sc), "");
    CHECK_STR(load(toy, NULL, sc), "");
    CHECK_I64(toy_values_of(sc)->rate, 7);
    size_t nonzero = 0;
    for (size_t i = sizeof(toy_values); i < sizeof sc->model_values.bytes; i++)
        nonzero += sc->model_values.bytes[i] != 0;
    CHECK(nonzero == 0);

    /* a group whose values do not fit a scenario is refused when it is registered, and a
     * scenario cannot name it */
    static const model_config big_config = {
        .model = "big",
        .summary = "too large",
        .keys = toy_keys,
        .n_keys = 0,
        .first_key = &toy_first_key,
        .values_size = SCENARIO_MODEL_BYTES + 1,
        .reference = "",
    };
    cn_error big_err = {0};
    char want[400];
    snprintf(want, sizeof want,
             "model big: its values take %d bytes, more than the %d bytes a scenario keeps for "
             "its model's values (SCENARIO_MODEL_BYTES, host/config/config.h); expected a "
             "smaller values struct or a larger SCENARIO_MODEL_BYTES",
             SCENARIO_MODEL_BYTES + 1, SCENARIO_MODEL_BYTES);
    CHECK(config_register_model(&big_config, &big_err) == CN_ERR_RUNTIME);
    CHECK_STR(big_err.msg, want);
    CHECK_STR(load(toy, "simulation.model=big", sc),
              "-s argument 'simulation.model=big': [simulation] model = big: expected one of: "
              "flood, phold, kademlia, toy");
    free(sc);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
