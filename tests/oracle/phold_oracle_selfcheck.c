/* phold_oracle_selfcheck JSON_COMPARE PHOLD_ORACLE
 * phold_oracle_selfcheck --run SEED LPS POPULATION THRESHOLD LOOKAHEAD_NS MEAN_NS DURATION_NS
 *                        QUEUE OUT.json
 *
 * Checks the PHOLD oracle (docs/models/phold.md): its Philox against the known answers and
 * the shared host implementation, its table of delays, cases worked out by hand (in the
 * comments next to each expected value), a direct one-LP formulation, its two event queues
 * against each other, its refusals, its JSON text, the phold_oracle command line on scenarios
 * built in code and the executable, and json_compare's "contract" lists. Prints every failed
 * check and exits 1 if there was any.
 *
 * With --run it only runs the oracle on the given parameters (QUEUE 0 auto, 1 heap, 2
 * buckets) and writes its JSON: phold_crosscheck.py compares that with phold_reference.py. */
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/philox.h"
#include "models/phold/phold_values.h"
#include "oracle/phold_oracle.h"
#include "phold_oracle_cli.h"

static int failures;
static int checks;

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        checks++;                                                                              \
        if (!(cond)) {                                                                         \
            failures++;                                                                        \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);          \
        }                                                                                      \
    } while (0)

#define CHECK_EQ(got, want)                                                                    \
    do {                                                                                       \
        checks++;                                                                              \
        const uint64_t got_ = (uint64_t)(got), want_ = (uint64_t)(want);                       \
        if (got_ != want_) {                                                                   \
            failures++;                                                                        \
            fprintf(stderr, "%s:%d: %s = %" PRId64 ", expected %" PRId64 "\n", __FILE__,       \
                    __LINE__, #got, (int64_t)got_, (int64_t)want_);                            \
        }                                                                                      \
    } while (0)

#define THR_ALL (UINT64_C(1) << 32) /* thr(1) */
#define SEC INT64_C(1000000000)

static phold_oracle_params params(int64_t n, int64_t e, uint64_t thr, int64_t a, int64_t m,
                                  int64_t t)
{
    phold_oracle_params p = {1, n, e, thr, a, m, t, PHOLD_QUEUE_AUTO};
    return p;
}

static phold_oracle_result run_ok(const phold_oracle_params *p)
{
    phold_oracle_result r;
    char err[256];
    const int rc = phold_oracle_run(p, &r, err, sizeof err);
    CHECK_EQ(rc, PHOLD_ORACLE_OK);
    if (rc != PHOLD_ORACLE_OK)
        fprintf(stderr, "  run failed: %s\n", err);
    return r;
}

static void check_result(const phold_oracle_result *r, int64_t events, int64_t remote,
                         uint64_t time_sum, uint64_t weighted, int64_t min, int64_t max,
                         int64_t last, int line)
{
    const int before = failures;
    CHECK_EQ(r->events, events);
    CHECK_EQ(r->remote, remote);
    CHECK_EQ(r->time_sum_ns, time_sum);
    CHECK_EQ(r->lp_weighted_sum, weighted);
    CHECK_EQ(r->lp_events_min, min);
    CHECK_EQ(r->lp_events_max, max);
    CHECK_EQ(r->last_time_ns, last);
    if (failures != before)
        fprintf(stderr, "  (the case of line %d)\n", line);
}

/* ------------------------------------------------------------------ pieces */

static void test_philox(void)
{
    /* The known answers of docs/model.md ("Randomness"): (ctr, key) -> out. */
    static const uint32_t kat[3][6] = {
        {0, 0, 0, 0, 0, 0},
        {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
        {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u},
    };
    static const uint32_t want[3][4] = {
        {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u},
        {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu},
        {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u},
    };
    for (int t = 0; t < 3; t++) {
        uint32_t out[4];
        phold_oracle_philox((uint64_t)kat[t][4] | (uint64_t)kat[t][5] << 32, kat[t], out);
        for (int w = 0; w < 4; w++)
            CHECK_EQ(out[w], want[t][w]);
    }
    /* The oracle's own Philox and the shared host one agree, all four counter words used (the
     * model's execution draws put k >> 32 in the last one) and 64-bit seeds split. */
    const uint64_t seeds[] = {0, 1, 42, UINT64_C(0x123456789abcdef0), UINT64_MAX};
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++)
        for (uint32_t a = 0; a < 40; a++)
            for (uint32_t st = 1; st <= 2; st++) {
                const uint32_t ctr[4] = {a * 2654435761u, a * 7919u + st, st, a % 3 ? 0 : a};
                uint32_t mine[4];
                phold_oracle_philox(seeds[s], ctr, mine);
                philox4x32 c = {{ctr[0], ctr[1], ctr[2], ctr[3]}};
                const philox4x32 host =
                    philox4x32_10(c, (uint32_t)seeds[s], (uint32_t)(seeds[s] >> 32));
                for (int w = 0; w < 4; w++)
                    CHECK_EQ(mine[w], host.v[w]);
            }
}

static int64_t exp_table_buf[PHOLD_EXP_SIZE];

static void test_exp_table(void)
{
    int64_t *x = exp_table_buf;
    CHECK_EQ(phold_oracle_exp_table(0, x), PHOLD_ORACLE_OK);
    bool zero = true;
    for (int j = 0; j < PHOLD_EXP_SIZE; j++)
        zero = zero && x[j] == 0;
    CHECK(zero);

    /* Mean 0.9 s: quantiles of the exponential law, so ascending, close to -M ln(1 - q) (a
     * second formula, within one unit of rounding), with a mean within 0.02% of M. */
    const int64_t m = 900000000;
    CHECK_EQ(phold_oracle_exp_table(m, x), PHOLD_ORACLE_OK);
    double sum = 0;
    bool ascending = true, close = true;
    for (int j = 0; j < PHOLD_EXP_SIZE; j++) {
        sum += (double)x[j];
        ascending = ascending && (j == 0 || x[j] >= x[j - 1]);
        const double q = ((double)j + 0.5) / 65536.0;
        close = close && fabs((double)x[j] - (-(double)m * log(1.0 - q))) <= 1.5;
    }
    CHECK(ascending);
    CHECK(close);
    CHECK(fabs(sum / PHOLD_EXP_SIZE - (double)m) <= 0.0002 * (double)m);
    /* Entry 0: -M log1p(-2^-17) = M (2^-17 + 2^-35 + ...) = 6866.455 + 0.026 = 6866.48
     * -> 6866; the last, -M log1p(-(1 - 2^-17)) = M 17 ln 2 = 10605151862.57 -> 10605151863. */
    CHECK_EQ(x[0], 6866);
    CHECK_EQ(x[PHOLD_EXP_SIZE - 1], INT64_C(10605151863));
    /* A mean whose longest delay (about 11.8 M) leaves int64: refused. */
    CHECK_EQ(phold_oracle_exp_table(INT64_C(1) << 60, x), PHOLD_ORACLE_ERR_INPUT);
    CHECK_EQ(phold_oracle_exp_table(-1, x), PHOLD_ORACLE_ERR_INPUT);
}

/* ------------------------------------------------------------------ runs */

static void test_by_hand(void)
{
    /* Mean 0: every delay is exactly A, so the times are multiples of A. */
    phold_oracle_params p = params(1, 1, 0, 1, 0, 5);
    phold_oracle_result r = run_ok(&p);
    /* One LP, one event: t = 1, 2, 3, 4 (5 = T is not executed). */
    check_result(&r, 4, 0, 10, 10, 4, 4, 4, __LINE__);
    p.duration_ns = 1; /* the first event is at A = 1 = T: nothing runs */
    r = run_ok(&p);
    check_result(&r, 0, 0, 0, 0, 0, 0, 0, __LINE__);

    /* N = 1 and r = 1: there is no other LP, so nothing is remote. E = 3, A = 10, T = 35:
     * 3 events at each of 10, 20, 30: sum 180; weights (0 + 1) x 180. */
    p = params(1, 3, THR_ALL, 10, 0, 35);
    r = run_ok(&p);
    check_result(&r, 9, 0, 180, 180, 9, 9, 30, __LINE__);

    /* N = 2, r = 1: every new event goes to the other LP ((w1 x 1) >> 32 = 0, so LP i sends
     * to i + 1 mod 2). A = 1, T = 4: each LP executes one event at 1, 2 and 3. Sum 2 x 6;
     * weights (1 + 2) x 6. */
    p = params(2, 1, THR_ALL, 1, 0, 4);
    r = run_ok(&p);
    check_result(&r, 6, 6, 12, 18, 3, 3, 3, __LINE__);

    /* N = 3, r = 0, E = 2, A = 5, T = 16: each LP runs 2 events at 5, 10 and 15 (sum 60);
     * weights (1 + 2 + 3) x 60. */
    p = params(3, 2, 0, 5, 0, 16);
    r = run_ok(&p);
    check_result(&r, 18, 0, 180, 360, 6, 6, 15, __LINE__);

    /* Times beyond 2^32: lp_weighted_sum takes t mod 2^32. N = 1, E = 1, A = 2^32 + 3,
     * T = 3 A: events at A and 2A. Sum 3A; weights 3 + 6 = 9. */
    const int64_t a = (INT64_C(1) << 32) + 3;
    p = params(1, 1, 0, a, 0, 3 * a);
    r = run_ok(&p);
    check_result(&r, 2, 0, (uint64_t)(3 * a), 9, 2, 2, 2 * a, __LINE__);

    /* time_sum_ns wraps modulo 2^64: N = 4, r = 0, A = 2^61 + 1, T = 2A + 1 (the longest
     * T with A: the successor of an event at 2A must still fit in int64). Each LP runs events
     * at A and 2A: the sum is 12 A = 3 x 2^63 + 12 = 2^64 + 2^63 + 12 -> 2^63 + 12. */
    const int64_t big = (INT64_C(1) << 61) + 1;
    p = params(4, 1, 0, big, 0, 2 * big + 1);
    r = run_ok(&p);
    CHECK_EQ(r.events, 8);
    CHECK_EQ(r.time_sum_ns, (UINT64_C(1) << 63) + 12);
    CHECK_EQ(r.last_time_ns, 2 * big);
    CHECK_EQ(r.lp_weighted_sum, (1 + 2 + 3 + 4) * (1 + 2)); /* t mod 2^32 = 1, 2 */
}

/* One LP with random delays, written directly from the model with the shared host Philox:
 * t_0 = A + EXP[w2 >> 16] of {0, 0, 2, 0}; t_{k+1} = t_k + A + EXP[w2 >> 16] of
 * {0, k, 1, 0}. */
static void test_one_lp_direct(void)
{
    const uint64_t seeds[] = {1, 99, UINT64_C(0xfedcba9876543210)};
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        const int64_t a = 1000, m = 20000, end = 3000000;
        CHECK_EQ(phold_oracle_exp_table(m, exp_table_buf), PHOLD_ORACLE_OK);
        const uint32_t k0 = (uint32_t)seeds[s], k1 = (uint32_t)(seeds[s] >> 32);
        philox4x32 c0 = {{0, 0, 2, 0}};
        int64_t t = a + exp_table_buf[philox4x32_10(c0, k0, k1).v[2] >> 16];
        int64_t events = 0, last = 0;
        uint64_t sum = 0;
        for (; t < end; events++) {
            sum += (uint64_t)t;
            last = t;
            philox4x32 c = {{0, (uint32_t)events, 1, 0}};
            t += a + exp_table_buf[philox4x32_10(c, k0, k1).v[2] >> 16];
        }
        phold_oracle_params p = params(1, 1, THR_ALL, a, m, end);
        p.seed = seeds[s];
        const phold_oracle_result r = run_ok(&p);
        CHECK(events > 50);
        check_result(&r, events, 0, sum, sum, events, events, last, __LINE__);
    }
}

/* The heap and the buckets must agree on everything, and the invariants hold. */
static void test_queues_agree(void)
{
    static const int64_t ns[] = {1, 2, 7, 50};
    static const int64_t es[] = {1, 3};
    static const uint64_t thrs[] = {0, UINT64_C(1) << 30, THR_ALL};
    static const int64_t as[] = {1, 1000, 100000000};
    static const int64_t ms[] = {0, 1, 3000, 900000000};
    int compared = 0;
    for (size_t in = 0; in < 4; in++)
        for (size_t ie = 0; ie < 2; ie++)
            for (size_t it = 0; it < 3; it++)
                for (size_t ia = 0; ia < 3; ia++)
                    for (size_t im = 0; im < 4; im++) {
                        /* about 30 events per LP and initial event */
                        const int64_t a = as[ia], m = ms[im];
                        phold_oracle_params p =
                            params(ns[in], es[ie], thrs[it], a, m, 30 * (a + m) + 7);
                        p.seed = 1000 + (uint64_t)compared;
                        char err[256];
                        phold_oracle_result h, b, x;
                        p.queue = PHOLD_QUEUE_HEAP;
                        CHECK_EQ(phold_oracle_run(&p, &h, err, sizeof err), PHOLD_ORACLE_OK);
                        p.queue = PHOLD_QUEUE_BUCKETS;
                        const int rb = phold_oracle_run(&p, &b, err, sizeof err);
                        p.queue = PHOLD_QUEUE_AUTO;
                        CHECK_EQ(phold_oracle_run(&p, &x, err, sizeof err), PHOLD_ORACLE_OK);
                        CHECK(memcmp(&h, &x, sizeof h) == 0);
                        if (rb == PHOLD_ORACLE_OK) { /* refused when the ring is too large */
                            CHECK(memcmp(&h, &b, sizeof h) == 0);
                            compared++;
                        }
                        const int64_t n = ns[in];
                        CHECK(h.events >= n * es[ie]); /* every first event is before T */
                        CHECK(h.lp_events_min <= h.lp_events_max);
                        CHECK(h.lp_events_min * n <= h.events && h.events <= h.lp_events_max * n);
                        CHECK(h.remote <= h.events);
                        if (thrs[it] == 0 || n == 1)
                            CHECK_EQ(h.remote, 0);
                        if (thrs[it] == THR_ALL && n > 1)
                            CHECK_EQ(h.remote, h.events);
                        CHECK(h.last_time_ns < p.duration_ns && h.last_time_ns >= a);
                    }
    /* The ring is refused (more than 2^20 buckets) only for M = 0.9 s over A = 1 ns or
     * 1 us: 2 x 24 of the 288 cases. */
    CHECK_EQ(compared, 288 - 48);
}

static void expect_refusal(phold_oracle_params p, int rc, const char *text, int line)
{
    phold_oracle_result r;
    char err[256];
    memset(&r, 0xff, sizeof r);
    const int got = phold_oracle_run(&p, &r, err, sizeof err);
    const int before = failures;
    CHECK_EQ(got, rc);
    CHECK(strstr(err, text) != NULL);
    CHECK_EQ(r.events, 0); /* zeroed */
    if (failures != before)
        fprintf(stderr, "  (refusal of line %d: \"%s\")\n", line, err);
}

static void test_refusals(void)
{
    const phold_oracle_params ok = params(4, 2, 0, 100, 900, 10000);
    phold_oracle_params p = ok;
    p.lps = 0;
    expect_refusal(p, PHOLD_ORACLE_ERR_INPUT, "lps = 0 is outside 1 .. 2^32", __LINE__);
    p = ok;
    p.population = 0;
    expect_refusal(p, PHOLD_ORACLE_ERR_INPUT, "population = 0", __LINE__);
    p = ok;
    p.remote_threshold = THR_ALL + 1;
    expect_refusal(p, PHOLD_ORACLE_ERR_INPUT, "remote threshold 4294967297 is above 2^32",
                   __LINE__);
    p = ok;
    p.lookahead_ns = 0;
    expect_refusal(p, PHOLD_ORACLE_ERR_INPUT, "lookahead (0 ns)", __LINE__);
    p = ok;
    p.duration_ns = 0;
    expect_refusal(p, PHOLD_ORACLE_ERR_INPUT, "must be > 0", __LINE__);
    p = ok;
    p.mean_ns = INT64_C(1) << 60;
    expect_refusal(p, PHOLD_ORACLE_ERR_INPUT, "beyond the int64 range", __LINE__);
    p = ok;
    p.duration_ns = INT64_MAX - 500;
    expect_refusal(p, PHOLD_ORACLE_ERR_INPUT, "exceed the int64 range of times", __LINE__);
    p = ok;
    p.lookahead_ns = 1;
    p.mean_ns = 1000000000;
    p.queue = PHOLD_QUEUE_BUCKETS;
    expect_refusal(p, PHOLD_ORACLE_ERR_INPUT, "more than 1048576 buckets", __LINE__);
    /* Sizes that cannot fit: one sentence, no crash, no attempt. */
    p = ok;
    p.lps = INT64_C(1) << 32;
    p.population = INT64_C(1) << 32;
    expect_refusal(p, PHOLD_ORACLE_ERR_NOMEM, "too many pending events", __LINE__);
    p = ok;
    p.lps = INT64_C(1) << 32;
    p.population = INT64_C(1) << 24;
    expect_refusal(p, PHOLD_ORACLE_ERR_NOMEM, "more than this machine has", __LINE__);
}

/* ------------------------------------------------------------------ files and programs */

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
    static char path[4][512];
    static int slot;
    slot = (slot + 1) % 4;
    snprintf(path[slot], sizeof path[slot], "%s/%s", tmpdir, name);
    return path[slot];
}

static void write_file(const char *name, const char *text)
{
    FILE *f = fopen(tmp_path(name), "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
}

/* The whole text of file NAME (static buffer; "" when missing). */
static const char *read_file(const char *name)
{
    static char buf[8192];
    buf[0] = '\0';
    FILE *f = fopen(tmp_path(name), "r");
    if (!f)
        return buf;
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* Runs ARGV[0] with ARGV (or, when ARGV[0] is NULL, phold_oracle_cli in a child with the
 * loader of this file), stdout and stderr to files in TMPDIR; returns the exit status. */
static int load_in_code(const char *path, const config_override *ov, int nov, scenario *sc,
                        cn_error *err);
static int run_prog(char *const argv[])
{
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        const int fo = open(tmp_path("stdout.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int fe = open(tmp_path("stderr.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0)
            _exit(127);
        dup2(fo, 1);
        dup2(fe, 2);
        if (!argv[0]) {
            int argc = 0;
            while (argv[argc + 1])
                argc++;
            char **args = (char **)argv;
            args[0] = "phold_oracle";
            const int rc = phold_oracle_cli(argc + 1, args, load_in_code);
            fflush(NULL);
            _exit(rc);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

static bool output_has(int stream, const char *needle)
{
    char text[8192];
    snprintf(text, sizeof text, "%s", read_file(stream == 1 ? "stdout.txt" : "stderr.txt"));
    if (strstr(text, needle))
        return true;
    fprintf(stderr, "  output %d lacks \"%s\": %s\n", stream, needle, text);
    return false;
}

static int compare2(const char *jc, const char *a, const char *b, const char *members)
{
    char pa[512], pb[512], *argv[6];
    snprintf(pa, sizeof pa, "%s", tmp_path(a));
    snprintf(pb, sizeof pb, "%s", tmp_path(b));
    int k = 0;
    argv[k++] = (char *)jc;
    if (members) {
        argv[k++] = "--members";
        argv[k++] = (char *)members;
    }
    argv[k++] = pa;
    argv[k++] = pb;
    argv[k] = NULL;
    return run_prog(argv);
}

static void test_json_text(void)
{
    /* The hand case N = 2, r = 1 above, with a 64-bit seed: the exact text. */
    phold_oracle_params p = params(2, 1, THR_ALL, 1, 0, 4);
    p.seed = UINT64_MAX;
    const phold_oracle_result r = run_ok(&p);
    char err[256];
    CHECK_EQ(phold_oracle_save_json(tmp_path("p.json"), &p, &r, err, sizeof err), 0);
    static const char want[] =
        "{\n  \"model\": \"phold\",\n  \"seed\": 18446744073709551615,\n  \"lps\": 2,\n"
        "  \"population\": 1,\n  \"events\": 6,\n  \"remote\": 6,\n  \"time_sum_ns\": 12,\n"
        "  \"lp_weighted_sum\": 18,\n  \"lp_events_min\": 3,\n  \"lp_events_max\": 3,\n"
        "  \"last_time_ns\": 3,\n  \"contract\": [\"model\", \"seed\", \"lps\", \"population\","
        " \"events\", \"remote\", \"time_sum_ns\", \"lp_weighted_sum\", \"lp_events_min\","
        " \"lp_events_max\", \"last_time_ns\"]\n}\n";
    CHECK(strcmp(read_file("p.json"), want) == 0);
    /* A folder that does not exist: -1, a sentence naming the file, nothing left behind. */
    CHECK_EQ(phold_oracle_save_json(tmp_path("nodir/p.json"), &p, &r, err, sizeof err), -1);
    CHECK(strstr(err, "nodir/p.json") != NULL);
    CHECK(access(tmp_path("nodir"), F_OK) != 0);
}

/* A scenario built in code, as config_load would make it from
 * [simulation] model = phold, seed = 5, duration = 3 and [phold] lps = 4, population = 2,
 * remote = 0.5, lookahead = 0.1, mean = 0.9; "-s phold.lps=N" and "-s simulation.seed=N" are
 * applied, "flood.ini" gives the flood model and any other override is an error. */
static int load_in_code(const char *path, const config_override *ov, int nov, scenario *sc,
                        cn_error *err)
{
    memset(sc, 0, sizeof *sc);
    snprintf(sc->model, sizeof sc->model, "%s", strstr(path, "flood") ? "flood" : "phold");
    sc->seed = 5;
    sc->duration_ns = 3 * SEC;
    phold_values_edit(sc)->lps = 4;
    phold_values_edit(sc)->population = 2;
    phold_values_edit(sc)->remote = 0.5;
    phold_values_edit(sc)->remote_threshold = UINT64_C(1) << 31;
    phold_values_edit(sc)->lookahead_ns = SEC / 10;
    phold_values_edit(sc)->mean_ns = 9 * SEC / 10;
    for (int k = 0; k < nov; k++) {
        long long v;
        if (sscanf(ov[k].text, "phold.lps=%lld", &v) == 1) {
            phold_values_edit(sc)->lps = v;
        } else if (sscanf(ov[k].text, "simulation.seed=%lld", &v) == 1) {
            sc->seed = (uint64_t)v;
        } else {
            err->code = CN_ERR_INPUT;
            snprintf(err->msg, sizeof err->msg, "%s: -s argument '%s': unknown key", path,
                     ov[k].text);
            return CN_ERR_INPUT;
        }
    }
    return CN_OK;
}

/* The expected JSON of the in-code scenario with LPS and SEED, from the oracle directly. */
static void expected_json(int64_t lps, uint64_t seed, const char *name)
{
    scenario sc;
    cn_error e;
    memset(&e, 0, sizeof e);
    CHECK_EQ(load_in_code("s.ini", NULL, 0, &sc, &e), CN_OK);
    phold_values_edit(&sc)->lps = lps;
    sc.seed = seed;
    phold_oracle_params p;
    phold_oracle_params_from(&sc, &p);
    CHECK_EQ(p.duration_ns, 3 * SEC);
    CHECK_EQ(p.remote_threshold, UINT64_C(1) << 31);
    CHECK_EQ(p.lookahead_ns, SEC / 10);
    CHECK_EQ(p.mean_ns, 9 * SEC / 10);
    CHECK_EQ(p.population, 2);
    const phold_oracle_result r = run_ok(&p);
    CHECK(r.events > 0);
    char err[256];
    CHECK_EQ(phold_oracle_save_json(tmp_path(name), &p, &r, err, sizeof err), 0);
}

static void test_cli(void)
{
    char out[512];
    snprintf(out, sizeof out, "%s", tmp_path("out.json")); /* tmp_path's buffers rotate */
    expected_json(4, 5, "want.json");
    char want[8192];
    snprintf(want, sizeof want, "%s", read_file("want.json"));

    char *a1[] = {NULL, "s.ini", "--json", out, NULL};
    CHECK_EQ(run_prog(a1), 0);
    CHECK(strcmp(read_file("out.json"), want) == 0);
    /* To stdout without --json, or with "--json -". */
    char *a2[] = {NULL, "s.ini", NULL};
    CHECK_EQ(run_prog(a2), 0);
    CHECK(strcmp(read_file("stdout.txt"), want) == 0);
    char *a3[] = {NULL, "--json", "-", "s.ini", NULL};
    CHECK_EQ(run_prog(a3), 0);
    CHECK(strcmp(read_file("stdout.txt"), want) == 0);
    /* Overrides reach the loader, in order; the last one wins as config_load does. */
    expected_json(9, 77, "want2.json");
    snprintf(want, sizeof want, "%s", read_file("want2.json"));
    char *a4[] = {NULL, "s.ini", "-s", "phold.lps=3", "--set", "simulation.seed=77",
                  "-s", "phold.lps=9", "--json", out, NULL};
    CHECK_EQ(run_prog(a4), 0);
    CHECK(strcmp(read_file("out.json"), want) == 0);

    /* Bad command lines and inputs: exit 2 and one sentence. */
    char *b1[] = {NULL, NULL};
    CHECK_EQ(run_prog(b1), 2);
    CHECK(output_has(2, "usage: phold_oracle FILE.ini"));
    char *b2[] = {NULL, "s.ini", "--frobnicate", NULL};
    CHECK_EQ(run_prog(b2), 2);
    CHECK(output_has(2, "unknown option --frobnicate"));
    char *b3[] = {NULL, "s.ini", "t.ini", NULL};
    CHECK_EQ(run_prog(b3), 2);
    CHECK(output_has(2, "more than one scenario file (s.ini, t.ini)"));
    char *b4[] = {NULL, "s.ini", "--json", NULL};
    CHECK_EQ(run_prog(b4), 2);
    CHECK(output_has(2, "--json needs a file name"));
    char *b5[] = {NULL, "s.ini", "-s", NULL};
    CHECK_EQ(run_prog(b5), 2);
    CHECK(output_has(2, "-s needs section.key=value"));
    char *b6[] = {NULL, "s.ini", "-s", "phold.nope=1", NULL};
    CHECK_EQ(run_prog(b6), 2);
    CHECK(output_has(2, "phold_oracle: s.ini: -s argument 'phold.nope=1': unknown key"));
    char *b7[] = {NULL, "flood.ini", NULL};
    CHECK_EQ(run_prog(b7), 2);
    CHECK(output_has(2, "flood.ini: model is \"flood\", the oracle knows only \"phold\""));
    char *b8[] = {NULL, "s.ini", "-s", "phold.lps=0", NULL};
    CHECK_EQ(run_prog(b8), 2);
    CHECK(output_has(2, "phold_oracle: s.ini: lps = 0 is outside 1 .. 2^32"));
    char nodir[512];
    snprintf(nodir, sizeof nodir, "%s", tmp_path("nodir/x.json"));
    char *b9[] = {NULL, "s.ini", "--json", nodir, NULL};
    CHECK_EQ(run_prog(b9), 1);
    CHECK(output_has(2, "nodir/x.json"));
    char *h[] = {NULL, "--help", NULL};
    CHECK_EQ(run_prog(h), 0);
    CHECK(output_has(1, "usage: phold_oracle"));
}

/* The executable with config_load. A flood scenario is refused by name; a [phold] scenario
 * gives the oracle's numbers, exactly the JSON the function's results print. */
static void test_executable(const char *po)
{
    write_file("flood.ini", "[simulation]\nmodel = flood\nseed = 1\nduration = 0\n"
                            "[topology]\nplacement = grid\nrows = 1\ncols = 5\nspacing = 100\n"
                            "[connectivity]\nmodel = udg\nrange = 100\n[mobility]\nmodel = static\n"
                            "[traffic]\nsource = 0\ndestination = -1\npackets = 1\ninterval = 1\n"
                            "start = 0\nsize = 1000\n[flood]\nrelay_delay = 1\n");
    char flood[512];
    snprintf(flood, sizeof flood, "%s", tmp_path("flood.ini"));
    char *a1[] = {(char *)po, flood, NULL};
    CHECK_EQ(run_prog(a1), 2);
    CHECK(output_has(2, "model is \"flood\", the oracle knows only \"phold\""));

    write_file("phold.ini", "[simulation]\nmodel = phold\nseed = 5\nduration = 3\n"
                            "[phold]\nlps = 4\npopulation = 2\nremote = 0.5\nlookahead = 0.1\n"
                            "mean = 0.9\n");
    char ini[512], out[512];
    snprintf(ini, sizeof ini, "%s", tmp_path("phold.ini"));
    snprintf(out, sizeof out, "%s", tmp_path("out.json"));
    char *a2[] = {(char *)po, ini, "--json", out, NULL};
    CHECK_EQ(run_prog(a2), 0);
    expected_json(4, 5, "want.json");
    char want[8192];
    snprintf(want, sizeof want, "%s", read_file("want.json"));
    CHECK(strcmp(read_file("out.json"), want) == 0);
}

#define PHOLD_BODY                                                                             \
    "\"seed\": 1, \"lps\": 1000, \"population\": 8, \"events\": 158777, \"remote\": 39834,"    \
    " \"time_sum_ns\": 1594270447784856, \"lp_weighted_sum\": 162479580850962233,"            \
    " \"lp_events_min\": 91, \"lp_events_max\": 269, \"last_time_ns\": 19999914246"
#define CONTRACT                                                                               \
    "\"contract\": [\"model\", \"seed\", \"lps\", \"population\", \"events\", \"remote\","     \
    " \"time_sum_ns\", \"lp_weighted_sum\", \"lp_events_min\", \"lp_events_max\","            \
    " \"last_time_ns\"]"

static void test_json_compare_contract(const char *jc)
{
    write_file("a.json", "{\"model\": \"phold\", " PHOLD_BODY ", " CONTRACT "}");
    /* Equal: other order, spacing and members the contract does not name (a run's devices,
     * timings and even the flood's names: nothing outside the list counts). */
    write_file("b.json", "{\n  " CONTRACT ",\n \"wall_s\": 0.25, \"windows\": 17,"
                         " \"nodes\": 3, \"model\": \"ph\\u006fld\", " PHOLD_BODY "}\n");
    CHECK_EQ(compare2(jc, "a.json", "b.json", NULL), 0);
    CHECK_EQ(compare2(jc, "b.json", "a.json", NULL), 0);

    /* One differing member. */
    write_file("c.json", "{\"model\": \"phold\", \"remote\": 39835, \"seed\": 1, \"lps\": 1000,"
                         " \"population\": 8, \"events\": 158777, \"time_sum_ns\": 1594270447784856,"
                         " \"lp_weighted_sum\": 162479580850962233, \"lp_events_min\": 91,"
                         " \"lp_events_max\": 269, \"last_time_ns\": 19999914246, " CONTRACT "}");
    CHECK_EQ(compare2(jc, "a.json", "c.json", NULL), 1);
    CHECK(output_has(1, "remote: A=39834 B=39835"));
    CHECK(!strstr(read_file("stdout.txt"), "events:"));

    /* A member the contract names and one file lacks, on either side. */
    write_file("m.json", "{\"model\": \"phold\", \"seed\": 1, \"lps\": 1000, \"population\": 8,"
                         " \"events\": 158777, \"remote\": 39834, \"time_sum_ns\": 1594270447784856,"
                         " \"lp_weighted_sum\": 162479580850962233, \"lp_events_min\": 91,"
                         " \"lp_events_max\": 269, " CONTRACT "}");
    CHECK_EQ(compare2(jc, "a.json", "m.json", NULL), 1);
    CHECK(output_has(1, "last_time_ns: A=19999914246 B=<missing>"));
    CHECK_EQ(compare2(jc, "m.json", "a.json", NULL), 1);
    CHECK(output_has(1, "last_time_ns: A=<missing> B=19999914246"));

    /* A contract in one file only: "contract" differs, and its members are still compared
     * (here equal), not the flood's default list. */
    write_file("n.json", "{\"model\": \"phold\", " PHOLD_BODY "}");
    CHECK_EQ(compare2(jc, "a.json", "n.json", NULL), 1);
    CHECK(output_has(1, "contract: A=[\"model\""));
    CHECK(output_has(1, "B=<missing>"));
    CHECK(!strstr(read_file("stdout.txt"), "nodes:"));
    CHECK(!strstr(read_file("stdout.txt"), "events:"));
    CHECK_EQ(compare2(jc, "n.json", "a.json", NULL), 1);
    CHECK(output_has(1, "contract: A=<missing> B=[\"model\""));

    /* Two different lists: the union is compared, and the lists differ. B names "extra",
     * which A lacks. */
    write_file("u.json", "{\"model\": \"phold\", " PHOLD_BODY ", \"extra\": 1,"
                         " \"contract\": [\"model\", \"extra\", \"seed\"]}");
    CHECK_EQ(compare2(jc, "a.json", "u.json", NULL), 1);
    CHECK(output_has(1, "contract: A="));
    CHECK(output_has(1, "extra: A=<missing> B=1"));
    CHECK(!strstr(read_file("stdout.txt"), "events:"));

    /* The same names in another order are another list. */
    write_file("o.json", "{\"model\": \"phold\", " PHOLD_BODY ", \"contract\": [\"seed\","
                         " \"model\", \"lps\", \"population\", \"events\", \"remote\","
                         " \"time_sum_ns\", \"lp_weighted_sum\", \"lp_events_min\","
                         " \"lp_events_max\", \"last_time_ns\"]}");
    CHECK_EQ(compare2(jc, "a.json", "o.json", NULL), 1);
    CHECK(output_has(1, "contract: A="));

    /* A contract that is not an array of strings: an error naming the file. */
    write_file("x.json", "{\"model\": \"phold\", " PHOLD_BODY ", \"contract\": \"model\"}");
    CHECK_EQ(compare2(jc, "a.json", "x.json", NULL), 1);
    CHECK(output_has(2, "x.json: byte"));
    CHECK(output_has(2, "\"contract\" must be an array of member names"));
    write_file("x.json", "{\"model\": \"phold\", " PHOLD_BODY ", \"contract\": [\"model\", 3]}");
    CHECK_EQ(compare2(jc, "x.json", "a.json", NULL), 1);
    CHECK(output_has(2, "x.json: byte"));

    /* --members still decides alone. */
    CHECK_EQ(compare2(jc, "a.json", "c.json", "events,lps"), 0);
    CHECK_EQ(compare2(jc, "a.json", "n.json", "events"), 0);
    CHECK_EQ(compare2(jc, "a.json", "c.json", "remote"), 1);
}

/* ------------------------------------------------------------------ main */

static int run_mode(int argc, char **argv)
{
    if (argc != 11) {
        fprintf(stderr, "usage: phold_oracle_selfcheck --run SEED LPS POPULATION THRESHOLD"
                        " LOOKAHEAD_NS MEAN_NS DURATION_NS QUEUE OUT.json\n");
        return 2;
    }
    phold_oracle_params p;
    p.seed = strtoull(argv[2], NULL, 10);
    p.lps = strtoll(argv[3], NULL, 10);
    p.population = strtoll(argv[4], NULL, 10);
    p.remote_threshold = strtoull(argv[5], NULL, 10);
    p.lookahead_ns = strtoll(argv[6], NULL, 10);
    p.mean_ns = strtoll(argv[7], NULL, 10);
    p.duration_ns = strtoll(argv[8], NULL, 10);
    p.queue = (phold_oracle_queue)atoi(argv[9]);
    phold_oracle_result r;
    char err[256];
    if (phold_oracle_run(&p, &r, err, sizeof err) != PHOLD_ORACLE_OK ||
        phold_oracle_save_json(argv[10], &p, &r, err, sizeof err) != 0) {
        fprintf(stderr, "phold_oracle_selfcheck: %s\n", err);
        return 1;
    }
    return 0;
}

static void cleanup_tmp(void)
{
    static const char *const names[] = {
        "p.json", "out.json", "want.json", "want2.json", "stdout.txt", "stderr.txt",
        "flood.ini", "phold.ini", "a.json", "b.json", "c.json", "m.json", "n.json",
        "u.json", "o.json", "x.json",
    };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        unlink(tmp_path(names[k]));
    rmdir(tmpdir);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--run") == 0)
        return run_mode(argc, argv);
    if (argc != 3) {
        fprintf(stderr, "usage: phold_oracle_selfcheck JSON_COMPARE PHOLD_ORACLE\n");
        return 2;
    }
    test_philox();
    test_exp_table();
    test_by_hand();
    test_one_lp_direct();
    test_queues_agree();
    test_refusals();

    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/phold_selfcheck.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_json_text();
    test_cli();
    test_executable(argv[2]);
    test_json_compare_contract(argv[1]);
    cleanup_tmp();

    printf("phold_oracle_selfcheck: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
