/* The exchange of records between partitions on different devices: a service of the core that
 * a model uses (docs/architecture.md, "The exchange of records").
 *
 * A model's kernels append (destination word, fixed-size record) to their device's outbox
 * (cl/common/exchange.clh); the destination word names a partition (word / span). At the end of the
 * window the model's consuming kernel reads the outbox on the same device, keeps the records
 * whose partition lives there, and moves the others to the export area; the core reads the
 * control block back with the model's own words in the same read (one wait per window), and
 * only when it asks for more does exchange_settle carry the exports to the devices that hold
 * their partitions (exchange_transport.h), through each one's inbox, which the model's kernel
 * consumes before the next window.
 *
 * No record is ever lost: one that finds the outbox full stops its producer (the model runs it
 * again once the core has doubled the outbox), and one that finds its destination full waits
 * in the deferred area until the model has made room. Records arrive in no particular order:
 * a consumer must not depend on it (PHOLD's LPs order their events by key). */
#ifndef CLNETSIM_EXCHANGE_H
#define CLNETSIM_EXCHANGE_H
#include <stddef.h>
#include <stdint.h>

#include "cl/common/exchange.clh"
#include "common/error.h"
#include "device/device.h"
#include "engine/dbuf.h"
#include "engine/engine.h"
#include "engine/exchange_transport.h"

/* What the model does for the exchange; DEV is an index into the exchange's devices. */
typedef struct exchange_consumer {
    void *ctx;
    /* Enqueues DEV's consuming kernel over its outbox (or the inbox the core filled in its
     * place): it reads xch_count records. No wait. */
    int (*consume)(void *ctx, int dev, cn_error *err);
    /* DEV deferred N records (their destinations were full): make room for them; the core
     * then delivers them again. */
    int (*make_room)(void *ctx, int dev, uint32_t n, cn_error *err);
    /* DEV's producers stopped at a full outbox, which the core has grown (its buffers and
     * capacity changed): enqueue them again; they go on from where they stopped. */
    int (*redo)(void *ctx, int dev, cn_error *err);
    /* DEV's control words, read back: an error when the model's words (XCH_MODEL ..) say the
     * run cannot go on. NULL: none. */
    int (*check)(void *ctx, int dev, const uint32_t *words, cn_error *err);
} exchange_consumer;

typedef struct exchange_config {
    size_t record_bytes;        /* bytes of one record, a multiple of 4 */
    uint32_t n_parts, span;     /* destination word D names partition D / span */
    uint32_t capacity;          /* outbox records per device at the start */
    exchange_home_fn home;      /* model_ops.partition_home */
    /* Several MPI ranks: the rank that holds a partition (its records go there through the
     * rank transport and exchange_flush). NULL: every partition is this process's. */
    exchange_home_fn rank;
    const struct model_state *model;
    exchange_consumer consumer;
} exchange_config;

typedef struct exchange_device {
    device_ctx *dev;
    dbuf ctl;                   /* uint[XCH_WORDS] */
    dbuf here;                  /* uchar[n_parts]: 1 for the partitions that live here */
    dbuf out_rec, out_dest;     /* the outbox, also the inbox the core fills */
    dbuf def_rec, def_dest;     /* deferred records */
    dbuf x_rec, x_dest;         /* exported records */
    uint32_t cap;               /* records each of the three areas holds */
    uint32_t words[XCH_WORDS];  /* the control block as last read back */
    int unsettled;              /* a delivery of arrivals enqueued, not yet checked */
    /* Streaming (exchange_stream): the exports read so far this window, the queue that reads
     * them beside the device's work, and the pinned host arrays they are read into (SCAP
     * records), from which they are sent; SWANT: the most exports a window had */
    uint32_t taken;
    cl_command_queue copy_queue;
    uint32_t *sdest;
    unsigned char *srec;
    cl_mem sdest_mem, srec_mem;
    uint32_t scap, swant;
} exchange_device;

/* A segment of a device's outbox, consumed while its later sets still run: the control block
 * as its consumer left it, read back with EV. */
typedef struct exchange_segment_rec {
    int dev;
    cl_event ev;
    uint32_t words[XCH_WORDS];
} exchange_segment_rec;

typedef struct exchange {
    exchange_config cfg;
    int n_devs;
    exchange_device dev[ENGINE_MAX_DEVICES];
    dbuf_account *acc;
    exchange_transport transport;
    exchange_router router;
    uint32_t *stage_dest;       /* the exports of every device, read to the host */
    unsigned char *stage_rec;
    size_t stage_cap;
    uint64_t moved_bytes;       /* bytes of records (and their words) carried between devices */
    /* Several ranks: each set's records for other ranks go out as soon as its device made
     * them (exchange_segment), not all at the window's end */
    int streaming;
    exchange_segment_rec **segs;
    size_t n_segs, cap_segs;
    double wait_warn_s;         /* a wait for a device this long says so on stderr */
} exchange;

/* Bytes one device holds for the exchange with CAPACITY records of RECORD_BYTES, for a memory
 * check before anything is allocated. */
uint64_t exchange_device_bytes(size_t record_bytes, uint32_t capacity, uint32_t n_parts);
/* The capacity after an outbox of CAP records filled: twice, at most XCH_MAX_CAPACITY. */
uint32_t exchange_grown_capacity(uint32_t cap);

/* Allocates the areas on each of DEVS (accounted in ACC), writes which partitions live where
 * and zeroes the control blocks. */
int exchange_init(exchange *ex, const exchange_config *cfg, device_ctx *const *devs, int n_devs,
                  dbuf_account *acc, cn_error *err);
void exchange_release(exchange *ex);

/* Whether every partition lives on one device (no record can cross). */
int exchange_single_home(const exchange *ex);
/* Forgets the control blocks read back (at the start of a window's end). */
void exchange_clear_words(exchange *ex);
/* Enqueues DEV's consuming kernel and the read of its control block (no wait). */
int exchange_deliver(exchange *ex, int dev, cn_error *err);
/* Enqueues the read of DEV's control block alone (no wait): after a model's own deliveries
 * (several windows on one device before one read-back). */
int exchange_read_words(exchange *ex, int dev, cn_error *err);
/* Several ranks, after each producing set the model enqueues on DEV: consumes the outbox's
 * records made since the last segment (records for this device go to their slots at once,
 * the others to the export area) and reads the control block back, without waiting; no-op
 * unless the exchange streams. Records consumed early must not change the sets that run
 * after them (a model whose records always fall past the window's end). */
int exchange_segment(exchange *ex, int dev, cn_error *err);
/* Several ranks, at the window's end once every set was enqueued: as each segment completes,
 * reads its exports (pinned memory, a queue of their own beside the device's work) and sends
 * those for other ranks at once (the rank transport's stream); takes in what the other ranks
 * sent meanwhile. No-op unless the exchange streams. */
int exchange_stream(exchange *ex, cn_error *err);
/* Whether the control blocks read back (once the devices are done) ask for exchange_settle:
 * deferred, exported or stalled records, or a model word set. */
int exchange_needs_more(const exchange *ex);
/* The rare paths, until every record is delivered and no producer is stopped: deferred
 * records delivered again after the model made room, exports carried to their devices and
 * consumed there, stalled producers run again on a grown outbox. Waits for the devices. */
int exchange_settle(exchange *ex, cn_error *err);
/* Several ranks, once per window after exchange_settle, on every rank: sends the records
 * settle routed to other ranks and delivers what they sent to this rank's devices as
 * settle does (deferred records included), waiting for them (a rank of one device: see
 * exchange_settle_arrivals, which must follow). FAILED non-zero: this rank
 * failed earlier in the window; it takes part, sending nothing (exchange_transport.flush).
 * Returns FAILED, DIST_PEER_FAILED when another rank failed, or an error. With one rank:
 * FAILED, nothing done. */
int exchange_flush(exchange *ex, int failed, cn_error *err);
/* After exchange_flush on a rank of one device, whose last delivery of arrivals it only
 * enqueued (so that the model can queue what reads the delivered records behind it, and wait
 * once): waits for it and settles what it deferred. *SETTLED: whether records were deferred
 * (what the model read was before them). */
int exchange_settle_arrivals(exchange *ex, int *settled, cn_error *err);
/* Bytes of records (and their words) this rank sent to other ranks. */
uint64_t exchange_rank_bytes(const exchange *ex);
/* Zeroes DEV's control block for the next window (ordered before its launches). */
int exchange_reset(exchange *ex, int dev, cn_error *err);
/* PARTITION now lives on device TO instead of FROM. */
int exchange_move_home(exchange *ex, int partition, int from, int to, cn_error *err);
/* Partition PARTITION lives on device DEV (HERE 1) or left it (0): another rank handed it to
 * this one, or this one to another. */
int exchange_partition_here(exchange *ex, int partition, int dev, int here, cn_error *err);

#endif
