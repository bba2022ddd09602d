/* Kademlia: partitions, programs, the ids and routing tables on every device, and the peers'
 * start state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl/kademlia/kademlia_layout.clh"
#include "dist/dist.h"
#include "models/kademlia/kademlia.h"
#include "models/kademlia/kademlia_model.h"

static const char *const kernel_names[KK_N] = {
    "kad_count", "kad_fill", "kad_start", "kad_window", "kad_window_min", "kad_min",
    "kad_open_rows",
};

/* Profile keys (platforms/NAME.ini): the model's name, then the kernel's */
static const char *const profile_names[KK_N] = {
    "kademlia.count",      "kademlia.fill", "kademlia.start",    "kademlia.window",
    "kademlia.window_min", "kademlia.min",  "kademlia.open_rows",
};

const char *kad_kernel_profile_name(int k) { return profile_names[k]; }

/* Lookup records per peer at the start: one (a peer seldom has two lookups open at once with
 * gaps of seconds); more when a peer needs them (kad_grow_records). */
static uint32_t first_records(void)
{
    const char *v = getenv("CLNETSIM_TEST_KADEMLIA_RECORDS");
    if (!v || !*v)
        return 1;
    char *end;
    unsigned long x = strtoul(v, &end, 10);
    return *end == '\0' && x > 0 && x < 1024 ? (uint32_t)x : 1;
}

int kad_wait(kad_model *km, int rc, cn_error *err)
{
    double t0 = wall_seconds();
    for (int i = 0; i < km->n_devs && rc == 0; i++)
        rc = cl_check(clFinish(km->dev[i].dev->queue), "clFinish", km->dev[i].dev->info.name,
                      err);
    km->wait_s += wall_seconds() - t0;
    return rc;
}

static int build_device(kad_model *km, kad_device *d, cn_error *err)
{
    static const char *const sources[] = {"kademlia/kademlia.cl"};
    char options[96];
    snprintf(options, sizeof options, "-DKAD_W=%u -DKAD_K=%u -DKAD_ALPHA=%u", km->W, km->K,
             km->alpha);
    int rc = device_build_program(d->dev, sources, 1, options, &d->prog, err);
    for (int k = 0; k < KK_N && rc == 0; k++) {
        rc = device_create_kernel(d->dev, d->prog, kernel_names[k], &d->k[k], err);
        if (rc)
            break;
        if (k == KK_MIN || k == KK_WINDOW_MIN)
            d->local[k] = device_reduce_size(d->dev, profile_names[k], d->k[k], 8);
        else
            d->local[k] = device_local_size(d->dev, profile_names[k], d->k[k]);
    }
    return rc;
}

/* Partitions: [partition] count, else one per device of the run (every rank's: partitions
 * never move, and each is one more launch a window); contiguous runs of peers of equal length,
 * contiguous runs of them per rank, then per device, each in a block of its own. */
static int make_partitions(kad_model *km, uint64_t all_devs, cn_error *err)
{
    uint64_t want = km->sc.partitions > 0 ? (uint64_t)km->sc.partitions : all_devs;
    if (want > km->N)
        want = km->N;
    if (want > 4096)
        return cn_fail(err, CN_ERR_INPUT, "[partition] count = %llu: the kademlia model takes "
                       "at most 4096 partitions", (unsigned long long)want);
    km->part_peers = (uint32_t)((km->N + want - 1) / want);
    km->n_parts = (km->N + km->part_peers - 1) / km->part_peers;
    km->home = calloc(km->n_parts, sizeof *km->home);
    km->block = calloc(km->n_parts, sizeof *km->block);
    km->group_base = calloc(km->n_parts + 1, sizeof *km->group_base);
    km->part_min = calloc(km->n_parts, sizeof *km->part_min);
    if (!km->home || !km->block || !km->group_base || !km->part_min)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    km->p_lo = (uint32_t)dist_range_first(dist_rank(), km->n_parts);
    km->p_hi = (uint32_t)dist_range_first(dist_rank() + 1, km->n_parts);
    uint64_t n_local = km->p_hi - km->p_lo;
    for (uint32_t p = 0; p < km->n_parts; p++) {
        km->home[p] = -1;
        km->part_min[p] = INT64_MAX; /* another rank's: never planned here */
    }
    for (uint32_t p = km->p_lo; p < km->p_hi; p++) {
        kad_device *d = &km->dev[(p - km->p_lo) * (uint64_t)km->n_devs / n_local];
        km->home[p] = (int)(d - km->dev);
        km->block[p] = d->n_blocks++;
        d->held += kad_part_size(km, p);
    }
    return 0;
}

static int make_groups(kad_model *km, cn_error *err)
{
    size_t local = 0;
    for (int i = 0; i < km->n_devs; i++)
        for (int k = KK_WINDOW_MIN; k <= KK_MIN; k++)
            if (local == 0 || km->dev[i].local[k] < local)
                local = km->dev[i].local[k];
    km->reduce_local = local ? local : 1;
    for (int i = 0; i < km->n_devs; i++) /* every device reduces in groups of one size */
        km->dev[i].local[KK_MIN] = km->dev[i].local[KK_WINDOW_MIN] = km->reduce_local;
    km->block_groups = (uint32_t)((km->part_peers + km->reduce_local - 1) / km->reduce_local);
    uint64_t g = 0;
    for (uint32_t p = 0; p < km->n_parts; p++) {
        km->group_base[p] = (uint32_t)g;
        g += (kad_part_size(km, p) + km->reduce_local - 1) / km->reduce_local;
    }
    km->group_base[km->n_parts] = (uint32_t)g;
    km->group_min_host = calloc(2 * (g ? g : 1), sizeof *km->group_min_host);
    return km->group_min_host ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
}

/* Bytes of D's state with S lookup records per peer (the tables apart). */
static uint64_t state_bytes(const kad_model *km, const kad_device *d, uint32_t s)
{
    uint64_t n = (uint64_t)d->n_blocks * km->part_peers;
    return n * (8 * PS_WORDS + 8 * KS_WORDS + 4ull * s * km->lw) +
           (uint64_t)d->n_blocks * (4 * KAD_HIST_WORDS + 16ull * km->block_groups) +
           4ull * ROW_WORDS * d->row_cap;
}

/* Refuses, before the tables are built, a device that cannot hold them and its peers. */
static int check_memory(const kad_model *km, const kad_device *d, uint64_t entries,
                        uint64_t lpos, cn_error *err)
{
    const device_entry *e = &d->dev->info;
    uint64_t tables = 4ull * km->N * km->W * 2 + 4ull * km->N + 16ull * (km->N + 1) + 4 * entries +
                      2 * lpos;
    uint64_t need = tables + state_bytes(km, d, d->slots);
    if (need > e->global_mem)
        return device_fail(err, e->name, CN_ERR_INPUT,
                           "the kademlia model needs %llu bytes on device '%s' (%llu for the "
                           "routing tables of %u peers, %llu contacts) but it has %llu; use "
                           "fewer peers or a smaller bucket_size",
                           (unsigned long long)need, e->name, (unsigned long long)tables, km->N,
                           (unsigned long long)entries, (unsigned long long)e->global_mem);
    uint64_t look = 4ull * d->n_blocks * km->part_peers * d->slots * km->lw;
    uint64_t big = 4 * entries > look ? 4 * entries : look;
    if (big > e->max_alloc)
        return device_fail(err, e->name, CN_ERR_INPUT,
                           "the kademlia model needs %llu bytes in one buffer on device '%s' "
                           "(its routing tables' contacts or its lookup records) but it allows "
                           "at most %llu in one allocation; use fewer peers or a smaller "
                           "bucket_size", (unsigned long long)big, e->name,
                           (unsigned long long)e->max_alloc);
    return 0;
}

/* The routing tables on every device: the ids and the sorted ids on each; the contacts and
 * buckets counted on the first, their offsets summed here, then filled on each. */
static int build_tables(kad_model *km, const uint32_t *sorted, const uint32_t *sorted_peer,
                        cn_error *err)
{
    size_t n = km->N, w = km->W;
    cl_uint2 *counts = malloc(sizeof *counts * n);
    cl_ulong *toff = malloc(8 * (n + 1)), *lbase = malloc(8 * (n + 1));
    int rc = counts && toff && lbase
                 ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory for %zu peers", n);
    dbuf s_ids[ENGINE_MAX_DEVICES] = {{0}}, s_peer[ENGINE_MAX_DEVICES] = {{0}}, cnt = {0};
    cl_uint N = km->N, B = km->B;
    for (int i = 0; i < km->n_devs && rc == 0; i++) {
        kad_device *d = &km->dev[i];
        rc = dbuf_alloc(d->dev, &d->ids, 4 * n * w, &km->acc, "kademlia ids", err);
        if (!rc)
            rc = dbuf_alloc(d->dev, &s_ids[i], 4 * n * w, &km->acc, "kademlia sorted ids", err);
        if (!rc)
            rc = dbuf_alloc(d->dev, &s_peer[i], 4 * n, &km->acc, "kademlia sorted ids", err);
        if (!rc)
            rc = dbuf_write(d->dev, &d->ids, 0, 4 * n * w, km->ids, 0, err);
        if (!rc)
            rc = dbuf_write(d->dev, &s_ids[i], 0, 4 * n * w, sorted, 0, err);
        if (!rc)
            rc = dbuf_write(d->dev, &s_peer[i], 0, 4 * n, sorted_peer, 0, err);
    }
    kad_device *d0 = &km->dev[0];
    if (!rc)
        rc = dbuf_alloc(d0->dev, &cnt, sizeof *counts * n, &km->acc, "kademlia table counts",
                        err);
    if (!rc)
        rc = kernel_args(d0->dev, d0->k[KK_COUNT_K], profile_names[KK_COUNT_K], err, 5, KARG(N),
                         KARG(B), KBUF(d0->ids), KBUF(s_ids[0]), KBUF(cnt));
    if (!rc)
        rc = enqueue_1d(d0->dev, d0->k[KK_COUNT_K], profile_names[KK_COUNT_K], n,
                        d0->local[KK_COUNT_K], NULL, err);
    if (!rc)
        rc = dbuf_read(d0->dev, &cnt, 0, sizeof *counts * n, counts, 1, err);
    dbuf_release(&cnt, &km->acc);
    if (!rc) {
        toff[0] = lbase[0] = 0;
        for (size_t j = 0; j < n; j++) {
            toff[j + 1] = toff[j] + counts[j].s[0];
            lbase[j + 1] = lbase[j] + counts[j].s[1] + 1;
        }
        km->table_entries = toff[n];
    }
    for (int i = 0; i < km->n_devs && rc == 0; i++)
        rc = check_memory(km, &km->dev[i], toff[n], lbase[n], err);
    for (int i = 0; i < km->n_devs && rc == 0; i++) {
        kad_device *d = &km->dev[i];
        rc = dbuf_alloc(d->dev, &d->toff, 8 * (n + 1), &km->acc, "kademlia tables", err);
        if (!rc)
            rc = dbuf_alloc(d->dev, &d->lbase, 8 * (n + 1), &km->acc, "kademlia tables", err);
        if (!rc)
            rc = dbuf_alloc(d->dev, &d->lpos, 2 * lbase[n], &km->acc, "kademlia tables", err);
        if (!rc)
            rc = dbuf_alloc(d->dev, &d->contacts, 4 * toff[n], &km->acc, "kademlia tables",
                            err);
        if (!rc)
            rc = dbuf_write(d->dev, &d->toff, 0, 8 * (n + 1), toff, 0, err);
        if (!rc)
            rc = dbuf_write(d->dev, &d->lbase, 0, 8 * (n + 1), lbase, 0, err);
        if (!rc)
            rc = kernel_args(d->dev, d->k[KK_FILL], profile_names[KK_FILL], err, 9, KARG(N),
                             KARG(B), KBUF(d->ids), KBUF(s_ids[i]), KBUF(s_peer[i]),
                             KBUF(d->toff), KBUF(d->lbase), KBUF(d->lpos), KBUF(d->contacts));
        if (!rc)
            rc = enqueue_1d(d->dev, d->k[KK_FILL], profile_names[KK_FILL], n,
                            d->local[KK_FILL], NULL, err);
    }
    rc = kad_wait(km, rc, err); /* the host arrays are freed next */
    for (int i = 0; i < km->n_devs; i++) {
        dbuf_release(&s_ids[i], &km->acc);
        dbuf_release(&s_peer[i], &km->acc);
    }
    free(counts);
    free(toff);
    free(lbase);
    return rc;
}

/* The peers' churn periods on D (kad_make_periods; a word each without churn, never read). */
static int upload_periods(kad_model *km, kad_device *d, cn_error *err)
{
    size_t nb = km->session ? (size_t)km->boff[km->N] : 1, no = km->session ? km->N + 1 : 1;
    int rc = dbuf_alloc(d->dev, &d->bounds, 8 * nb, &km->acc, "kademlia churn periods", err);
    if (!rc)
        rc = dbuf_alloc(d->dev, &d->boff, 8 * no, &km->acc, "kademlia churn periods", err);
    if (!rc && km->session) /* not blocking: the host's arrays live as long as the model */
        rc = dbuf_write(d->dev, &d->bounds, 0, 8 * nb, km->bounds, 0, err);
    if (!rc && km->session)
        rc = dbuf_write(d->dev, &d->boff, 0, 8 * no, km->boff, 0, err);
    return rc;
}

/* D's peers: their state, lookup records (zero: free), statistics and histograms, and the
 * first starts. */
static int set_up_state(kad_model *km, kad_device *d, cn_error *err)
{
    device_ctx *dev = d->dev;
    size_t peers = (size_t)d->n_blocks * km->part_peers;
    size_t groups = (size_t)d->n_blocks * km->block_groups;
    int rc = dbuf_alloc(dev, &d->pstate, 8 * PS_WORDS * peers, &km->acc, "kademlia peers", err);
    if (!rc)
        rc = dbuf_alloc(dev, &d->look, 4 * peers * d->slots * km->lw, &km->acc,
                        "kademlia lookups", err);
    if (!rc)
        rc = dbuf_alloc(dev, &d->stats, 8 * KS_WORDS * peers, &km->acc, "kademlia statistics",
                        err);
    if (!rc)
        rc = dbuf_alloc(dev, &d->hist, 4 * KAD_HIST_WORDS * (size_t)d->n_blocks, &km->acc,
                        "kademlia histograms", err);
    if (!rc)
        rc = dbuf_alloc(dev, &d->group_min, 16 * groups, &km->acc, "kademlia minima", err);
    if (!rc)
        rc = dbuf_alloc(dev, &d->ctl, 4 * CTL_WORDS, &km->acc, "kademlia control words", err);
    if (!rc)
        rc = dbuf_alloc(dev, &d->rows, 4 * ROW_WORDS * (size_t)(d->row_cap ? d->row_cap : 1),
                        &km->acc, "kademlia lookup rows", err);
    if (!rc)
        rc = dbuf_zero(dev, &d->look, 0, d->look.bytes, err);
    if (!rc)
        rc = dbuf_zero(dev, &d->hist, 0, d->hist.bytes, err);
    if (!rc)
        rc = dbuf_zero(dev, &d->ctl, 0, d->ctl.bytes, err);
    cl_uint2 key = {{(cl_uint)km->sc.seed, (cl_uint)(km->sc.seed >> 32)}};
    cl_ulong d1 = (cl_ulong)km->gap_max + 1;
    cl_uint P = km->part_peers;
    for (uint32_t p = km->p_lo; p < km->p_hi && rc == 0; p++) {
        if (&km->dev[km->home[p]] != d)
            continue;
        cl_uint first = kad_part_first(km, p), n = kad_part_size(km, p), blk = km->block[p];
        rc = kernel_args(dev, d->k[KK_START], profile_names[KK_START], err, 8, KARG(first),
                         KARG(n), KARG(P), KARG(blk), KARG(d1), KARG(key), KBUF(d->pstate),
                         KBUF(d->stats));
        if (!rc)
            rc = enqueue_1d(dev, d->k[KK_START], profile_names[KK_START], n, d->local[KK_START],
                            NULL, err);
    }
    return rc;
}

int kad_grow_records(kad_model *km, kad_device *d, uint32_t s_new, cn_error *err)
{
    size_t block_old = 4 * (size_t)d->slots * km->part_peers * km->lw;
    size_t block_new = 4 * (size_t)s_new * km->part_peers * km->lw;
    const device_entry *e = &d->dev->info;
    uint64_t total = (uint64_t)block_new * d->n_blocks;
    if (total > e->max_alloc)
        return device_fail(err, e->name, CN_ERR_RUNTIME,
                           "kademlia peers need %u lookup records each on device '%s': %llu "
                           "bytes in one buffer, beyond its %llu; use fewer peers or a longer "
                           "lookup_gap_max", s_new, e->name,
                           (unsigned long long)total, (unsigned long long)e->max_alloc);
    dbuf nb = {0};
    int rc = dbuf_alloc(d->dev, &nb, (size_t)total, &km->acc, "kademlia lookups", err);
    if (!rc)
        rc = dbuf_zero(d->dev, &nb, 0, nb.bytes, err);
    /* a block's records are S rows of P: its old rows go to the start of its new place */
    for (uint32_t b = 0; b < d->n_blocks && rc == 0; b++)
        rc = cl_check(clEnqueueCopyBuffer(d->dev->queue, d->look.mem, nb.mem, block_old * b,
                                          block_new * b, block_old, 0, NULL, NULL),
                      "clEnqueueCopyBuffer", e->name, err);
    if (rc) {
        dbuf_release(&nb, &km->acc);
        return rc;
    }
    dbuf_release(&d->look, &km->acc); /* the copies hold it until they are done */
    d->look = nb;
    memset(&d->window_args, 0, sizeof d->window_args);
    memset(&d->min_args, 0, sizeof d->min_args);
    d->slots = s_new;
    if (km->acc.peak > km->peak_bytes)
        km->peak_bytes = km->acc.peak;
    return 0;
}

int kad_create(struct model_state **out, const scenario *sc, device_ctx *const *devs, int n_devs,
               cn_error *err)
{
    *out = NULL;
    const kademlia_values *v = kademlia_values_of(sc);
    if (v->peers < 2 || v->peers > KADEMLIA_MAX_PEERS || v->id_bits < 32 ||
        v->id_bits > KADEMLIA_MAX_BITS || v->bucket_size < 1 || v->bucket_size > KADEMLIA_MAX_K ||
        v->alpha < 1 || v->alpha > v->bucket_size || v->latency_min_ns <= 0 ||
        v->latency_max_ns < v->latency_min_ns || sc->duration_ns <= 0)
        return cn_fail(err, CN_ERR_INPUT, "the kademlia model needs 2 <= peers < 2^31, 32 <= "
                       "id_bits <= 160, 1 <= alpha <= bucket_size <= 64, 0 < latency_min <= "
                       "latency_max and a duration > 0");
    kad_model *km = calloc(1, sizeof *km);
    if (!km)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    *out = (struct model_state *)(void *)km;
    km->sc = *sc;
    km->N = (uint32_t)v->peers;
    km->B = (uint32_t)v->id_bits;
    km->W = (km->B + 31) / 32;
    km->K = (uint32_t)v->bucket_size;
    km->alpha = (uint32_t)v->alpha;
    km->lw = LK_WORDS(km->W, km->K, km->alpha);
    km->targets_peers = v->targets == KAD_TARGETS_PEERS;
    km->lmin = v->latency_min_ns;
    km->lmax = v->latency_max_ns;
    km->gap_max = v->gap_max_ns;
    km->T = sc->duration_ns;
    km->session = v->session_ns;
    km->offline = v->offline_ns;
    km->rto = v->timeout_ns;
    km->n_devs = n_devs;
    km->rows_on = sc->record_packets;
    /* a window of W latency_min may close more lookups than the rows have room for (a start
     * closes none in its own window of one): with rows, one window a launch */
    km->batch = km->rows_on ? 1 : v->windows_per_launch ? v->windows_per_launch
                                                         : KAD_BATCH_START;
    km->batch_auto = !km->rows_on && v->windows_per_launch == 0;
    /* CLNETSIM_KADEMLIA_FUSED=1: the window's minimum in its launch (measurements) */
    const char *fused = getenv("CLNETSIM_KADEMLIA_FUSED");
    km->fused = fused && strcmp(fused, "1") == 0;
    for (int i = 0; i < n_devs; i++) {
        km->dev[i].dev = devs[i];
        km->dev[i].slots = first_records();
    }
    /* the partitions' count is the run's, whatever the ranks: every rank's devices count
     * (a collective: every rank comes here, past the same checks of the same scenario) */
    uint64_t all_devs = (uint64_t)n_devs;
    int rc = dist_allreduce_u64(&all_devs, 1, DIST_SUM, err);
    if (!rc)
        rc = make_partitions(km, all_devs, err);
    for (int i = 0; i < n_devs && rc == 0; i++) {
        kad_device *d = &km->dev[i];
        /* a window closes at most one lookup per record, and a start closes none: the rows
         * are read back once fewer than that are left (kad_drain_rows) */
        uint64_t cap = 4 * d->held * d->slots + 1024;
        d->row_cap = km->rows_on ? (uint32_t)(cap < (1u << 30) ? cap : 1u << 30) : 0;
        rc = build_device(km, d, err);
    }
    if (!rc)
        rc = make_groups(km, err);
    /* a first judgement before the ids are drawn: every peer's table holds at least k
     * contacts for each of its floor(log2(N / k)) farthest buckets (full) */
    uint64_t full = 0;
    while (((uint64_t)km->K << (full + 1)) <= km->N)
        full++;
    uint64_t least = (uint64_t)km->N * (km->K < km->N - 1 ? km->K : km->N - 1) *
                     (full ? full : 1);
    for (int i = 0; i < n_devs && rc == 0; i++)
        rc = check_memory(km, &km->dev[i], least, km->N, err);
    km->ids = rc ? NULL : malloc(4 * (size_t)km->N * km->W);
    if (!rc && !km->ids)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the ids of %u peers", km->N);
    /* the ids in peer order and sorted, the latter for the table builds alone */
    uint32_t *sorted = rc ? NULL : malloc(4 * (size_t)km->N * km->W);
    uint32_t *sorted_peer = rc ? NULL : malloc(4 * (size_t)km->N);
    if (!rc && (!sorted || !sorted_peer))
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the ids of %u peers", km->N);
    uint64_t redraws = 0;
    if (!rc)
        rc = kad_make_ids(sc->seed, km->N, km->B, km->ids, sorted, sorted_peer, &redraws, err);
    if (!rc)
        rc = build_tables(km, sorted, sorted_peer, err);
    free(sorted);
    free(sorted_peer);
    if (!rc)
        rc = kad_make_periods(km, err);
    for (int i = 0; i < n_devs && rc == 0; i++)
        rc = upload_periods(km, &km->dev[i], err);
    for (int i = 0; i < n_devs && rc == 0; i++)
        rc = set_up_state(km, &km->dev[i], err);
    if (!rc && km->rows_on &&
        record_table_init(&km->rows, &kad_rows_shape, km->N < 65536 ? km->N : 65536) != 0)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the lookups' rows");
    km->rows.hex_digits = (int)((km->B + 3) / 4);
    static const char *const outcomes[] = {"open", "completed", "failed"}; /* ROW_* order */
    for (int o = 0; o < 3 && km->rows_on && rc == 0; o++)
        if (record_table_label(&km->rows, outcomes[o]) != o)
            rc = cn_fail(err, CN_ERR_RUNTIME, "internal error: the lookup rows' labels");
    km->peak_bytes = km->acc.peak;
    if (!rc)
        rc = kad_find_minimum(km, 1, err);
    return rc;
}

void kad_destroy(struct model_state *m)
{
    kad_model *km = kad_of(m);
    if (!km)
        return;
    for (int i = 0; i < km->n_devs; i++)
        if (km->dev[i].dev && km->dev[i].dev->queue)
            clFinish(km->dev[i].dev->queue);
    for (int i = 0; i < km->n_devs; i++) {
        kad_device *d = &km->dev[i];
        dbuf *bufs[] = {&d->ids,    &d->toff,  &d->lbase, &d->lpos,      &d->contacts,
                        &d->pstate, &d->look,  &d->stats, &d->hist,      &d->group_min,
                        &d->ctl,    &d->rows,  &d->bounds, &d->boff};
        for (size_t b = 0; b < sizeof bufs / sizeof bufs[0]; b++)
            dbuf_release(bufs[b], &km->acc);
        for (int k = 0; k < KK_N; k++)
            if (d->k[k])
                clReleaseKernel(d->k[k]);
        if (d->prog)
            clReleaseProgram(d->prog);
    }
    record_table_free(&km->rows);
    free(km->home);
    free(km->block);
    free(km->group_base);
    free(km->part_min);
    free(km->group_min_host);
    free(km->ids);
    free(km->bounds);
    free(km->boff);
    free(km);
}
