/* Tests of host/config: exact decimal conversions, every error class with its message,
 * overrides, defaults, derived fields, dump -> reload round trips, the scenario files of
 * scenarios/ and the generated key reference docs/keys.md.
 *
 *   test_config                    unit tests
 *   test_config --scenarios        loads every .ini file of scenarios/ (CLNETSIM_SOURCE_DIR)
 *   test_config --check-docs       docs/keys.md must equal --print-reference
 *   test_config --print-reference  writes the content of docs/keys.md to stdout */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/philox.h"
#include "config/config.h"
#include "models/flood/flood_values.h"
#include "models/phold/phold_values.h"

#include "../common/check.h"

/* ---- helpers ----------------------------------------------------------------------------- */

/* Loads TEXT as "t.ini" with up to 24 overrides (NULL-terminated); fails the test on error. */
static int load_ok_at(const char *file, int line, const char *text, const char *const *ov,
                      scenario *sc)
{
    config_override o[24] = {{0}};
    int n = 0;
    while (ov && ov[n] && n < 24) {
        o[n].text = ov[n];
        n++;
    }
    cn_error err = {0};
    int rc = config_load_string("t.ini", text, o, n, sc, &err);
    check_at(file, line, rc == 0, "load failed: %s", err.msg);
    return rc;
}
#define LOAD_OK(text, sc) load_ok_at(__FILE__, __LINE__, text, NULL, sc)
#define LOAD_OV(text, sc, ...)                                                                     \
    load_ok_at(__FILE__, __LINE__, text, (const char *const[]){__VA_ARGS__, NULL}, sc)

/* Loads TEXT (and one override OV, may be NULL) and expects CN_ERR_INPUT with a one-line
 * message holding every substring of WANT (NULL-terminated). */
static void expect_error_at(const char *file, int line, const char *text, const char *ov,
                            const char *const *want)
{
    config_override o = {ov, NULL};
    cn_error err = {0};
    scenario sc;
    int rc = config_load_string("t.ini", text, &o, ov ? 1 : 0, &sc, &err);
    check_at(file, line, rc == CN_ERR_INPUT && err.code == CN_ERR_INPUT,
             "expected CN_ERR_INPUT, got rc %d (%s)", rc, err.msg);
    check_at(file, line, strchr(err.msg, '\n') == NULL, "message has a newline: %s", err.msg);
    for (int i = 0; want[i]; i++)
        check_at(file, line, strstr(err.msg, want[i]) != NULL, "message '%s' lacks '%s'",
                 err.msg, want[i]);
}
#define EXPECT_ERROR(text, ov, ...)                                                                \
    expect_error_at(__FILE__, __LINE__, text, ov, (const char *const[]){__VA_ARGS__, NULL})

/* Loads TEXT with the overrides OV (NULL-terminated, may be NULL) and expects CN_ERR_INPUT
 * with exactly the message WANT. */
static void expect_message_at(const char *file, int line, const char *text,
                              const char *const *ov, const char *want)
{
    config_override o[20] = {{0}};
    int n = 0;
    while (ov && ov[n] && n < 20) {
        o[n].text = ov[n];
        n++;
    }
    cn_error err = {0};
    scenario sc;
    int rc = config_load_string("t.ini", text, o, n, &sc, &err);
    check_at(file, line, rc == CN_ERR_INPUT && err.code == CN_ERR_INPUT,
             "expected CN_ERR_INPUT, got rc %d (%s)", rc, err.msg);
    check_at(file, line, strcmp(err.msg, want) == 0, "message\n  '%s'\nexpected\n  '%s'", err.msg,
             want);
}
#define EXPECT_MESSAGE(text, want) expect_message_at(__FILE__, __LINE__, text, NULL, want)
#define EXPECT_MESSAGE_OV(text, want, ...)                                                         \
    expect_message_at(__FILE__, __LINE__, text, (const char *const[]){__VA_ARGS__, NULL}, want)

static void expect_file_error_at(const char *file, int line, const char *path,
                                 const char *const *want)
{
    cn_error err = {0};
    scenario sc;
    int rc = config_load(path, NULL, 0, &sc, &err);
    check_at(file, line, rc == CN_ERR_INPUT, "expected CN_ERR_INPUT, got %d (%s)", rc, err.msg);
    check_at(file, line, strchr(err.msg, '\n') == NULL, "message has a newline: %s", err.msg);
    for (int i = 0; want[i]; i++)
        check_at(file, line, strstr(err.msg, want[i]) != NULL, "message '%s' lacks '%s'",
                 err.msg, want[i]);
}
#define EXPECT_FILE_ERROR(path, ...)                                                               \
    expect_file_error_at(__FILE__, __LINE__, path, (const char *const[]){__VA_ARGS__, NULL})

/* Field by field, so that a failure says which field; then bytewise, padding included. */
static void check_same_scenario_at(const char *file, int line, const scenario *a,
                                   const scenario *b)
{
#define SAME(f) check_at(file, line, a->f == b->f, "field " #f " differs after reload")
#define FSAME(f) check_at(file, line, fa->f == fb->f, "field " #f " differs after reload")
#define PSAME(f) check_at(file, line, pa->f == pb->f, "field phold." #f " differs after reload")
    check_at(file, line, strcmp(a->path, b->path) == 0, "path differs");
    check_at(file, line, strcmp(a->model, b->model) == 0, "model differs");
    SAME(seed);
    SAME(duration_ns);
    /* the model's values: those of the scenario's model only (the block holds no other) */
    const flood_values *fa = flood_values_of(a), *fb = flood_values_of(b);
    const phold_values *pa = phold_values_of(a), *pb = phold_values_of(b);
    if (strcmp(a->model, "flood") == 0) {
        FSAME(placement);
        FSAME(rows);
        FSAME(cols);
        FSAME(spacing_mm);
        FSAME(nodes);
        FSAME(width_mm);
        FSAME(height_mm);
        FSAME(depth_mm);
        FSAME(areas);
        check_at(file, line, memcmp(&fa->border_links, &fb->border_links, sizeof(double)) == 0,
                 "field border_links differs after reload");
        FSAME(border_threshold);
        FSAME(connectivity);
        FSAME(range_mm);
        FSAME(range_min_mm);
        FSAME(link_threshold);
        FSAME(mob.model);
        FSAME(mob.speed_min_mm_s);
        FSAME(mob.speed_max_mm_s);
        FSAME(mob.pause_min_ms);
        FSAME(mob.pause_max_ms);
        FSAME(mob.travel_min_ms);
        FSAME(mob.travel_max_ms);
        FSAME(mob.street_spacing_mm);
        FSAME(mob.boundary);
        FSAME(n_groups);
        FSAME(n_flows);
        FSAME(source);
        FSAME(destination);
        FSAME(packets);
        FSAME(interval_ns);
        FSAME(start_ns);
        FSAME(size_bytes);
        FSAME(relay_delay_ns);
        check_at(file, line,
                 fa->drop.law == fb->drop.law &&
                     memcmp(&fa->drop.p, &fb->drop.p, sizeof(double)) == 0 &&
                     memcmp(&fa->drop.p_max, &fb->drop.p_max, sizeof(double)) == 0,
                 "field drop_probability differs after reload");
        FSAME(drop_threshold);
        FSAME(drop_threshold_max);
        FSAME(ttl);
        FSAME(scheme);
        FSAME(counter_threshold);
        FSAME(distance_threshold_mm);
        FSAME(assessment_delay_ns);
        FSAME(assessment_windows);
        FSAME(rx_capacity);
        FSAME(energy_budget.law);
        FSAME(energy_budget.a_nj);
        FSAME(energy_budget.b_nj);
        FSAME(tx_fixed_nj);
        FSAME(tx_per_byte_nj);
        FSAME(rx_fixed_nj);
        FSAME(rx_per_byte_nj);
    } else if (strcmp(a->model, "phold") == 0) {
        PSAME(lps);
        PSAME(population);
        check_at(file, line, memcmp(&pa->remote, &pb->remote, sizeof(double)) == 0,
                 "field phold.remote differs after reload");
        PSAME(remote_threshold);
        PSAME(lookahead_ns);
        PSAME(mean_ns);
    }
#undef SAME
#undef FSAME
#undef PSAME
    check_at(file, line, memcmp(a, b, sizeof *a) == 0, "structs differ bytewise");
}

/* Dump SC, load the dump under the same name, and compare. */
static void check_round_trip_at(const char *file, int line, const scenario *sc)
{
    char *text = config_dump_string(sc);
    check_at(file, line, text != NULL, "open_memstream failed");
    if (!text)
        return;
    scenario back;
    memset(&back, 0xA5, sizeof back); /* the loader must set every byte, padding included */
    cn_error err = {0};
    int rc = config_load_string(sc->path, text, NULL, 0, &back, &err);
    check_at(file, line, rc == 0, "reload of the dump failed: %s\n%s", err.msg, text);
    if (rc == 0) {
        check_same_scenario_at(file, line, sc, &back);
        char *again = config_dump_string(&back);
        check_at(file, line, again && strcmp(again, text) == 0, "second dump differs");
        free(again);
    }
    free(text);
}
#define CHECK_ROUND_TRIP(sc) check_round_trip_at(__FILE__, __LINE__, sc)

/* ---- decimal_to_scaled_int ------------------------------------------------------------------ */

static void test_decimal(void)
{
    static const struct {
        const char *text;
        int scale;
        int rc;
        int64_t value;
    } cases[] = {
        {"0.1", 9, 0, 100000000},
        {"1", 9, 0, 1000000000},
        {"1e-9", 9, 0, 1},
        {"1E-9", 9, 0, 1},
        {"0.0000000005", 9, 0, 1},   /* tie: away from zero */
        {"-0.0000000005", 9, 0, -1}, /* tie: away from zero */
        {"0.00000000049999", 9, 0, 0},
        {"0.0000000015", 9, 0, 2},
        {"-0.0000000015", 9, 0, -2},
        {"0.0000000025", 9, 0, 3}, /* not banker's rounding */
        {"2.5", 0, 0, 3},
        {"-2.5", 0, 0, -3},
        {"1.4999999999999999999999", 0, 0, 1},
        {"0.5", 0, 0, 1},
        {"0.05", 0, 0, 0},
        {"100", 3, 0, 100000},
        {"0.0005", 3, 0, 1},
        {"1.5", 3, 0, 1500},
        {".5", 3, 0, 500},
        {"5.", 3, 0, 5000},
        {"+7", 0, 0, 7},
        {"007.25", 2, 0, 725},
        {"1e3", 0, 0, 1000},
        {"1E+3", 0, 0, 1000},
        {"2.5e-1", 1, 0, 3},
        {"12345e-2", 0, 0, 123},
        {"-0", 9, 0, 0},
        {"-0.0000000001", 9, 0, 0},
        {"0e999999999999999999", 9, 0, 0},
        {"0.000", 9, 0, 0},
        {"1e-999999999999", 9, 0, 0},
        {"123456789012345678901234567890e-20", 0, 0, 1234567890},
        {"1e18", 0, 0, 1000000000000000000},
        {"9223372036854775807", 0, 0, INT64_MAX},
        {"-9223372036854775808", 0, 0, INT64_MIN},
        {"9223372036.854775807", 9, 0, INT64_MAX},
        {"9223372036.8547758074", 9, 0, INT64_MAX},
        {"-9223372036.854775808", 9, 0, INT64_MIN},
        {"9223372036854775807.4", 0, 0, INT64_MAX},
        /* overflow */
        {"9223372036.854775808", 9, -2, 0},
        {"9223372036.8547758075", 9, -2, 0}, /* rounds up past the limit */
        {"-9223372036.854775809", 9, -2, 0},
        {"9223372036854775808", 0, -2, 0},
        {"1e19", 0, -2, 0},
        {"1e999999999999", 9, -2, 0},
        {"10000000000", 9, -2, 0},
        /* not a number */
        {"", 9, -1, 0},
        {" 1", 9, -1, 0},
        {"1 ", 9, -1, 0},
        {"1.2.3", 9, -1, 0},
        {"nan", 9, -1, 0},
        {"NaN", 9, -1, 0},
        {"inf", 9, -1, 0},
        {"-inf", 9, -1, 0},
        {"infinity", 9, -1, 0},
        {"1e", 9, -1, 0},
        {"1e+", 9, -1, 0},
        {"e5", 9, -1, 0},
        {".", 9, -1, 0},
        {"+", 9, -1, 0},
        {"-", 9, -1, 0},
        {"--1", 9, -1, 0},
        {"+-1", 9, -1, 0},
        {"1x", 9, -1, 0},
        {"0x10", 9, -1, 0},
        {"0x1p3", 9, -1, 0},
        {"1,5", 9, -1, 0},
        {"1_000", 9, -1, 0},
        {"1 e3", 9, -1, 0},
        {"1e3.5", 9, -1, 0},
        {"1s", 9, -1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t v = 12345;
        int rc = decimal_to_scaled_int(cases[i].text, cases[i].scale, &v);
        check_at(__FILE__, __LINE__, rc == cases[i].rc,
                 "decimal_to_scaled_int(\"%s\", %d) rc %d, expected %d",
                 cases[i].text, cases[i].scale, rc, cases[i].rc);
        if (cases[i].rc == 0)
            check_at(__FILE__, __LINE__, v == cases[i].value,
                     "decimal_to_scaled_int(\"%s\", %d) = %lld, expected %lld", cases[i].text,
                     cases[i].scale, (long long)v, (long long)cases[i].value);
        else
            check_at(__FILE__, __LINE__, v == 12345, "\"%s\": output written on error",
                     cases[i].text);
    }
    int64_t v = 0;
    CHECK(decimal_to_scaled_int(NULL, 9, &v) == -1);
}

/* ---- defaults, units, derived fields ------------------------------------------------------- */

static void test_defaults(void)
{
    scenario sc;
    if (LOAD_OK("", &sc))
        return;
    CHECK(strcmp(sc.path, "t.ini") == 0);
    CHECK(strcmp(sc.model, "flood") == 0);
    CHECK_U64(sc.seed, 1);
    CHECK_I64(sc.duration_ns, 0);
    CHECK_I64(flood_values_of(&sc)->placement, PLACEMENT_GRID);
    CHECK_I64(flood_values_of(&sc)->rows, 10);
    CHECK_I64(flood_values_of(&sc)->cols, 10);
    CHECK_I64(flood_values_of(&sc)->spacing_mm, 100000);
    CHECK_I64(flood_values_of(&sc)->nodes, 100);
    CHECK_I64(flood_node_count(flood_values_of(&sc)), 100);
    CHECK_I64(flood_values_of(&sc)->width_mm, 0);
    CHECK_I64(flood_values_of(&sc)->height_mm, 0);
    CHECK_I64(flood_values_of(&sc)->depth_mm, 0);
    CHECK_I64(flood_values_of(&sc)->areas, 6);
    CHECK(flood_values_of(&sc)->border_links == 0.1);
    CHECK_U64(flood_values_of(&sc)->border_threshold, 429496729); /* floor(0.1 x 2^32) */
    CHECK_I64(flood_values_of(&sc)->connectivity, CONNECTIVITY_UDG);
    CHECK_I64(flood_values_of(&sc)->range_mm, 100000);
    CHECK_I64(flood_values_of(&sc)->mob.model, MOBILITY_STATIC);
    CHECK_I64(flood_values_of(&sc)->mob.speed_min_mm_s, 1000);
    CHECK_I64(flood_values_of(&sc)->mob.speed_max_mm_s, 5000);
    CHECK_I64(flood_values_of(&sc)->mob.pause_min_ms, 0);
    CHECK_I64(flood_values_of(&sc)->mob.pause_max_ms, 0);
    CHECK_I64(flood_values_of(&sc)->source, 0);
    CHECK_I64(flood_values_of(&sc)->destination, 99);
    CHECK_I64(flood_values_of(&sc)->packets, 1);
    CHECK_I64(flood_values_of(&sc)->interval_ns, 1000000000);
    CHECK_I64(flood_values_of(&sc)->start_ns, 0);
    CHECK_I64(flood_values_of(&sc)->size_bytes, 512);
    CHECK_I64(flood_values_of(&sc)->relay_delay_ns, 1000000000);
    CHECK(flood_values_of(&sc)->drop.p == 0.0);
    CHECK_U64(flood_values_of(&sc)->drop_threshold, 0);
    CHECK_I64(flood_values_of(&sc)->ttl, 0);
    CHECK_I64(flood_values_of(&sc)->scheme, SCHEME_PROBABILISTIC);
    CHECK_I64(flood_values_of(&sc)->counter_threshold, 3);
    CHECK_I64(flood_values_of(&sc)->distance_threshold_mm, 0);
    CHECK_I64(flood_values_of(&sc)->assessment_delay_ns, 0);
    CHECK_I64(flood_values_of(&sc)->assessment_windows, 0);
    CHECK_I64(sc.on_failure, ON_FAILURE_STOP);

    /* No file at all: defaults, and path "". */
    cn_error err = {0};
    scenario none;
    CHECK(config_load(NULL, NULL, 0, &none, &err) == 0);
    CHECK(none.path[0] == '\0');
    CHECK_I64(flood_values_of(&none)->destination, 99);
}

static void test_units(void)
{
    scenario sc;
    if (LOAD_OK("[simulation]\nseed = 0xFFFFFFFFFFFFFFFF\nduration = 3600.5\n"
                "[topology]\nplacement = uniform\nnodes = 300\nwidth = 1000.0005\n"
                "height = 2e3\ndepth = 0.0004\n"
                "[connectivity]\nrange = 99.9999\n"
                "[mobility]\nmodel = rwp\nspeed_min = 0.5\nspeed_max = 2.25\n"
                "pause_min = 0.0015\npause_max = 60\n"
                "[traffic]\nsource = 7\ndestination = 8\npackets = 20\ninterval = 0.25\n"
                "start = 1e-9\nsize = 1500\n"
                "[flood]\nrelay_delay = 0.001\ndrop_probability = 0.25\nttl = 12\n",
                &sc))
        return;
    CHECK_U64(sc.seed, UINT64_MAX);
    CHECK_I64(sc.duration_ns, 3600500000000);
    CHECK_I64(flood_values_of(&sc)->placement, PLACEMENT_UNIFORM);
    CHECK_I64(flood_values_of(&sc)->nodes, 300);
    CHECK_I64(flood_node_count(flood_values_of(&sc)), 300);
    CHECK_I64(flood_values_of(&sc)->width_mm, 1000001); /* 1000000.5 mm, tie away from zero */
    CHECK_I64(flood_values_of(&sc)->height_mm, 2000000);
    CHECK_I64(flood_values_of(&sc)->depth_mm, 0);
    CHECK_I64(flood_values_of(&sc)->range_mm, 100000);
    CHECK_I64(flood_values_of(&sc)->mob.model, MOBILITY_RWP);
    CHECK_I64(flood_values_of(&sc)->mob.speed_min_mm_s, 500);
    CHECK_I64(flood_values_of(&sc)->mob.speed_max_mm_s, 2250);
    CHECK_I64(flood_values_of(&sc)->mob.pause_min_ms, 2);
    CHECK_I64(flood_values_of(&sc)->mob.pause_max_ms, 60000);
    CHECK_I64(flood_values_of(&sc)->source, 7);
    CHECK_I64(flood_values_of(&sc)->destination, 8);
    CHECK_I64(flood_values_of(&sc)->packets, 20);
    CHECK_I64(flood_values_of(&sc)->interval_ns, 250000000);
    CHECK_I64(flood_values_of(&sc)->start_ns, 1);
    CHECK_I64(flood_values_of(&sc)->size_bytes, 1500);
    CHECK_I64(flood_values_of(&sc)->relay_delay_ns, 1000000);
    CHECK(flood_values_of(&sc)->drop.p == 0.25);
    CHECK_U64(flood_values_of(&sc)->drop_threshold, 1073741824);
    CHECK_I64(flood_values_of(&sc)->ttl, 12);

    if (LOAD_OK("[simulation]\nseed = 18446744073709551615\n", &sc) == 0)
        CHECK_U64(sc.seed, UINT64_MAX);
    if (LOAD_OK("[simulation]\nseed = 0\n", &sc) == 0)
        CHECK_U64(sc.seed, 0);
    if (LOAD_OK("[simulation]\nseed = 0x10\n", &sc) == 0)
        CHECK_U64(sc.seed, 16);
    if (LOAD_OK("[simulation]\nseed = 0Xab\n", &sc) == 0)
        CHECK_U64(sc.seed, 0xab);
}

static void test_drop_threshold(void)
{
    static const struct {
        const char *p;
        uint64_t thr;
    } cases[] = {
        {"0", 0},
        {"0.1", 429496729}, /* floor(0.1 * 2^32) = floor(429496729.6) */
        {"0.5", 2147483648u},
        {"1", (uint64_t)1 << 32},
        {"1.0", (uint64_t)1 << 32},
        {"0.25", 1073741824},
        {"-0", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[64], ov[64];
        snprintf(text, sizeof text, "[flood]\ndrop_probability = %s\n", cases[i].p);
        scenario sc;
        if (LOAD_OK(text, &sc) == 0)
            check_at(__FILE__, __LINE__, flood_values_of(&sc)->drop_threshold == cases[i].thr,
                     "p = %s: threshold %llu, expected %llu", cases[i].p,
                     (unsigned long long)flood_values_of(&sc)->drop_threshold, (unsigned long long)cases[i].thr);
        snprintf(ov, sizeof ov, "flood.drop_probability=%s", cases[i].p);
        if (LOAD_OV("", &sc, ov) == 0)
            CHECK_U64(flood_values_of(&sc)->drop_threshold, cases[i].thr);
    }
    scenario sc;
    if (LOAD_OK("[flood]\ndrop_probability = -0\n", &sc) == 0)
        CHECK(!signbit(flood_values_of(&sc)->drop.p)); /* stored as +0, so the dump writes "0" */
}

static void test_derived(void)
{
    scenario sc;
    if (LOAD_OK("[topology]\nrows = 20\ncols = 20\n", &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->nodes, 400);
        CHECK_I64(flood_values_of(&sc)->destination, 399);
    }
    if (LOAD_OK("[topology]\nplacement = uniform\nnodes = 300\nwidth = 10\nheight = 10\n",
                &sc) == 0)
        CHECK_I64(flood_values_of(&sc)->destination, 299);
    if (LOAD_OK("[traffic]\ndestination = 5\n", &sc) == 0)
        CHECK_I64(flood_values_of(&sc)->destination, 5);
    if (LOAD_OK("[traffic]\nsource = 99\ndestination = 0\n", &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->source, 99);
        CHECK_I64(flood_values_of(&sc)->destination, 0);
    }
    /* nodes consistent with rows x cols is accepted for a grid. */
    if (LOAD_OK("[topology]\nrows = 3\ncols = 4\nnodes = 12\n", &sc) == 0)
        CHECK_I64(flood_values_of(&sc)->nodes, 12);
    /* A mobile grid takes its bounding box as area when width / height are 0. */
    const char *mobile_grid =
        "[topology]\nrows = 3\ncols = 5\nspacing = 10\n[mobility]\nmodel = rwp\n";
    if (LOAD_OK(mobile_grid, &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->width_mm, 40000);
        CHECK_I64(flood_values_of(&sc)->height_mm, 20000);
        CHECK_I64(flood_values_of(&sc)->depth_mm, 0);
    }
    if (LOAD_OV(mobile_grid, &sc, "topology.width=7") == 0) {
        CHECK_I64(flood_values_of(&sc)->width_mm, 7000);
        CHECK_I64(flood_values_of(&sc)->height_mm, 20000);
    }
    if (LOAD_OK("[topology]\nrows = 3\ncols = 5\nspacing = 10\n", &sc) == 0)
        CHECK_I64(flood_values_of(&sc)->width_mm, 0); /* static grid: no area needed */
    /* Only a grid line of two nodes: the smallest scenario. */
    if (LOAD_OK("[topology]\nrows = 1\ncols = 2\n", &sc) == 0)
        CHECK_I64(flood_node_count(flood_values_of(&sc)), 2);
}

/* ---- INI syntax details ---------------------------------------------------------------------- */

static void test_syntax(void)
{
    scenario sc;
    /* Indented keys are plain keys, not inih continuation lines. */
    if (LOAD_OK("[flood]\n  relay_delay = 2\n\tttl = 3\n", &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->relay_delay_ns, 2000000000);
        CHECK_I64(flood_values_of(&sc)->ttl, 3);
    }
    /* Comments, CRLF, a BOM, ':' as separator, spaces inside the brackets, no final newline. */
    if (LOAD_OK("\xEF\xBB\xBF; scenario\r\n# another comment\r\n[ flood ]\r\nttl = 4 ; hops\r\n"
                "relay_delay: 3\r\n\r\n[traffic]\npackets=5",
                &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->ttl, 4);
        CHECK_I64(flood_values_of(&sc)->relay_delay_ns, 3000000000);
        CHECK_I64(flood_values_of(&sc)->packets, 5);
    }
    /* A section may appear twice; its keys may not. */
    if (LOAD_OK("[flood]\nttl = 1\n[traffic]\npackets = 2\n[flood]\nrelay_delay = 2\n", &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->ttl, 1);
        CHECK_I64(flood_values_of(&sc)->relay_delay_ns, 2000000000);
    }
    /* Lines up to 197 characters are read; longer ones are an error, not a silent split. */
    char text[512];
    snprintf(text, sizeof text, "[flood]\n;%0196d\nttl = 2\n", 0);
    if (LOAD_OK(text, &sc) == 0)
        CHECK_I64(flood_values_of(&sc)->ttl, 2);
    snprintf(text, sizeof text, "[flood]\n;%0197d\nttl = 2\n", 0);
    EXPECT_ERROR(text, NULL, "t.ini:2: ", "198 characters", "at most 197");
    snprintf(text, sizeof text, "[flood]\nttl = 2\n\nrelay_delay = 1%0240d\n", 0);
    EXPECT_ERROR(text, NULL, "t.ini:4: ", "255 characters");
    /* After a section's ']' only a comment may follow: inih would drop the rest. */
    if (LOAD_OK("[flood] ; the flood\nttl = 2\n[traffic]\t# the packets\npackets = 3\n"
                "[simulation];x\nseed = 4\n[topology]#y\nrows = 5\n[connectivity]  \n"
                "range = 7\n", &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->ttl, 2);
        CHECK_I64(flood_values_of(&sc)->packets, 3);
        CHECK_I64((int64_t)sc.seed, 4);
        CHECK_I64(flood_values_of(&sc)->rows, 5);
        CHECK_I64(flood_values_of(&sc)->range_mm, 7000);
    }
    EXPECT_MESSAGE("[simulation]\nseed = 2\n[flood] relay_delay = 0.5\n",
                   "t.ini:3: section line '[flood] relay_delay = 0.5' has text after ']'; "
                   "expected nothing or a comment (';' or '#') after the section name, and each "
                   "key = value on a line of its own");
    EXPECT_MESSAGE("\xEF\xBB\xBF[flood]x\nttl = 2\n",
                   "t.ini:1: section line '[flood]x' has text after ']'; expected nothing or a "
                   "comment (';' or '#') after the section name, and each key = value on a line "
                   "of its own");
    EXPECT_MESSAGE("[flood]\nttl = 2\n  [traffic] ]\n",
                   "t.ini:3: section line '[traffic] ]' has text after ']'; expected nothing or a "
                   "comment (';' or '#') after the section name, and each key = value on a line "
                   "of its own");
    /* the first error is the one reported, a section line's as any other */
    EXPECT_ERROR("[flood] ttl = 2\nttl = x\n", NULL, "t.ini:1: section line '[flood] ttl = 2'");
    EXPECT_ERROR("[traffic.flow a] x\n", NULL, "t.ini:1: section line '[traffic.flow a] x'");
}

/* ---- errors, one class at a time --------------------------------------------------------- */

static void test_errors_names(void)
{
    EXPECT_ERROR("[flood]\nttl = 1\n[flod]\nrelay_delay = 2\n", NULL,
                 "t.ini:4: unknown section [flod] (key 'relay_delay'); did you mean [flood]?");
    EXPECT_ERROR("[network]\nx = 1\n", NULL, "t.ini:2: unknown section [network]",
                 "expected one of: simulation, topology, areas, connectivity, mobility, "
                 "mobility.group NAME, traffic, traffic.flow NAME, flood, resources, partition, "
                 "inject, devices");
    EXPECT_ERROR("\n[flood]\nrelay_dealy = 1\n", NULL,
                 "t.ini:3: [flood] unknown key 'relay_dealy'; did you mean 'relay_delay'?");
    EXPECT_ERROR("[flood]\ndrop = 0.1\n", NULL, "t.ini:2: [flood] unknown key 'drop'",
                 "did you mean 'drop_probability'?");
    EXPECT_ERROR("[topology]\nrange = 50\n", NULL, "t.ini:2: [topology] unknown key 'range'",
                 "'range' is a key of [connectivity]");
    EXPECT_ERROR("[mobility]\nspacing_x = 5\n", NULL, "[mobility] unknown key 'spacing_x'",
                 "did you mean 'spacing' of [topology]?");
    EXPECT_ERROR("[flood]\nfoo = 1\n", NULL,
                 "t.ini:2: [flood] unknown key 'foo'; the keys of [flood] are: relay_delay, "
                 "drop_probability, ttl, scheme, counter_threshold, distance_threshold, "
                 "assessment_delay");
    EXPECT_ERROR("seed = 3\n", NULL, "t.ini:1: seed = 3 is outside any section");
    EXPECT_ERROR("[flood]\n= 3\n", NULL, "t.ini:2: [flood]", "no key name");
    /* Duplicates: same section and key twice in the file, even across repeated sections. */
    EXPECT_ERROR("[flood]\nttl = 1\n\nttl = 2\n", NULL,
                 "t.ini:4: [flood] ttl is set twice (first on line 2)");
    EXPECT_ERROR("[flood]\nttl=1\n[traffic]\npackets=2\n[flood]\nttl=1\n", NULL,
                 "t.ini:6: [flood] ttl is set twice (first on line 2)");
    /* inih syntax errors */
    EXPECT_ERROR("[flood]\nttl 3\n", NULL, "t.ini:2: 'ttl 3' is neither 'key = value'");
    EXPECT_ERROR("[flood\nttl = 3\n", NULL, "t.ini:1: section line '[flood' has no closing ']'");
    /* The first error in the file is the one reported. */
    EXPECT_ERROR("[flood]\nttl 3\nrelay_delay = x\n", NULL, "t.ini:2:");
    EXPECT_ERROR("[flood]\nrelay_delay = x\nttl 3\n", NULL, "t.ini:2: [flood] relay_delay = x");
    char text[512];
    snprintf(text, sizeof text, "[flood]\nrelay_delay = x\n;%0300d\n", 0);
    EXPECT_ERROR(text, NULL, "t.ini:2: [flood] relay_delay = x");
}

static void test_errors_values(void)
{
    /* The style example of the brief, verbatim. */
    EXPECT_ERROR("[flood]\nrelay_delay = -1\n", NULL,
                 "t.ini:2: [flood] relay_delay = -1: expected a time in seconds in (0, "
                 "2305843009.213693952]");
    EXPECT_ERROR("[flood]\nrelay_delay = 0\n", NULL,
                 "t.ini:2: [flood] relay_delay = 0: expected a time in seconds in (0, "
                 "2305843009.213693952]");
    static const char *const malformed[] = {"1.2.3", "nan", "inf", "1x", "--1", "0x1", "1e", "1,5"};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        char text[64], want[128];
        snprintf(text, sizeof text, "[flood]\nrelay_delay = %s\n", malformed[i]);
        snprintf(want, sizeof want, "t.ini:2: [flood] relay_delay = %s: not a number; expected a "
                                    "time in seconds in (0, 2305843009.213693952]",
                 malformed[i]);
        EXPECT_ERROR(text, NULL, want);
    }
    EXPECT_ERROR("[flood]\nrelay_delay =\n", NULL, "t.ini:2: [flood] relay_delay = : empty value");
    EXPECT_ERROR("[flood]\nttl = 3 # hops\n", NULL, "t.ini:2: [flood] ttl = 3 # hops: not a number",
                 "' ;'");
    EXPECT_ERROR("[flood]\nttl = -1\n", NULL,
                 "t.ini:2: [flood] ttl = -1: expected an integer in [0, 2147483647] (hops)");
    EXPECT_ERROR("[flood]\nttl = 2.5\n", NULL, "[flood] ttl = 2.5: not an integer");
    EXPECT_ERROR("[flood]\nttl = 1e3\n", NULL, "[flood] ttl = 1e3: not an integer");
    EXPECT_ERROR("[traffic]\npackets = 0\n", NULL,
                 "t.ini:2: [traffic] packets = 0: expected an integer in [1, 2000000000] "
                 "(packets)");
    EXPECT_ERROR("[traffic]\npackets = 2000000001\n", NULL, "[traffic] packets = 2000000001:");
    EXPECT_ERROR("[traffic]\npackets = 99999999999999999999\n", NULL,
                 "[traffic] packets = 99999999999999999999: does not fit in int64");
    EXPECT_ERROR("[traffic]\ndestination = -2\n", NULL, "[traffic] destination = -2: expected an "
                                                        "integer in [-1, 1999999999]");
    EXPECT_ERROR("[flood]\ndrop_probability = 1.5\n", NULL,
                 "t.ini:2: [flood] drop_probability = 1.5: expected a probability in [0, 1]");
    EXPECT_ERROR("[flood]\ndrop_probability = -0.1\n", NULL, "expected a probability in [0, 1]");
    EXPECT_ERROR("[flood]\ndrop_probability = nan\n", NULL, "drop_probability = nan: not a number");
    EXPECT_ERROR("[flood]\ndrop_probability = inf\n", NULL, "drop_probability = inf: not a number");
    EXPECT_ERROR("[flood]\ndrop_probability = 0x0.8p0\n", NULL, "not a number");
    EXPECT_ERROR("[flood]\ndrop_probability = 1e400\n", NULL, "expected a probability in [0, 1]");
    EXPECT_ERROR("[topology]\nspacing = 3000000\n", NULL,
                 "t.ini:2: [topology] spacing = 3000000: expected a length in metres in [0, "
                 "2147483.647]");
    EXPECT_ERROR("[connectivity]\nrange = 0\n", NULL,
                 "t.ini:2: [connectivity] range = 0: expected a length in metres in (0, "
                 "2147483.647]");
    EXPECT_ERROR("[mobility]\nspeed_max = -1\n", NULL,
                 "expected a speed in m/s in [0, 4294967.295]");
    EXPECT_ERROR("[mobility]\npause_max = 5000000\n", NULL,
                 "[mobility] pause_max = 5000000: expected a time in seconds in [0, 4294967.295]");
    /* Overflow after the conversion to ns or mm. */
    EXPECT_ERROR("[simulation]\nduration = 1e10\n", NULL,
                 "t.ini:2: [simulation] duration = 1e10: does not fit in int64 nanoseconds");
    EXPECT_ERROR("[traffic]\nstart = 9223372036.854775808\n", NULL,
                 "[traffic] start = 9223372036.854775808: does not fit in int64 nanoseconds");
    EXPECT_ERROR("[topology]\nwidth = 1e16\n", NULL,
                 "[topology] width = 1e16: does not fit in int64 millimetres");
    /* Enumerations list what they accept. */
    EXPECT_ERROR("[topology]\nplacement = hexagon\n", NULL,
                 "t.ini:2: [topology] placement = hexagon: expected one of: grid, uniform, areas");
    EXPECT_ERROR("[mobility]\nmodel = RWP\n", NULL,
                 "[mobility] model = RWP: expected one of: static, rwp, linear, random_walk, "
                 "random_direction, grid_walk");
    EXPECT_ERROR("[connectivity]\nmodel = sinr\n", NULL,
                 "[connectivity] model = sinr: expected one of: udg, qudg");
    /* qudg: r_min <= r_max; link_probability a probability; thresholds derived */
    EXPECT_ERROR("[connectivity]\nmodel = qudg\nrange = 50\nrange_min = 60\n", NULL,
                 "t.ini:4: [connectivity] range_min = 60 m is above range = 50 m: expected "
                 "range_min <= range");
    EXPECT_ERROR("[connectivity]\nmodel = qudg\nlink_probability = 1.5\n", NULL,
                 "t.ini:3: [connectivity] link_probability = 1.5: expected a probability in "
                 "[0, 1]");
    {
        scenario q;
        if (LOAD_OK("[connectivity]\nmodel = qudg\nrange = 50\nrange_min = 20\n"
                    "link_probability = 0.25\n", &q) == 0) {
            CHECK_I64(flood_values_of(&q)->connectivity, CONNECTIVITY_QUDG);
            CHECK_I64(flood_values_of(&q)->range_min_mm, 20000);
            CHECK_I64((int64_t)flood_values_of(&q)->link_threshold, (int64_t)1 << 30);
            CHECK_ROUND_TRIP(&q);
        }
        /* udg ignores the qudg keys, even out of order */
        if (LOAD_OK("[connectivity]\nrange = 50\nrange_min = 80\n", &q) == 0)
            CHECK_I64(flood_values_of(&q)->connectivity, CONNECTIVITY_UDG);
        if (LOAD_OK("[connectivity]\nmodel = qudg\nlink_probability = 1\n", &q) == 0)
            CHECK_I64((int64_t)flood_values_of(&q)->link_threshold, (int64_t)1 << 32);
    }
    /* drop_probability: a constant, or uniform(a, b) drawn per node */
    {
        scenario q;
        if (LOAD_OK("[flood]\ndrop_probability = uniform( 0.05 ,0.3)\n", &q) == 0) {
            CHECK_I64(flood_values_of(&q)->drop.law, LAW_UNIFORM);
            CHECK(flood_values_of(&q)->drop.p == 0.05 && flood_values_of(&q)->drop.p_max == 0.3);
            CHECK_I64((int64_t)flood_values_of(&q)->drop_threshold, (int64_t)philox_threshold(0.05));
            CHECK_I64((int64_t)flood_values_of(&q)->drop_threshold_max, (int64_t)philox_threshold(0.3));
            CHECK_ROUND_TRIP(&q);
        }
        if (LOAD_OK("[flood]\ndrop_probability = 0.3\n", &q) == 0) {
            CHECK_I64(flood_values_of(&q)->drop.law, LAW_CONSTANT);
            CHECK_I64((int64_t)flood_values_of(&q)->drop_threshold_max, (int64_t)flood_values_of(&q)->drop_threshold);
        }
    }
    EXPECT_ERROR("[flood]\ndrop_probability = uniform(0.3, 0.2)\n", NULL,
                 "t.ini:2: [flood] drop_probability = uniform(0.3, 0.2): the lower bound is "
                 "above the upper one; expected a probability in [0, 1] or uniform(a, b)");
    EXPECT_ERROR("[flood]\ndrop_probability = uniform(0.3, 2)\n", NULL,
                 "uniform(0.3, 2): the upper bound is not a probability");
    EXPECT_ERROR("[flood]\ndrop_probability = uniform(nan, 0.2)\n", NULL,
                 "the lower bound is not a probability");
    EXPECT_ERROR("[flood]\ndrop_probability = uniform(0.3)\n", NULL, "not uniform(a, b)");
    EXPECT_ERROR("[flood]\ndrop_probability = normal(0.3, 0.1)\n", NULL,
                 "unknown law (only uniform is drawn per node)");
    /* max_neighbors: an integer cap up to SCENARIO_MAX_NEIGHBORS, 0 for none */
    EXPECT_ERROR("[connectivity]\nmax_neighbors = 1025\n", NULL,
                 "t.ini:2: [connectivity] max_neighbors = 1025: expected an integer in [0, "
                 "1024]");
    EXPECT_ERROR("[connectivity]\nmax_neighbors = -1\n", NULL,
                 "[connectivity] max_neighbors = -1: expected an integer in [0, 1024]");
    EXPECT_ERROR("[connectivity]\nmax_neighbors = 2.5\n", NULL,
                 "[connectivity] max_neighbors = 2.5: not an integer");
    EXPECT_ERROR("[connectivity]\nmax_neighbour = 3\n", NULL,
                 "unknown key 'max_neighbour'; did you mean 'max_neighbors'?");
    {
        scenario q;
        if (LOAD_OK("[connectivity]\nmodel = qudg\nmax_neighbors = 12\n", &q) == 0) {
            CHECK_I64(flood_values_of(&q)->max_neighbors, 12);
            CHECK_ROUND_TRIP(&q);
        }
        if (LOAD_OK("[connectivity]\nrange = 50\n", &q) == 0)
            CHECK_I64(flood_values_of(&q)->max_neighbors, 0);
    }
    EXPECT_MESSAGE("[simulation]\nmodel = hold\n",
                   "t.ini:2: [simulation] model = hold: expected one of: flood, phold, kademlia");
    EXPECT_ERROR("[topology]\nplacement =\n", NULL, "[topology] placement = : empty value");
    /* Seeds */
    EXPECT_ERROR("[simulation]\nseed = 18446744073709551616\n", NULL,
                 "[simulation] seed = 18446744073709551616: does not fit in 64 bits");
    EXPECT_ERROR("[simulation]\nseed = 0x10000000000000000\n", NULL, "does not fit in 64 bits");
    EXPECT_ERROR("[simulation]\nseed = -1\n", NULL, "[simulation] seed = -1: not a number",
                 "decimal or 0x hex");
    EXPECT_ERROR("[simulation]\nseed = 0x\n", NULL, "seed = 0x: not a number");
    EXPECT_ERROR("[simulation]\nseed = 0x1g\n", NULL, "seed = 0x1g: not a number");
    EXPECT_ERROR("[simulation]\nseed = 1.0\n", NULL, "seed = 1.0: not a number");
}

static void test_errors_cross(void)
{
    EXPECT_ERROR("[topology]\nrows = 3\ncols = 3\n[partition]\ncount = 10\n", NULL,
                 "t.ini:5: [partition] count = 10: a scenario of 9 nodes has at most 9 partitions");
    EXPECT_ERROR("[inject]\npolicy = fastest\n", NULL, "t.ini:2: [inject] policy",
                 "static, rapid, advanced, hybrid");
    EXPECT_ERROR("[inject]\ncalibration_share = 1.5\n", NULL,
                 "t.ini:2: [inject] calibration_share = 1.5");
    EXPECT_ERROR("[devices]\non_failure = retry\n", NULL, "t.ini:2: [devices] on_failure",
                 "stop, continue");
    EXPECT_ERROR("[partition]\nretile = -1\n", NULL, "t.ini:2: [partition] retile = -1");
    EXPECT_ERROR("[mobility]\nspeed_min = 5\nspeed_max = 1\n", NULL,
                 "t.ini:3: [mobility] speed_min = 5 m/s is above speed_max = 1 m/s",
                 "expected speed_min <= speed_max");
    EXPECT_ERROR("[mobility]\npause_max = 1\npause_min = 2\n", NULL,
                 "t.ini:3: [mobility] pause_min = 2 s is above pause_max = 1 s",
                 "expected pause_min <= pause_max");
    EXPECT_ERROR("[mobility]\nmodel = rwp\nspeed_min = 0\nspeed_max = 0\n", NULL,
                 "t.ini:4: [mobility] model = rwp with speed_max = 0", "expected speed_max > 0");
    EXPECT_ERROR("[mobility]\nmodel = random_walk\nspeed_min = 0\nspeed_max = 0\n", NULL,
                 "t.ini:4: [mobility] model = random_walk with speed_max = 0",
                 "expected speed_max > 0");
    EXPECT_ERROR("[mobility]\nmodel = random_direction\ntravel_min = 9\ntravel_max = 3\n", NULL,
                 "t.ini:4: [mobility] travel_min = 9 s is above travel_max = 3 s",
                 "expected travel_min <= travel_max");
    EXPECT_ERROR("[mobility]\nmodel = random_direction\ntravel_min = 0\n", NULL,
                 "t.ini:3: [mobility] travel_min = 0");
    EXPECT_ERROR("[mobility]\nmodel = grid_walk\nspeed_max = 1000\nstreet_spacing = 10\n", NULL,
                 "[mobility] model = grid_walk with speed_max = 1000 m/s and [flood] relay_delay "
                 "= 1 s passes more than 64 street intersections per window");
    EXPECT_ERROR("[mobility]\nmodel = linear\nboundary = reflect\n", NULL,
                 "t.ini:3: [mobility] boundary = reflect: expected one of: stop, slide, bounce, "
                 "wrap");
    EXPECT_ERROR("[mobility]\nmodel = rwp\nspeed_max = 4294967.295\n[flood]\nrelay_delay = 3\n",
                 NULL, "t.ini:5: [mobility] speed_max = 4294967.295 m/s with [flood] relay_delay "
                       "= 3 s");
    EXPECT_ERROR("[traffic]\nsource = 100\n", NULL,
                 "t.ini:2: [traffic] source = 100: expected a node id in [0, 99]");
    EXPECT_ERROR("[traffic]\ndestination = 100\n", NULL,
                 "t.ini:2: [traffic] destination = 100: expected a node id in [0, 99] or -1");
    EXPECT_ERROR("[traffic]\nsource = 99\n", NULL,
                 "t.ini:2: [traffic] source = 99 and destination = -1 (the last node) are the "
                 "same node");
    EXPECT_ERROR("[traffic]\nsource = 4\ndestination = 4\n", NULL,
                 "t.ini:3: [traffic] source = 4 and destination = 4 are the same node");
    EXPECT_ERROR("[topology]\nrows = 1\ncols = 1\n", NULL, "t.ini:3: [topology] rows x cols",
                 "at least 2 nodes");
    EXPECT_ERROR("[topology]\nrows = 0\n", NULL,
                 "t.ini:2: [topology] rows = 0, cols = 10: grid placement needs rows >= 1");
    EXPECT_ERROR("[topology]\nspacing = 0\n", NULL,
                 "t.ini:2: [topology] spacing = 0: grid placement needs spacing > 0");
    EXPECT_ERROR("[topology]\nrows = 2000000000\ncols = 2\n", NULL,
                 "t.ini:3: [topology] rows x cols = 2000000000 x 2", "at most 2000000000 nodes");
    EXPECT_ERROR("[topology]\ncols = 3000\nspacing = 1000\n", NULL,
                 "t.ini:3: [topology] the grid of rows = 10, cols = 3000, spacing = 1000 m is too "
                 "large");
    EXPECT_ERROR("[topology]\nnodes = 50\n", NULL,
                 "t.ini:2: [topology] nodes = 50 but rows x cols = 100");
    EXPECT_ERROR("[topology]\nplacement = uniform\nnodes = 1\nwidth = 5\nheight = 5\n", NULL,
                 "t.ini:3: [topology] nodes = 1: uniform placement needs nodes >= 2");
    EXPECT_ERROR("[topology]\nplacement = uniform\nwidth = 100\n", NULL,
                 "t.ini:3: [topology] width = 100 m, height = 0 m: uniform placement needs width "
                 "> 0 and height > 0");
    EXPECT_ERROR("[traffic]\npackets = 2\ninterval = 0\n", NULL,
                 "t.ini:3: [traffic] interval = 0 with packets = 2: expected interval > 0");
    EXPECT_ERROR("[traffic]\npackets = 2000000000\ninterval = 1e9\n", NULL,
                 "t.ini:3: [traffic] start + (packets - 1) x interval",
                 "does not fit in int64 nanoseconds");
    EXPECT_ERROR("[traffic]\npackets = 5\nstart = 2e9\ninterval = 2e9\n", NULL,
                 "[traffic] start + (packets - 1) x interval = 2000000000 + 4 x 2000000000 s");
    /* Cross-key errors point at the override when one is involved. */
    EXPECT_ERROR("[mobility]\nspeed_min = 2\n", "mobility.speed_max=1",
                 "-s argument 'mobility.speed_max=1': [mobility] speed_min = 2 m/s is above");
    /* Built-in defaults only: the message says so. */
    cn_error err = {0};
    scenario sc;
    config_override o = {"topology.rows=1", NULL};
    config_override o2 = {"topology.cols=1", NULL};
    config_override both[2] = {o, o2};
    CHECK(config_load(NULL, both, 2, &sc, &err) == CN_ERR_INPUT);
    CHECK(strstr(err.msg, "-s argument 'topology.") != NULL);
}

static void test_file_errors(void)
{
    EXPECT_FILE_ERROR("/nonexistent-clnetsim-dir/missing.ini",
                      "/nonexistent-clnetsim-dir/missing.ini: cannot open the scenario file: No "
                      "such file or directory");
    const char *tmp = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/test_config.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        check_at(__FILE__, __LINE__, 0, "mkdtemp: %s", strerror(errno));
        return;
    }
    /* A directory opens but cannot be read. */
    EXPECT_FILE_ERROR(dir, dir, "cannot read the scenario file: Is a directory");

    char path[600];
    snprintf(path, sizeof path, "%s/s.ini", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("; a real file\n[flood]\nttl = 3\nrelay_delay = 0.5\n", f);
    fclose(f);
    scenario sc;
    cn_error err = {0};
    config_override o = {"flood.ttl=4", NULL};
    CHECK(config_load(path, &o, 1, &sc, &err) == 0);
    CHECK(strcmp(sc.path, path) == 0);
    CHECK_I64(flood_values_of(&sc)->ttl, 4);
    CHECK_I64(flood_values_of(&sc)->relay_delay_ns, 500000000);

    f = fopen(path, "w");
    if (f) {
        fputs("[flood]\n\nttl = x\n", f);
        fclose(f);
    }
    char want[1000];
    snprintf(want, sizeof want, "%s:3: [flood] ttl = x: not a number", path);
    EXPECT_FILE_ERROR(path, want);

    f = fopen(path, "w");
    if (f) {
        fwrite("[flood]\nttl = 3\n\0\n", 1, 18, f);
        fclose(f);
    }
    snprintf(want, sizeof want, "%s:3: contains a NUL byte", path);
    EXPECT_FILE_ERROR(path, want);

    /* A file that sets no key would run the defaults in its name: refused, unless an
     * override sets a key (the defaults are then what is asked for). */
    static const char *const keyless[] = {"", "\n\n", "; only a comment\n# and another\n",
                                          "[flood]\n[traffic] ; none\n\n"};
    for (size_t i = 0; i < sizeof keyless / sizeof keyless[0]; i++) {
        f = fopen(path, "w");
        if (f) {
            fputs(keyless[i], f);
            fclose(f);
        }
        snprintf(want, sizeof want,
                 "%s: the scenario file sets no key (it is empty or holds only comments, blank "
                 "lines and section lines); expected at least one key = value line, or a -s "
                 "override such as -s simulation.seed=1 to run the built-in defaults",
                 path);
        err = (cn_error){0};
        CHECK(config_load(path, NULL, 0, &sc, &err) == CN_ERR_INPUT);
        CHECK(strcmp(err.msg, want) == 0);
        if (strcmp(err.msg, want) != 0)
            fprintf(stderr, "  got '%s'\n", err.msg);
        err = (cn_error){0};
        config_override seed = {"simulation.seed=1", NULL};
        CHECK(config_load(path, &seed, 1, &sc, &err) == 0);
        CHECK_I64(flood_values_of(&sc)->rows * flood_values_of(&sc)->cols, 100);
    }
    /* a flow's section makes a flow: it sets something */
    f = fopen(path, "w");
    if (f) {
        fputs("[traffic.flow a]\n", f);
        fclose(f);
    }
    err = (cn_error){0};
    CHECK(config_load(path, NULL, 0, &sc, &err) == 0);
    CHECK_I64(flood_values_of(&sc)->n_flows, 1);

    /* Permission bits do not stop root, so only an ordinary user can see this error. */
    if (geteuid() != 0 && chmod(path, 0) == 0)
        EXPECT_FILE_ERROR(path, path, "cannot open the scenario file: Permission denied");
    chmod(path, 0600);
    remove(path);
    rmdir(dir);
}

/* An override the program made from an option is named after that option, not as an -s
 * argument the user never gave: when the value itself is refused, and when a rule between
 * keys is broken later. */
static void test_override_source(void)
{
    scenario sc;
    cn_error err = {0};
    config_override o[2] = {{"topology.rows=1", "--sizes '1' at size 1 (topology.rows=1)"},
                            {"topology.cols=1", "--sizes '1' at size 1 (topology.cols=1)"}};
    CHECK(config_load_string("t.ini", "[topology]\nrows = 3\n", o, 2, &sc, &err) ==
          CN_ERR_INPUT);
    const char *want = "--sizes '1' at size 1 (topology.rows=1): [topology] rows x cols = 1 x 1 "
                       "is a single node: expected at least 2 nodes";
    CHECK(strcmp(err.msg, want) == 0);
    if (strcmp(err.msg, want) != 0)
        fprintf(stderr, "  got '%s'\n", err.msg);
    err = (cn_error){0};
    config_override bad = {"flood.ttl=x", "--opt 'x' (flood.ttl=x)"};
    CHECK(config_load_string("t.ini", "[flood]\nttl = 3\n", &bad, 1, &sc, &err) == CN_ERR_INPUT);
    CHECK(strncmp(err.msg, "--opt 'x' (flood.ttl=x): [flood] ttl = x: not a number", 54) == 0);
    err = (cn_error){0};
    config_override group = {"mobility.group.g.speed_min=9", "--opt 'g' (speed_min)"};
    CHECK(config_load_string("t.ini", "[mobility]\nmodel = rwp\n[mobility.group g]\nnodes = 0-3"
                             "\nspeed_max = 2\n", &group, 1, &sc, &err) == CN_ERR_INPUT);
    CHECK(strstr(err.msg, "--opt 'g' (speed_min)") != NULL && !strstr(err.msg, "-s argument"));
}

/* User text in a message has its control characters escaped: one line, nothing raw. */
static void test_escaped_messages(void)
{
    EXPECT_MESSAGE_OV("[flood]\nttl = 3\n",
                      "-s argument 'flood.ttl=3\\n\\x1b[31mx\\t': [flood] ttl = 3\\n\\x1b[31mx: "
                      "not a number; expected an integer in [0, 2147483647] (hops)",
                      "flood.ttl=3\n\x1b[31mx\t");
    EXPECT_MESSAGE("[flood]\nttl = \x1b[2J\x7f\n",
                   "t.ini:2: [flood] ttl = \\x1b[2J\\x7f: not a number; expected an integer in "
                   "[0, 2147483647] (hops)");
    EXPECT_MESSAGE("[flood]\nt\x01l = 1\n", "t.ini:2: [flood] unknown key 't\\x01l'; did you mean "
                                           "'ttl'?");
    EXPECT_MESSAGE("[fl\x1bod]\nttl = 1\n", "t.ini:2: unknown section [fl\\x1bod] (key 'ttl'); did "
                                            "you mean [flood]?");
    char buf[16];
    CHECK(strcmp(cn_escape("a\rb\x1f\xc3\xa9", buf, sizeof buf), "a\\rb\\x1f\xc3\xa9") == 0);
    CHECK(strcmp(cn_escape("abcdefghijk\n", buf, 13), "abcdefghijk") == 0); /* never half */
}

static void test_overrides(void)
{
    scenario sc;
    test_override_source();
    test_escaped_messages();
    const char *file = "[flood]\nttl = 3\nrelay_delay = 2\n";
    if (LOAD_OV(file, &sc, "flood.ttl=5") == 0) {
        CHECK_I64(flood_values_of(&sc)->ttl, 5);
        CHECK_I64(flood_values_of(&sc)->relay_delay_ns, 2000000000);
    }
    /* In order: the last one wins; overrides may set keys the file lacks; spaces are trimmed. */
    if (LOAD_OV(file, &sc, "flood.ttl=5", "flood.ttl = 7", "traffic.packets=9",
                " simulation.seed =0x20 ") == 0) {
        CHECK_I64(flood_values_of(&sc)->ttl, 7);
        CHECK_I64(flood_values_of(&sc)->packets, 9);
        CHECK_U64(sc.seed, 32);
    }
    /* An override may take a grid scenario to uniform placement. */
    if (LOAD_OV("[topology]\nrows = 20\ncols = 20\n", &sc, "topology.placement=uniform",
                "topology.nodes=50", "topology.width=100", "topology.height=100") == 0) {
        CHECK_I64(flood_values_of(&sc)->nodes, 50);
        CHECK_I64(flood_values_of(&sc)->destination, 49);
    }
    EXPECT_ERROR("", "flood.ttl", "-s argument 'flood.ttl': expected section.key=value");
    EXPECT_ERROR("", "ttl=3", "-s argument 'ttl=3': expected section.key=value");
    EXPECT_ERROR("", ".ttl=3", "-s argument '.ttl=3': expected section.key=value");
    EXPECT_ERROR("", "flood.=3", "-s argument 'flood.=3': expected section.key=value");
    EXPECT_ERROR("", "", "-s argument '': expected section.key=value");
    EXPECT_ERROR("", "flood.ttl=x",
                 "-s argument 'flood.ttl=x': [flood] ttl = x: not a number; expected an integer");
    EXPECT_ERROR("", "flood.ttl=", "-s argument 'flood.ttl=': [flood] ttl = : empty value");
    EXPECT_ERROR("", "flod.ttl=3", "-s argument 'flod.ttl=3': unknown section [flod]",
                 "did you mean [flood]?");
    EXPECT_ERROR("", "flood.tll=3", "-s argument 'flood.tll=3': [flood] unknown key 'tll'",
                 "did you mean 'ttl'?");
    EXPECT_ERROR("", "flood.relay_delay=0", "-s argument 'flood.relay_delay=0': [flood] "
                                            "relay_delay = 0: expected a time in seconds in (0, "
                                            "2305843009.213693952]");
    /* A bad value in the file is reported even when an override would replace it. */
    EXPECT_ERROR("[flood]\nttl = x\n", "flood.ttl=3", "t.ini:2: [flood] ttl = x");
}

static void test_round_trips(void)
{
    static const char *const texts[] = {
        "",
        "[simulation]\nseed = 0xFFFFFFFFFFFFFFFF\nduration = 86400.000000001\n"
        "[topology]\nplacement = uniform\nnodes = 4800\nwidth = 1600\nheight = 1600\n"
        "depth = 200.0005\n[connectivity]\nrange = 100.001\n"
        "[mobility]\nmodel = rwp\nspeed_min = 0.001\nspeed_max = 4294967.295\n"
        "pause_min = 0.001\npause_max = 4294967.295\n"
        "[traffic]\nsource = 17\ndestination = 4000\npackets = 600\ninterval = 0.000000001\n"
        "start = 12.5\nsize = 1\n[flood]\nrelay_delay = 0.000000001\n"
        "drop_probability = 0.3333333333333333\nttl = 2147483647\n",
        "[topology]\nrows = 7\ncols = 3\nspacing = 0.001\n[mobility]\nmodel = rwp\n"
        "[flood]\ndrop_probability = 1e-7\n",
        "[flood]\ndrop_probability = 0.1\n[traffic]\ndestination = 0\nsource = 99\n",
        "[flood]\ndrop_probability = 0.9999999999999999\n",
        "[flood]\ndrop_probability = 5e-324\n",
        "[flood]\ndrop_probability = 1\n",
        "[devices]\non_failure = continue\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        scenario sc;
        if (LOAD_OK(texts[i], &sc) == 0)
            CHECK_ROUND_TRIP(&sc);
    }
    /* The dump writes INI units and keeps grid node counts as a comment. */
    scenario sc;
    if (LOAD_OK("[flood]\nrelay_delay = 0.25\n", &sc) == 0) {
        char *text = config_dump_string(&sc);
        CHECK(text && strstr(text, "\n[flood]\nrelay_delay = 0.25\n"));
        CHECK(text && strstr(text, "\n[topology]\nplacement = grid\n"));
        CHECK(text && strstr(text, "\n; nodes = 100 (rows x cols"));
        CHECK(text && strstr(text, "\nspacing = 100\n"));
        CHECK(text && strstr(text, "\ndestination = 99\n"));
        CHECK(text && strstr(text, "\n[devices]\non_failure = stop\n"));
        free(text);
    }
    if (LOAD_OK("[devices]\non_failure = continue\n", &sc) == 0)
        CHECK_I64(sc.on_failure, ON_FAILURE_CONTINUE);
}

/* ---- scenario files ------------------------------------------------------------------------ */

static int ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The reference workloads of docs/model.md ("Reference scenarios") must be exactly what that
 * section says. */
static void check_reference_scenario(const char *name, const scenario *sc)
{
    if (strcmp(name, "grid_flood.ini") == 0) {
        CHECK_I64(flood_values_of(sc)->placement, PLACEMENT_GRID);
        CHECK_I64(flood_values_of(sc)->rows, 220);
        CHECK_I64(flood_values_of(sc)->cols, 220);
        CHECK_I64(flood_node_count(flood_values_of(sc)), 48400);
        CHECK_I64(flood_values_of(sc)->spacing_mm, 100000);
        CHECK_I64(flood_values_of(sc)->mob.model, MOBILITY_STATIC);
    } else if (strcmp(name, "mobile_flood.ini") == 0) {
        CHECK_I64(flood_values_of(sc)->placement, PLACEMENT_UNIFORM);
        CHECK_I64(flood_values_of(sc)->nodes, 4800);
        CHECK_I64(flood_values_of(sc)->width_mm, 1600000);
        CHECK_I64(flood_values_of(sc)->height_mm, 1600000);
        CHECK_I64(flood_values_of(sc)->depth_mm, 200000);
        CHECK_I64(flood_values_of(sc)->mob.model, MOBILITY_RWP);
        CHECK_I64(flood_values_of(sc)->mob.speed_min_mm_s, 1000);
        CHECK_I64(flood_values_of(sc)->mob.speed_max_mm_s, 5000);
        CHECK_I64(flood_values_of(sc)->mob.pause_min_ms, 0);
        CHECK_I64(flood_values_of(sc)->mob.pause_max_ms, 0);
    } else if (strcmp(name, "phold.ini") == 0 || strcmp(name, "small_phold.ini") == 0) {
        /* docs/models/phold.md, "Reference scenarios" */
        int small = name[0] == 's';
        CHECK(strcmp(sc->model, "phold") == 0);
        CHECK_U64(sc->seed, 1);
        CHECK_I64(sc->duration_ns, small ? 20000000000 : 10000000000);
        CHECK_I64(phold_values_of(sc)->lps, small ? 1000 : 1048576);
        CHECK_I64(phold_values_of(sc)->population, small ? 8 : 16);
        CHECK(phold_values_of(sc)->remote == (small ? 0.25 : 0.1));
        CHECK_U64(phold_values_of(sc)->remote_threshold, small ? 1073741824u : 429496729u);
        CHECK_I64(phold_values_of(sc)->lookahead_ns, 100000000);
        CHECK_I64(phold_values_of(sc)->mean_ns, 900000000);
        return;
    } else {
        return;
    }
    CHECK(strcmp(sc->model, "flood") == 0);
    CHECK_U64(sc->seed, 1);
    CHECK_I64(sc->duration_ns, 0);
    CHECK_I64(flood_values_of(sc)->connectivity, CONNECTIVITY_UDG);
    CHECK_I64(flood_values_of(sc)->range_mm, 100000);
    CHECK_I64(flood_values_of(sc)->source, 0);
    CHECK_I64(flood_values_of(sc)->destination, flood_node_count(flood_values_of(sc)) - 1);
    CHECK_I64(flood_values_of(sc)->packets, 600);
    CHECK_I64(flood_values_of(sc)->interval_ns, 1000000000);
    CHECK_I64(flood_values_of(sc)->start_ns, 0);
    CHECK_I64(flood_values_of(sc)->relay_delay_ns, 1000000000);
    CHECK(flood_values_of(sc)->drop.p == 0.1);
    CHECK_I64(flood_values_of(sc)->ttl, 0);
}

static int test_scenario_files(void)
{
    const char *src = getenv("CLNETSIM_SOURCE_DIR");
    if (!src) {
        fprintf(stderr, "CLNETSIM_SOURCE_DIR is not set (ctest sets it)\n");
        return 1;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/scenarios", src);
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "%s: %s\n", dir, strerror(errno));
        return 1;
    }
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256)
        if (ends_with(e->d_name, ".ini"))
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], compare_names);
    int found_grid = 0, found_mobile = 0, found_phold = 0;
    for (int i = 0; i < n; i++) {
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        scenario sc;
        cn_error err = {0};
        int rc = config_load(path, NULL, 0, &sc, &err);
        check_at(__FILE__, __LINE__, rc == 0, "%s: %s", names[i], err.msg);
        if (rc == 0 && strcmp(sc.model, "phold") == 0) {
            printf("ok %s: phold, %lld LPs, %lld events each\n", names[i],
                   (long long)phold_values_of(&sc)->lps, (long long)phold_values_of(&sc)->population);
            check_reference_scenario(names[i], &sc);
            CHECK_ROUND_TRIP(&sc);
        } else if (rc == 0) {
            printf("ok %s: %lld nodes, %lld packets\n", names[i],
                   (long long)flood_node_count(flood_values_of(&sc)), (long long)flood_values_of(&sc)->packets);
            check_reference_scenario(names[i], &sc);
            CHECK_ROUND_TRIP(&sc);
        }
        found_grid |= strcmp(names[i], "grid_flood.ini") == 0;
        found_mobile |= strcmp(names[i], "mobile_flood.ini") == 0;
        found_phold += strcmp(names[i], "phold.ini") == 0 || strcmp(names[i], "small_phold.ini") == 0;
        free(names[i]);
    }
    CHECK(found_grid);
    CHECK(found_mobile);
    CHECK_I64(found_phold, 2);
    CHECK(n >= 5);
    return 0;
}

/* ---- forwarding schemes ([flood] scheme) ------------------------------------------------------ */

static void test_schemes_values(void)
{
    scenario sc;
    if (LOAD_OK("[flood]\nrelay_delay = 0.001\nscheme = counter\ncounter_threshold = 4\n"
                "assessment_delay = 0.005\n",
                &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->scheme, SCHEME_COUNTER);
        CHECK_I64(flood_values_of(&sc)->counter_threshold, 4);
        CHECK_I64(flood_values_of(&sc)->distance_threshold_mm, 0);
        CHECK_I64(flood_values_of(&sc)->assessment_delay_ns, 5000000);
        CHECK_I64(flood_values_of(&sc)->assessment_windows, 5);
    }
    /* the smallest threshold and the largest; no assessment delay: a = 0 */
    if (LOAD_OK("[flood]\nscheme = counter\ncounter_threshold = 2\n", &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->counter_threshold, 2);
        CHECK_I64(flood_values_of(&sc)->assessment_windows, 0);
    }
    if (LOAD_OK("[flood]\nscheme = counter\ncounter_threshold = 2147483647\n", &sc) == 0)
        CHECK_I64(flood_values_of(&sc)->counter_threshold, 2147483647);
    /* metres to mm like range, ties away from zero; the threshold may equal the range */
    if (LOAD_OK("[flood]\nscheme = distance\ndistance_threshold = 50.0005\n"
                "assessment_delay = 3\n",
                &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->scheme, SCHEME_DISTANCE);
        CHECK_I64(flood_values_of(&sc)->distance_threshold_mm, 50001);
        CHECK_I64(flood_values_of(&sc)->assessment_delay_ns, 3000000000);
        CHECK_I64(flood_values_of(&sc)->assessment_windows, 3);
        CHECK_I64(flood_values_of(&sc)->counter_threshold, 3);
    }
    if (LOAD_OK("[connectivity]\nrange = 100\n[flood]\nscheme = distance\n"
                "distance_threshold = 100\n",
                &sc) == 0)
        CHECK_I64(flood_values_of(&sc)->distance_threshold_mm, 100000);
    /* under qudg the bound is r_max, the range, not range_min */
    if (LOAD_OK("[connectivity]\nmodel = qudg\nrange_min = 20\nrange = 80\n"
                "[flood]\nscheme = distance\ndistance_threshold = 80\n",
                &sc) == 0)
        CHECK_I64(flood_values_of(&sc)->distance_threshold_mm, 80000);
    /* the largest number of windows */
    if (LOAD_OK("[flood]\nrelay_delay = 0.001\nscheme = counter\nassessment_delay = 1000\n",
                &sc) == 0)
        CHECK_I64(flood_values_of(&sc)->assessment_windows, 1000000);
    if (LOAD_OK("[flood]\nscheme = probabilistic\n", &sc) == 0)
        CHECK_I64(flood_values_of(&sc)->scheme, SCHEME_PROBABILISTIC);
    /* Under probabilistic the keys of the other schemes are kept but neither checked nor
     * used: no windows of assessment. */
    if (LOAD_OK("[flood]\nrelay_delay = 0.001\nassessment_delay = 0.0025\n"
                "distance_threshold = 500\n",
                &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->scheme, SCHEME_PROBABILISTIC);
        CHECK_I64(flood_values_of(&sc)->assessment_delay_ns, 2500000);
        CHECK_I64(flood_values_of(&sc)->distance_threshold_mm, 500000);
        CHECK_I64(flood_values_of(&sc)->assessment_windows, 0);
    }
    /* counter does not look at distance_threshold, distance not at counter_threshold */
    if (LOAD_OK("[flood]\nscheme = counter\ndistance_threshold = 500\n", &sc) == 0)
        CHECK_I64(flood_values_of(&sc)->distance_threshold_mm, 500000);
}

static void test_schemes_errors(void)
{
    EXPECT_MESSAGE("[flood]\nscheme = gossip\n",
                   "t.ini:2: [flood] scheme = gossip: expected one of: probabilistic, counter, "
                   "distance");
    EXPECT_MESSAGE("[flood]\nscheme =\n",
                   "t.ini:2: [flood] scheme = : empty value; expected one of: probabilistic, "
                   "counter, distance");
    EXPECT_MESSAGE("[flood]\ncounter_threshold = 1\n",
                   "t.ini:2: [flood] counter_threshold = 1: expected an integer in [2, "
                   "2147483647] (copies)");
    EXPECT_MESSAGE("[flood]\ncounter_threshold = 2147483648\n",
                   "t.ini:2: [flood] counter_threshold = 2147483648: expected an integer in [2, "
                   "2147483647] (copies)");
    EXPECT_MESSAGE("[flood]\ncounter_threshold = 3.5\n",
                   "t.ini:2: [flood] counter_threshold = 3.5: not an integer; expected an "
                   "integer in [2, 2147483647] (copies)");
    EXPECT_MESSAGE("[flood]\ndistance_threshold = -1\n",
                   "t.ini:2: [flood] distance_threshold = -1: expected a length in metres in "
                   "[0, 2147483.647]");
    EXPECT_MESSAGE("[flood]\ndistance_threshold = far\n",
                   "t.ini:2: [flood] distance_threshold = far: not a number; expected a length "
                   "in metres in [0, 2147483.647]");
    EXPECT_MESSAGE("[flood]\nassessment_delay = -0.001\n",
                   "t.ini:2: [flood] assessment_delay = -0.001: expected a time in seconds in "
                   "[0, 2305843009.213693952]");
    /* the values themselves are checked under every scheme; only the rules between keys wait
     * for the scheme that uses them */
    EXPECT_MESSAGE_OV("[flood]\ncounter_threshold = 0\n",
                      "t.ini:2: [flood] counter_threshold = 0: expected an integer in [2, "
                      "2147483647] (copies)",
                      "flood.scheme=probabilistic");
    EXPECT_MESSAGE("[flood]\nscheme = counter\nschemes = distance\n",
                   "t.ini:3: [flood] unknown key 'schemes'; did you mean 'scheme'?");
    EXPECT_MESSAGE("[simulation]\nscheme = counter\n",
                   "t.ini:2: [simulation] unknown key 'scheme'; 'scheme' is a key of [flood], "
                   "not of [simulation]");

    /* a whole number of relay delays, at most 10^6 of them */
    EXPECT_MESSAGE("[flood]\nrelay_delay = 0.001\nscheme = counter\nassessment_delay = 0.0025\n",
                   "t.ini:4: [flood] assessment_delay = 0.0025 s is not a whole number of relay "
                   "delays (relay_delay = 0.001 s): expected a multiple of relay_delay");
    EXPECT_MESSAGE("[flood]\nscheme = distance\ndistance_threshold = 50\n"
                   "assessment_delay = 0.5\n",
                   "t.ini:4: [flood] assessment_delay = 0.5 s is not a whole number of relay "
                   "delays (relay_delay = 1 s): expected a multiple of relay_delay");
    EXPECT_MESSAGE("[flood]\nrelay_delay = 0.001\nscheme = counter\nassessment_delay = 1000.001\n",
                   "t.ini:4: [flood] assessment_delay = 1000.001 s is 1000001 relay delays "
                   "(relay_delay = 0.001 s): expected at most 1000000 relay delays");
    /* distance: 0 < distance_threshold <= range */
    EXPECT_MESSAGE("[flood]\nscheme = distance\n",
                   "t.ini:2: [flood] distance_threshold = 0 (unset): scheme = distance needs "
                   "distance_threshold > 0 m, at most [connectivity] range = 100 m");
    EXPECT_MESSAGE("[flood]\nscheme = distance\ndistance_threshold = 0\n",
                   "t.ini:3: [flood] distance_threshold = 0 (unset): scheme = distance needs "
                   "distance_threshold > 0 m, at most [connectivity] range = 100 m");
    EXPECT_MESSAGE("[flood]\nscheme = distance\ndistance_threshold = 100.001\n",
                   "t.ini:3: [flood] distance_threshold = 100.001 m is above [connectivity] "
                   "range = 100 m: expected distance_threshold <= range with scheme = distance "
                   "(a threshold beyond the range stops every relay)");
    EXPECT_MESSAGE("[connectivity]\nmodel = qudg\nrange_min = 20\nrange = 80\n"
                   "[flood]\nscheme = distance\ndistance_threshold = 90\n",
                   "t.ini:7: [flood] distance_threshold = 90 m is above [connectivity] range = "
                   "80 m: expected distance_threshold <= range with scheme = distance (a "
                   "threshold beyond the range stops every relay)");
    /* the key set last is named: here the range, which comes after the threshold */
    EXPECT_MESSAGE("[flood]\nscheme = distance\ndistance_threshold = 60\n"
                   "[connectivity]\nrange = 50\n",
                   "t.ini:5: [flood] distance_threshold = 60 m is above [connectivity] range = "
                   "50 m: expected distance_threshold <= range with scheme = distance (a "
                   "threshold beyond the range stops every relay)");
}

static void test_schemes_overrides(void)
{
    /* written for counter, run as probabilistic: its keys are ignored */
    const char *counter = "[flood]\nrelay_delay = 0.001\nscheme = counter\ncounter_threshold = 4\n"
                          "assessment_delay = 0.004\n";
    scenario sc;
    if (LOAD_OV(counter, &sc, "flood.scheme=probabilistic") == 0) {
        CHECK_I64(flood_values_of(&sc)->scheme, SCHEME_PROBABILISTIC);
        CHECK_I64(flood_values_of(&sc)->counter_threshold, 4);
        CHECK_I64(flood_values_of(&sc)->assessment_windows, 0);
    }
    /* ... even where they would break a rule of their scheme */
    if (LOAD_OV(counter, &sc, "flood.relay_delay=0.003", "flood.scheme=probabilistic") == 0)
        CHECK_I64(flood_values_of(&sc)->assessment_windows, 0);
    if (LOAD_OV(counter, &sc, "flood.counter_threshold=6", " flood.assessment_delay = 0.01 ") ==
        0) {
        CHECK_I64(flood_values_of(&sc)->scheme, SCHEME_COUNTER);
        CHECK_I64(flood_values_of(&sc)->counter_threshold, 6);
        CHECK_I64(flood_values_of(&sc)->assessment_delay_ns, 10000000);
        CHECK_I64(flood_values_of(&sc)->assessment_windows, 10);
    }
    /* every key from the command line alone; the relay delay changes the windows */
    if (LOAD_OV("", &sc, "flood.scheme=distance", "flood.distance_threshold=75.5",
                "flood.assessment_delay=4", "flood.relay_delay=0.5") == 0) {
        CHECK_I64(flood_values_of(&sc)->scheme, SCHEME_DISTANCE);
        CHECK_I64(flood_values_of(&sc)->distance_threshold_mm, 75500);
        CHECK_I64(flood_values_of(&sc)->assessment_windows, 8);
    }
    if (LOAD_OV(counter, &sc, "flood.scheme=distance", "flood.distance_threshold=10") == 0) {
        CHECK_I64(flood_values_of(&sc)->scheme, SCHEME_DISTANCE);
        CHECK_I64(flood_values_of(&sc)->assessment_windows, 4);
    }
    /* errors point at the override that broke the rule */
    EXPECT_MESSAGE_OV(counter,
                      "-s argument 'flood.relay_delay=0.003': [flood] assessment_delay = 0.004 s "
                      "is not a whole number of relay delays (relay_delay = 0.003 s): expected a "
                      "multiple of relay_delay",
                      "flood.relay_delay=0.003");
    EXPECT_MESSAGE_OV(counter,
                      "-s argument 'flood.scheme=distance': [flood] distance_threshold = 0 "
                      "(unset): scheme = distance needs distance_threshold > 0 m, at most "
                      "[connectivity] range = 100 m",
                      "flood.scheme=distance");
    EXPECT_MESSAGE_OV("[flood]\nscheme = distance\ndistance_threshold = 50\n",
                      "-s argument 'connectivity.range=40': [flood] distance_threshold = 50 m is "
                      "above [connectivity] range = 40 m: expected distance_threshold <= range "
                      "with scheme = distance (a threshold beyond the range stops every relay)",
                      "connectivity.range=40");
    EXPECT_MESSAGE_OV("",
                      "-s argument 'flood.scheme=Counter': [flood] scheme = Counter: expected one "
                      "of: probabilistic, counter, distance",
                      "flood.scheme=Counter");
    EXPECT_MESSAGE_OV("",
                      "-s argument 'flood.counter_threshold=x': [flood] counter_threshold = x: "
                      "not a number; expected an integer in [2, 2147483647] (copies)",
                      "flood.counter_threshold=x");
    EXPECT_MESSAGE_OV("",
                      "-s argument 'flood.sheme=counter': [flood] unknown key 'sheme'; did you "
                      "mean 'scheme'?",
                      "flood.sheme=counter");
}

static void test_schemes_round_trips(void)
{
    static const char *const texts[] = {
        "[flood]\nrelay_delay = 0.001\nscheme = counter\ncounter_threshold = 4\n"
        "assessment_delay = 0.005\ndrop_probability = 0.1\nttl = 9\n",
        "[connectivity]\nmodel = qudg\nrange_min = 30\nrange = 120.5\n"
        "[flood]\nrelay_delay = 0.25\nscheme = distance\ndistance_threshold = 120.5\n"
        "assessment_delay = 250\n",
        /* probabilistic keeps the values it ignores */
        "[flood]\nrelay_delay = 0.001\ndistance_threshold = 0.0015\nassessment_delay = 0.0025\n"
        "counter_threshold = 2147483647\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        scenario sc;
        if (LOAD_OK(texts[i], &sc) == 0)
            CHECK_ROUND_TRIP(&sc);
    }
    scenario sc;
    if (LOAD_OK(texts[0], &sc) == 0) {
        char *text = config_dump_string(&sc);
        CHECK(text && strstr(text, "\nttl = 9\nscheme = counter\ncounter_threshold = 4\n"
                                   "distance_threshold = 0\nassessment_delay = 0.005\n"));
        free(text);
    }
    if (LOAD_OK(texts[1], &sc) == 0) {
        char *text = config_dump_string(&sc);
        CHECK(text && strstr(text, "\nscheme = distance\ncounter_threshold = 3\n"
                                   "distance_threshold = 120.5\nassessment_delay = 250\n"));
        free(text);
    }
}

static void test_schemes(void)
{
    test_schemes_values();
    test_schemes_errors();
    test_schemes_overrides();
    test_schemes_round_trips();
}

/* ---- activity areas ---------------------------------------------------------------------- */

static void test_areas(void)
{
    /* nodes = count x rows x cols; thr(border_links) as the drop probability's */
    scenario sc;
    if (LOAD_OK("[topology]\nplacement = areas\nrows = 5\ncols = 7\n[areas]\ncount = 3\n"
                "border_links = 0.25\n", &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->placement, PLACEMENT_AREAS);
        CHECK_I64(flood_values_of(&sc)->nodes, 105);
        CHECK_I64(flood_node_count(flood_values_of(&sc)), 105);
        CHECK_I64(flood_values_of(&sc)->destination, 104);
        CHECK_U64(flood_values_of(&sc)->border_threshold, 1073741824);
        CHECK_ROUND_TRIP(&sc);
        char *text = config_dump_string(&sc);
        CHECK(text && strstr(text, "\n[areas]\ncount = 3\nborder_links = 0.25\n"));
        CHECK(text && strstr(text, "\n; nodes = 105 ([areas] count x rows x cols"));
        free(text);
    }
    if (LOAD_OV("", &sc, "topology.placement=areas", "areas.border_links=1", "areas.count=1024",
                "topology.rows=1", "topology.cols=2", "topology.nodes=2048") == 0) {
        CHECK_I64(flood_values_of(&sc)->nodes, 2048);
        CHECK_U64(flood_values_of(&sc)->border_threshold, (uint64_t)1 << 32);
        CHECK_ROUND_TRIP(&sc);
    }
    /* the keys of [areas] are ignored by the other placements, as qudg's are by udg */
    if (LOAD_OK("[areas]\ncount = 2\nborder_links = 0\n", &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->nodes, 100);
        CHECK_ROUND_TRIP(&sc);
    }
    /* The row of areas at the side limit: 2 areas of 1 x 2, spacing 1 m, range 1073741.322
     * m: (2 - 1) x (1 + 2147482.644) + 1 = 2147484.644 m is too much; 1073740.822 fits. */
    if (LOAD_OK("[topology]\nplacement = areas\nrows = 1\ncols = 2\nspacing = 1\n[areas]\n"
                "count = 2\n[connectivity]\nrange = 1073740.822\n", &sc) == 0)
        CHECK_I64(flood_node_count(flood_values_of(&sc)), 4);
    EXPECT_MESSAGE("[topology]\nplacement = areas\nrows = 1\ncols = 2\nspacing = 1\n[areas]\n"
                   "count = 2\n[connectivity]\nrange = 1073741.322\n",
                   "t.ini:9: [areas] count = 2 areas of [topology] rows = 1, cols = 2, spacing = "
                   "1 m, 2 x range apart, are too large: expected the row of areas and each "
                   "area's height within 2147483.647 m");

    /* Shapes and sizes. */
    EXPECT_MESSAGE("[topology]\nplacement = areas\nrows = 0\n",
                   "t.ini:3: [topology] rows = 0, cols = 10: areas placement needs rows >= 1 and "
                   "cols >= 1");
    EXPECT_MESSAGE("[topology]\nplacement = areas\nspacing = 0\n",
                   "t.ini:3: [topology] spacing = 0: areas placement needs spacing > 0 m");
    EXPECT_MESSAGE("[topology]\nplacement = areas\nrows = 20000\ncols = 20000\n",
                   "t.ini:4: [areas] count x [topology] rows x cols = 6 x 20000 x 20000 nodes: "
                   "expected at most 2000000000 nodes");
    EXPECT_MESSAGE("[topology]\nplacement = areas\nnodes = 100\n",
                   "t.ini:3: [topology] nodes = 100 but [areas] count x rows x cols = 600: for "
                   "areas placement the node count is derived, so remove nodes or set it to 600");
    EXPECT_MESSAGE("[areas]\ncount = 1025\n",
                   "t.ini:2: [areas] count = 1025: expected an integer in [2, 1024] (areas)");
    EXPECT_MESSAGE("[areas]\nborder_links = -0.1\n",
                   "t.ini:2: [areas] border_links = -0.1: expected a probability in [0, 1]");
    EXPECT_MESSAGE("[topology]\nplacement = areas\n[traffic]\nsource = 600\n",
                   "t.ini:4: [traffic] source = 600: expected a node id in [0, 599] (the "
                   "scenario has 600 nodes)");

    /* What areas do not combine with: the message names the key, and where the placement or
     * the key was set last. */
    EXPECT_MESSAGE("[topology]\nplacement = areas\n[mobility]\nmodel = random_walk\n",
                   "t.ini:4: [mobility] model = random_walk: placement = areas needs static nodes "
                   "(model = static)");
    EXPECT_MESSAGE("[mobility]\nmodel = rwp\n[topology]\nplacement = areas\n",
                   "t.ini:4: [mobility] model = rwp: placement = areas needs static nodes (model "
                   "= static)");
    EXPECT_MESSAGE("[topology]\nplacement = areas\n[mobility.group bus]\nnodes = 0-9\n"
                   "model = grid_walk\n",
                   "t.ini:5: [mobility.group bus] model = grid_walk: placement = areas needs "
                   "static nodes (model = static in every group)");
    EXPECT_MESSAGE("[topology]\nplacement = areas\n[connectivity]\nmodel = qudg\n",
                   "t.ini:4: [connectivity] model = qudg: placement = areas needs model = udg");
    EXPECT_MESSAGE("[topology]\nplacement = areas\n[connectivity]\nmax_neighbors = 3\n",
                   "t.ini:4: [connectivity] max_neighbors = 3: placement = areas needs "
                   "max_neighbors = 0 (no cap)");
    EXPECT_MESSAGE_OV("[topology]\nplacement = areas\n",
                      "-s argument 'partition.count=3': [partition] count = 3: placement = areas "
                      "runs in one partition (the links between areas reach beyond any "
                      "partition's tile); expected count = 0 or 1",
                      "partition.count=3");
    /* a static group, and one partition, are fine */
    if (LOAD_OV("[topology]\nplacement = areas\n[mobility.group still]\nnodes = 0-9\n", &sc,
                "partition.count=1") == 0)
        CHECK_I64(sc.partitions, 1);
}

/* ---- node resources ([resources], docs/models.md "Node resources") ------------------------ */

static void test_resources_values(void)
{
    scenario sc;
    if (LOAD_OK("", &sc) == 0) { /* off by default */
        CHECK_I64(flood_values_of(&sc)->rx_capacity, 0);
        CHECK_I64(flood_values_of(&sc)->energy_budget.law, LAW_CONSTANT);
        CHECK_I64(flood_values_of(&sc)->energy_budget.a_nj, 0);
        CHECK_I64(flood_values_of(&sc)->tx_fixed_nj + flood_values_of(&sc)->tx_per_byte_nj + flood_values_of(&sc)->rx_fixed_nj + flood_values_of(&sc)->rx_per_byte_nj, 0);
        CHECK(!flood_has_resources(flood_values_of(&sc)) && !flood_has_energy(flood_values_of(&sc)));
    }
    if (LOAD_OK("[resources]\nrx_capacity = 4\n", &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->rx_capacity, 4);
        CHECK(flood_has_resources(flood_values_of(&sc)) && !flood_has_energy(flood_values_of(&sc)));
    }
    /* joules to nanojoules, exactly, to the nearest (ties away from zero) */
    if (LOAD_OK("[resources]\nenergy_budget = 2.5\ntx_fixed = 0.0000000015\n"
                "tx_per_byte = 2e-6\nrx_fixed = 0.0000000014\nrx_per_byte = 0.000000001\n",
                &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->energy_budget.law, LAW_CONSTANT);
        CHECK_I64(flood_values_of(&sc)->energy_budget.a_nj, 2500000000);
        CHECK_I64(flood_values_of(&sc)->energy_budget.b_nj, 2500000000);
        CHECK_I64(flood_values_of(&sc)->tx_fixed_nj, 2);
        CHECK_I64(flood_values_of(&sc)->tx_per_byte_nj, 2000);
        CHECK_I64(flood_values_of(&sc)->rx_fixed_nj, 1);
        CHECK_I64(flood_values_of(&sc)->rx_per_byte_nj, 1);
        CHECK(flood_has_resources(flood_values_of(&sc)) && flood_has_energy(flood_values_of(&sc)));
    }
    if (LOAD_OK("[resources]\nenergy_budget = uniform( 0.5 ,1.000000001)\n", &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->energy_budget.law, LAW_UNIFORM);
        CHECK_I64(flood_values_of(&sc)->energy_budget.a_nj, 500000000);
        CHECK_I64(flood_values_of(&sc)->energy_budget.b_nj, 1000000001);
    }
    /* uniform(0, 0) is an energy model (every node starts with nothing); the constant 0 is
     * none, and so is a budget below half a nanojoule */
    if (LOAD_OK("[resources]\nenergy_budget = uniform(0, 0)\n", &sc) == 0)
        CHECK(flood_has_energy(flood_values_of(&sc)));
    if (LOAD_OK("[resources]\nenergy_budget = 0.0000000004\n", &sc) == 0)
        CHECK(!flood_has_energy(flood_values_of(&sc)));
    /* the largest budget, for 9 nodes: 9 x 10^18 nJ still fits */
    if (LOAD_OK("[topology]\nrows = 3\ncols = 3\n[resources]\nenergy_budget = 1000000000\n",
                &sc) == 0)
        CHECK_I64(flood_values_of(&sc)->energy_budget.a_nj, INT64_C(1000000000000000000));
    /* costs without a budget are kept and ignored, so not checked against the sizes */
    if (LOAD_OK("[traffic]\nsize = 2147483647\n[resources]\ntx_per_byte = 1000000000\n", &sc) == 0)
        CHECK_I64(flood_values_of(&sc)->tx_per_byte_nj, INT64_C(1000000000000000000));
    /* the largest cost of one event, 10^9 J: 512 bytes x 1953125 J */
    if (LOAD_OK("[resources]\nenergy_budget = 1\ntx_per_byte = 1953125\nrx_fixed = 1000000000\n",
                &sc) == 0)
        CHECK_I64(flood_values_of(&sc)->tx_per_byte_nj, INT64_C(1953125000000000));
    /* resources with one partition, and with the partition count left to the run */
    if (LOAD_OK("[resources]\nrx_capacity = 2\n[partition]\ncount = 1\n", &sc) == 0)
        CHECK_I64(sc.partitions, 1);
}

static void test_resources_errors(void)
{
    EXPECT_MESSAGE("[resources]\nrx_capacity = -1\n",
                   "t.ini:2: [resources] rx_capacity = -1: expected an integer in [0, 2147483647] "
                   "(copies)");
    EXPECT_MESSAGE("[resources]\nrx_capacity = 1.5\n",
                   "t.ini:2: [resources] rx_capacity = 1.5: not an integer; expected an integer "
                   "in [0, 2147483647] (copies)");
    const char *law = "expected an energy in joules in [0, 1000000000] or uniform(a, b) with 0 "
                      "<= a <= b <= 1000000000 (joules)";
    char want[512];
    snprintf(want, sizeof want, "t.ini:2: [resources] energy_budget = -1: %s", law);
    EXPECT_MESSAGE("[resources]\nenergy_budget = -1\n", want);
    snprintf(want, sizeof want, "t.ini:2: [resources] energy_budget = uniform(2, 1): the lower "
             "bound is above the upper one; %s", law);
    EXPECT_MESSAGE("[resources]\nenergy_budget = uniform(2, 1)\n", want);
    snprintf(want, sizeof want, "t.ini:2: [resources] energy_budget = exponential(1): "
             "exponential is not a law of energy_budget; %s", law);
    EXPECT_MESSAGE("[resources]\nenergy_budget = exponential(1)\n", want);
    snprintf(want, sizeof want, "t.ini:2: [resources] energy_budget = lognormal(1, 2): unknown "
             "law (only uniform); %s", law);
    EXPECT_MESSAGE("[resources]\nenergy_budget = lognormal(1, 2)\n", want);
    snprintf(want, sizeof want, "t.ini:2: [resources] energy_budget = uniform(1, 1000000001): "
             "the upper bound is out of range; %s", law);
    EXPECT_MESSAGE("[resources]\nenergy_budget = uniform(1, 1000000001)\n", want);
    snprintf(want, sizeof want, "t.ini:2: [resources] energy_budget = uniform(1): not uniform(a, "
             "b); %s", law);
    EXPECT_MESSAGE("[resources]\nenergy_budget = uniform(1)\n", want);
    EXPECT_MESSAGE("[resources]\ntx_fixed = 1000000001\n",
                   "t.ini:2: [resources] tx_fixed = 1000000001: expected an energy in joules in "
                   "[0, 1000000000]");
    EXPECT_MESSAGE("[resources]\nrx_per_byte = a lot\n",
                   "t.ini:2: [resources] rx_per_byte = a lot: not a number; expected an energy in "
                   "joules in [0, 1000000000]");
    EXPECT_MESSAGE("[resources]\nrx_fixed = -0.001\n",
                   "t.ini:2: [resources] rx_fixed = -0.001: expected an energy in joules in [0, "
                   "1000000000]");
    EXPECT_MESSAGE("[resources]\nenergy = 1\n",
                   "t.ini:2: [resources] unknown key 'energy'; did you mean 'energy_budget'?");
    EXPECT_MESSAGE("[flood]\nrx_capacity = 2\n",
                   "t.ini:2: [flood] unknown key 'rx_capacity'; 'rx_capacity' is a key of "
                   "[resources], not of [flood]");

    /* one partition, the probabilistic scheme: the keys that are on are named */
    EXPECT_MESSAGE("[resources]\nrx_capacity = 2\n[partition]\ncount = 4\n",
                   "t.ini:4: [partition] count = 4 with [resources] rx_capacity = 2: node "
                   "resources are decided in one partition; expected [partition] count = 0 or 1");
    EXPECT_MESSAGE("[partition]\ncount = 2\n[resources]\nenergy_budget = uniform(0, 0)\n",
                   "t.ini:4: [partition] count = 2 with [resources] energy_budget = uniform(0, "
                   "0): node resources are decided in one partition; expected [partition] count "
                   "= 0 or 1");
    { /* forwarding schemes and node resources go together */
        scenario sc;
        if (LOAD_OK("[flood]\nscheme = counter\n[resources]\nrx_capacity = 2\n"
                    "energy_budget = 0.5\n",
                    &sc) == 0) {
            CHECK(flood_values_of(&sc)->scheme == SCHEME_COUNTER);
            CHECK(flood_values_of(&sc)->rx_capacity == 2);
            CHECK(flood_values_of(&sc)->energy_budget.a_nj == 500000000);
        }
    }
    /* the budgets of all nodes must fit int64 nJ */
    EXPECT_MESSAGE("[resources]\nenergy_budget = uniform(0, 1000000000)\n",
                   "t.ini:2: [resources] energy_budget = uniform(0, 1000000000) for 100 nodes: "
                   "the budgets together exceed 9223372036.854775807 J; expected a smaller "
                   "budget");
    /* one event's cost, with the largest packet size in use */
    EXPECT_MESSAGE("[traffic]\nsize = 2147483647\n[resources]\nenergy_budget = 1\n"
                   "tx_per_byte = 1\n",
                   "t.ini:5: [resources] tx_fixed = 0 J with tx_per_byte = 1 J and packets of "
                   "2147483647 bytes: one event would cost more than 1000000000 J; expected a "
                   "smaller cost");
    EXPECT_MESSAGE("[resources]\nenergy_budget = 1\nrx_fixed = 1000000000\nrx_per_byte = "
                   "0.000000001\n",
                   "t.ini:4: [resources] rx_fixed = 1000000000 J with rx_per_byte = 0.000000001 J "
                   "and packets of 512 bytes: one event would cost more than 1000000000 J; "
                   "expected a smaller cost");
    EXPECT_MESSAGE("[traffic.flow a]\nsource = 1\nsize = 100\n[traffic.flow b]\nsource = 2\n"
                   "size = 3000000\n[resources]\nrx_capacity = 1\nenergy_budget = 1\n"
                   "tx_per_byte = 400\n",
                   "t.ini:10: [resources] tx_fixed = 0 J with tx_per_byte = 400 J and packets of "
                   "3000000 bytes: one event would cost more than 1000000000 J; expected a "
                   "smaller cost");
    /* the override that broke a rule is named */
    EXPECT_MESSAGE_OV("[resources]\nrx_capacity = 2\n",
                      "-s argument 'partition.count=3': [partition] count = 3 with [resources] "
                      "rx_capacity = 2: node resources are decided in one partition; expected "
                      "[partition] count = 0 or 1",
                      "partition.count=3");
    EXPECT_MESSAGE_OV("",
                      "-s argument 'resources.rx_capacity=x': [resources] rx_capacity = x: not a "
                      "number; expected an integer in [0, 2147483647] (copies)",
                      "resources.rx_capacity=x");
}

static void test_resources_overrides_round_trips(void)
{
    scenario sc;
    if (LOAD_OV("", &sc, "resources.rx_capacity=3", "resources.energy_budget=uniform(1,2)",
                " resources.rx_per_byte = 0.0000015 ") == 0) {
        CHECK_I64(flood_values_of(&sc)->rx_capacity, 3);
        CHECK_I64(flood_values_of(&sc)->energy_budget.law, LAW_UNIFORM);
        CHECK_I64(flood_values_of(&sc)->energy_budget.b_nj, 2000000000);
        CHECK_I64(flood_values_of(&sc)->rx_per_byte_nj, 1500);
    }
    /* an override turns the model off again */
    if (LOAD_OV("[resources]\nrx_capacity = 2\n[partition]\ncount = 3\n", &sc,
                "resources.rx_capacity=0") == 0)
        CHECK(!flood_has_resources(flood_values_of(&sc)));
    static const char *const texts[] = {
        "[resources]\nrx_capacity = 2147483647\n",
        "[resources]\nenergy_budget = uniform(0.000000001, 2.5)\ntx_fixed = 0.0001\n"
        "tx_per_byte = 0.000002\nrx_fixed = 0.00008\nrx_per_byte = 0.0000015\n",
        "[resources]\nenergy_budget = 7\nrx_capacity = 1\n",
        "[resources]\ntx_fixed = 3.000000001\n", /* kept without a budget */
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (LOAD_OK(texts[i], &sc) == 0)
            CHECK_ROUND_TRIP(&sc);
    if (LOAD_OK(texts[1], &sc) == 0) {
        char *text = config_dump_string(&sc);
        CHECK(text && strstr(text, "\n[resources]\nrx_capacity = 0\n"
                                   "energy_budget = uniform(0.000000001, 2.5)\n"
                                   "tx_fixed = 0.0001\ntx_per_byte = 0.000002\n"
                                   "rx_fixed = 0.00008\nrx_per_byte = 0.0000015\n\n[partition]\n"));
        free(text);
    }
}

static void test_resources(void)
{
    test_resources_values();
    test_resources_errors();
    test_resources_overrides_round_trips();
}

/* ---- the phold model ([simulation] model = phold, [phold]) ---------------------------------- */

#define PHOLD_BASE "[simulation]\nmodel = phold\nduration = 20\n"

static void test_phold_values(void)
{
    scenario sc;
    /* the defaults of docs/models/phold.md, and lps = 1000 */
    if (LOAD_OK(PHOLD_BASE, &sc) == 0) {
        CHECK(strcmp(sc.model, "phold") == 0);
        CHECK_I64(sc.duration_ns, 20000000000);
        CHECK_I64(phold_values_of(&sc)->lps, 1000);
        CHECK_I64(phold_values_of(&sc)->population, 16);
        CHECK(phold_values_of(&sc)->remote == 0.1);
        CHECK_U64(phold_values_of(&sc)->remote_threshold, 429496729u); /* floor(0.1 x 2^32) */
        CHECK_I64(phold_values_of(&sc)->lookahead_ns, 100000000);
        CHECK_I64(phold_values_of(&sc)->mean_ns, 900000000);
        CHECK_ROUND_TRIP(&sc);
    }
    if (LOAD_OK(PHOLD_BASE "[phold]\nlps = 7\npopulation = 3\nremote = 0.25\nlookahead = 0.1\n"
                           "mean = 1.5\n", &sc) == 0) {
        CHECK_I64(phold_values_of(&sc)->lps, 7);
        CHECK_I64(phold_values_of(&sc)->population, 3);
        CHECK(phold_values_of(&sc)->remote == 0.25);
        CHECK_U64(phold_values_of(&sc)->remote_threshold, 1073741824u);
        CHECK_I64(phold_values_of(&sc)->lookahead_ns, 100000000);
        CHECK_I64(phold_values_of(&sc)->mean_ns, 1500000000);
        CHECK_ROUND_TRIP(&sc);
    }
    /* the bounds: remote 1 is 2^32 (always remote), 0 never; a lookahead of 1 ns; mean 0 */
    if (LOAD_OK(PHOLD_BASE "[phold]\nlps = 1\npopulation = 1\nremote = 1\n"
                           "lookahead = 0.000000001\nmean = 0\n", &sc) == 0) {
        CHECK_I64(phold_values_of(&sc)->lps, 1);
        CHECK_I64(phold_values_of(&sc)->population, 1);
        CHECK_U64(phold_values_of(&sc)->remote_threshold, (uint64_t)1 << 32);
        CHECK_I64(phold_values_of(&sc)->lookahead_ns, 1);
        CHECK_I64(phold_values_of(&sc)->mean_ns, 0);
        CHECK_ROUND_TRIP(&sc);
    }
    if (LOAD_OK(PHOLD_BASE "[phold]\nlps = 2147483647\npopulation = 1048576\nremote = 0\n"
                           "lookahead = 0.00000000149\n", &sc) == 0) {
        CHECK_I64(phold_values_of(&sc)->lps, 2147483647);
        CHECK_I64(phold_values_of(&sc)->population, 1048576);
        CHECK_U64(phold_values_of(&sc)->remote_threshold, 0);
        CHECK_I64(phold_values_of(&sc)->lookahead_ns, 1); /* rounded to the nearest ns */
        CHECK_ROUND_TRIP(&sc);
    }
    /* the same threshold as the flood's drop probability (docs/model.md, "Randomness") */
    if (LOAD_OK(PHOLD_BASE "[phold]\nremote = 0.3333333333333333\n", &sc) == 0)
        CHECK_U64(phold_values_of(&sc)->remote_threshold, philox_threshold(0.3333333333333333));
    /* [simulation] model after the [phold] keys, or from -s: decided at the end of the load */
    if (LOAD_OK("[phold]\nlps = 5\n[simulation]\nduration = 3\nmodel = phold\n", &sc) == 0) {
        CHECK(strcmp(sc.model, "phold") == 0);
        CHECK_I64(phold_values_of(&sc)->lps, 5);
    }
    if (LOAD_OV("[phold]\nlps = 6\n", &sc, "simulation.model=phold", "simulation.duration=2") ==
        0) {
        CHECK(strcmp(sc.model, "phold") == 0);
        CHECK_I64(phold_values_of(&sc)->lps, 6);
        CHECK_I64(sc.duration_ns, 2000000000);
    }
    if (LOAD_OV(PHOLD_BASE, &sc, "phold.remote=0.5", "phold.population=2") == 0) {
        CHECK_U64(phold_values_of(&sc)->remote_threshold, (uint64_t)1 << 31);
        CHECK_I64(phold_values_of(&sc)->population, 2);
    }
    /* the core sections are every model's */
    if (LOAD_OK(PHOLD_BASE "[partition]\ncount = 2\nretile = 0\n[inject]\npolicy = static\n"
                           "[devices]\non_failure = continue\n", &sc) == 0) {
        CHECK_I64(sc.partitions, 2);
        CHECK_I64(sc.policy, POLICY_STATIC);
        CHECK_I64(sc.on_failure, ON_FAILURE_CONTINUE);
        CHECK_ROUND_TRIP(&sc);
    }
    /* the flood's rules do not apply: 150 partitions, though [topology]'s default has 100
     * nodes */
    if (LOAD_OV(PHOLD_BASE, &sc, "partition.count=150") == 0)
        CHECK_I64(sc.partitions, 150);
    /* a file may name its model last; a scenario holds its own model's values only (a flood
     * scenario no [phold] values), each with its defaults */
    if (LOAD_OK("[flood]\nttl = 3\n[simulation]\nmodel = flood\n", &sc) == 0)
        CHECK_I64(flood_values_of(&sc)->ttl, 3);
    if (LOAD_OK("[phold]\npopulation = 2\n[simulation]\nmodel = phold\nduration = 1\n", &sc) == 0)
        CHECK_I64(phold_values_of(&sc)->lps, 1000);
}

static void test_phold_errors(void)
{
    /* each key's range */
    EXPECT_MESSAGE(PHOLD_BASE "[phold]\nlps = 0\n",
                   "t.ini:5: [phold] lps = 0: expected an integer in [1, 2147483647] (LPs)");
    EXPECT_MESSAGE(PHOLD_BASE "[phold]\nlps = 2147483648\n",
                   "t.ini:5: [phold] lps = 2147483648: expected an integer in [1, 2147483647] "
                   "(LPs)");
    EXPECT_MESSAGE(PHOLD_BASE "[phold]\npopulation = 0\n",
                   "t.ini:5: [phold] population = 0: expected an integer in [1, 1048576] "
                   "(events per LP)");
    EXPECT_MESSAGE(PHOLD_BASE "[phold]\npopulation = 1048577\n",
                   "t.ini:5: [phold] population = 1048577: expected an integer in [1, 1048576] "
                   "(events per LP)");
    EXPECT_MESSAGE(PHOLD_BASE "[phold]\nremote = 1.5\n",
                   "t.ini:5: [phold] remote = 1.5: expected a probability in [0, 1]");
    EXPECT_MESSAGE(PHOLD_BASE "[phold]\nremote = -0.1\n",
                   "t.ini:5: [phold] remote = -0.1: expected a probability in [0, 1]");
    EXPECT_MESSAGE(PHOLD_BASE "[phold]\nlookahead = 0\n",
                   "t.ini:5: [phold] lookahead = 0: expected a time in seconds in (0, "
                   "2305843009.213693952]");
    EXPECT_MESSAGE(PHOLD_BASE "[phold]\nlookahead = 0.0000000004\n",
                   "t.ini:5: [phold] lookahead = 0.0000000004: expected a time in seconds in "
                   "(0, 2305843009.213693952]");
    EXPECT_MESSAGE(PHOLD_BASE "[phold]\nmean = -1\n",
                   "t.ini:5: [phold] mean = -1: expected a time in seconds in [0, "
                   "2305843009.213693952]");
    EXPECT_MESSAGE(PHOLD_BASE "[phold]\nmean = x\n",
                   "t.ini:5: [phold] mean = x: not a number; expected a time in seconds in [0, "
                   "2305843009.213693952]");
    EXPECT_MESSAGE(PHOLD_BASE "[phold]\nevents = 3\n",
                   "t.ini:5: [phold] unknown key 'events'; the keys of [phold] are: lps, "
                   "population, remote, lookahead, mean, windows_per_read");
    /* a duration: at the line of model when duration kept its default, else where it was
     * set last */
    EXPECT_MESSAGE("[simulation]\nmodel = phold\n",
                   "t.ini:2: [simulation] duration: the phold model needs a duration > 0: its "
                   "events never run out");
    EXPECT_MESSAGE_OV(PHOLD_BASE,
                      "-s argument 'simulation.duration=0': [simulation] duration: the phold "
                      "model needs a duration > 0: its events never run out",
                      "simulation.duration=0");
    EXPECT_MESSAGE_OV("[phold]\nlps = 3\n",
                      "-s argument 'simulation.model=phold': [simulation] duration: the phold "
                      "model needs a duration > 0: its events never run out",
                      "simulation.model=phold");
    /* the clock's limit: duration + 2 x lookahead + 12 x mean <= 2^62 ns */
    EXPECT_MESSAGE(PHOLD_BASE "[phold]\nmean = 384307166.518948993\n",
                   "t.ini:5: [simulation] duration = 20 s with [phold] lookahead = 0.1 s and "
                   "mean = 384307166.518948993 s: simulated time could pass "
                   "4611686018.427387904 s (2^62 ns, about 146 years), the limit of the "
                   "simulation clock; expected duration + 2 x lookahead + 12 x mean <= "
                   "4611686018.427387904 s");
    scenario sc;
    /* 20 s + 2 x 0.1 s + 12 x 384307166.518948992 s <= 2^62 ns < that + 12 ns: accepted */
    if (LOAD_OK(PHOLD_BASE "[phold]\nmean = 384307166.518948992\n", &sc) == 0)
        CHECK_I64(phold_values_of(&sc)->mean_ns, 384307166518948992);
    EXPECT_MESSAGE_OV(PHOLD_BASE,
                      "-s argument 'simulation.duration=2305843009.213693952': [simulation] "
                      "duration = 2305843009.213693952 s with [phold] lookahead = 2305843009 s "
                      "and mean = 0 s: simulated time could pass 4611686018.427387904 s (2^62 "
                      "ns, about 146 years), the limit of the simulation clock; expected "
                      "duration + 2 x lookahead + 12 x mean <= 4611686018.427387904 s",
                      "phold.mean=0", "phold.lookahead=2305843009",
                      "simulation.duration=2305843009.213693952");
}

/* A key of another model's section is refused wherever it was set, naming that place. */
static void test_phold_sections(void)
{
    /* flood sections in a phold scenario; model = phold last in the file */
    EXPECT_MESSAGE("[topology]\nrows = 3\n[simulation]\nduration = 1\nmodel = phold\n",
                   "t.ini:2: [topology] rows: section [topology] belongs to the flood model, "
                   "but this scenario's model is phold");
    EXPECT_MESSAGE(PHOLD_BASE "[flood]\nttl = 2\n",
                   "t.ini:5: [flood] ttl: section [flood] belongs to the flood model, but this "
                   "scenario's model is phold");
    /* the first one set is named, though a range error would come later */
    EXPECT_MESSAGE(PHOLD_BASE "[resources]\nrx_capacity = 2\n[areas]\ncount = 3\n",
                   "t.ini:5: [resources] rx_capacity: section [resources] belongs to the flood "
                   "model, but this scenario's model is phold");
    static const char *const flood_keys[] = {
        "topology.placement=uniform", "areas.border_links=0.5", "connectivity.range=3",
        "mobility.model=rwp", "traffic.packets=2", "flood.relay_delay=2",
        "resources.tx_fixed=1"};
    for (size_t i = 0; i < sizeof flood_keys / sizeof flood_keys[0]; i++) {
        char want[300], section[32];
        snprintf(section, sizeof section, "%.*s",
                 (int)(strchr(flood_keys[i], '.') - flood_keys[i]), flood_keys[i]);
        const char *key = strchr(flood_keys[i], '.') + 1;
        snprintf(want, sizeof want,
                 "-s argument '%s': [%s] %.*s: section [%s] belongs to the flood model, but "
                 "this scenario's model is phold",
                 flood_keys[i], section, (int)(strchr(key, '=') - key), key, section);
        EXPECT_MESSAGE_OV(PHOLD_BASE, want, flood_keys[i]);
    }
    /* named sections: a group, a flow by a key or by its section line alone, and by -s */
    EXPECT_MESSAGE(PHOLD_BASE "[mobility.group walkers]\nnodes = 0-9\nspeed_max = 2\n",
                   "t.ini:5: [mobility.group walkers] nodes: section [mobility.group walkers] "
                   "belongs to the flood model, but this scenario's model is phold");
    EXPECT_MESSAGE(PHOLD_BASE "[traffic.flow a]\npackets = 3\n",
                   "t.ini:5: [traffic.flow a] packets: section [traffic.flow a] belongs to the "
                   "flood model, but this scenario's model is phold");
    EXPECT_MESSAGE(PHOLD_BASE "[traffic.flow a]\n",
                   "t.ini:4: section [traffic.flow a] belongs to the flood model, but this "
                   "scenario's model is phold");
    EXPECT_MESSAGE_OV(PHOLD_BASE,
                      "-s argument 'traffic.flow.b.size=9': [traffic.flow b] size: section "
                      "[traffic.flow b] belongs to the flood model, but this scenario's model "
                      "is phold",
                      "traffic.flow.b.size=9");
    EXPECT_MESSAGE_OV(PHOLD_BASE,
                      "-s argument 'mobility.group.g.nodes=1': [mobility.group g] nodes: "
                      "section [mobility.group g] belongs to the flood model, but this "
                      "scenario's model is phold",
                      "mobility.group.g.nodes=1");
    /* [phold] in a flood scenario: the default model, model = flood set last, or -s */
    EXPECT_MESSAGE("[phold]\nlps = 3\n",
                   "t.ini:2: [phold] lps: section [phold] belongs to the phold model, but this "
                   "scenario's model is flood");
    EXPECT_MESSAGE("[flood]\nttl = 3\n[phold]\nmean = 1\n[simulation]\nmodel = flood\n",
                   "t.ini:4: [phold] mean: section [phold] belongs to the phold model, but this "
                   "scenario's model is flood");
    EXPECT_MESSAGE_OV("[flood]\nttl = 3\n",
                      "-s argument 'phold.lookahead=1': [phold] lookahead: section [phold] "
                      "belongs to the phold model, but this scenario's model is flood",
                      "phold.lookahead=1");
    EXPECT_MESSAGE_OV(PHOLD_BASE "[phold]\nremote = 0.5\n",
                      "t.ini:5: [phold] remote: section [phold] belongs to the phold model, but "
                      "this scenario's model is flood",
                      "simulation.model=flood");
    /* -s turning a flood file into a phold scenario: the file's first flood key is named */
    EXPECT_MESSAGE_OV("[flood]\nttl = 3\n[traffic]\npackets = 2\n",
                      "t.ini:2: [flood] ttl: section [flood] belongs to the flood model, but "
                      "this scenario's model is phold",
                      "simulation.model=phold", "simulation.duration=1");
    /* among overrides, the first given */
    EXPECT_MESSAGE_OV(PHOLD_BASE,
                      "-s argument 'traffic.size=3': [traffic] size: section [traffic] belongs "
                      "to the flood model, but this scenario's model is phold",
                      "traffic.size=3", "flood.ttl=1");
    /* a key set back to its default value is still set: refused too */
    EXPECT_MESSAGE(PHOLD_BASE "[topology]\nplacement = grid\n",
                   "t.ini:5: [topology] placement: section [topology] belongs to the flood "
                   "model, but this scenario's model is phold");
}

/* --dump-config: [simulation], the model's sections, then the core ones. */
static void test_phold_dump(void)
{
    const char *src = getenv("CLNETSIM_SOURCE_DIR");
    char path[1100];
    snprintf(path, sizeof path, "%s/scenarios/small_phold.ini", src ? src : ".");
    scenario sc;
    cn_error err = {0};
    int rc = config_load(path, NULL, 0, &sc, &err);
    check_at(__FILE__, __LINE__, rc == 0, "%s: %s", path, err.msg);
    if (rc == 0) {
        char *text = config_dump_string(&sc);
        char want[4096];
        snprintf(want, sizeof want,
                 "; clnetsim scenario: the effective configuration of %s\n"
                 "; Units: lengths in metres, times in seconds, speeds in m/s, sizes in bytes.\n"
                 "\n[simulation]\nmodel = phold\nseed = 1\nduration = 20\n"
                 "\n[phold]\nlps = 1000\npopulation = 8\nremote = 0.25\nlookahead = 0.1\n"
                 "mean = 0.9\nwindows_per_read = 0\n"
                 "\n[partition]\ncount = 0\nretile = 8\nrebalance = 16\n"
                 "\n[inject]\npolicy = hybrid\nhistory = 32\nhold = 16\nthreshold = 0\nbusy = 4\n"
                 "calibration_share = 0.05\n"
                 "\n[devices]\non_failure = stop\n",
                 path);
        check_at(__FILE__, __LINE__, text && strcmp(text, want) == 0,
                 "dump\n%s\nexpected\n%s", text ? text : "(null)", want);
        free(text);
        CHECK_ROUND_TRIP(&sc);
    }
    /* a flood dump: every core and flood section in table order, the groups after
     * [mobility], the flows last; no [phold] */
    if (LOAD_OK("[mobility.group g]\nnodes = 0-9\n[traffic.flow f]\npackets = 2\n", &sc) == 0) {
        char *text = config_dump_string(&sc);
        char headers[512] = "";
        for (const char *line = text; line && *line;) {
            const char *nl = strchr(line, '\n');
            size_t len = nl ? (size_t)(nl - line) : strlen(line);
            if (line[0] == '[')
                snprintf(headers + strlen(headers), sizeof headers - strlen(headers), "%.*s",
                         (int)len, line);
            line = nl ? nl + 1 : NULL;
        }
        CHECK(strcmp(headers, "[simulation][topology][areas][connectivity][mobility]"
                              "[mobility.group g][traffic][flood][resources][partition][inject]"
                              "[devices][traffic.flow f]") == 0);
        free(text);
        CHECK_ROUND_TRIP(&sc);
    }
}

static void test_phold(void)
{
    test_phold_values();
    test_phold_errors();
    test_phold_sections();
    test_phold_dump();
}

/* ---- docs/keys.md ---------------------------------------------------------------------------- */

#define DOCS_HEADER                                                                                \
    "<!-- Generated by `test_config --print-reference` (tests/config): do not edit by hand. -->\n"

static void print_reference(FILE *out)
{
    fputs(DOCS_HEADER, out);
    config_print_reference(out);
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    int c;
    while (m && (c = fgetc(f)) != EOF)
        fputc(c, m);
    if (m)
        fclose(m);
    fclose(f);
    return buf;
}

static int check_docs(void)
{
    const char *src = getenv("CLNETSIM_SOURCE_DIR");
    if (!src) {
        fprintf(stderr, "CLNETSIM_SOURCE_DIR is not set (ctest sets it)\n");
        return 1;
    }
    char path[1100];
    snprintf(path, sizeof path, "%s/docs/keys.md", src);
    char *want = NULL, *have = read_all(path);
    size_t len = 0;
    FILE *m = open_memstream(&want, &len);
    if (m) {
        print_reference(m);
        fclose(m);
    }
    int same = have && want && strcmp(have, want) == 0;
    if (!same)
        fprintf(stderr,
                "%s is %s the schema of host/config; regenerate it with:\n"
                "  <build>/tests/config/test_config --print-reference > docs/keys.md\n",
                path, have ? "out of date with" : "missing; it documents");
    free(have);
    free(want);
    return same ? 0 : 1;
}

static void test_reference(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return;
    config_print_reference(m);
    fclose(m);
    CHECK(strstr(buf, "| Section | Key | Type | Range | Default | Description |") != NULL);
    CHECK(strstr(buf, "| flood | relay_delay | time (s) | (0, 2305843009.213693952] | 1 |") != NULL);
    CHECK(strstr(buf, "| traffic | destination | integer | [-1, 1999999999] node id | -1 |"));
    CHECK(strstr(buf, "| topology | placement | choice | grid, uniform, areas | grid |") != NULL);
    CHECK(strstr(buf, "| areas | count | integer | [2, 1024] areas | 6 |") != NULL);
    CHECK(strstr(buf, "| areas | border_links | probability | [0, 1] | 0.1 |") != NULL);
    /* One row per key, six cells each. */
    int rows = 0;
    for (char *line = strstr(buf, "\n| "); line; line = strstr(line + 1, "\n| "))
        rows++;
    CHECK_I64(rows, 86); /* 4 tables' headers + 82 keys */
    CHECK(strstr(buf, "| devices | on_failure | choice | stop, continue | stop |") != NULL);
    CHECK(strstr(buf, "| mobility.group NAME | nodes | id ranges | first-last, ..., ids < nodes | "
                      "(required) |"));
    /* the keys of a flow, their defaults [traffic]'s */
    CHECK(strstr(buf, "\n| traffic.flow NAME | source | id ranges or all | all, or first-last, "
                      "..., ids < nodes | [traffic] source | "));
    CHECK(strstr(buf, "\n| traffic.flow NAME | destination | node id or broadcast | [-1, "
                      "1999999999] node id, or broadcast | [traffic] destination | "));
    CHECK(strstr(buf, "\n| traffic.flow NAME | packets | integer | [0, 2000000000] packets | "
                      "[traffic] packets | "));
    CHECK(strstr(buf, "\n| traffic.flow NAME | interval | time law (s) | [0, 1000000], "
                      "uniform(a, b) or exponential(mean) | [traffic] interval | "));
    CHECK(strstr(buf, "\n| traffic.flow NAME | interval_draw | choice | packet, node | packet | "));
    CHECK(strstr(buf, "\n| traffic.flow NAME | start | time law (s) | [0, 1000000000], or "
                      "uniform(a, b) | [traffic] start | "));
    CHECK(strstr(buf, "\n| traffic.flow NAME | size | integer | [1, 2147483647] bytes | "
                      "[traffic] size | "));
    /* in table order: right after [traffic] */
    CHECK(strstr(buf, "| traffic | size |") < strstr(buf, "| traffic.flow NAME | source |"));
    CHECK(strstr(buf, "| traffic.flow NAME | size |") < strstr(buf, "| flood | relay_delay |"));
    /* the forwarding schemes, after ttl */
    CHECK(strstr(buf, "\n| flood | scheme | choice | probabilistic, counter, distance | "
                      "probabilistic | "));
    CHECK(strstr(buf, "\n| flood | counter_threshold | integer | [2, 2147483647] copies | 3 | "));
    CHECK(strstr(buf, "\n| flood | distance_threshold | length (m) | [0, 2147483.647] | 0 | "));
    CHECK(strstr(buf, "\n| flood | assessment_delay | time (s) | [0, 2305843009.213693952] | 0 | "));
    CHECK(strstr(buf, "| flood | ttl |") < strstr(buf, "| flood | scheme |"));
    CHECK(strstr(buf, "| flood | assessment_delay |") > strstr(buf, "\n## Model flood\n"));
    /* node resources, right after [flood], the last section of the flood model */
    CHECK(strstr(buf, "\n| resources | rx_capacity | integer | [0, 2147483647] copies | 0 | "));
    CHECK(strstr(buf, "\n| resources | energy_budget | energy law (J) | [0, 1000000000], or "
                      "uniform(a, b) per node | 0 | "));
    CHECK(strstr(buf, "\n| resources | tx_per_byte | energy (J) | [0, 1000000000] | 0 | "));
    CHECK(strstr(buf, "| flood | assessment_delay |") < strstr(buf, "| resources | rx_capacity |"));
    CHECK(strstr(buf, "| resources | rx_per_byte |") < strstr(buf, "\n## Model phold\n"));
    /* by model: the core sections, then each model's, each in a table of its own */
    const char *core = strstr(buf, "\n## Core sections\n"), *flood = strstr(buf, "\n## Model flood\n");
    const char *phold = strstr(buf, "\n## Model phold\n");
    CHECK(core && flood && phold && core < flood && flood < phold);
    const char *header = "\n| Section | Key | Type | Range | Default | Description |\n|---|";
    CHECK(strstr(buf, header) > core && strstr(buf, header) < flood);
    CHECK(flood && strstr(flood, header) && strstr(flood, header) < phold);
    CHECK(phold && strstr(phold, header) != NULL);
    static const char *const core_rows[] = {"| simulation | seed |", "| simulation | duration |",
                                            "| partition | count |", "| partition | retile |",
                                            "| inject | policy |", "| devices | on_failure |"};
    for (size_t i = 0; i < sizeof core_rows / sizeof core_rows[0]; i++)
        CHECK(strstr(buf, core_rows[i]) > core && strstr(buf, core_rows[i]) < flood);
    static const char *const flood_rows[] = {"| topology | placement |", "| areas | count |",
                                             "| connectivity | model |", "| mobility | model |",
                                             "| mobility.group NAME | nodes |",
                                             "| traffic | source |", "| traffic.flow NAME | size |",
                                             "| flood | relay_delay |", "| resources | rx_fixed |"};
    for (size_t i = 0; i < sizeof flood_rows / sizeof flood_rows[0]; i++)
        CHECK(strstr(buf, flood_rows[i]) > flood && strstr(buf, flood_rows[i]) < phold);
    CHECK(strstr(buf, "\n| simulation | model | choice | flood, phold, kademlia | flood | Model to "
                      "simulate: flood ") > core);
    CHECK(strstr(buf, "\n| phold | lps | integer | [1, 2147483647] LPs | 1000 | ") > phold);
    CHECK(strstr(buf, "\n| phold | population | integer | [1, 1048576] events per LP | 16 | ") >
          phold);
    CHECK(strstr(buf, "\n| phold | remote | probability | [0, 1] | 0.1 | ") > phold);
    CHECK(strstr(buf, "\n| phold | lookahead | time (s) | (0, 2305843009.213693952] | 0.1 | ") >
          phold);
    CHECK(strstr(buf, "\n| phold | mean | time (s) | [0, 2305843009.213693952] | 0.9 | ") > phold);
    for (char *line = buf; line && *line;) {
        char *next = strchr(line, '\n');
        int bars = 0;
        for (char *q = line; *q && *q != '\n'; q++)
            bars += *q == '|';
        if (*line == '|')
            CHECK_I64(bars, 7);
        line = next ? next + 1 : NULL;
    }
    free(buf);
}

/* ---- mobility groups ---------------------------------------------------------------------- */

static void test_groups(void)
{
    scenario sc;
    const char *base = "[topology]\nplacement = uniform\nnodes = 100\nwidth = 500\nheight = 400\n"
                       "[mobility]\nmodel = static\nspeed_min = 2\nspeed_max = 3\n";
    /* a group inherits what it does not set; nodes of no group keep [mobility] */
    char text[1024];
    snprintf(text, sizeof text,
             "%s[mobility.group walkers]\nnodes = 10-19, 40, 50-59\nmodel = random_walk\n"
             "speed_max = 7\n[mobility.group cars]\nnodes = 90-99\nmodel = rwp\n",
             base);
    if (LOAD_OK(text, &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->n_groups, 2);
        CHECK(strcmp(flood_values_of(&sc)->groups[0].name, "walkers") == 0);
        CHECK_I64(flood_values_of(&sc)->groups[0].n_ranges, 3);
        CHECK_I64(flood_values_of(&sc)->groups[0].first[1], 40);
        CHECK_I64(flood_values_of(&sc)->groups[0].last[1], 40);
        CHECK_I64(flood_values_of(&sc)->groups[0].last[2], 59);
        CHECK_I64(flood_values_of(&sc)->groups[0].mob.model, MOBILITY_RANDOM_WALK);
        CHECK_I64(flood_values_of(&sc)->groups[0].mob.speed_min_mm_s, 2000); /* inherited */
        CHECK_I64(flood_values_of(&sc)->groups[0].mob.speed_max_mm_s, 7000);
        CHECK_I64(flood_values_of(&sc)->groups[1].mob.model, MOBILITY_RWP);
        CHECK_I64(flood_values_of(&sc)->groups[1].mob.speed_max_mm_s, 3000);
        CHECK(flood_node_mobility(flood_values_of(&sc), 40) == &flood_values_of(&sc)->groups[0].mob);
        CHECK(flood_node_mobility(flood_values_of(&sc), 41) == &flood_values_of(&sc)->mob);
        CHECK(flood_node_mobility(flood_values_of(&sc), 99) == &flood_values_of(&sc)->groups[1].mob);
        CHECK(flood_is_mobile(flood_values_of(&sc)));
        CHECK_I64(flood_speed_max(flood_values_of(&sc)), 7000);
        CHECK(!flood_wraps(flood_values_of(&sc)));
        /* runs: 0-9 [mobility], 10-19 walkers, 20-39, 40, 41-49, 50-59, 60-89, 90-99 */
        mobility_segment seg[SCENARIO_MAX_SEGMENTS];
        int n = flood_mobility_segments(flood_values_of(&sc), seg);
        CHECK_I64(n, 8);
        const int64_t first[8] = {0, 10, 20, 40, 41, 50, 60, 90};
        const int group[8] = {-1, 0, -1, 0, -1, 0, -1, 1};
        for (int i = 0; i < n && i < 8; i++) {
            CHECK_I64(seg[i].first, first[i]);
            CHECK_I64(seg[i].end, i + 1 < 8 ? first[i + 1] : 100);
            CHECK_I64(seg[i].group, group[i]);
        }
        CHECK_ROUND_TRIP(&sc);
    }
    /* adjacent ranges of one group make one run; a group may cover every node */
    if (LOAD_OV(base, &sc, "mobility.group.a.nodes=0-49,50-99", "mobility.group.a.model=linear",
                "mobility.group.a.boundary=wrap") == 0) {
        mobility_segment seg[SCENARIO_MAX_SEGMENTS];
        CHECK_I64(flood_mobility_segments(flood_values_of(&sc), seg), 1);
        CHECK_I64(seg[0].end, 100);
        CHECK(flood_wraps(flood_values_of(&sc)));
        CHECK_ROUND_TRIP(&sc);
    }
    /* -s with the section as the file writes it, spaces included */
    if (LOAD_OV(base, &sc, "mobility.group b.nodes=5", "mobility.group b.model=grid_walk") == 0) {
        CHECK_I64(flood_values_of(&sc)->n_groups, 1);
        CHECK_I64(flood_values_of(&sc)->groups[0].mob.model, MOBILITY_GRID_WALK);
    }
    /* static nodes only: not mobile, even with moving [mobility] keys in a group */
    if (LOAD_OV(base, &sc, "mobility.group.s.nodes=1-2") == 0)
        CHECK(!flood_is_mobile(flood_values_of(&sc)));
    /* a moving group on a static grid gives the grid its bounding box as area */
    if (LOAD_OV("[topology]\nrows = 3\ncols = 5\nspacing = 10\n", &sc, "mobility.group.g.nodes=0",
                "mobility.group.g.model=rwp") == 0) {
        CHECK_I64(flood_values_of(&sc)->width_mm, 40000);
        CHECK_I64(flood_values_of(&sc)->height_mm, 20000);
    }

    /* errors name the group, the line and what is expected */
    snprintf(text, sizeof text, "%s[mobility.group a]\nmodel = rwp\n", base);
    EXPECT_ERROR(text, NULL, "t.ini:11: [mobility.group a] has no nodes key");
    snprintf(text, sizeof text, "%s[mobility.group a]\nnodes = 90-100\n", base);
    EXPECT_ERROR(text, NULL, "t.ini:11: [mobility.group a] nodes = 90-100: node 100 does not exist",
                 "expected ids in [0, 99] (the scenario has 100 nodes)");
    snprintf(text, sizeof text,
             "%s[mobility.group a]\nnodes = 0-20\n[mobility.group b]\nnodes = 30, 20-25\n", base);
    EXPECT_ERROR(text, NULL, "t.ini:13: [mobility.group b] nodes = 30, 20-25: node 20 is also in "
                             "[mobility.group a] (nodes = 0-20)",
                 "at most one group");
    snprintf(text, sizeof text, "%s[mobility.group a]\nnodes = 0-20, 5\n", base);
    EXPECT_ERROR(text, NULL, "[mobility.group a] nodes = 0-20, 5: node 5 is in two of its ranges");
    snprintf(text, sizeof text, "%s[mobility.group a]\nnodes = 9-3\n", base);
    EXPECT_ERROR(text, NULL, "t.ini:11: [mobility.group a] nodes = 9-3: range 9-3 ends before it "
                             "starts; expected node id ranges");
    snprintf(text, sizeof text, "%s[mobility.group a]\nnodes = 1-2-3\n", base);
    EXPECT_ERROR(text, NULL, "[mobility.group a] nodes = 1-2-3: expected node id ranges");
    snprintf(text, sizeof text, "%s[mobility.group a]\nnodes = -1\n", base);
    EXPECT_ERROR(text, NULL, "[mobility.group a] nodes = -1: expected node id ranges");
    snprintf(text, sizeof text, "%s[mobility.group a]\nnodes =\n", base);
    EXPECT_ERROR(text, NULL, "[mobility.group a] nodes = : empty value; expected node id ranges");
    snprintf(text, sizeof text, "%s[mobility.group a]\nnodes = 1,2,3,4,5,6,7,8,9\n", base);
    EXPECT_ERROR(text, NULL, "too many ranges; expected", "at most 8 ranges");
    snprintf(text, sizeof text, "%s[mobility.group a]\nnodes = 99999999999999999999\n", base);
    EXPECT_ERROR(text, NULL, "an id is too large");
    snprintf(text, sizeof text, "%s[mobility.group a]\nnodes = 1\nnodes = 2\n", base);
    EXPECT_ERROR(text, NULL, "t.ini:12: [mobility.group a] nodes is set twice (first on line 11)");
    snprintf(text, sizeof text, "%s[mobility.group a]\nnodes = 1\nspeed_mx = 2\n", base);
    EXPECT_ERROR(text, NULL, "t.ini:12: [mobility.group a] unknown key 'speed_mx'; did you mean "
                             "'speed_max'?");
    snprintf(text, sizeof text, "%s[mobility.group a]\nnodes = 1\nrange = 2\n", base);
    EXPECT_ERROR(text, NULL, "[mobility.group a] unknown key 'range'; a group takes nodes and the "
                             "keys of [mobility]");
    snprintf(text, sizeof text, "%s[mobility.group a]\nnodes = 1\nmodel = teleport\n", base);
    EXPECT_ERROR(text, NULL, "t.ini:12: [mobility.group a] model = teleport: expected one of: "
                             "static, rwp");
    snprintf(text, sizeof text, "%s[mobility.group a b]\nnodes = 1\n", base);
    EXPECT_ERROR(text, NULL, "t.ini:11: section [mobility.group a b] (key 'nodes'): expected "
                             "[mobility.group NAME]");
    snprintf(text, sizeof text, "%s[mobility.group]\nnodes = 1\n", base);
    EXPECT_ERROR(text, NULL, "section [mobility.group] (key 'nodes'): expected [mobility.group NAME]");
    /* the group's rules are [mobility]'s, checked on its own values (inherited or not) */
    snprintf(text, sizeof text, "%s[mobility.group fast]\nnodes = 1\nmodel = rwp\nspeed_min = 9\n",
             base);
    EXPECT_ERROR(text, NULL, "t.ini:13: [mobility.group fast] speed_min = 9 m/s is above "
                             "speed_max = 3 m/s");
    snprintf(text, sizeof text,
             "[topology]\nplacement = uniform\nnodes = 100\nwidth = 500\nheight = 400\n"
             "[mobility]\nspeed_min = 0\n[mobility.group z]\nnodes = 1\nmodel = linear\n");
    EXPECT_ERROR(text, "mobility.speed_max=0",
                 "-s argument 'mobility.speed_max=0': [mobility.group z] model = linear with "
                 "speed_max = 0");
    snprintf(text, sizeof text,
             "%s[flood]\nrelay_delay = 10\n[mobility.group v]\nnodes = 1\nmodel = grid_walk\n"
             "street_spacing = 0.1\n",
             base);
    EXPECT_ERROR(text, NULL, "[mobility.group v] model = grid_walk with speed_max = 3 m/s",
                 "more than 64 street intersections per window");
    /* at most SCENARIO_MAX_GROUPS */
    size_t used = (size_t)snprintf(text, sizeof text, "%s", base);
    for (int g = 0; g <= SCENARIO_MAX_GROUPS; g++)
        used += (size_t)snprintf(text + used, sizeof text - used, "[mobility.group g%d]\nnodes = %d\n",
                                 g, g);
    EXPECT_ERROR(text, NULL, "[mobility.group g16] would be group 17: expected at most 16");
}

/* ---- traffic flows -------------------------------------------------------------------------- */

/* 12 lines: the flow sections of the tests start on line 13, their first key on line 14. */
static const char flow_base[] =
    "[topology]\nplacement = uniform\nnodes = 100\nwidth = 500\nheight = 400\n"
    "[traffic]\nsource = 3\ndestination = 7\npackets = 4\ninterval = 0.5\nstart = 2\nsize = 100\n";

/* flow_base followed by MORE (in a buffer that the next call reuses). */
static const char *flow_text(const char *more)
{
    static char buf[8192];
    snprintf(buf, sizeof buf, "%s%s", flow_base, more);
    return buf;
}

static void check_law_at(const char *file, int line, const time_law *law, int kind, int64_t a,
                         int64_t b)
{
    check_at(file, line, law->law == kind && law->a_ns == a && law->b_ns == b,
             "time law {%d, %lld, %lld}, expected {%d, %lld, %lld}", law->law,
             (long long)law->a_ns, (long long)law->b_ns, kind, (long long)a, (long long)b);
}
#define CHECK_LAW(law, kind, a, b) check_law_at(__FILE__, __LINE__, law, kind, a, b)

static void test_flows_values(void)
{
    scenario sc;
    /* without any flow section: n_flows 0 and [traffic] as before */
    if (LOAD_OK(flow_base, &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->n_flows, 0);
        CHECK_I64(flood_values_of(&sc)->source, 3);
        CHECK_I64(flood_values_of(&sc)->destination, 7);
        char *text = config_dump_string(&sc);
        CHECK(text && !strstr(text, "traffic.flow"));
        free(text);
    }
    if (LOAD_OK("", &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->n_flows, 0);
        static const traffic_flow zero;
        CHECK(memcmp(&flood_values_of(&sc)->flows[0], &zero, sizeof zero) == 0);
    }
    /* every value form; keys a flow does not set are [traffic]'s; a section without keys is a
     * flow too */
    const char *text =
        flow_text("[simulation]\nduration = 100\n"
                  "[traffic.flow a]\nsource = 0-2, 20, 30 - 39\ndestination = broadcast\n"
                  "packets = 0\ninterval = uniform( 0.1 , 2 )\ninterval_draw = node\n"
                  "start = uniform(1,1.5)\nsize = 1500\n"
                  "[traffic.flow b]\nsource = all\ndestination = -1\ninterval = exponential(1)\n"
                  "start = 0.25\n"
                  "[traffic.flow c]\ndestination = 50\n"
                  "[traffic.flow d]\ninterval = exponential( 0.001 )\nsource = 99\n"
                  "interval_draw = packet\n"
                  "[traffic.flow e]\n"
                  "[traffic.flow f_-9]\ninterval = 0.0000000015\n"
                  "start = uniform(1e-9, 1000000000)\n"
                  "packets = 2000000000\nsize = 2147483647\n");
    if (LOAD_OK(text, &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->n_flows, 6);
        static const char *const names[] = {"a", "b", "c", "d", "e", "f_-9"};
        for (int f = 0; f < 6 && f < flood_values_of(&sc)->n_flows; f++)
            CHECK(strcmp(flood_values_of(&sc)->flows[f].name, names[f]) == 0);
        const traffic_flow *a = &flood_values_of(&sc)->flows[0], *b = &flood_values_of(&sc)->flows[1], *c = &flood_values_of(&sc)->flows[2],
                           *d = &flood_values_of(&sc)->flows[3], *e = &flood_values_of(&sc)->flows[4], *g = &flood_values_of(&sc)->flows[5];
        CHECK_I64(a->all_sources, 0);
        CHECK_I64(a->n_ranges, 3);
        CHECK_I64(a->first[0], 0);
        CHECK_I64(a->last[0], 2);
        CHECK_I64(a->first[1], 20);
        CHECK_I64(a->last[1], 20);
        CHECK_I64(a->first[2], 30);
        CHECK_I64(a->last[2], 39);
        CHECK_I64(a->destination, FLOW_BROADCAST);
        CHECK_I64(a->packets, 0);
        CHECK_LAW(&a->interval, TLAW_UNIFORM, 100000000, 2000000000);
        CHECK_I64(a->interval_draw, DRAW_NODE);
        CHECK_LAW(&a->start, TLAW_UNIFORM, 1000000000, 1500000000);
        CHECK_I64(a->size_bytes, 1500);

        CHECK_I64(b->all_sources, 1);
        CHECK_I64(b->n_ranges, 0);
        CHECK_I64(b->destination, 99); /* -1: the last node */
        CHECK_I64(b->packets, 4);      /* [traffic]'s */
        CHECK_LAW(&b->interval, TLAW_EXPONENTIAL, 1000000000, 1000000000);
        CHECK_I64(b->interval_draw, DRAW_PACKET);
        CHECK_LAW(&b->start, TLAW_CONSTANT, 250000000, 250000000);
        CHECK_I64(b->size_bytes, 100);

        CHECK_I64(c->all_sources, 0); /* [traffic] source: one id */
        CHECK_I64(c->n_ranges, 1);
        CHECK_I64(c->first[0], 3);
        CHECK_I64(c->last[0], 3);
        CHECK_I64(c->destination, 50);
        CHECK_I64(c->packets, 4);
        CHECK_LAW(&c->interval, TLAW_CONSTANT, 500000000, 500000000);
        CHECK_I64(c->interval_draw, DRAW_PACKET);
        CHECK_LAW(&c->start, TLAW_CONSTANT, 2000000000, 2000000000);
        CHECK_I64(c->size_bytes, 100);

        CHECK_LAW(&d->interval, TLAW_EXPONENTIAL, 1000000, 1000000);
        CHECK_I64(d->first[0], 99);
        CHECK_I64(d->destination, 7);

        CHECK_I64(e->n_ranges, 1);
        CHECK_I64(e->first[0], 3);
        CHECK_I64(e->destination, 7);
        CHECK_I64(e->packets, 4);
        CHECK_LAW(&e->interval, TLAW_CONSTANT, 500000000, 500000000);

        CHECK_LAW(&g->interval, TLAW_CONSTANT, 2, 2); /* exact, ties away from zero */
        CHECK_LAW(&g->start, TLAW_UNIFORM, 1, 1000000000000000000);
        CHECK_I64(g->packets, 2000000000);
        CHECK_I64(g->size_bytes, 2147483647);
        /* [traffic] itself is unchanged */
        CHECK_I64(flood_values_of(&sc)->source, 3);
        CHECK_I64(flood_values_of(&sc)->destination, 7);
        CHECK_I64(flood_values_of(&sc)->packets, 4);
        CHECK_ROUND_TRIP(&sc);
        /* the flows come after the fixed sections, every key with its effective value */
        char *dump = config_dump_string(&sc);
        CHECK(dump && strstr(dump, "\n[traffic.flow a]\nsource = 0-2, 20, 30-39\n"
                                   "destination = broadcast\npackets = 0\n"
                                   "interval = uniform(0.1, 2)\ninterval_draw = node\n"
                                   "start = uniform(1, 1.5)\nsize = 1500\n"));
        CHECK(dump && strstr(dump, "\n[traffic.flow b]\nsource = all\ndestination = 99\n"
                                   "packets = 4\ninterval = exponential(1)\n"
                                   "interval_draw = packet\nstart = 0.25\nsize = 100\n"));
        CHECK(dump && strstr(dump, "\n[traffic.flow e]\nsource = 3\ndestination = 7\npackets = 4\n"
                                   "interval = 0.5\ninterval_draw = packet\nstart = 2\n"
                                   "size = 100\n\n[traffic.flow f_-9]\n"));
        CHECK(dump && strstr(dump, "\ninterval = 0.000000002\n"));
        CHECK(dump && strstr(dump, "\nstart = uniform(0.000000001, 1000000000)\n"));
        CHECK(dump && strstr(dump, "[inject]") < strstr(dump, "[traffic.flow a]"));
        free(dump);
    }
    /* the largest values */
    if (LOAD_OK(flow_text("[traffic.flow a]\ninterval = 1000000\nstart = 1000000000\n"
                          "source = 0-1, 10, 12, 14, 16, 18, 20, 30-98\n"
                          "[traffic.flow abcdefghijklmnopqrstuvwxyz01234]\n"
                          "interval = uniform(1000000, 1000000)\n"),
                &sc) == 0) {
        CHECK_LAW(&flood_values_of(&sc)->flows[0].interval, TLAW_CONSTANT, 1000000000000000, 1000000000000000);
        CHECK_LAW(&flood_values_of(&sc)->flows[0].start, TLAW_CONSTANT, 1000000000000000000,
                  1000000000000000000);
        CHECK_I64(flood_values_of(&sc)->flows[0].n_ranges, 8);
        CHECK_I64(flood_values_of(&sc)->flows[0].last[7], 98);
        CHECK(strcmp(flood_values_of(&sc)->flows[1].name, "abcdefghijklmnopqrstuvwxyz01234") == 0);
        CHECK_ROUND_TRIP(&sc);
    }
    /* a zero interval is fine for one packet each */
    if (LOAD_OK(flow_text("[traffic.flow a]\npackets = 1\ninterval = 0\n[traffic.flow b]\n"
                          "packets = 1\ninterval = uniform(0, 0)\n"),
                &sc) == 0) {
        CHECK_LAW(&flood_values_of(&sc)->flows[0].interval, TLAW_CONSTANT, 0, 0);
        CHECK_LAW(&flood_values_of(&sc)->flows[1].interval, TLAW_UNIFORM, 0, 0);
    }
    /* a broadcast flow may send from any node; all leaves out a unicast destination */
    if (LOAD_OK(flow_text("[traffic.flow a]\nsource = 7\ndestination = broadcast\n"
                          "[traffic.flow b]\nsource = all\n"),
                &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->flows[0].first[0], 7);
        CHECK_I64(flood_values_of(&sc)->flows[1].all_sources, 1);
        CHECK_I64(flood_values_of(&sc)->flows[1].destination, 7);
    }
    /* a keyless section right after a BOM, or before a comment, is a flow */
    if (LOAD_OK("\xEF\xBB\xBF[traffic.flow a]\n[traffic.flow b] ; the second\n", &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->n_flows, 2);
        CHECK(strcmp(flood_values_of(&sc)->flows[1].name, "b") == 0);
    }
    /* packets = 0 once there is a duration */
    if (LOAD_OV(flow_text("[traffic.flow a]\npackets = 0\n"), &sc, "simulation.duration=10") == 0)
        CHECK_I64(flood_values_of(&sc)->flows[0].packets, 0);
}

static void test_flows_inheritance(void)
{
    scenario sc;
    /* [traffic]'s values after every override */
    if (LOAD_OV(flow_text("[traffic.flow c]\ndestination = 50\n[traffic.flow a]\npackets = 2\n"),
                &sc, "traffic.packets=9", "traffic.interval=0.25", "traffic.source=60",
                "traffic.destination=-1", "traffic.size=64", "traffic.start=3") == 0) {
        CHECK_I64(flood_values_of(&sc)->n_flows, 2);
        const traffic_flow *c = &flood_values_of(&sc)->flows[0], *a = &flood_values_of(&sc)->flows[1];
        CHECK(strcmp(c->name, "c") == 0);
        CHECK_I64(c->packets, 9);
        CHECK_LAW(&c->interval, TLAW_CONSTANT, 250000000, 250000000);
        CHECK_LAW(&c->start, TLAW_CONSTANT, 3000000000, 3000000000);
        CHECK_I64(c->first[0], 60);
        CHECK_I64(c->destination, 50);
        CHECK_I64(c->size_bytes, 64);
        CHECK_I64(a->packets, 2);
        CHECK_I64(a->destination, 99); /* -1 resolved */
        CHECK_I64(a->first[0], 60);
        CHECK_ROUND_TRIP(&sc);
    }
    /* the rules between [traffic]'s keys are a flow's now: [traffic] alone may break them */
    if (LOAD_OK("[traffic]\nsource = 5\ndestination = 5\npackets = 2\ninterval = 0\n"
                "[traffic.flow a]\nsource = 1\ninterval = 1\n",
                &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->flows[0].first[0], 1);
        CHECK_I64(flood_values_of(&sc)->flows[0].destination, 5);
        CHECK_I64(flood_values_of(&sc)->flows[0].packets, 2);
        CHECK_LAW(&flood_values_of(&sc)->flows[0].interval, TLAW_CONSTANT, 1000000000, 1000000000);
        CHECK_ROUND_TRIP(&sc);
    }
    if (LOAD_OK("[traffic]\npackets = 2000000000\ninterval = 1e9\n[traffic.flow a]\n"
                "interval = 1\n",
                &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->flows[0].packets, 2000000000);
        CHECK_I64(flood_values_of(&sc)->interval_ns, 1000000000000000000);
    }
}

static void test_flows_overrides(void)
{
    scenario sc;
    /* both -s forms name one flow; -s may create flows, numbered after the file's; an override
     * replaces a file value */
    if (LOAD_OV(flow_text("[traffic.flow a]\nsize = 1\n"), &sc, "traffic.flow z.source=10-12",
                "traffic.flow.z.destination=broadcast", "traffic.flow.a.size=2",
                "traffic.flow y.packets=1", " traffic.flow  z .interval = uniform(1, 2) ") == 0) {
        CHECK_I64(flood_values_of(&sc)->n_flows, 3);
        CHECK(strcmp(flood_values_of(&sc)->flows[0].name, "a") == 0);
        CHECK(strcmp(flood_values_of(&sc)->flows[1].name, "z") == 0);
        CHECK(strcmp(flood_values_of(&sc)->flows[2].name, "y") == 0);
        CHECK_I64(flood_values_of(&sc)->flows[0].size_bytes, 2);
        CHECK_I64(flood_values_of(&sc)->flows[1].n_ranges, 1);
        CHECK_I64(flood_values_of(&sc)->flows[1].first[0], 10);
        CHECK_I64(flood_values_of(&sc)->flows[1].last[0], 12);
        CHECK_I64(flood_values_of(&sc)->flows[1].destination, FLOW_BROADCAST);
        CHECK_LAW(&flood_values_of(&sc)->flows[1].interval, TLAW_UNIFORM, 1000000000, 2000000000);
        CHECK_I64(flood_values_of(&sc)->flows[2].packets, 1);
        CHECK_I64(flood_values_of(&sc)->flows[2].first[0], 3);
        CHECK_ROUND_TRIP(&sc);
    }
    /* an override replaces every range of an earlier value */
    if (LOAD_OV(flow_text("[traffic.flow a]\nsource = 10-20, 30, 40\n"), &sc,
                "traffic.flow.a.source=50", "traffic.flow.b.source=all",
                "traffic.flow.b.source=60-61") == 0) {
        CHECK_I64(flood_values_of(&sc)->flows[0].n_ranges, 1);
        CHECK_I64(flood_values_of(&sc)->flows[0].first[0], 50);
        CHECK_I64(flood_values_of(&sc)->flows[0].first[1], 0);
        CHECK_I64(flood_values_of(&sc)->flows[0].last[2], 0);
        CHECK_I64(flood_values_of(&sc)->flows[1].all_sources, 0);
        CHECK_I64(flood_values_of(&sc)->flows[1].last[0], 61);
        CHECK_ROUND_TRIP(&sc);
    }
    /* no file at all */
    cn_error err = {0};
    config_override o[2] = {{"traffic.flow.x.destination=broadcast", NULL},
                            {"traffic.flow.x.source=all", NULL}};
    CHECK(config_load(NULL, o, 2, &sc, &err) == 0);
    CHECK_I64(flood_values_of(&sc)->n_flows, 1);
    CHECK_I64(flood_values_of(&sc)->flows[0].all_sources, 1);
    /* flows keep the order of their first section, reopened or not */
    if (LOAD_OK("[traffic.flow b]\nsize = 1\n[traffic.flow a]\nsize = 2\n[traffic.flow b]\n"
                "packets = 2\n",
                &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->n_flows, 2);
        CHECK(strcmp(flood_values_of(&sc)->flows[0].name, "b") == 0);
        CHECK_I64(flood_values_of(&sc)->flows[0].packets, 2);
        CHECK_I64(flood_values_of(&sc)->flows[0].size_bytes, 1);
        CHECK(strcmp(flood_values_of(&sc)->flows[1].name, "a") == 0);
    }
    /* at most SCENARIO_MAX_FLOWS, in the file, with sections without keys, or by -s */
    char text[4096];
    size_t used = (size_t)snprintf(text, sizeof text, "%s", flow_base);
    for (int f = 0; f < SCENARIO_MAX_FLOWS; f++)
        used += (size_t)snprintf(text + used, sizeof text - used,
                                 "[traffic.flow f%d]\nsize = %d\n", f, f + 1);
    if (LOAD_OK(text, &sc) == 0) {
        CHECK_I64(flood_values_of(&sc)->n_flows, 16);
        CHECK(strcmp(flood_values_of(&sc)->flows[15].name, "f15") == 0);
        CHECK_I64(flood_values_of(&sc)->flows[15].size_bytes, 16);
        CHECK_ROUND_TRIP(&sc);
    }
    EXPECT_MESSAGE_OV(text,
                      "-s argument 'traffic.flow.z.size=1': [traffic.flow z] would be flow 17: "
                      "expected at most 16 traffic flows",
                      "traffic.flow.z.size=1");
    snprintf(text + used, sizeof text - used, "[traffic.flow f16]\nsize = 1\n");
    EXPECT_MESSAGE(text, "t.ini:45: [traffic.flow f16] would be flow 17: expected at most 16 "
                         "traffic flows");
    used = (size_t)snprintf(text, sizeof text, "%s", flow_base);
    for (int f = 0; f <= SCENARIO_MAX_FLOWS; f++)
        used += (size_t)snprintf(text + used, sizeof text - used, "[traffic.flow f%d]\n", f);
    EXPECT_MESSAGE(text, "t.ini:29: [traffic.flow f16] would be flow 17: expected at most 16 "
                         "traffic flows");
    if (LOAD_OV(flow_base, &sc, "traffic.flow.f0.size=1", "traffic.flow.f1.size=1",
                "traffic.flow.f2.size=1", "traffic.flow.f3.size=1", "traffic.flow.f4.size=1",
                "traffic.flow.f5.size=1", "traffic.flow.f6.size=1", "traffic.flow.f7.size=1",
                "traffic.flow.f8.size=1", "traffic.flow.f9.size=1", "traffic.flow.f10.size=1",
                "traffic.flow.f11.size=1", "traffic.flow.f12.size=1", "traffic.flow.f13.size=1",
                "traffic.flow.f14.size=1", "traffic.flow.f15.size=1") == 0)
        CHECK_I64(flood_values_of(&sc)->n_flows, 16);
}

static void test_flows_errors(void)
{
    const char *expected_sources = "expected all, or node id ranges such as 0-99, 250, 300-399 "
                                   "(first <= last, at most 8 ranges)";
    const char *expected_interval =
        "expected a time in seconds in [0, 1000000], uniform(a, b) with 0 <= a <= b <= 1000000 "
        "or exponential(mean) with 0 < mean <= 1000000 (seconds)";
    const char *expected_start = "expected a time in seconds in [0, 1000000000] or uniform(a, b) "
                                 "with 0 <= a <= b <= 1000000000 (seconds)";
    const char *expected_destination =
        "expected an integer in [-1, 1999999999] (node id; -1: the last node) or broadcast";
    const char *not_always_zero = "expected an interval that is not always 0 (> 0 s, or "
                                  "uniform(a, b) with b > 0) when packets is not 1";
    char want[1024];

    /* names, keys */
    EXPECT_MESSAGE(flow_text("[traffic.flow a b]\nsize = 1\n"),
                   "t.ini:14: section [traffic.flow a b] (key 'size'): expected [traffic.flow "
                   "NAME], NAME of 1 to 31 letters, digits, '_' or '-'");
    EXPECT_MESSAGE(flow_text("[traffic.flow]\nsize = 1\n"),
                   "t.ini:14: section [traffic.flow] (key 'size'): expected [traffic.flow NAME], "
                   "NAME of 1 to 31 letters, digits, '_' or '-'");
    EXPECT_MESSAGE(flow_text("[traffic.flow abcdefghijklmnopqrstuvwxyz012345]\nsize = 1\n"),
                   "t.ini:14: section [traffic.flow abcdefghijklmnopqrstuvwxyz012345] (key "
                   "'size'): expected [traffic.flow NAME], NAME of 1 to 31 letters, digits, '_' "
                   "or '-'");
    EXPECT_MESSAGE_OV(flow_base,
                      "-s argument 'traffic.flow.size=1': section [traffic.flow] (key 'size'): "
                      "expected [traffic.flow NAME], NAME of 1 to 31 letters, digits, '_' or '-'",
                      "traffic.flow.size=1");
    EXPECT_MESSAGE(flow_text("[traffic.flow a]\nintervall = 1\n"),
                   "t.ini:14: [traffic.flow a] unknown key 'intervall'; did you mean 'interval'?");
    EXPECT_MESSAGE_OV(flow_base,
                      "-s argument 'traffic.flow.a.destnation=1': [traffic.flow a] unknown key "
                      "'destnation'; did you mean 'destination'?",
                      "traffic.flow.a.destnation=1");
    EXPECT_MESSAGE(flow_text("[traffic.flow a]\nnodes = 1\n"),
                   "t.ini:14: [traffic.flow a] unknown key 'nodes'; a flow takes the keys "
                   "source, destination, packets, interval, interval_draw, start, size");
    EXPECT_MESSAGE(flow_text("[traffic.flow a]\nsize = 1\nsize = 2\n"),
                   "t.ini:15: [traffic.flow a] size is set twice (first on line 14); keep only "
                   "one of them");
    EXPECT_MESSAGE(flow_text("[traffic.flow a]\n= 3\n"),
                   "t.ini:14: [traffic.flow a] '= 3' has no key name before '='");
    EXPECT_MESSAGE("[traffic]\ninterval_draw = node\n",
                   "t.ini:2: [traffic] unknown key 'interval_draw'; 'interval_draw' is a key of "
                   "[traffic.flow NAME], not of [traffic]");
    EXPECT_MESSAGE("[network]\nx = 1\n",
                   "t.ini:2: unknown section [network] (key 'x'); expected one of: simulation, "
                   "topology, areas, connectivity, mobility, mobility.group NAME, traffic, "
                   "traffic.flow NAME, flood, resources, partition, inject, devices, phold, "
                   "kademlia");

    /* source */
    static const struct {
        const char *value, *why;
    } bad_sources[] = {
        {"5-2", "range 5-2 ends before it starts; "},
        {"1,2,3,4,5,6,8,9,10", "too many ranges; "},
        {"", "empty value; "},
        {"al", ""},
        {"-1", ""},
        {"99999999999999999999", "an id is too large; "},
        {"2000000000", "an id is too large; "},
    };
    for (size_t i = 0; i < sizeof bad_sources / sizeof bad_sources[0]; i++) {
        char more[128];
        snprintf(more, sizeof more, "[traffic.flow a]\nsource = %s\n", bad_sources[i].value);
        snprintf(want, sizeof want, "t.ini:14: [traffic.flow a] source = %s: %s%s",
                 bad_sources[i].value, bad_sources[i].why, expected_sources);
        EXPECT_MESSAGE(flow_text(more), want);
    }
    EXPECT_MESSAGE(flow_text("[traffic.flow a]\nsource = 90-100\n"),
                   "t.ini:14: [traffic.flow a] source = 90-100: node 100 does not exist; "
                   "expected ids in [0, 99] (the scenario has 100 nodes)");
    EXPECT_MESSAGE(flow_text("[traffic.flow a]\nsource = 0-5, 10-20, 5\n"),
                   "t.ini:14: [traffic.flow a] source = 0-5, 10-20, 5: node 5 is in two of its "
                   "ranges; expected ranges that do not overlap");
    EXPECT_MESSAGE(flow_text("[traffic.flow a]\nsource = 0-10\n"),
                   "t.ini:14: [traffic.flow a] source = 0-10 includes destination = 7 (from "
                   "[traffic]): expected sources without the destination of a unicast flow "
                   "(source = all leaves it out)");
    EXPECT_MESSAGE(flow_text("[traffic.flow a]\nsource = 20\ndestination = 20\n"),
                   "t.ini:15: [traffic.flow a] source = 20 includes destination = 20: expected "
                   "sources without the destination of a unicast flow (source = all leaves it "
                   "out)");
    EXPECT_MESSAGE(flow_text("[traffic.flow a]\nsource = 90-99\ndestination = -1\n"),
                   "t.ini:15: [traffic.flow a] source = 90-99 includes destination = 99: expected "
                   "sources without the destination of a unicast flow (source = all leaves it "
                   "out)");
    EXPECT_MESSAGE(flow_text("[traffic.flow a]\ndestination = 3\n"),
                   "t.ini:14: [traffic.flow a] source = 3 (from [traffic]) includes destination "
                   "= 3: expected sources without the destination of a unicast flow (source = "
                   "all leaves it out)");
    EXPECT_MESSAGE_OV(flow_text("[traffic.flow a]\nsize = 1\n"),
                      "-s argument 'traffic.destination=3': [traffic.flow a] source = 3 (from "
                      "[traffic]) includes destination = 3 (from [traffic]): expected sources "
                      "without the destination of a unicast flow (source = all leaves it out)",
                      "traffic.destination=3");
    EXPECT_MESSAGE("[traffic]\nsource = 99\n[traffic.flow a]\nsize = 1\n",
                   "t.ini:2: [traffic.flow a] source = 99 (from [traffic]) includes destination "
                   "= 99 (from [traffic]): expected sources without the destination of a unicast "
                   "flow (source = all leaves it out)");

    /* destination */
    EXPECT_MESSAGE(flow_text("[traffic.flow a]\ndestination = 100\n"),
                   "t.ini:14: [traffic.flow a] destination = 100: expected a node id in [0, 99], "
                   "-1 (the last node) or broadcast (the scenario has 100 nodes)");
    snprintf(want, sizeof want, "t.ini:14: [traffic.flow a] destination = -2: %s",
             expected_destination);
    EXPECT_MESSAGE(flow_text("[traffic.flow a]\ndestination = -2\n"), want);
    snprintf(want, sizeof want, "t.ini:14: [traffic.flow a] destination = all: not a number; %s",
             expected_destination);
    EXPECT_MESSAGE(flow_text("[traffic.flow a]\ndestination = all\n"), want);
    snprintf(want, sizeof want,
             "t.ini:14: [traffic.flow a] destination = 1.5: not an integer; %s",
             expected_destination);
    EXPECT_MESSAGE(flow_text("[traffic.flow a]\ndestination = 1.5\n"), want);

    /* packets */
    EXPECT_MESSAGE(flow_text("[traffic.flow a]\npackets = -1\n"),
                   "t.ini:14: [traffic.flow a] packets = -1: expected an integer in [0, "
                   "2000000000] (packets)");
    EXPECT_MESSAGE(flow_text("[traffic.flow a]\npackets = 0\n"),
                   "t.ini:14: [traffic.flow a] packets = 0 (no limit) with [simulation] "
                   "duration = 0: expected duration > 0 s when packets = 0");
    EXPECT_MESSAGE_OV(flow_text("[traffic.flow a]\npackets = 0\n"),
                      "-s argument 'simulation.duration=0': [traffic.flow a] packets = 0 (no "
                      "limit) with [simulation] duration = 0: expected duration > 0 s when "
                      "packets = 0",
                      "simulation.duration=0");

    /* interval */
    static const struct {
        const char *value, *why;
    } bad_intervals[] = {
        {"-1", ""},
        {"1000000.000000001", ""},
        {"1e99", ""},
        {"x", "not a number; "},
        {"", "empty value; "},
        {"uniform(2, 1)", "the lower bound is above the upper one; "},
        {"uniform(-1, 1)", "the lower bound is out of range; "},
        {"uniform(1, 2000000)", "the upper bound is out of range; "},
        {"uniform(y, 1)", "the lower bound is not a number; "},
        {"uniform(1, x)", "the upper bound is not a number; "},
        {"uniform(1)", "not uniform(a, b); "},
        {"uniform(1, )", "not uniform(a, b); "},
        {"uniform(1, 2) s", "not uniform(a, b); "},
        {"uniform(1, 2", "not uniform(a, b); "},
        {"uniform (1, 2)", "unknown law; "},
        {"exponential(0)", "the mean is not > 0; "},
        {"exponential(-1)", "the mean is not > 0; "},
        {"exponential(2000000)", "the mean is out of range; "},
        {"exponential(1, 2)", "not exponential(mean); "},
        {"exponential()", "not exponential(mean); "},
        {"exponential(z)", "the mean is not a number; "},
        {"normal(1, 2)", "unknown law; "},
    };
    for (size_t i = 0; i < sizeof bad_intervals / sizeof bad_intervals[0]; i++) {
        char more[128];
        snprintf(more, sizeof more, "[traffic.flow a]\ninterval = %s\n", bad_intervals[i].value);
        snprintf(want, sizeof want, "t.ini:14: [traffic.flow a] interval = %s: %s%s",
                 bad_intervals[i].value, bad_intervals[i].why, expected_interval);
        EXPECT_MESSAGE(flow_text(more), want);
    }
    snprintf(want, sizeof want,
             "t.ini:14: [traffic.flow a] interval = 0 with packets = 4 (from [traffic]): %s",
             not_always_zero);
    EXPECT_MESSAGE(flow_text("[traffic.flow a]\ninterval = 0\n"), want);
    snprintf(want, sizeof want,
             "t.ini:15: [traffic.flow a] interval = uniform(0, 0) with packets = 0: %s",
             not_always_zero);
    EXPECT_MESSAGE_OV(flow_text("[traffic.flow a]\ninterval = uniform(0, 0)\npackets = 0\n"), want,
                      "simulation.duration=5");
    snprintf(want, sizeof want,
             "-s argument 'traffic.interval=0': [traffic.flow a] interval = 0 (from [traffic]) "
             "with packets = 4 (from [traffic]): %s",
             not_always_zero);
    EXPECT_MESSAGE_OV(flow_text("[traffic.flow a]\nsize = 1\n"), want, "traffic.interval=0");
    EXPECT_MESSAGE_OV(flow_text("[traffic.flow a]\nsize = 1\n"),
                      "-s argument 'traffic.interval=2000000': [traffic.flow a] interval = "
                      "2000000 s (from [traffic]): expected at most 1000000 s (the largest "
                      "interval of a flow)",
                      "traffic.interval=2000000");

    /* interval_draw, start, size */
    EXPECT_MESSAGE(flow_text("[traffic.flow a]\ninterval_draw = sometimes\n"),
                   "t.ini:14: [traffic.flow a] interval_draw = sometimes: expected one of: "
                   "packet, node");
    static const struct {
        const char *value, *why;
    } bad_starts[] = {
        {"exponential(1)", "exponential is not a law of start; "},
        {"1000000000.000000001", ""},
        {"-0.5", ""},
        {"uniform(5, 1)", "the lower bound is above the upper one; "},
        {"uniform(0, 1000000001)", "the upper bound is out of range; "},
        {"gauss(1)", "unknown law (only uniform); "},
    };
    for (size_t i = 0; i < sizeof bad_starts / sizeof bad_starts[0]; i++) {
        char more[128];
        snprintf(more, sizeof more, "[traffic.flow a]\nstart = %s\n", bad_starts[i].value);
        snprintf(want, sizeof want, "t.ini:14: [traffic.flow a] start = %s: %s%s",
                 bad_starts[i].value, bad_starts[i].why, expected_start);
        EXPECT_MESSAGE(flow_text(more), want);
    }
    EXPECT_MESSAGE_OV(flow_text("[traffic.flow a]\nsize = 1\n"),
                      "-s argument 'traffic.start=1000000000.5': [traffic.flow a] start = "
                      "1000000000.5 s (from [traffic]): expected at most 1000000000 s (the latest "
                      "start of a flow)",
                      "traffic.start=1000000000.5");
    EXPECT_MESSAGE(flow_text("[traffic.flow a]\nsize = 0\n"),
                   "t.ini:14: [traffic.flow a] size = 0: expected an integer in [1, 2147483647] "
                   "(bytes)");
    EXPECT_MESSAGE_OV(flow_base,
                      "-s argument 'traffic.flow z.size=x': [traffic.flow z] size = x: not a "
                      "number; expected an integer in [1, 2147483647] (bytes)",
                      "traffic.flow z.size=x");
    /* the first error of the file is the one reported, before any rule between keys */
    EXPECT_MESSAGE(flow_text("[traffic.flow a]\nsource = 0-10\nsize = 0\n"),
                   "t.ini:15: [traffic.flow a] size = 0: expected an integer in [1, 2147483647] "
                   "(bytes)");
}

static void test_flows(void)
{
    test_flows_values();
    test_flows_inheritance();
    test_flows_overrides();
    test_flows_errors();
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--print-reference") == 0) {
        print_reference(stdout);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--check-docs") == 0)
        return check_docs();
    if (argc > 1 && strcmp(argv[1], "--scenarios") == 0) {
        if (test_scenario_files() != 0)
            return 1;
    } else if (argc > 1) {
        fprintf(stderr, "usage: %s [--scenarios | --check-docs | --print-reference]\n", argv[0]);
        return 2;
    } else {
        test_decimal();
        test_defaults();
        test_units();
        test_drop_threshold();
        test_derived();
        test_syntax();
        test_errors_names();
        test_errors_values();
        test_errors_cross();
        test_file_errors();
        test_overrides();
        test_round_trips();
        test_groups();
        test_flows();
        test_schemes();
        test_areas();
        test_resources();
        test_reference();
        test_phold();
    }
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
