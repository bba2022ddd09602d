/* host/bench's comparisons, without a device: selftest_phold_differs (a PHOLD run against the
 * PHOLD oracle, member by member over the run's declared metrics), bench_contract_diff on
 * declared metrics, and what a PHOLD case's size counts. Each difference must be reported,
 * naming the member and both values. */
#include <stdio.h>
#include <string.h>

#include "../common/check.h"
#include "bench/bench.h"
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

int main(void)
{
    test_selftest_phold();
    test_bench_metrics();
    test_phold_sizes();
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
