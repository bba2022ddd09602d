/* PHOLD: sizes, the memory check, programs, buffers and the start state on each device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl/phold/phold_layout.clh"
#include "common/exp_quantiles.h"
#include "dist/dist.h"
#include "models/phold/phold.h"
#include "models/phold/phold_model.h"

static const char *const kernel_names[PK_COUNT] = {
    "phold_start", "phold_execute", "phold_deliver", "phold_regrow", "phold_min", "phold_results",
    "phold_next",
};

/* Profile keys (platforms/NAME.ini): the model's name, then the kernel's */
static const char *const profile_names[PK_COUNT] = {
    "phold.start", "phold.execute", "phold.deliver", "phold.regrow", "phold.min", "phold.results",
    "phold.next",
};

const char *phold_kernel_profile_name(int k) { return profile_names[k]; }

static uint32_t env_count(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return 0;
    char *end;
    unsigned long x = strtoul(v, &end, 10);
    return (*end == '\0' && x > 0 && x < 0x40000000UL) ? (uint32_t)x : 0;
}

/* The compact table of CPU devices (phold_device.exp_base, exp_off): each block of the
 * ascending table as a 64-bit base (its first entry) and 32-bit offsets from it; a block
 * whose last offset does not fit 32 bits (the tail of a long mean) gets the base -1, and the
 * kernel reads its delays from the full table. Exact for every mean. */
static void fill_compact_table(const int64_t *table, int64_t *base, uint32_t *off)
{
    for (int b = 0; b < PHOLD_EXP_BLOCKS; b++) {
        const int64_t *blk = table + (size_t)b * PHOLD_EXP_BLOCK;
        int fits = (uint64_t)(blk[PHOLD_EXP_BLOCK - 1] - blk[0]) <= UINT32_MAX;
        base[b] = fits ? blk[0] : -1;
        for (int j = 0; j < PHOLD_EXP_BLOCK; j++)
            off[b * PHOLD_EXP_BLOCK + j] = fits ? (uint32_t)(blk[j] - blk[0]) : 0;
    }
}

/* Which execution a device runs: phold_execute_cpu on devices of type CPU, where a
 * work-group is a loop over its work-items and cache misses set the pace, phold_execute on
 * the others (docs/models/phold.md, "Execution on CPUs"); both give the same state, bit for
 * bit. CLNETSIM_TEST_PHOLD_EXECUTE=general makes every device run phold_execute, so that the
 * tests, which run on CPUs, check it too. */
static int cpu_shaped(const device_ctx *dev)
{
    const char *v = getenv("CLNETSIM_TEST_PHOLD_EXECUTE");
    if (v && strcmp(v, "general") == 0)
        return 0;
    return (dev->info.type & CL_DEVICE_TYPE_CPU) != 0;
}

/* Slots per LP at the start: twice the population (an LP's count wanders around E), at least
 * E + 8; more only when an LP overflows (phold_grow_slots). */
static uint32_t first_slots(uint32_t E)
{
    uint32_t hook = env_count("CLNETSIM_TEST_PHOLD_SLOTS");
    if (hook)
        return hook < E ? E : hook;
    uint64_t c = 2 * (uint64_t)E;
    if (c < (uint64_t)E + 8)
        c = (uint64_t)E + 8;
    return c > 0x7fffffffu ? 0x7fffffffu : (uint32_t)c;
}

/* Outbox records at the start: an eighth of the population, which a window's remote events
 * seldom pass (a full outbox costs one more pass of the window, never an event). */
static uint32_t first_outbox(uint64_t population)
{
    uint32_t hook = env_count("CLNETSIM_TEST_PHOLD_OUTBOX");
    if (hook)
        return hook;
    uint64_t c = population / 8;
    if (c < 4096)
        c = 4096;
    return c > (1u << 30) ? (1u << 30) : (uint32_t)c;
}

/* Bytes a device holds for BLOCKS partitions of LPs with C slots each and an exchange outbox
 * of OUT records. */
static uint64_t device_bytes(const phold_model *pm, const phold_device *d, uint64_t blocks,
                             uint32_t C, uint32_t out)
{
    uint64_t n = blocks * pm->part_lps, groups = blocks * pm->block_groups;
    return 4 * n + 16 * n * C + 8 * STAT_WORDS * n + 8 * PHOLD_EXP_ENTRIES +
           (d->cpu_shape ? 8 * PHOLD_EXP_BLOCKS + 4 * PHOLD_EXP_ENTRIES : 0) +
           exchange_device_bytes(16, out, pm->n_parts) + 16 * groups + 8 * RES_WORDS * groups +
           4 * (uint64_t)pm->n_parts;
}

/* The LPs of the partitions D holds. */
static uint64_t held_lps(const phold_model *pm, const phold_device *d)
{
    uint64_t n = 0;
    for (uint32_t p = pm->p_lo; p < pm->p_hi; p++)
        if (&pm->dev[pm->home[p]] == d)
            n += pm->N - p * pm->part_lps < pm->part_lps ? pm->N - p * pm->part_lps
                                                         : pm->part_lps;
    return n;
}

/* Refuses, before any allocation, a device that cannot hold the start of the partitions it
 * holds (with an outbox of OUT records): each device is judged by its own share. */
static int check_memory(const phold_model *pm, const phold_device *d, uint32_t out,
                        cn_error *err)
{
    uint64_t need = device_bytes(pm, d, d->n_blocks, d->slots_per_lp, out);
    uint64_t lps = held_lps(pm, d);
    /* two buffers of half of it */
    uint64_t slots = 16 * (uint64_t)d->n_blocks * pm->part_lps * d->slots_per_lp;
    const device_entry *e = &d->dev->info;
    if (need > e->global_mem)
        return device_fail(err, e->name, CN_ERR_INPUT,
                           "the phold model needs %llu bytes on device '%s' (%llu LPs x %u "
                           "event slots of 16 bytes, and %llu bytes of outbox and statistics) "
                           "but it has %llu; use fewer LPs, a smaller population or more "
                           "devices", (unsigned long long)need, e->name,
                           (unsigned long long)lps, d->slots_per_lp,
                           (unsigned long long)(need - slots),
                           (unsigned long long)e->global_mem);
    if (slots / 2 > e->max_alloc)
        return device_fail(err, e->name, CN_ERR_INPUT,
                           "the phold model's event slots need %llu bytes in one buffer (%llu "
                           "LPs x %u slots of 8 bytes) but device '%s' allows at most %llu in "
                           "one allocation; use fewer LPs, a smaller population or more devices",
                           (unsigned long long)(slots / 2), (unsigned long long)lps,
                           d->slots_per_lp, e->name, (unsigned long long)e->max_alloc);
    return 0;
}

static int build_device(phold_model *pm, phold_device *d, cn_error *err)
{
    static const char *const sources[] = {"phold/phold.cl", "phold/phold_cpu.cl"};
    d->cpu_shape = cpu_shaped(d->dev);
    int rc = device_build_program(d->dev, sources, d->cpu_shape ? 2 : 1, "", &d->prog, err);
    for (int k = 0; k < PK_COUNT && rc == 0; k++) {
        const char *name = k == PK_EXECUTE && d->cpu_shape ? "phold_execute_cpu"
                                                           : kernel_names[k];
        rc = device_create_kernel(d->dev, d->prog, name, &d->k[k], err);
        if (rc)
            break;
        if (k == PK_MIN || k == PK_RESULTS || k == PK_NEXT) /* tree reductions */
            d->local[k] = device_reduce_size(d->dev, profile_names[k], d->k[k], 8);
        else
            d->local[k] = device_local_size(d->dev, profile_names[k], d->k[k]);
    }
    (void)pm;
    return rc;
}

/* Replaces B, blocks of OLD_BLOCK bytes, by blocks of NEW_BLOCK bytes, each taken block's
 * bytes at the start of its new place. */
static int relayout(phold_model *pm, phold_device *d, dbuf *b, size_t old_block,
                    size_t new_block, cn_error *err)
{
    dbuf nb = {0};
    int rc = dbuf_alloc(d->dev, &nb, new_block * d->n_blocks, &pm->acc, "phold event slots",
                        err);
    for (uint32_t k = 0; k < d->n_blocks && rc == 0; k++)
        if (d->taken[k])
            rc = cl_check(clEnqueueCopyBuffer(d->dev->queue, b->mem, nb.mem, old_block * k,
                                              new_block * k, old_block, 0, NULL, NULL),
                          "clEnqueueCopyBuffer", d->dev->info.name, err);
    if (rc) {
        dbuf_release(&nb, &pm->acc);
        return rc;
    }
    dbuf_release(b, &pm->acc); /* the copies hold it until they are done */
    *b = nb;
    return 0;
}

int phold_grow_slots(phold_model *pm, phold_device *d, uint32_t c_new, cn_error *err)
{
    int rc = 0;
    cl_uint c_old = d->slots_per_lp;
    for (uint32_t p = pm->p_lo; p < pm->p_hi && rc == 0; p++) {
        if (&pm->dev[pm->home[p]] != d)
            continue;
        cl_ulong at = phold_lp_at(pm, p);
        cl_uint n = pm->N - p * pm->part_lps < pm->part_lps ? pm->N - p * pm->part_lps
                                                            : pm->part_lps;
        rc = kernel_args(d->dev, d->k[PK_REGROW], profile_names[PK_REGROW], err, 4, KARG(at),
                         KARG(n), KARG(c_old), KBUF(d->cnt));
        if (!rc)
            rc = enqueue_1d(d->dev, d->k[PK_REGROW], profile_names[PK_REGROW], n,
                            d->local[PK_REGROW], NULL, err);
    }
    /* a block's slots are C rows of P: each block's old rows go to the start of its new place */
    size_t row = 8 * (size_t)pm->part_lps;
    if (!rc)
        rc = relayout(pm, d, &d->slot_t, row * c_old, row * c_new, err);
    if (!rc)
        rc = relayout(pm, d, &d->slot_os, row * c_old, row * c_new, err);
    if (!rc)
        d->slots_per_lp = c_new;
    return rc;
}

static int write_block_map(phold_device *d, uint32_t p, uint32_t value, cn_error *err)
{
    return dbuf_write(d->dev, &d->block_map, 4 * (size_t)p, 4, &value, 1, err);
}

int phold_take_block(phold_model *pm, phold_device *d, uint32_t p, uint32_t *block,
                     cn_error *err)
{
    uint32_t k = 0;
    while (k < d->n_blocks && d->taken[k])
        k++;
    int rc = 0;
    if (k == d->n_blocks) { /* none free: one more block at the end of every array */
        size_t P = pm->part_lps, nb = (size_t)k + 1, g = pm->block_groups;
        rc = dbuf_grow(d->dev, &d->cnt, 4 * P * nb, d->cnt.bytes, &pm->acc,
                       "phold event counts", err);
        if (!rc)
            rc = dbuf_grow(d->dev, &d->slot_t, 8 * P * d->slots_per_lp * nb, d->slot_t.bytes,
                           &pm->acc, "phold event slots", err);
        if (!rc)
            rc = dbuf_grow(d->dev, &d->slot_os, 8 * P * d->slots_per_lp * nb, d->slot_os.bytes,
                           &pm->acc, "phold event slots", err);
        if (!rc)
            rc = dbuf_grow(d->dev, &d->stats, 8 * STAT_WORDS * P * nb, d->stats.bytes,
                           &pm->acc, "phold statistics", err);
        if (!rc)
            rc = dbuf_grow(d->dev, &d->group_min, 16 * g * nb, d->group_min.bytes, &pm->acc,
                           "phold minima", err);
        if (!rc)
            rc = dbuf_grow(d->dev, &d->group_res, 8 * RES_WORDS * g * nb, d->group_res.bytes,
                           &pm->acc, "phold results", err);
        if (rc)
            return rc;
        d->n_blocks++;
    }
    rc = write_block_map(d, p, k, err);
    if (!rc) {
        d->taken[k] = 1;
        *block = k;
    }
    return rc;
}

void phold_give_block(phold_model *pm, phold_device *d, uint32_t block)
{
    (void)pm;
    d->taken[block] = 0; /* the block map's entry is never read: the partition is not here */
}

/* Buffers of D, the exponential table, and the start events of the partitions D holds. */
static int set_up_device(phold_model *pm, phold_device *d, const int64_t *exp_table,
                         const int64_t *exp_base, const uint32_t *exp_off, cn_error *err)
{
    device_ctx *dev = d->dev;
    size_t lps = (size_t)d->n_blocks * pm->part_lps;
    size_t groups = (size_t)d->n_blocks * pm->block_groups;
    int rc = dbuf_alloc(dev, &d->exp_table, 8 * PHOLD_EXP_ENTRIES, &pm->acc, "phold delays", err);
    if (!rc && d->cpu_shape)
        rc = dbuf_alloc(dev, &d->exp_base, 8 * PHOLD_EXP_BLOCKS, &pm->acc, "phold delays", err);
    if (!rc && d->cpu_shape)
        rc = dbuf_alloc(dev, &d->exp_off, 4 * PHOLD_EXP_ENTRIES, &pm->acc, "phold delays", err);
    if (!rc)
        rc = dbuf_alloc(dev, &d->cnt, 4 * lps, &pm->acc, "phold event counts", err);
    if (!rc)
        rc = dbuf_alloc(dev, &d->slot_t, 8 * lps * d->slots_per_lp, &pm->acc,
                        "phold event slots", err);
    if (!rc)
        rc = dbuf_alloc(dev, &d->slot_os, 8 * lps * d->slots_per_lp, &pm->acc,
                        "phold event slots", err);
    if (!rc)
        rc = dbuf_alloc(dev, &d->stats, 8 * STAT_WORDS * lps, &pm->acc, "phold statistics",
                        err);
    if (!rc)
        rc = dbuf_alloc(dev, &d->group_min, 16 * groups, &pm->acc, "phold minima", err);
    if (!rc)
        rc = dbuf_alloc(dev, &d->group_res, 8 * RES_WORDS * groups, &pm->acc, "phold results",
                        err);
    if (!rc)
        rc = dbuf_alloc(dev, &d->block_map, 4 * (size_t)pm->n_parts, &pm->acc,
                        "phold block map", err);
    if (!rc) /* the words of chained windows, which the kernels take always (set_up_chain) */
        rc = dbuf_alloc(dev, &d->win, 8 * WIN_WORDS, &pm->acc, "phold chain", err);
    if (!rc)
        rc = dbuf_zero(dev, &d->win, 0, d->win.bytes, err);
    if (rc)
        return rc;
    rc = dbuf_write(dev, &d->exp_table, 0, 8 * PHOLD_EXP_ENTRIES, exp_table, 0, err);
    if (!rc && d->cpu_shape)
        rc = dbuf_write(dev, &d->exp_base, 0, 8 * PHOLD_EXP_BLOCKS, exp_base, 0, err);
    if (!rc && d->cpu_shape)
        rc = dbuf_write(dev, &d->exp_off, 0, 4 * PHOLD_EXP_ENTRIES, exp_off, 0, err);
    if (!rc)
        rc = dbuf_zero(dev, &d->cnt, 0, d->cnt.bytes, err);
    if (!rc)
        rc = dbuf_zero(dev, &d->stats, 0, d->stats.bytes, err);
    uint32_t *map = rc ? NULL : malloc(4 * (size_t)pm->n_parts);
    if (!rc && !map)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    for (uint32_t p = 0; p < pm->n_parts && rc == 0; p++)
        map[p] = pm->home[p] == (int)(d - pm->dev) ? pm->block[p] : UINT32_MAX;
    if (!rc) /* blocking: MAP is freed next */
        rc = dbuf_write(dev, &d->block_map, 0, 4 * (size_t)pm->n_parts, map, 1, err);
    free(map);
    cl_uint2 key = {{(cl_uint)pm->sc.seed, (cl_uint)(pm->sc.seed >> 32)}};
    cl_uint E = pm->E, P = pm->part_lps, C = d->slots_per_lp;
    cl_long A = pm->lookahead;
    for (uint32_t p = pm->p_lo; p < pm->p_hi && rc == 0; p++) {
        if (&pm->dev[pm->home[p]] != d)
            continue;
        cl_uint first = p * pm->part_lps, blk = pm->block[p];
        cl_uint n = pm->N - first < pm->part_lps ? pm->N - first : pm->part_lps;
        cl_ulong n_events = (cl_ulong)n * E;
        rc = kernel_args(dev, d->k[PK_START], profile_names[PK_START], err, 13, KARG(first),
                         KARG(n_events), KARG(E), KARG(P), KARG(blk), KARG(C), KARG(A),
                         KARG(key), KBUF(d->exp_table), KBUF(d->cnt), KBUF(d->slot_t),
                         KBUF(d->slot_os), KBUF(d->stats));
        if (!rc)
            rc = enqueue_1d(dev, d->k[PK_START], profile_names[PK_START], (size_t)n_events,
                            d->local[PK_START], NULL, err);
    }
    if (!rc && clFinish(dev->queue) != CL_SUCCESS) /* the host's tables are freed next */
        rc = cl_check(clFinish(dev->queue), "clFinish", dev->info.name, err);
    return rc;
}

/* Chained windows (phold_window.c), with one device in one process: the chain's words and
 * the list of group_min's groups that hold the partitions' least times (blocks never move
 * there). The value in force: the scenario's, or the run's choice from its start. */
static int set_up_chain(phold_model *pm, cn_error *err)
{
    const phold_values *ph = phold_values_of(&pm->sc);
    pm->per_read = 1;
    pm->chain = pm->n_devs == 1 && dist_size() == 1;
    pm->per_read_auto = pm->chain && ph->windows_per_read == 0;
    if (!pm->chain)
        return 0;
    pm->per_read = ph->windows_per_read ? ph->windows_per_read : PHOLD_PER_READ_START;
    phold_device *d = &pm->dev[0];
    d->n_chain_groups = pm->group_base[pm->p_hi] - pm->group_base[pm->p_lo];
    uint32_t *groups = malloc(4 * (size_t)(d->n_chain_groups ? d->n_chain_groups : 1));
    if (!groups)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    uint32_t at = 0;
    for (uint32_t p = pm->p_lo; p < pm->p_hi; p++)
        for (uint32_t g = 0; g < pm->group_base[p + 1] - pm->group_base[p]; g++)
            groups[at++] = (uint32_t)phold_group_at(pm, p) + g;
    int rc = dbuf_alloc(d->dev, &d->chain_groups, 4 * (size_t)(at ? at : 1), &pm->acc,
                        "phold chain", err);
    if (!rc) /* blocking: GROUPS is freed next */
        rc = dbuf_write(d->dev, &d->chain_groups, 0, 4 * (size_t)at, groups, 1, err);
    free(groups);
    return rc;
}

/* Partitions: [partition] partitions, else four per device of the run (ALL_DEVS, every
 * rank's); ranges of equal length, contiguous runs of them per rank, then per device. */
static int make_partitions(phold_model *pm, int n_devs, uint64_t all_devs, cn_error *err)
{
    uint64_t want = pm->sc.partitions > 0 ? (uint64_t)pm->sc.partitions : 4 * all_devs;
    if (want > pm->N)
        want = pm->N;
    if (want > 4096)
        return cn_fail(err, CN_ERR_INPUT, "[partition] count = %llu: the phold model takes "
                       "at most 4096 partitions", (unsigned long long)want);
    pm->part_lps = (uint32_t)((pm->N + want - 1) / want);
    pm->n_parts = (pm->N + pm->part_lps - 1) / pm->part_lps;
    pm->home = calloc(pm->n_parts, sizeof *pm->home);
    pm->block = calloc(pm->n_parts, sizeof *pm->block);
    pm->group_base = calloc(pm->n_parts + 1, sizeof *pm->group_base);
    pm->part_min = calloc(pm->n_parts, sizeof *pm->part_min);
    pm->rank_of = calloc(pm->n_parts, sizeof *pm->rank_of);
    pm->rank_first = calloc((size_t)dist_size() + 1, sizeof *pm->rank_first);
    for (int i = 0; i < n_devs; i++)
        if (!(pm->dev[i].taken = calloc(pm->n_parts, 1)))
            return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    if (!pm->home || !pm->block || !pm->group_base || !pm->part_min || !pm->rank_of ||
        !pm->rank_first)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    for (int r = 0; r <= dist_size(); r++)
        pm->rank_first[r] = (uint32_t)dist_range_first(r, pm->n_parts);
    pm->p_lo = (uint32_t)dist_range_first(dist_rank(), pm->n_parts);
    pm->p_hi = (uint32_t)dist_range_first(dist_rank() + 1, pm->n_parts);
    for (uint32_t p = 0; p < pm->n_parts; p++) {
        pm->rank_of[p] = dist_range_rank(p, pm->n_parts);
        pm->home[p] = -1;
        pm->part_min[p] = INT64_MAX; /* another rank's: never planned here */
    }
    /* contiguous runs of this rank's partitions per device, each in a block of its own */
    uint64_t n_local = pm->p_hi - pm->p_lo;
    for (uint32_t p = pm->p_lo; p < pm->p_hi; p++) {
        phold_device *d = &pm->dev[(p - pm->p_lo) * (uint64_t)n_devs / n_local];
        pm->home[p] = (int)(d - pm->dev);
        pm->block[p] = d->n_blocks;
        d->taken[d->n_blocks++] = 1;
    }
    return 0;
}

static int make_groups(phold_model *pm, cn_error *err)
{
    size_t local = 0;
    for (int i = 0; i < pm->n_devs; i++)
        for (int k = PK_MIN; k <= PK_RESULTS; k++)
            if (local == 0 || pm->dev[i].local[k] < local)
                local = pm->dev[i].local[k];
    pm->reduce_local = local ? local : 1;
    for (int i = 0; i < pm->n_devs; i++) /* every device reduces in groups of one size */
        pm->dev[i].local[PK_MIN] = pm->dev[i].local[PK_RESULTS] = pm->reduce_local;
    pm->block_groups = (uint32_t)((pm->part_lps + pm->reduce_local - 1) / pm->reduce_local);
    uint64_t g = 0;
    for (uint32_t p = 0; p < pm->n_parts; p++) {
        pm->group_base[p] = (uint32_t)g;
        uint32_t first = p * pm->part_lps;
        uint32_t n = pm->N - first < pm->part_lps ? pm->N - first : pm->part_lps;
        g += (n + pm->reduce_local - 1) / pm->reduce_local;
    }
    pm->group_base[pm->n_parts] = (uint32_t)g;
    /* pinned: read back every window */
    size_t bytes = 2 * (g ? g : 1) * sizeof *pm->group_min_host;
    pm->group_min_host = host_area_alloc(pm->dev[0].dev, bytes, &pm->group_min_mem);
    if (pm->group_min_host)
        memset(pm->group_min_host, 0, bytes);
    if (!pm->group_min_host)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    return 0;
}

int phold_create(struct model_state **out, const scenario *sc, device_ctx *const *devs, int n_devs,
                 cn_error *err)
{
    *out = NULL;
    const phold_values *ph = phold_values_of(sc);
    if (ph->lps < 1 || ph->lps > PHOLD_MAX_LPS || ph->population < 1 ||
        ph->population > PHOLD_MAX_POPULATION || ph->lookahead_ns <= 0 || ph->mean_ns < 0 ||
        sc->duration_ns <= 0)
        return cn_fail(err, CN_ERR_INPUT, "the phold model needs lps >= 1, population >= 1, "
                       "lookahead > 0, mean >= 0 and a duration > 0");
    phold_model *pm = calloc(1, sizeof *pm);
    if (!pm)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    *out = (struct model_state *)(void *)pm;
    pm->sc = *sc;
    pm->N = (uint32_t)ph->lps;
    pm->E = (uint32_t)ph->population;
    pm->lookahead = ph->lookahead_ns;
    pm->T = sc->duration_ns;
    pm->remote_thr = ph->remote_threshold;
    pm->n_devs = n_devs;
    /* the partitions' count is the run's, whatever the ranks: every rank's devices count
     * (a collective: every rank comes here, past the same checks of the same scenario) */
    uint64_t all_devs = (uint64_t)n_devs;
    int rc = dist_allreduce_u64(&all_devs, 1, DIST_SUM, err);
    if (!rc)
        rc = make_partitions(pm, n_devs, all_devs, err);
    uint32_t out_cap = first_outbox((uint64_t)pm->N * pm->E);
    for (int i = 0; i < n_devs && rc == 0; i++) {
        pm->dev[i].dev = devs[i];
        pm->dev[i].slots_per_lp = first_slots(pm->E);
        rc = build_device(pm, &pm->dev[i], err);
    }
    if (!rc)
        rc = make_groups(pm, err);
    for (int i = 0; i < n_devs && rc == 0; i++)
        rc = check_memory(pm, &pm->dev[i], out_cap, err);
    if (!rc)
        rc = phold_exchange_init(pm, out_cap, err);
    int64_t *table = rc ? NULL : malloc(8 * PHOLD_EXP_ENTRIES);
    int64_t *base = rc ? NULL : malloc(8 * PHOLD_EXP_BLOCKS);
    uint32_t *off = rc ? NULL : malloc(4 * PHOLD_EXP_ENTRIES);
    if (!rc && (!table || !base || !off))
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    if (!rc) {
        exp_quantiles(ph->mean_ns, table);
        fill_compact_table(table, base, off);
    }
    for (int i = 0; i < n_devs && rc == 0; i++)
        rc = set_up_device(pm, &pm->dev[i], table, base, off, err);
    if (!rc)
        rc = set_up_chain(pm, err);
    free(table);
    free(base);
    free(off);
    pm->peak_bytes = pm->acc.peak;
    if (!rc)
        rc = phold_find_minimum(pm, err);
    return rc;
}

void phold_destroy(struct model_state *m)
{
    phold_model *pm = phold_of(m);
    if (!pm)
        return;
    for (int i = 0; i < pm->n_devs; i++)
        if (pm->dev[i].dev && pm->dev[i].dev->queue)
            clFinish(pm->dev[i].dev->queue);
    if (pm->ex_ready)
        exchange_release(&pm->ex);
    if (pm->group_min_host)
        host_area_free(pm->dev[0].dev, pm->group_min_mem, pm->group_min_host);
    for (int i = 0; i < pm->n_devs; i++) {
        phold_device *d = &pm->dev[i];
        dbuf *bufs[] = {&d->exp_table, &d->exp_base,  &d->exp_off,   &d->cnt,
                        &d->slot_t,    &d->slot_os,   &d->stats,     &d->group_min,
                        &d->group_res, &d->block_map, &d->win,       &d->chain_groups};
        for (size_t b = 0; b < sizeof bufs / sizeof bufs[0]; b++)
            dbuf_release(bufs[b], &pm->acc);
        for (int k = 0; k < PK_COUNT; k++)
            if (d->k[k])
                clReleaseKernel(d->k[k]);
        if (d->prog)
            clReleaseProgram(d->prog);
        free(d->taken);
    }
    free(pm->home);
    free(pm->block);
    free(pm->group_base);
    free(pm->part_min);
    free(pm->rank_of);
    free(pm->rank_first);
    free(pm);
}
