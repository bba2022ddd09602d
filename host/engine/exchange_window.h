/* The windowed form of the core's exchange (docs/architecture.md, "The exchange of records"):
 * for a model that runs ahead of its read-backs and whose records go to several places at once.
 *
 * During window w a place's kernels append records to its export area (xch_append,
 * cl/common/exchange.clh), counting them in a word of the model's own control block. With the
 * model's read-back of window w, exchange_window_post queues a read of the area into a pinned
 * host stage (one per window parity), as many records as the place exported last time and as
 * much again, before anyone knows how many there are: no second round trip in the usual case.
 * Nothing waits there. Once the model has seen that read-back complete (its own read is
 * queued after, on the same in-order queue), exchange_window_carry reads whatever the guess
 * missed, posts each place's records once for every other place that ran the window
 * (post_set: one copy in transit), and writes what each place collects into the area its
 * model names, after the model's own records (no consuming kernel, no inbox). The writes read
 * the stages directly; a stage is read into again only once they are done.
 *
 * Growth is up front: the model reserves the export area for the most records its producers
 * can make (exchange_window_reserve) and the sink makes room in its area for its own records
 * and the arrivals before they are written. A count beyond the area says that records were
 * not kept: the model must then carry the window in a way of its own (the flood sends its
 * whole frontier). A model that runs on one device never calls any of this per window. */
#ifndef CLNETSIM_EXCHANGE_WINDOW_H
#define CLNETSIM_EXCHANGE_WINDOW_H
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "device/device.h"
#include "engine/dbuf.h"
#include "engine/engine.h"
#include "engine/exchange_transport.h"

/* Where the arrivals of a place go: its model's area. */
typedef struct exchange_window_sink {
    void *ctx;
    /* PLACE's area must hold TOTAL records (its own and the arrivals after them): grow it when
     * needed, keeping what it holds, and hand out the buffer to write the arrivals into. */
    int (*make_room)(void *ctx, int place, uint64_t total, cl_mem *area, cn_error *err);
} exchange_window_sink;

/* A pinned host copy of a place's exports of one window parity, and the writes to other
 * devices still reading it. */
typedef struct exchange_stage {
    cl_mem mem;
    unsigned char *map;
    uint32_t cap;               /* records */
    uint32_t spec;              /* records read with the model's read-back of window SPEC_WINDOW */
    int64_t spec_window;
    int n_writes;
    cl_event writes[ENGINE_MAX_DEVICES];
} exchange_stage;

typedef struct exchange_window_place {
    device_ctx *dev;            /* NULL: not a place of this run (or left out) */
    dbuf area;                  /* the records its kernels export */
    uint32_t cap;               /* records AREA holds */
    uint32_t last;              /* records it exported in the last carry */
    exchange_stage stage[2];    /* by window parity */
} exchange_window_place;

typedef struct exchange_window {
    size_t record_bytes;
    int n_places;
    exchange_window_place place[ENGINE_MAX_DEVICES];
    dbuf_account *acc;
    exchange_transport transport;
    exchange_window_sink sink;
    double wait_s;              /* host time blocked on reads of exports */
    /* The most records a post reads and the slack a stage grows by: unbounded and 1024, or
     * both K under CLNETSIM_TEST_EXCHANGE_GUESS=K, so that the tests read the rest after the
     * count and grow stages that hold records. */
    uint32_t guess_limit, stage_slack;
    /* Several MPI ranks (exchange_window_carry_ranks): the records every rank sent in the
     * last carry (RBUF, RBUF_CAP bytes), the batches of the other ranks in it, and the
     * writes from it still queued (waited for before RBUF is reused). */
    unsigned char *rbuf;
    size_t rbuf_cap;
    unsigned char *sbuf;
    size_t sbuf_cap;
    exchange_batch remote[64];
    size_t n_remote;
    int n_rwrites;
    cl_event rwrites[ENGINE_MAX_DEVICES * 64];
    uint64_t sent_records;      /* this rank's records sent to the others, in all */
} exchange_window;

/* The exchange between the N places DEVS (a NULL entry is no place), for records of
 * RECORD_BYTES; allocates nothing on the devices until exchange_window_reserve. */
int exchange_window_init(exchange_window *xw, size_t record_bytes, device_ctx *const *devs,
                         int n, dbuf_account *acc, exchange_window_sink sink, cn_error *err);
void exchange_window_release(exchange_window *xw);
/* Leaves PLACE out (its device failed or left the run): waits for its pending reads and the
 * writes from its stages, releases its areas. */
void exchange_window_drop(exchange_window *xw, int place);

/* Room for CAP records in PLACE's export area before its producers run; what it held is not
 * kept. Grows only. */
int exchange_window_reserve(exchange_window *xw, int place, uint32_t cap, cn_error *err);
/* PLACE's export area (its kernels' argument) and the records it holds. */
const dbuf *exchange_window_area(const exchange_window *xw, int place);
uint32_t exchange_window_capacity(const exchange_window *xw, int place);

/* Queues on PLACE a non-blocking read of window W's exports into its stage of W's parity, at
 * most BOUND records (what its producers can have made); the model queues its read-back after
 * it. Waits only for earlier writes from that stage. */
int exchange_window_post(exchange_window *xw, int64_t w, int place, uint32_t bound,
                         cn_error *err);
/* Window W's read-back has completed on each place of SET (bit p: place p), which exported
 * COUNT[p] records (from the model's words) and holds OWN[p] records of its own in its area:
 * reads what the post did not, then writes every other place's records into each place's
 * area after its own, in increasing order of their places. ARRIVED[p] gets their number.
 * Every COUNT[p] must be within the place's capacity. The writes complete in the queues'
 * order; nothing else waits for them. */
int exchange_window_carry(exchange_window *xw, int64_t w, uint32_t set, const uint32_t *count,
                          const uint32_t *own, uint32_t *arrived, cn_error *err);

/* The same over several MPI ranks (a collective: every rank calls it for the same window,
 * SET 0 on a rank none of whose places ran it): each place of SET gets the others' records
 * of SET and every other rank's records of its places, after its own. Up to 64 ranks. */
int exchange_window_carry_ranks(exchange_window *xw, int64_t w, uint32_t set,
                                const uint32_t *count, const uint32_t *own, uint32_t *arrived,
                                cn_error *err);

#endif
