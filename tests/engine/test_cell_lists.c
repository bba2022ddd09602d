/* The one-group cell-list build (cells.build_one_group, host/engine/cell_lists.c) against the
 * multi-kernel build (count, prefix sum, scatter) on a PoCL device: the same cell of every
 * node, the same cell starts and the same set of nodes in every cell, on random positions,
 * with and without the group filter, for node counts from 1 to some thousands, grids of more
 * cells than the group has items, every node in one cell, and groups of a few items; builds
 * repeated on the same lists (the counts each build leaves behind), and the global counts left
 * at zero. Also the choice itself: the hook's bounds, its bad values, and the multi-kernel
 * build where the cells' counts do not fit the device's local memory.
 * Ranked builds (cells.scatter_ranked from the ranks of cells.rank_nodes) against the
 * multi-kernel build likewise: random positions, every node in one cell, more cells than
 * items, groups of 2 to 256 items, positions moved between builds (the counts' halves
 * alternate), two rank launches before one build (the last one counts), the check hook's
 * comparison, and the hook's values and the local-memory bound. CLNETSIM_TEST_BREAK_KERNEL=
 * cells.rank_nodes@0 builds the ranks wrong (node 0 in the next cell): the ranked checks
 * must then fail. Fixed cells (the lists written by the rankings themselves) against counted
 * builds, from one node to thousands, capacities of 1 to the default, and their capacity's
 * choice and hook. Skipped (77) without a PoCL device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"
#include "common/error.h"
#include "device/device.h"
#include "engine/cell_lists.h"

#define HOOK "CLNETSIM_TEST_CELLS_ONE_GROUP"
#define RANKED_HOOK "CLNETSIM_TEST_CELLS_RANKED"
#define GROUPS 5 /* node groups of the filter: groups 1 and 3 are left out */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t next_random(void)
{
    /* xorshift64*: any fixed sequence serves */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

typedef struct lists_read {
    uint32_t *cell_of, *start, *nodes, *count;
} lists_read;

static void lists_read_free(lists_read *r)
{
    free(r->cell_of);
    free(r->start);
    free(r->nodes);
    free(r->count);
    memset(r, 0, sizeof *r);
}

static int read_lists(device_ctx *dev, cell_lists *c, lists_read *r, cn_error *err)
{
    uint32_t n = c->n, cells = c->grid.n_cells;
    r->cell_of = malloc((size_t)n * 4);
    r->start = malloc(((size_t)cells + 1) * 4);
    r->nodes = malloc((size_t)n * 4);
    r->count = malloc((size_t)cells * 4);
    if (!r->cell_of || !r->start || !r->nodes || !r->count)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    int rc = dbuf_read(dev, &c->cell_of, 0, (size_t)n * 4, r->cell_of, 1, err);
    if (!rc)
        rc = dbuf_read(dev, &c->start, 0, ((size_t)cells + 1) * 4, r->start, 1, err);
    if (!rc)
        rc = dbuf_read(dev, &c->nodes, 0, (size_t)n * 4, r->nodes, 1, err);
    if (!rc)
        rc = dbuf_read(dev, &c->count, 0, (size_t)cells * 4, r->count, 1, err);
    return rc;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Compares the lists MULTI and ONE as built (WHAT names ONE's build in messages); returns the
 * number of differences found. */
static int compare_built(const char *label, const char *what, device_ctx *dev, cell_lists *multi,
                         cell_lists *one)
{
    cn_error err = {0};
    lists_read a = {0}, o = {0};
    int rc = read_lists(dev, multi, &a, &err);
    if (!rc)
        rc = read_lists(dev, one, &o, &err);
    if (rc) {
        fprintf(stderr, "%s: %s\n", label, err.msg);
        CHECK(rc == 0);
        lists_read_free(&a);
        lists_read_free(&o);
        return 1;
    }
    uint32_t n = multi->n, cells = multi->grid.n_cells;
    int bad = 0;
    for (uint32_t i = 0; i < n; i++)
        if (a.cell_of[i] != o.cell_of[i] && bad++ < 5)
            fprintf(stderr, "%s: node %u in cell %u, %s says %u\n", label, i, a.cell_of[i],
                    what, o.cell_of[i]);
    for (uint32_t c = 0; c <= cells; c++)
        if (a.start[c] != o.start[c] && bad++ < 10)
            fprintf(stderr, "%s: cell %u starts at %u, %s says %u\n", label, c, a.start[c],
                    what, o.start[c]);
    /* the order inside a cell is free: each cell's nodes compared sorted */
    for (uint32_t c = 0; c < cells && !bad; c++) {
        uint32_t lo = a.start[c], hi = a.start[c + 1];
        if (hi < lo || hi > n) {
            bad++;
            break;
        }
        qsort(a.nodes + lo, hi - lo, 4, cmp_u32);
        qsort(o.nodes + lo, hi - lo, 4, cmp_u32);
        for (uint32_t k = lo; k < hi; k++)
            if ((a.nodes[k] != o.nodes[k] || a.cell_of[a.nodes[k]] != c) && bad++ < 15)
                fprintf(stderr, "%s: cell %u lists node %u, %s node %u\n", label, c,
                        a.nodes[k], what, o.nodes[k]);
    }
    /* both builds leave the global counts at zero */
    for (uint32_t c = 0; c < cells; c++)
        if ((a.count[c] != 0 || o.count[c] != 0) && bad++ < 20)
            fprintf(stderr, "%s: cell %u's count left at %u (multi) and %u (%s)\n", label,
                    c, a.count[c], o.count[c], what);
    CHECK(bad == 0);
    lists_read_free(&a);
    lists_read_free(&o);
    return bad;
}

/* Builds both lists with the filter or not (one event each for the one-group build) and
 * compares them; returns the number of differences found. */
static int compare_builds(const char *label, device_ctx *dev, cell_lists *multi, cell_lists *one,
                          dbuf *pos, dbuf *include)
{
    cn_error err = {0};
    cl_event evs[2][4];
    int n_evs[2] = {0, 0};
    CHECK(cell_lists_build(multi, dev, pos, include, evs[0], &n_evs[0], &err) == 0);
    CHECK(cell_lists_build(one, dev, pos, include, evs[1], &n_evs[1], &err) == 0);
    CHECK(n_evs[0] == 3);
    CHECK(n_evs[1] == 1 && evs[1][0] != NULL);
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < n_evs[b]; i++)
            if (evs[b][i])
                clReleaseEvent(evs[b][i]);
    return compare_built(label, "one group", dev, multi, one);
}

/* N nodes in a cube of EXTENT mm (0: every node at one point, one cell) with range RANGE,
 * groups of GROUP_OF consecutive nodes; work-groups of WG items (0: the profile's). */
static void check_case(device_ctx *dev, cl_program prog, uint32_t n, int64_t extent,
                       int64_t range, size_t wg)
{
    char label[128];
    snprintf(label, sizeof label, "n=%u extent=%lld range=%lld wg=%zu", n, (long long)extent,
             (long long)range, wg);
    cn_error err = {0};
    dbuf_account acc = {0};
    cell_grid g;
    int64_t ext[3] = {extent, extent, extent / 4};
    CHECK(cell_grid_choose(&g, ext, range, n, &err) == 0);
    int64_t *p = malloc((size_t)n * 32);
    unsigned char include[GROUPS] = {1, 0, 1, 0, 1};
    CHECK(p != NULL);
    if (!p)
        return;
    for (uint32_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            p[4 * (size_t)i + (size_t)k] =
                ext[k] ? (int64_t)(next_random() % (uint64_t)(ext[k] + 1)) : 0;
        p[4 * (size_t)i + 3] = (int64_t)(next_random() % GROUPS);
    }
    dbuf pos = {0}, inc = {0};
    CHECK(dbuf_alloc(dev, &pos, (size_t)n * 32, &acc, "positions", &err) == 0);
    CHECK(dbuf_alloc(dev, &inc, GROUPS, &acc, "include", &err) == 0);
    CHECK(dbuf_write(dev, &pos, 0, (size_t)n * 32, p, 1, &err) == 0);
    CHECK(dbuf_write(dev, &inc, 0, GROUPS, include, 1, &err) == 0);
    free(p);
    size_t saved = dev->local_size_override;
    dev->local_size_override = wg;
    cell_lists multi, one;
    setenv(HOOK, "0", 1);
    CHECK(cell_lists_init(&multi, dev, prog, &g, n, &acc, &err) == 0);
    setenv(HOOK, "2147483647", 1);
    CHECK(cell_lists_init(&one, dev, prog, &g, n, &acc, &err) == 0);
    unsetenv(HOOK);
    dev->local_size_override = saved;
    CHECK(!multi.one_group && one.one_group);
    CHECK(wg == 0 || one.local_one == wg);
    printf("%s: %u cells, one group of %zu items\n", label, g.n_cells, one.local_one);
    /* every build twice, filtered builds between plain ones: each starts from what the
     * previous one left */
    for (int round = 0; round < 2; round++) {
        compare_builds(label, dev, &multi, &one, &pos, NULL);
        compare_builds(label, dev, &multi, &one, &pos, &inc);
    }
    cell_lists_free(&multi, &acc);
    cell_lists_free(&one, &acc);
    dbuf_release(&pos, &acc);
    dbuf_release(&inc, &acc);
}

/* The hook's values: bounds and refusals; and the choice falls back to the multi-kernel build
 * where the cells' counts do not fit the device's local memory, or the nodes are too many. */
static void check_choice(device_ctx *dev, cl_program prog)
{
    cn_error err = {0};
    uint32_t most = 7;
    CHECK(cell_lists_one_group_nodes(dev, &most, &err) == 0 && most == 0); /* PoCL's profile */
    setenv(HOOK, "2147483647", 1);
    CHECK(cell_lists_one_group_nodes(dev, &most, &err) == 0 && most == 2147483647u);
    const char *bad[] = {"2147483648", "-1", "12x", " 5", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cn_error e = {0};
        char want[128];
        setenv(HOOK, bad[i], 1);
        snprintf(want, sizeof want, HOOK "='%s' is not a whole number from 0 to 2147483647",
                 bad[i]);
        CHECK(cell_lists_one_group_nodes(dev, &most, &e) == CN_ERR_INPUT);
        CHECK(strcmp(e.msg, want) == 0);
    }
    dbuf_account acc = {0};
    cell_grid g = {.side = 1000, .nx = 100, .ny = 100, .nz = 1, .n_cells = 10000};
    cell_lists c;
    /* 10 001 counts need 40 004 bytes and more: not in 32 KiB */
    cl_ulong local = dev->info.local_mem;
    dev->info.local_mem = 32768;
    setenv(HOOK, "100", 1);
    CHECK(cell_lists_init(&c, dev, prog, &g, 100, &acc, &err) == 0);
    CHECK(!c.one_group && c.k_count && c.scan.blocks);
    cell_lists_free(&c, &acc);
    dev->info.local_mem = local;
    /* 101 nodes, the hook says 100 */
    CHECK(cell_lists_init(&c, dev, prog, &g, 101, &acc, &err) == 0);
    CHECK(!c.one_group);
    cell_lists_free(&c, &acc);
    CHECK(cell_lists_init(&c, dev, prog, &g, 100, &acc, &err) == 0);
    CHECK(c.one_group && !c.k_count && !c.scan.blocks);
    cell_lists_free(&c, &acc);
    unsetenv(HOOK);
}

/* ---- ranked builds ---- */

/* Writes N random positions within EXT (0 on an axis: all at 0) to POS, group 0. */
static int write_positions(device_ctx *dev, dbuf *pos, uint32_t n, const int64_t ext[3],
                           cn_error *err)
{
    int64_t *p = malloc((size_t)n * 32);
    if (!p)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    for (uint32_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            p[4 * (size_t)i + (size_t)k] =
                ext[k] ? (int64_t)(next_random() % (uint64_t)(ext[k] + 1)) : 0;
        p[4 * (size_t)i + 3] = 0;
    }
    int rc = dbuf_write(dev, pos, 0, (size_t)n * 32, p, 1, err);
    free(p);
    return rc;
}

/* What a mover does: cells.rank_nodes ranks the N nodes at POS for C's next ranked build. */
static int rank_launch(device_ctx *dev, cl_kernel k, karg_cache *cache, cell_lists *c,
                       dbuf *pos, cn_error *err)
{
    int rc = kernel_args_cached(dev, k, cache, "cells.rank_nodes", err, 0, 2, KBUF(*pos),
                                KARG(c->n));
    if (!rc)
        rc = cell_lists_rank_args(c, dev, k, cache, "cells.rank_nodes", 2, 1, err);
    if (!rc)
        rc = enqueue_1d(dev, k, "cells.rank_nodes", c->n, 64, NULL, err);
    if (!rc)
        cell_lists_ranked_moved(c);
    return rc;
}

/* N nodes in a box of EXTENT x EXTENT x EXTENT / 4 mm (0: every node in one cell), range
 * RANGE, the scatter in work-groups of WG items (0: the profile's): ranked builds against
 * counted ones over five rounds of new positions (the third ranked twice, at other positions
 * first: only the last launch's ranks count). */
static void check_ranked_case(device_ctx *dev, cl_program prog, uint32_t n, int64_t extent,
                              int64_t range, size_t wg)
{
    char label[128];
    snprintf(label, sizeof label, "ranked n=%u extent=%lld range=%lld wg=%zu", n,
             (long long)extent, (long long)range, wg);
    cn_error err = {0};
    dbuf_account acc = {0};
    cell_grid g;
    int64_t ext[3] = {extent, extent, extent / 4};
    CHECK(cell_grid_choose(&g, ext, range, n, &err) == 0);
    dbuf pos = {0};
    CHECK(dbuf_alloc(dev, &pos, (size_t)n * 32, &acc, "positions", &err) == 0);
    cell_lists multi, ranked;
    setenv(HOOK, "0", 1);
    CHECK(cell_lists_init(&multi, dev, prog, &g, n, &acc, &err) == 0);
    CHECK(cell_lists_init(&ranked, dev, prog, &g, n, &acc, &err) == 0);
    unsetenv(HOOK);
    size_t saved = dev->local_size_override;
    dev->local_size_override = wg;
    setenv(RANKED_HOOK, "2147483647", 1);
    CHECK(cell_lists_ranked_init(&ranked, dev, prog, &acc, &err) == 0);
    unsetenv(RANKED_HOOK);
    dev->local_size_override = saved;
    CHECK(ranked.ranked && !ranked.check && ranked.shadow == NULL);
    CHECK(wg == 0 || ranked.local_ranked == wg);
    printf("%s: %u cells, scatter in groups of %zu items\n", label, g.n_cells,
           ranked.local_ranked);
    cl_kernel k = NULL;
    karg_cache cache;
    memset(&cache, 0, sizeof cache);
    CHECK(device_create_kernel(dev, prog, "cells.rank_nodes", &k, &err) == 0);
    for (int round = 0; round < 5 && k; round++) {
        CHECK(write_positions(dev, &pos, n, ext, &err) == 0);
        if (round == 2) { /* ranks taken, then the nodes moved and ranked again */
            CHECK(rank_launch(dev, k, &cache, &ranked, &pos, &err) == 0);
            CHECK(write_positions(dev, &pos, n, ext, &err) == 0);
        }
        CHECK(rank_launch(dev, k, &cache, &ranked, &pos, &err) == 0);
        cl_event evs[4];
        int n_evs = 0;
        CHECK(cell_lists_build_ranked(&ranked, dev, &pos, evs, &n_evs, &err) == 0);
        CHECK(n_evs == 1 && evs[0] != NULL);
        for (int i = 0; i < n_evs; i++)
            if (evs[i])
                clReleaseEvent(evs[i]);
        CHECK(cell_lists_build(&multi, dev, &pos, NULL, NULL, NULL, &err) == 0);
        compare_built(label, "ranked", dev, &multi, &ranked);
    }
    if (k)
        clReleaseKernel(k);
    cell_lists_free(&multi, &acc);
    cell_lists_free(&ranked, &acc);
    dbuf_release(&pos, &acc);
    CHECK(acc.current == 0);
}

/* The check hook (CLNETSIM_TEST_CELLS_RANKED=check): every ranked build compared with a
 * counted one, which passes on sound ranks; ranks taken for other positions than the lists'
 * (the nodes moved after their ranks) are refused with the first node out of place. */
static void check_ranked_hook(device_ctx *dev, cl_program prog)
{
    cn_error err = {0};
    dbuf_account acc = {0};
    uint32_t n = 2000;
    int64_t ext[3] = {1000000, 1000000, 250000};
    cell_grid g;
    CHECK(cell_grid_choose(&g, ext, 50000, n, &err) == 0);
    dbuf pos = {0};
    CHECK(dbuf_alloc(dev, &pos, (size_t)n * 32, &acc, "positions", &err) == 0);
    cell_lists c;
    CHECK(cell_lists_init(&c, dev, prog, &g, n, &acc, &err) == 0);
    setenv(RANKED_HOOK, "check", 1);
    CHECK(cell_lists_ranked_init(&c, dev, prog, &acc, &err) == 0);
    unsetenv(RANKED_HOOK);
    CHECK(c.ranked && c.check && c.shadow != NULL);
    cl_kernel k = NULL;
    karg_cache cache;
    memset(&cache, 0, sizeof cache);
    CHECK(device_create_kernel(dev, prog, "cells.rank_nodes", &k, &err) == 0);
    CHECK(write_positions(dev, &pos, n, ext, &err) == 0);
    CHECK(k && rank_launch(dev, k, &cache, &c, &pos, &err) == 0);
    CHECK(cell_lists_build_ranked(&c, dev, &pos, NULL, NULL, &err) == 0);
    /* the nodes moved, not ranked again */
    CHECK(write_positions(dev, &pos, n, ext, &err) == 0);
    cn_error e = {0};
    CHECK(cell_lists_build_ranked(&c, dev, &pos, NULL, NULL, &e) == CN_ERR_RUNTIME);
    /* the first difference is a node's cell: the nodes moved, and their ranks did not */
    CHECK(strstr(e.msg, "the ranked cell lists on device '") == e.msg);
    CHECK(strstr(e.msg, "' put node ") != NULL && strstr(e.msg, ", the counted ones in cell "));
    if (k)
        clReleaseKernel(k);
    cell_lists_free(&c, &acc);
    dbuf_release(&pos, &acc);
    CHECK(acc.current == 0);
}

/* The hook's values and the profile's; ranked builds refused where the counts do not fit
 * the local memory, or the cells are more than the limit; and before any ranked launch. */
static void check_ranked_choice(device_ctx *dev, cl_program prog)
{
    cn_error err = {0};
    uint32_t most = 7;
    int chk = 5;
    CHECK(cell_lists_ranked_cells(dev, &most, &chk, &err) == 0 && most == 0 && chk == 0);
    setenv(RANKED_HOOK, "2147483647", 1);
    CHECK(cell_lists_ranked_cells(dev, &most, &chk, &err) == 0 && most == 2147483647u && !chk);
    setenv(RANKED_HOOK, "check", 1);
    CHECK(cell_lists_ranked_cells(dev, &most, &chk, &err) == 0 && most == 2147483647u && chk);
    CHECK(cell_lists_ranked_cells(dev, &most, NULL, &err) == 0 && most == 2147483647u);
    const char *bad[] = {"2147483648", "-1", "12x", " 5", "CHECK", "check ", ""};
    for (size_t i = 0; i + 1 < sizeof bad / sizeof bad[0]; i++) {
        cn_error e = {0};
        char want[160];
        setenv(RANKED_HOOK, bad[i], 1);
        snprintf(want, sizeof want, RANKED_HOOK "='%s' is neither a whole number from 0 to "
                 "2147483647 nor 'check'", bad[i]);
        CHECK(cell_lists_ranked_cells(dev, &most, &chk, &e) == CN_ERR_INPUT);
        CHECK(strcmp(e.msg, want) == 0);
    }
    setenv(RANKED_HOOK, "", 1); /* empty: as if unset, the profile's 0 */
    CHECK(cell_lists_ranked_cells(dev, &most, &chk, &err) == 0 && most == 0);
    dbuf_account acc = {0};
    cell_grid g = {.side = 1000, .nx = 100, .ny = 100, .nz = 1, .n_cells = 10000};
    cell_lists c;
    /* 10 001 counts need 40 004 bytes and more: not in 32 KiB */
    CHECK(cell_lists_init(&c, dev, prog, &g, 100, &acc, &err) == 0);
    cl_ulong local = dev->info.local_mem;
    dev->info.local_mem = 32768;
    setenv(RANKED_HOOK, "10000", 1);
    CHECK(cell_lists_ranked_init(&c, dev, prog, &acc, &err) == 0);
    CHECK(!c.ranked && !c.k_ranked && !c.rank.mem);
    dev->info.local_mem = local;
    /* 10 000 cells, the hook says 9 999 */
    setenv(RANKED_HOOK, "9999", 1);
    CHECK(cell_lists_ranked_init(&c, dev, prog, &acc, &err) == 0);
    CHECK(!c.ranked);
    /* lists made for ranks, but no launch ranked yet; and ranks asked of other lists */
    setenv(RANKED_HOOK, "10000", 1);
    CHECK(cell_lists_ranked_init(&c, dev, prog, &acc, &err) == 0);
    CHECK(c.ranked && c.k_ranked && c.rank.mem && c.rank_counts.mem);
    unsetenv(RANKED_HOOK);
    cn_error e = {0};
    CHECK(cell_lists_build_ranked(&c, dev, NULL, NULL, NULL, &e) == CN_ERR_RUNTIME);
    CHECK(strstr(e.msg, "internal error") == e.msg);
    cell_lists other;
    CHECK(cell_lists_init(&other, dev, prog, &g, 100, &acc, &err) == 0);
    cl_kernel k = NULL;
    CHECK(device_create_kernel(dev, prog, "cells.rank_nodes", &k, &err) == 0);
    cn_error e2 = {0};
    CHECK(k && cell_lists_rank_args(&other, dev, k, NULL, "cells.rank_nodes", 2, 1, &e2) ==
                   CN_ERR_RUNTIME);
    CHECK(strstr(e2.msg, "internal error") == e2.msg);
    /* ranking off: the arguments are set, the lists stay counted */
    CHECK(k && cell_lists_rank_args(&other, dev, k, NULL, "cells.rank_nodes", 2, 0, &err) == 0);
    if (k)
        clReleaseKernel(k);
    cell_lists_free(&other, &acc);
    cell_lists_free(&c, &acc);
    CHECK(acc.current == 0);
}

/* Fixed cells (cell_lists_fixed_init): N nodes in a box of EXTENT x EXTENT x EXTENT / 4 mm
 * (0: every node in one cell), range RANGE, cells of CAP slots (0: cell_lists_fixed_capacity),
 * ranked by cells.rank_nodes over five rounds of new positions (the third ranked twice) and
 * each ranking's lists compared with a counted build (the check hook's comparison: each
 * cell's nodes, positions and slots); then positions moved but not ranked, which the check
 * must refuse. */
static void check_fixed_case(device_ctx *dev, cl_program prog, uint32_t n, int64_t extent,
                             int64_t range, uint32_t cap)
{
    cn_error err = {0};
    dbuf_account acc = {0};
    cell_grid g;
    int64_t ext[3] = {extent, extent, extent / 4};
    CHECK(cell_grid_choose(&g, ext, range, n, &err) == 0);
    if (cap == 0)
        CHECK(cell_lists_fixed_capacity(n, g.n_cells, &cap, &err) == 0);
    printf("fixed n=%u extent=%lld range=%lld: %u cells of %u slots\n", n, (long long)extent,
           (long long)range, g.n_cells, cap);
    dbuf pos = {0};
    CHECK(dbuf_alloc(dev, &pos, (size_t)n * 32, &acc, "positions", &err) == 0);
    cell_lists c;
    CHECK(cell_lists_init(&c, dev, prog, &g, n, &acc, &err) == 0);
    setenv(RANKED_HOOK, "check", 1);
    CHECK(cell_lists_fixed_init(&c, dev, prog, cap, &acc, &err) == 0);
    unsetenv(RANKED_HOOK);
    CHECK(c.ranked && c.check && c.fixed_cap == cap && c.k_rank && c.fixed_nodes.mem);
    for (int round = 0; round < 5; round++) {
        CHECK(write_positions(dev, &pos, n, ext, &err) == 0);
        if (round == 2) {
            CHECK(cell_lists_rank_positions(&c, dev, &pos, NULL, NULL, &err) == 0);
            CHECK(write_positions(dev, &pos, n, ext, &err) == 0);
        }
        cl_event evs[1] = {NULL};
        int n_evs = 0;
        CHECK(cell_lists_rank_positions(&c, dev, &pos, evs, &n_evs, &err) == 0);
        CHECK(n_evs == 1 && evs[0] != NULL);
        if (evs[0])
            clReleaseEvent(evs[0]);
        int rc = cell_lists_fixed_check(&c, dev, &pos, &err);
        if (rc)
            fprintf(stderr, "fixed n=%u cap=%u round %d: %s\n", n, cap, round, err.msg);
        CHECK(rc == 0);
    }
    /* the nodes moved, not ranked again: unless all stayed in their cells, refused */
    if (extent > 0 && n > 1) {
        CHECK(write_positions(dev, &pos, n, ext, &err) == 0);
        cn_error e = {0};
        CHECK(cell_lists_fixed_check(&c, dev, &pos, &e) == CN_ERR_RUNTIME);
        CHECK(strstr(e.msg, "the fixed cells on device '") == e.msg);
    }
    cell_lists_free(&c, &acc);
    dbuf_release(&pos, &acc);
    CHECK(acc.current == 0);
}

/* The capacity's hook and its choice; fixed cells without the check compare nothing. */
static void check_fixed_choice(device_ctx *dev, cl_program prog)
{
    cn_error err = {0};
    uint32_t cap = 0;
    unsetenv("CLNETSIM_TEST_CELLS_FIXED_CAP");
    /* 4 800 nodes in 512 cells: 8 x 10 rounded up; 100 in 10 000: the floor of 32 */
    CHECK(cell_lists_fixed_capacity(4800, 512, &cap, &err) == 0 && cap == 128);
    CHECK(cell_lists_fixed_capacity(100, 10000, &cap, &err) == 0 && cap == 32);
    /* 1 000 000 nodes in 1 000 cells: 8 000 a cell asked, 4 096 at most */
    CHECK(cell_lists_fixed_capacity(1000000, 1000, &cap, &err) == 0 && cap == 4096);
    /* 1 000 nodes in 10 cells: 800 asked, 128 slots a node allow 12 800 a cell: 1 024 */
    CHECK(cell_lists_fixed_capacity(1000, 10, &cap, &err) == 0 && cap == 1024);
    setenv("CLNETSIM_TEST_CELLS_FIXED_CAP", "3", 1);
    CHECK(cell_lists_fixed_capacity(4800, 512, &cap, &err) == 0 && cap == 3);
    const char *bad[] = {"0", "65537", "-1", "3x", " 3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cn_error e = {0};
        char want[160];
        setenv("CLNETSIM_TEST_CELLS_FIXED_CAP", bad[i], 1);
        snprintf(want, sizeof want, "CLNETSIM_TEST_CELLS_FIXED_CAP='%s' is not a whole number "
                 "from 1 to 65536", bad[i]);
        CHECK(cell_lists_fixed_capacity(4800, 512, &cap, &e) == CN_ERR_INPUT);
        CHECK(strcmp(e.msg, want) == 0);
    }
    unsetenv("CLNETSIM_TEST_CELLS_FIXED_CAP");
    /* no fixed cells: positions cannot be ranked; without the check, nothing compared */
    dbuf_account acc = {0};
    cell_grid g = {.side = 1000, .nx = 4, .ny = 4, .nz = 1, .n_cells = 16};
    cell_lists c;
    CHECK(cell_lists_init(&c, dev, prog, &g, 10, &acc, &err) == 0);
    cn_error e = {0};
    CHECK(cell_lists_rank_positions(&c, dev, &c.cell_of, NULL, NULL, &e) == CN_ERR_RUNTIME);
    CHECK(strstr(e.msg, "internal error") == e.msg);
    CHECK(cell_lists_fixed_init(&c, dev, prog, 4, &acc, &err) == 0 && !c.check);
    CHECK(cell_lists_fixed_check(&c, dev, &c.cell_of, &err) == 0);
    /* slots past 2^31 refused */
    cell_lists big;
    cell_grid gb = {.side = 1000, .nx = 1024, .ny = 1024, .nz = 1, .n_cells = 1048576};
    CHECK(cell_lists_init(&big, dev, prog, &gb, 10, &acc, &err) == 0);
    cn_error eb = {0};
    CHECK(cell_lists_fixed_init(&big, dev, prog, 2048, &acc, &eb) == CN_ERR_RUNTIME);
    CHECK(strstr(eb.msg, "more than 2^31") != NULL);
    cell_lists_free(&big, &acc);
    cell_lists_free(&c, &acc);
    CHECK(acc.current == 0);
}

int main(void)
{
    unsetenv(HOOK);
    device_list list = {0};
    cn_error err = {0};
    if (device_enumerate(&list, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    const device_entry *e = NULL;
    for (int i = 0; i < list.count && !e; i++)
        if (list.items[i].usable && strstr(list.items[i].platform_name, "Portable Computing"))
            e = &list.items[i];
    if (!e) {
        printf("no PoCL device: skipped\n");
        device_list_free(&list);
        return 77;
    }
    device_ctx dev;
    cl_program prog = NULL;
    const char *sources[] = {"common/cells.cl"};
    int opened = device_open(&dev, e, &err);
    /* CLNETSIM_TEST_BREAK_KERNEL=cells.rank_nodes@0: the ranks built wrong */
    if (opened == 0)
        device_fault_arm(&dev, 0);
    if (opened != 0 || device_build_program(&dev, sources, 1, "", &prog, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        device_list_free(&list);
        return 1;
    }
    check_choice(&dev, prog);
    check_case(&dev, prog, 1, 1000000, 100000, 0);
    check_case(&dev, prog, 7, 1000000, 100000, 0);
    check_case(&dev, prog, 1000, 1000000, 30000, 0);
    check_case(&dev, prog, 5000, 1600000, 40000, 0); /* some 10 000 cells: more than the group */
    check_case(&dev, prog, 5000, 1600000, 40000, 8);
    check_case(&dev, prog, 3000, 0, 100000, 0);      /* every node in one cell */
    check_case(&dev, prog, 3000, 0, 100000, 4);
    check_case(&dev, prog, 777, 500000, 10000, 2);   /* 2 items, hundreds of cells each */
    check_ranked_choice(&dev, prog);
    check_ranked_hook(&dev, prog);
    check_ranked_case(&dev, prog, 1, 1000000, 100000, 0);
    check_ranked_case(&dev, prog, 7, 1000000, 100000, 0);
    check_ranked_case(&dev, prog, 1000, 1000000, 30000, 0);
    check_ranked_case(&dev, prog, 5000, 1600000, 40000, 0); /* more cells than the group */
    check_ranked_case(&dev, prog, 3000, 0, 100000, 0);      /* every node in one cell */
    check_ranked_case(&dev, prog, 3000, 0, 100000, 2);
    for (size_t wg = 2; wg <= 256; wg *= 2)
        check_ranked_case(&dev, prog, 777, 500000, 10000, wg);
    check_fixed_choice(&dev, prog);
    check_fixed_case(&dev, prog, 1, 1000000, 100000, 0);
    check_fixed_case(&dev, prog, 1000, 1000000, 30000, 0);
    check_fixed_case(&dev, prog, 5000, 1600000, 40000, 0);
    check_fixed_case(&dev, prog, 5000, 1600000, 40000, 1); /* most past the capacity */
    check_fixed_case(&dev, prog, 3000, 0, 100000, 2);      /* every node in one cell */
    check_fixed_case(&dev, prog, 777, 500000, 10000, 3);
    clReleaseProgram(prog);
    device_close(&dev);
    device_list_free(&list);
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
