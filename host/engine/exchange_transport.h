/* Carrying records between places: the seam between the core's exchange (engine/exchange.h)
 * and what moves the bytes.
 *
 * A place is where partitions live: today a device of this process (its index in the run's
 * device list). The router reads each record's destination word, asks the model where that
 * partition lives now (model_ops.partition_home) and posts the records of each place to the
 * transport in one batch; the exchange then collects, per local place, what was posted for it.
 * The in-process transport below keeps the batches in host memory. An MPI transport will have
 * the same two calls: a post for a place of another rank sends the batch there (bundled per
 * rank once per window), and a collect also returns what other ranks sent (docs/architecture.md,
 * "The exchange of records"). Nothing here needs a device. */
#ifndef CLNETSIM_EXCHANGE_TRANSPORT_H
#define CLNETSIM_EXCHANGE_TRANSPORT_H
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

struct model;

typedef struct exchange_transport {
    void *self;
    /* Takes N records for place TO: destination words DEST[0..N-1] and records REC, each of
     * the transport's record size, copied before it returns. */
    int (*post)(void *self, int to, const uint32_t *dest, const void *rec, size_t n,
                cn_error *err);
    /* Hands out every record posted for place TO since its last collect, in the order of the
     * posts (*N 0: none); valid until the next post. */
    int (*collect)(void *self, int to, const uint32_t **dest, const void **rec, size_t *n,
                   cn_error *err);
    void (*destroy)(void *self);
} exchange_transport;

/* Room for NEED records of RECORD_BYTES in the host arrays *DEST and *REC (and *PLACE, one
 * int per record, when PLACE is not NULL), which hold *CAP: doubled from FIRST until they
 * fit; what they hold is kept. Returns 0, or an error when the host's memory runs out. */
int exchange_records_reserve(uint32_t **dest, unsigned char **rec, int **place, size_t *cap,
                             size_t need, size_t record_bytes, size_t first, cn_error *err);

/* The in-process transport between N_PLACES places, for records of RECORD_BYTES. */
int exchange_local_transport(exchange_transport *t, size_t record_bytes, int n_places,
                             cn_error *err);

/* The place that holds a partition now: model_ops.partition_home. */
typedef int (*exchange_home_fn)(const struct model *m, int partition);

/* Groups records by the place of their destination partition. A record's destination word D
 * names partition D / SPAN (SPAN 1: D is the partition; PHOLD's LP ids over ranges of SPAN
 * LPs: D is the LP). */
typedef struct exchange_router {
    size_t record_bytes;
    uint32_t span, n_parts;
    int n_places;
    exchange_home_fn home;
    const struct model *model;
    /* scratch, grown as needed */
    uint32_t *dest;
    unsigned char *rec;
    int *place;
    size_t cap;
    size_t *count;          /* [n_places + 1] */
} exchange_router;

/* Posts the N records (DEST, REC) to T: one post per place that receives any, the places in
 * increasing order, each place's records in their order here. A destination beyond the
 * partitions, or a partition whose home is not a place, is an internal error (nothing is
 * posted). */
int exchange_route(exchange_router *r, const uint32_t *dest, const void *rec, size_t n,
                   exchange_transport *t, cn_error *err);
void exchange_router_free(exchange_router *r);

#endif
