/* host/bench's comparisons, without a device: selftest_phold_differs (a PHOLD run against the
 * PHOLD oracle, member by member over the run's declared metrics), bench_contract_diff on
 * declared metrics, and what a PHOLD case's size counts. Each difference must be reported,
 * naming the member and both values. The generic path of declared metrics: how partial
 * values combine, the flood's members, table and "contract" list in the JSON, and bench's and
 * selftest's comparisons of flood runs through the declaration. */
#include <stdio.h>
#include <string.h>

#include "../common/check.h"
#include "bench/bench.h"
#include "models/flood/flood.h"
#include "models/flood/flood_metrics.h"
#include "models/phold/phold.h"
#include "oracle/flood_oracle.h"
#include "oracle/phold_oracle.h"

#define CHECK_TEXT(got, want)                                                                  \
    check_at(__FILE__, __LINE__, strcmp((got), (want)) == 0, "'%s', expected '%s'", (got), (want))

static const char *const phold_names[] = {"lps",           "population",      "events",
                                          "remote",        "time_sum_ns",     "lp_weighted_sum",
                                          "lp_events_min", "lp_events_max",   "last_time_ns"};

/* A run as the device would report it when right: model, seed and the declared metrics,
 * with the oracle's values, in the model's order. */
static void run_like(const phold_oracle_params *p, const phold_oracle_result *o, run_results *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->model, sizeof r->model, "phold");
    r->seed = p->seed;
    const uint64_t v[] = {(uint64_t)p->lps, (uint64_t)p->population, (uint64_t)o->events,
                          (uint64_t)o->remote, o->time_sum_ns, o->lp_weighted_sum,
                          (uint64_t)o->lp_events_min, (uint64_t)o->lp_events_max,
                          (uint64_t)o->last_time_ns};
    for (int i = 0; i < 9; i++)
        results_add_metric(r, phold_names[i], v[i]);
    r->model_events = (uint64_t)o->events;
}

/* selftest's comparison of a run with its model's reference (selftest_reference_differs),
 * the reference made from the oracles' results by each model's own translation. */
static int selftest_phold_differs(const run_results *r, const phold_oracle_params *p,
                                  const phold_oracle_result *o, char *buf, size_t cap)
{
    static run_results want;
    memset(&want, 0, sizeof want);
    phold_reference_results(p, o, &want);
    return selftest_reference_differs(r, &want, buf, cap);
}

static int selftest_differs(const run_results *r, const flood_oracle_result *o, char *buf,
                            size_t cap)
{
    static run_results want;
    memset(&want, 0, sizeof want);
    flood_reference_results(o, &want);
    return selftest_reference_differs(r, &want, buf, cap);
}

static void test_selftest_phold(void)
{
    /* ties included: mean 0, every delay is the lookahead */
    const phold_oracle_params p = {7, 40, 3, 1u << 31, 100000000, 0, 1000000000,
                                   PHOLD_QUEUE_AUTO};
    phold_oracle_result o;
    char err[256] = "", buf[256] = "";
    CHECK(phold_oracle_run(&p, &o, err, sizeof err) == PHOLD_ORACLE_OK);
    /* every delay is the lookahead: each of the 40 x 3 chains executes at 0.1 s, 0.2 s, ...
     * 0.9 s, nine times before the end at 1 s */
    CHECK_I64(o.events, 40 * 3 * 9);
    static run_results r;
    run_like(&p, &o, &r);
    CHECK(selftest_phold_differs(&r, &p, &o, buf, sizeof buf) == 0);

    /* one executed event too many */
    r.metrics[2].value += 1;
    CHECK(selftest_phold_differs(&r, &p, &o, buf, sizeof buf) == 1);
    CHECK_TEXT(buf, "events 1081, reference 1080");

    /* the last member off by one: each member is compared, not only the first ones */
    run_like(&p, &o, &r);
    r.metrics[8].value -= 1;
    CHECK(selftest_phold_differs(&r, &p, &o, buf, sizeof buf) == 1);
    char want[128];
    snprintf(want, sizeof want, "last_time_ns %lld, reference %lld",
             (long long)o.last_time_ns - 1, (long long)o.last_time_ns);
    CHECK_TEXT(buf, want);

    /* a member the oracle does not know, and an oracle member the run does not declare */
    run_like(&p, &o, &r);
    r.metrics[4].name = "time_total_ns";
    CHECK(selftest_phold_differs(&r, &p, &o, buf, sizeof buf) == 1);
    CHECK_TEXT(buf, "member time_total_ns has no reference value");
    run_like(&p, &o, &r);
    r.n_metrics--;
    CHECK(selftest_phold_differs(&r, &p, &o, buf, sizeof buf) == 1);
    CHECK_TEXT(buf, "member last_time_ns of the reference is missing from the run");

    /* model, seed, and a run without declared members */
    run_like(&p, &o, &r);
    r.seed = 8;
    CHECK(selftest_phold_differs(&r, &p, &o, buf, sizeof buf) == 1);
    CHECK_TEXT(buf, "seed 8, reference 7");
    run_like(&p, &o, &r);
    snprintf(r.model, sizeof r.model, "flood");
    CHECK(selftest_phold_differs(&r, &p, &o, buf, sizeof buf) == 1);
    CHECK_TEXT(buf, "model flood, reference phold");
    run_like(&p, &o, &r);
    r.n_metrics = 0;
    CHECK(selftest_phold_differs(&r, &p, &o, buf, sizeof buf) == 1);
    CHECK_TEXT(buf, "the run declared no contract members");

    /* the oracle of other parameters: the run no longer matches it */
    phold_oracle_params q = p;
    q.remote_threshold = 0;
    phold_oracle_result oq;
    CHECK(phold_oracle_run(&q, &oq, err, sizeof err) == PHOLD_ORACLE_OK);
    run_like(&p, &o, &r);
    CHECK(selftest_phold_differs(&r, &q, &oq, buf, sizeof buf) == 1);
    snprintf(want, sizeof want, "remote %lld, reference 0", (long long)o.remote);
    CHECK_TEXT(buf, want);
}

static void test_bench_metrics(void)
{
    const phold_oracle_params p = {1, 30, 2, 1u << 30, 50000000, 300000000, 2000000000,
                                   PHOLD_QUEUE_AUTO};
    phold_oracle_result o;
    char err[256] = "", buf[256] = "";
    CHECK(phold_oracle_run(&p, &o, err, sizeof err) == PHOLD_ORACLE_OK);
    static run_results a, b;
    run_like(&p, &o, &a);
    run_like(&p, &o, &b);
    /* the flood's members are not the contract of a model that declares its own */
    b.end_time_ns = 5;
    b.windows = 99;
    CHECK(bench_contract_diff(&a, &b, buf, sizeof buf) == 0);
    b.metrics[3].value += 2;
    CHECK(bench_contract_diff(&a, &b, buf, sizeof buf) == 1);
    char want[128];
    snprintf(want, sizeof want, "remote: %lld vs %lld", (long long)o.remote,
             (long long)o.remote + 2);
    CHECK_TEXT(buf, want);
    run_like(&p, &o, &b);
    b.metrics[8].value += 1;
    CHECK(bench_contract_diff(&a, &b, buf, sizeof buf) == 1);
    snprintf(want, sizeof want, "last_time_ns: %lld vs %lld", (long long)o.last_time_ns,
             (long long)o.last_time_ns + 1);
    CHECK_TEXT(buf, want);
    run_like(&p, &o, &b);
    b.metrics[5].name = "weighted";
    CHECK(bench_contract_diff(&a, &b, buf, sizeof buf) == 1);
    CHECK_TEXT(buf, "contract member 6: lp_weighted_sum vs weighted");
    run_like(&p, &o, &b);
    b.n_metrics--;
    CHECK(bench_contract_diff(&a, &b, buf, sizeof buf) == 1);
    CHECK_TEXT(buf, "9 vs 8 contract members");
    run_like(&p, &o, &b);
    b.seed = 2;
    CHECK(bench_contract_diff(&a, &b, buf, sizeof buf) == 1);
    CHECK_TEXT(buf, "seed: 1 vs 2");
    /* the events of events per second: the model's executed events */
    CHECK_U64(results_events(&a), (uint64_t)o.events);
}

static void test_phold_sizes(void)
{
    static scenario sc;
    cn_error err = {0};
    const char *ini = "[simulation]\nmodel = phold\nduration = 1\n[phold]\nlps = 1000\n"
                      "population = 16\n";
    CHECK(config_load_string("t.ini", ini, NULL, 0, &sc, &err) == 0);
    int64_t population = -1;
    CHECK_I64(bench_case_size(&sc, &population), 1000);
    CHECK_I64(population, 16);
    char out[BENCH_MAX_OVERRIDES][96];
    CHECK_I64(bench_size_overrides(&sc, 16384, out, BENCH_MAX_OVERRIDES, &err), 1);
    CHECK_TEXT(out[0], "phold.lps=16384");
    /* bytes per LP and per pending event */
    static bench_case c;
    c.nodes = 1000;
    c.population = 16;
    static bench_row row;
    row.device_bytes = 64000;
    CHECK_NEAR(bench_bytes_per_lp(&c, &row), 64.0, 0);
    CHECK_NEAR(bench_bytes_per_event(&c, &row), 4.0, 0);
    c.population = 0; /* the flood: no pending population */
    CHECK_NEAR(bench_bytes_per_event(&c, &row), 0.0, 0);
}

/* Each model answers selftest and bench through model_ops.bench: the reference of a scenario
 * is its oracle's results as the model's members, and a case's size and --sizes overrides
 * are the model's, found by the scenario's model name alone. */
static void test_model_bench(void)
{
    static scenario sc;
    static run_results want;
    cn_error err = {0};
    char why[256] = "", buf[256] = "";
    const char *ini = "[simulation]\nmodel = phold\nseed = 5\nduration = 1\n[phold]\nlps = 20\n"
                      "population = 2\nlookahead = 0.1\nmean = 0.2\n";
    CHECK(config_load_string("t.ini", ini, NULL, 0, &sc, &err) == 0);
    const model_ops *ops = model_find(sc.model);
    CHECK(ops && ops->bench && ops->bench->reference);
    if (!ops || !ops->bench || !ops->bench->reference)
        return;
    CHECK(ops->bench->reference(&sc, &want, why, sizeof why) == 0);
    phold_oracle_params p;
    phold_oracle_result o;
    phold_oracle_params_from(&sc, &p);
    CHECK(phold_oracle_run(&p, &o, why, sizeof why) == PHOLD_ORACLE_OK);
    static run_results r;
    run_like(&p, &o, &r);
    CHECK(selftest_reference_differs(&r, &want, buf, sizeof buf) == 0);
    CHECK_TEXT(want.model, "phold");
    CHECK_U64(results_value(&want, "events"), (uint64_t)o.events);
    /* an oracle that refuses the scenario: its sentence comes back */
    phold_values_edit(&sc)->lps = 0;
    memset(&want, 0, sizeof want);
    CHECK(ops->bench->reference(&sc, &want, why, sizeof why) == 1);
    CHECK(why[0] != '\0');

    /* the flood: a 30 x 40 grid counts 1200 nodes, no pending population; 2500 nodes make a
     * 50 x 50 grid */
    const char *grid = "[topology]\nplacement = grid\nrows = 30\ncols = 40\nspacing = 100\n"
                       "[connectivity]\nrange = 100\n[traffic]\npackets = 2\n";
    CHECK(config_load_string("g.ini", grid, NULL, 0, &sc, &err) == 0);
    int64_t population = -1;
    CHECK_I64(bench_case_size(&sc, &population), 1200);
    CHECK_I64(population, 0);
    char out[BENCH_MAX_OVERRIDES][96];
    CHECK_I64(bench_size_overrides(&sc, 2500, out, BENCH_MAX_OVERRIDES, &err), 3);
    CHECK_TEXT(out[0], "topology.rows=50");
    CHECK_TEXT(out[1], "topology.cols=50");
    CHECK_TEXT(out[2], "traffic.destination=-1");
    ops = model_find(sc.model);
    memset(&want, 0, sizeof want);
    CHECK(ops && ops->bench && ops->bench->reference(&sc, &want, why, sizeof why) == 0);
    CHECK_TEXT(want.model, "flood");
    CHECK_I64(results_i64(&want, "nodes"), 1200);
    CHECK_I64(results_i64(&want, "generated"), 2);
}

/* How partial values combine: sums (unsigned 64-bit ones modulo 2^64), least, greatest. */
static void test_metric_combine(void)
{
    const model_metric sum = {.name = "s", .kind = METRIC_I64};
    const model_metric sum_u64 = {.name = "u", .kind = METRIC_U64};
    const model_metric least = {.name = "m", .kind = METRIC_I64, .reduce = METRIC_MIN};
    const model_metric most = {.name = "x", .kind = METRIC_U64, .reduce = METRIC_MAX};
    CHECK_I64(metric_combine(&sum, 40, -2), 38);
    CHECK_I64(metric_combine(&least, 40, 7), 7);
    CHECK_I64(metric_combine(&least, 7, 40), 7);
    CHECK_I64(metric_combine(&least, -1, 3), -1);
    CHECK_I64(metric_combine(&most, 7, 40), 40);
    /* 2^64 - 1 + 2 wraps to 1; a 128-bit sum does not */
    CHECK(metric_combine(&sum_u64, (wide_int)UINT64_MAX, 2) == 1);
    const model_metric wide = {.name = "w", .kind = METRIC_WIDE};
    CHECK(metric_combine(&wide, (wide_int)UINT64_MAX, 2) == (wide_int)UINT64_MAX + 2);
    /* partials of four partitions, in two groupings: the same value */
    const wide_int part[] = {9, 3, 12, 5};
    wide_int a = part[0], b = part[3];
    for (int i = 1; i < 4; i++)
        a = metric_combine(&least, a, part[i]);
    for (int i = 2; i >= 0; i--)
        b = metric_combine(&least, part[i], b);
    CHECK_I64(a, 3);
    CHECK_I64(b, 3);
    CHECK_I64(metric_index(flood_metrics, FLOOD_N_METRICS, "receptions"), 5);
    CHECK_I64(metric_index(flood_metrics, FLOOD_N_METRICS, "flows"), -1);
}

/* The core's reduction of the partial values a model hands it (results_reduce): each metric
 * by its declared rule, a count past 2^63 - 1 refused with a sentence, a name the model did
 * not declare refused. */
static void test_results_reduce(void)
{
    static const model_metric list[] = {
        {.name = "count", .kind = METRIC_I64, .contract = 1},
        {.name = "least", .kind = METRIC_I64, .reduce = METRIC_MIN, .contract = 1},
        {.name = "last", .kind = METRIC_U64, .reduce = METRIC_MAX, .contract = 1},
        {.name = "sum64", .kind = METRIC_U64, .contract = 1},
        {.name = "wide", .kind = METRIC_WIDE, .contract = 1, .optional = 1},
    };
    static const metric_set set = {list, 5, NULL, NULL, NULL};
    static run_results r;
    memset(&r, 0, sizeof r);
    results_declare(&r, &set);
    cn_error err = {0};
    const wide_int parts[] = {9, 3, 12, 5};
    CHECK(results_reduce(&r, "count", parts, 4, &err) == 0);
    CHECK(results_reduce(&r, "least", parts, 4, &err) == 0);
    CHECK(results_reduce(&r, "last", parts, 4, &err) == 0);
    CHECK_I64(results_i64(&r, "count"), 29);
    CHECK_I64(results_i64(&r, "least"), 3);
    CHECK_I64(results_i64(&r, "last"), 12);
    /* modulo 2^64: (2^64 - 1) + 2 + 5 */
    const wide_int big[] = {(wide_int)UINT64_MAX, 2, 5};
    CHECK(results_reduce(&r, "sum64", big, 3, &err) == 0);
    CHECK(results_value(&r, "sum64") == 6);
    /* an optional member becomes present once reduced; 128 bits do not wrap */
    CHECK(results_find(&r, "wide") < 0);
    CHECK(results_reduce(&r, "wide", big, 3, &err) == 0);
    CHECK(results_value(&r, "wide") == (wide_int)UINT64_MAX + 7);
    /* a signed count beyond 2^63 - 1 */
    const wide_int huge[] = {INT64_MAX, 1};
    CHECK(results_reduce(&r, "count", huge, 2, &err) == CN_ERR_RUNTIME);
    CHECK_TEXT(err.msg, "the count counter reached 9223372036854775808, beyond 2^63 - 1: the "
                        "run's results cannot be reported");
    CHECK_I64(results_i64(&r, "count"), 29);
    cn_error e2 = {0};
    CHECK(results_reduce(&r, "counted", parts, 4, &e2) == CN_ERR_RUNTIME);
    CHECK_TEXT(e2.msg, "internal error: no declaration of metric counted to reduce");
    /* no part here (a rank without partitions): marked, for the ranks' reduction to leave
     * out */
    cn_error e3 = {0};
    CHECK(results_reduce(&r, "count", parts, 0, &e3) == 0);
    int at = results_find(&r, "count");
    CHECK(at >= 0 && r.metrics[at].partial == 2);
    CHECK(results_reduce(&r, "count", parts, 4, &e3) == 0);
    CHECK(r.metrics[at].partial == 1);
}

/* An array metric (a histogram): one value per element, set and reduced element by element,
 * written as one JSON array and one contract name, compared element by element. */
static void test_array_metric(void)
{
    static const model_metric list[] = {
        {.name = "before", .contract = 1},
        {.name = "bins", .kind = METRIC_I64, .contract = 1, .elements = 3},
        {.name = "after", .kind = METRIC_I64, .reduce = METRIC_MAX, .contract = 1},
    };
    static const metric_set set = {list, 3, NULL, NULL, NULL};
    run_results a, b;
    memset(&a, 0, sizeof a);
    snprintf(a.model, sizeof a.model, "arrays");
    results_declare(&a, &set);
    CHECK(a.n_metrics == 5);
    CHECK(results_set(&a, "before", 4) == 0);
    CHECK(results_set_at(&a, "bins", 2, 30) == 0);
    CHECK(results_set_at(&a, "bins", 3, 1) == -1); /* past its elements */
    cn_error err = {0};
    const wide_int parts[] = {5, 6};
    CHECK(results_reduce_at(&a, "bins", 1, parts, 2, &err) == 0);
    CHECK(results_reduce(&a, "after", parts, 2, &err) == 0);
    CHECK(results_value(&a, "bins") == 0);
    CHECK(a.metrics[results_find_at(&a, "bins", 1)].value == 11);
    CHECK_I64(results_i64(&a, "after"), 6);
    char text[RESULTS_VALUE_CAP];
    CHECK(results_value_text(&a, results_find(&a, "bins"), text, sizeof text) == 0);
    CHECK_TEXT(text, "[0, 11, 30]");
    CHECK(results_value_text(&a, results_find_at(&a, "bins", 2), text, sizeof text) == 1);
    CHECK(results_metric(&a, results_find_at(&a, "bins", 2)) == &list[1]);
    CHECK(results_metric(&a, results_find(&a, "after")) == &list[2]);
    /* the JSON: the array whole, its name once in the contract */
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f) {
        report_print_json(&a, f);
        rewind(f);
        char all[4096] = "";
        size_t got = fread(all, 1, sizeof all - 1, f);
        all[got] = 0;
        fclose(f);
        CHECK(strstr(all, "\"bins\": [0, 11, 30],\n") != NULL);
        CHECK(strstr(all, "\"contract\": [\"model\", \"seed\", \"before\", \"bins\", \"after\"]") !=
              NULL);
    }
    /* compared element by element, by bench and by the self-test */
    b = a;
    char buf[256];
    CHECK(bench_contract_diff(&a, &b, buf, sizeof buf) == 0);
    b.metrics[results_find_at(&b, "bins", 2)].value = 31;
    CHECK(bench_contract_diff(&a, &b, buf, sizeof buf) == 1);
    CHECK_TEXT(buf, "bins: 30 vs 31");
    CHECK(selftest_reference_differs(&b, &a, buf, sizeof buf) == 1);
    CHECK_TEXT(buf, "bins[2] 31, reference 30");
}

/* A flood run as the model fills it: 5 nodes, with flows when FLOWS, the neighbour cap's
 * counters when CAPPED. */
static void flood_like(run_results *r, int flows, int capped)
{
    memset(r, 0, sizeof *r);
    snprintf(r->model, sizeof r->model, "flood");
    r->seed = 3;
    results_declare(r, &flood_metric_set);
    const struct { const char *name; int64_t v; } m[] = {
        {"nodes", 5}, {"generated", 4}, {"delivered", 3}, {"transmissions", 9},
        {"receptions", 17}, {"first_receptions", 12}, {"hops_sum", 7},
        {"latency_sum_ns", 6000000000}, {"end_time_ns", 4000000000}, {"windows", 5}};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        CHECK(results_set(r, m[i].name, m[i].v) == 0);
    if (capped) {
        results_set(r, "links", 11);
        results_set(r, "links_cut", 2);
    }
    if (flows) {
        results_set(r, "deliverable", 6);
        int row = results_add_row(r, "up");
        CHECK(results_set_cell(r, row, "generated", 4) == 0);
        results_set_cell(r, row, "deliverable", 6);
        results_set_cell(r, row, "delivered", 3);
        results_set_cell(r, row, "hops_sum", 7);
        results_set_cell(r, row, "latency_sum_ns", 6000000000);
    }
    r->model_events = 26;
}

/* The JSON of R up to the members every run has (from "wall_s" on), in BUF, followed by its
 * last member, "contract" (from the line of "complete" on, which is dropped). */
static void json_head(const run_results *r, char *buf, size_t cap)
{
    static char whole[16384];
    FILE *f = fmemopen(whole, sizeof whole, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    report_print_json(r, f);
    fclose(f);
    buf[0] = '\0';
    char *tail = strstr(whole, "  \"wall_s\"");
    char *contract = strstr(whole, "  \"contract\"");
    CHECK(tail != NULL && contract != NULL && contract > tail);
    if (!tail || !contract)
        return;
    size_t head = (size_t)(tail - whole), rest = strlen(contract);
    CHECK(head + rest < cap);
    if (head + rest >= cap)
        return;
    memcpy(buf, whole, head);
    memcpy(buf + head, contract, rest + 1);
}

static void test_flood_json(void)
{
    static run_results r;
    static char buf[8192];
    flood_like(&r, 0, 0);
    CHECK(results_set(&r, "no_such_member", 1) == -1);
    json_head(&r, buf, sizeof buf);
    CHECK_TEXT(buf, "{\n  \"model\": \"flood\",\n  \"seed\": 3,\n  \"nodes\": 5,\n"
                    "  \"generated\": 4,\n  \"delivered\": 3,\n  \"loss\": 0.25,\n"
                    "  \"transmissions\": 9,\n  \"receptions\": 17,\n  \"first_receptions\": 12,\n"
                    "  \"hops_sum\": 7,\n  \"latency_sum_ns\": 6000000000,\n"
                    "  \"end_time_ns\": 4000000000,\n  \"windows\": 5,\n"
                    "  \"contract\": [\"model\", \"seed\", \"nodes\", \"generated\", \"delivered\","
                    " \"loss\", \"transmissions\", \"receptions\", \"first_receptions\","
                    " \"hops_sum\", \"latency_sum_ns\", \"end_time_ns\", \"windows\"]\n}\n");
    /* the optional members in their declared place, the flows last, then the list naming them;
     * loss is then over the deliverable */
    flood_like(&r, 1, 1);
    json_head(&r, buf, sizeof buf);
    CHECK(strstr(buf, "  \"windows\": 5,\n  \"links\": 11,\n  \"links_cut\": 2,\n"
                      "  \"deliverable\": 6,\n  \"flows\": [\n    {\"name\": \"up\", "
                      "\"generated\": 4, \"deliverable\": 6, \"delivered\": 3, \"loss\": 0.5, "
                      "\"hops_sum\": 7, \"latency_sum_ns\": 6000000000}\n  ],\n  \"contract\": "
                      "[\"model\", \"seed\", \"nodes\", \"generated\", \"delivered\", \"loss\", "
                      "\"transmissions\", \"receptions\", \"first_receptions\", \"hops_sum\", "
                      "\"latency_sum_ns\", \"end_time_ns\", \"windows\", \"links\", \"links_cut\", "
                      "\"deliverable\", \"flows\"]\n}\n") != NULL);
    CHECK(strstr(buf, "\"loss\": 0.25") == NULL);
    CHECK_U64(results_events(&r), 26);
}

static void test_flood_diff(void)
{
    static run_results a, b;
    char buf[256] = "";
    flood_like(&a, 1, 1);
    flood_like(&b, 1, 1);
    CHECK(bench_contract_diff(&a, &b, buf, sizeof buf) == 0);
    b.metrics[results_find(&b, "receptions")].value += 1;
    CHECK(bench_contract_diff(&a, &b, buf, sizeof buf) == 1);
    CHECK_TEXT(buf, "receptions: 17 vs 18");
    /* a 128-bit sum beyond 2^64, by its exact text */
    flood_like(&b, 1, 1);
    results_set(&b, "latency_sum_ns", (wide_int)UINT64_MAX * 4);
    CHECK(bench_contract_diff(&a, &b, buf, sizeof buf) == 1);
    CHECK_TEXT(buf, "latency_sum_ns: 6000000000 vs 73786976294838206460");
    /* an extension in one run only */
    flood_like(&b, 1, 0);
    CHECK(bench_contract_diff(&a, &b, buf, sizeof buf) == 1);
    CHECK_TEXT(buf, "14 vs 12 contract members");
    /* a flow's member */
    flood_like(&b, 1, 1);
    results_set_cell(&b, 0, "hops_sum", 8);
    CHECK(bench_contract_diff(&a, &b, buf, sizeof buf) == 1);
    CHECK_TEXT(buf, "flows up: hops_sum: 7 vs 8");
    flood_like(&b, 1, 1);
    b.n_rows = 0;
    CHECK(bench_contract_diff(&a, &b, buf, sizeof buf) == 1);
    CHECK_TEXT(buf, "flows: 1 vs 0 rows");
}

/* A flood run against the flood oracle's results, through the flood's declaration. */
static void test_flood_selftest(void)
{
    static run_results r;
    static flood_oracle_result o;
    char buf[256] = "";
    memset(&o, 0, sizeof o);
    o.seed = 3, o.nodes = 5, o.generated = 4, o.delivered = 3, o.transmissions = 9;
    o.receptions = 17, o.first_receptions = 12, o.hops_sum = 7, o.latency_sum_ns = 6000000000;
    o.end_time_ns = 4000000000, o.windows = 5;
    o.capped = true, o.links = 11, o.links_cut = 2;
    o.n_flows = 1, o.deliverable = 6;
    snprintf(o.flows[0].name, sizeof o.flows[0].name, "up");
    o.flows[0].generated = 4, o.flows[0].deliverable = 6, o.flows[0].delivered = 3;
    o.flows[0].hops_sum = 7, o.flows[0].latency_sum_ns = 6000000000;
    flood_like(&r, 1, 1);
    CHECK(selftest_differs(&r, &o, buf, sizeof buf) == 0);
    o.first_receptions = 13;
    CHECK(selftest_differs(&r, &o, buf, sizeof buf) == 1);
    CHECK_TEXT(buf, "first_receptions 12, reference 13");
    o.first_receptions = 12;
    o.flows[0].delivered = 4;
    CHECK(selftest_differs(&r, &o, buf, sizeof buf) == 1);
    CHECK_TEXT(buf, "flows up: delivered 3, reference 4");
    o.flows[0].delivered = 3;
    o.has_energy = true; /* the reference has members the run lacks */
    CHECK(selftest_differs(&r, &o, buf, sizeof buf) == 1);
    CHECK_TEXT(buf, "member dead_nodes of the reference is missing from the run");
    o.has_energy = false;
    o.capped = false; /* and the run members the reference lacks */
    CHECK(selftest_differs(&r, &o, buf, sizeof buf) == 1);
    CHECK_TEXT(buf, "member links has no reference value");
}

int main(void)
{
    test_metric_combine();
    test_results_reduce();
    test_array_metric();
    test_flood_json();
    test_flood_diff();
    test_flood_selftest();
    test_selftest_phold();
    test_bench_metrics();
    test_phold_sizes();
    test_model_bench();
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
