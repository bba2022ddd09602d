#include <stdlib.h>
#include <string.h>

#include "engine/cell_lists.h"

int cell_grid_choose(cell_grid *g, const int64_t extent[3], int64_t range, uint32_t n_nodes,
                     cn_error *err)
{
    uint64_t limit = (uint64_t)n_nodes * 2 > 64 ? (uint64_t)n_nodes * 2 : 64;
    int64_t side = range > 0 ? range : 1;
    for (;;) {
        uint64_t nx = (uint64_t)(extent[0] / side) + 1, ny = (uint64_t)(extent[1] / side) + 1;
        uint64_t nz = (uint64_t)(extent[2] / side) + 1;
        /* Products checked stepwise: each factor is below 2^32, the limit below 2^33. */
        if (nx <= limit && ny <= limit && nz <= limit && nx * ny <= limit && nx * ny * nz <= limit) {
            g->side = side;
            g->nx = (uint32_t)nx;
            g->ny = (uint32_t)ny;
            g->nz = (uint32_t)nz;
            g->n_cells = (uint32_t)(nx * ny * nz);
            return 0;
        }
        if (side > INT64_MAX / 2)
            return cn_fail(err, CN_ERR_INPUT, "the area is too large for a cell grid");
        side *= 2;
    }
}

/* scan_blocks' __local argument: a word per item. */
static cl_ulong scan_local_args(size_t size, const void *user)
{
    (void)user;
    return (cl_ulong)size * 4;
}

static int create_kernel(device_ctx *dev, cl_program prog, const char *name, cl_kernel *k,
                         size_t *local, cn_error *err)
{
    int rc = device_create_kernel(dev, prog, name, k, err);
    int scan = !strcmp(name, "cells.scan_blocks");
    if (rc == 0 && local)
        *local = device_local_size_fit(dev, name, *k, 0, scan ? scan_local_args : NULL, NULL);
    return rc;
}

int scan_init(scan_ctx *s, device_ctx *dev, cl_program prog, size_t max_len, dbuf_account *acc,
              cn_error *err)
{
    memset(s, 0, sizeof *s);
    int rc = create_kernel(dev, prog, "cells.scan_blocks", &s->blocks, &s->local, err);
    if (!rc)
        rc = create_kernel(dev, prog, "cells.scan_add", &s->add, NULL, err);
    if (rc)
        return rc;
    /* scan_add must use scan_blocks' work-group size, so one size serves both. */
    size_t add_max =
        device_local_size_fit(dev, "cells.scan_blocks", s->add, 0, scan_local_args, NULL);
    if (add_max < s->local)
        s->local = add_max;
    /* A slice of one element would never shrink the problem: two at least (any device has
     * work-groups of 2 or more). */
    if (s->local < 2)
        s->local = 2;
    size_t len = max_len;
    while (len > 1) {
        if (s->levels == SCAN_MAX_LEVELS)
            return cn_fail(err, CN_ERR_RUNTIME, "prefix sum of %zu elements needs more than %d "
                           "levels on device '%s'", max_len, SCAN_MAX_LEVELS, dev->info.name);
        size_t groups = (len + s->local - 1) / s->local;
        int l = s->levels++;
        rc = dbuf_alloc(dev, &s->sums[l], groups * 4, acc, "prefix-sum block totals", err);
        if (!rc)
            rc = dbuf_alloc(dev, &s->scanned[l], groups * 4, acc, "prefix-sum block offsets", err);
        if (rc)
            return rc;
        len = groups;
    }
    return 0;
}

static int scan_level(scan_ctx *s, device_ctx *dev, int level, dbuf *in, uint32_t n, dbuf *out,
                      uint32_t len, cl_event *ev, cn_error *err)
{
    if (level >= s->levels)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: prefix sum longer than planned");
    uint32_t groups = (uint32_t)((len + s->local - 1) / s->local);
    int rc = kernel_args(dev, s->blocks, "cells.scan_blocks", err, 6, KBUF(*in), KARG(n), KARG(len),
                         KBUF(*out), KBUF(s->sums[level]), KLOCAL(s->local * 4));
    if (!rc)
        rc = enqueue_1d(dev, s->blocks, "cells.scan_blocks", len, s->local, ev, err);
    if (rc || groups <= 1)
        return rc;
    rc = scan_level(s, dev, level + 1, &s->sums[level], groups, &s->scanned[level], groups, NULL,
                    err);
    if (!rc)
        rc = kernel_args(dev, s->add, "cells.scan_add", err, 3, KBUF(*out), KARG(len),
                         KBUF(s->scanned[level]));
    if (!rc)
        rc = enqueue_1d(dev, s->add, "cells.scan_add", len, s->local, NULL, err);
    return rc;
}

int scan_run(scan_ctx *s, device_ctx *dev, dbuf *in, uint32_t n, dbuf *out, uint32_t len,
             cl_event *ev, cn_error *err)
{
    if (ev)
        *ev = NULL;
    if (len == 0)
        return 0;
    if (len == 1) /* a single element: the exclusive sum is 0 */
        return dbuf_zero(dev, out, 0, 4, err);
    return scan_level(s, dev, 0, in, n, out, len, ev, err);
}

void scan_free(scan_ctx *s, dbuf_account *acc)
{
    for (int l = 0; l < s->levels; l++) {
        dbuf_release(&s->sums[l], acc);
        dbuf_release(&s->scanned[l], acc);
    }
    if (s->blocks)
        clReleaseKernel(s->blocks);
    if (s->add)
        clReleaseKernel(s->add);
    memset(s, 0, sizeof *s);
}

/* A hook's value V as a whole number from 0 to MOST into *OUT; -1 when it is not one. */
static int hook_whole(const char *v, unsigned long long most, uint32_t *out)
{
    /* digits only: strtoul would take a sign, spaces, and wrap a negative value */
    unsigned long long x = 0;
    const char *d = v;
    for (; *d >= '0' && *d <= '9' && x <= most; d++)
        x = x * 10 + (unsigned long long)(*d - '0');
    if (d == v || *d || x > most)
        return -1;
    *out = (uint32_t)x;
    return 0;
}

/* The profile's choice KEY on DEV (checked when the profile was read, device_profile.c). */
static uint32_t profile_limit(const device_ctx *dev, const char *key)
{
    long p = platform_profile_choice(&dev->profile, key, 0);
    return p <= 0 ? 0 : (uint32_t)p;
}

int cell_lists_one_group_nodes(const device_ctx *dev, uint32_t *out, cn_error *err)
{
    const char *v = getenv("CLNETSIM_TEST_CELLS_ONE_GROUP");
    *out = 0;
    if (v && *v) {
        if (hook_whole(v, CELLS_ONE_GROUP_MAX, out))
            return cn_fail(err, CN_ERR_INPUT,
                           "CLNETSIM_TEST_CELLS_ONE_GROUP='%s' is not a whole number from 0 to %ld",
                           v, (long)CELLS_ONE_GROUP_MAX);
        return 0;
    }
    *out = profile_limit(dev, CELLS_ONE_GROUP_KEY);
    return 0;
}

/* build_one_group's __local arguments: N_CELLS + 1 counts, and a word per item for the scan
 * of the items' sums. */
static cl_ulong one_group_local_args(size_t size, const void *user)
{
    const uint32_t *n_cells = user;
    return ((cl_ulong)*n_cells + 1 + (cl_ulong)size) * 4;
}

/* Chooses the one-group build when the node count allows it and its local memory fits the
 * device at some work-group size: the largest the kernel allows, as device_local_size_fit
 * cuts it to the device's local memory. */
static int choose_one_group(cell_lists *c, device_ctx *dev, cl_program prog, cn_error *err)
{
    uint32_t most = 0;
    int rc = cell_lists_one_group_nodes(dev, &most, err);
    if (rc || c->n > most)
        return rc;
    rc = device_create_kernel(dev, prog, "cells.build_one_group", &c->k_one, err);
    if (rc)
        return rc;
    /* Too many cells for one group's local memory even at one item: the multi-kernel build
     * (checked first, so that no size of the kernel is recorded as one the run launches).
     * Otherwise some size fits, and device_local_size_fit halves its choice down to it. */
    uint32_t n_cells = c->grid.n_cells;
    if (device_kernel_local_own(dev, c->k_one) + one_group_local_args(1, &n_cells) >
        device_local_limit(dev)) {
        clReleaseKernel(c->k_one);
        c->k_one = NULL;
        return 0;
    }
    c->local_one = device_local_size_fit(dev, "cells.build_one_group", c->k_one, 0,
                                         one_group_local_args, &n_cells);
    c->one_group = 1;
    return 0;
}

int cell_lists_init(cell_lists *c, device_ctx *dev, cl_program prog, const cell_grid *g,
                    uint32_t n, dbuf_account *acc, cn_error *err)
{
    memset(c, 0, sizeof *c);
    c->grid = *g;
    c->n = n;
    int rc = choose_one_group(c, dev, prog, err);
    if (!rc && !c->one_group)
        rc = create_kernel(dev, prog, "cells.cell_count", &c->k_count, &c->local_count, err);
    if (!rc && !c->one_group)
        rc = create_kernel(dev, prog, "cells.cell_scatter", &c->k_scatter, &c->local_scatter, err);
    if (!rc)
        rc = dbuf_alloc(dev, &c->cell_of, (size_t)n * 4, acc, "cell index", err);
    if (!rc)
        rc = dbuf_alloc(dev, &c->count, (size_t)g->n_cells * 4, acc, "cell count", err);
    if (!rc)
        rc = dbuf_alloc(dev, &c->start, ((size_t)g->n_cells + 1) * 4, acc, "cell start", err);
    /* zero once: every build leaves the counts at zero (cell_scatter; the one-group build
     * counts in local memory and never writes them) */
    if (!rc)
        rc = dbuf_zero(dev, &c->count, 0, (size_t)g->n_cells * 4, err);
    if (!rc)
        rc = dbuf_alloc(dev, &c->nodes, (size_t)n * 4, acc, "cell nodes", err);
    if (!rc && !c->one_group)
        rc = scan_init(&c->scan, dev, prog, (size_t)g->n_cells + 1, acc, err);
    return rc;
}

/* The next of EVS for a launch's event; NULL (a launch without one) when EVS is NULL. */
static cl_event *next_event(cl_event *evs, int *n_evs)
{
    return evs ? &evs[(*n_evs)++] : NULL;
}

int cell_lists_build(cell_lists *c, device_ctx *dev, dbuf *pos, dbuf *include, cl_event *evs,
                     int *n_evs, cn_error *err)
{
    const cell_grid *g = &c->grid;
    uint32_t n_cells = g->n_cells;
    /* without a filter the kernel never reads INCLUDE: any buffer does */
    cl_uint filtered = include != NULL;
    dbuf *inc = include ? include : &c->count;
    c->sorted_valid = 0; /* only ranked builds place the positions */
    if (c->one_group) {
        int rc = kernel_args_cached(
            dev, c->k_one, &c->one_args, "cells.build_one_group", err, 0, 14, KBUF(*pos),
            KARG(c->n), KARG(g->side), KARG(g->nx), KARG(g->ny), KARG(g->nz), KARG(n_cells),
            KBUF(c->cell_of), KBUF(c->start), KBUF(c->nodes), KBUF(*inc), KARG(filtered),
            KLOCAL(((size_t)n_cells + 1) * 4), KLOCAL(c->local_one * 4));
        if (!rc)
            rc = enqueue_1d(dev, c->k_one, "cells.build_one_group", c->local_one, c->local_one,
                            next_event(evs, n_evs), err);
        return rc;
    }
    int rc = kernel_args_cached(dev, c->k_count, &c->count_args, "cells.cell_count", err, 0, 10,
                                KBUF(*pos), KARG(c->n), KARG(g->side), KARG(g->nx), KARG(g->ny),
                                KARG(g->nz), KBUF(c->cell_of), KBUF(c->count), KBUF(*inc),
                                KARG(filtered));
    if (!rc)
        rc = enqueue_1d(dev, c->k_count, "cells.cell_count", c->n, c->local_count,
                        next_event(evs, n_evs), err);
    if (!rc)
        rc = scan_run(&c->scan, dev, &c->count, n_cells, &c->start, n_cells + 1,
                      next_event(evs, n_evs), err);
    if (!rc)
        rc = kernel_args_cached(dev, c->k_scatter, &c->scatter_args, "cells.cell_scatter", err,
                                0, 5, KARG(c->n), KBUF(c->cell_of), KBUF(c->start), KBUF(c->count),
                                KBUF(c->nodes));
    if (!rc)
        rc = enqueue_1d(dev, c->k_scatter, "cells.cell_scatter", c->n, c->local_scatter,
                        next_event(evs, n_evs), err);
    return rc;
}

void cell_lists_free(cell_lists *c, dbuf_account *acc)
{
    dbuf_release(&c->cell_of, acc);
    dbuf_release(&c->count, acc);
    dbuf_release(&c->start, acc);
    dbuf_release(&c->nodes, acc);
    dbuf_release(&c->rank, acc);
    dbuf_release(&c->rank_counts, acc);
    dbuf_release(&c->sorted, acc);
    dbuf_release(&c->fixed_nodes, acc);
    dbuf_release(&c->fixed_pos, acc);
    dbuf_release(&c->fixed_cell, acc);
    dbuf_release(&c->fixed_slot, acc);
    if (c->k_rank)
        clReleaseKernel(c->k_rank);
    scan_free(&c->scan, acc);
    if (c->k_count)
        clReleaseKernel(c->k_count);
    if (c->k_scatter)
        clReleaseKernel(c->k_scatter);
    if (c->k_one)
        clReleaseKernel(c->k_one);
    if (c->k_ranked)
        clReleaseKernel(c->k_ranked);
    if (c->shadow) {
        cell_lists_free(c->shadow, acc);
        free(c->shadow);
    }
    memset(c, 0, sizeof *c);
}

/* ---- ranked builds ---- */

int cell_lists_ranked_cells(const device_ctx *dev, uint32_t *out, int *check, cn_error *err)
{
    const char *v = getenv("CLNETSIM_TEST_CELLS_RANKED");
    *out = 0;
    if (check)
        *check = 0;
    if (v && *v) {
        if (!strcmp(v, "check")) {
            *out = CELLS_RANKED_MAX;
            if (check)
                *check = 1;
            return 0;
        }
        if (hook_whole(v, CELLS_RANKED_MAX, out))
            return cn_fail(err, CN_ERR_INPUT,
                           "CLNETSIM_TEST_CELLS_RANKED='%s' is neither a whole number from 0 to "
                           "%ld nor 'check'", v, (long)CELLS_RANKED_MAX);
        return 0;
    }
    *out = profile_limit(dev, CELLS_RANKED_KEY);
    return 0;
}

/* What every ranking needs: the ranks, the counts (all zero), the sorted positions, and the
 * counted lists to CHECK against. C->ranked set once all are made. */
static int ranks_alloc(cell_lists *c, device_ctx *dev, cl_program prog, int check,
                       dbuf_account *acc, cn_error *err)
{
    uint32_t n_cells = c->grid.n_cells;
    int rc = dbuf_alloc(dev, &c->rank, (size_t)c->n * 4, acc, "cell ranks", err);
    size_t part = ((size_t)n_cells + 2) * 4;
    if (!rc)
        rc = dbuf_alloc(dev, &c->rank_counts, 3 * part, acc, "cell rank counts", err);
    if (!rc)
        rc = dbuf_alloc(dev, &c->sorted, (size_t)c->n * 32, acc, "cell positions", err);
    /* every part zero: the first ranked launch counts in one and zeroes the next */
    if (!rc)
        rc = dbuf_zero(dev, &c->rank_counts, 0, 3 * part, err);
    if (!rc && check) {
        c->shadow = calloc(1, sizeof *c->shadow);
        rc = c->shadow ? cell_lists_init(c->shadow, dev, prog, &c->grid, c->n, acc, err)
                       : cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    }
    if (!rc) {
        c->ranked = 1;
        c->check = check;
        c->ranked_moves = 0;
    }
    return rc;
}

int cell_lists_ranked_init(cell_lists *c, device_ctx *dev, cl_program prog, dbuf_account *acc,
                           cn_error *err)
{
    uint32_t most = 0, n_cells = c->grid.n_cells;
    int check = 0;
    int rc = cell_lists_ranked_cells(dev, &most, &check, err);
    if (rc || c->ranked || n_cells > most)
        return rc;
    rc = device_create_kernel(dev, prog, "cells.scatter_ranked", &c->k_ranked, err);
    if (rc)
        return rc;
    /* Every work-group holds the counts (scatter_ranked's __local arguments are
     * build_one_group's: N_CELLS + 1 words and a word per item): where they do not fit at one
     * item, counted builds. */
    if (device_kernel_local_own(dev, c->k_ranked) + one_group_local_args(1, &n_cells) >
        device_local_limit(dev)) {
        clReleaseKernel(c->k_ranked);
        c->k_ranked = NULL;
        return 0;
    }
    c->local_ranked = device_local_size_fit(dev, "cells.scatter_ranked", c->k_ranked, 0,
                                            one_group_local_args, &n_cells);
    return ranks_alloc(c, dev, prog, check, acc, err);
}

int cell_lists_rank_args(cell_lists *c, device_ctx *dev, cl_kernel k, karg_cache *cache,
                         const char *name, int first, int on, cn_error *err)
{
    if (on && !c->ranked)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: %s ranks for cell lists that "
                       "are not made for ranks", name);
    const cell_grid *g = &c->grid;
    /* without ranks the kernel reads none of its buffers: any buffer does */
    dbuf *rank = on ? &c->rank : &c->cell_of, *counts = on ? &c->rank_counts : &c->cell_of;
    int fixed = on && c->fixed_cap > 0;
    dbuf *fnodes = fixed ? &c->fixed_nodes : &c->cell_of;
    dbuf *fpos = fixed ? &c->fixed_pos : &c->cell_of;
    dbuf *fcell = fixed ? &c->fixed_cell : &c->cell_of;
    dbuf *fslot = fixed ? &c->fixed_slot : &c->cell_of;
    /* off: steady placeholders, which the argument cache does not set again */
    cl_uint cells = on ? g->n_cells : 0, seq = on ? (cl_uint)(c->ranked_moves % 6) : 0;
    cl_uint cap = fixed ? c->fixed_cap : 0, n = fixed ? c->n : 0;
    return kernel_args_cached(dev, k, cache, name, err, first, CELLS_RANK_NARGS,
                              KBUF(c->cell_of), KBUF(*rank), KBUF(*counts), KARG(cells),
                              KARG(seq), KARG(g->side), KARG(g->nx), KARG(g->ny), KARG(g->nz),
                              KBUF(*fnodes), KBUF(*fpos), KBUF(*fcell), KBUF(*fslot), KARG(cap),
                              KARG(n));
}

void cell_lists_ranked_moved(cell_lists *c)
{
    c->ranked_moves++;
}

/* The lists C and S (the same grid and nodes), read back and compared: a CN_ERR_RUNTIME
 * sentence naming the first difference. The order inside a cell is free: each cell's nodes
 * are compared as sets. */
static int compare_lists(cell_lists *c, cell_lists *s, device_ctx *dev, cn_error *err)
{
    uint32_t n = c->n, cells = c->grid.n_cells;
    size_t nb = (size_t)n * 4, sb = ((size_t)cells + 1) * 4;
    uint32_t *buf = malloc(4 * nb + 2 * sb + 4);
    if (!buf)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    uint32_t *of_c = buf, *of_s = of_c + n, *no_c = of_s + n, *no_s = no_c + n;
    uint32_t *st_c = no_s + n, *st_s = st_c + cells + 1;
    int rc = dbuf_read(dev, &c->cell_of, 0, nb, of_c, 1, err);
    if (!rc)
        rc = dbuf_read(dev, &s->cell_of, 0, nb, of_s, 1, err);
    if (!rc)
        rc = dbuf_read(dev, &c->nodes, 0, nb, no_c, 1, err);
    if (!rc)
        rc = dbuf_read(dev, &s->nodes, 0, nb, no_s, 1, err);
    if (!rc)
        rc = dbuf_read(dev, &c->start, 0, sb, st_c, 1, err);
    if (!rc)
        rc = dbuf_read(dev, &s->start, 0, sb, st_s, 1, err);
    for (uint32_t i = 0; i < n && !rc; i++)
        if (of_c[i] != of_s[i])
            rc = cn_fail(err, CN_ERR_RUNTIME, "the ranked cell lists on device '%s' put node "
                         "%u in cell %u, the counted ones in cell %u", dev->info.name, i,
                         of_c[i], of_s[i]);
    for (uint32_t k = 0; k <= cells && !rc; k++)
        if (st_c[k] != st_s[k])
            rc = cn_fail(err, CN_ERR_RUNTIME, "the ranked cell lists on device '%s' start cell "
                         "%u at %u, the counted ones at %u", dev->info.name, k, st_c[k],
                         st_s[k]);
    /* the nodes listed in each cell: with equal starts and cells, each slot of cell k must
     * hold a node of cell k, each node once (a node listed twice leaves another out) */
    uint8_t *listed = rc ? NULL : calloc(n ? n : 1, 1);
    if (!rc && !listed)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    for (uint32_t k = 0; k < cells && !rc; k++)
        for (uint32_t q = st_c[k]; q < st_c[k + 1] && q < n && !rc; q++) {
            uint32_t i = no_c[q];
            if (i >= n || of_s[i] != k || listed[i])
                rc = cn_fail(err, CN_ERR_RUNTIME, "the ranked cell lists on device '%s' list "
                             "node %u in cell %u, where the counted ones do not", dev->info.name,
                             i, k);
            else
                listed[i] = 1;
        }
    free(listed);
    free(buf);
    return rc;
}

int cell_lists_build_ranked(cell_lists *c, device_ctx *dev, dbuf *pos, cl_event *evs,
                            int *n_evs, cn_error *err)
{
    if (!c->ranked || !c->k_ranked || c->ranked_moves == 0)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: cell lists built from ranks that "
                       "no launch took");
    const cell_grid *g = &c->grid;
    cl_uint n_cells = g->n_cells, part = (cl_uint)((c->ranked_moves - 1) % 3);
    int rc = kernel_args_cached(
        dev, c->k_ranked, &c->ranked_args, "cells.scatter_ranked", err, 0, 10, KARG(c->n),
        KARG(n_cells), KBUF(c->rank_counts), KARG(part), KBUF(c->cell_of), KBUF(c->rank),
        KBUF(c->start), KBUF(c->nodes), KLOCAL(((size_t)n_cells + 1) * 4),
        KLOCAL(c->local_ranked * 4));
    if (!rc)
        rc = kernel_args_cached(dev, c->k_ranked, &c->ranked_args, "cells.scatter_ranked", err,
                                10, 2, KBUF(*pos), KBUF(c->sorted));
    if (!rc)
        rc = enqueue_1d(dev, c->k_ranked, "cells.scatter_ranked", c->n, c->local_ranked,
                        next_event(evs, n_evs), err);
    c->sorted_valid = !rc;
    /* CLNETSIM_TEST_CELLS_RANKED=check: the counted build of the same positions beside it */
    if (!rc && c->check)
        rc = cell_lists_build(c->shadow, dev, pos, NULL, NULL, NULL, err);
    if (!rc && c->check)
        rc = compare_lists(c, c->shadow, dev, err);
    return rc;
}

/* ---- fixed cells ---- */

#define FIXED_CAP_MAX 65536

int cell_lists_fixed_capacity(uint32_t n, uint32_t n_cells, uint32_t *cap, cn_error *err)
{
    const char *v = getenv("CLNETSIM_TEST_CELLS_FIXED_CAP");
    if (v && *v) {
        if (hook_whole(v, FIXED_CAP_MAX, cap) || *cap == 0)
            return cn_fail(err, CN_ERR_INPUT, "CLNETSIM_TEST_CELLS_FIXED_CAP='%s' is not a "
                           "whole number from 1 to %d", v, FIXED_CAP_MAX);
        return 0;
    }
    /* Moving nodes crowd some cells (random waypoint draws them to the middle of the area):
     * eight times the mean (unused slots are never read), at most 128 slots a node; the rare
     * fuller cell spills into the overflow slots, which every reader of that cell then
     * searches, so that no result depends on the capacity. */
    uint64_t mean = n_cells ? ((uint64_t)n + n_cells - 1) / n_cells : 1;
    uint64_t most = n_cells ? 128 * (uint64_t)(n ? n : 1) / n_cells : 1;
    uint32_t c = 32;
    while (c < 4096 && c < 8 * mean && 2 * (uint64_t)c <= most)
        c *= 2;
    *cap = c;
    return 0;
}

int cell_lists_fixed_init(cell_lists *c, device_ctx *dev, cl_program prog, uint32_t cap,
                          dbuf_account *acc, cn_error *err)
{
    /* ranks even where the scatter's counts do not fit in local memory (cell_lists_ranked_
     * init left C unranked): fixed cells need no scatter */
    uint32_t most = 0;
    int check = 0;
    int rc = cell_lists_ranked_cells(dev, &most, &check, err);
    if (!rc && !c->ranked)
        rc = ranks_alloc(c, dev, prog, check, acc, err);
    if (rc)
        return rc;
    /* both halves' slots indexed in 32 bits by the kernels, with room to spare */
    uint64_t slots = (uint64_t)c->grid.n_cells * cap + c->n;
    if (2 * slots >= (1ull << 31))
        return cn_fail(err, CN_ERR_RUNTIME, "fixed cells of %u nodes in %u cells of %u would "
                       "take %llu slots, more than 2^31", c->n, c->grid.n_cells, cap,
                       (unsigned long long)(2 * slots));
    rc = device_create_kernel(dev, prog, "cells.rank_nodes", &c->k_rank, err);
    if (!rc)
        rc = dbuf_alloc(dev, &c->fixed_nodes, (size_t)(2 * slots) * 4, acc, "fixed cell nodes",
                        err);
    if (!rc)
        rc = dbuf_alloc(dev, &c->fixed_pos, (size_t)(2 * slots) * 32, acc,
                        "fixed cell positions", err);
    if (!rc)
        rc = dbuf_alloc(dev, &c->fixed_cell, (size_t)2 * c->n * 4 + 4, acc,
                        "fixed cell overflow", err);
    if (!rc)
        rc = dbuf_alloc(dev, &c->fixed_slot, (size_t)2 * c->n * 4 + 4, acc, "fixed cell slots",
                        err);
    if (!rc)
        c->fixed_cap = cap;
    return rc;
}

int cell_lists_rank_positions(cell_lists *c, device_ctx *dev, dbuf *pos, cl_event *evs,
                              int *n_evs, cn_error *err)
{
    if (!c->k_rank)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: positions ranked for lists without "
                       "fixed cells");
    int rc = kernel_args_cached(dev, c->k_rank, &c->rank_args, "cells.rank_nodes", err, 0, 2,
                                KBUF(*pos), KARG(c->n));
    if (!rc)
        rc = cell_lists_rank_args(c, dev, c->k_rank, &c->rank_args, "cells.rank_nodes", 2, 1,
                                  err);
    /* every item zeroes a share of the next part of the counts: at least that many */
    size_t items = (size_t)c->n > (size_t)c->grid.n_cells + 2 ? c->n : c->grid.n_cells + 2;
    if (!rc)
        rc = enqueue_1d(dev, c->k_rank, "cells.rank_nodes", items, 64,
                        next_event(evs, n_evs), err);
    if (!rc)
        cell_lists_ranked_moved(c);
    return rc;
}

/* The fixed lists of the last ranking against the counted lists SHADOW of the same
 * positions: each cell's nodes, their positions (POS) and slots. */
static int compare_fixed(cell_lists *c, device_ctx *dev, dbuf *pos, cn_error *err)
{
    cell_lists *s = c->shadow;
    uint32_t n = c->n, cells = c->grid.n_cells, cap = c->fixed_cap;
    uint64_t last = c->ranked_moves - 1;
    size_t half = (size_t)(last & 1), part = (size_t)(last % 3);
    size_t slots = (size_t)cells * cap + n, pw = (size_t)cells + 2;
    uint32_t *counts = malloc(pw * 4), *of = malloc((size_t)n * 4 + 4);
    uint32_t *nodes = malloc(slots * 4), *cell = malloc((size_t)n * 4 + 4);
    uint32_t *slot = malloc((size_t)n * 4 + 4);
    cl_long *fpos = malloc(slots * 32), *p = malloc((size_t)n * 32 + 32);
    uint8_t *listed = calloc((size_t)n + 1, 1);
    int rc = counts && of && nodes && cell && slot && fpos && p && listed
                 ? 0
                 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    if (!rc)
        rc = dbuf_read(dev, &c->rank_counts, part * pw * 4, pw * 4, counts, 1, err);
    if (!rc)
        rc = dbuf_read(dev, &s->cell_of, 0, (size_t)n * 4, of, 1, err);
    if (!rc)
        rc = dbuf_read(dev, &c->fixed_nodes, half * slots * 4, slots * 4, nodes, 1, err);
    if (!rc)
        rc = dbuf_read(dev, &c->fixed_pos, half * slots * 32, slots * 32, fpos, 1, err);
    if (!rc)
        rc = dbuf_read(dev, &c->fixed_cell, half * n * 4, (size_t)n * 4, cell, 1, err);
    if (!rc)
        rc = dbuf_read(dev, &c->fixed_slot, half * n * 4, (size_t)n * 4, slot, 1, err);
    if (!rc)
        rc = dbuf_read(dev, pos, 0, (size_t)n * 32, p, 1, err);
    uint32_t over = rc ? 0 : counts[cells + 1], seen = 0;
    if (!rc && over > n)
        rc = cn_fail(err, CN_ERR_RUNTIME, "the fixed cells on device '%s' hold %u nodes past "
                     "their capacity, more than the %u nodes", dev->info.name, over, n);
    /* every slot in use names a node of its cell, at its position, whose slot it is: each
     * cell's first slots, then those past all the cells' (their cells noted beside) */
    size_t total = rc ? 0 : (size_t)cells + over;
    for (size_t t = 0; t < total && !rc; t++) {
        uint32_t k = t < cells ? (uint32_t)t : 0, used = t < cells && counts[k] < cap ? counts[k] : cap;
        size_t n_at = t < cells ? used : 1;
        for (size_t q = 0; q < n_at && !rc; q++) {
            size_t at = t < cells ? (size_t)k * cap + q : (size_t)cells * cap + (t - cells);
            uint32_t want = t < cells ? k : cell[t - cells];
            uint32_t i = nodes[at];
            if (i >= n || of[i] != want || listed[i] || slot[i] != at ||
                memcmp(&fpos[4 * at], &p[4 * (size_t)i], 32) != 0)
                rc = cn_fail(err, CN_ERR_RUNTIME, "the fixed cells on device '%s' hold node "
                             "%u in cell %u (slot %zu) where the counted lists do not",
                             dev->info.name, i, want, at);
            else
                listed[i] = 1, seen++;
        }
    }
    /* and each cell's count is its nodes' */
    uint32_t *want = rc ? NULL : calloc((size_t)cells + 1, 4);
    if (!rc && !want)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    for (uint32_t i = 0; i < n && !rc; i++)
        want[of[i]]++;
    for (uint32_t k = 0; k < cells && !rc; k++)
        if (want[k] != counts[k])
            rc = cn_fail(err, CN_ERR_RUNTIME, "the fixed cells on device '%s' count %u nodes in "
                         "cell %u, the counted lists %u", dev->info.name, counts[k], k, want[k]);
    if (!rc && seen != n)
        rc = cn_fail(err, CN_ERR_RUNTIME, "the fixed cells on device '%s' hold %u of the %u "
                     "nodes", dev->info.name, seen, n);
    free(want);
    free(counts), free(of), free(nodes), free(cell), free(slot), free(fpos), free(p);
    free(listed);
    return rc;
}

int cell_lists_fixed_check(cell_lists *c, device_ctx *dev, dbuf *pos, cn_error *err)
{
    if (!c->check || !c->fixed_cap || c->ranked_moves == 0)
        return 0;
    int rc = cell_lists_build(c->shadow, dev, pos, NULL, NULL, NULL, err);
    return rc ? rc : compare_fixed(c, dev, pos, err);
}
