/* Private state of the flood model, shared by its source files. */
#ifndef CLNETSIM_FLOOD_MODEL_H
#define CLNETSIM_FLOOD_MODEL_H
#include <stdint.h>

#include "cl/flood_layout.clh"
#include "engine/cell_lists.h"
#include "engine/dbuf.h"
#include "models/flood/flood.h"

/* The scenario's parameters of a window, as the transmit kernels take them. */
typedef struct window_args {
    cl_long T, L, start, interval, duration;
    cl_ulong thr;
    cl_uint2 key;
    cl_uint source, dest, ttl;
} window_args;

/* What the transmit launches of a window share, prepared by the first partition's set: at
 * most two windows in flight, slots for the window's new packets and the descriptor, the
 * bound on the relays it can make, the count words and the scenario's parameters. */
typedef struct transmit_prep {
    cl_uint n_clear;
    cl_uint16 inline_desc;
    uint64_t relays_bound;
    cl_uint in_word, out_word, clear_word, stamp;
    int sized;              /* the next frontier holds every relay the window can make */
    window_args a;
} transmit_prep;

struct model {
    scenario sc;
    device_ctx *dev;
    dbuf_account acc;
    uint32_t n;             /* nodes */
    uint32_t words;         /* uint32 words of one slot's seen bitset */
    int mobile;
    int64_t L;              /* window length = relay delay */
    uint64_t extent[3];     /* area sides in mm for placement and waypoints */

    cl_program prog;
    cl_kernel k_place, k_rwp_init, k_move, k_csr_count, k_csr_fill, k_transmit, k_gather,
        k_by_packet;
    size_t ls_place, ls_move, ls_csr, ls_transmit, ls_gather, ls_by_packet;
    /* CPU devices, static scenarios: windows grouped by packet (transmit_by_packet); the
     * frontier is then node ids in one run per slot, seg[b][slot] = (first, count). */
    int by_packet;
    dbuf seg[2];

    /* flows */
    dbuf pos, waypoint, speed, leg, pause_end;
    cell_grid grid;
    cell_lists cells;       /* mobile: rebuilt each window with transmissions */
    /* Partitions (host/engine/partition.h): partition p handles the receptions of the nodes
     * with part_of = p. Static scenarios keep CSR lists per partition, built once: for every
     * transmitter, its neighbours in the partition. */
    uint32_t n_parts;
    dbuf part_of;           /* ushort per node (a placeholder word with one partition) */
    dbuf *offsets, *neighbours; /* [n_parts] */
    scan_ctx node_scan;     /* prefix sums over N + 1 entries */

    /* packets in flight: one slot each */
    uint32_t slots;
    dbuf seen, spill, slot_packet;
    dbuf desc;              /* window descriptors too large for the kernel argument */
    dbuf ctl;               /* CTL_WORDS control words, then one liveness stamp per slot */
    karg_cache transmit_args, by_packet_args;
    int64_t counts_clean;   /* window whose three count words are known to be right */
    dbuf frontier[2];
    uint32_t capacity[2];   /* entries of each frontier buffer */
    int cur;                /* frontier holding this window's transmissions */
    uint32_t lcap;          /* work-group relay buffer entries */
    size_t max_groups;      /* work-groups of a transmit launch that fill the device */

    /* The window loop runs one window ahead of what the host has read back (static
     * scenarios): window w + 1 is enqueued while window w computes. The frontier sizes live
     * on the device; the host knows them exactly up to the last window read back, and bounds
     * the others by the maximum degree, so that no frontier can overflow. */
    uint32_t max_degree;    /* static: largest neighbour count */
    int force_sync;         /* read every window back before the next (CPU devices) */
    uint64_t lag_budget;    /* largest frontier (entries) the bound may ask for */
    int64_t planned;        /* last window planned */
    int64_t processed;      /* last window whose read-back the host has applied */
    uint32_t relays_known;  /* relays made by window `processed` (entries of the next one) */
    uint32_t n_new_of[4];   /* packets injected in window w, at [w & 3] */
    uint64_t entries_bound; /* bound on the entries of window `planned` */
    struct flood_readback {
        int64_t window;
        cl_event ev;
        uint32_t *words;    /* CTL_WORDS control words, then the slots' liveness */
        uint32_t n_alive;
        uint32_t out_word, out_buffer, out_capacity;
        int overflow_safe;  /* its relays were bounded within the next frontier */
    } rb[2];
    int rb_head, rb_count;
    /* Both read-back areas live in one pinned host buffer (CL_MEM_ALLOC_HOST_PTR, mapped for
     * the whole run): drivers copy into pinned memory directly, without a staging copy. */
    cl_mem pinned;
    uint32_t *pinned_map;

    int64_t *slot_pkt;      /* packet held by each slot, -1 when free */
    uint32_t *free_slots, n_free;  /* free slots with clear bitsets */
    uint32_t *dirty_slots, n_dirty; /* retired slots whose bitsets the next window clears */
    uint32_t ctl_host[CTL_WORDS];
    /* Window descriptors: (slot, packet) of each new packet, then the slots to clear. One
     * array per window parity: the non-blocking write of window w may still be queued while
     * window w + 1 is prepared. */
    uint32_t *desc_host[2];
    uint32_t desc_cap[2];
    uint32_t n_new;
    int64_t next_packet;    /* first packet not yet created */
    int transmitted;        /* the window ran a transmit set */
    transmit_prep prep;     /* of the window under way */

    int64_t end_time;       /* time of the last executed transmission */
    int any_tx;
    int64_t longest_life;   /* most windows a packet stayed in flight, for the ETA */
    int64_t *born_window;   /* window each slot's packet was created in */
};

/* flood_setup.c */
int flood_create(struct model **out, const scenario *sc, device_ctx *const *devs, int n_devs,
                 cn_error *err);
void flood_destroy(struct model *m);
int flood_grow_slots(struct model *m, cn_error *err);
/* The CSR lists of partition PART (receivers in PART only); adds each transmitter's degree
 * in it to DEG_SUM (N entries) when given. */
int flood_build_csr(struct model *m, uint32_t part, dbuf *offsets, dbuf *neighbours,
                    uint32_t *deg_sum, cn_error *err);
int flood_move(struct model *m, int64_t window, cl_event *ev, cn_error *err);
uint64_t flood_counter(const struct model *m, int word);
/* After any buffer was reallocated: a new buffer may reuse the handle value of a freed one,
 * so cached kernel arguments cannot be trusted. */
void flood_forget_args(struct model *m);
/* (Re)makes the pinned read-back areas for the current slot count; none may be pending. */
int flood_readback_areas(struct model *m, cn_error *err);

#endif
