/* Private state of the flood model, shared by its source files. */
#ifndef CLNETSIM_FLOOD_MODEL_H
#define CLNETSIM_FLOOD_MODEL_H
#include <stdint.h>

#include "engine/cell_lists.h"
#include "engine/dbuf.h"
#include "models/flood/flood.h"

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
    cl_kernel k_place, k_rwp_init, k_move, k_csr_count, k_csr_fill, k_inject, k_transmit,
        k_gather;
    size_t ls_place, ls_move, ls_csr, ls_inject, ls_transmit, ls_gather;

    /* flows */
    dbuf pos, waypoint, speed, leg, pause_end;
    cell_grid grid;
    cell_lists cells;       /* mobile: rebuilt each window with transmissions */
    dbuf offsets, neighbours; /* static: CSR lists, built once */
    scan_ctx node_scan;     /* prefix sums over N + 1 entries */

    /* packets in flight: one slot each */
    uint32_t slots;
    dbuf seen, spill, slot_packet, alive, ctl, new_packets;
    dbuf frontier[2];
    uint32_t capacity[2];   /* entries of each frontier buffer */
    int cur;                /* frontier holding this window's transmissions */
    uint32_t F;             /* entries carried into the window (relays of the last one) */
    uint32_t base;          /* relay cursor at the start of the window */
    uint32_t lcap;          /* work-group relay buffer entries */

    int64_t *slot_pkt;      /* packet held by each slot, -1 when free */
    uint32_t *free_slots, n_free;
    uint32_t *alive_host;
    uint32_t ctl_host[16];
    uint32_t *new_host;     /* (slot, packet) pairs injected this window */
    uint32_t n_new, new_cap;
    int64_t next_packet;    /* first packet not yet created */
    int transmitted;        /* the window ran a transmit set */

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
int flood_build_csr(struct model *m, dbuf *offsets, dbuf *neighbours, cn_error *err);
int flood_move(struct model *m, int64_t window, cl_event *ev, cn_error *err);
uint64_t flood_counter(const struct model *m, int word);

#endif
