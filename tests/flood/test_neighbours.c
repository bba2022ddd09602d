/* The device's cell lists give exactly the brute-force neighbour sets, and the device's
 * mobility gives exactly the oracle's positions, for grids, 2-D and 3-D uniform placements,
 * and after mobility steps, with one partition or several (their lists together). Activity
 * areas: the host-built lists and the device's placement equal the oracle's own. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "device/device.h"
#include "engine/engine.h"
#include "engine/partition.h"
#include "oracle/flood_oracle.h"
#include "models/flood/flood.h"

static int failures;

#define CHECK(cond, ...)                                                                     \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                             \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fputc('\n', stderr);                                                             \
            failures++;                                                                      \
        }                                                                                    \
    } while (0)

static int compare_lists(const char *label, struct model_state *m, const scenario *sc,
                         int64_t (*pos)[3], int64_t n)
{
    cn_error err = {0};
    uint32_t *off = NULL, *list = NULL;
    if (flood_neighbour_lists(m, &off, &list, &err) != 0) {
        CHECK(0, "%s: neighbour lists: %s", label, err.msg);
        return -1;
    }
    int64_t *ooff = NULL;
    int32_t *olist = NULL;
    if (oracle_neighbours((const int64_t(*)[3])pos, n, flood_values_of(sc)->range_mm, &ooff, &olist) != 0 ||
        oracle_area_links(sc, n, &ooff, &olist) != 0 ||
        (flood_values_of(sc)->max_neighbors > 0 &&
         oracle_cap_filter((const int64_t(*)[3])pos, n, flood_values_of(sc)->max_neighbors, ooff, olist, NULL,
                           NULL) != 0)) {
        CHECK(0, "%s: oracle neighbours failed", label);
        free(off);
        free(list);
        free(ooff);
        free(olist);
        return -1;
    }
    int64_t links = 0, bad = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t a = off[i], b = off[i + 1], oa = ooff[i], ob = ooff[i + 1];
        links += b - a;
        int same = (b - a) == (ob - oa);
        for (int64_t q = 0; same && q < b - a; q++)
            same = (int64_t)list[a + q] == (int64_t)olist[oa + q];
        if (!same && bad++ < 5)
            CHECK(0, "%s: node %lld has %lld neighbours on the device, %lld by brute force",
                  label, (long long)i, (long long)(b - a), (long long)(ob - oa));
    }
    CHECK(bad == 0, "%s: %lld nodes with wrong neighbour lists", label, (long long)bad);
    /* the cap holds on the device's lists themselves, not only relative to the oracle */
    for (int64_t i = 0; flood_values_of(sc)->max_neighbors > 0 && i < n; i++)
        if ((int64_t)(off[i + 1] - off[i]) > flood_values_of(sc)->max_neighbors && bad++ < 5)
            CHECK(0, "%s: node %lld keeps %lld neighbours, more than max_neighbors = %lld", label,
                  (long long)i, (long long)(off[i + 1] - off[i]), (long long)flood_values_of(sc)->max_neighbors);
    printf("%s: %lld nodes, %lld links, %s\n", label, (long long)n, (long long)links,
           bad ? "MISMATCH" : "equal to brute force");
    free(off);
    free(list);
    free(ooff);
    free(olist);
    return 0;
}

static void check_partitioned(const char *name, const char *ini, device_ctx *dev, int steps,
                              uint32_t parts)
{
    char label[96];
    snprintf(label, sizeof label, "%s, %u partition%s", name, parts, parts > 1 ? "s" : "");
    cn_error err = {0};
    scenario sc;
    if (config_load_string(label, ini, NULL, 0, &sc, &err) != 0) {
        CHECK(0, "%s: config: %s", label, err.msg);
        return;
    }
    sc.partitions = parts;
    struct model_state *m = NULL;
    device_ctx *devs[1] = {dev};
    if (flood_model_ops.create(&m, &sc, devs, 1, &err) != 0) {
        CHECK(0, "%s: create: %s", label, err.msg);
        flood_model_ops.destroy(m);
        return;
    }
    oracle_mobility om;
    if (oracle_mobility_init(&om, &sc) != 0) {
        CHECK(0, "%s: oracle mobility init failed", label);
        flood_model_ops.destroy(m);
        return;
    }
    int64_t n = om.n;
    int64_t(*pos)[3] = malloc((size_t)n * sizeof *pos);
    for (int w = 0; pos && w <= steps; w++) {
        if (w > 0) {
            if (flood_step_mobility(m, w, &err) != 0) {
                CHECK(0, "%s: mobility step %d: %s", label, w, err.msg);
                break;
            }
            oracle_mobility_advance(&sc, &om, w);
        }
        if (flood_read_positions(m, pos, &err) != 0) {
            CHECK(0, "%s: positions: %s", label, err.msg);
            break;
        }
        int64_t moved_wrong = 0;
        for (int64_t i = 0; i < n; i++)
            if (memcmp(pos[i], om.pos[i], sizeof pos[i]) != 0 && moved_wrong++ < 3)
                CHECK(0, "%s: window %d node %lld at (%lld,%lld,%lld), oracle (%lld,%lld,%lld)",
                      label, w, (long long)i, (long long)pos[i][0], (long long)pos[i][1],
                      (long long)pos[i][2], (long long)om.pos[i][0], (long long)om.pos[i][1],
                      (long long)om.pos[i][2]);
        char step_label[128];
        snprintf(step_label, sizeof step_label, "%s, window %d", label, w);
        if (w == 0 || w == steps || w % 7 == 0)
            compare_lists(step_label, m, &sc, pos, n);
    }
    free(pos);
    oracle_mobility_free(&om);
    flood_model_ops.destroy(m);
}

/* One partition, then PARTS: every partition's lists hold only its receivers, and their union
 * for each transmitter must be exactly the single-partition lists, nodes at tile borders
 * included. */
static void check_scenario(const char *name, const char *ini, device_ctx *dev, int steps,
                           uint32_t parts)
{
    check_partitioned(name, ini, dev, steps, 1);
    check_partitioned(name, ini, dev, steps, parts);
}

/* The tiles of host/engine/partition.c: equal node counts (within one), every node in one
 * tile, and tiles that are spatial: on a grid split into PX strips, strip s lies left of
 * strip s + 1. */
static void check_tiles(uint32_t rows, uint32_t cols, uint32_t parts, uint32_t want_strips)
{
    uint32_t n = rows * cols;
    int64_t *xy = malloc((size_t)n * 2 * sizeof *xy);
    uint16_t *part = malloc((size_t)n * sizeof *part);
    uint32_t *count = calloc(parts, sizeof *count);
    int64_t *xmin = malloc(parts * sizeof *xmin), *xmax = malloc(parts * sizeof *xmax);
    cn_error err = {0};
    for (uint32_t i = 0; i < n; i++) {
        xy[2 * i] = (int64_t)(i % cols) * 1000;
        xy[2 * i + 1] = (int64_t)(i / cols) * 1000;
    }
    for (uint32_t p = 0; p < parts; p++)
        xmin[p] = INT64_MAX, xmax[p] = INT64_MIN;
    if (partition_tiles(xy, n, parts, part, &err) != 0) {
        fprintf(stderr, "FAIL: tiles %ux%u into %u: %s\n", rows, cols, parts, err.msg);
        failures++;
    } else {
        for (uint32_t i = 0; i < n; i++) {
            count[part[i]]++;
            xmin[part[i]] = xy[2 * i] < xmin[part[i]] ? xy[2 * i] : xmin[part[i]];
            xmax[part[i]] = xy[2 * i] > xmax[part[i]] ? xy[2 * i] : xmax[part[i]];
        }
        for (uint32_t p = 0; p < parts; p++)
            if (count[p] < n / parts || count[p] > n / parts + 1) {
                fprintf(stderr, "FAIL: tiles %ux%u into %u: partition %u has %u nodes\n", rows,
                        cols, parts, p, count[p]);
                failures++;
            }
        uint32_t py = parts / want_strips;
        for (uint32_t p = 0; p + py < parts; p++)
            if (xmax[p] > xmin[p + py]) {
                fprintf(stderr, "FAIL: tiles %ux%u into %u: strip of partition %u overlaps "
                        "the next strip (x %lld > %lld)\n", rows, cols, parts, p,
                        (long long)xmax[p], (long long)xmin[p + py]);
                failures++;
            }
    }
    free(xy), free(part), free(count), free(xmin), free(xmax);
}

/* The cuts of mobile tiles: N distinct pseudo-random points in a W x H area split into PARTS
 * tiles hold PARTS equal counts (cuts at quantiles; within one, per strip and tile), each point
 * lies in the box of the tile partition_cut_tile gives it and in no other tile's box. */
static void check_cuts(uint32_t n, int64_t w, int64_t h, uint32_t parts)
{
    int64_t *xy = malloc((size_t)n * 2 * sizeof *xy);
    uint32_t *count = calloc(parts, sizeof *count);
    partition_cuts c;
    cn_error err = {0};
    uint64_t state = 0x9e3779b97f4a7c15ull;
    for (uint32_t i = 0; i < 2 * n; i++) { /* xorshift: distinct coordinates in practice */
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        xy[i] = (int64_t)(state % (uint64_t)(i % 2 ? h : w));
    }
    if (partition_make_cuts(xy, n, parts, &c, &err) != 0) {
        fprintf(stderr, "FAIL: cuts of %u points into %u: %s\n", n, parts, err.msg);
        failures++;
        free(xy), free(count);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t t = partition_cut_tile(&c, xy[2 * i], xy[2 * i + 1]);
        count[t]++;
        for (uint32_t q = 0; q < parts; q++) {
            int64_t lo[2], hi[2];
            partition_cut_box(&c, q, lo, hi);
            int inside = xy[2 * i] >= lo[0] && xy[2 * i] <= hi[0] && xy[2 * i + 1] >= lo[1] &&
                         xy[2 * i + 1] <= hi[1];
            if (inside != (q == t)) {
                fprintf(stderr, "FAIL: cuts into %u: point %u (tile %u) %s the box of tile %u\n",
                        parts, i, t, inside ? "inside" : "outside", q);
                failures++;
                q = parts, i = n;
            }
        }
    }
    /* counts: strips of n / px (+- 1 from ties), tiles of a strip's count / py */
    uint32_t slack = 2;
    for (uint32_t q = 0; q < parts; q++)
        if (count[q] + slack < n / parts || count[q] > n / parts + slack) {
            fprintf(stderr, "FAIL: cuts of %u points into %u: tile %u has %u\n", n, parts, q,
                    count[q]);
            failures++;
        }
    if (c.px * c.py != parts) {
        fprintf(stderr, "FAIL: cuts into %u: %u x %u strips\n", parts, c.px, c.py);
        failures++;
    }
    partition_cuts_free(&c);
    free(xy), free(count);
}

int main(void)
{
    check_cuts(3000, 400000, 400000, 1);
    check_cuts(3000, 400000, 400000, 2);
    check_cuts(3000, 400000, 400000, 7);
    check_cuts(5000, 800000, 200000, 16);
    check_cuts(4096, 1000000, 1000000, 64);
    check_tiles(30, 40, 1, 1);
    check_tiles(30, 40, 4, 2);
    check_tiles(30, 40, 7, 7);   /* a prime count: strips along the longer side */
    check_tiles(10, 90, 9, 9);
    check_tiles(33, 33, 16, 4);
    cn_error err = {0};
    device_list list = {0};
    if (device_enumerate(&list, &err) != 0 || list.count == 0) {
        fprintf(stderr, "FAIL: no OpenCL device: %s\n", err.msg);
        return 1;
    }
    int idx[4];
    if (device_select(&list, "cpu", idx, 4, &err) <= 0) {
        fprintf(stderr, "FAIL: no CPU device: %s\n", err.msg);
        return 1;
    }
    device_ctx dev;
    memset(&dev, 0, sizeof dev);
    if (device_open(&dev, &list.items[idx[0]], &err) != 0) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        return 1;
    }
    check_scenario("grid 30x40, range = spacing",
                   "[topology]\nplacement = grid\nrows = 30\ncols = 40\nspacing = 100\n"
                   "[connectivity]\nrange = 100\n", &dev, 0, 7);
    check_scenario("grid 25x25, range 2.5 spacings",
                   "[topology]\nplacement = grid\nrows = 25\ncols = 25\nspacing = 10\n"
                   "[connectivity]\nrange = 25\n", &dev, 0, 16);
    check_scenario("uniform 2-D",
                   "[simulation]\nseed = 11\n[topology]\nplacement = uniform\nnodes = 1500\n"
                   "width = 2000\nheight = 1200\ndepth = 0\n[connectivity]\nrange = 90\n",
                   &dev, 0, 4);
    check_scenario("uniform 3-D",
                   "[simulation]\nseed = 12\n[topology]\nplacement = uniform\nnodes = 1500\n"
                   "width = 800\nheight = 900\ndepth = 300\n[connectivity]\nrange = 100\n",
                   &dev, 0, 5);
    /* 5000 cells of one range would exceed 2 N: the cell side doubles, neighbours stay exact */
    check_scenario("long strip, cells wider than the range",
                   "[simulation]\nseed = 13\n[topology]\nplacement = uniform\nnodes = 2000\n"
                   "width = 100000\nheight = 10\ndepth = 0\n[connectivity]\nrange = 20\n",
                   &dev, 0, 3);
    check_scenario("rwp 3-D after mobility steps",
                   "[simulation]\nseed = 5\n[topology]\nplacement = uniform\nnodes = 800\n"
                   "width = 600\nheight = 600\ndepth = 100\n[connectivity]\nrange = 60\n"
                   "[mobility]\nmodel = rwp\nspeed_min = 1\nspeed_max = 40\npause_min = 0\n"
                   "pause_max = 2\n[flood]\nrelay_delay = 1\n", &dev, 30, 6);
    check_scenario("rwp on a grid, fast nodes reaching waypoints",
                   "[simulation]\nseed = 3\n[topology]\nplacement = grid\nrows = 20\ncols = 20\n"
                   "spacing = 10\n[connectivity]\nrange = 10\n[mobility]\nmodel = rwp\n"
                   "speed_min = 20\nspeed_max = 150\npause_min = 0.1\npause_max = 1.7\n"
                   "[flood]\nrelay_delay = 0.5\n", &dev, 40, 2);
    /* every model in groups of one scenario, static nodes between them: each node moves by
     * its group's rules (move_groups); then a single moving run (its model's kernel, launched
     * from the run's first id) */
    const char *groups =
        "[simulation]\nseed = 9\n[topology]\nplacement = uniform\nnodes = 1000\nwidth = 700\n"
        "height = 500\ndepth = 120\n[connectivity]\nrange = 60\n[mobility]\nmodel = static\n"
        "speed_min = 1\nspeed_max = 30\n[mobility.group w]\nnodes = 100-299\n"
        "model = random_walk\nboundary = wrap\n[mobility.group l]\nnodes = 300-399, 950-999\n"
        "model = linear\nboundary = slide\n[mobility.group r]\nnodes = 450-599\nmodel = rwp\n"
        "pause_max = 2\n[mobility.group d]\nnodes = 600-749\nmodel = random_direction\n"
        "travel_min = 1\ntravel_max = 4\npause_max = 1\n[mobility.group g]\nnodes = 750-899\n"
        "model = grid_walk\nstreet_spacing = 50\n[flood]\nrelay_delay = 1\n";
    check_scenario("mobility groups of every model", groups, &dev, 25, 5);
    check_scenario("one moving group between static nodes",
                   "[simulation]\nseed = 4\n[topology]\nplacement = uniform\nnodes = 600\n"
                   "width = 500\nheight = 500\ndepth = 0\n[connectivity]\nrange = 60\n"
                   "[mobility.group d]\nnodes = 211-407\nmodel = random_direction\n"
                   "speed_max = 25\ntravel_min = 1\ntravel_max = 3\n[flood]\nrelay_delay = 1\n",
                   &dev, 25, 3);
    /* max_neighbors: the capped lists equal the brute-force cap, ties of distance (a grid)
     * broken by id, across partitions and after mobility steps */
    check_scenario("grid 25x25, 2.5 spacings, max_neighbors 4",
                   "[topology]\nplacement = grid\nrows = 25\ncols = 25\nspacing = 10\n"
                   "[connectivity]\nrange = 25\nmax_neighbors = 4\n", &dev, 0, 6);
    check_scenario("uniform 3-D, max_neighbors 1",
                   "[simulation]\nseed = 21\n[topology]\nplacement = uniform\nnodes = 1500\n"
                   "width = 800\nheight = 900\ndepth = 300\n[connectivity]\nrange = 100\n"
                   "max_neighbors = 1\n", &dev, 0, 5);
    check_scenario("rwp after mobility steps, max_neighbors 8",
                   "[simulation]\nseed = 8\n[topology]\nplacement = uniform\nnodes = 800\n"
                   "width = 600\nheight = 600\ndepth = 100\n[connectivity]\nrange = 80\n"
                   "max_neighbors = 8\n[mobility]\nmodel = rwp\nspeed_min = 1\n"
                   "speed_max = 40\n[flood]\nrelay_delay = 1\n", &dev, 14, 4);
    /* activity areas (one partition): udg inside each area, the chain link and the border
     * links drawn; one row (the chain link is the border pair), one column (a node linked
     * to both neighbouring areas), a range of 2.5 spacings, every border pair or none */
    check_partitioned("areas 6 x 7x9, border_links 0.5",
                      "[simulation]\nseed = 3\n[topology]\nplacement = areas\nrows = 7\n"
                      "cols = 9\nspacing = 100\n[areas]\ncount = 6\nborder_links = 0.5\n"
                      "[connectivity]\nrange = 100\n", &dev, 0, 1);
    check_partitioned("areas 3 x 1x5, border_links 1",
                      "[topology]\nplacement = areas\nrows = 1\ncols = 5\nspacing = 100\n"
                      "[areas]\ncount = 3\nborder_links = 1\n[connectivity]\nrange = 100\n",
                      &dev, 0, 1);
    check_partitioned("areas 5 x 6x1, border_links 0.5",
                      "[simulation]\nseed = 7\n[topology]\nplacement = areas\nrows = 6\n"
                      "cols = 1\nspacing = 100\n[areas]\ncount = 5\nborder_links = 0.5\n"
                      "[connectivity]\nrange = 100\n", &dev, 0, 1);
    check_partitioned("areas 4 x 12x10, range 2.5 spacings, border_links 0.2",
                      "[simulation]\nseed = 5\n[topology]\nplacement = areas\nrows = 12\n"
                      "cols = 10\nspacing = 10\n[areas]\ncount = 4\nborder_links = 0.2\n"
                      "[connectivity]\nrange = 25\n", &dev, 0, 1);
    check_partitioned("areas 2 x 9x9, border_links 0",
                      "[topology]\nplacement = areas\nrows = 9\ncols = 9\nspacing = 100\n"
                      "[areas]\ncount = 2\nborder_links = 0\n[connectivity]\nrange = 150\n",
                      &dev, 0, 1);
    device_close(&dev);
    device_list_free(&list);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("all neighbour and mobility checks passed\n");
    return 0;
}
