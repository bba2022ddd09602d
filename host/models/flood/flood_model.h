/* Private state of the flood model, shared by its source files. */
#ifndef CLNETSIM_FLOOD_MODEL_H
#define CLNETSIM_FLOOD_MODEL_H
#include <stdint.h>

#include "cl/flood/flood_layout.clh"
#include "common/wide.h"
#include "engine/cell_lists.h"
#include "engine/checkpoint.h"
#include "engine/dbuf.h"
#include "engine/exchange_window.h"
#include "engine/partition.h"
#include "models/flood/flood.h"
#include "models/flood/flood_ckpt_format.h"
#include "models/traffic/departures.h"

/* What the window's kernels take of the window as an argument: its start T (the scenario's
 * constants are in the parameter block, flood_params in cl/flood/flood_layout.clh). */
typedef struct window_args {
    cl_long T;
} window_args;

/* What the transmit launches of a window share, prepared by the first partition's set: at
 * most two windows in flight, slots for the window's new packets and the descriptor, the
 * bound on the relays it can make, the count words and the scenario's parameters. */
typedef struct transmit_prep {
    cl_uint n_clear;
    cl_uint16 inline_desc;
    uint64_t relays_bound;
    cl_uint in_word, out_word, clear_word, stamp;
    /* forwarding schemes: the length words of the window's pending list and the next one's
     * (cl/flood/flood.cl, pend_list), rotated like IN_WORD and OUT_WORD */
    cl_uint pend_word, next_pend_word;
    int sized;              /* the next frontier holds every relay the window can make */
    int spread;             /* its partitions are on several devices */
    window_args a;
} transmit_prep;

#define FLOOD_MAX_REPLICAS 16 /* = ENGINE_MAX_DEVICES */
/* Read-backs deferred (flood_exchange.c): window w's relay count lasts in its count word
 * until window w + CTL_ROTATION - 1 runs, so a read-back covers up to CTL_ROTATION - 1
 * windows, FLOOD_MAX_DEFER of them deferred; FLOOD_READ_EVERY the default K (measured in
 * docs/benchmarks.md, "Read-backs every third window") */
#define FLOOD_MAX_DEFER (CTL_ROTATION - 2)
#define FLOOD_READ_EVERY 3
#define FLOOD_MAX_CHUNKS 16    /* whole packets: chunks of a round (one per device) */
/* A replica further behind than this many mobility steps copies another's state instead of
 * replaying the steps (flood_catch_up); CLNETSIM_TEST_REPLAY_STEPS overrides, for the tests. */
#define FLOOD_REPLAY_STEPS 4
/* flood_replica.deliv_clean when both parities' delivery counts are zero */
#define FLOOD_DELIV_ZERO ((int64_t)-2)

/* What one device holds. Positions, mobility state, cell lists, packet slots and the frontier
 * are replicated on every selected device; the static neighbour lists of a partition live only
 * on its home. A device's seen bits are right for the nodes of the partitions it holds (it
 * handles their receptions); its other bits are never read, and a migration copies the
 * partition's bits over (flood_migrate). */
typedef struct flood_replica {
    device_ctx *dev;
    int cpu;                /* a CPU device */
    cl_program prog;
    /* the init kernels of the mobility models present (by enum mobility_kind); k_move is
     * the one model kernel when a single run of ids moves, else move_groups */
    cl_kernel k_init[6];
    cl_kernel k_place, k_move, k_csr_count, k_csr_fill, k_transmit, k_gather,
        k_export, k_retile, k_gather_moved, k_scatter_moved, k_stamp, k_packets,
        k_packets_local, k_packets_one, k_cap_select, k_cap_count;
    size_t ls_packets;
    /* whole packets (flood_packets.c): per work-group frontier, seen bitset, statistics; the
     * CSR lists of the whole graph when this replica is not partition 0's home; its groups,
     * whether its seen bits are in local memory, its rows as last read back, and whether it
     * ran a chunk of the round under way */
    dbuf pk_front, pk_seen, pk_rows, pk_off, pk_nbr;
    /* with traffic flows: the round's packets (time, source, destination) as of round
     * PK_TAB_ROUND, and their records (deliveries, hops, last hop count) */
    dbuf pk_tab, pk_rec;
    dbuf pk_state;          /* forwarding schemes: per work-group node states (zero) */
    /* bounded launches on a device that ends loops early (RESUME_* in flood_layout.clh):
     * the work-groups' records, the launch sequence under way, each launch's quota of work
     * units (0: unbounded) and the seen words a unit clears */
    dbuf pk_resume;
    uint32_t pk_epoch, pk_quota, pk_unit;
    int64_t pk_tab_round;
    uint32_t pk_groups;
    int pk_local, pk_one, pk_ran; /* PK_ONE: flood_packets_one (groups of one item) */
    int64_t *pk_stats, *pk_read; /* PK_READ: the rows read back, kept once the round is whole */
    int dead;               /* failed and left out: whole packets go on without it */
    size_t ls_place, ls_move, ls_csr, ls_transmit, ls_gather, ls_export,
        ls_retile, ls_cap;
    size_t max_groups;      /* work-groups of a transmit launch that fill the device */
    uint32_t team;          /* transmit_mobile's work-items per entry (FLOOD_TEAM; 1: one) */
    uint32_t lcap;          /* work-group relay buffer entries */

    dbuf params;            /* the parameter block (flood_layout.clh, flood_params) */
    dbuf pos, waypoint, speed, leg, pause_end;
    dbuf segtab;            /* move_groups: the runs of ids and their parameters */
    cell_lists cells;
    /* the neighbour cap (flood_cap.c): each node's threshold (d2, id), of window CAPPED */
    dbuf cap_thr;
    int64_t capped;
    dbuf node_drop;         /* drop_probability drawn per node: each node's threshold */
    /* forwarding schemes in the window loop (m->scheme_window): the nodes' states per slot
     * (SCHEME_WORDS uints per node and slot, cl/flood/flood.cl), right for the nodes of the
     * partitions it holds like its seen bits, and the kernel of the window's decisions */
    dbuf scheme_state;
    cl_kernel k_decide;
    size_t ls_decide;
    karg_cache decide_args;
    /* ... and its pending lists (cl/flood/flood.cl, pend_list): two halves of PEND_CAP items. They
     * hold every pair to decide only while the device runs window after window: PEND_RAN is
     * the last window whose decisions it ran, PEND_BROKEN says that states reached it from
     * elsewhere since (a migration, a re-tiling, a checkpoint, grown slots), and PEND_FULL
     * is a window it decides by visiting every pair (flood_scheme.c) */
    dbuf pend;
    uint32_t pend_cap;
    int64_t pend_ran, pend_full, pend_seen;
    int pend_broken;
    /* node resources (flood_resources.c, cl/flood/flood_resources.cl): the four kernels of a window
     * and their argument caches; per node the energy left, the death time, the first entry of
     * its list and the last window whose copies reached it (its stamp); the window's
     * transmitters and entries, ENT_CAP of them; the costs per flow; the window whose list
     * length is known to be zero (CLEAN) */
    struct flood_res_replica {
        cl_kernel k_link, k_charge, k_receive, k_reset;
        size_t ls_link, ls_charge, ls_receive, ls_reset;
        karg_cache link_args, charge_args, receive_args, reset_args;
        dbuf energy, death, head, reached, txnodes, ent, costs;
        uint32_t ent_cap;
        int64_t clean;
    } res;
    /* traffic flows (m->flows): each slot's creation time and (destination, flow), and the
     * deliveries per slot of the two window parities (clean for window DELIV_CLEAN) */
    dbuf slot_time, slot_route, deliv;
    int64_t deliv_clean;
    dbuf part_of;           /* ushort per node (a placeholder word with one partition) */
    int64_t part_epoch;     /* the tiling (flood_epoch) its part_of holds */
    /* re-tiling (flood_retile.c): the tile cuts, the partitions it holds (a byte each, from
     * HELD_HOST), the nodes leaving them and their seen bits as records */
    dbuf cuts, held, leaving, records;
    uint8_t *held_host;
    int64_t held_version;   /* the placement (m->placement) HELD holds, -1: none yet */
    uint32_t record_cap;    /* records RECORDS has room for */
    scan_ctx node_scan;     /* prefix sums over N + 1 entries */
    dbuf seen, spill, slot_packet;
    dbuf desc;              /* window descriptors too large for the kernel argument */
    dbuf ctl;               /* CTL_WORDS control words, then one liveness stamp per slot */
    dbuf frontier[2];
    uint32_t capacity[2];   /* entries of each frontier buffer */
    /* several devices (flood_exchange.c): the relays other devices may need, and the reach
     * boxes of the partitions held elsewhere (BOX_HOST, kept until the write completes) */
    dbuf boxes;
    cl_long4 *box_host;
    uint32_t box_cap;       /* boxes BOX_HOST has room for */
    /* the relays of other devices the exchange appended after its own for window
     * IMPORT_WINDOW (its count word holds only its own: the kernel adds them) */
    cl_uint n_import;
    int64_t import_window;
    /* Its records of the nodes leaving its partitions at a re-tiling, read back with the
     * window's counters (as many as last time and more) into a pinned host area, and the
     * writes of them to the devices the nodes join (flood_retile.c); 8-byte entries like the
     * relays. (Its border relays go through the core's exchange, m->xw.) */
    struct export_area {
        cl_mem mem;
        uint32_t *map;
        uint32_t cap;       /* entries */
        int n_writes;
        cl_event writes[FLOOD_MAX_REPLICAS];
    } rarea;
    /* mobile: what transmit_mobile exports in window X_WINDOW, decided at the window's first
     * transmit set here (flood_export_setup): a relay inside one of X_N boxes, each the union
     * of the reach boxes of the partitions one other holder (another device of this rank, or
     * another rank) holds under placement X_PLACEMENT; XBOXES holds them as (lo, hi) pairs,
     * written from XBOX_HOST (kept until the write completes; none: X_ACTIVE is 0) */
    int64_t x_window, x_placement;
    int x_active;
    dbuf xboxes;
    cl_long4 *xbox_host;
    cl_uint x_n;
    int64_t exports_clean;  /* window whose export count word is known to be zero */
    uint32_t last_retile;   /* records it gathered at the last re-tiling */
    uint32_t rarea_spec;    /* records read with the counters this re-tiling */
    karg_cache transmit_args, move_args, export_args;
    /* Both read-back areas live in one pinned host buffer (CL_MEM_ALLOC_HOST_PTR, mapped for
     * the whole run): drivers copy into pinned memory directly, without a staging copy. */
    cl_mem pinned;
    uint32_t *pinned_map;
    size_t area;            /* words of one read-back area */

    /* mobile: the next window's mobility step and cell lists, queued at the end of the last
     * one (flood_premove), and their events, handed to that window's sets */
    int64_t pre_window;
    cl_event pre_move_ev, pre_bin_ev[5]; /* cell lists (3 at most), the cap's thresholds */
    int n_pre_bin;

    int64_t counts_clean;   /* window whose count words are known to be right */
    int64_t moved;          /* mobile: window whose positions it holds */
    /* mobile: the window whose step, the last one here, ranked every node for the cell lists
     * (m->rank_moves, cell_lists_build_ranked); -1 when the last step ranked none, or the
     * positions came from elsewhere since (a copy, a checkpoint) */
    int64_t ranked;
    /* The next window's step fused into this window's transmit (m->fuse, flood_fuse.c):
     * FUSE_CODE, its FLOOD_STEP (0: the program has no fused step, nor fixed cells) */
    int fuse_code;
    int64_t binned;         /* mobile: window whose cell lists it holds */
    /* With several partitions its cell lists hold only the nodes of the partitions it holds
     * (HELD): they are current for window BINNED only while its part_of and the placement
     * are those it binned with. */
    int64_t bin_epoch, bin_placement;
    int64_t synced;         /* window whose entries its frontier[cur] and count word hold */
    int64_t prepared;       /* window whose descriptor and counts it has */
    uint32_t counters[CTL_WORDS]; /* its control words as last read back */
} flood_replica;

/* The flood's state: the core holds it as the opaque struct model_state (engine/engine.h),
 * which flood_of and flood_const_of turn back into this. */
typedef struct flood_model {
    scenario sc;
    flood_replica rep[FLOOD_MAX_REPLICAS];
    int n_rep;
    device_ctx *dev;        /* rep[0]'s device (setup and tests) */
    dbuf_account acc;
    uint32_t n;             /* nodes */
    uint32_t words;         /* uint32 words of one slot's seen bitset */
    int mobile;
    /* mobility: runs of ids with the same parameters (flood_mobility_segments, pointing
     * into SC), how many of them move, and the one that does when it is the only one
     * (MOVING_SEG); ids [MOVE_FIRST, MOVE_END) span every moving run. The fastest speed and
     * whether a node can wrap across the area bound the reach of a step. */
    mobility_segment segs[SCENARIO_MAX_SEGMENTS];
    int n_segs, n_moving, moving_seg;
    int64_t move_first, move_end, speed_max;
    int wraps;
    /* The steps rank the nodes for the cell lists on the replicas whose lists are made for it
     * (cells.ranked): one launch moves every node, and the lists hold every node (one
     * partition, or the cap's lists, flood_catch_up). */
    int rank_moves;
    /* The next window's step runs inside the transmit launch (flood_fuse.c) */
    int fuse;
    int64_t L;              /* window length = relay delay */
    /* The neighbour cap K (0: none; flood_cap.c). CAP_LIVE: the graph changes with the
     * window (qudg or mobile), so the thresholds are computed per window and the transmit
     * kernels test them; else the CSR lists are capped once. LINKS and LINKS_CUT: window 0's
     * graph, for the results. */
    uint32_t cap;
    int cap_live;
    /* Node resources (docs/models.md): a receive capacity or an energy budget (ENERGY) make
     * every window run the kernels of cl/flood/flood_resources.cl instead of transmit. */
    int resources, energy;
    int64_t links, links_cut;
    uint64_t extent[3];     /* area sides in mm for placement and waypoints */
    /* Static scenario, one partition, one device: each packet flooded whole in one launch
     * (flood_packets.c); the window loop's rounds are then batches of packets. */
    int whole;
    int64_t pk_total;       /* packets created before the end of the run */
    int64_t pk_next;        /* first packet not planned yet */
    uint64_t pk_round;      /* packets per round */
    /* A round is cut into chunks, which the injector places one by one (as partitions whose
     * flows every device holds): the first packet and count of each chunk of the round. */
    int pk_chunks;
    int pk_home[FLOOD_MAX_CHUNKS];
    int64_t pk_k0[FLOOD_MAX_CHUNKS], pk_count[FLOOD_MAX_CHUNKS];
    int pk_ran_on[FLOOD_MAX_CHUNKS]; /* the replica that ran each chunk of the round */
    /* traffic flows: the round's first packet and number, its table (4 words a packet, as
     * the kernels read it) and each packet's flow; the records read back */
    int64_t pk_round_k0, pk_rounds;
    uint64_t pk_groups;     /* work-groups of the chunks' devices together */
    /* Several MPI ranks (flood_ranks.c): each round's packets are shared out between the
     * ranks by their weights (RANK_WEIGHT, one per rank, agreed at every round's end: each
     * rank's measured packets per second); this rank floods packets [PK_SHARE_K0,
     * + PK_SHARE_N) of the round, from PK_SHARE_T0 (wall clock) on; its own speed so far
     * (RANK_RATE, 0: not measured yet), the latest transmission of every rank's packets
     * (RANK_END, -1: none) and the outcome of this rank's round (RANK_OUT, for end_ranks) */
    uint64_t *rank_weight;
    uint64_t *share_at;     /* every rank's share of the round under way: [at[r], at[r + 1]) */
    int share_open;         /* a round was shared out and not yet ended over the ranks */
    int64_t pk_share_k0, pk_share_n;
    double pk_share_t0, rank_rate;
    double rank_slower;     /* CLNETSIM_TEST_RANK_SLOWER (flood_ranks.c), else 0 */
    int64_t rank_end;
    uint64_t rank_sent;     /* bytes of relays this rank sent to the others (whole windows) */
    unsigned char *rank_records; /* the other ranks' moved-node records of the last re-tiling */
    window_outcome rank_out;
    int scheme;             /* a forwarding scheme: counter or distance */
    /* ... run by the window loop (flood_scheme.c; else by flood_packets_scheme): its slots
     * whose packets wait for decisions without relaying (from the last window read back), and
     * per slot whether the packet transmits in the window after that one */
    int scheme_window;
    uint32_t scheme_waiting;
    uint8_t *tx_next;
    uint32_t entry_bytes;   /* bytes of a frontier entry: 8, or 16 under a scheme */
    uint32_t *pk_tab_host, *pk_flow_host;
    int64_t *pk_rec_host;
    cell_grid grid;

    /* Partitions (host/engine/partition.h): partition p handles the receptions of the nodes
     * with part_of = p, on its home device. Static scenarios keep CSR lists per partition,
     * built once on its home: for every transmitter, its neighbours in the partition. */
    uint32_t n_parts;
    uint16_t *part_host;    /* part_of on the host (NULL with one partition) */
    int *home;              /* replica holding each partition (-1: another rank's) */
    /* Several MPI ranks, the window loop (flood_ranks.c): this rank holds partitions
     * [P_LO, P_HI) (dist_range_first; none when there are fewer partitions than ranks), the
     * others' home -1; RANKED whether this is such a run (set before anything is planned);
     * ALL_REPS the devices of every rank, ALL_MIXED whether CPUs and GPUs are among them
     * (both decide the count) */
    uint32_t p_lo, p_hi;
    int ranked;
    int all_reps, all_mixed;
    /* The coordinator (flood_balance.c): every rank's range, [RANK_FIRST[r], RANK_FIRST[r +
     * 1]) (NULL with one rank); this rank's busy time since the last look (BUSY_S over
     * BUSY_WINDOWS windows that transmitted; BUSY_T0 the current window's plan) and the
     * partitions moved between ranks so far */
    uint32_t *rank_first;
    double busy_s, busy_t0;
    int64_t busy_windows;
    uint64_t ranks_moved, ranks_looks;
    int64_t placement;      /* counts the changes of HOME (migrations) */
    int64_t (*box)[2][3];   /* static: each partition's nodes' bounding box (lo, hi) */
    /* Mobile: partitions are tiles of the plane (partition_cuts), and every RETILE windows
     * (0: never) each node joins the tile it is in (flood_retile.c). PART_HOST is then only
     * brought up to date when needed: it holds the tiling HOST_EPOCH. */
    partition_cuts cuts;
    int64_t retile;
    int64_t host_epoch;
    int retile_mask;        /* replicas whose records flood_retile_finish hands over */
    int64_t retile_queued;  /* window whose re-tiling is queued (-1: none) */
    int64_t retile_in_rb;   /* window whose re-tiling counts its read-back carries (-1) */
    uint32_t record_test;   /* CLNETSIM_TEST_RECORDS (0: none) */
    dbuf *offsets, *neighbours; /* [n_parts], on home[p] */

    /* packets in flight: one slot each */
    uint32_t slots;
    int cur;                /* frontier holding this window's transmissions */

    /* The window loop runs one window ahead of what the host has read back (one partition
     * or static partitions on one GPU, flood_window.c can_run_ahead): window w + 1 is
     * enqueued while window w computes. The frontier sizes live on the device; the host
     * knows them exactly up to the last window read back, and bounds the others by the
     * maximum degree (static) or by the nodes of the packets in flight (relays_bound), so
     * that no frontier can overflow. With partitions on several devices every window is read
     * back and its relays exchanged. */
    uint32_t max_degree;    /* static: largest neighbour count */
    int loops_limited;      /* a device ends loops early (device_loop_limit) */
    int run_ahead_env;      /* CLNETSIM_TEST_RUN_AHEAD: -1 unset, 0 or 1 */
    /* Reading back every K-th window (flood_exchange.c, "Deferred read-backs"): READ_EVERY
     * K, 1 to FLOOD_MAX_DEFER + 1 (CLNETSIM_TEST_READ_EVERY, default FLOOD_READ_EVERY);
     * DEFERRED[0 .. N_DEFERRED) the windows, consecutive, whose read-backs wait for a later
     * window's, each with its out word and capacity; LAST_READ the last window a queued
     * read-back covers */
    int read_every;
    uint64_t read_backs;    /* queued so far (the host report's read_backs) */
    int64_t last_read;
    int n_deferred;
    struct flood_deferred {
        int64_t window;
        uint32_t word, buffer, capacity;
    } deferred[FLOOD_MAX_DEFER];
    uint32_t replay_steps;  /* FLOOD_REPLAY_STEPS, or CLNETSIM_TEST_REPLAY_STEPS */
    uint64_t lag_budget;    /* largest frontier (entries) the bound may ask for */
    int64_t planned;        /* last window planned */
    int64_t processed;      /* last window whose read-back the host has applied */
    uint32_t relays_known;  /* relays made by window `processed` (entries of the next one) */
    uint32_t n_new_of[4];   /* packets injected in window w, at [w & 3] */
    uint64_t entries_bound; /* bound on the entries of window `planned` */
    struct flood_readback {
        int64_t window;
        /* FIRST[0 .. N_FIRST): the windows before WINDOW that it covers, in order (their
         * reads were deferred), with their out words and capacities */
        int n_first;
        struct flood_deferred first[FLOOD_MAX_DEFER];
        uint32_t out_word, out_buffer;
        int overflow_safe;  /* its relays were bounded within the next frontier */
        int exported;       /* export_border ran on every replica that ran the window */
        int n_dev;          /* replicas that ran the window, and their read-backs */
        int dev[FLOOD_MAX_REPLICAS];
        cl_event ev[FLOOD_MAX_REPLICAS];
        uint32_t out_capacity[FLOOD_MAX_REPLICAS];
    } rb[2];
    int rb_head, rb_count;
    /* The entries of window `processed` + 1 gathered from every replica that ran window
     * `processed` (when there were several), and where they were gathered from. */
    uint32_t *entries;
    size_t entries_cap;
    cl_mem entries_mem;     /* the pinned buffer `entries` maps (NULL: plain memory) */
    int entries_writers;    /* replicas with writes from `entries` possibly still queued */
    int64_t entries_window; /* window whose entries `entries` holds, -1: none */
    /* The replicas that ran window `processed` (bit per replica) and the relays each made:
     * they start its frontier[cur], before the relays it was given by the others. */
    int relays_mask;
    uint32_t relays_of[FLOOD_MAX_REPLICAS];
    int export_pending;     /* the window under way exported its borders (flood_export_border) */
    int64_t exchanged;      /* bytes moved between devices by the exchange */
    /* The border relays between the replicas that ran a window: the core's windowed exchange
     * (engine/exchange_window.h), its records frontier entries; the arrivals go after each
     * replica's own relays in its frontier XW_BUFFER. */
    exchange_window xw;
    int xw_buffer;
    double wait_s;          /* host time blocked on read-backs, the exchange and re-tiling */
    uint32_t *alive;        /* slots' liveness merged over replicas */

    int64_t *slot_pkt;      /* packet held by each slot, -1 when free */
    uint32_t *free_slots, n_free;  /* free slots with clear bitsets */
    uint32_t *dirty_slots, n_dirty; /* retired slots whose bitsets the next window clears */
    /* Window descriptors: (slot, packet) of each new packet, then the slots to clear. One
     * array per window parity: the non-blocking write of window w may still be queued while
     * window w + 1 is prepared. */
    uint32_t *desc_host[2];
    uint32_t desc_cap[2];
    uint32_t desc_len;      /* of the window under way */
    uint32_t n_new;
    int64_t next_packet;    /* first packet not yet created */
    int transmitted;        /* the window ran a transmit set */
    int ran_mask;           /* replicas that ran a transmit set in the window under way */
    int64_t prep_window;    /* window whose host side transmit_prep holds */
    transmit_prep prep;     /* of the window under way */

    int64_t end_time;       /* time of the last executed transmission */
    int any_tx;
    int64_t longest_life;   /* most windows a packet stayed in flight, for the ETA */
    int64_t *born_window;   /* window each slot's packet was created in */

    /* Traffic (models/traffic/departures.h): departures come in packet id order; those of
     * the windows planned so far wait in PEND (a ring of PEND_CAP) until their window.
     * FLOWS: the packets are those of traffic flows (or per-packet records are wanted), so
     * the kernels take each packet's source, time and destination from the descriptor
     * (-DFLOOD_FLOWS=1) and count deliveries per slot; the host sums them per packet (SLOT_*)
     * and, when the packet retires, per flow and into its record. */
    departures *deps;
    departure *pend;
    size_t pend_head, pend_n, pend_cap;
    int flows;
    int n_flowdefs;
    traffic_flow flowdefs[SCENARIO_MAX_FLOWS];
    int64_t *slot_time;     /* creation time of each slot's packet */
    uint32_t *slot_src, *slot_dst, *slot_flow;
    int64_t *slot_deliv, *slot_hops, *slot_last_h; /* deliveries, their hops, the last's */
    /* their latencies summed and the last one's: under a scheme in the window loop hop
     * counts no longer give them (flood_add_deliveries) */
    wide_int *slot_lat;       /* 128 bits: one broadcast packet's sum can pass 2^63 */
    int64_t *slot_last_lat;
    int64_t f_generated[SCENARIO_MAX_FLOWS], f_deliverable[SCENARIO_MAX_FLOWS];
    int deliverable_wrapped;  /* a flow's deliverable count passed 2^63 - 1 (an error) */
    int64_t f_delivered[SCENARIO_MAX_FLOWS];
    wide_int f_hops[SCENARIO_MAX_FLOWS], f_latency[SCENARIO_MAX_FLOWS]; /* 128 bits */
    /* --packets: one record per packet, appended as packets retire */
    int want_records;
    flood_packet_record *recs;
    int64_t n_recs, cap_recs;
} flood_model;

static inline flood_model *flood_of(struct model_state *s) { return (flood_model *)(void *)s; }
static inline const flood_model *flood_const_of(const struct model_state *s)
{
    return (const flood_model *)(const void *)s;
}

/* flood_setup.c */
int flood_create(struct model_state **out, const scenario *sc, device_ctx *const *devs,
                 int n_devs, cn_error *err);
void flood_destroy(struct model_state *state);
/* Doubles the packet slots on every replica; no read-back may be pending. */
int flood_grow_slots(flood_model *m, cn_error *err);
/* The CSR lists of partition PART (receivers in PART only) on replica R; adds each
 * transmitter's degree in it to DEG_SUM (N entries) when given. */
int flood_build_csr(flood_model *m, flood_replica *r, uint32_t part, dbuf *offsets,
                    dbuf *neighbours, uint32_t *deg_sum, cn_error *err);
/* Where a transmitter of window W can be, EXTRA mobility steps earlier, to reach a node of
 * partition PART (mobile: its tile widened by the farthest move since the positions its
 * members were chosen from, and by the range; static: its nodes' box widened by the range).
 * One partition: everywhere. */
void flood_reach_box(const flood_model *m, uint32_t part, int64_t w, int extra, cl_long4 *lo,
                     cl_long4 *hi);
/* The mobility step of WINDOW on replica R. */
int flood_move(flood_model *m, flood_replica *r, int64_t window, cl_event *ev, cn_error *err);
/* The replicas holding at least one partition, a bit each. */
int flood_holders(const flood_model *m);
/* A 128-bit control counter (cl/flood/flood_layout.clh, CTL_HI) summed over the replicas' last
 * read-backs. */
wide_int flood_counter(const flood_model *m, int word);
/* Result member NAME from counter WORD: each replica's value handed to the core, which
 * combines them by NAME's declared reduction (results_reduce; a count past 2^63 - 1 is an
 * error there rather than a wrapped number). */
int flood_reduce_counter(const flood_model *m, run_results *r, int word, const char *name,
                         cn_error *err);
/* After any buffer of R was reallocated: a new buffer may reuse the handle value of a freed
 * one, so cached kernel arguments cannot be trusted. */
void flood_forget_args(flood_replica *r);
/* (Re)makes R's pinned read-back areas for the current slot count; none may be pending. */
int flood_readback_areas(flood_model *m, flood_replica *r, cn_error *err);
int flood_replica_index(const flood_model *m, const device_ctx *dev);
/* Allocates the flows' slot tables and delivery counts of R for the current slots (zeroed). */
int flood_flow_buffers(flood_model *m, flood_replica *r, cn_error *err);

/* flood_traffic.c: departures, per-slot deliveries, per-flow results and packet records */
int flood_traffic_setup(flood_model *m, cn_error *err);
void flood_traffic_free(flood_model *m);
/* Departures with a time before END waiting for their window: how many. */
uint32_t flood_packets_due(flood_model *m, int64_t end);
/* Whether any packet remains to be created, and the time of the next one. */
int flood_packet_pending(flood_model *m, int64_t *t);
/* Takes the next departure (one flood_packets_due counted) into slot SLOT of window W. */
void flood_take_packet(flood_model *m, uint32_t slot, int64_t w, departure *dep);
/* uints per slot of a window's deliveries on the devices (DELIV_WORDS in cl/flood/flood.cl). */
uint32_t flood_deliv_words(const flood_model *m);
/* Window W's deliveries per slot, read back from one replica (SLOTS x flood_deliv_words). */
void flood_add_deliveries(flood_model *m, int64_t w, const uint32_t *deliv);
/* Slot S's packet is done: its flow's sums and its record. */
int flood_retire_slot(flood_model *m, uint32_t s);
/* Under the rule of docs/model.md (no assessment delays) the latencies of DELIV deliveries
 * with HOPS hop counts in all, and of the last one at hop count LAST_H (-1: none), follow from
 * the hop counts: into *LAT and *LAST_LAT. */
void flood_lattice_latencies(const flood_model *m, int64_t deliv, int64_t hops,
                             int64_t last_h, wide_int *lat, int64_t *last_lat);
/* Whole packets: packet K of departure DEP is done with DELIV deliveries, HOPS their hop
 * counts and LAT their latencies summed, LAST_H and LAST_LAT the last one's (0 and -1: none);
 * 0, or -1 out of memory. */
int flood_whole_packet_done(flood_model *m, int64_t k, const departure *dep, int64_t deliv,
                            int64_t hops, wide_int lat, int64_t last_h, int64_t last_lat);
/* Per-flow results and records into R (the packets still in flight retired first). */
int flood_traffic_results(flood_model *m, run_results *r, cn_error *err);

/* The per-node drop thresholds' buffer (a placeholder under a constant drop probability). */
const dbuf *flood_node_drop_buffer(const flood_replica *r);

/* flood_exchange.c: read-backs, the exchange of relays between replicas, migrations */
/* Whether window W's read-back may wait for a later window's (flood_exchange.c, "Deferred
 * read-backs"); when it does, flood_defer_readback notes it instead of the read-back. */
int flood_may_defer(const flood_model *m, int64_t w, int sized);
void flood_defer_readback(flood_model *m, int64_t w, cl_uint out_word, int out_buffer);
/* Queues the deferred read-backs, if any, as one read-back of the last of them. */
int flood_undefer(flood_model *m, cn_error *err);
/* Queues the read-back of window W on every replica that ran it (m->ran_mask), which also
 * covers the deferred windows before it. */
int flood_queue_readback(flood_model *m, int64_t w, cl_uint out_word, int out_buffer,
                         int overflow_safe, cn_error *err);
/* Applies the read-backs of every window up to W, oldest first: counters, retired slots,
 * spilled relays, and with several replicas the exchange of their relays. */
int flood_process_until(flood_model *m, int64_t w, cn_error *err);
/* The pieces of flood_process_until, which a run over several ranks puts its agreement
 * between (flood_ranks.c): what a read-back says before the exchange (COLLECT: the relays and
 * exports of each replica that ran the window, m->alive merged over them), the exchange
 * itself (BORDER or WHOLE; RANK_TOTALS, each rank's relays, over several ranks, else NULL),
 * and the window applied with TOTAL relays in all (APPLY). */
typedef struct flood_window_counts {
    uint32_t relays[FLOOD_MAX_REPLICAS], exports[FLOOD_MAX_REPLICAS];
    uint64_t total;
    int spilled, unsent;
} flood_window_counts;
int flood_readback_wait(flood_model *m, int *idx, cn_error *err);
int flood_readback_collect(flood_model *m, const struct flood_readback *rb, int idx,
                           flood_window_counts *c, cn_error *err);
void flood_merge_alive(flood_model *m, cl_uint stamp, const uint32_t *live);
int flood_exchange_border(flood_model *m, const struct flood_readback *rb,
                          const uint32_t *relays, const uint32_t *sent, cn_error *err);
int flood_exchange_whole(flood_model *m, const struct flood_readback *rb,
                         const uint32_t *relays, const uint64_t *rank_totals, cn_error *err);
int flood_readback_apply(flood_model *m, const struct flood_readback *rb,
                         const flood_window_counts *c, uint64_t total, cn_error *err);
/* Releases m->entries (pinned or plain). */
void flood_release_entries(flood_model *m);
/* Releases R's records area, once the writes from it are done. */
void flood_release_export_areas(flood_replica *r);
/* Waits for the writes from area A of R to other devices. */
int flood_area_quiet(flood_replica *r, struct export_area *a, cn_error *err);
/* Room for ENTRIES 8-byte entries in R's area A, keeping its first KEEP. */
int flood_area_reserve(flood_replica *r, struct export_area *a, uint32_t entries, uint32_t keep,
                       cn_error *err);
/* The core exchange's sink (exchange_window_sink.make_room): replica PLACE's frontier
 * m->xw_buffer holds TOTAL entries, its own relays and the others' border after them. */
int flood_make_room(void *ctx, int place, uint64_t total, cl_mem *area, cn_error *err);
/* Grows frontier B of replica R to hold NEED entries, keeping its first KEEP entries. */
int flood_ensure_frontier(flood_model *m, flood_replica *r, int b, uint64_t need,
                          cn_error *err);
/* With several replicas running window W: on each, the relays in frontier B (counted in
 * OUT_WORD) that another device's partitions may hear, ready for the exchange. */
int flood_export_border(flood_model *m, int64_t w, cl_uint out_word, int b, cn_error *err);
/* Mobile: what replica R's transmit sets of window W export (see flood_replica), and room for
 * it; once per window, at its first transmit set. */
int flood_export_setup(flood_model *m, flood_replica *r, int64_t w, cn_error *err);
/* Replica R's export boxes for the kernels: XBOXES, or a placeholder buffer while it exports
 * nothing (X_N is then 0). */
const dbuf *flood_export_boxes(const flood_replica *r);
/* Brings replica R to window W before it runs a transmit set there: positions and cell lists
 * (mobile), the window's entries and count words, the descriptor. */
int flood_replica_ready(flood_model *m, flood_replica *r, int64_t w, cn_error *err);
/* Mobile, at the end of window W - 1: every replica holding partitions queues window W's
 * mobility step and cell lists, which then run while the host waits for the read-back; with
 * profiling events only when window W is TIMED (window_plan.timed_next). */
int flood_premove(flood_model *m, int64_t w, int timed, cn_error *err);
/* The events of R's queued step of window W (BIN: of its cell lists), into EVS; released when
 * no set of the window claims them. */
void flood_premove_claim(flood_replica *r, int64_t w, int bin, cl_event *evs, int *n_evs);
void flood_premove_release(flood_replica *r);
/* ---- the next window's step inside the transmit launch (flood_fuse.c) ----
 * FLOOD_STEP for R's program (*CODE 0: none): from the test hook CLNETSIM_TEST_FUSE_STEP or
 * the profile's [kernel] flood.transmit_mobile_step, on one device without node resources or
 * a forwarding scheme. */
int flood_fuse_code(flood_model *m, flood_replica *r, int *code, cn_error *err);
/* Whether M's cell lists on DEV may come from the mobility step's ranks (the grid chosen):
 * the programs then build the paths that read what ranked builds give (FLOOD_SORTED). */
int flood_lists_may_rank(const flood_model *m, const device_ctx *dev);
/* Whether a run of M on DEV could fuse (the memory estimate's question; errors: no). */
int flood_fuse_possible(const flood_model *m, const device_ctx *dev);
/* Once the lists and partitions are made: whether windows fuse (m->fuse), and the fixed
 * cells they read. */
int flood_fuse_setup(flood_model *m, cn_error *err);
/* transmit_mobile's step arguments from index FIRST for window W, groups of LS items:
 * *STEP_GROUPS groups that move the nodes to window W + 1 (0: no step, placeholders). */
int flood_fuse_args(flood_model *m, flood_replica *r, int first, int64_t w, size_t ls,
                    size_t *step_groups, cn_error *err);
/* After a launch that stepped to window W + 1 (its lists are made: CLNETSIM_TEST_CELLS_RANKED
 * =check compares them with counted ones). */
int flood_fuse_launched(flood_model *m, flood_replica *r, int64_t w, cn_error *err);
/* Window W's fixed cells on R (m->fuse): none to make when its step ranked the nodes as it
 * moved them there, else a ranking of the positions. */
int flood_fixed_bin(flood_model *m, flood_replica *r, int64_t w, cl_event *evs, int *n_evs,
                    cn_error *err);
/* transmit_mobile's argument indices: the fused step's (11 + the ranks'), then the flows' */
#define TX_MOBILE_STEP_ARG 45
#define TX_MOBILE_FLOW_ARG (TX_MOBILE_STEP_ARG + 11 + CELLS_RANK_NARGS)

/* Whether a device's cell lists hold only the nodes of the partitions it holds (several
 * partitions, no cap); else they hold every node. */
int flood_lists_filtered(const flood_model *m);
/* Mobile: R's positions and cell lists at window W (BIN: cell lists too). */
int flood_catch_up(flood_model *m, flood_replica *r, int64_t w, int bin, cl_event *evs,
                   int *n_evs, cn_error *err);
int flood_migrate(struct model_state *state, int partition, int to, uint64_t *bytes, cn_error *err);
/* Checkpoints: m->entries made to hold window W's COUNT transmissions (the relays of window
 * W - 1, gathered from the replicas that made them), or set to ENTRIES (m->entry_bytes each). */
int flood_gather_entries(flood_model *m, int64_t w, uint32_t count, cn_error *err);
int flood_set_entries(flood_model *m, int64_t w, const uint32_t *entries, uint32_t count,
                      cn_error *err);

/* flood_retile.c: mobile partitions that follow their nodes */
/* The tiling in force in window W: 0 (the first, from the initial positions) until window
 * RETILE, then W / RETILE, made from the positions of window W / RETILE x RETILE - 1. */
int64_t flood_epoch(const flood_model *m, int64_t w);
/* The window whose positions the tiling of window W was made from. */
int64_t flood_epoch_positions(const flood_model *m, int64_t w);
/* Whether the end of window W re-tiles (window W + 1 starts a tiling). */
int flood_retile_due(const flood_model *m, int64_t w);
/* Mobile, several partitions: each node's partition into the fourth component of its
 * position on R (from R's part_of), where transmit_mobile reads it. */
int flood_stamp_parts(flood_model *m, flood_replica *r, cn_error *err);
/* The partitions stamped into the positions, and the cut buffers and lists of every replica
 * (mobile, several partitions). */
int flood_retile_setup(flood_model *m, cn_error *err);
/* At the end of window W: queues the new tiling on every replica holding partitions, and the
 * records of the nodes that leave their devices, once per window. BEFORE_READBACK: the
 * window's read-back is queued next, and carries the number of records and most of them
 * (flood_queue_readback), so that the hand-over needs no round trip of its own. Then, after
 * the read-back, flood_retile_finish hands the records to the devices the nodes join. */
int flood_retile_queue(flood_model *m, int64_t w, int before_readback, cn_error *err);
int flood_retile_finish(flood_model *m, int64_t w, cn_error *err);
/* PART_HOST as of window W's tiling, read from a replica that holds it when needed. */
/* The re-tiling's records of nodes (flood_retile.c) serve the coordinator's moves between
 * ranks too (flood_balance.c): CAN says whether the run has their kernels and buffers (a
 * moving scenario re-tiled); a record is RECORD_BYTES; GATHER reads the records of the N
 * NODES from replica R into OUT (between windows); SCATTER makes R's nodes of the partitions
 * it holds (its PART_OF and HELD current) take theirs from N RECORDS. */
int flood_records_can(const flood_model *m);
size_t flood_record_bytes(const flood_model *m);
int flood_records_gather(flood_model *m, flood_replica *r, const uint32_t *nodes, uint32_t n,
                         void *out, cn_error *err);
int flood_records_scatter(flood_model *m, flood_replica *r, const void *records, uint32_t n,
                          cn_error *err);
int flood_part_host_current(flood_model *m, int64_t w, cn_error *err);
/* Replica R's part_of as of window W's tiling. */
int flood_part_of_current(flood_model *m, flood_replica *r, int64_t w, cn_error *err);
/* Replica R's HELD as of the current placement (mobile, several partitions). */
int flood_held_current(flood_model *m, flood_replica *r, cn_error *err);

/* flood_cap.c: the neighbour cap ([connectivity] max_neighbors) */
/* Replica R's cap thresholds for window W, from its positions and cell lists of window W. */
int flood_cap_select(flood_model *m, flood_replica *r, int64_t w, cl_event *ev, cn_error *err);
/* The links of window 0's graph that the cap keeps and cuts (m->links, m->links_cut), on
 * replica 0 with its positions of window 0. */
int flood_cap_count(flood_model *m, cn_error *err);
/* The thresholds' buffer for the transmit kernels (a placeholder when there is no cap). */
const dbuf *flood_cap_buffer(const flood_replica *r);

/* flood_areas.c: activity areas (placement = areas, docs/models.md) */
/* The distance between the first columns of two consecutive areas, in mm:
 * (cols - 1) x spacing + 2 x range. */
int64_t flood_areas_pitch(const scenario *sc);
/* The whole graph's neighbour lists (CSR, each list in increasing id order) on the host:
 * *OFFSETS has N + 1 entries; both malloc'ed. */
int flood_areas_lists(const scenario *sc, uint32_t **offsets, uint32_t **list, cn_error *err);
/* The same lists on replica R (the one partition's), adding each node's degree to DEG_SUM
 * when given. */
int flood_areas_csr(flood_model *m, flood_replica *r, dbuf *offsets, dbuf *neighbours,
                    uint32_t *deg_sum, cn_error *err);
/* flood_resources.c: node resources ([resources], docs/models.md "Node resources") */
/* The buffers and initial state of every replica: budgets drawn, lists empty. */
int flood_resources_setup(flood_model *m, cn_error *err);
/* The window's transmissions on replica R, prepared as P (instead of the transmit kernel);
 * their events into EVS. */
int flood_resources_transmit(flood_model *m, flood_replica *r, const transmit_prep *p,
                             int64_t w, cl_event *evs, int *n_evs, cn_error *err);
/* A migration from FROM to TO: the nodes' energy and death times; adds the bytes moved. */
int flood_resources_migrate(flood_model *m, flood_replica *from, flood_replica *to,
                            uint64_t *bytes, cn_error *err);
/* The contract members of node resources, into R. */
int flood_resources_results(flood_model *m, run_results *r, cn_error *err);
void flood_resources_free(flood_model *m, flood_replica *r);
/* Bytes a migration moves for the resources. */
uint64_t flood_resources_bytes(const flood_model *m);

/* flood_scheme.c: counter and distance in the window loop (docs/models.md) */
/* Bytes of one slot's node states (0 unless m->scheme_window). */
size_t flood_scheme_slot_bytes(const flood_model *m);
/* The states' buffer for the kernels (a placeholder without a scheme). */
const dbuf *flood_scheme_state_buffer(const flood_replica *r);
/* The decisions of partition PART in window W on replica R, after its transmit launch. */
int flood_scheme_decide(flood_model *m, uint32_t part, flood_replica *r, int64_t w,
                        cl_event *evs, int *n_evs, cn_error *err);
/* Host copies of every slot's node states: partition PART's nodes (every node with one
 * partition) take FROM's, the others keep INTO's. */
void flood_scheme_merge_part(const flood_model *m, uint32_t part, const uint32_t *from,
                             uint32_t *into);
/* The same for the seen bits (slots x words); 0, or out of host memory. */
int flood_merge_part_seen(const flood_model *m, uint32_t part, const uint32_t *from,
                          uint32_t *into, cn_error *err);
/* A migration of partition PART from FROM to TO: its nodes' states; adds the bytes moved. */
int flood_scheme_migrate(flood_model *m, flood_replica *from, flood_replica *to,
                         uint32_t part, uint64_t *bytes, cn_error *err);
/* Bytes a migration moves for the states. */
uint64_t flood_scheme_bytes(const flood_model *m);
/* Window W of slot S read back (m->alive merged): whether its packet transmitted in W
 * (*SENT; IN_TIME: its time in W is before the duration) and is still alive (*ALIVE); counts
 * the slots waiting in m->scheme_waiting. */
int flood_scheme_window_done(flood_model *m, int64_t w, uint32_t s, int in_time, int *sent,
                             int *alive);
/* Before replica R's first transmit launch of window W: whether its pending lists still
 * hold every pair to decide; if not, the window's decisions visit every pair and their
 * lengths start from zero. */
int flood_scheme_prepare(flood_model *m, flood_replica *r, int64_t w, cn_error *err);
/* (Re)allocates replica R's pending lists for the current slots; they then start over. */
int flood_scheme_alloc_pending(flood_model *m, flood_replica *r, cn_error *err);
/* Replica R's pending lists, or a placeholder buffer when the run has none. */
const dbuf *flood_scheme_pend_buffer(const flood_replica *r);

/* flood_packets.c: whole packets (static scenarios). */
int flood_packets_enabled(void);
int flood_packets_wanted(const flood_model *m);
/* The packets a run floods (created before its end); -1 with ERR set on failure. */
int64_t flood_packets_count(flood_model *m, cn_error *err);
/* The work-groups device D floods PACKETS packets with at a time, and the device bytes each
 * holds (frontier, seen bitset, node states, statistics row). */
uint64_t flood_packets_groups(const flood_model *m, const device_ctx *d, int64_t packets);
uint64_t flood_packets_group_bytes(const flood_model *m);
int flood_packets_setup(flood_model *m, cn_error *err);
/* Rounds of about an eighth of the packets, each a whole multiple of GROUPS (the
 * work-groups of the chunks' devices; over several ranks every rank's together): a launch
 * lasts as long as its slowest packet, so a round fills the devices), with the tables of a
 * round's packets (traffic flows) sized for them. */
int flood_packets_size_rounds(flood_model *m, uint64_t groups, cn_error *err);
int flood_packets_plan(flood_model *m, window_plan *plan);
int flood_packets_run(flood_model *m, flood_replica *r, int chunk, cl_event *evs, int *n_evs,
                      cn_error *err);
int flood_packets_end(flood_model *m, window_outcome *out, cn_error *err);
int flood_packets_results(const flood_model *m, run_results *r, cn_error *err);
/* The latest transmission of this process's packets so far (-1: none). */
int64_t flood_packets_last(const flood_model *m);
/* Traffic flows over several ranks: every rank's records of the round (COUNTS[r] packets
 * each, in rank order) to every rank, which adds them to the flows' sums and the packet
 * records as one process does (a collective). */
int flood_packets_share_records(flood_model *m, const uint64_t *counts, cn_error *err);
/* A run stopped by a signal (R->interrupted): GENERATED counts the packets run so far and,
 * with whole packets, REACHED_NS becomes the creation time of the first packet not run. */
void flood_interrupted_results(flood_model *m, run_results *r);
void flood_packets_free(flood_model *m);
/* Checkpoints of whole packets (flood_checkpoint.c): the results summed over every replica's
 * rows, and the same sums put back as replica 0's. */
int flood_packets_save(const flood_model *m, ckpt_buf *out, cn_error *err);
int flood_packets_restore(flood_model *m, const ckpt_file *in, cn_error *err);

/* flood_ranks.c: the flood over several MPI ranks (whole packets). FLOOD_RANKS_CHECK refuses
 * what does not run over ranks yet (the window loop, traffic flows); FLOOD_RANKS_SHARE gives
 * this rank's share [*FIRST, + *N) of a round of COUNT packets from K0; flood_end_ranks is
 * model_ops.end_ranks. */
int flood_ranks_init(flood_model *m, cn_error *err);
/* flood_balance.c: the coordinator of the window loop over ranks. INIT makes RANK_FIRST
 * (after the partitions); RAN counts a window that transmitted into the busy time (from its
 * plan, BUSY_T0); LOOK_DUE says whether this window's end looks; BUSY_NS is what this rank
 * says then; PLAN computes the ranges NEXT from every rank's LOOK, and whether any
 * partition moves; CARRY moves them at window W's end (a collective of the ranks involved,
 * after W's relays went whole to every rank), stopping every rank if this one fails. */
int flood_balance_init(flood_model *m, cn_error *err);
void flood_balance_ran(flood_model *m);
int flood_balance_look_due(const flood_model *m);
int64_t flood_balance_busy_ns(const flood_model *m);
struct rank_look;
int flood_balance_plan(flood_model *m, const struct rank_look *look, uint32_t *next);
int flood_balance_carry(flood_model *m, const uint32_t *next, int64_t w, cn_error *err);
void flood_ranks_share(flood_model *m, int64_t k0, uint64_t count, int64_t *first, uint64_t *n);
void flood_ranks_measured(flood_model *m);
int flood_end_ranks(struct model_state *state, const window_plan *plan, int failed,
                    window_outcome *out, cn_error *err);
int flood_start_ranks(struct model_state *state, cn_error *err);
/* flood_window.c: the window's outcome once its read-back is applied (end_window, or
 * end_ranks over several ranks). */
int flood_window_done(flood_model *m, const window_plan *plan, window_outcome *out,
                      cn_error *err);

/* flood_checkpoint.c: model_ops.can_checkpoint, save and restore */
int flood_can_checkpoint(const struct model_state *state, cn_error *err);
int flood_save(struct model_state *state, int64_t next, ckpt_buf *out, cn_error *err);
int flood_restore(struct model_state *state, int64_t next, const ckpt_file *in, cn_error *err);
int flood_resume_scenario(const ckpt_file *in, scenario *sc, cn_error *err);
/* model_ops.device_lost: with whole packets, the chunks of the round under way that DEV ran
 * are appended to PLAN and DEV is left out; the window loop cannot go on in place (its
 * partitions' seen bits live only on their home). */
int flood_device_lost(struct model_state *state, device_ctx *dev, window_plan *plan, cn_error *err);

#endif
