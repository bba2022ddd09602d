/* The transport of the core's exchange over several MPI ranks (exchange_transport.h): this
 * rank's places through the in-process transport, and the records for other ranks through a
 * stream of bundles (dist/dist_stream.h): sent at once while the exchange streams (the
 * window's exports as the devices make them), else one bundle per rank at the window's end,
 * sent from where it lies. What arrives lands in pinned host memory. */
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "dist/dist_stream.h"
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
    rank_bundle *bundle;        /* [n_ranks]: what this window sends each rank at its end */
    uint64_t *out_n;            /* [n_ranks]: records of each bundle */
    dist_stream *stream;
    int streaming;              /* posts for other ranks go out at once */
    exchange_batch arrived;     /* what arrived at the last flush */
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
    if (rt->streaming) {
        rt->sent += n * rt->unit;
        return dist_stream_send(rt->stream, r, dest, rec, n, err);
    }
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

static int rank_stream(void *self, int on, cn_error *err)
{
    rank_transport *rt = self;
    rt->streaming = on;
    return on ? 0 : dist_stream_poll(rt->stream, err);
}

static int rank_poll(void *self, cn_error *err)
{
    return dist_stream_poll(((rank_transport *)self)->stream, err);
}

static int rank_flush(void *self, int failed, const exchange_batch **arrived,
                      size_t *n_arrived, cn_error *err)
{
    rank_transport *rt = self;
    int rc = 0;
    *arrived = &rt->arrived;
    *n_arrived = 0;
    /* the bundles posted outside the stream go out as they lie (unchanged until the end) */
    for (int r = 0; r < rt->n_ranks && rc == 0 && !failed; r++) {
        const rank_bundle *b = &rt->bundle[r];
        if (rt->out_n[r] == 0 || r == dist_rank())
            continue;
        rc = dist_stream_send(rt->stream, r, b->borrowed ? (const void *)b->lent_dest : b->dest,
                              b->borrowed ? b->lent_rec : b->rec, rt->out_n[r], err);
        rt->sent += rt->out_n[r] * rt->unit;
    }
    int end = dist_stream_end(rt->stream, rc ? rc : failed, err);
    memset(rt->out_n, 0, (size_t)rt->n_ranks * sizeof *rt->out_n);
    for (int r = 0; r < rt->n_ranks; r++)
        rt->bundle[r].borrowed = 0;
    if (rc || end)
        return rc ? rc : end;
    /* every rank's records in one batch, where MPI put them */
    const void *dest, *rec;
    uint64_t k = dist_stream_arrived(rt->stream, &dest, &rec);
    rt->arrived = (exchange_batch){-1, dest, rec, (size_t)k};
    *n_arrived = k ? 1 : 0;
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
    free(rt->out_n);
    dist_stream_destroy(rt->stream);
    free(rt);
}

int exchange_rank_transport(exchange_transport *t, size_t record_bytes, int n_local,
                            const dist_host_memory *arrivals, cn_error *err)
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
    rt->bundle = calloc(R, sizeof *rt->bundle);
    if (!rt->out_n || !rt->bundle)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    int rc = dist_stream_create(&rt->stream, 4, record_bytes, arrivals, err);
    if (!rc)
        rc = exchange_local_transport(&rt->local, record_bytes, n_local, err);
    if (rc)
        return rc;
    t->post = rank_post;
    t->collect = rank_collect;
    t->post_set = rank_post_set;
    t->collect_sets = rank_collect_sets;
    t->flush = rank_flush;
    t->keep = rank_keep;
    t->stream = rank_stream;
    t->poll = rank_poll;
    t->sent_bytes = rank_sent_bytes;
    return 0;
}
