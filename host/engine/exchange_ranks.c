/* The transport of the core's exchange over several MPI ranks (exchange_transport.h): this
 * rank's places through the in-process transport, and one bundle per rank, sent once per
 * window (dist_alltoall_pairs: the counts in one all-to-all, then each bundle's words and
 * records straight from where they lie). */
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "engine/exchange_transport.h"

/* A bundle is N destination words and N records, in two arrays; it arrives as the N words
 * followed by the N records, in the segment of its rank. */
typedef struct rank_bundle {
    uint32_t *dest;
    unsigned char *rec;
    size_t cap;                 /* records both hold */
    /* the poster's records, referenced rather than copied (exchange_transport.keep): the
     * bundle's N records are these while BORROWED */
    const uint32_t *lent_dest;
    const void *lent_rec;
    int borrowed;
} rank_bundle;

typedef struct rank_transport {
    exchange_transport local;   /* this rank's places */
    size_t record_bytes, unit;
    int n_local, n_ranks;
    rank_bundle *bundle;        /* [n_ranks]: what this window sends each rank */
    uint64_t *out_n;            /* [n_ranks]: records of each bundle */
    const void **send_dest, **send_rec; /* [n_ranks]: the bundles' arrays, for the exchange */
    void *in;                   /* what arrived at the last flush */
    size_t in_cap;
    uint64_t *in_n;             /* [n_ranks] */
    exchange_batch *arrived;    /* [n_ranks]: the arrivals, a batch per rank that sent any */
    uint64_t sent;              /* bytes sent to other ranks */
} rank_transport;

/* B's N referenced records copied into its own arrays (nothing when it references none). */
static int keep_one(rank_transport *rt, rank_bundle *b, size_t n, cn_error *err)
{
    if (!b->borrowed)
        return 0;
    int rc = exchange_records_append(&b->dest, &b->rec, &b->cap, 0, b->lent_dest, b->lent_rec,
                                     n, rt->record_bytes, 4096, err);
    if (!rc)
        b->borrowed = 0;
    return rc;
}

static int rank_post(void *self, int to, const uint32_t *dest, const void *rec, size_t n,
                     cn_error *err)
{
    rank_transport *rt = self;
    if (to < rt->n_local)
        return rt->local.post(rt->local.self, to, dest, rec, n, err);
    int r = to - rt->n_local;
    if (r >= rt->n_ranks)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: records posted for place %d of %d "
                       "and %d ranks", to, rt->n_local, rt->n_ranks);
    rank_bundle *b = &rt->bundle[r];
    size_t have = (size_t)rt->out_n[r];
    if (have == 0 && n > 0) { /* referenced, sent from where it lies */
        b->lent_dest = dest;
        b->lent_rec = rec;
        b->borrowed = 1;
        rt->out_n[r] = n;
        return 0;
    }
    int rc = keep_one(rt, b, have, err); /* a second post: the first one copied */
    if (!rc)
        rc = exchange_records_append(&b->dest, &b->rec, &b->cap, have, dest, rec, n,
                                     rt->record_bytes, 4096, err);
    if (!rc)
        rt->out_n[r] += n;
    return rc;
}

static int rank_keep(void *self, cn_error *err)
{
    rank_transport *rt = self;
    int rc = 0;
    for (int r = 0; r < rt->n_ranks && rc == 0; r++)
        rc = keep_one(rt, &rt->bundle[r], (size_t)rt->out_n[r], err);
    return rc;
}

static int rank_collect(void *self, int to, const uint32_t **dest, const void **rec, size_t *n,
                        cn_error *err)
{
    rank_transport *rt = self;
    return rt->local.collect(rt->local.self, to, dest, rec, n, err);
}

static int rank_post_set(void *self, int from, uint32_t set, const uint32_t *dest,
                         const void *rec, size_t n, cn_error *err)
{
    rank_transport *rt = self;
    return rt->local.post_set(rt->local.self, from, set, dest, rec, n, err);
}

static int rank_collect_sets(void *self, int to, const exchange_batch **batches,
                             size_t *n_batches, cn_error *err)
{
    rank_transport *rt = self;
    return rt->local.collect_sets(rt->local.self, to, batches, n_batches, err);
}

static int rank_flush(void *self, int failed, const exchange_batch **arrived,
                      size_t *n_arrived, cn_error *err)
{
    rank_transport *rt = self;
    *arrived = rt->arrived;
    *n_arrived = 0;
    for (int r = 0; r < rt->n_ranks; r++) {
        const rank_bundle *b = &rt->bundle[r];
        rt->send_dest[r] = b->borrowed ? (const void *)b->lent_dest : (const void *)b->dest;
        rt->send_rec[r] = b->borrowed ? b->lent_rec : (const void *)b->rec;
    }
    int rc = dist_alltoall_pairs(rt->send_dest, rt->send_rec, rt->out_n, 4, rt->record_bytes,
                                 &rt->in, &rt->in_cap, rt->in_n, failed, err);
    for (int r = 0; r < rt->n_ranks; r++)
        if (r != dist_rank())
            rt->sent += rt->out_n[r] * rt->unit;
    memset(rt->out_n, 0, (size_t)rt->n_ranks * sizeof *rt->out_n);
    for (int r = 0; r < rt->n_ranks; r++)
        rt->bundle[r].borrowed = 0;
    if (rc)
        return rc;
    /* each rank's segment is its words, then its records: handed out where they lie (the
     * segments are whole units, so the words stay 4-byte aligned) */
    const unsigned char *seg = rt->in;
    for (int r = 0; r < rt->n_ranks; r++) {
        size_t k = (size_t)rt->in_n[r];
        if (k == 0)
            continue;
        rt->arrived[(*n_arrived)++] =
            (exchange_batch){r, (const uint32_t *)(const void *)seg, seg + 4 * k, k};
        seg += k * rt->unit;
    }
    return 0;
}

static uint64_t rank_sent_bytes(void *self)
{
    return ((rank_transport *)self)->sent;
}

static void rank_destroy(void *self)
{
    rank_transport *rt = self;
    if (!rt)
        return;
    if (rt->local.destroy)
        rt->local.destroy(rt->local.self);
    for (int r = 0; rt->bundle && r < rt->n_ranks; r++) {
        free(rt->bundle[r].dest);
        free(rt->bundle[r].rec);
    }
    free(rt->bundle);
    free(rt->send_dest);
    free(rt->send_rec);
    free(rt->out_n);
    free(rt->in);
    free(rt->in_n);
    free(rt->arrived);
    free(rt);
}

int exchange_rank_transport(exchange_transport *t, size_t record_bytes, int n_local,
                            cn_error *err)
{
    memset(t, 0, sizeof *t);
    rank_transport *rt = calloc(1, sizeof *rt);
    if (!rt)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    t->self = rt;
    t->destroy = rank_destroy;
    rt->record_bytes = record_bytes;
    rt->unit = record_bytes + 4;
    rt->n_local = n_local;
    rt->n_ranks = dist_size();
    size_t R = (size_t)rt->n_ranks;
    rt->out_n = calloc(R, sizeof *rt->out_n);
    rt->in_n = calloc(R, sizeof *rt->in_n);
    rt->bundle = calloc(R, sizeof *rt->bundle);
    rt->arrived = calloc(R, sizeof *rt->arrived);
    rt->send_dest = calloc(R, sizeof *rt->send_dest);
    rt->send_rec = calloc(R, sizeof *rt->send_rec);
    if (!rt->out_n || !rt->in_n || !rt->bundle || !rt->arrived || !rt->send_dest ||
        !rt->send_rec)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    int rc = exchange_local_transport(&rt->local, record_bytes, n_local, err);
    if (rc)
        return rc;
    t->post = rank_post;
    t->collect = rank_collect;
    t->post_set = rank_post_set;
    t->collect_sets = rank_collect_sets;
    t->flush = rank_flush;
    t->keep = rank_keep;
    t->sent_bytes = rank_sent_bytes;
    return 0;
}
