/* oracle_selfcheck JSON_COMPARE [FLOOD_ORACLE]
 *
 * Checks the flood oracle on cases whose answers are worked out by hand (in the comments next
 * to each expected value), its pieces (Philox, isqrt, placement, neighbours, rwp) against
 * direct computations, its mobile flooding and its forwarding schemes against second,
 * packet-major formulations, and the json_compare executable (and, when given, the
 * flood_oracle executable on an INI file) end to end. Prints every failed check and exits 1
 * if there was any. */
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/philox.h"
#include "config/config.h"
#include "models/traffic/departures.h"
#include "oracle/flood_oracle.h"

#define L1 INT64_C(1000000000) /* one second in ns: the window length of most cases */
#define M100 INT64_C(100000)   /* 100 m in mm */

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
        int64_t got_ = (int64_t)(got), want_ = (int64_t)(want);                                \
        if (got_ != want_) {                                                                   \
            failures++;                                                                        \
            fprintf(stderr, "%s:%d: %s = %" PRId64 ", expected %" PRId64 "\n", __FILE__,       \
                    __LINE__, #got, got_, want_);                                              \
        }                                                                                      \
    } while (0)

/* ------------------------------------------------------------------ scenarios in code */

/* A static grid flood: spacing = range = 100 m (the 4-neighbour grid), L = 1 s, one packet
 * from node 0 to the last node, no drop, no ttl, no duration. */
static scenario grid_scenario(int64_t rows, int64_t cols)
{
    scenario sc;
    memset(&sc, 0, sizeof sc);
    strcpy(sc.model, "flood");
    sc.seed = 1;
    flood_values_edit(&sc)->placement = PLACEMENT_GRID;
    flood_values_edit(&sc)->rows = rows;
    flood_values_edit(&sc)->cols = cols;
    flood_values_edit(&sc)->spacing_mm = M100;
    flood_values_edit(&sc)->nodes = rows * cols;
    flood_values_edit(&sc)->width_mm = (cols - 1) * M100;
    flood_values_edit(&sc)->height_mm = (rows - 1) * M100;
    flood_values_edit(&sc)->connectivity = CONNECTIVITY_UDG;
    flood_values_edit(&sc)->range_mm = M100;
    flood_values_edit(&sc)->mob.model = MOBILITY_STATIC;
    flood_values_edit(&sc)->source = 0;
    flood_values_edit(&sc)->destination = rows * cols - 1;
    flood_values_edit(&sc)->packets = 1;
    flood_values_edit(&sc)->interval_ns = L1;
    flood_values_edit(&sc)->size_bytes = 1000;
    flood_values_edit(&sc)->relay_delay_ns = L1;
    return sc;
}

static scenario uniform_scenario(int64_t n, int64_t side_mm, int64_t depth_mm, int64_t range_mm)
{
    scenario sc = grid_scenario(1, 1);
    flood_values_edit(&sc)->placement = PLACEMENT_UNIFORM;
    flood_values_edit(&sc)->rows = flood_values_edit(&sc)->cols = 0;
    flood_values_edit(&sc)->nodes = n;
    flood_values_edit(&sc)->width_mm = flood_values_edit(&sc)->height_mm = side_mm;
    flood_values_edit(&sc)->depth_mm = depth_mm;
    flood_values_edit(&sc)->range_mm = range_mm;
    flood_values_edit(&sc)->destination = n - 1;
    return sc;
}

typedef struct expect {
    int64_t transmissions, receptions, first_receptions, delivered, hops_sum, latency_sum_ns,
        end_time_ns, windows;
} expect;

static void check_run(const char *name, const scenario *sc, expect e)
{
    flood_oracle_result r;
    int rc = flood_oracle_run(sc, &r);
    int before = failures;
    CHECK_EQ(rc, ORACLE_OK);
    CHECK_EQ(r.generated, flood_values_of(sc)->packets);
    CHECK_EQ(r.transmissions, e.transmissions);
    CHECK_EQ(r.receptions, e.receptions);
    CHECK_EQ(r.first_receptions, e.first_receptions);
    CHECK_EQ(r.delivered, e.delivered);
    CHECK_EQ(r.hops_sum, e.hops_sum);
    CHECK_EQ(r.latency_sum_ns, e.latency_sum_ns);
    CHECK_EQ(r.end_time_ns, e.end_time_ns);
    CHECK_EQ(r.windows, e.windows);
    if (failures != before)
        fprintf(stderr, "  (in case \"%s\")\n", name);
}

/* ------------------------------------------------------------------ Philox, isqrt */

static void test_philox(void)
{
    /* The known answers of docs/model.md ("Randomness"). */
    static const uint32_t kat[3][7] = {
        {0, 0, 0, 0, 0, 0, 0},
        {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0},
        {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u, 0},
    };
    static const uint32_t want[3][4] = {
        {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u},
        {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu},
        {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u},
    };
    for (int t = 0; t < 3; t++) {
        uint32_t out[4];
        oracle_philox4x32_10(kat[t], kat[t][4], kat[t][5], out);
        for (int w = 0; w < 4; w++)
            CHECK_EQ(out[w], want[t][w]);
    }
    /* The oracle's own Philox and the shared host one must agree everywhere, including the
     * key split of 64-bit seeds. */
    const uint64_t seeds[] = {0, 1, 42, UINT64_C(0x123456789abcdef0), UINT64_MAX};
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        for (uint32_t a = 0; a < 50; a++) {
            for (uint32_t st = 1; st <= 6; st++) {
                uint32_t b = a * 7919u + st, mine[4];
                oracle_philox(seeds[s], a, b, st, mine);
                philox4x32 host = philox_draw(seeds[s], a, b, st);
                for (int w = 0; w < 4; w++)
                    CHECK_EQ(mine[w], host.v[w]);
            }
        }
    }
    /* drop_threshold conventions the oracle relies on. */
    CHECK(philox_threshold(0.0) == 0);
    CHECK(philox_threshold(1.0) == (UINT64_C(1) << 32));
    CHECK(philox_threshold(0.5) == (UINT64_C(1) << 31));
}

static void check_isqrt(uint64_t x)
{
    uint64_t r = oracle_isqrt_u64(x);
    checks++;
    /* floor(sqrt(x)) is the r with r^2 <= x < (r + 1)^2; r <= 2^32 - 1 so r^2 fits. */
    bool ok = r <= UINT64_C(0xffffffff) && r * r <= x &&
              (r == UINT64_C(0xffffffff) || (r + 1) * (r + 1) > x);
    if (!ok) {
        failures++;
        fprintf(stderr, "isqrt(%" PRIu64 ") = %" PRIu64 " is wrong\n", x, r);
    }
}

static void test_isqrt(void)
{
    CHECK_EQ(oracle_isqrt_u64(0), 0);
    CHECK_EQ(oracle_isqrt_u64(1), 1);
    CHECK_EQ(oracle_isqrt_u64(2), 1);
    CHECK_EQ(oracle_isqrt_u64(3), 1);
    CHECK_EQ(oracle_isqrt_u64(4), 2);
    CHECK_EQ(oracle_isqrt_u64(24), 4);
    CHECK_EQ(oracle_isqrt_u64(25), 5);
    CHECK_EQ(oracle_isqrt_u64(26), 5);
    CHECK_EQ(oracle_isqrt_u64(UINT64_C(1) << 62), UINT64_C(1) << 31);
    CHECK_EQ(oracle_isqrt_u64((UINT64_C(1) << 62) - 1), (UINT64_C(1) << 31) - 1);
    CHECK_EQ(oracle_isqrt_u64((UINT64_C(1) << 62) + 1), UINT64_C(1) << 31);
    CHECK(oracle_isqrt_u64(UINT64_MAX) == UINT64_C(0xffffffff));
    CHECK(oracle_isqrt_u64(UINT64_C(0xfffffffe00000001)) == UINT64_C(0xffffffff)); /* (2^32-1)^2 */
    CHECK(oracle_isqrt_u64(UINT64_C(0xfffffffe00000000)) == UINT64_C(0xfffffffe));
    /* The largest squared distance of the model: three sides of 2^31 - 1 mm. */
    const uint64_t s = UINT64_C(2147483647);
    CHECK(oracle_isqrt_u64(3 * s * s) == UINT64_C(3719550785)); /* floor(sqrt(3) * (2^31-1)) */
    for (uint64_t x = 0; x < 100000; x++)
        check_isqrt(x);
    /* Around perfect squares, where a float sqrt goes wrong first. */
    const uint64_t roots[] = {3, 1000, 65535, 65536, 94906265, 94906266, 2147483647u,
                              2147483648u, 3037000499u, 3037000500u, 4294967294u};
    for (size_t k = 0; k < sizeof roots / sizeof roots[0]; k++) {
        uint64_t q = roots[k] * roots[k];
        CHECK(oracle_isqrt_u64(q) == roots[k]);
        CHECK(oracle_isqrt_u64(q - 1) == roots[k] - 1);
        CHECK(oracle_isqrt_u64(q + 1) == roots[k]);
        CHECK(oracle_isqrt_u64(q + 2 * roots[k]) == roots[k]);       /* (r+1)^2 - 1 */
        CHECK(oracle_isqrt_u64(q + 2 * roots[k] + 1) == roots[k] + 1); /* (r+1)^2 */
    }
    for (uint32_t k = 0; k < 20000; k++) {
        philox4x32 d = philox_draw(99, k, 0, 0);
        check_isqrt((uint64_t)d.v[0] << 32 | d.v[1]);
        check_isqrt(((uint64_t)d.v[2] << 32 | d.v[3]) >> (k % 64));
    }
}

/* ------------------------------------------------------------------ placement, neighbours */

static void test_neighbours(void)
{
    /* 3x3 grid, spacing = range: exactly the 4-neighbour grid, lists sorted. */
    scenario sc = grid_scenario(3, 3);
    int64_t pos[9][3];
    CHECK_EQ(oracle_place(&sc, pos), ORACLE_OK);
    CHECK_EQ(pos[5][0], 2 * M100); /* node 5 = row 1, col 2 */
    CHECK_EQ(pos[5][1], 1 * M100);
    CHECK_EQ(pos[5][2], 0);
    int64_t *off;
    int32_t *lst;
    CHECK_EQ(oracle_neighbours((const int64_t (*)[3])pos, 9, M100, &off, &lst), ORACLE_OK);
    static const int want[9][5] = {
        /* count, neighbours */
        {2, 1, 3}, {3, 0, 2, 4}, {2, 1, 5}, {3, 0, 4, 6}, {4, 1, 3, 5, 7},
        {3, 2, 4, 8}, {2, 3, 7}, {3, 4, 6, 8}, {2, 5, 7},
    };
    for (int i = 0; i < 9; i++) {
        CHECK_EQ(off[i + 1] - off[i], want[i][0]);
        for (int k = 0; k < want[i][0] && k < off[i + 1] - off[i]; k++)
            CHECK_EQ(lst[off[i] + k], want[i][1 + k]);
    }
    free(off);
    free(lst);

    /* The range is inclusive, in 3-D, on exact squared distances (3-4-5 and 1-2-2 triangles),
     * and coincident nodes are neighbours (distance 0). */
    const int64_t p2[5][3] = {{0, 0, 0}, {3000, 4000, 0}, {1000, 2000, 2000}, {0, 0, 0},
                              {-3000, 0, -4000}};
    CHECK_EQ(oracle_neighbours(p2, 5, 5000, &off, &lst), ORACLE_OK);
    CHECK_EQ(off[1] - off[0], 4); /* node 0: 1 (5000), 2 (3000), 3 (0), 4 (5000) */
    CHECK_EQ(off[2] - off[1], 3); /* node 1: 0, 2 (|(-2000,-2000,2000)| = 3464), 3 */
    CHECK_EQ(lst[off[1] + 0], 0);
    CHECK_EQ(lst[off[1] + 1], 2);
    CHECK_EQ(lst[off[1] + 2], 3);
    CHECK_EQ(off[5] - off[4], 2); /* node 4: 0 and 3; to 2: (4000,2000,6000) too far */
    free(off);
    free(lst);
    CHECK_EQ(oracle_neighbours(p2, 5, 4999, &off, &lst), ORACLE_OK);
    CHECK_EQ(off[1] - off[0], 2); /* node 0: 2 and 3 only */
    CHECK_EQ(off[5], 2 * 4);      /* edges 0-2, 0-3, 1-2, 2-3 */
    free(off);
    free(lst);
    CHECK_EQ(oracle_neighbours(p2, 0, 5000, &off, &lst), ORACLE_OK);
    CHECK_EQ(off[0], 0);
    free(off);
    free(lst);

    /* Uniform placement: coordinates are (w * side) >> 32 of the placement draw. */
    scenario su = uniform_scenario(20, 700000, 30000, 100000);
    su.seed = UINT64_C(0xfeedface12345678);
    int64_t pu[20][3];
    CHECK_EQ(oracle_place(&su, pu), ORACLE_OK);
    for (uint32_t i = 0; i < 20; i++) {
        philox4x32 d = philox_draw(su.seed, i, 0, STREAM_PLACEMENT);
        CHECK_EQ(pu[i][0], ((uint64_t)d.v[0] * 700000u) >> 32);
        CHECK_EQ(pu[i][1], ((uint64_t)d.v[1] * 700000u) >> 32);
        CHECK_EQ(pu[i][2], ((uint64_t)d.v[2] * 30000u) >> 32);
    }
    /* Brute-force lists against a direct pair test, and symmetric. */
    su = uniform_scenario(300, 1000000, 0, 120000);
    int64_t (*pp)[3] = malloc(300 * sizeof *pp);
    CHECK(pp != NULL);
    if (!pp)
        return;
    oracle_place(&su, pp);
    CHECK_EQ(oracle_neighbours((const int64_t (*)[3])pp, 300, 120000, &off, &lst), ORACLE_OK);
    for (int i = 0; i < 300; i++) {
        int64_t k = off[i];
        for (int j = 0; j < 300; j++) {
            int64_t dx = pp[i][0] - pp[j][0], dy = pp[i][1] - pp[j][1];
            if (i != j && dx * dx + dy * dy <= INT64_C(120000) * 120000) {
                CHECK(k < off[i + 1] && lst[k] == j);
                k++;
            }
        }
        CHECK_EQ(k, off[i + 1]);
    }
    free(off);
    free(lst);
    free(pp);
}

/* The neighbour cap by hand (docs/models.md, max_neighbors). */
static void test_cap_by_hand(void)
{
    /* Four nodes on the x axis at 0, 10, 30, 31 mm, all within range: six links.
     * K = 1: each keeps its nearest, 0-1 and 2-3 are mutual, the other four are cut.
     * K = 2: 0 keeps {1, 2}, 1 keeps {0, 2}, 2 keeps {3, 1}, 3 keeps {2, 1}: 0-1, 1-2 and 2-3
     * stay; 0-2 (2 does not keep 0), 1-3 (1 does not keep 3) and 0-3 go.
     * K = 3: nothing is cut. */
    const int64_t line[4][3] = {{0, 0, 0}, {10, 0, 0}, {30, 0, 0}, {31, 0, 0}};
    static const struct {
        int64_t k, links, cut;
        int deg[4];
        int32_t first[4]; /* each node's first kept neighbour */
    } want[] = {
        {1, 2, 4, {1, 1, 1, 1}, {1, 0, 3, 2}},
        {2, 3, 3, {1, 2, 2, 1}, {1, 0, 1, 2}},
        {3, 6, 0, {3, 3, 3, 3}, {1, 0, 0, 0}},
    };
    for (size_t c = 0; c < sizeof want / sizeof want[0]; c++) {
        int64_t *off, links = -1, cut = -1;
        int32_t *lst;
        CHECK_EQ(oracle_neighbours(line, 4, 100, &off, &lst), ORACLE_OK);
        CHECK_EQ(oracle_cap_filter(line, 4, want[c].k, off, lst, &links, &cut), ORACLE_OK);
        CHECK_EQ(links, want[c].links);
        CHECK_EQ(cut, want[c].cut);
        for (int i = 0; i < 4; i++) {
            CHECK_EQ(off[i + 1] - off[i], want[c].deg[i]);
            CHECK_EQ(lst[off[i]], want[c].first[i]);
        }
        free(off);
        free(lst);
    }
    /* Ties of distance go to the lower id: 0 at 50 has 1 (at 40) and 2 (at 60) 10 mm away and
     * keeps 1 with K = 1; 2 keeps 0, which does not keep it: only 0-1 stays. */
    const int64_t tie[3][3] = {{50, 0, 0}, {40, 0, 0}, {60, 0, 0}};
    int64_t *off, links = -1, cut = -1;
    int32_t *lst;
    CHECK_EQ(oracle_neighbours(tie, 3, 100, &off, &lst), ORACLE_OK);
    CHECK_EQ(oracle_cap_filter(tie, 3, 1, off, lst, &links, &cut), ORACLE_OK);
    CHECK_EQ(links, 1);
    CHECK_EQ(cut, 2);
    CHECK_EQ(off[1] - off[0], 1);
    CHECK_EQ(lst[off[0]], 1);
    CHECK_EQ(off[3] - off[2], 0);
    free(off);
    free(lst);
}

/* ------------------------------------------------------------------ flooding by hand */

static void test_flood_by_hand(void)
{
    /* 1x5 line 0-1-2-3-4, source 0, destination 4. Node 0 sends at 0 (hop 1): node 1 hears it
     * (first). Node 1 sends at L (hop 2): 0 (dup) and 2 (first). 2 at 2L (hop 3): 1 dup, 3
     * first. 3 at 3L (hop 4): 2 dup, 4 first -> delivered with hops 4, latency 3L. 4 relays at
     * 4L (hop 5): 3 dup. Transmissions 5; receptions 1+2+2+2+1 = 8; first receptions 4 (the
     * source never has one); end 4L -> 5 windows. */
    scenario line = grid_scenario(1, 5);
    check_run("line", &line, (expect){5, 8, 4, 1, 4, 3 * L1, 4 * L1, 5});

    /* ttl 2: node 1 (hop 1 < 2) relays at L with hop 2; node 2 hears hop 2 >= 2 and stops.
     * Transmissions 0, 1; receptions 1 + 2; first receptions 1, 2; end L. */
    scenario s = line;
    flood_values_edit(&s)->ttl = 2;
    check_run("line ttl 2", &s, (expect){2, 3, 2, 0, 0, 0, L1, 2});
    /* ttl 1: nobody relays. ttl 4: node 4 hears hop 4 (delivered) but does not relay. */
    flood_values_edit(&s)->ttl = 1;
    check_run("line ttl 1", &s, (expect){1, 1, 1, 0, 0, 0, 0, 1});
    flood_values_edit(&s)->ttl = 4;
    check_run("line ttl 4", &s, (expect){4, 7, 4, 1, 4, 3 * L1, 3 * L1, 4});

    /* drop 1 (threshold 2^32): only the source transmits, node 1 hears it. */
    s = line;
    flood_values_edit(&s)->drop = (prob_law){LAW_CONSTANT, 1.0, 1.0};
    flood_values_edit(&s)->drop_threshold = UINT64_C(1) << 32;
    check_run("line drop 1", &s, (expect){1, 1, 1, 0, 0, 0, 0, 1});

    /* Source in the middle (2), destination 4: 2 at 0 -> 1, 3 first (hop 1); 1 and 3 at L
     * (hop 2) -> 0 and 4 first, 2 twice dup; 0 and 4 at 2L -> 1 and 3 dup. Delivered at hop 2,
     * latency L. Transmissions 5, receptions 2 + 4 + 2 = 8. */
    s = line;
    flood_values_edit(&s)->source = 2;
    check_run("line source 2", &s, (expect){5, 8, 4, 1, 2, L1, 2 * L1, 3});

    /* 3x3 grid from corner 0 to corner 8 (BFS distance 4). Every node transmits once (9);
     * receptions = sum of degrees = 4*2 + 4*3 + 4 = 24; 8 first receptions, although the
     * centre is reached at L by 1 and 3 at the same time (one first reception) and 8 at 3L by 5
     * and 7. Delivered at hop 4, latency 3L; the last transmission (node 8) at 4L. */
    scenario g = grid_scenario(3, 3);
    check_run("3x3", &g, (expect){9, 24, 8, 1, 4, 3 * L1, 4 * L1, 5});

    /* Duration 2.5L on the line: transmissions at 0, L, 2L run, the one at 3L does not (nor its
     * receptions: node 4 never hears it). Receptions 1+2+2, first 1, 2, 3. */
    s = line;
    s.duration_ns = 5 * L1 / 2;
    check_run("line duration 2.5L", &s, (expect){3, 5, 3, 0, 0, 0, 2 * L1, 3});
    /* Duration exactly 2L: events at times >= duration do not run, so 2L is cut. */
    s.duration_ns = 2 * L1;
    check_run("line duration 2L", &s, (expect){2, 3, 2, 0, 0, 0, L1, 2});
    /* Duration 4L + 1: everything but nothing lost (the last transmission is at 4L). */
    s.duration_ns = 4 * L1 + 1;
    check_run("line duration 4L+1", &s, (expect){5, 8, 4, 1, 4, 3 * L1, 4 * L1, 5});

    /* Two packets 0.5L apart on the line: packet 1 repeats packet 0 shifted by 0.5L, its
     * transmissions falling in the same windows 0..4 (at 0.5L .. 4.5L). Counters double; end
     * 4.5L -> floor(4.5) + 1 = 5 windows. */
    s = line;
    flood_values_edit(&s)->packets = 2;
    flood_values_edit(&s)->interval_ns = L1 / 2;
    check_run("line 2 packets 0.5L", &s, (expect){10, 16, 8, 2, 8, 6 * L1, 9 * L1 / 2, 5});

    /* Start 0.7L, interval 0.5L: packets at 0.7L and 1.2L; last transmission 1.2L + 4L. */
    flood_values_edit(&s)->start_ns = 7 * L1 / 10;
    check_run("line start 0.7L", &s,
              (expect){10, 16, 8, 2, 8, 6 * L1, 52 * L1 / 10, 6});

    /* Three packets 2L apart, duration 3L: packet 0 runs at 0, L, 2L (receptions 1+2+2, first
     * 1, 2, 3); packet 1 is created at 2L and sent once (node 1 first); packet 2 (4L) never
     * starts. */
    s = line;
    flood_values_edit(&s)->packets = 3;
    flood_values_edit(&s)->interval_ns = 2 * L1;
    s.duration_ns = 3 * L1;
    check_run("line 3 packets duration 3L", &s, (expect){4, 6, 4, 0, 0, 0, 2 * L1, 3});

    /* A long idle gap (10L) between packets: windows in between hold no event. */
    s = line;
    flood_values_edit(&s)->packets = 2;
    flood_values_edit(&s)->interval_ns = 10 * L1;
    check_run("line gap 10L", &s, (expect){10, 16, 8, 2, 8, 6 * L1, 14 * L1, 15});

    /* No packet: nothing happens, no window. */
    s = line;
    flood_values_edit(&s)->packets = 0;
    check_run("no packet", &s, (expect){0, 0, 0, 0, 0, 0, 0, 0});

    /* Destination -1 (not resolved by config) means the last node. */
    s = line;
    flood_values_edit(&s)->destination = -1;
    check_run("destination -1", &s, (expect){5, 8, 4, 1, 4, 3 * L1, 4 * L1, 5});

    /* Invalid scenarios are refused, not guessed. */
    s = line;
    flood_values_edit(&s)->relay_delay_ns = 0;
    flood_oracle_result r;
    CHECK_EQ(flood_oracle_run(&s, &r), ORACLE_ERR_INPUT);
    s = line;
    flood_values_edit(&s)->source = 5;
    CHECK_EQ(flood_oracle_run(&s, &r), ORACLE_ERR_INPUT);
}

/* ------------------------------------------------------------------ activity areas by hand */

/* COUNT areas of ROWS x COLS, spacing = range = 100 m, border_links B (threshold thr(B)), one
 * packet from node 0 to the last node, no drop. */
static scenario areas_scenario(int64_t count, int64_t rows, int64_t cols, double b)
{
    scenario sc = grid_scenario(rows, cols);
    flood_values_edit(&sc)->placement = PLACEMENT_AREAS;
    flood_values_edit(&sc)->areas = count;
    flood_values_edit(&sc)->nodes = count * rows * cols;
    flood_values_edit(&sc)->destination = flood_values_edit(&sc)->nodes - 1;
    flood_values_edit(&sc)->border_links = b;
    flood_values_edit(&sc)->border_threshold = philox_threshold(b);
    return sc;
}

/* The whole graph of SC as the flood uses it: udg lists plus the links between areas. */
static void area_graph(const scenario *sc, int64_t (*pos)[3], int64_t **off, int32_t **lst)
{
    const int64_t n = oracle_node_count(sc);
    CHECK_EQ(oracle_place(sc, pos), ORACLE_OK);
    CHECK_EQ(oracle_neighbours((const int64_t (*)[3])pos, n, flood_values_of(sc)->range_mm, off, lst), ORACLE_OK);
    CHECK_EQ(oracle_area_links(sc, n, off, lst), ORACLE_OK);
}

static void test_areas_by_hand(void)
{
    /* Seed 1, stream 14: w0 of ctr {0, 0, 14, 0} = 0xa66e1a06 (0.65012 x 2^32) and of
     * ctr {0, 1, 14, 0} = 0x4b97053d (0.29527 x 2^32), the shared host Philox agreeing. */
    scenario sc = areas_scenario(2, 2, 2, 0.3);
    CHECK_EQ(philox_draw(1, 0, 0, STREAM_AREA_BORDER).v[0], UINT32_C(0xa66e1a06));
    CHECK_EQ(philox_draw(1, 0, 1, STREAM_AREA_BORDER).v[0], UINT32_C(0x4b97053d));
    CHECK_EQ(flood_values_of(&sc)->border_threshold, UINT32_C(0x4ccccccc)); /* floor(0.3 x 2^32) */
    CHECK(!oracle_area_border_link(&sc, 0, 0));
    CHECK(oracle_area_border_link(&sc, 0, 1));
    flood_values_edit(&sc)->border_threshold = UINT32_C(0x4b97053d); /* strict: a draw equal to thr is no link */
    CHECK(!oracle_area_border_link(&sc, 0, 1));
    flood_values_edit(&sc)->border_threshold = UINT32_C(0x4b97053e);
    CHECK(oracle_area_border_link(&sc, 0, 1));

    /* 2 areas of 2 x 2: area 0 holds 0 (0,0), 1 (0,1), 2 (1,0), 3 (1,1); area 1 holds 4..7
     * the same way, its x shifted by the pitch (2 - 1) x 100 m + 2 x 100 m = 300 m: node 4 at
     * (300, 0) m, node 7 at (400, 100) m, 200 m from node 3 at (100, 100): no udg link. Inside
     * each area the 4-neighbour square 0-1, 0-2, 1-3, 2-3 (4-5, 4-6, 5-7, 6-7); the chain link
     * 3-4 (last of area 0, first of area 1); the border pairs 1-4 (row 0, w0 0.650) and 3-6
     * (row 1, w0 0.295). */
    sc = areas_scenario(2, 2, 2, 0.3);
    CHECK_EQ(oracle_node_count(&sc), 8);
    int64_t pos[8][3];
    int64_t *off;
    int32_t *lst;
    area_graph(&sc, pos, &off, &lst);
    CHECK_EQ(pos[4][0], 3 * M100);
    CHECK_EQ(pos[4][1], 0);
    CHECK_EQ(pos[7][0], 4 * M100);
    CHECK_EQ(pos[7][1], M100);
    CHECK_EQ(pos[3][0], M100);
    /* b = 0.3: 3-6 only: 3 has {1, 2, 4, 6}, 4 {3, 5, 6}, 6 {3, 4, 7}, 1 {0, 3} */
    static const int want[8][5] = {
        {2, 1, 2}, {2, 0, 3}, {2, 0, 3}, {4, 1, 2, 4, 6},
        {3, 3, 5, 6}, {2, 4, 7}, {3, 3, 4, 7}, {2, 5, 6},
    };
    for (int i = 0; i < 8; i++) {
        CHECK_EQ(off[i + 1] - off[i], want[i][0]);
        for (int k = 0; k < want[i][0] && k < off[i + 1] - off[i]; k++)
            CHECK_EQ(lst[off[i] + k], want[i][1 + k]);
    }
    free(off);
    free(lst);

    /* The flood from 0 to 7 (L = 1 s) with b = 0.3: 0 at 0 -> 1, 2 (hop 1); 1, 2 at L -> 3
     * (hop 2, once first, once duplicate) and 0 twice; 3 at 2L -> 4, 6 (hop 3), 1, 2; 4 and
     * 6 at 3L -> 5 (from 4), 7 (from 6) at hop 4, each other and 3 twice; 5 and 7 at 4L.
     * Every node transmits once (8), receptions = the sum of degrees, 20; 7 first
     * receptions; delivered at hop 4 after 3L; the last transmission at 4L: 5 windows. */
    check_run("areas 2 x 2x2, b 0.3", &sc, (expect){8, 20, 7, 1, 4, 3 * L1, 4 * L1, 5});
    /* b = 0.65: thr = 0xa6666666 is still below row 0's draw 0xa66e1a06: the same graph */
    sc = areas_scenario(2, 2, 2, 0.65);
    check_run("areas 2 x 2x2, b 0.65", &sc, (expect){8, 20, 7, 1, 4, 3 * L1, 4 * L1, 5});
    /* b = 0: the chain alone. 0 -> 1, 2; L: 3 (hop 2); 2L: 4 (hop 3); 3L: 5, 6 (hop 4); 4L:
     * 7 (hop 5, delivered after 4L); 5L: 7 transmits. Degrees 2+2+2+3+3+2+2+2 = 18. */
    sc = areas_scenario(2, 2, 2, 0.0);
    check_run("areas 2 x 2x2, b 0", &sc, (expect){8, 18, 7, 1, 5, 4 * L1, 5 * L1, 6});
    /* b = 0.66 (above 0.65012) and b = 1: 1-4 too. L: 1 reaches 4 (hop 2) beside 3; 2L: 3
     * and 4 reach 6 and 5 (hop 3); 3L: 5 and 6 reach 7 (hop 4). Degrees 2+3+2+4+4+2+3+2 = 22. */
    sc = areas_scenario(2, 2, 2, 0.66);
    check_run("areas 2 x 2x2, b 0.66", &sc, (expect){8, 22, 7, 1, 4, 3 * L1, 4 * L1, 5});
    sc = areas_scenario(2, 2, 2, 1.0);
    check_run("areas 2 x 2x2, b 1", &sc, (expect){8, 22, 7, 1, 4, 3 * L1, 4 * L1, 5});
    /* b = 0.3 with ttl 3: 4 and 6 hear hop 3 and stop. Transmissions 0, 1, 2, 3; receptions
     * 2 + 4 + 4; first receptions 1, 2, 3, 4, 6; the last transmission (3) at 2L. */
    sc = areas_scenario(2, 2, 2, 0.3);
    flood_values_edit(&sc)->ttl = 3;
    check_run("areas 2 x 2x2, b 0.3, ttl 3", &sc, (expect){4, 10, 5, 0, 0, 0, 2 * L1, 3});

    /* 2 areas of 1 x 3: 0-1-2 and 3-4-5, the second from x = 400 m. The chain link 2-3 is also
     * row 0's border pair, (0, 0, 2) - (1, 0, 0): with b = 1 it is still one link, so the
     * graph is the line 0..5: 6 transmissions, 10 receptions, 5 first receptions, delivered
     * at hop 5 after 4L, the last transmission at 5L. */
    sc = areas_scenario(2, 1, 3, 1.0);
    area_graph(&sc, (int64_t (*)[3])pos, &off, &lst);
    CHECK_EQ(pos[3][0], 4 * M100);
    CHECK_EQ(off[3] - off[2], 2); /* node 2: {1, 3} */
    CHECK_EQ(lst[off[2] + 1], 3);
    CHECK_EQ(off[6], 10);
    free(off);
    free(lst);
    check_run("areas 2 x 1x3, b 1", &sc, (expect){6, 10, 5, 1, 5, 4 * L1, 5 * L1, 6});
    flood_values_edit(&sc)->border_links = 0;
    flood_values_edit(&sc)->border_threshold = 0;
    check_run("areas 2 x 1x3, b 0", &sc, (expect){6, 10, 5, 1, 5, 4 * L1, 5 * L1, 6});

    /* What the model does not define is refused: areas that move, qudg, a cap. */
    flood_oracle_result r;
    sc = areas_scenario(2, 2, 2, 0.3);
    flood_values_edit(&sc)->mob.model = MOBILITY_RWP;
    flood_values_edit(&sc)->mob.speed_max_mm_s = 1000;
    CHECK_EQ(flood_oracle_run(&sc, &r), ORACLE_ERR_INPUT);
    sc = areas_scenario(2, 2, 2, 0.3);
    flood_values_edit(&sc)->connectivity = CONNECTIVITY_QUDG;
    CHECK_EQ(flood_oracle_run(&sc, &r), ORACLE_ERR_INPUT);
    sc = areas_scenario(2, 2, 2, 0.3);
    flood_values_edit(&sc)->max_neighbors = 2;
    CHECK_EQ(flood_oracle_run(&sc, &r), ORACLE_ERR_INPUT);
}

/* Expected counters of a 1x5 line (source 0, destination 4) under relay drops, walked along
 * the chain with the shared host Philox: node j (1..4) first hears packet k at hop j (time
 * t_k + (j-1)L); it relays (hop j+1, at t_k + jL, heard by its deg(j) neighbours) unless w0 of
 * ctr {j, k, 1, 0} is below the threshold; if it does not relay, the packet stops there.
 * *DROPS counts the packets that stopped before the end. */
static expect line_drops(const scenario *s, int *drops)
{
    expect e = {0, 0, 0, 0, 0, 0, 0, 0};
    *drops = 0;
    for (int64_t k = 0; k < flood_values_of(s)->packets; k++) {
        const int64_t t_k = flood_values_of(s)->start_ns + k * flood_values_of(s)->interval_ns;
        e.transmissions++; /* the source */
        e.receptions += 1;
        int64_t last_t = t_k;
        for (uint32_t j = 1; j <= 4; j++) {
            e.first_receptions++;
            if (j == 4) {
                e.delivered++;
                e.hops_sum += 4;
                e.latency_sum_ns += 3 * L1;
            }
            philox4x32 d = philox_draw(s->seed, j, (uint32_t)k, STREAM_RELAY);
            uint64_t thr = flood_values_of(s)->drop_threshold; /* a law drawn per node: ctr {j, 0, 11, 0} */
            if (flood_values_of(s)->drop.law == LAW_UNIFORM)
                thr += ((uint64_t)philox_draw(s->seed, j, 0, 11).v[0] *
                        (flood_values_of(s)->drop_threshold_max - flood_values_of(s)->drop_threshold)) >> 32;
            if (d.v[0] < thr) {
                (*drops)++;
                break;
            }
            e.transmissions++;
            e.receptions += j == 4 ? 1 : 2;
            last_t = t_k + (int64_t)j * L1;
        }
        if (last_t > e.end_time_ns)
            e.end_time_ns = last_t;
    }
    e.windows = e.end_time_ns / L1 + 1;
    return e;
}

static void test_flood_random_drop(void)
{
    scenario s = grid_scenario(1, 5);
    s.seed = 3;
    flood_values_edit(&s)->packets = 40;
    flood_values_edit(&s)->interval_ns = L1 / 3;
    flood_values_edit(&s)->drop = (prob_law){LAW_CONSTANT, 0.25, 0.25};
    flood_values_edit(&s)->drop_threshold = UINT64_C(1) << 30;
    int drops;
    expect e = line_drops(&s, &drops);
    CHECK(drops > 3 && e.delivered > 3); /* the case does test something */
    check_run("line random drop", &s, e);

    /* The comparison is strict (w0 < threshold drops): with the threshold equal to node 1's
     * draw for packet 0, node 1 relays; one above, it drops. */
    flood_values_edit(&s)->packets = 1;
    flood_values_edit(&s)->drop_threshold = philox_draw(s.seed, 1, 0, STREAM_RELAY).v[0];
    e = line_drops(&s, &drops);
    CHECK(e.transmissions >= 2);
    check_run("line threshold = draw", &s, e);
    flood_values_edit(&s)->drop_threshold++;
    e = line_drops(&s, &drops);
    CHECK_EQ(e.transmissions, 1);
    check_run("line threshold = draw + 1", &s, e);

    /* A drop probability drawn per node, uniform in [0.05, 0.6): thresholds spread enough
     * that some relays drop and some pass. */
    flood_values_edit(&s)->packets = 60;
    flood_values_edit(&s)->drop = (prob_law){LAW_UNIFORM, 0.05, 0.6};
    flood_values_edit(&s)->drop_threshold = philox_threshold(0.05);
    flood_values_edit(&s)->drop_threshold_max = philox_threshold(0.6);
    e = line_drops(&s, &drops);
    CHECK(drops > 3 && e.delivered > 1);
    check_run("line drop uniform per node", &s, e);
}

/* ------------------------------------------------------------------ mobility by hand */

static int64_t uni(uint32_t w, int64_t n) { return (int64_t)(((uint64_t)w * (uint64_t)n) >> 32); }

static void test_mobility_by_hand(void)
{
    /* One node in a 1 km x 1 km square moving at 1 m/s = 1000 mm/s: with L = 1 s the budget is
     * 1000 mm per window. We look for a seed where the first waypoint is far (> 3 m) and the
     * x step is negative and inexact, so that C's truncation towards zero (not floor) is
     * what the expected value tests. */
    scenario s = uniform_scenario(1, 1000000, 0, 100000);
    flood_values_edit(&s)->mob.model = MOBILITY_RWP;
    flood_values_edit(&s)->mob.speed_min_mm_s = flood_values_edit(&s)->mob.speed_max_mm_s = 1000;
    int found = 0;
    for (uint64_t seed = 1; seed < 1000 && !found; seed++) {
        philox4x32 p = philox_draw(seed, 0, 0, STREAM_PLACEMENT);
        philox4x32 w = philox_draw(seed, 0, 0, STREAM_MOBILITY_LEG);
        int64_t x = uni(p.v[0], 1000000), y = uni(p.v[1], 1000000);
        int64_t wx = uni(w.v[0], 1000000), wy = uni(w.v[1], 1000000);
        int64_t dx = wx - x, dy = wy - y;
        uint64_t d = oracle_isqrt_u64((uint64_t)(dx * dx + dy * dy));
        if (d > 3000 && dx < 0 && (dx * 1000) % (int64_t)d != 0 && dy != 0) {
            found = 1;
            s.seed = seed;
        }
    }
    CHECK(found);

    philox4x32 p = philox_draw(s.seed, 0, 0, STREAM_PLACEMENT);
    philox4x32 wq = philox_draw(s.seed, 0, 0, STREAM_MOBILITY_LEG);
    int64_t x = uni(p.v[0], 1000000), y = uni(p.v[1], 1000000);
    const int64_t wx = uni(wq.v[0], 1000000), wy = uni(wq.v[1], 1000000);
    /* v = vmin + ((w3 * 1) >> 32) = 1000 mm/s; b = 1000 * 10^9 / 10^9 = 1000 mm. */
    oracle_mobility m;
    CHECK_EQ(oracle_mobility_init(&m, &s), ORACLE_OK);
    CHECK_EQ(m.pos[0][0], x);
    CHECK_EQ(m.pos[0][1], y);
    CHECK_EQ(m.pos[0][2], 0);
    for (int64_t w = 1; w <= 3; w++) {
        const int64_t dx = wx - x, dy = wy - y;
        const int64_t d = (int64_t)oracle_isqrt_u64((uint64_t)(dx * dx + dy * dy));
        x += dx * 1000 / d; /* truncating division, as the model says */
        y += dy * 1000 / d;
        oracle_mobility_advance(&s, &m, w);
        CHECK_EQ(m.window, w);
        CHECK_EQ(m.pos[0][0], x);
        CHECK_EQ(m.pos[0][1], y);
        CHECK_EQ(m.pos[0][2], 0);
        CHECK_EQ(m.leg[0], 0);
    }
    oracle_mobility_free(&m);

    /* Landing and pausing: at 10 km/s the budget (10^7 mm) exceeds every distance in the
     * square, so the node lands at each step it takes. Pause in [1000, 3000] ms from ctr
     * {0, m, 4, 0}; it next moves in the first window w with w * L >= pause end. In 3-D. */
    flood_values_edit(&s)->mob.speed_min_mm_s = flood_values_edit(&s)->mob.speed_max_mm_s = 10000000;
    flood_values_edit(&s)->mob.pause_min_ms = 1000;
    flood_values_edit(&s)->mob.pause_max_ms = 3000;
    flood_values_edit(&s)->depth_mm = 50000;
    CHECK_EQ(oracle_mobility_init(&m, &s), ORACLE_OK);
    int64_t t_move = L1; /* start of the next window in which the node moves */
    int64_t cur[3] = {m.pos[0][0], m.pos[0][1], m.pos[0][2]};
    CHECK_EQ(cur[2], uni(p.v[2], 50000));
    uint32_t leg = 0;
    int landings = 0;
    for (int64_t w = 1; w <= 40; w++) {
        if (w * L1 >= t_move) {
            philox4x32 wp = philox_draw(s.seed, 0, leg, STREAM_MOBILITY_LEG);
            philox4x32 pz = philox_draw(s.seed, 0, leg, STREAM_MOBILITY_PAUSE);
            cur[0] = uni(wp.v[0], 1000000);
            cur[1] = uni(wp.v[1], 1000000);
            cur[2] = uni(wp.v[2], 50000);
            t_move = w * L1 + (1000 + uni(pz.v[0], 2001)) * INT64_C(1000000);
            leg++;
            landings++;
        }
        oracle_mobility_advance(&s, &m, w);
        CHECK_EQ(m.pos[0][0], cur[0]);
        CHECK_EQ(m.pos[0][1], cur[1]);
        CHECK_EQ(m.pos[0][2], cur[2]);
        CHECK_EQ(m.leg[0], leg);
        CHECK_EQ(m.pause_end_ns[0], t_move);
    }
    /* Pauses of 1..3 s with whole-second windows: mostly a step every 2 or 3 windows. */
    CHECK(landings >= 10 && landings <= 30);
    oracle_mobility_free(&m);

    /* A pause of exactly 2 windows: landing in window 1 gives pause end 3L; the node stays
     * in window 2 and moves in window 3 (3L >= 3L). */
    flood_values_edit(&s)->mob.pause_min_ms = flood_values_edit(&s)->mob.pause_max_ms = 2000;
    CHECK_EQ(oracle_mobility_init(&m, &s), ORACLE_OK);
    oracle_mobility_advance(&s, &m, 1);
    CHECK_EQ(m.leg[0], 1);
    CHECK_EQ(m.pause_end_ns[0], 3 * L1);
    oracle_mobility_advance(&s, &m, 2);
    CHECK_EQ(m.leg[0], 1);
    oracle_mobility_advance(&s, &m, 3);
    CHECK_EQ(m.leg[0], 2);
    CHECK_EQ(m.pause_end_ns[0], 5 * L1);
    oracle_mobility_free(&m);

    /* Pause 0: land in window w, move again in w + 1 (pause end = w * L <= (w + 1) * L). */
    flood_values_edit(&s)->mob.pause_min_ms = flood_values_edit(&s)->mob.pause_max_ms = 0;
    CHECK_EQ(oracle_mobility_init(&m, &s), ORACLE_OK);
    oracle_mobility_advance(&s, &m, 5);
    CHECK_EQ(m.leg[0], 5);
    oracle_mobility_free(&m);

    /* d == b exactly lands (d <= b): speed = the initial distance in mm/s, L = 1 s. The node
     * ends on the waypoint on leg 1 (moving by delta * b / d would also reach the waypoint,
     * but stay on leg 0). */
    {
        scenario e = uniform_scenario(1, 1000000, 0, 100000);
        e.seed = 5;
        flood_values_edit(&e)->mob.model = MOBILITY_RWP;
        philox4x32 p0 = philox_draw(e.seed, 0, 0, STREAM_PLACEMENT);
        philox4x32 w0 = philox_draw(e.seed, 0, 0, STREAM_MOBILITY_LEG);
        int64_t dx = uni(w0.v[0], 1000000) - uni(p0.v[0], 1000000);
        int64_t dy = uni(w0.v[1], 1000000) - uni(p0.v[1], 1000000);
        int64_t d = (int64_t)oracle_isqrt_u64((uint64_t)(dx * dx + dy * dy));
        CHECK(d > 0);
        flood_values_edit(&e)->mob.speed_min_mm_s = flood_values_edit(&e)->mob.speed_max_mm_s = d;
        CHECK_EQ(oracle_mobility_init(&m, &e), ORACLE_OK);
        oracle_mobility_advance(&e, &m, 1);
        CHECK_EQ(m.leg[0], 1);
        CHECK_EQ(m.pos[0][0], uni(w0.v[0], 1000000));
        oracle_mobility_free(&m);
        /* One mm/s less: b = d - 1 < d, a partial move on leg 0. */
        flood_values_edit(&e)->mob.speed_min_mm_s = flood_values_edit(&e)->mob.speed_max_mm_s = d - 1;
        CHECK_EQ(oracle_mobility_init(&m, &e), ORACLE_OK);
        oracle_mobility_advance(&e, &m, 1);
        CHECK_EQ(m.leg[0], 0);
        CHECK_EQ(m.pos[0][0], uni(p0.v[0], 1000000) + dx * (d - 1) / d);
        oracle_mobility_free(&m);
    }

    /* Grid placement moves inside width x height of the scenario (the bounding box). */
    scenario g = grid_scenario(2, 3);
    flood_values_edit(&g)->mob.model = MOBILITY_RWP;
    flood_values_edit(&g)->mob.speed_min_mm_s = flood_values_edit(&g)->mob.speed_max_mm_s = 10000000;
    CHECK_EQ(oracle_mobility_init(&m, &g), ORACLE_OK);
    CHECK_EQ(m.pos[4][0], M100);
    CHECK_EQ(m.pos[4][1], M100);
    oracle_mobility_advance(&g, &m, 1);
    philox4x32 wp = philox_draw(g.seed, 4, 0, STREAM_MOBILITY_LEG);
    CHECK_EQ(m.pos[4][0], uni(wp.v[0], 2 * M100));
    CHECK_EQ(m.pos[4][1], uni(wp.v[1], M100));
    CHECK_EQ(m.pos[4][2], 0);
    oracle_mobility_free(&m);
}

/* ------------------------------------------------------------------ mobile flooding */

/* A second formulation of the flood model for cross-checking the oracle's window-major loop:
 * packet by packet, hop by hop, with the neighbour test done inline on per-window snapshots of
 * the positions (from oracle_mobility, checked by hand above). */
static void flood_packet_major(const scenario *sc, flood_oracle_result *r)
{
    memset(r, 0, sizeof *r);
    const int64_t n = oracle_node_count(sc), l = flood_values_of(sc)->relay_delay_ns;
    const int64_t last_t = flood_values_of(sc)->start_ns + (flood_values_of(sc)->packets - 1) * flood_values_of(sc)->interval_ns;
    /* A packet makes at most n hops (each needs a new node), so this many windows suffice. */
    const int64_t nw = last_t / l + n + 2;
    int64_t (*snap)[3] = malloc((size_t)(nw * n) * sizeof *snap);
    uint8_t *seen = malloc((size_t)n);
    uint8_t *front = malloc((size_t)n), *next = malloc((size_t)n);
    if (!snap || !seen || !front || !next) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    oracle_mobility m;
    oracle_mobility_init(&m, sc);
    for (int64_t w = 0; w < nw; w++) {
        oracle_mobility_advance(sc, &m, w);
        memcpy(snap + w * n, m.pos, (size_t)n * sizeof *snap);
    }
    oracle_mobility_free(&m);
    const uint64_t r2 = (uint64_t)flood_values_of(sc)->range_mm * (uint64_t)flood_values_of(sc)->range_mm;
    bool any = false;
    r->generated = flood_values_of(sc)->packets;
    for (int64_t k = 0; k < flood_values_of(sc)->packets; k++) {
        const int64_t t_k = flood_values_of(sc)->start_ns + k * flood_values_of(sc)->interval_ns;
        memset(seen, 0, (size_t)n);
        memset(front, 0, (size_t)n);
        seen[flood_values_of(sc)->source] = front[flood_values_of(sc)->source] = 1;
        for (int64_t h = 1, t = t_k;; h++, t += l) {
            if (sc->duration_ns > 0 && t >= sc->duration_ns)
                break;
            const int64_t (*pos)[3] = (const int64_t (*)[3])(snap + (t / l) * n);
            memset(next, 0, (size_t)n);
            int64_t nnext = 0;
            for (int64_t i = 0; i < n; i++) {
                if (!front[i])
                    continue;
                any = true;
                r->transmissions++;
                if (t > r->end_time_ns)
                    r->end_time_ns = t;
                for (int64_t j = 0; j < n; j++) {
                    int64_t dx = pos[i][0] - pos[j][0], dy = pos[i][1] - pos[j][1],
                            dz = pos[i][2] - pos[j][2];
                    if (j == i || (uint64_t)(dx * dx + dy * dy + dz * dz) > r2)
                        continue;
                    r->receptions++;
                    if (seen[j])
                        continue;
                    seen[j] = 1;
                    r->first_receptions++;
                    if (j == flood_values_of(sc)->destination) {
                        r->delivered++;
                        r->hops_sum += h;
                        r->latency_sum_ns += t - t_k;
                    }
                    philox4x32 d = philox_draw(sc->seed, (uint32_t)j, (uint32_t)k, STREAM_RELAY);
                    if (!(flood_values_of(sc)->ttl > 0 && h >= flood_values_of(sc)->ttl) && d.v[0] >= flood_values_of(sc)->drop_threshold) {
                        next[j] = 1;
                        nnext++;
                    }
                }
            }
            if (nnext == 0)
                break;
            memcpy(front, next, (size_t)n);
        }
    }
    if (any)
        r->windows = r->end_time_ns / l + 1;
    free(snap);
    free(seen);
    free(front);
    free(next);
}

static void compare_results(const char *name, const flood_oracle_result *a,
                            const flood_oracle_result *b)
{
    int before = failures;
    CHECK_EQ(a->transmissions, b->transmissions);
    CHECK_EQ(a->receptions, b->receptions);
    CHECK_EQ(a->first_receptions, b->first_receptions);
    CHECK_EQ(a->delivered, b->delivered);
    CHECK_EQ(a->hops_sum, b->hops_sum);
    CHECK_EQ(a->latency_sum_ns, b->latency_sum_ns);
    CHECK_EQ(a->end_time_ns, b->end_time_ns);
    CHECK_EQ(a->windows, b->windows);
    CHECK_EQ(a->generated, b->generated);
    if (failures != before)
        fprintf(stderr, "  (in case \"%s\")\n", name);
}

static void test_mobile_flood(void)
{
    /* rwp at speed 0 never moves (budget 0, and a node on its waypoint stays there): the
     * mobile path (neighbours rebuilt every window) must give the static result. */
    scenario st = uniform_scenario(400, 1000000, 0, 90000);
    st.seed = 11;
    flood_values_edit(&st)->packets = 6;
    flood_values_edit(&st)->interval_ns = 3 * L1 / 4;
    flood_values_edit(&st)->drop = (prob_law){LAW_CONSTANT, 0.1, 0.1};
    flood_values_edit(&st)->drop_threshold = 429496729;
    scenario mo = st;
    flood_values_edit(&mo)->mob.model = MOBILITY_RWP;
    flood_oracle_result a, b;
    CHECK_EQ(flood_oracle_run(&st, &a), ORACLE_OK);
    CHECK_EQ(flood_oracle_run(&mo, &b), ORACLE_OK);
    CHECK(a.first_receptions > 100); /* a connected enough case */
    compare_results("rwp speed 0 vs static", &a, &b);

    /* Genuinely mobile cases against the packet-major formulation: fast nodes (5..40 m/s with
     * a 100 m range and 1 s windows), pauses, 3-D, drops, ttl, packets off the window grid,
     * an idle gap longer than a window, and a duration cut. */
    scenario c = uniform_scenario(60, 600000, 100000, 150000);
    c.seed = 2024;
    flood_values_edit(&c)->mob.model = MOBILITY_RWP;
    flood_values_edit(&c)->mob.speed_min_mm_s = 5000;
    flood_values_edit(&c)->mob.speed_max_mm_s = 40000;
    flood_values_edit(&c)->mob.pause_min_ms = 0;
    flood_values_edit(&c)->mob.pause_max_ms = 2500;
    flood_values_edit(&c)->packets = 12;
    flood_values_edit(&c)->interval_ns = 1700 * INT64_C(1000000); /* 1.7 s */
    flood_values_edit(&c)->start_ns = 300 * INT64_C(1000000);
    flood_values_edit(&c)->relay_delay_ns = L1;
    flood_values_edit(&c)->drop_threshold = UINT64_C(1) << 29; /* 1/8 */
    flood_values_edit(&c)->source = 3;
    flood_values_edit(&c)->destination = 41;
    for (int variant = 0; variant < 5; variant++) {
        scenario v = c;
        if (variant == 1)
            flood_values_edit(&v)->ttl = 3;
        if (variant == 2)
            v.duration_ns = 9 * L1 + 1;
        if (variant == 3) {
            flood_values_edit(&v)->relay_delay_ns = 250 * INT64_C(1000000); /* short windows: smaller budgets */
            flood_values_edit(&v)->interval_ns = 2 * L1 + 70;
        }
        if (variant == 4) {
            v.seed = UINT64_C(0xabcdef0123456789);
            flood_values_edit(&v)->drop_threshold = 0;
            flood_values_edit(&v)->depth_mm = 0;
        }
        flood_oracle_result want, got;
        flood_packet_major(&v, &want);
        CHECK_EQ(flood_oracle_run(&v, &got), ORACLE_OK);
        char name[64];
        snprintf(name, sizeof name, "mobile variant %d", variant);
        compare_results(name, &got, &want);
        CHECK(want.transmissions > 20);
        /* Mobility matters here: the static version of the same case differs. */
        if (variant == 0) {
            scenario fixed = v;
            flood_values_edit(&fixed)->mob.model = MOBILITY_STATIC;
            flood_oracle_result f;
            CHECK_EQ(flood_oracle_run(&fixed, &f), ORACLE_OK);
            CHECK(f.receptions != got.receptions);
        }
    }
}

/* ------------------------------------------------------------------ traffic flows */

/* lg(x) (docs/models.md "Traffic") against floor(log2(x) * 2^16) in long double. The repeated
 * squaring truncates, so it may fall below the true value: we allow 2 units below, none above
 * (a scan of 9 million x found at most 1 below). Powers of two are exact: v stays 2^31. */
static void check_lg_near(uint64_t x)
{
    const long double t = floorl(log2l((long double)x) * 65536.0L);
    const long double g = (long double)oracle_lg_q16(x);
    checks++;
    if (!(g <= t && g >= t - 2)) {
        failures++;
        fprintf(stderr, "lg(%" PRIu64 ") = %u, floor(log2 x * 2^16) = %.0Lf\n", x,
                oracle_lg_q16(x), t);
    }
}

static void test_lg(void)
{
    /* e = highest bit, v = 2^31 for a power of two: v * v >> 31 = 2^31 < 2^32 at every step,
     * no fraction bit: lg(2^e) = e << 16. */
    for (uint64_t e = 0; e <= 32; e++)
        CHECK_EQ(oracle_lg_q16(UINT64_C(1) << e), e << 16);
    CHECK_EQ(oracle_lg_q16(1), 0);
    CHECK_EQ(oracle_lg_q16(2), 65536);
    CHECK_EQ(oracle_lg_q16(UINT64_C(1) << 31), 2031616);       /* 31 * 2^16 */
    CHECK_EQ(oracle_lg_q16(UINT64_C(1) << 32), 2097152);       /* 32 * 2^16 */
    /* 2^32 - 1: e = 31, v = 2^32 - 1; (2^32 - 2^j)^2 >> 31 = 2^33 - 2^(j+2) (+ a dropped
     * fraction) >= 2^32, halved to 2^32 - 2^(j+1): every bit is set, g = 31 * 2^16 + 0xffff =
     * 2097151 = floor(2^16 log2(2^32 - 1)) (log2 is 32 - 3.4e-10). */
    CHECK_EQ(oracle_lg_q16(UINT64_C(0xffffffff)), 2097151);
    /* 3: v = 1.5 (Q31); 1.5^2 = 2.25 -> bit 15, v = 1.125; ... floor(2^16 log2 3) =
     * floor(103872.10) = 103872; 5, 10, 10^9: floor of 152169.88, 217705.88, 1959352.92. */
    CHECK_EQ(oracle_lg_q16(3), 103872);
    CHECK_EQ(oracle_lg_q16(5), 152169);
    CHECK_EQ(oracle_lg_q16(10), 217705);
    CHECK_EQ(oracle_lg_q16(1000000000), 1959352);
    /* outside 1 .. 2^32 */
    CHECK_EQ(oracle_lg_q16(0), 0);
    CHECK_EQ(oracle_lg_q16((UINT64_C(1) << 32) + 1), 0);
    for (uint64_t x = 1; x <= 70000; x++)
        check_lg_near(x);
    for (uint64_t x = (UINT64_C(1) << 32) - 70000; x <= (UINT64_C(1) << 32); x++)
        check_lg_near(x);
    for (uint32_t k = 0; k < 100000; k++) { /* spread over the whole range */
        uint32_t w[4];
        oracle_philox(99, k, 0, 6, w);
        check_lg_near((uint64_t)w[0] + 1);
        check_lg_near(((uint64_t)w[1] >> (w[2] & 31)) + 1);
    }
}

/* The exponential interval against -mean ln(x / 2^32), x = w0 + 1. One unit of lg below the
 * truth is 2^-16 ln 2 mean too much, so the error is bounded relative to the MEAN (2^-15
 * mean + 1 ns for the final floor) everywhere, and relative to the value itself only where
 * the value is not tiny: for w0 < 2^31 (value >= mean ln 2) within 2^-15 relative + 1 ns. */
static void check_exponential(int64_t mean, uint32_t w0)
{
    const int64_t got = oracle_exponential_ns(mean, w0);
    const long double x = (long double)w0 + 1.0L;
    const long double want = (long double)mean * (32.0L * logl(2.0L) - logl(x));
    const long double err = fabsl((long double)got - want);
    const long double tol_mean = (long double)mean / 32768.0L + 1.0L;
    const long double tol_rel = want / 32768.0L + 1.0L;
    checks++;
    if (got < 0 || err > tol_mean || (w0 < (UINT32_C(1) << 31) && err > tol_rel)) {
        failures++;
        fprintf(stderr, "exponential(mean %" PRId64 ", w0 %u) = %" PRId64 ", -mean ln = %.3Lf\n",
                mean, w0, got, want);
    }
}

static void test_exponential(void)
{
    /* w0 = 2^32 - 1: x = 2^32, lg = 32 << 16, I = 0. */
    CHECK_EQ(oracle_exponential_ns(INT64_C(1000000000), UINT32_C(0xffffffff)), 0);
    /* w0 = 0: x = 1, lg = 0: I = (10^9 2^21 744261118) >> 46 = (10^9 744261118) >> 25 =
     * 22180709779 (32 ln 2 10^9 = 22180709777.9; round(ln 2 2^30) is 6e-10 high). */
    CHECK_EQ(oracle_exponential_ns(INT64_C(1000000000), 0), INT64_C(22180709779));
    /* w0 = 2^31 - 1: x = 2^31, lg = 31 << 16: I = (mean 2^16 744261118) >> 46 =
     * (mean 744261118) >> 30, for mean 2^30: 744261118 (ln 2 2^30). */
    CHECK_EQ(oracle_exponential_ns(INT64_C(1) << 30, UINT32_C(0x7fffffff)), 744261118);
    /* The 128-bit product: mean 2^62 at w0 = 2^31 - 1 gives 744261118 2^32 (fits); mean
     * 2^63 - 1 at w0 = 0 gives about 22 x 2^63: does not fit, -1. */
    CHECK_EQ(oracle_exponential_ns(INT64_C(1) << 62, UINT32_C(0x7fffffff)),
             INT64_C(744261118) << 32);
    CHECK_EQ(oracle_exponential_ns(INT64_MAX, 0), -1);
    const int64_t means[] = {1, 1000, INT64_C(1000000000), INT64_C(3700000000013),
                             INT64_C(1) << 40};
    for (size_t i = 0; i < sizeof means / sizeof means[0]; i++) {
        check_exponential(means[i], 0);
        check_exponential(means[i], 1);
        check_exponential(means[i], UINT32_C(0x7fffffff));
        check_exponential(means[i], UINT32_C(0xfffffffe));
        check_exponential(means[i], UINT32_C(0xffffffff));
        for (uint32_t k = 0; k < 20000; k++) {
            uint32_t w[4];
            oracle_philox(5, k, (uint32_t)i, 6, w);
            check_exponential(means[i], w[0]);
        }
    }
}

static time_law tconst(int64_t a) { return (time_law){TLAW_CONSTANT, a, a}; }
static time_law tuniform(int64_t a, int64_t b) { return (time_law){TLAW_UNIFORM, a, b}; }
static time_law texp(int64_t mean) { return (time_law){TLAW_EXPONENTIAL, mean, mean}; }

static traffic_flow make_flow(const char *name, int64_t dest, int64_t packets, time_law interval,
                              int draw, time_law start)
{
    traffic_flow f;
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "%s", name);
    f.destination = dest;
    f.packets = packets;
    f.interval = interval;
    f.interval_draw = draw;
    f.start = start;
    f.size_bytes = 1000;
    return f;
}

static void add_range(traffic_flow *f, int64_t first, int64_t last)
{
    f->first[f->n_ranges] = first;
    f->last[f->n_ranges] = last;
    f->n_ranges++;
}

/* w0 of ctr {s, item, stream, f} (streams 6 and 12: the flow in the fourth word). */
static uint32_t draw4(uint64_t seed, uint32_t s, uint32_t item, uint32_t stream, uint32_t f)
{
    const uint32_t ctr[4] = {s, item, stream, f};
    uint32_t w[4];
    oracle_philox4x32_10(ctr, (uint32_t)seed, (uint32_t)(seed >> 32), w);
    return w[0];
}

/* The departures of flow F recomputed here from docs/models.md for the laws the tests use
 * (bounds small enough for 64-bit products, so no 128-bit arithmetic is needed): appended to
 * D in (s, m) order. SOURCES lists the ids by hand. */
static void my_departures(const scenario *sc, int f, const int64_t *sources, int ns,
                          oracle_departure *d, int64_t *nd, int64_t cap)
{
    const traffic_flow *fl = &flood_values_of(sc)->flows[f];
    for (int q = 0; q < ns; q++) {
        const int64_t s = sources[q];
        int64_t t = fl->start.a_ns;
        if (fl->start.law == TLAW_UNIFORM)
            t += (int64_t)(((uint64_t)draw4(sc->seed, (uint32_t)s, 0, 12, (uint32_t)f) *
                            (uint64_t)(fl->start.b_ns - fl->start.a_ns + 1)) >> 32);
        CHECK_EQ(oracle_flow_start(sc, f, s), t);
        for (int64_t m = 0; fl->packets == 0 || m < fl->packets; m++) {
            if (sc->duration_ns > 0 && t >= sc->duration_ns)
                break;
            CHECK(*nd < cap);
            if (*nd >= cap)
                return;
            d[(*nd)++] = (oracle_departure){t, f, (int32_t)s, m};
            const uint32_t w0 = draw4(sc->seed, (uint32_t)s,
                                      fl->interval_draw == DRAW_NODE ? 0 : (uint32_t)m, 6,
                                      (uint32_t)f);
            int64_t in = fl->interval.a_ns;
            if (fl->interval.law == TLAW_UNIFORM)
                in += (int64_t)(((uint64_t)w0 * (uint64_t)(fl->interval.b_ns - fl->interval.a_ns + 1)) >> 32);
            if (fl->interval.law == TLAW_EXPONENTIAL) { /* mean < 2^31 here: < 2^82, split */
                const uint64_t neg = (UINT64_C(32) << 16) - oracle_lg_q16((uint64_t)w0 + 1);
                const uint64_t a = (uint64_t)fl->interval.a_ns * neg; /* < 2^52 */
                /* (a * 744261118) >> 46 with a = ah 2^26 + al: both partial products < 2^56 */
                const uint64_t ah = a >> 26, al = a & ((UINT64_C(1) << 26) - 1);
                in = (int64_t)(((ah * UINT64_C(744261118)) +
                                ((al * UINT64_C(744261118)) >> 26)) >> 20);
            }
            uint32_t got_w0;
            CHECK_EQ(oracle_flow_interval(sc, f, s, m, &got_w0), in);
            if (fl->interval.law != TLAW_CONSTANT)
                CHECK_EQ(got_w0, w0);
            t += in;
        }
    }
}

/* Insertion sort by (t, f, s, m): the packet ids, done the slow obvious way. */
static void my_sort(oracle_departure *d, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        oracle_departure x = d[i];
        int64_t j = i;
        while (j > 0) {
            const oracle_departure *y = &d[j - 1];
            bool after = y->t_ns != x.t_ns     ? y->t_ns > x.t_ns
                         : y->flow != x.flow   ? y->flow > x.flow
                         : y->source != x.source ? y->source > x.source
                                                 : y->m > x.m;
            if (!after)
                break;
            d[j] = d[j - 1];
            j--;
        }
        d[j] = x;
    }
}

/* Expected results of a static run, packet by packet (packets never interact when nothing
 * moves): a breadth-first flood from each packet's source over ADJ, the frontier of hop h at
 * t_k + (h - 1) L, cut at the duration, relays dropped by ctr {j, k, 1, 0}. */
static void static_flows(const scenario *sc, const uint8_t *adj, int64_t n,
                         const oracle_departure *d, int64_t nd, flood_oracle_result *r,
                         oracle_packet *pk)
{
    memset(r, 0, sizeof *r);
    uint8_t *seen = calloc((size_t)n, 1), *front = calloc((size_t)n, 1),
            *next = calloc((size_t)n, 1);
    bool any = false;
    for (int64_t k = 0; k < nd; k++) {
        const traffic_flow *fl = &flood_values_of(sc)->flows[d[k].flow];
        const int64_t dest = fl->destination == -1 ? n - 1 : fl->destination;
        memset(&pk[k], 0, sizeof pk[k]);
        pk[k].flow = d[k].flow;
        pk[k].source = d[k].source;
        pk[k].created_ns = d[k].t_ns;
        r->generated++;
        r->deliverable += dest == FLOW_BROADCAST ? n - 1 : 1;
        memset(seen, 0, (size_t)n);
        memset(front, 0, (size_t)n);
        seen[d[k].source] = front[d[k].source] = 1;
        for (int64_t h = 1, t = d[k].t_ns;; h++, t += flood_values_of(sc)->relay_delay_ns) {
            if (sc->duration_ns > 0 && t >= sc->duration_ns)
                break;
            memset(next, 0, (size_t)n);
            bool sent = false;
            for (int64_t i = 0; i < n; i++) {
                if (!front[i])
                    continue;
                sent = any = true;
                r->transmissions++;
                if (t > r->end_time_ns)
                    r->end_time_ns = t;
                for (int64_t j = 0; j < n; j++) {
                    if (!adj[i * n + j])
                        continue;
                    r->receptions++;
                    if (seen[j])
                        continue;
                    seen[j] = 1;
                    r->first_receptions++;
                    if (dest == FLOW_BROADCAST || j == dest) {
                        r->delivered++;
                        r->hops_sum += h;
                        r->latency_sum_ns += t - d[k].t_ns;
                        pk[k].delivered++;
                        pk[k].hops = h;
                        pk[k].latency_ns = t - d[k].t_ns;
                    }
                    uint32_t w[4];
                    oracle_philox(sc->seed, (uint32_t)j, (uint32_t)k, 1, w);
                    if (!(flood_values_of(sc)->ttl > 0 && h >= flood_values_of(sc)->ttl) && (uint64_t)w[0] >= flood_values_of(sc)->drop_threshold)
                        next[j] = 1;
                }
            }
            if (!sent)
                break;
            memcpy(front, next, (size_t)n);
        }
    }
    if (any)
        r->windows = r->end_time_ns / flood_values_of(sc)->relay_delay_ns + 1;
    free(seen);
    free(front);
    free(next);
}

/* Two flows on a 4x4 grid: "uni" from the ranges {9-10, 1-2} (given out of order: sources 1,
 * 2, 9, 10) to node 15, 3 packets each, intervals uniform(0.5 s, 1.5 s) per packet, starts
 * uniform(0, 2 s); "bc" a broadcast from all 16 nodes, exponential(2 s) intervals, no packet
 * limit (duration 7 s), start 0.5 s (16 departures tied at 0.5 s, ordered by source). */
static void test_flow_departures(void)
{
    scenario sc = grid_scenario(4, 4);
    sc.seed = 7;
    sc.duration_ns = 7 * L1;
    flood_values_edit(&sc)->drop = (prob_law){LAW_CONSTANT, 0.2, 0.2};
    flood_values_edit(&sc)->drop_threshold = 858993459; /* floor(0.2 2^32) */
    flood_values_edit(&sc)->n_flows = 2;
    flood_values_edit(&sc)->flows[0] = make_flow("uni", 15, 3, tuniform(L1 / 2, 3 * L1 / 2), DRAW_PACKET,
                            tuniform(0, 2 * L1));
    add_range(&flood_values_edit(&sc)->flows[0], 9, 10);
    add_range(&flood_values_edit(&sc)->flows[0], 1, 2);
    flood_values_edit(&sc)->flows[1] = make_flow("bc", FLOW_BROADCAST, 0, texp(2 * L1), DRAW_PACKET, tconst(L1 / 2));
    flood_values_edit(&sc)->flows[1].all_sources = 1;

    enum { CAP = 4096 };
    static oracle_departure want[CAP];
    int64_t nw = 0;
    const int64_t uni_src[] = {1, 2, 9, 10};
    int64_t all_src[16];
    for (int i = 0; i < 16; i++)
        all_src[i] = i;
    my_departures(&sc, 0, uni_src, 4, want, &nw, CAP);
    const int64_t n_uni = nw;
    my_departures(&sc, 1, all_src, 16, want, &nw, CAP);
    CHECK_EQ(n_uni, 12); /* 3 packets x 4 sources, all before 7 s (at most 2 + 2 x 1.5 s) */
    CHECK(nw - n_uni > 40); /* about 16 x (1 + 6.5 / 2) broadcast packets */
    my_sort(want, nw);
    /* the first broadcast departures: all 16 sources at 0.5 s, in id order, after any "uni"
     * departure before 0.5 s */
    int64_t first_bc = 0;
    while (first_bc < nw && want[first_bc].flow == 0)
        first_bc++;
    CHECK(first_bc < 5);
    for (int64_t q = 0; q < 16 && first_bc + q < nw; q++) {
        CHECK_EQ(want[first_bc + q].t_ns, L1 / 2);
        CHECK_EQ(want[first_bc + q].source, q);
        CHECK_EQ(want[first_bc + q].m, 0);
    }

    oracle_departure *got = NULL;
    int64_t ng = 0;
    CHECK_EQ(oracle_flow_departures(&sc, &got, &ng), ORACLE_OK);
    CHECK_EQ(ng, nw);
    for (int64_t k = 0; k < ng && k < nw; k++) {
        const int before = failures;
        CHECK_EQ(got[k].t_ns, want[k].t_ns);
        CHECK_EQ(got[k].flow, want[k].flow);
        CHECK_EQ(got[k].source, want[k].source);
        CHECK_EQ(got[k].m, want[k].m);
        if (failures != before) {
            fprintf(stderr, "  (departure %" PRId64 ")\n", k);
            break;
        }
    }
    free(got);

    /* The run against the packet-by-packet flood of the same departures. */
    uint8_t adj[16 * 16];
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
            const int dr = i / 4 - j / 4, dc = i % 4 - j % 4;
            adj[i * 16 + j] = (uint8_t)((dr == 0 && (dc == 1 || dc == -1)) ||
                                        (dc == 0 && (dr == 1 || dr == -1)));
        }
    static oracle_packet want_pk[CAP];
    flood_oracle_result e, r;
    static_flows(&sc, adj, 16, want, nw, &e, want_pk);
    oracle_packet *pk = NULL;
    int64_t npk = 0;
    CHECK_EQ(flood_oracle_run_packets(&sc, &r, &pk, &npk), ORACLE_OK);
    compare_results("two flows vs packet by packet", &r, &e);
    CHECK_EQ(r.deliverable, e.deliverable);
    CHECK_EQ(r.deliverable, n_uni + (nw - n_uni) * 15);
    CHECK_EQ(r.n_flows, 2);
    CHECK(strcmp(r.flows[0].name, "uni") == 0 && strcmp(r.flows[1].name, "bc") == 0);
    CHECK_EQ(r.flows[0].generated, n_uni);
    CHECK_EQ(r.flows[0].deliverable, n_uni);
    CHECK_EQ(r.flows[1].generated, nw - n_uni);
    CHECK_EQ(r.flows[1].deliverable, (nw - n_uni) * 15);
    CHECK_EQ(r.flows[0].delivered + r.flows[1].delivered, r.delivered);
    CHECK_EQ(r.flows[0].hops_sum + r.flows[1].hops_sum, r.hops_sum);
    CHECK_EQ(r.flows[0].latency_sum_ns + r.flows[1].latency_sum_ns, r.latency_sum_ns);
    CHECK(r.flows[0].delivered > 0 && r.flows[0].delivered < n_uni); /* drops do matter */
    CHECK(r.flows[1].delivered > 0 && r.flows[1].delivered < r.flows[1].deliverable);
    CHECK_EQ(npk, nw);
    int64_t sums[2][3] = {{0, 0, 0}, {0, 0, 0}};
    for (int64_t k = 0; k < npk && k < nw; k++) {
        const int before = failures;
        CHECK_EQ(pk[k].flow, want_pk[k].flow);
        CHECK_EQ(pk[k].source, want_pk[k].source);
        CHECK_EQ(pk[k].created_ns, want_pk[k].created_ns);
        CHECK_EQ(pk[k].delivered, want_pk[k].delivered);
        CHECK_EQ(pk[k].latency_ns, want_pk[k].latency_ns);
        CHECK_EQ(pk[k].hops, want_pk[k].hops);
        sums[pk[k].flow][0] += pk[k].delivered;
        if (failures != before) {
            fprintf(stderr, "  (packet %" PRId64 ")\n", k);
            break;
        }
    }
    CHECK_EQ(sums[0][0], r.flows[0].delivered);
    CHECK_EQ(sums[1][0], r.flows[1].delivered);
    free(pk);

    /* interval_draw = node: every interval of a source is its draw of m = 0. */
    scenario nd = sc;
    flood_values_edit(&nd)->flows[0].interval_draw = DRAW_NODE;
    flood_values_edit(&nd)->flows[1].interval_draw = DRAW_NODE;
    for (int64_t s = 0; s < 16; s++)
        for (int64_t m = 1; m < 5; m++) {
            CHECK_EQ(oracle_flow_interval(&nd, 1, s, m, NULL), oracle_flow_interval(&nd, 1, s, 0, NULL));
            CHECK_EQ(oracle_flow_interval(&nd, 0, s, m, NULL), oracle_flow_interval(&nd, 0, s, 0, NULL));
        }
    nw = 0;
    my_departures(&nd, 0, uni_src, 4, want, &nw, CAP);
    my_departures(&nd, 1, all_src, 16, want, &nw, CAP);
    my_sort(want, nw);
    CHECK_EQ(oracle_flow_departures(&nd, &got, &ng), ORACLE_OK);
    CHECK_EQ(ng, nw);
    for (int64_t k = 0; k < ng && k < nw; k++)
        if (got[k].t_ns != want[k].t_ns || got[k].flow != want[k].flow ||
            got[k].source != want[k].source || got[k].m != want[k].m) {
            CHECK(!"node draw departures differ");
            break;
        }
    free(got);
}

/* Ties by hand on a 1x4 line (0-1-2-3): "a" from the ranges {2, 0-1} to node 3, 2 packets 1 s
 * apart from 0; "b" a broadcast from all at 1 s, one packet (constant interval 0). Ids:
 * 0..2: t 0, a, sources 0, 1, 2; 3..5: t 1 s, a, sources 0, 1, 2, m 1; 6..9: t 1 s, b,
 * sources 0..3. */
static void test_flow_ties(void)
{
    scenario sc = grid_scenario(1, 4);
    flood_values_edit(&sc)->n_flows = 2;
    flood_values_edit(&sc)->flows[0] = make_flow("a", 3, 2, tconst(L1), DRAW_PACKET, tconst(0));
    add_range(&flood_values_edit(&sc)->flows[0], 2, 2);
    add_range(&flood_values_edit(&sc)->flows[0], 0, 1);
    flood_values_edit(&sc)->flows[1] = make_flow("b", FLOW_BROADCAST, 1, tconst(0), DRAW_PACKET, tconst(L1));
    flood_values_edit(&sc)->flows[1].all_sources = 1;
    static const oracle_departure want[10] = {
        {0, 0, 0, 0},  {0, 0, 1, 0},  {0, 0, 2, 0},  {L1, 0, 0, 1}, {L1, 0, 1, 1},
        {L1, 0, 2, 1}, {L1, 1, 0, 0}, {L1, 1, 1, 0}, {L1, 1, 2, 0}, {L1, 1, 3, 0},
    };
    oracle_departure *got = NULL;
    int64_t ng = 0;
    CHECK_EQ(oracle_flow_departures(&sc, &got, &ng), ORACLE_OK);
    CHECK_EQ(ng, 10);
    for (int64_t k = 0; k < ng && k < 10; k++) {
        CHECK_EQ(got[k].t_ns, want[k].t_ns);
        CHECK_EQ(got[k].flow, want[k].flow);
        CHECK_EQ(got[k].source, want[k].source);
        CHECK_EQ(got[k].m, want[k].m);
    }
    free(got);
    /* all under a unicast flow means every node but the destination */
    flood_values_edit(&sc)->flows[0].n_ranges = 0;
    flood_values_edit(&sc)->flows[0].all_sources = 1;
    flood_values_edit(&sc)->flows[0].packets = 1;
    CHECK_EQ(oracle_flow_departures(&sc, &got, &ng), ORACLE_OK);
    CHECK_EQ(ng, 3 + 4);
    for (int64_t k = 0; k < 3 && k < ng; k++)
        CHECK_EQ(got[k].source, k); /* 0, 1, 2: not 3 */
    free(got);

    /* Refused: a range holding the unicast destination; no packet limit without a duration;
     * an interval that is always 0 with more than one packet. */
    flood_oracle_result r;
    scenario bad = sc;
    flood_values_edit(&bad)->flows[0].all_sources = 0;
    flood_values_edit(&bad)->flows[0].n_ranges = 0;
    add_range(&flood_values_edit(&bad)->flows[0], 2, 3);
    CHECK_EQ(flood_oracle_run(&bad, &r), ORACLE_ERR_INPUT);
    bad = sc;
    flood_values_edit(&bad)->flows[0].packets = 0;
    CHECK_EQ(flood_oracle_run(&bad, &r), ORACLE_ERR_INPUT);
    bad = sc;
    flood_values_edit(&bad)->flows[1].packets = 2;
    CHECK_EQ(flood_oracle_run(&bad, &r), ORACLE_ERR_INPUT);
    /* Without a packet limit a drawn interval of 0 counts as 1 ns: uniform(0, 1 ns), kept
     * by each source (0 when w0 < 2^31, which some source draws) or drawn per packet, sends
     * one packet per ns from every source until the duration (40 ns: 4 x 40 packets). */
    bad = sc;
    bad.duration_ns = 40;
    flood_values_edit(&bad)->flows[1] = make_flow("z", FLOW_BROADCAST, 0, tuniform(0, 1), DRAW_NODE, tconst(0));
    flood_values_edit(&bad)->flows[1].all_sources = 1;
    flood_values_edit(&bad)->flows[0].packets = 1;
    bool zero = false;
    for (uint32_t s = 0; s < 4; s++)
        zero = zero || draw4(bad.seed, s, 0, 6, 1) < (UINT32_C(1) << 31);
    CHECK(zero);
    CHECK_EQ(oracle_flow_departures(&bad, &got, &ng), ORACLE_OK);
    int64_t in_z = 0;
    for (int64_t k = 0; k < ng; k++)
        in_z += got[k].flow == 1;
    CHECK_EQ(in_z, 4 * 40);
    free(got);
    flood_values_edit(&bad)->flows[1].interval_draw = DRAW_PACKET;
    CHECK_EQ(oracle_flow_departures(&bad, &got, &ng), ORACLE_OK);
    in_z = 0;
    for (int64_t k = 0; k < ng; k++)
        in_z += got[k].flow == 1;
    CHECK_EQ(in_z, 4 * 40);
    free(got);
}

static void check_packet(const oracle_packet *p, int32_t flow, int32_t source, int64_t created,
                         int64_t delivered, int64_t latency, int64_t hops)
{
    const int before = failures;
    CHECK_EQ(p->flow, flow);
    CHECK_EQ(p->source, source);
    CHECK_EQ(p->created_ns, created);
    CHECK_EQ(p->delivered, delivered);
    CHECK_EQ(p->latency_ns, latency);
    CHECK_EQ(p->hops, hops);
    if (failures != before)
        fprintf(stderr, "  (packet of source %d created at %" PRId64 ")\n", source, created);
}

/* Broadcast floods on the 1x3 line 0-1-2, by hand. */
static void test_broadcast_by_hand(void)
{
    scenario sc = grid_scenario(1, 3);
    flood_values_edit(&sc)->n_flows = 1;
    flood_values_edit(&sc)->flows[0] = make_flow("bc", FLOW_BROADCAST, 1, tconst(L1), DRAW_PACKET, tconst(0));
    add_range(&flood_values_edit(&sc)->flows[0], 0, 0);
    /* From 0 at 0: 0 sends (hop 1), 1 first -> delivery (hop 1, latency 0); 1 sends at L
     * (hop 2): 0 dup, 2 first -> delivery (hop 2, latency L); 2 sends at 2L: 1 dup.
     * Transmissions 3, receptions 1 + 2 + 1, first 2, delivered 2 of 2, hops 3, latency L,
     * end 2L, 3 windows. The packet's last delivery: hop 2, latency L. */
    flood_oracle_result r;
    oracle_packet *pk = NULL;
    int64_t npk = 0;
    CHECK_EQ(flood_oracle_run_packets(&sc, &r, &pk, &npk), ORACLE_OK);
    flood_oracle_result e;
    memset(&e, 0, sizeof e);
    e.transmissions = 3, e.receptions = 4, e.first_receptions = 2, e.delivered = 2;
    e.hops_sum = 3, e.latency_sum_ns = L1, e.end_time_ns = 2 * L1, e.windows = 3;
    e.generated = 1;
    compare_results("broadcast line from 0", &r, &e);
    CHECK_EQ(r.deliverable, 2);
    CHECK_EQ(r.flows[0].deliverable, 2);
    CHECK_EQ(r.flows[0].delivered, 2);
    CHECK_EQ(r.flows[0].hops_sum, 3);
    CHECK_EQ(r.flows[0].latency_sum_ns, L1);
    CHECK_EQ(npk, 1);
    if (npk == 1)
        check_packet(&pk[0], 0, 0, 0, 2, L1, 2);
    free(pk);

    /* From the middle, two packets at 0 and 0.5L: 1 sends (hop 1), 0 and 2 first (two
     * deliveries at hop 1, latency 0); they send at L (hop 2), 1 hears both (dup). Per packet
     * 3 transmissions, 2 + 2 receptions, 2 first receptions, 2 deliveries of hop 1. Totals
     * doubled; the last transmission at 1.5L: 2 windows. */
    flood_values_edit(&sc)->flows[0].n_ranges = 0;
    add_range(&flood_values_edit(&sc)->flows[0], 1, 1);
    flood_values_edit(&sc)->flows[0].packets = 2;
    flood_values_edit(&sc)->flows[0].interval = tconst(L1 / 2);
    CHECK_EQ(flood_oracle_run_packets(&sc, &r, &pk, &npk), ORACLE_OK);
    e.transmissions = 6, e.receptions = 8, e.first_receptions = 4, e.delivered = 4;
    e.hops_sum = 4, e.latency_sum_ns = 0, e.end_time_ns = 3 * L1 / 2, e.windows = 2;
    e.generated = 2;
    compare_results("broadcast line from 1", &r, &e);
    CHECK_EQ(r.deliverable, 4);
    CHECK_EQ(npk, 2);
    if (npk == 2) {
        check_packet(&pk[0], 0, 1, 0, 2, 0, 1);
        check_packet(&pk[1], 0, 1, L1 / 2, 2, 0, 1);
    }
    free(pk);

    /* From 0 with a duration of L: only the transmission at 0 runs: node 1's delivery; loss
     * would be 1 - 1/2. With drop 1 (nobody relays) and duration 0: the same. */
    flood_values_edit(&sc)->flows[0].n_ranges = 0;
    add_range(&flood_values_edit(&sc)->flows[0], 0, 0);
    flood_values_edit(&sc)->flows[0].packets = 1;
    sc.duration_ns = L1;
    CHECK_EQ(flood_oracle_run_packets(&sc, &r, &pk, &npk), ORACLE_OK);
    e.transmissions = 1, e.receptions = 1, e.first_receptions = 1, e.delivered = 1;
    e.hops_sum = 1, e.latency_sum_ns = 0, e.end_time_ns = 0, e.windows = 1, e.generated = 1;
    compare_results("broadcast line duration L", &r, &e);
    CHECK_EQ(r.deliverable, 2);
    if (npk == 1)
        check_packet(&pk[0], 0, 0, 0, 1, 0, 1);
    free(pk);
    sc.duration_ns = 0;
    flood_values_edit(&sc)->drop = (prob_law){LAW_CONSTANT, 1.0, 1.0};
    flood_values_edit(&sc)->drop_threshold = UINT64_C(1) << 32;
    CHECK_EQ(flood_oracle_run(&sc, &r), ORACLE_OK);
    compare_results("broadcast line drop 1", &r, &e);

    /* A single node: a broadcast has nothing to deliver (deliverable 0). */
    scenario one = grid_scenario(1, 1);
    flood_values_edit(&one)->n_flows = 1;
    flood_values_edit(&one)->flows[0] = make_flow("solo", FLOW_BROADCAST, 2, tconst(L1), DRAW_PACKET, tconst(0));
    flood_values_edit(&one)->flows[0].all_sources = 1;
    CHECK_EQ(flood_oracle_run(&one, &r), ORACLE_OK);
    CHECK_EQ(r.generated, 2);
    CHECK_EQ(r.deliverable, 0);
    CHECK_EQ(r.transmissions, 2);
    CHECK_EQ(r.receptions, 0);
}

/* A single flow equal to [traffic] (same source, destination, packets, constant interval and
 * start) gives exactly the legacy counters and packet records. */
static void check_same_as_legacy(const char *name, const scenario *legacy)
{
    scenario fl = *legacy;
    flood_values_edit(&fl)->n_flows = 1;
    flood_values_edit(&fl)->flows[0] = make_flow("f", flood_values_of(legacy)->destination, flood_values_of(legacy)->packets,
                            tconst(flood_values_of(legacy)->interval_ns), DRAW_PACKET, tconst(flood_values_of(legacy)->start_ns));
    add_range(&flood_values_edit(&fl)->flows[0], flood_values_of(legacy)->source, flood_values_of(legacy)->source);
    /* [traffic] itself must not matter any more */
    flood_values_edit(&fl)->source = 1;
    flood_values_edit(&fl)->packets = 99;
    flood_values_edit(&fl)->interval_ns = 17;
    flood_oracle_result a, b;
    oracle_packet *pa = NULL, *pb = NULL;
    int64_t na = 0, nb = 0;
    CHECK_EQ(flood_oracle_run_packets(legacy, &a, &pa, &na), ORACLE_OK);
    CHECK_EQ(flood_oracle_run_packets(&fl, &b, &pb, &nb), ORACLE_OK);
    const int before = failures;
    compare_results(name, &b, &a);
    CHECK_EQ(a.n_flows, 0);
    CHECK_EQ(b.n_flows, 1);
    CHECK_EQ(a.deliverable, flood_values_of(legacy)->packets);
    CHECK_EQ(b.deliverable, flood_values_of(legacy)->packets);
    CHECK(strcmp(a.flows[0].name, "traffic") == 0);
    CHECK_EQ(a.flows[0].delivered, a.delivered);
    CHECK_EQ(b.flows[0].delivered, b.delivered);
    CHECK_EQ(b.flows[0].hops_sum, a.hops_sum);
    CHECK_EQ(b.flows[0].latency_sum_ns, a.latency_sum_ns);
    CHECK_EQ(na, flood_values_of(legacy)->packets);
    CHECK_EQ(nb, na);
    for (int64_t k = 0; k < na && k < nb; k++)
        check_packet(&pb[k], 0, pa[k].source, pa[k].created_ns, pa[k].delivered,
                     pa[k].latency_ns, pa[k].hops);
    if (failures != before)
        fprintf(stderr, "  (in case \"%s\")\n", name);
    free(pa);
    free(pb);
}

static void test_flow_as_legacy(void)
{
    scenario g = grid_scenario(4, 5);
    g.seed = 31;
    flood_values_edit(&g)->packets = 7;
    flood_values_edit(&g)->interval_ns = 3 * L1 / 10;
    flood_values_edit(&g)->start_ns = L1 / 5;
    flood_values_edit(&g)->source = 6;
    flood_values_edit(&g)->destination = 18;
    flood_values_edit(&g)->drop = (prob_law){LAW_CONSTANT, 0.2, 0.2};
    flood_values_edit(&g)->drop_threshold = 858993459;
    check_same_as_legacy("grid as one flow", &g);
    flood_values_edit(&g)->ttl = 4;
    check_same_as_legacy("grid ttl 4 as one flow", &g);

    scenario c = uniform_scenario(60, 600000, 100000, 150000);
    c.seed = 2024;
    flood_values_edit(&c)->mob.model = MOBILITY_RWP;
    flood_values_edit(&c)->mob.speed_min_mm_s = 5000;
    flood_values_edit(&c)->mob.speed_max_mm_s = 40000;
    flood_values_edit(&c)->mob.pause_max_ms = 2500;
    flood_values_edit(&c)->packets = 12;
    flood_values_edit(&c)->interval_ns = 1700 * INT64_C(1000000);
    flood_values_edit(&c)->start_ns = 300 * INT64_C(1000000);
    flood_values_edit(&c)->drop_threshold = UINT64_C(1) << 29;
    flood_values_edit(&c)->source = 3;
    flood_values_edit(&c)->destination = 41;
    check_same_as_legacy("mobile as one flow", &c);
    flood_oracle_result r;
    CHECK_EQ(flood_oracle_run(&c, &r), ORACLE_OK);
    CHECK(r.transmissions > 20 && r.delivered > 0);

    /* With a duration that stops creation, legacy still counts P generated (docs/model.md); both
     * list only the packets created, and the rest agrees. */
    c.duration_ns = 9 * L1 + 1;
    scenario fl = c;
    flood_values_edit(&fl)->n_flows = 1;
    flood_values_edit(&fl)->flows[0] = make_flow("f", flood_values_edit(&c)->destination, flood_values_edit(&c)->packets, tconst(flood_values_edit(&c)->interval_ns), DRAW_PACKET,
                            tconst(flood_values_of(&c)->start_ns));
    add_range(&flood_values_edit(&fl)->flows[0], flood_values_of(&c)->source, flood_values_of(&c)->source);
    flood_oracle_result a, b;
    oracle_packet *pa = NULL, *pb = NULL;
    int64_t na = 0, nb = 0;
    CHECK_EQ(flood_oracle_run_packets(&c, &a, &pa, &na), ORACLE_OK);
    CHECK_EQ(flood_oracle_run_packets(&fl, &b, &pb, &nb), ORACLE_OK);
    CHECK_EQ(a.generated, 12);
    CHECK_EQ(na, 6);
    CHECK_EQ(b.generated, 6); /* 0.3 + 1.7 k < 9 s: k = 0 .. 5 */
    CHECK_EQ(nb, 6);
    b.generated = a.generated;
    compare_results("mobile duration as one flow", &b, &a);
    for (int64_t k = 0; k < na && k < nb; k++)
        check_packet(&pa[k], 0, 3, flood_values_of(&c)->start_ns + k * flood_values_of(&c)->interval_ns, pb[k].delivered,
                     pb[k].latency_ns, pb[k].hops);
    free(pa);
    free(pb);
}

/* The engine's laws (models/traffic/departures.c), written separately, against the oracle's:
 * lg on the edges and a million spread x, and starts and intervals of every law for many
 * (flow, source, m), including a duration-free flow and interval_draw = node. */
static void test_engine_departure_laws(void)
{
    const uint64_t edges[] = {1, 2, 3, 4, 5, 7, 8, 1000, 65535, 65536, 65537,
                              UINT64_C(2147483647), UINT64_C(2147483648),
                              UINT64_C(2147483649), UINT64_C(4294967295), UINT64_C(4294967296)};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        CHECK_EQ(traffic_lg_q16(edges[i]), oracle_lg_q16(edges[i]));
    uint64_t x = 88172645463325252u;
    int lg_bad = 0;
    for (int i = 0; i < 1000000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t v = (x & 0xffffffffu) + 1;
        lg_bad += traffic_lg_q16(v) != oracle_lg_q16(v);
    }
    CHECK_EQ(lg_bad, 0);
    scenario sc;
    memset(&sc, 0, sizeof sc);
    sc.seed = UINT64_C(0x123456789abcdef);
    flood_values_edit(&sc)->n_flows = 3;
    flood_values_edit(&sc)->flows[0] = make_flow("u", 5, 0, tuniform(3, 2000000000), DRAW_PACKET,
                            tuniform(0, 1000000000));
    flood_values_edit(&sc)->flows[1] = make_flow("e", FLOW_BROADCAST, 7, texp(INT64_C(1500000000)), DRAW_PACKET,
                            tconst(250));
    flood_values_edit(&sc)->flows[2] = make_flow("n", 1, 3, texp(INT64_C(7)), DRAW_NODE, tuniform(10, 11));
    int bad = 0;
    for (int f = 0; f < 3; f++)
        for (uint32_t s = 0; s < 200; s++) {
            bad += traffic_start(&flood_values_of(&sc)->flows[f], sc.seed, (uint32_t)f, s) !=
                   oracle_flow_start(&sc, f, s);
            for (int64_t m = 0; m < 50; m++)
                bad += traffic_interval(&flood_values_of(&sc)->flows[f], sc.seed, (uint32_t)f, s, m) !=
                       oracle_flow_interval(&sc, f, s, m, NULL);
        }
    CHECK_EQ(bad, 0);
}

/* ------------------------------------------------------------------ forwarding schemes */

/* The assessment delays' stream (docs/models.md, "Forwarding schemes"). */
#define ASSESSMENT_STREAM 13u

/* SC under SCHEME with counter_threshold C, distance_threshold D_MM and an assessment delay
 * of A windows (the configuration's two fields: the delay in ns and a). */
static scenario with_scheme(scenario sc, int scheme, int64_t c, int64_t d_mm, int64_t a)
{
    flood_values_edit(&sc)->scheme = scheme;
    flood_values_edit(&sc)->counter_threshold = c;
    flood_values_edit(&sc)->distance_threshold_mm = d_mm;
    flood_values_edit(&sc)->assessment_windows = a;
    flood_values_edit(&sc)->assessment_delay_ns = a * flood_values_edit(&sc)->relay_delay_ns;
    return sc;
}

/* Node J's assessment delay r for packet K, in windows, from the shared host Philox:
 * (w0 * (a + 1)) >> 32 with w0 of ctr {j, k, 13, 0}. */
static int64_t assess_r(uint64_t seed, uint32_t j, uint32_t k, int64_t a)
{
    const uint32_t w0 = philox_draw(seed, j, k, ASSESSMENT_STREAM).v[0];
    return (int64_t)(((uint64_t)w0 * (uint64_t)(a + 1)) >> 32);
}

/* The first seed from 1 on whose delays r(j) for packet 0 are WANT[j] for every j < N with
 * WANT[j] >= 0 (-1: any), so that a case can pin the draws it is worked out for. */
static uint64_t seed_with_delays(const int64_t *want, int n, int64_t a)
{
    for (uint64_t seed = 1; seed < 100000; seed++) {
        bool ok = true;
        for (int j = 0; j < n && ok; j++)
            ok = want[j] < 0 || assess_r(seed, (uint32_t)j, 0, a) == want[j];
        if (ok)
            return seed;
    }
    fprintf(stderr, "no seed with the wanted assessment delays\n");
    exit(1);
}

/* counter and distance with a = 0: every node decides at its first reception, from the
 * copies of that time only. */
static void test_schemes_no_delay(void)
{
    /* counter, C = 2, on the 1x5 line: every node first hears exactly one copy (from its
     * predecessor), so every node relays, as under probabilistic ("line"). */
    scenario s = with_scheme(grid_scenario(1, 5), SCHEME_COUNTER, 2, 0, 0);
    check_run("counter line C 2", &s, (expect){5, 8, 4, 1, 4, 3 * L1, 4 * L1, 5});

    /* counter, C = 2, on the 3x3 grid from corner 0 to corner 8:
     *   0 1 2    t=0:  0 sends (hop 1): 1, 3 first (one copy each): relay.
     *   3 4 5    t=L:  1 and 3 send (hop 2): 2, 6 first (one copy): relay; 4 first with two
     *   6 7 8          copies: c = 2, not < 2: no relay. 0 hears two duplicates.
     *          t=2L: 2 and 6 send (hop 3): 5, 7 first (one copy): relay.
     *          t=3L: 5 and 7 send (hop 4): 8 first with two copies (delivered, hop 4,
     *                latency 3L): no relay.
     * Transmissions 0, 1, 3, 2, 6, 5, 7 = 7; receptions 2 + (3 + 3) + (2 + 2) + (3 + 3) = 18;
     * first receptions 8; end 3L. Under probabilistic ("3x3"): 9 transmissions, 24. */
    s = with_scheme(grid_scenario(3, 3), SCHEME_COUNTER, 2, 0, 0);
    check_run("counter 3x3 C 2", &s, (expect){7, 18, 8, 1, 4, 3 * L1, 3 * L1, 4});
    /* C = 3: two copies are fewer than 3, everybody relays: the probabilistic flood. */
    flood_values_edit(&s)->counter_threshold = 3;
    check_run("counter 3x3 C 3", &s, (expect){9, 24, 8, 1, 4, 3 * L1, 4 * L1, 5});

    /* distance on the 1x6 line with a 200 m range (i linked to i +- 1 at 100 m and i +- 2 at
     * 200 m), destination 5. Under probabilistic: 1, 2 first at 0 (hop 1); 3, 4 at L (hop 2);
     * 5 at 2L (hop 3); everybody sends: 6 transmissions, receptions = the sum of the degrees
     * 2 + 3 + 4 + 4 + 3 + 2 = 18, end 3L. */
    scenario line6 = grid_scenario(1, 6);
    flood_values_edit(&line6)->range_mm = 2 * M100;
    check_run("line 6 range 200", &line6, (expect){6, 18, 5, 1, 3, 2 * L1, 3 * L1, 4});
    /* D = 150 m: copies over 100 m are near, over 200 m far.
     * t=0:  0 sends (hop 1): 1 first (near: no relay), 2 first (far: relays).
     * t=L:  2 sends (hop 2): 0, 1 dup; 3 first (near: no), 4 first (far: relays).
     * t=2L: 4 sends (hop 3): 2, 3 dup; 5 first (near: no): delivered, hop 3, latency 2L.
     * Transmissions 3; receptions deg(0) + deg(2) + deg(4) = 2 + 4 + 3 = 9; first 5. */
    s = with_scheme(line6, SCHEME_DISTANCE, 0, 150000, 0);
    check_run("distance line 6 D 150", &s, (expect){3, 9, 5, 1, 3, 2 * L1, 2 * L1, 3});
    /* The test is d2 > D^2: at D = 100 m exactly the 100 m copies are near (the same
     * flood); at D = 99.999 m every copy is far (the probabilistic flood); at D = 200 m
     * every copy is near: only the source sends. */
    flood_values_edit(&s)->distance_threshold_mm = M100;
    check_run("distance line 6 D 100", &s, (expect){3, 9, 5, 1, 3, 2 * L1, 2 * L1, 3});
    flood_values_edit(&s)->distance_threshold_mm = M100 - 1;
    check_run("distance line 6 D 99.999", &s, (expect){6, 18, 5, 1, 3, 2 * L1, 3 * L1, 4});
    flood_values_edit(&s)->distance_threshold_mm = 2 * M100;
    check_run("distance line 6 D 200", &s, (expect){1, 2, 2, 0, 0, 0, 0, 1});

    /* distance, D = 150 m, on the 1x7 line with a 300 m range (i linked to i +- 1, 2, 3;
     * degrees 3 4 5 6 5 4 3), destination 6.
     * t=0:  0 sends (hop 1): 1 (100 m: near, no), 2 (200 m) and 3 (300 m) far: relay.
     * t=L:  2 and 3 send (hop 2), 5 + 6 receptions: 4 first with copies from 2 (200 m) and 3
     *       (100 m, near): no; 5 (300 m, 200 m) and 6 (300 m from 3) far: relay. 6 is
     *       delivered at hop 2, latency L.
     * t=2L: 5 and 6 send (hop 3): 4 + 3 receptions, nothing new.
     * Transmissions 0, 2, 3, 5, 6 = 5; receptions 3 + 11 + 7 = 21; first 6; end 2L. */
    scenario line7 = grid_scenario(1, 7);
    flood_values_edit(&line7)->range_mm = 3 * M100;
    s = with_scheme(line7, SCHEME_DISTANCE, 0, 150000, 0);
    check_run("distance line 7 D 150", &s, (expect){5, 21, 6, 1, 2, L1, 2 * L1, 3});
}

/* Assessment delays (a > 0), the least hop count of simultaneous copies, the ttl, the
 * duration and the packet record's last delivery, on the 2x3 grid (range 100 m)
 *     0 1 2
 *     3 4 5
 * with a broadcast from 0 (every first reception is a delivery), a = 2, and a seed whose
 * delays for packet 0 are r1 = 2, r3 = 0, r4 = 0, r5 = 0 (r2 is whatever that seed draws; the
 * search finds seed 16, with r2 = 0). */
static void test_schemes_delays(void)
{
    const int64_t want[6] = {-1, 2, -1, 0, 0, 0};
    scenario base = grid_scenario(2, 3);
    base.seed = seed_with_delays(want, 6, 2);
    const int64_t r2 = assess_r(base.seed, 2, 0, 2);
    flood_values_edit(&base)->n_flows = 1;
    flood_values_edit(&base)->flows[0] = make_flow("bc", FLOW_BROADCAST, 1, tconst(L1), DRAW_PACKET, tconst(0));
    add_range(&flood_values_edit(&base)->flows[0], 0, 0);
    flood_oracle_result r, e;
    oracle_packet *pk = NULL;
    int64_t npk = 0;

    /* counter with C = 100 (never reached: the delays alone act).
     * t=0:  0 sends (hop 1): 1, 3 first (deliveries hop 1, latency 0). 3 (r = 0) relays at
     *       L; 1 (r = 2) decides at 2L.
     * t=L:  3 sends (hop 2): 0 dup, 4 first (hop 2, latency L); relays at 2L.
     * t=2L: 4 sends (hop 3): 1 (a copy while it assesses), 3 dup, 5 first (hop 3, latency
     *       2L), relays at 3L. 1 decides: 2 copies < 100, relays at 3L with hop 1 + 1 = 2.
     * t=3L: 1 sends (hop 2) and 5 sends (hop 4): 2 first with two copies, hops 2 and 4: the
     *       least, 2 (delivery hop 2, latency 3L); it relays at (3 + r2 + 1) L with hop 3.
     * t=(4 + r2)L: 2 sends: 1, 5 dup.
     * Every node sends once: 6 transmissions, receptions = the sum of the degrees
     * 2 + 3 + 2 + 2 + 3 + 2 = 14; 5 deliveries, hops 1 + 1 + 2 + 3 + 2 = 9, latency
     * 0 + 0 + L + 2L + 3L = 6L. The packet's last delivery is the latest: node 2's at 3L with
     * 2 hops, after node 5's at 2L with 3 hops. */
    scenario s = with_scheme(base, SCHEME_COUNTER, 100, 0, 2);
    CHECK_EQ(flood_oracle_run_packets(&s, &r, &pk, &npk), ORACLE_OK);
    e = (flood_oracle_result){.generated = 1, .transmissions = 6, .receptions = 14,
                              .first_receptions = 5, .delivered = 5, .hops_sum = 9,
                              .latency_sum_ns = 6 * L1, .end_time_ns = (4 + r2) * L1,
                              .windows = 5 + r2};
    compare_results("counter 2x3 a 2 C 100", &r, &e);
    CHECK_EQ(npk, 1);
    if (npk == 1)
        check_packet(&pk[0], 0, 0, 0, 5, 3 * L1, 2);
    free(pk);

    /* C = 2: node 1 decides at 2L with 2 copies (from 0 at 0, from 4 at 2L: the end of the
     * assessment counts) and does not relay. 3, 4, 5 each heard one copy by their decision
     * (r = 0) and relay. 2 first hears 5's copy at 3L (hop 4), alone until its decision at
     * (3 + r2)L, and relays at (4 + r2)L (hop 5): 1, 5 dup.
     * Transmissions 0, 3, 4, 5, 2 = 5; receptions 2 + 2 + 3 + 2 + 2 = 11; deliveries hops
     * 1 + 1 + 2 + 3 + 4 = 11, latency 6L; the last delivery: node 2, 3L, 4 hops. */
    flood_values_edit(&s)->counter_threshold = 2;
    CHECK_EQ(flood_oracle_run_packets(&s, &r, &pk, &npk), ORACLE_OK);
    e.transmissions = 5, e.receptions = 11, e.hops_sum = 11;
    compare_results("counter 2x3 a 2 C 2", &r, &e);
    if (npk == 1)
        check_packet(&pk[0], 0, 0, 0, 5, 3 * L1, 4);
    free(pk);

    /* C = 100, ttl 3: 5 (hop 3) is stopped, so 2 hears only 1's copy at 3L (hop 2) and
     * relays (2 < 3). Transmissions 0, 3, 4, 1, 2 = 5; receptions 2 + 2 + 3 + 3 + 2 = 12;
     * the deliveries as with C = 100. */
    flood_values_edit(&s)->counter_threshold = 100;
    flood_values_edit(&s)->ttl = 3;
    CHECK_EQ(flood_oracle_run_packets(&s, &r, &pk, &npk), ORACLE_OK);
    e.transmissions = 5, e.receptions = 12, e.hops_sum = 9;
    compare_results("counter 2x3 a 2 ttl 3", &r, &e);
    if (npk == 1)
        check_packet(&pk[0], 0, 0, 0, 5, 3 * L1, 2);
    free(pk);
    /* ttl 2: 4 (hop 2) is stopped, 5 never hears the packet; 1 still relays at 3L (its hop
     * is 1) and 2 first hears it there (hop 2: stopped). Transmissions 0, 3, 1; receptions
     * 2 + 2 + 3 = 7; first 1, 3, 4, 2; hops 1 + 1 + 2 + 2 = 6, latency 0 + 0 + L + 3L; the
     * last transmission at 3L. */
    flood_values_edit(&s)->ttl = 2;
    CHECK_EQ(flood_oracle_run_packets(&s, &r, &pk, &npk), ORACLE_OK);
    e = (flood_oracle_result){.generated = 1, .transmissions = 3, .receptions = 7,
                              .first_receptions = 4, .delivered = 4, .hops_sum = 6,
                              .latency_sum_ns = 4 * L1, .end_time_ns = 3 * L1, .windows = 4};
    compare_results("counter 2x3 a 2 ttl 2", &r, &e);
    if (npk == 1)
        check_packet(&pk[0], 0, 0, 0, 4, 3 * L1, 2);
    free(pk);

    /* Durations, C = 100. 3L: the transmissions at 3L (1's, decided at 2L, and 5's) do not
     * run: 0, 3, 4 send, 2 never hears the packet: receptions 2 + 2 + 3 = 7, deliveries 1, 3,
     * 4, 5 (hops 7, latency 3L). 3L + 1: those at 3L run, 2's relay at (4 + r2)L does not.
     * (4 + r2)L + 1: everything. */
    flood_values_edit(&s)->ttl = 0;
    s.duration_ns = 3 * L1;
    e = (flood_oracle_result){.generated = 1, .transmissions = 3, .receptions = 7,
                              .first_receptions = 4, .delivered = 4, .hops_sum = 7,
                              .latency_sum_ns = 3 * L1, .end_time_ns = 2 * L1, .windows = 3};
    CHECK_EQ(flood_oracle_run(&s, &r), ORACLE_OK);
    compare_results("counter 2x3 a 2 duration 3L", &r, &e);
    s.duration_ns = 3 * L1 + 1;
    e.transmissions = 5, e.receptions = 12, e.first_receptions = 5, e.delivered = 5;
    e.hops_sum = 9, e.latency_sum_ns = 6 * L1, e.end_time_ns = 3 * L1, e.windows = 4;
    CHECK_EQ(flood_oracle_run(&s, &r), ORACLE_OK);
    compare_results("counter 2x3 a 2 duration 3L+1", &r, &e);
    s.duration_ns = (4 + r2) * L1;
    CHECK_EQ(flood_oracle_run(&s, &r), ORACLE_OK);
    compare_results("counter 2x3 a 2 duration at 2's relay", &r, &e);
    s.duration_ns = (4 + r2) * L1 + 1;
    e.transmissions = 6, e.receptions = 14, e.end_time_ns = (4 + r2) * L1, e.windows = 5 + r2;
    CHECK_EQ(flood_oracle_run(&s, &r), ORACLE_OK);
    compare_results("counter 2x3 a 2 duration after 2's relay", &r, &e);

    /* Two copies with different hop counts at once, and two deliveries at the packet's last
     * time: the 1x6 line with a 200 m range (i linked to i +- 1, 2), a broadcast from 0,
     * counter with C = 100, a = 1, and a seed whose delays for packet 0 are r1 = 0, r2 = 1,
     * r3 = r4 = r5 = 0 (seed 50).
     * t=0:  0 sends (hop 1): 1, 2 first (hop 1, latency 0). 1 relays at L; 2 decides at L.
     * t=L:  1 sends (hop 2): 2 (a copy), 3 first (hop 2, latency L), relays at 2L with hop 3.
     *       2 decides: relays at 2L with hop 2.
     * t=2L: 2 sends (hop 2), 3 sends (hop 3): 4 first with copies of hops 2 and 3: hop 2;
     *       5 first (hop 3, only from 3). Both delivered with latency 2L; they relay at 3L.
     * t=3L: 4 and 5 send.
     * Every node sends once: 6 transmissions, 18 receptions (the sum of the degrees); hops
     * 1 + 1 + 2 + 2 + 3 = 9, latency 0 + 0 + L + 2L + 2L = 5L. The last delivery: of the two
     * at 2L, the one with more hops: 5's (3). */
    const int64_t want6[6] = {-1, 0, 1, 0, 0, 0};
    scenario line6 = grid_scenario(1, 6);
    flood_values_edit(&line6)->range_mm = 2 * M100;
    line6.seed = seed_with_delays(want6, 6, 1);
    flood_values_edit(&line6)->n_flows = 1;
    flood_values_edit(&line6)->flows[0] = flood_values_edit(&base)->flows[0];
    s = with_scheme(line6, SCHEME_COUNTER, 100, 0, 1);
    CHECK_EQ(flood_oracle_run_packets(&s, &r, &pk, &npk), ORACLE_OK);
    e = (flood_oracle_result){.generated = 1, .transmissions = 6, .receptions = 18,
                              .first_receptions = 5, .delivered = 5, .hops_sum = 9,
                              .latency_sum_ns = 5 * L1, .end_time_ns = 3 * L1, .windows = 4};
    compare_results("counter line 6 a 1 least hop", &r, &e);
    CHECK_EQ(npk, 1);
    if (npk == 1)
        check_packet(&pk[0], 0, 0, 0, 5, 2 * L1, 3);
    free(pk);

    /* distance, D = 150 m, a = 1 on the 1x7 line with a 300 m range (see "distance line 7
     * D 150"), with a seed whose delays for packet 0 are r2 = 0, r3 = 1, r4 = 0, r5 = 1
     * (seed 6, with r6 = 0):
     * t=0:  0 sends (hop 1): 1 (near), 2 and 3 (far) first. 2 decides at once: relays at L.
     * t=L:  2 sends (hop 2): 3 hears it from 100 m (near) and decides (r3 = 1): no relay;
     *       4 (200 m) and 5 (300 m) first, far. 4 decides at once: relays at 2L.
     * t=2L: 4 sends (hop 3): 5 hears it from 100 m and decides: no relay; 6 first (200 m,
     *       far): delivered, hop 3, latency 2L; no other copy reaches it before its decision
     *       at (2 + r6)L: it relays at (3 + r6)L (3, 4, 5 dup).
     * Transmissions 0, 2, 4, 6; receptions 3 + 5 + 5 + 3 = 16; first 6. */
    const int64_t want7[6] = {-1, -1, 0, 1, 0, 1};
    scenario line7 = grid_scenario(1, 7);
    flood_values_edit(&line7)->range_mm = 3 * M100;
    line7.seed = seed_with_delays(want7, 6, 1);
    const int64_t r6 = assess_r(line7.seed, 6, 0, 1);
    s = with_scheme(line7, SCHEME_DISTANCE, 0, 150000, 1);
    check_run("distance line 7 D 150 a 1", &s,
              (expect){4, 16, 6, 1, 3, 2 * L1, (3 + r6) * L1, 4 + r6});

    /* Long waits: counter, C = 100, a = 1000 on the 1x5 line. Node j (1..4) first hears the
     * packet at T_j = T_(j-1) + (r_(j-1) + 1) L (T_1 = 0: the source sends at once) with hop
     * j, and relays (r_j + 1) L later; the windows in between hold nothing. Delivered at T_4
     * with 4 hops; the last transmission is 4's, at T_4 + (r4 + 1) L. */
    s = with_scheme(grid_scenario(1, 5), SCHEME_COUNTER, 100, 0, 1000);
    int64_t t4 = 0;
    for (uint32_t j = 1; j <= 3; j++)
        t4 += (assess_r(s.seed, j, 0, 1000) + 1) * L1;
    const int64_t end = t4 + (assess_r(s.seed, 4, 0, 1000) + 1) * L1;
    CHECK(t4 > 100 * L1); /* the delays are long indeed */
    check_run("counter line a 1000", &s, (expect){5, 8, 4, 1, 4, t4, end, end / L1 + 1});
}

/* The scheme keys are ignored under probabilistic, whatever they hold; out of range under
 * counter or distance, the scenario is refused. */
static void test_schemes_keys(void)
{
    scenario s = grid_scenario(3, 3);
    flood_values_edit(&s)->counter_threshold = 2;
    flood_values_edit(&s)->distance_threshold_mm = 50000;
    flood_values_edit(&s)->assessment_windows = 3;
    flood_values_edit(&s)->assessment_delay_ns = 3 * L1;
    check_run("probabilistic with scheme keys", &s, (expect){9, 24, 8, 1, 4, 3 * L1, 4 * L1, 5});
    flood_values_edit(&s)->counter_threshold = 0;
    flood_values_edit(&s)->distance_threshold_mm = -1;
    flood_values_edit(&s)->assessment_windows = -7;
    check_run("probabilistic with odd scheme keys", &s,
              (expect){9, 24, 8, 1, 4, 3 * L1, 4 * L1, 5});

    /* With random drops and flows, the keys change nothing either. */
    scenario g = grid_scenario(4, 5);
    g.seed = 31;
    flood_values_edit(&g)->packets = 7;
    flood_values_edit(&g)->interval_ns = 3 * L1 / 10;
    flood_values_edit(&g)->drop_threshold = 858993459;
    scenario k = g;
    flood_values_edit(&k)->counter_threshold = 2;
    flood_values_edit(&k)->distance_threshold_mm = 1;
    flood_values_edit(&k)->assessment_windows = 5;
    flood_values_edit(&k)->assessment_delay_ns = 5 * L1;
    flood_oracle_result a, b;
    CHECK_EQ(flood_oracle_run(&g, &a), ORACLE_OK);
    CHECK_EQ(flood_oracle_run(&k, &b), ORACLE_OK);
    compare_results("probabilistic drops with scheme keys", &b, &a);

    flood_oracle_result r;
    scenario bad = with_scheme(grid_scenario(3, 3), SCHEME_COUNTER, 1, 0, 0);
    CHECK_EQ(flood_oracle_run(&bad, &r), ORACLE_ERR_INPUT); /* C < 2 */
    bad = with_scheme(grid_scenario(3, 3), SCHEME_DISTANCE, 0, 0, 0);
    CHECK_EQ(flood_oracle_run(&bad, &r), ORACLE_ERR_INPUT); /* D = 0 */
    flood_values_edit(&bad)->distance_threshold_mm = M100 + 1;
    CHECK_EQ(flood_oracle_run(&bad, &r), ORACLE_ERR_INPUT); /* D > range */
    flood_values_edit(&bad)->distance_threshold_mm = M100;
    CHECK_EQ(flood_oracle_run(&bad, &r), ORACLE_OK);
    bad = with_scheme(grid_scenario(3, 3), SCHEME_COUNTER, 3, 0, 1000001);
    CHECK_EQ(flood_oracle_run(&bad, &r), ORACLE_ERR_INPUT); /* a > 10^6 */
    bad = with_scheme(grid_scenario(3, 3), SCHEME_COUNTER, 3, 0, 2);
    flood_values_edit(&bad)->assessment_delay_ns += 1; /* not a whole number of windows */
    CHECK_EQ(flood_oracle_run(&bad, &r), ORACLE_ERR_INPUT);
    flood_values_edit(&bad)->assessment_delay_ns = 3 * L1; /* a disagrees with the delay */
    CHECK_EQ(flood_oracle_run(&bad, &r), ORACLE_ERR_INPUT);
    bad = grid_scenario(3, 3);
    flood_values_edit(&bad)->scheme = 3;
    CHECK_EQ(flood_oracle_run(&bad, &r), ORACLE_ERR_INPUT);
}

/* A second formulation of the forwarding schemes for cross-checking the oracle: packet by
 * packet and time step by time step (t_k + m L), with dense per-node arrays scanned whole at
 * every step and the neighbour test inline on per-window snapshots of the positions (udg,
 * [traffic] alone, a constant drop probability). */
typedef struct pm_nodes {
    int64_t *first_t;  /* time of its first reception (the source: its creation), -1: none */
    int64_t *hop;      /* least hop count of the copies at first_t */
    int64_t *decide_t; /* time of its decision */
    int64_t *copies;   /* copies heard while assessing */
    int64_t *send_t;   /* time of its transmission, -1: none */
    int64_t *send_hop;
    uint8_t *near;     /* a copy came from within D while assessing */
    uint8_t *assessing;
} pm_nodes;

static void *pm_alloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

/* Positions of windows 0 .. NW - 1, window-major. */
static int64_t (*pm_snapshots(const scenario *sc, int64_t n, int64_t nw))[3]
{
    int64_t (*snap)[3] = pm_alloc((size_t)(nw * n) * sizeof *snap);
    oracle_mobility m;
    oracle_mobility_init(&m, sc);
    for (int64_t w = 0; w < nw; w++) {
        oracle_mobility_advance(sc, &m, w);
        memcpy(snap + w * n, m.pos, (size_t)n * sizeof *snap);
    }
    oracle_mobility_free(&m);
    return snap;
}

/* The transmissions at T (positions POS) and what they reach. */
static void pm_transmit(const scenario *sc, const int64_t (*pos)[3], int64_t n, int64_t t,
                        pm_nodes *s, flood_oracle_result *r)
{
    const uint64_t r2 = (uint64_t)flood_values_of(sc)->range_mm * (uint64_t)flood_values_of(sc)->range_mm;
    const uint64_t d2 = (uint64_t)flood_values_of(sc)->distance_threshold_mm * (uint64_t)flood_values_of(sc)->distance_threshold_mm;
    for (int64_t i = 0; i < n; i++) {
        if (s->send_t[i] != t)
            continue;
        r->transmissions++;
        r->end_time_ns = t > r->end_time_ns ? t : r->end_time_ns;
        for (int64_t j = 0; j < n; j++) {
            const int64_t dx = pos[i][0] - pos[j][0], dy = pos[i][1] - pos[j][1],
                          dz = pos[i][2] - pos[j][2];
            const uint64_t dd = (uint64_t)(dx * dx + dy * dy + dz * dz);
            if (j == i || dd > r2)
                continue;
            r->receptions++;
            if (s->first_t[j] < 0) { /* its first reception: assessed once all are heard */
                s->first_t[j] = t;
                s->hop[j] = s->send_hop[i];
                s->copies[j] = 0;
                s->near[j] = 0;
                s->assessing[j] = 1;
            }
            if (!s->assessing[j])
                continue;
            if (s->first_t[j] == t && s->send_hop[i] < s->hop[j])
                s->hop[j] = s->send_hop[i];
            s->copies[j]++;
            s->near[j] |= dd <= d2;
        }
    }
}

/* The first receptions at T of packet K (created at T_K): deliveries, then the ttl and the
 * relay draw, else a decision time. */
static void pm_first(const scenario *sc, int64_t n, int64_t k, int64_t t_k, int64_t t,
                     pm_nodes *s, flood_oracle_result *r)
{
    const int64_t a = flood_values_of(sc)->scheme == SCHEME_PROBABILISTIC ? 0 : flood_values_of(sc)->assessment_windows;
    const int64_t dest = flood_values_of(sc)->destination == -1 ? n - 1 : flood_values_of(sc)->destination;
    for (int64_t j = 0; j < n; j++) {
        if (!s->assessing[j] || s->first_t[j] != t)
            continue;
        r->first_receptions++;
        if (j == dest) {
            r->delivered++;
            r->hops_sum += s->hop[j];
            r->latency_sum_ns += t - t_k;
        }
        const uint32_t w0 = philox_draw(sc->seed, (uint32_t)j, (uint32_t)k, STREAM_RELAY).v[0];
        const int64_t delay = a > 0 ? assess_r(sc->seed, (uint32_t)j, (uint32_t)k, a) : 0;
        if ((flood_values_of(sc)->ttl > 0 && s->hop[j] >= flood_values_of(sc)->ttl) || w0 < flood_values_of(sc)->drop_threshold)
            s->assessing[j] = 0;
        else
            s->decide_t[j] = t + delay * flood_values_of(sc)->relay_delay_ns;
    }
}

/* The decisions due at T; whether anything remains to be done after T. */
static bool pm_decide(const scenario *sc, int64_t n, int64_t t, pm_nodes *s)
{
    bool later = false;
    for (int64_t j = 0; j < n; j++) {
        if (s->assessing[j] && s->decide_t[j] == t) {
            s->assessing[j] = 0;
            bool go = true;
            if (flood_values_of(sc)->scheme == SCHEME_COUNTER)
                go = s->copies[j] < flood_values_of(sc)->counter_threshold;
            if (flood_values_of(sc)->scheme == SCHEME_DISTANCE)
                go = !s->near[j];
            if (go) {
                s->send_t[j] = t + flood_values_of(sc)->relay_delay_ns;
                s->send_hop[j] = s->hop[j] + 1;
            }
        }
        later = later || s->assessing[j] || s->send_t[j] > t;
    }
    return later;
}

static void schemes_packet_major(const scenario *sc, flood_oracle_result *r)
{
    memset(r, 0, sizeof *r);
    const int64_t n = oracle_node_count(sc), l = flood_values_of(sc)->relay_delay_ns;
    const int64_t a = flood_values_of(sc)->scheme == SCHEME_PROBABILISTIC ? 0 : flood_values_of(sc)->assessment_windows;
    const int64_t last_t = flood_values_of(sc)->start_ns + (flood_values_of(sc)->packets - 1) * flood_values_of(sc)->interval_ns;
    /* Each relay is a new node, at most a + 1 windows after the step before. */
    const int64_t nw = last_t / l + n * (a + 1) + 2;
    int64_t (*snap)[3] = pm_snapshots(sc, n, nw);
    pm_nodes s;
    const size_t b = (size_t)n * sizeof(int64_t);
    s.first_t = pm_alloc(b), s.hop = pm_alloc(b), s.decide_t = pm_alloc(b);
    s.copies = pm_alloc(b), s.send_t = pm_alloc(b), s.send_hop = pm_alloc(b);
    s.near = pm_alloc((size_t)n), s.assessing = pm_alloc((size_t)n);
    r->generated = flood_values_of(sc)->packets;
    for (int64_t k = 0; k < flood_values_of(sc)->packets; k++) {
        const int64_t t_k = flood_values_of(sc)->start_ns + k * flood_values_of(sc)->interval_ns;
        for (int64_t j = 0; j < n; j++) {
            s.first_t[j] = s.send_t[j] = s.decide_t[j] = -1;
            s.assessing[j] = 0;
        }
        s.first_t[flood_values_of(sc)->source] = t_k; /* the source has it, and never hears it first */
        s.send_t[flood_values_of(sc)->source] = t_k;
        s.send_hop[flood_values_of(sc)->source] = 1;
        for (int64_t t = t_k; sc->duration_ns <= 0 || t < sc->duration_ns; t += l) {
            pm_transmit(sc, (const int64_t (*)[3])(snap + (t / l) * n), n, t, &s, r);
            pm_first(sc, n, k, t_k, t, &s, r);
            if (!pm_decide(sc, n, t, &s))
                break;
        }
    }
    if (r->transmissions > 0)
        r->windows = r->end_time_ns / l + 1;
    free(snap);
    free(s.first_t);
    free(s.hop);
    free(s.decide_t);
    free(s.copies);
    free(s.send_t);
    free(s.send_hop);
    free(s.near);
    free(s.assessing);
}

/* The oracle against the second formulation on random static and mobile graphs, with
 * drops, a ttl, a duration and packets off the window grid, under every scheme. */
static void test_schemes_cross(void)
{
    scenario c = uniform_scenario(60, 600000, 100000, 150000);
    c.seed = 2024;
    flood_values_edit(&c)->packets = 8;
    flood_values_edit(&c)->interval_ns = 1700 * INT64_C(1000000); /* 1.7 s */
    flood_values_edit(&c)->start_ns = 300 * INT64_C(1000000);
    flood_values_edit(&c)->drop_threshold = UINT64_C(1) << 29; /* 1/8 */
    flood_values_edit(&c)->source = 3;
    flood_values_edit(&c)->destination = 41;
    static const struct {
        int scheme;
        int64_t c, d_mm, a;
    } schemes[] = {
        {SCHEME_PROBABILISTIC, 0, 0, 0}, {SCHEME_COUNTER, 2, 0, 0},
        {SCHEME_COUNTER, 3, 0, 2},       {SCHEME_COUNTER, 5, 0, 4},
        {SCHEME_DISTANCE, 0, 60000, 0},  {SCHEME_DISTANCE, 0, 50000, 3},
        {SCHEME_DISTANCE, 0, 75000, 1},
    };
    for (size_t q = 0; q < sizeof schemes / sizeof schemes[0]; q++) {
        for (int variant = 0; variant < 5; variant++) {
            scenario v = with_scheme(c, schemes[q].scheme, schemes[q].c, schemes[q].d_mm,
                                     schemes[q].a);
            if (variant >= 1) { /* rwp */
                flood_values_edit(&v)->mob.model = MOBILITY_RWP;
                flood_values_edit(&v)->mob.speed_min_mm_s = 5000;
                flood_values_edit(&v)->mob.speed_max_mm_s = 40000;
                flood_values_edit(&v)->mob.pause_max_ms = 2500;
            }
            if (variant == 2)
                flood_values_edit(&v)->ttl = 4;
            if (variant == 3)
                v.duration_ns = 9 * L1 + 1;
            if (variant == 4) {
                v.seed = UINT64_C(0xabcdef0123456789);
                flood_values_edit(&v)->drop_threshold = 0;
                flood_values_edit(&v)->depth_mm = 0;
                flood_values_edit(&v)->relay_delay_ns = 250 * INT64_C(1000000);
                flood_values_edit(&v)->assessment_delay_ns = flood_values_edit(&v)->assessment_windows * flood_values_edit(&v)->relay_delay_ns;
            }
            flood_oracle_result want, got;
            schemes_packet_major(&v, &want);
            CHECK_EQ(flood_oracle_run(&v, &got), ORACLE_OK);
            char name[96];
            snprintf(name, sizeof name, "scheme %zu variant %d", q, variant);
            compare_results(name, &got, &want);
            CHECK(want.transmissions > 10);
        }
    }
    /* The schemes matter on these graphs: fewer transmissions than probabilistic. */
    flood_oracle_result p, q;
    CHECK_EQ(flood_oracle_run(&c, &p), ORACLE_OK);
    scenario s = with_scheme(c, SCHEME_COUNTER, 3, 0, 2);
    CHECK_EQ(flood_oracle_run(&s, &q), ORACLE_OK);
    CHECK(q.transmissions < p.transmissions);
    s = with_scheme(c, SCHEME_DISTANCE, 0, 50000, 3);
    CHECK_EQ(flood_oracle_run(&s, &q), ORACLE_OK);
    CHECK(q.transmissions < p.transmissions);
}

/* ------------------------------------------------------------------ node resources */

/* What node resources add (docs/models.md, "Node resources"), checked with the counters. */
typedef struct res_expect {
    int64_t capacity_drops, dead_nodes, first_death_ns, energy_spent_nj;
} res_expect;

static void check_resources(const char *name, const scenario *sc, expect e, res_expect x)
{
    int before = failures;
    check_run(name, sc, e);
    flood_oracle_result r;
    CHECK_EQ(flood_oracle_run(sc, &r), ORACLE_OK);
    CHECK(r.has_capacity == (flood_values_of(sc)->rx_capacity > 0));
    CHECK(r.has_energy == (flood_values_of(sc)->energy_budget.law == LAW_UNIFORM || flood_values_of(sc)->energy_budget.a_nj > 0));
    CHECK_EQ(r.capacity_drops, x.capacity_drops);
    if (r.has_energy) {
        CHECK_EQ(r.dead_nodes, x.dead_nodes);
        CHECK_EQ(r.first_death_ns, x.first_death_ns);
        CHECK_EQ(r.energy_spent_nj, x.energy_spent_nj);
    }
    if (failures != before)
        fprintf(stderr, "  (in resources case \"%s\")\n", name);
}

/* SC with a budget of E nJ per node, transmissions costing TX nJ and accepted copies RX nJ
 * (fixed parts: the sizes do not matter). */
static scenario with_energy(scenario sc, int64_t e, int64_t tx, int64_t rx)
{
    flood_values_edit(&sc)->energy_budget = (energy_law){LAW_CONSTANT, e, e};
    flood_values_edit(&sc)->tx_fixed_nj = tx;
    flood_values_edit(&sc)->rx_fixed_nj = rx;
    return sc;
}

static void test_capacity_by_hand(void)
{
    /* 3x3 grid (0 1 2 / 3 4 5 / 6 7 8) from corner 0 to 8, M = 1. Each window every node
     * takes one copy, the one of the lowest sender (all copies are of the one packet):
     * window 1: 0 hears 1 and 3 (1 refused), 4 hears 1 and 3 (1 refused); window 2: 1, 3, 5,
     * 7 hear two each (4 refused); window 3: 4 and 8 hear two (2 refused). Every node is still
     * reached in time: the flood is the plain one, with 24 - 8 = 16 receptions. */
    scenario g = grid_scenario(3, 3);
    flood_values_edit(&g)->rx_capacity = 1;
    check_resources("3x3 M=1", &g, (expect){9, 16, 8, 1, 4, 3 * L1, 4 * L1, 5},
                    (res_expect){8, 0, 0, 0});
    /* M = 2 takes every copy: nothing refused, the plain counters. */
    flood_values_edit(&g)->rx_capacity = 2;
    check_resources("3x3 M=2", &g, (expect){9, 24, 8, 1, 4, 3 * L1, 4 * L1, 5},
                    (res_expect){0, 0, 0, 0});

    /* Line 0-1-2, two packets 0.5L apart, M = 1: node 1 hears both in window 0 (at 0 and
     * 0.5L) and takes the earlier; packet 1 is refused and dies there. Packet 0 goes on: 1
     * at L (0 and 2 hear it, 2 first: delivered, hop 2), 2 at 2L (1 hears it). */
    scenario line = grid_scenario(1, 3);
    flood_values_edit(&line)->packets = 2;
    flood_values_edit(&line)->interval_ns = L1 / 2;
    flood_values_edit(&line)->rx_capacity = 1;
    check_resources("line 2 packets M=1", &line, (expect){4, 4, 2, 1, 2, L1, 2 * L1, 3},
                    (res_expect){1, 0, 0, 0});
    /* The same with the packets in the other order of time at node 1 is impossible, but the
     * order of packets at one time is by id: two flows from node 0 at time 0 (packet 0 of
     * flow a, packet 1 of flow b): node 1 takes packet 0, refuses packet 1. */
    scenario f = grid_scenario(1, 3);
    traffic_flow fa = make_flow("a", 2, 1, tconst(L1), DRAW_PACKET, tconst(0));
    traffic_flow fb = make_flow("b", 2, 1, tconst(L1), DRAW_PACKET, tconst(0));
    add_range(&fa, 0, 0);
    add_range(&fb, 0, 0);
    flood_values_edit(&f)->n_flows = 2;
    flood_values_edit(&f)->flows[0] = fa;
    flood_values_edit(&f)->flows[1] = fb;
    flood_values_edit(&f)->rx_capacity = 1;
    flood_oracle_result r;
    oracle_packet *pk = NULL;
    int64_t npk = 0;
    CHECK_EQ(flood_oracle_run_packets(&f, &r, &pk, &npk), ORACLE_OK);
    CHECK_EQ(npk, 2);
    if (npk == 2) {
        CHECK_EQ(pk[0].flow, 0);
        CHECK_EQ(pk[0].delivered, 1);
        CHECK_EQ(pk[1].delivered, 0);
    }
    CHECK_EQ(r.capacity_drops, 1);
    CHECK_EQ(r.transmissions, 4);
    free(pk);
}

static void test_energy_by_hand(void)
{
    /* Line 0-1-2-3-4, one packet, transmissions 10 nJ, copies 1 nJ. Every node has 11 nJ of
     * events but the middle ones 12 (a copy, its relay, the copy of the next relay). With 11
     * nJ, 1, 2 and 3 die at the duplicate they hear from the next node (at 2L, 3L, 4L), which
     * therefore never is a reception: 8 - 3 = 5 receptions; the flood itself is complete.
     * Every node spends its 11 nJ. */
    scenario line = grid_scenario(1, 5);
    scenario s = with_energy(line, 11, 10, 1);
    check_resources("line E=11", &s, (expect){5, 5, 4, 1, 4, 3 * L1, 4 * L1, 5},
                    (res_expect){0, 3, 2 * L1, 55});
    /* 12 nJ pays for everything: nobody dies, 5 x 10 + 8 x 1 spent. */
    s = with_energy(line, 12, 10, 1);
    check_resources("line E=12", &s, (expect){5, 8, 4, 1, 4, 3 * L1, 4 * L1, 5},
                    (res_expect){0, 0, -1, 58});
    /* 10 nJ: node 1 pays its copy (9 left) and cannot pay its relay at L: it dies there and
     * the flood stops. The source spent 10, node 1 one. */
    s = with_energy(line, 10, 10, 1);
    check_resources("line E=10", &s, (expect){1, 1, 1, 0, 0, 0, 0, 1},
                    (res_expect){0, 1, L1, 11});
    /* A source that cannot pay its first transmission dies at once: the packet is created
     * (generated) but never sent, and no window holds an event. */
    s = with_energy(line, 9, 10, 1);
    check_resources("line E=9", &s, (expect){0, 0, 0, 0, 0, 0, 0, 0},
                    (res_expect){0, 1, 0, 0});
    /* A source that dies at its second packet: 0-1-2, packets 2L apart, 11 nJ each. Packet 0
     * floods (0 at 0, 1 at L, 2 at 2L); at 2L the source (1 nJ left after the copy from 1)
     * cannot send packet 1 and dies; node 1 (0 left) dies at the copy of 2's relay. */
    scenario l3 = grid_scenario(1, 3);
    flood_values_edit(&l3)->packets = 2;
    flood_values_edit(&l3)->interval_ns = 2 * L1;
    s = with_energy(l3, 11, 10, 1);
    check_resources("source dies", &s, (expect){3, 3, 2, 1, 2, L1, 2 * L1, 3},
                    (res_expect){0, 2, 2 * L1, 33});

    /* 3x3 grid, transmissions 2 nJ, copies 1 nJ, 4 nJ each: every node spends all of it.
     * Window 2: 1 hears 2 then 4 (senders in order) and dies at the second (mid-window), as
     * does 3 (4, then 6); window 3: 4 (nothing left after two copies and its relay) dies at
     * the copy from 5; window 4: 5 and 7 die at the copy from 8. 18 of the 24 copies are
     * receptions; the flood reaches every node and the destination at hop 4. */
    scenario g = with_energy(grid_scenario(3, 3), 4, 2, 1);
    check_resources("3x3 E=4", &g, (expect){9, 18, 8, 1, 4, 3 * L1, 4 * L1, 5},
                    (res_expect){0, 5, 2 * L1, 36});
    /* Capacity first, then energy: with M = 1 a node takes one copy per window, so 2 nJ of
     * copies never come in one window; refused copies cost nothing. Node 4: one copy at L,
     * its relay at 2L (1 left), one copy at 3L (0 left), the other refused. */
    flood_values_edit(&g)->rx_capacity = 1;
    check_resources("3x3 E=4 M=1", &g, (expect){9, 16, 8, 1, 4, 3 * L1, 4 * L1, 5},
                    (res_expect){8, 0, -1, 34});
    /* Costs per byte: 1000-byte packets at 0.004 nJ/byte (4 nJ a transmission) and 0.001 nJ
     * (1 nJ a copy): the line of E=11 above, scaled. */
    s = line;
    flood_values_edit(&s)->energy_budget = (energy_law){LAW_CONSTANT, 11, 11};
    flood_values_edit(&s)->size_bytes = 1000;
    flood_values_edit(&s)->tx_per_byte_nj = 0; /* whole nJ per byte only: 10 = 0 + 0.01 x 1000 is not expressible */
    flood_values_edit(&s)->tx_fixed_nj = 10;
    flood_values_edit(&s)->rx_per_byte_nj = 0;
    flood_values_edit(&s)->rx_fixed_nj = 1;
    check_resources("line E=11 fixed", &s, (expect){5, 5, 4, 1, 4, 3 * L1, 4 * L1, 5},
                    (res_expect){0, 3, 2 * L1, 55});
    flood_values_edit(&s)->size_bytes = 5;
    flood_values_edit(&s)->tx_fixed_nj = 0;
    flood_values_edit(&s)->tx_per_byte_nj = 2; /* 10 nJ for 5 bytes */
    flood_values_edit(&s)->rx_fixed_nj = 1;
    check_resources("line E=11 per byte", &s, (expect){5, 5, 4, 1, 4, 3 * L1, 4 * L1, 5},
                    (res_expect){0, 3, 2 * L1, 55});
}

/* Node resources under counter (docs/models.md, "Under counter and distance"): the scheme
 * hears only the copies that happen, and a relay is paid at its own time. */
static void test_schemes_with_resources_by_hand(void)
{
    /* 3x3 grid from 0 to 8, counter C = 2 without delay. Alone: 1 and 3 hear one copy and
     * relay; 4 hears two (from 1 and 3) and does not; 2 and 6 relay at 2L, then 5 and 7 (one
     * copy each) at 3L; 8 hears two and is the last. 7 transmissions, 18 receptions. */
    scenario g = with_scheme(grid_scenario(3, 3), SCHEME_COUNTER, 2, 0, 0);
    check_run("3x3 counter", &g, (expect){7, 18, 8, 1, 4, 3 * L1, 3 * L1, 4});
    /* With M = 1 every node takes one copy a window (the lowest sender's) and refuses the
     * other, which it therefore does not count: each hears one copy and relays, 4, 5, 7 and 8
     * included, as under probabilistic with M = 1. */
    flood_values_edit(&g)->rx_capacity = 1;
    check_resources("3x3 counter M=1", &g, (expect){9, 16, 8, 1, 4, 3 * L1, 4 * L1, 5},
                    (res_expect){8, 0, 0, 0});

    /* Line 0-1-2-3, counter C = 2 with delays of up to 3 windows, pinned to r(1) = 2, r(2) =
     * 1, r(3) = 3; transmissions cost 10 nJ, copies 1 nJ. */
    const int64_t want[4] = {-1, 2, 1, 3};
    scenario line = with_scheme(grid_scenario(1, 4), SCHEME_COUNTER, 2, 0, 3);
    line.seed = seed_with_delays(want, 4, 3);
    /* 10 nJ each: node 1 pays its copy at 0 (9 left), waits two windows, decides to relay
     * at 2L and cannot pay the relay at 3L: it dies then and the flood ends. */
    scenario s = with_energy(line, 10, 10, 1);
    check_resources("line counter E=10", &s, (expect){1, 1, 1, 0, 0, 0, 0, 1},
                    (res_expect){0, 1, 3 * L1, 11});
    /* 11 nJ each: relays at 3L (node 1), 5L (node 2, delay 1) and 9L (node 3, delay 3), each
     * leaving its node with nothing. The source takes 1's relay with its last nJ; 1 and 2
     * die at the copy of the next node's relay (5L, 9L), which is no reception. 3 is
     * reached at 5L with 3 hops. Everyone spends 11 nJ. */
    s = with_energy(line, 11, 10, 1);
    check_resources("line counter E=11", &s, (expect){4, 4, 3, 1, 3, 5 * L1, 9 * L1, 10},
                    (res_expect){0, 2, 5 * L1, 44});
}

/* a + ((w0 x (b - a + 1)) >> 32), the product split so that no 128-bit type is needed. */
static int64_t my_budget(uint64_t seed, uint32_t j, int64_t a, int64_t b)
{
    philox4x32 w = philox_draw(seed, j, 0, 15);
    uint64_t span = (uint64_t)(b - a) + 1, w0 = w.v[0];
    return a + (int64_t)(w0 * (span >> 32) + ((w0 * (span & 0xffffffffu)) >> 32));
}

static void test_energy_uniform(void)
{
    /* The draws of docs/models.md (stream 15), small and very wide spans. */
    scenario s = grid_scenario(1, 2);
    const int64_t spans[][2] = {{0, 0}, {5, 5}, {0, 20}, {1000, 1999},
                                {1, INT64_C(1000000000000000000)}};
    for (size_t i = 0; i < sizeof spans / sizeof spans[0]; i++)
        for (uint32_t j = 0; j < 50; j++) {
            flood_values_edit(&s)->energy_budget = (energy_law){LAW_UNIFORM, spans[i][0], spans[i][1]};
            int64_t b = oracle_energy_budget(&s, j);
            CHECK_EQ(b, my_budget(s.seed, j, spans[i][0], spans[i][1]));
            CHECK(b >= spans[i][0] && b <= spans[i][1]);
        }
    /* Both ends of a small span are drawn, and nothing else. */
    int seen[3] = {0, 0, 0};
    flood_values_edit(&s)->energy_budget = (energy_law){LAW_UNIFORM, 7, 9};
    for (uint32_t j = 0; j < 200; j++) {
        int64_t b = oracle_energy_budget(&s, j);
        CHECK(b >= 7 && b <= 9);
        if (b >= 7 && b <= 9)
            seen[b - 7] = 1;
    }
    CHECK(seen[0] && seen[1] && seen[2]);

    /* Two nodes 0-1, one packet from 0, transmissions 10 nJ, copies 1 nJ, budgets uniform in
     * [0, 20] nJ: the outcome follows from the two draws, over several seeds. */
    int cases[4] = {0, 0, 0, 0};
    for (uint64_t seed = 1; seed <= 40; seed++) {
        scenario t = grid_scenario(1, 2);
        t.seed = seed;
        flood_values_edit(&t)->energy_budget = (energy_law){LAW_UNIFORM, 0, 20};
        flood_values_edit(&t)->tx_fixed_nj = 10;
        flood_values_edit(&t)->rx_fixed_nj = 1;
        int64_t b0 = my_budget(seed, 0, 0, 20), b1 = my_budget(seed, 1, 0, 20);
        expect e;
        res_expect x;
        if (b0 < 10) { /* the source dies at its transmission */
            e = (expect){0, 0, 0, 0, 0, 0, 0, 0};
            x = (res_expect){0, 1, 0, 0};
            cases[0]++;
        } else if (b1 < 1) { /* node 1 cannot pay the copy */
            e = (expect){1, 0, 0, 0, 0, 0, 0, 1};
            x = (res_expect){0, 1, 0, 10};
            cases[1]++;
        } else if (b1 < 11) { /* it receives (a delivery) and dies at its relay at L */
            e = (expect){1, 1, 1, 1, 1, 0, 0, 1};
            x = (res_expect){0, 1, L1, 11};
            cases[2]++;
        } else { /* it relays at L; the source hears it if it has 1 nJ left */
            int src_pays = b0 >= 11;
            e = (expect){2, 1 + src_pays, 1, 1, 1, 0, L1, 2};
            x = (res_expect){0, src_pays ? 0 : 1, src_pays ? -1 : L1, 21 + src_pays};
            cases[3]++;
        }
        char name[32];
        snprintf(name, sizeof name, "two nodes seed %u", (unsigned)seed);
        check_resources(name, &t, e, x);
    }
    for (int i = 0; i < 4; i++)
        CHECK(cases[i] > 0); /* every branch ran */
}

static void test_resources_refused(void)
{
    /* Node resources run under every scheme, whose own keys are still checked (C >= 2). */
    scenario s = grid_scenario(1, 5);
    flood_values_edit(&s)->rx_capacity = 2;
    flood_values_edit(&s)->scheme = SCHEME_COUNTER;
    flood_values_edit(&s)->counter_threshold = 3;
    flood_oracle_result r;
    CHECK_EQ(flood_oracle_run(&s, &r), ORACLE_OK);
    flood_values_edit(&s)->counter_threshold = 1;
    CHECK_EQ(flood_oracle_run(&s, &r), ORACLE_ERR_INPUT);
    s = with_energy(grid_scenario(1, 5), -1, 1, 1);
    CHECK_EQ(flood_oracle_run(&s, &r), ORACLE_ERR_INPUT);
    s = with_energy(grid_scenario(1, 5), 5, 1, SCENARIO_MAX_ENERGY_NJ + 1);
    CHECK_EQ(flood_oracle_run(&s, &r), ORACLE_ERR_INPUT);
    /* without resources the members are absent */
    s = grid_scenario(1, 5);
    CHECK_EQ(flood_oracle_run(&s, &r), ORACLE_OK);
    CHECK(!r.has_capacity && !r.has_energy);
}

/* ------------------------------------------------------------------ executables */

static char tmpdir[256];

static void write_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
}

/* Runs ARGV[0] with ARGV, stdout and stderr to files in TMPDIR; returns the exit status
 * (-1 if it did not exit normally). */
static int run_prog(char *const argv[])
{
    char out[512], err[512];
    snprintf(out, sizeof out, "%s/stdout.txt", tmpdir);
    snprintf(err, sizeof err, "%s/stderr.txt", tmpdir);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0)
            _exit(127);
        dup2(fo, 1);
        dup2(fe, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

/* Whether the captured stdout (STREAM 1) or stderr (2) contains NEEDLE. */
static bool output_has(int stream, const char *needle)
{
    char path[512], text[8192];
    snprintf(path, sizeof path, "%s/%s", tmpdir, stream == 1 ? "stdout.txt" : "stderr.txt");
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return strstr(text, needle) != NULL;
}

static int compare2(const char *jc, const char *a, const char *b, const char *members)
{
    char pa[512], pb[512];
    snprintf(pa, sizeof pa, "%s/%s", tmpdir, a);
    snprintf(pb, sizeof pb, "%s/%s", tmpdir, b);
    char *argv[6];
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

#define RESULT_BODY                                                                          \
    "\"seed\": 1, \"nodes\": 5, \"generated\": 1, \"delivered\": 1, \"loss\": 0,"             \
    " \"transmissions\": 5, \"receptions\": 8, \"first_receptions\": 4, \"hops_sum\": 4,"     \
    " \"latency_sum_ns\": 3000000000, \"end_time_ns\": 4000000000, \"windows\": 5"

static void test_json_compare(const char *jc)
{
    write_file("a.json", "{\"model\": \"flood\", " RESULT_BODY "}\n");
    /* The same members in another order, other spacing, extra members of every kind
     * (nested, escaped strings, non-contract floats), and "flood" spelled with an escape. */
    write_file("b.json",
               "{\n \"wall_s\": 1.5e-3, \"devices\": [{\"name\": \"x\\\"y\\u00e9\\ud83d\\ude00\","
               " \"busy_s\": [0.1, -2, {}], \"ok\": true, \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\": 0}, null, false, []],\n"
               " \"windows\": 5, \"model\": \"fl\\u006fod\", \"seed\": 1, \"nodes\": 5,"
               " \"generated\": 1, \"delivered\": 1, \"loss\": 0, \"transmissions\": 5,"
               " \"receptions\": 8, \"first_receptions\": 4, \"hops_sum\": 4,"
               " \"latency_sum_ns\": 3000000000, \"end_time_ns\": 4000000000}");
    CHECK_EQ(compare2(jc, "a.json", "b.json", NULL), 0);
    CHECK_EQ(compare2(jc, "b.json", "a.json", NULL), 0);

    /* One differing counter, and a loss that is the same number in other text. */
    write_file("c.json", "{\"model\": \"flood\", " RESULT_BODY ", \"receptions\": 9}");
    CHECK_EQ(compare2(jc, "a.json", "c.json", NULL), 1); /* duplicate member: parse error */
    CHECK(output_has(2, "c.json"));
    write_file("c.json",
               "{\"model\": \"flood\", \"seed\": 1, \"nodes\": 5, \"generated\": 1, \"delivered\": 1,"
               " \"loss\": 0.0, \"transmissions\": 5, \"receptions\": 9, \"first_receptions\": 4,"
               " \"hops_sum\": 4, \"latency_sum_ns\": 3000000000, \"end_time_ns\": 4000000000,"
               " \"windows\": 5}");
    CHECK_EQ(compare2(jc, "a.json", "c.json", NULL), 1);
    CHECK(output_has(1, "receptions: A=8 B=9"));
    CHECK(output_has(1, "loss: A=0 B=0.0"));
    CHECK(!output_has(1, "first_receptions:"));
    /* A string against a number of the same text is a difference too. */
    write_file("d.json", "{\"model\": \"flood\", " RESULT_BODY ", \"x\": \"5\", \"y\": 5}");
    CHECK_EQ(compare2(jc, "d.json", "d.json", "x,y"), 0);
    write_file("e.json", "{\"x\": 5, \"y\": 5}");
    CHECK_EQ(compare2(jc, "d.json", "e.json", "x,y"), 1);
    CHECK(output_has(1, "x: A=\"5\" B=5"));
    /* --members: only the listed ones count. */
    CHECK_EQ(compare2(jc, "a.json", "c.json", "nodes,transmissions,windows"), 0);
    CHECK_EQ(compare2(jc, "a.json", "c.json", "nodes,receptions"), 1);

    /* A missing member fails, on either side. */
    write_file("m.json", "{\"model\": \"flood\", \"seed\": 1, \"nodes\": 5, \"generated\": 1,"
                         " \"delivered\": 1, \"loss\": 0, \"transmissions\": 5, \"receptions\": 8,"
                         " \"first_receptions\": 4, \"hops_sum\": 4, \"latency_sum_ns\": 3000000000,"
                         " \"end_time_ns\": 4000000000}");
    CHECK_EQ(compare2(jc, "a.json", "m.json", NULL), 1);
    CHECK(output_has(1, "windows: A=5 B=<missing>"));
    CHECK_EQ(compare2(jc, "m.json", "a.json", NULL), 1);
    CHECK(output_has(1, "windows: A=<missing> B=5"));

    /* Extension counters (docs/models.md) count as soon as either file has them. */
    write_file("x1.json", "{\"model\": \"flood\", " RESULT_BODY ", \"links\": 7, \"links_cut\": 2}");
    write_file("x2.json", "{\"model\": \"flood\", " RESULT_BODY ", \"links_cut\": 2, \"links\": 7}");
    write_file("x3.json", "{\"model\": \"flood\", " RESULT_BODY ", \"links\": 7, \"links_cut\": 3}");
    CHECK_EQ(compare2(jc, "x1.json", "x2.json", NULL), 0);
    CHECK_EQ(compare2(jc, "x1.json", "x3.json", NULL), 1);
    CHECK(output_has(1, "links_cut: A=2 B=3"));
    CHECK_EQ(compare2(jc, "x1.json", "a.json", NULL), 1);
    CHECK(output_has(1, "links: A=7 B=<missing>"));
    CHECK_EQ(compare2(jc, "a.json", "x1.json", NULL), 1);
    CHECK(output_has(1, "links_cut: A=<missing> B=2"));
    CHECK_EQ(compare2(jc, "a.json", "x1.json", "windows,nodes"), 0); /* unless listed out */

    /* Malformed files: exit 1 with the file name and the byte offset of the fault. */
    static const struct {
        const char *text;
        const char *where;
    } bad[] = {
        {"", "byte 0"},
        {"[1, 2]", "byte 0"},
        {"{\"a\": 1,}", "byte 8"},
        {"{\"a\": 01}", "byte 6"},
        {"{\"a\": 1.}", "byte 6"},
        {"{\"a\": -}", "byte 6"},
        {"{\"a\": 1e}", "byte 6"},
        {"{\"a\": \"x\\q\"}", "byte 8"},
        {"{\"a\": \"x\ty\"}", "byte 8"},
        {"{\"a\": \"\\ud800\"}", "byte 7"},
        {"{\"a\": \"abc", "byte 6"},
        {"{\"a\": [1, 2}", "byte 11"},
        {"{\"a\": tru}", "byte 6"},
        {"{\"a\" 1}", "byte 5"},
        {"{\"a\": 1} x", "byte 9"},
        {"{\"a\": 1", "byte 7"},
        {"{a: 1}", "byte 1"},
        {"{\"a\": \"x\xff\"}", "byte 8"},         /* not UTF-8 */
        {"{\"a\": \"x\xc0\xaf\"}", "byte 8"},     /* overlong '/' */
        {"{\"a\": \"x\xed\xa0\x80\"}", "byte 8"}, /* encoded surrogate */
        {"{\"a\": \"x\xe2\x82\"}", "byte 8"},     /* truncated sequence */
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        write_file("bad.json", bad[k].text);
        int rc = compare2(jc, "a.json", "bad.json", NULL);
        int before = failures;
        CHECK_EQ(rc, 1);
        CHECK(output_has(2, "bad.json"));
        CHECK(output_has(2, bad[k].where));
        if (failures != before)
            fprintf(stderr, "  (malformed case %zu: %s)\n", k, bad[k].text);
    }
    /* Deep nesting is refused cleanly, not by a crash. */
    {
        char deep[3000];
        size_t n = 0;
        n += (size_t)snprintf(deep, sizeof deep, "{\"a\": ");
        for (int k = 0; k < 1000; k++)
            deep[n++] = '[';
        for (int k = 0; k < 1000; k++)
            deep[n++] = ']';
        deep[n++] = '}';
        deep[n] = '\0';
        write_file("deep.json", deep);
        CHECK_EQ(compare2(jc, "a.json", "deep.json", NULL), 1);
        CHECK(output_has(2, "deep.json"));
    }
    /* A file that does not exist. */
    CHECK_EQ(compare2(jc, "a.json", "nonexistent.json", NULL), 1);
    CHECK(output_has(2, "nonexistent.json"));
}

#define FLOOD_CONTRACT                                                                       \
    "\"contract\": [\"model\", \"seed\", \"nodes\", \"generated\", \"delivered\", \"loss\","    \
    " \"transmissions\", \"receptions\", \"first_receptions\", \"hops_sum\","                  \
    " \"latency_sum_ns\", \"end_time_ns\", \"windows\""

/* Flood results that name their contract (clnetsim's) against results that do not (the
 * oracle's, ns-3's, older ones): the file without "contract" names the flood's legacy list,
 * which the other's list must equal, and the members are compared as between two such files. */
static void test_json_compare_flood_contract(const char *jc)
{
    write_file("old.json", "{\"model\": \"flood\", " RESULT_BODY "}");
    write_file("new.json", "{\"model\": \"flood\", " RESULT_BODY ", " FLOOD_CONTRACT "],"
                           " \"wall_s\": 0.5}");
    CHECK_EQ(compare2(jc, "new.json", "old.json", NULL), 0);
    CHECK_EQ(compare2(jc, "old.json", "new.json", NULL), 0);
    CHECK_EQ(compare2(jc, "new.json", "new.json", NULL), 0);

    /* a member that differs: reported as between two legacy files, "contract" agreeing */
    write_file("new2.json", "{\"model\": \"flood\", \"receptions\": 9, \"seed\": 1, \"nodes\": 5,"
                            " \"generated\": 1, \"delivered\": 1, \"loss\": 0,"
                            " \"transmissions\": 5, \"first_receptions\": 4, \"hops_sum\": 4,"
                            " \"latency_sum_ns\": 3000000000, \"end_time_ns\": 4000000000,"
                            " \"windows\": 5, " FLOOD_CONTRACT "]}");
    CHECK_EQ(compare2(jc, "old.json", "new2.json", NULL), 1);
    CHECK(output_has(1, "receptions: A=8 B=9"));
    CHECK(!output_has(1, "contract:"));
    CHECK(!output_has(1, "windows:"));

    /* the extensions' members: optional in the legacy list, so a counter in the named
     * contract and missing from the other file is a missing member, not a list mismatch */
    write_file("ext.json", "{\"model\": \"flood\", " RESULT_BODY ", \"dead_nodes\": 2, "
                           FLOOD_CONTRACT ", \"dead_nodes\"]}");
    write_file("ext_old.json", "{\"model\": \"flood\", " RESULT_BODY ", \"dead_nodes\": 2}");
    CHECK_EQ(compare2(jc, "ext.json", "ext_old.json", NULL), 0);
    CHECK_EQ(compare2(jc, "ext.json", "old.json", NULL), 1);
    CHECK(output_has(1, "dead_nodes: A=2 B=<missing>"));
    CHECK(!output_has(1, "contract:"));
    CHECK_EQ(compare2(jc, "new.json", "ext_old.json", NULL), 1);
    CHECK(output_has(1, "contract: A=[\"model\""));
    CHECK(output_has(1, "B=<missing>"));

    /* a named contract that is not the flood's list: "contract" differs, and only its
     * members are compared */
    write_file("short.json", "{\"model\": \"flood\", " RESULT_BODY ", \"contract\": [\"model\","
                             " \"seed\", \"nodes\"]}");
    CHECK_EQ(compare2(jc, "short.json", "old.json", NULL), 1);
    CHECK(output_has(1, "contract: A=[\"model\", \"seed\", \"nodes\"] B=<missing>"));
    CHECK(!output_has(1, "receptions:"));
}

static const char line_ini[] =
    "[simulation]\nmodel = flood\nseed = 1\nduration = 0\n"
    "[topology]\nplacement = grid\nrows = 1\ncols = 5\nspacing = 100\n"
    "[connectivity]\nmodel = udg\nrange = 100\n"
    "[mobility]\nmodel = static\n"
    "[traffic]\nsource = 0\ndestination = -1\npackets = 1\ninterval = 1\nstart = 0\nsize = 1000\n"
    "[flood]\nrelay_delay = 1\ndrop_probability = 0\nttl = 0\n";

/* The whole text of the file NAME in TMPDIR equals WANT. */
static bool file_is(const char *name, const char *want)
{
    char path[512], buf[4096];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    if (strcmp(buf, want) != 0) {
        fprintf(stderr, "%s holds:\n%s\nexpected:\n%s\n", name, buf, want);
        return false;
    }
    return true;
}

static bool file_exists(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return access(path, F_OK) == 0;
}

/* Flows through the executable: the JSON text (deliverable and flows after windows, and
 * after links and links_cut when capped) and the per-packet CSV. */
static void test_oracle_exe_flows(const char *jc, const char *fo)
{
    char ini[512], out[512], csv[512];
    snprintf(ini, sizeof ini, "%s/line.ini", tmpdir);
    snprintf(out, sizeof out, "%s/out.json", tmpdir);
    snprintf(csv, sizeof csv, "%s/out.csv", tmpdir);

    /* [traffic] alone: its flow is "traffic", packets k = 0 .. P - 1 that are created. Two
     * packets 10 s apart, duration 10 s: packet 0 delivered at hop 4 after 3 s; packet 1 (at
     * 10 s) never created, so not listed (though generated counts it, docs/model.md). */
    char *argv1[] = {(char *)fo, ini, "-s", "traffic.packets=2", "-s", "traffic.interval=10",
                     "-s", "simulation.duration=10", "--json", out, "--packets", csv, NULL};
    CHECK_EQ(run_prog(argv1), 0);
    CHECK(file_is("out.csv", "flow,packet,source,created_ns,delivered,latency_ns,hops\n"
                             "traffic,0,0,0,1,3000000000,4\n"));

    /* Two flows on the line 0-1-2-3-4 with ttl 2 (a node hearing hop >= 2 does not relay):
     * "bg" broadcasts from 0 and 1 at 0; "u" sends one packet from 4 to 0 at 0.5 s. Ids: 0
     * (bg, 0), 1 (bg, 1), 2 (u, 4).
     * - packet 0: 0 sends (1 hears, first, hop 1); 1 sends at 1 s (0 dup, 2 first, hop 2,
     *   no relay). 2 transmissions, 3 receptions, deliveries 1 (h 1, 0 s), 2 (h 2, 1 s).
     * - packet 1: 1 sends (0, 2 first, hop 1); 0 and 2 send at 1 s (1 dup twice, 3 first at
     *   hop 2). 3 transmissions, 5 receptions, deliveries 0, 2 (h 1, 0 s), 3 (h 2, 1 s).
     * - packet 2: 4 sends at 0.5 s (3 first, hop 1); 3 at 1.5 s (4 dup, 2 first at hop 2).
     *   2 transmissions, 3 receptions, 0 never reached.
     * bg: 2 generated, deliverable 2 x 4, delivered 5, loss 0.375, hops 3 + 4, latency 2 s;
     * u: 1, 1, 0, loss 1. Totals: 3 generated, deliverable 9, delivered 5, loss 1 - 5/9;
     * transmissions 7, receptions 11, first receptions 7, end 1.5 s: 2 windows. */
    static const char flows_ini[] = "[traffic.flow bg]\nsource = 0-1\ndestination = broadcast\n"
                                    "[traffic.flow u]\nsource = 4\ndestination = 0\nstart = 0.5\n";
    char text[2048];
    snprintf(text, sizeof text, "%s%s", line_ini, flows_ini);
    write_file("flows.ini", text);
    char fini[512];
    snprintf(fini, sizeof fini, "%s/flows.ini", tmpdir);
    static const char head[] =
        "{\n  \"model\": \"flood\",\n  \"seed\": 1,\n  \"nodes\": 5,\n  \"generated\": 3,\n"
        "  \"delivered\": 5,\n  \"loss\": 0.44444444444444442,\n  \"transmissions\": 7,\n"
        "  \"receptions\": 11,\n  \"first_receptions\": 7,\n  \"hops_sum\": 7,\n"
        "  \"latency_sum_ns\": 2000000000,\n  \"end_time_ns\": 1500000000,\n"
        "  \"windows\": 2,\n";
    static const char tail[] =
        "  \"deliverable\": 9,\n  \"flows\": [\n"
        "    {\"name\": \"bg\", \"generated\": 2, \"deliverable\": 8, \"delivered\": 5, "
        "\"loss\": 0.375, \"hops_sum\": 7, \"latency_sum_ns\": 2000000000},\n"
        "    {\"name\": \"u\", \"generated\": 1, \"deliverable\": 1, \"delivered\": 0, "
        "\"loss\": 1, \"hops_sum\": 0, \"latency_sum_ns\": 0}\n  ],\n";
    /* the last member names the others, as clnetsim's JSON does */
    static const char contract[] =
        "  \"contract\": [\"model\", \"seed\", \"nodes\", \"generated\", \"delivered\", "
        "\"loss\", \"transmissions\", \"receptions\", \"first_receptions\", \"hops_sum\", "
        "\"latency_sum_ns\", \"end_time_ns\", \"windows\", %s\"deliverable\", \"flows\"]\n}\n";
    char list[256];
    char *argv2[] = {(char *)fo, fini, "-s", "flood.ttl=2", "--json", out, "--packets", csv, NULL};
    CHECK_EQ(run_prog(argv2), 0);
    snprintf(list, sizeof list, contract, "");
    snprintf(text, sizeof text, "%s%s%s", head, tail, list);
    CHECK(file_is("out.json", text));
    write_file("want.json", text);
    CHECK_EQ(compare2(jc, "out.json", "want.json", NULL), 0); /* valid JSON too */
    CHECK(file_is("out.csv", "flow,packet,source,created_ns,delivered,latency_ns,hops\n"
                             "bg,0,0,0,2,1000000000,2\n"
                             "bg,1,1,0,3,1000000000,2\n"
                             "u,2,4,500000000,0,,\n"));
    /* Capped (max_neighbors 2 cuts nothing on a line: 4 links): links, links_cut, then the
     * flows. */
    char *argv3[] = {(char *)fo, fini, "-s", "flood.ttl=2", "-s", "connectivity.max_neighbors=2",
                     "--json", out, NULL};
    CHECK_EQ(run_prog(argv3), 0);
    snprintf(list, sizeof list, contract, "\"links\", \"links_cut\", ");
    snprintf(text, sizeof text, "%s  \"links\": 4,\n  \"links_cut\": 0,\n%s%s", head, tail,
             list);
    CHECK(file_is("out.json", text));
    write_file("want.json", text);
    CHECK_EQ(compare2(jc, "out.json", "want.json", NULL), 0);

    /* A CSV that cannot be written: exit 1 and no file left, not even a temporary one. */
    char bad[512];
    snprintf(bad, sizeof bad, "%s/no_such_dir/p.csv", tmpdir);
    char *argv4[] = {(char *)fo, fini, "--json", out, "--packets", bad, NULL};
    CHECK_EQ(run_prog(argv4), 1);
    CHECK(output_has(2, "p.csv"));
    CHECK(!file_exists("no_such_dir"));
}

static void test_oracle_exe(const char *jc, const char *fo)
{
    char ini[512], out[512];
    snprintf(ini, sizeof ini, "%s/line.ini", tmpdir);
    snprintf(out, sizeof out, "%s/out.json", tmpdir);
    write_file("line.ini", line_ini);
    write_file("want.json", "{\"model\": \"flood\", " RESULT_BODY "}");
    char *argv1[] = {(char *)fo, ini, "--json", out, NULL};
    CHECK_EQ(run_prog(argv1), 0);
    CHECK_EQ(compare2(jc, "out.json", "want.json", NULL), 0);
    /* -s overrides: ttl 2 (see "line ttl 2") -> loss 1. */
    write_file("want2.json",
               "{\"model\": \"flood\", \"seed\": 1, \"nodes\": 5, \"generated\": 1,"
               " \"delivered\": 0, \"loss\": 1, \"transmissions\": 2, \"receptions\": 3,"
               " \"first_receptions\": 2, \"hops_sum\": 0, \"latency_sum_ns\": 0,"
               " \"end_time_ns\": 1000000000, \"windows\": 2}");
    char *argv2[] = {(char *)fo, ini, "-s", "flood.ttl=2", "--json", out, NULL};
    CHECK_EQ(run_prog(argv2), 0);
    CHECK_EQ(compare2(jc, "out.json", "want2.json", NULL), 0);
    /* Two packets 10 s apart and a 10 s duration: the first is delivered, the second is
     * never sent (created at the duration): loss 1 - 1/2 = 0.5. */
    char *argv3[] = {(char *)fo, ini, "-s", "traffic.packets=2", "-s", "traffic.interval=10",
                     "-s", "simulation.duration=10", "--json", out, NULL};
    CHECK_EQ(run_prog(argv3), 0);
    write_file("want3.json", "{\"generated\": 2, \"delivered\": 1, \"loss\": 0.5}");
    CHECK_EQ(compare2(jc, "out.json", "want3.json", "generated,delivered,loss"), 0);
    /* A bad override is an input error (2). */
    char *argv4[] = {(char *)fo, ini, "-s", "flood.no_such_key=1", "--json", out, NULL};
    CHECK_EQ(run_prog(argv4), 2);
    test_oracle_exe_flows(jc, fo);
}

/* ------------------------------------------------------------------ main */

static void cleanup_tmp(void)
{
    static const char *const names[] = {
        "a.json", "b.json", "c.json", "d.json", "e.json", "m.json", "bad.json", "deep.json",
        "line.ini", "out.json", "want.json", "want2.json", "want3.json", "stdout.txt",
        "flows.ini", "out.csv", "x1.json", "x2.json", "x3.json",
        "stderr.txt",
    };
    char path[512];
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[k]);
        unlink(path);
    }
    rmdir(tmpdir);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: oracle_selfcheck JSON_COMPARE [FLOOD_ORACLE]\n");
        return 2;
    }
    test_philox();
    test_isqrt();
    test_neighbours();
    test_cap_by_hand();
    test_flood_by_hand();
    test_areas_by_hand();
    test_flood_random_drop();
    test_mobility_by_hand();
    test_mobile_flood();
    test_lg();
    test_exponential();
    test_flow_departures();
    test_flow_ties();
    test_broadcast_by_hand();
    test_flow_as_legacy();
    test_engine_departure_laws();
    test_schemes_no_delay();
    test_schemes_delays();
    test_schemes_keys();
    test_schemes_cross();
    test_capacity_by_hand();
    test_energy_by_hand();
    test_schemes_with_resources_by_hand();
    test_energy_uniform();
    test_resources_refused();

    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/oracle_selfcheck.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_json_compare(argv[1]);
    test_json_compare_flood_contract(argv[1]);
    if (argc == 3)
        test_oracle_exe(argv[1], argv[2]);
    cleanup_tmp();

    printf("oracle_selfcheck: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
