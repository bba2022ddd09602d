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
 * "The exchange of records"). Nothing here needs a device.
 *
 * Records with several destinations (a set of places: the flood's border relays go to every
 * other device that ran the window) travel once: post_set keeps one batch for the whole set,
 * and each place of the set collects it with collect_sets. The in-process transport does not
 * even copy it: it hands out the poster's own memory, so nothing is copied on the host and
 * the places' writes to their devices read it directly. An MPI transport sends such a batch
 * once to each other rank whose places are in the set (in that rank's bundle), and that rank
 * hands the one copy it received to each of its places in the set; the set then names
 * (rank, device) places and needs more than 32 bits.
 *
 * Over several MPI ranks (exchange_rank_transport) the places of this rank are its devices,
 * 0 .. n - 1, and place n + r stands for rank r: the router posts there the records whose
 * partition lives on rank r (exchange_config.rank). While the exchange streams (stream on),
 * such a post goes out at once; otherwise the transport bundles it per rank until the
 * window's end. Once per window the exchange calls flush, a collective: the bundles go out as
 * they lie, every rank learns how many bundles each other sent it (dist_stream_end), and what
 * they sent comes back as one batch, which the exchange writes to this rank's device (one
 * device) or routes to its devices. Sets of places stay within one rank. */
#ifndef CLNETSIM_EXCHANGE_TRANSPORT_H
#define CLNETSIM_EXCHANGE_TRANSPORT_H
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "dist/dist_stream.h"

struct model_state;

/* A batch of records that arrived at a place: from place FROM, N records REC with their
 * destination words DEST (NULL when the batch was posted without them). */
typedef struct exchange_batch {
    int from;
    const uint32_t *dest;
    const void *rec;
    size_t n;
} exchange_batch;

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
    /* Takes N records from place FROM for every place of SET other than FROM (bit p: place p):
     * destination words DEST (NULL: none, the set is the destination) and records REC. The
     * local transport keeps a reference, not a copy: DEST and REC stay unchanged until each
     * place of the set has collected the batch and whatever reads them has finished. */
    int (*post_set)(void *self, int from, uint32_t set, const uint32_t *dest, const void *rec,
                    size_t n, cn_error *err);
    /* Hands out the batches posted for place TO by post_set since its last collect_sets, in
     * increasing order of their places of origin, then of their posts (*N_BATCHES 0: none);
     * the array is valid until the next post_set or collect_sets. */
    int (*collect_sets)(void *self, int to, const exchange_batch **batches,
                        size_t *n_batches, cn_error *err);
    /* Several ranks: sends what was posted for other ranks' places (bundled per rank) and
     * hands out in *ARRIVED what the ranks posted for this one, a batch per rank that sent
     * any (FROM: its rank), in rank order, *N_ARRIVED of them, valid until the next flush;
     * collective. The batches point into what MPI received: no copy. FAILED non-zero: this
     * rank failed before the window's exchange; it takes part, sending nothing, and gets
     * FAILED back, the others DIST_PEER_FAILED (dist.h). NULL: one process, nothing to
     * flush. */
    int (*flush)(void *self, int failed, const exchange_batch **arrived, size_t *n_arrived,
                 cn_error *err);
    /* Several ranks: a post for another rank's place whose bundle is empty keeps a reference
     * to DEST and REC instead of copying them (the window's exports, sent from where they
     * were read), until flush or KEEP; the poster leaves them unchanged until then, or calls
     * KEEP first, which copies what is referenced. NULL: posts copy. */
    int (*keep)(void *self, cn_error *err);
    /* Several ranks: ON 1, posts for other ranks' places go out at once (not bundled), and
     * their records stay unchanged until flush; ON 0 ends that. NULL: never. */
    int (*stream)(void *self, int on, cn_error *err);
    /* Several ranks: takes in what other ranks sent so far (no wait); NULL: nothing to do. */
    int (*poll)(void *self, cn_error *err);
    /* Bytes of records (and their words) sent to other ranks so far; NULL: none */
    uint64_t (*sent_bytes)(void *self);
    void (*destroy)(void *self);
} exchange_transport;

/* Where the arrived BATCHES land when a place delivers them after its own OWN records in an
 * area of its model (the flood: after the relays a device made itself, in its frontier):
 * AT[i] is batch i's first record index, one batch after the other in the order given.
 * Returns OWN plus every batch's records, the records the area must hold. */
uint64_t exchange_place_after(const exchange_batch *batches, size_t n_batches, uint64_t own,
                              uint64_t *at);

/* Room for NEED records of RECORD_BYTES in the host arrays *DEST and *REC (and *PLACE, one
 * int per record, when PLACE is not NULL), which hold *CAP: doubled from FIRST until they
 * fit; what they hold is kept. Returns 0, or an error when the host's memory runs out. */
int exchange_records_reserve(uint32_t **dest, unsigned char **rec, int **place, size_t *cap,
                             size_t need, size_t record_bytes, size_t first, cn_error *err);

/* Appends N records (DEST, REC) after the HAVE that *DEST_ARR and *REC_ARR hold (room as
 * exchange_records_reserve makes it, from FIRST). */
int exchange_records_append(uint32_t **dest_arr, unsigned char **rec_arr, size_t *cap,
                            size_t have, const uint32_t *dest, const void *rec, size_t n,
                            size_t record_bytes, size_t first, cn_error *err);

/* The in-process transport between N_PLACES places, for records of RECORD_BYTES. */
int exchange_local_transport(exchange_transport *t, size_t record_bytes, int n_places,
                             cn_error *err);

/* The in-process transport between N_LOCAL places of this rank, with a bundle for each of
 * the run's dist_size() ranks at places N_LOCAL + r (above). */
int exchange_rank_transport(exchange_transport *t, size_t record_bytes, int n_local,
                            const dist_host_memory *arrivals, cn_error *err);

/* The place that holds a partition now: model_ops.partition_home. */
typedef int (*exchange_home_fn)(const struct model_state *m, int partition);

/* Groups records by the place of their destination partition. A record's destination word D
 * names partition D / SPAN (SPAN 1: D is the partition; PHOLD's LP ids over ranges of SPAN
 * LPs: D is the LP). */
typedef struct exchange_router {
    size_t record_bytes;
    uint32_t span, n_parts;
    int n_places;
    exchange_home_fn home;
    /* Several ranks: the rank that holds a partition; one not this rank's goes to place
     * N_PLACES + its rank. NULL: every partition is this rank's. */
    exchange_home_fn rank;
    int my_rank, n_ranks;
    /* 1: every record must be for a partition of this rank (what arrived from the others):
     * one for another rank is an internal error rather than sent on */
    int local_only;
    const struct model_state *model;
    /* scratch, grown as needed */
    uint32_t *dest;
    unsigned char *rec;
    int *place;
    size_t cap;
    size_t *count;          /* [n_places + n_ranks + 1] */
    int *place_of;          /* [n_parts]: each partition's place, worked out per route */
} exchange_router;

/* Posts the N records (DEST, REC) to T: one post per place that receives any, the places in
 * increasing order, each place's records in their order here. A destination beyond the
 * partitions, or a partition whose home is not a place, is an internal error (nothing is
 * posted). */
int exchange_route(exchange_router *r, const uint32_t *dest, const void *rec, size_t n,
                   exchange_transport *t, cn_error *err);
/* exchange_route, for the records that place FROM exported (none is for a partition that
 * lives there) and that must stay where they are until the posts are done with them (the
 * stream's sends): the N records are put in place order within DEST and REC themselves, and
 * each place's post is a part of them. When every partition not at FROM lives at one place,
 * they all go there without a look at each (a rank of one device among two). */
int exchange_route_in_place(exchange_router *r, int from, uint32_t *dest, void *rec, size_t n,
                            exchange_transport *t, cn_error *err);
void exchange_router_free(exchange_router *r);

#endif
