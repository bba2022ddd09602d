/* The transport of the core's exchange over several MPI ranks (exchange_transport.h): this
 * rank's places through the in-process transport, and one bundle per rank, sent once per
 * window in one all-to-all (dist_alltoallv). */
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "engine/exchange_transport.h"

/* A bundle travels as N units of a destination word and a record, laid out as the N words
 * and then the N records (one count per rank, in units, and bulk copies only). */
typedef struct rank_bundle {
    uint32_t *dest;
    unsigned char *rec;
    size_t cap;                 /* records both hold */
} rank_bundle;

typedef struct rank_transport {
    exchange_transport local;   /* this rank's places */
    size_t record_bytes, unit;
    int n_local, n_ranks;
    rank_bundle *bundle;        /* [n_ranks]: what this window sends each rank */
    uint64_t *out_n;            /* [n_ranks]: records of each bundle */
    unsigned char *out;         /* the bundles, rank after rank, for the all-to-all */
    size_t out_cap;
    void *in;                   /* what arrived at the last flush */
    size_t in_cap;
    uint64_t *in_n;             /* [n_ranks] */
    uint32_t *arrived_dest;     /* the arrivals, as one batch */
    unsigned char *arrived_rec;
    size_t arrived_cap;
    uint64_t sent;              /* bytes sent to other ranks */
} rank_transport;

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
    int rc = exchange_records_reserve(&b->dest, &b->rec, NULL, &b->cap, have + n,
                                      rt->record_bytes, 4096, err);
    if (rc)
        return rc;
    memcpy(b->dest + have, dest, n * sizeof *dest);
    memcpy(b->rec + have * rt->record_bytes, rec, n * rt->record_bytes);
    rt->out_n[r] += n;
    return 0;
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

/* The bundles, rank after rank, in one array for the all-to-all. */
static int pack(rank_transport *rt, cn_error *err)
{
    size_t total = 0;
    for (int r = 0; r < rt->n_ranks; r++)
        total += (size_t)rt->out_n[r] * rt->unit;
    if (total > rt->out_cap) {
        unsigned char *grown = realloc(rt->out, total);
        if (!grown)
            return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the records to other "
                           "MPI ranks");
        rt->out = grown;
        rt->out_cap = total;
    }
    unsigned char *at = rt->out;
    for (int r = 0; r < rt->n_ranks; r++) {
        size_t n = (size_t)rt->out_n[r];
        if (n == 0)
            continue;
        memcpy(at, rt->bundle[r].dest, 4 * n);
        memcpy(at + 4 * n, rt->bundle[r].rec, n * rt->record_bytes);
        at += n * rt->unit;
    }
    return 0;
}

static int rank_flush(void *self, int failed, exchange_batch *arrived, cn_error *err)
{
    rank_transport *rt = self;
    memset(arrived, 0, sizeof *arrived);
    arrived->from = -1;
    if (!failed)
        failed = pack(rt, err);
    int rc = dist_alltoallv(rt->out, rt->out_n, rt->unit, &rt->in, &rt->in_cap, rt->in_n,
                            failed, err);
    for (int r = 0; r < rt->n_ranks; r++)
        if (r != dist_rank())
            rt->sent += rt->out_n[r] * rt->unit;
    memset(rt->out_n, 0, (size_t)rt->n_ranks * sizeof *rt->out_n);
    if (rc)
        return rc;
    size_t n = 0;
    for (int r = 0; r < rt->n_ranks; r++)
        n += rt->in_n[r];
    rc = exchange_records_reserve(&rt->arrived_dest, &rt->arrived_rec, NULL, &rt->arrived_cap,
                                  n, rt->record_bytes, 1024, err);
    const unsigned char *seg = rt->in;
    size_t at = 0;
    for (int r = 0; r < rt->n_ranks && rc == 0; r++) {
        size_t k = (size_t)rt->in_n[r];
        if (k == 0)
            continue;
        memcpy(rt->arrived_dest + at, seg, 4 * k);
        memcpy(rt->arrived_rec + at * rt->record_bytes, seg + 4 * k, k * rt->record_bytes);
        seg += k * rt->unit;
        at += k;
    }
    if (rc == 0)
        *arrived = (exchange_batch){-1, rt->arrived_dest, rt->arrived_rec, n};
    return rc;
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
    free(rt->out);
    free(rt->out_n);
    free(rt->in);
    free(rt->in_n);
    free(rt->arrived_dest);
    free(rt->arrived_rec);
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
    if (!rt->out_n || !rt->in_n || !rt->bundle)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    int rc = exchange_local_transport(&rt->local, record_bytes, n_local, err);
    if (rc)
        return rc;
    t->post = rank_post;
    t->collect = rank_collect;
    t->post_set = rank_post_set;
    t->collect_sets = rank_collect_sets;
    t->flush = rank_flush;
    t->sent_bytes = rank_sent_bytes;
    return 0;
}
