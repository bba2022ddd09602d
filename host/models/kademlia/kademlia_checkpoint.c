/* Kademlia checkpoints: the peers' state read from the devices into the records of
 * kademlia_ckpt_format.h, and written back to a run of other devices, partitions or ranks
 * (docs/when-things-go-wrong.md, "Checkpoints and resuming"). */
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "models/kademlia/kademlia.h"
#include "models/kademlia/kademlia_ckpt_format.h"
#include "models/kademlia/kademlia_model.h"

/* Every kademlia run can be saved. */
int kad_can_checkpoint(const struct model_state *m, cn_error *err)
{
    (void)m;
    (void)err;
    return 0;
}

static int no_memory(cn_error *err)
{
    return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for a checkpoint");
}

/* This rank's peers, [LO, LO + N): its partitions' (contiguous, in order). */
typedef struct peer_range {
    uint32_t lo, n;
} peer_range;

static peer_range rank_peers(const kad_model *km)
{
    uint64_t lo = (uint64_t)km->p_lo * km->part_peers, hi = (uint64_t)km->p_hi * km->part_peers;
    lo = lo < km->N ? lo : km->N;
    hi = hi < km->N ? hi : km->N;
    return (peer_range){(uint32_t)lo, (uint32_t)(hi - lo)};
}

/* ---- save -------------------------------------------------------------------------------- */

/* A growing array of records of LW words, each with its peer (within a partition). */
typedef struct record_list {
    uint32_t *words;
    uint32_t *peer;
    uint64_t n, cap;
} record_list;

static int list_add(record_list *l, uint32_t lw, uint32_t peer, const uint32_t *r)
{
    if (l->n == l->cap) {
        uint64_t cap = l->cap ? 2 * l->cap : 256;
        uint32_t *w = realloc(l->words, 4 * (size_t)cap * lw);
        if (!w)
            return -1;
        l->words = w;
        uint32_t *p = realloc(l->peer, 4 * (size_t)cap);
        if (!p)
            return -1;
        l->peer = p;
        l->cap = cap;
    }
    memcpy(l->words + (size_t)l->n * lw, r, 4 * (size_t)lw);
    l->peer[l->n++] = peer;
    return 0;
}

/* The words a lookup no longer reads zeroed (the top past its size, the free entries in
 * flight), so that the bytes depend on the state alone, not on what a record held before. */
static void canonical(const kad_model *km, uint32_t *r)
{
    uint32_t nt = (r[LK_FLAGS] >> 16) & 0xffu;
    for (uint32_t b = nt; b < km->K; b++)
        r[LK_TOP(km->W) + 2 * b] = r[LK_TOP(km->W) + 2 * b + 1] = 0;
    for (uint32_t e = 0; e < km->alpha; e++) {
        uint32_t *f = r + LK_FLY(km->W, km->K) + LK_FLY_WORDS * e;
        if ((f[4] & 3u) == FLY_FREE)
            memset(f, 0, 4 * LK_FLY_WORDS);
    }
}

/* qsort has no context: the records' width travels in a static */
static uint32_t sort_lw;
static const record_list *sort_list;

static int by_peer_number(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    uint32_t px = sort_list->peer[x], py = sort_list->peer[y];
    if (px != py)
        return px < py ? -1 : 1;
    uint32_t nx = sort_list->words[x * sort_lw + LK_N], ny = sort_list->words[y * sort_lw + LK_N];
    return nx < ny ? -1 : nx > ny;
}

/* Partition P's peers (entries FIRST - R.lo on of PEERS) and their records, appended to OUT
 * by (peer, number); its histograms added to HIST. */
static int save_partition(kad_model *km, uint32_t p, peer_range r, kad_ckpt_peer *peers,
                          record_list *out, uint64_t *hist, cn_error *err)
{
    kad_device *d = &km->dev[km->home[p]];
    size_t P = km->part_peers, n = kad_part_size(km, p), b = km->block[p], lw = km->lw;
    kad_ckpt_peer *pp = peers + (kad_part_first(km, p) - r.lo);
    int64_t *ps = malloc(8 * n * 2);
    uint64_t *st = malloc(8 * n);
    uint32_t *rows = malloc(4 * n * lw), h[KAD_HIST_WORDS];
    record_list part = {0};
    int rc = ps && st && rows ? 0 : no_memory(err);
    for (int s = 0; s < 2 && rc == 0; s++) /* PS_NEXT_START, PS_STARTED */
        rc = dbuf_read(d->dev, &d->pstate, 8 * ((b * PS_WORDS + (size_t)s) * P), 8 * n,
                       ps + (size_t)s * n, 1, err);
    for (size_t g = 0; g < n && rc == 0; g++) {
        pp[g].next_start = ps[PS_NEXT_START * n + g];
        pp[g].started = ps[PS_STARTED * n + g];
        pp[g].records = 0;
    }
    for (int s = 0; s < KS_WORDS && rc == 0; s++) {
        rc = dbuf_read(d->dev, &d->stats, 8 * ((b * KS_WORDS + (size_t)s) * P), 8 * n, st, 1,
                       err);
        for (size_t g = 0; g < n && rc == 0; g++)
            pp[g].stats[s] = st[g];
    }
    for (uint32_t q = 0; q < d->slots && rc == 0; q++) {
        rc = dbuf_read(d->dev, &d->look, 4 * (((size_t)b * d->slots + q) * P * lw), 4 * n * lw,
                       rows, 1, err);
        for (size_t g = 0; g < n && rc == 0; g++) {
            uint32_t *rec = rows + g * lw;
            if (!(rec[LK_FLAGS] & LKF_USED))
                continue;
            canonical(km, rec);
            if (list_add(&part, (uint32_t)lw, (uint32_t)g, rec) != 0)
                rc = no_memory(err);
            else
                pp[g].records++;
        }
    }
    uint64_t *order = rc || part.n == 0 ? NULL : malloc(8 * (size_t)part.n);
    if (!rc && part.n && !order)
        rc = no_memory(err);
    for (uint64_t k = 0; k < part.n && rc == 0; k++)
        order[k] = k;
    if (!rc && part.n) {
        sort_lw = (uint32_t)lw;
        sort_list = &part;
        qsort(order, part.n, sizeof *order, by_peer_number);
    }
    for (uint64_t k = 0; k < part.n && rc == 0; k++)
        if (list_add(out, (uint32_t)lw, part.peer[order[k]], part.words + order[k] * lw) != 0)
            rc = no_memory(err);
    if (!rc)
        rc = dbuf_read(d->dev, &d->hist, 4 * b * KAD_HIST_WORDS, sizeof h, h, 1, err);
    for (int k = 0; k < KAD_CKPT_BINS && rc == 0; k++)
        hist[k] += ((uint64_t)h[2 * k + 1] << 32) | h[2 * k];
    free(order);
    free(part.words);
    free(part.peer);
    free(ps);
    free(st);
    free(rows);
    return rc;
}

static int by_origin_number(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The rows read back so far (this rank's peers'), as the devices' words, by (origin,
 * number): *WORDS (malloc'ed) and *N. */
static int save_rows(const kad_model *km, uint32_t **words, uint64_t *n, cn_error *err)
{
    int cells = record_row_cells(&kad_rows_shape);
    int64_t rows = km->rows_on ? km->rows.n : 0;
    *n = (uint64_t)rows;
    *words = malloc(4 * ROW_WORDS * (size_t)(rows ? rows : 1));
    if (!*words)
        return no_memory(err);
    for (int64_t k = 0; k < rows; k++)
        kad_row_words(km->rows.cells + k * cells, *words + k * ROW_WORDS);
    if (rows > 1)
        qsort(*words, (size_t)rows, 4 * ROW_WORDS, by_origin_number);
    return 0;
}

/* This rank's state: its peers (R), their records (*LOOK) and rows (*ROWS), the histograms
 * summed over its blocks (HIST). */
static int save_local(kad_model *km, peer_range r, kad_ckpt_peer **peers, record_list *look,
                      uint32_t **rows, uint64_t *n_rows, uint64_t *hist, cn_error *err)
{
    *peers = calloc(r.n ? r.n : 1, sizeof **peers);
    int rc = *peers ? 0 : no_memory(err);
    /* the rows still on the devices first: a checkpoint holds every ended lookup's */
    if (!rc && km->rows_on)
        rc = kad_drain_rows(km, err);
    for (uint32_t p = km->p_lo; p < km->p_hi && rc == 0; p++)
        rc = save_partition(km, p, r, *peers, look, hist, err);
    *rows = NULL;
    *n_rows = 0;
    if (!rc)
        rc = save_rows(km, rows, n_rows, err);
    return rc;
}

int kad_save(struct model_state *m, int64_t next, ckpt_buf *out, cn_error *err)
{
    kad_model *km = kad_of(m);
    (void)next;
    peer_range r = rank_peers(km);
    kad_ckpt_peer *peers = NULL;
    record_list look = {0};
    uint32_t *rows = NULL;
    uint64_t n_rows = 0, hist[KAD_CKPT_BINS] = {0};
    int rc = save_local(km, r, &peers, &look, &rows, &n_rows, hist, err);
    /* several ranks: each saved its own peers; rank 0 puts them together (in rank order, the
     * ranks' peers are consecutive) after a rank that failed stopped them all */
    if (dist_size() > 1 && (rc = dist_agree(rc, err)) == 0) {
        void *all_peers = NULL, *all_look = NULL, *all_rows = NULL;
        uint64_t got = 0, got_look = 0;
        rc = dist_gatherv(peers, r.n, sizeof *peers, &all_peers, &got, err);
        if (!rc)
            rc = dist_gatherv(look.words, look.n * km->lw, 4, &all_look, &got_look, err);
        if (!rc)
            rc = dist_gatherv(rows, n_rows * ROW_WORDS, 4, &all_rows, &n_rows, err);
        if (!rc)
            rc = dist_allreduce_u64(hist, KAD_CKPT_BINS, DIST_SUM, err);
        free(peers);
        free(look.words);
        free(rows);
        peers = all_peers;
        look.words = all_look;
        look.n = got_look / km->lw;
        rows = all_rows;
        n_rows /= ROW_WORDS;
    }
    if (!rc && dist_rank() == 0) {
        kad_ckpt_shape s = {km->N, km->B, km->K, km->alpha, (uint64_t)km->targets_peers,
                            (uint64_t)km->windows, km->lw, look.n, n_rows};
        ckpt_put(out, KT_SHAPE, &s, sizeof s);
        ckpt_put(out, KT_PEERS, peers, sizeof *peers * (size_t)km->N);
        ckpt_put(out, KT_HIST, hist, sizeof hist);
        ckpt_put(out, KT_LOOKUPS, look.words, 4 * (size_t)look.n * km->lw);
        if (km->rows_on)
            ckpt_put(out, KT_ROWS, rows, 4 * ROW_WORDS * (size_t)n_rows);
    }
    free(peers);
    free(look.words);
    free(look.peer);
    free(rows);
    return rc;
}

/* ---- restore ----------------------------------------------------------------------------- */

/* The XOR distance of the W-word ids A and B, compared: negative when A's to X is less. */
static int closer(const uint32_t *a, const uint32_t *b, const uint32_t *x, uint32_t w)
{
    for (uint32_t q = 0; q < w; q++) {
        uint32_t da = a[q] ^ x[q], db = b[q] ^ x[q];
        if (da != db)
            return da < db ? -1 : 1;
    }
    return 0;
}

/* What the check could not see without the ids: record Q of peer I looks for the target of
 * its number, and its top is in increasing distance to it (as the devices keep it). */
static int check_target(const ckpt_file *in, const kad_model *km, uint32_t i, uint64_t q,
                        const uint32_t *rec)
{
    uint32_t x[5];
    uint32_t target = kad_target_id(km, i, rec[LK_N], x);
    if (rec[LK_TARGET] != target || memcmp(rec + LK_X, x, 4 * km->W) != 0)
        return 1;
    uint32_t nt = (rec[LK_FLAGS] >> 16) & 0xffu;
    for (uint32_t b = 1; b < nt; b++) {
        const uint32_t *u = km->ids + (size_t)rec[LK_TOP(km->W) + 2 * (b - 1)] * km->W;
        const uint32_t *v = km->ids + (size_t)rec[LK_TOP(km->W) + 2 * b] * km->W;
        if (closer(u, v, x, km->W) >= 0)
            return 1;
    }
    (void)in;
    (void)q;
    return 0;
}

/* The file's records, read again (the engine checked them whole against this scenario:
 * kad_checkpoint_check); copies, since a record need not be aligned for its type. */
typedef struct saved {
    kad_ckpt_shape s;
    kad_ckpt_peer *peers;   /* [N] */
    uint64_t *at;           /* [N + 1]: each peer's first record */
    uint32_t *look;         /* [records * lw] */
    uint32_t *rows;         /* [rows * ROW_WORDS] */
    uint64_t hist[KAD_CKPT_BINS];
} saved;

static void saved_free(saved *v)
{
    free(v->peers);
    free(v->at);
    free(v->look);
    free(v->rows);
}

static int read_saved(const kad_model *km, const ckpt_file *in, saved *v, cn_error *err)
{
    memset(v, 0, sizeof *v);
    const void *pp = NULL, *lp = NULL, *rp = NULL;
    int rc = ckpt_get(in, KT_SHAPE, &v->s, sizeof v->s, err);
    if (!rc && (v->s.peers != km->N || v->s.record_words != km->lw))
        rc = ckpt_mismatch(in, err, "a kademlia run of other peers or records");
    if (!rc)
        rc = ckpt_find_exact(in, KT_PEERS, sizeof(kad_ckpt_peer) * (uint64_t)km->N, "the peers",
                             &pp, err);
    if (!rc)
        rc = ckpt_get(in, KT_HIST, v->hist, sizeof v->hist, err);
    if (!rc)
        rc = ckpt_find_exact(in, KT_LOOKUPS, 4 * v->s.records * km->lw, "the lookup records",
                             &lp, err);
    if (!rc && km->rows_on)
        rc = ckpt_find_exact(in, KT_ROWS, 4ull * ROW_WORDS * v->s.rows, "the lookups' rows",
                             &rp, err);
    if (rc)
        return rc;
    v->peers = malloc(sizeof *v->peers * (size_t)km->N);
    v->at = calloc((size_t)km->N + 1, 8); /* zeroed for the analysers: every entry is set */
    v->look = malloc(4 * (size_t)(v->s.records ? v->s.records : 1) * km->lw);
    v->rows = malloc(4 * ROW_WORDS * (size_t)(v->s.rows ? v->s.rows : 1));
    if (!v->peers || !v->at || !v->look || !v->rows)
        return no_memory(err);
    memcpy(v->peers, pp, sizeof *v->peers * (size_t)km->N);
    memcpy(v->look, lp, 4 * (size_t)v->s.records * km->lw);
    if (km->rows_on)
        memcpy(v->rows, rp, 4 * ROW_WORDS * (size_t)v->s.rows);
    v->at[0] = 0;
    for (uint32_t i = 0; i < km->N; i++)
        v->at[i + 1] = v->at[i] + v->peers[i].records;
    return 0;
}

/* The records device D needs per peer for the partitions it holds: the most any of its peers
 * holds, or its own when more. */
static uint32_t records_needed(const kad_model *km, const kad_device *d, const saved *v)
{
    uint64_t most = d->slots;
    for (uint32_t p = km->p_lo; p < km->p_hi; p++) {
        if (&km->dev[km->home[p]] != d)
            continue;
        uint32_t first = kad_part_first(km, p), n = kad_part_size(km, p);
        for (uint32_t i = first; i < first + n; i++)
            most = v->peers[i].records > most ? v->peers[i].records : most;
    }
    return (uint32_t)most;
}

/* The least time of peer I's pending events: its next start and what its records have in
 * flight (the windows' test, PS_NEXT). */
static int64_t peer_next(const kad_model *km, const saved *v, uint32_t i)
{
    int64_t next = v->peers[i].next_start;
    for (uint64_t k = v->at[i]; k < v->at[i + 1]; k++) {
        const uint32_t *r = v->look + k * km->lw;
        for (uint32_t e = 0; e < km->alpha; e++) {
            const uint32_t *f = r + LK_FLY(km->W, km->K) + LK_FLY_WORDS * e;
            int64_t t = (int64_t)(((uint64_t)f[1] << 32) | f[0]);
            if ((f[4] & 3u) != FLY_FREE && t < next)
                next = t;
        }
    }
    return next;
}

/* Partition P's peers onto the device holding it: their state words, statistics and
 * records (record q of a peer in its slot q). */
static int restore_partition(kad_model *km, uint32_t p, const saved *v, cn_error *err)
{
    kad_device *d = &km->dev[km->home[p]];
    size_t P = km->part_peers, n = kad_part_size(km, p), b = km->block[p], lw = km->lw;
    uint32_t first = kad_part_first(km, p);
    int64_t *ps = malloc(8 * n);
    uint32_t *rows = malloc(4 * n * lw);
    int rc = ps && rows ? 0 : no_memory(err);
    for (int s = 0; s < PS_WORDS && rc == 0; s++) {
        for (size_t g = 0; g < n; g++)
            ps[g] = s == PS_NEXT_START ? v->peers[first + g].next_start
                  : s == PS_STARTED ? v->peers[first + g].started
                                    : peer_next(km, v, first + (uint32_t)g);
        rc = dbuf_write(d->dev, &d->pstate, 8 * ((b * PS_WORDS + (size_t)s) * P), 8 * n, ps, 1,
                        err);
    }
    for (int s = 0; s < KS_WORDS && rc == 0; s++) {
        uint64_t *st = (uint64_t *)(void *)ps;
        for (size_t g = 0; g < n; g++)
            st[g] = v->peers[first + g].stats[s];
        rc = dbuf_write(d->dev, &d->stats, 8 * ((b * KS_WORDS + (size_t)s) * P), 8 * n, st, 1,
                        err);
    }
    for (uint32_t q = 0; q < d->slots && rc == 0; q++) {
        memset(rows, 0, 4 * n * lw);
        for (size_t g = 0; g < n; g++)
            if (q < v->peers[first + g].records)
                memcpy(rows + g * lw, v->look + (v->at[first + g] + q) * lw, 4 * lw);
        rc = dbuf_write(d->dev, &d->look, 4 * (((size_t)b * d->slots + q) * P * lw), 4 * n * lw,
                        rows, 1, err);
    }
    free(ps);
    free(rows);
    return rc;
}

/* The run's histograms into the block of partition 0, with this rank when it holds it (the
 * results add every block's). */
static int restore_hist(kad_model *km, const saved *v, cn_error *err)
{
    if (km->p_lo != 0 || km->p_hi == 0)
        return 0;
    kad_device *d = &km->dev[km->home[0]];
    uint32_t h[KAD_HIST_WORDS];
    for (int k = 0; k < KAD_CKPT_BINS; k++) {
        h[2 * k] = (uint32_t)v->hist[k];
        h[2 * k + 1] = (uint32_t)(v->hist[k] >> 32);
    }
    return dbuf_write(d->dev, &d->hist, 4 * (size_t)km->block[0] * KAD_HIST_WORDS, sizeof h, h,
                      1, err);
}

int kad_restore(struct model_state *m, int64_t next, const ckpt_file *in, cn_error *err)
{
    kad_model *km = kad_of(m);
    (void)next;
    saved v;
    int rc = read_saved(km, in, &v, err);
    peer_range r = rank_peers(km);
    for (uint32_t i = r.lo; i < r.lo + r.n && rc == 0; i++)
        for (uint64_t k = v.at[i]; k < v.at[i + 1] && rc == 0; k++)
            if (check_target(in, km, i, k - v.at[i], v.look + k * km->lw))
                rc = ckpt_refuse(in, err, KT_LOOKUPS, "record %llu of peer %u does not look for "
                                 "the target of its number, or its top is not in order of "
                                 "distance to it", (unsigned long long)(k - v.at[i]), i);
    /* a peer may hold more records than this run's devices start with */
    for (int i = 0; i < km->n_devs && rc == 0; i++) {
        kad_device *d = &km->dev[i];
        uint32_t s = records_needed(km, d, &v);
        if (s != d->slots)
            rc = kad_grow_records(km, d, s, err);
        if (!rc)
            rc = kad_fit_rows(km, d, err);
    }
    for (uint32_t p = km->p_lo; p < km->p_hi && rc == 0; p++)
        rc = restore_partition(km, p, &v, err);
    if (!rc)
        rc = restore_hist(km, &v, err);
    /* this rank's rows (the results gather every rank's) */
    for (uint64_t k = 0; k < v.s.rows && km->rows_on && rc == 0; k++) {
        const uint32_t *w = v.rows + k * ROW_WORDS;
        if (w[0] >= r.lo && w[0] - r.lo < r.n && kad_add_row(km, w) != 0)
            rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the lookups' rows");
    }
    saved_free(&v);
    if (rc)
        return rc;
    km->windows = (int64_t)v.s.windows;
    if (km->acc.peak > km->peak_bytes)
        km->peak_bytes = km->acc.peak;
    /* the least pending times: the next window's begin (model_ops.next_begin) */
    return kad_find_minimum(km, 1, err);
}
