/* The transport of the core's exchange over several MPI ranks (exchange_transport.h): this
 * rank's places through the in-process transport, and one bundle per rank, sent once per
 * window in one all-to-all (dist_alltoallv). */
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "engine/exchange_transport.h"

/* A bundle travels as units of a destination word followed by its record: one array, one
 * count per rank. */
typedef struct rank_transport {
    exchange_transport local;   /* this rank's places */
    size_t record_bytes, unit;
    int n_local, n_ranks;
    unsigned char *out;         /* the bundles of this window, rank after rank */
    size_t out_cap;
    uint64_t *out_n;            /* [n_ranks]: units of each bundle */
    unsigned char **bundle;     /* [n_ranks]: each rank's units, until flush packs them */
    size_t *bundle_cap;         /* [n_ranks], bytes */
    void *in;                   /* what arrived at the last flush */
    size_t in_cap;
    uint64_t *in_n;             /* [n_ranks] */
    uint32_t *arrived_dest;     /* the arrivals, split into words and records */
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
    size_t need = (size_t)(rt->out_n[r] + n) * rt->unit;
    if (need > rt->bundle_cap[r]) {
        size_t cap = rt->bundle_cap[r] ? rt->bundle_cap[r] : 4096 * rt->unit;
        while (cap < need)
            cap *= 2;
        unsigned char *grown = realloc(rt->bundle[r], cap);
        if (!grown)
            return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the records to MPI "
                           "rank %d", r);
        rt->bundle[r] = grown;
        rt->bundle_cap[r] = cap;
    }
    unsigned char *at = rt->bundle[r] + rt->out_n[r] * rt->unit;
    const unsigned char *src = rec;
    for (size_t i = 0; i < n; i++, at += rt->unit) {
        memcpy(at, &dest[i], 4);
        memcpy(at + 4, src + i * rt->record_bytes, rt->record_bytes);
    }
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
    size_t at = 0;
    for (int r = 0; r < rt->n_ranks; r++) {
        size_t bytes = (size_t)rt->out_n[r] * rt->unit;
        if (bytes)
            memcpy(rt->out + at, rt->bundle[r], bytes);
        at += bytes;
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
    const unsigned char *at = rt->in;
    for (size_t i = 0; i < n && rc == 0; i++, at += rt->unit) {
        memcpy(&rt->arrived_dest[i], at, 4);
        memcpy(rt->arrived_rec + i * rt->record_bytes, at + 4, rt->record_bytes);
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
    for (int r = 0; rt->bundle && r < rt->n_ranks; r++)
        free(rt->bundle[r]);
    free(rt->bundle);
    free(rt->bundle_cap);
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
    rt->bundle_cap = calloc(R, sizeof *rt->bundle_cap);
    if (!rt->out_n || !rt->in_n || !rt->bundle || !rt->bundle_cap)
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
