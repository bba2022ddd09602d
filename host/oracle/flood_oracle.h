/* Sequential reference implementation ("oracle") of the flood model of docs/model.md, with the
 * extensions of docs/models.md (mobility models, qudg, the neighbour cap, traffic flows, drop
 * probabilities drawn per node, the counter and distance forwarding schemes, activity areas,
 * node resources).
 *
 * It is written from docs/model.md and the project's documented choices only, independently of the
 * OpenCL engine, so that the tests and `clnetsim selftest` can check the engine's counters
 * number for number. It favours obviousness over speed: brute-force neighbour lists, one packet
 * frontier at a time, mobility stepped one window at a time. It carries its own Philox4x32-10 so that a mistake in
 * the shared host implementation cannot hide in both sides of a comparison.
 *
 * Only the `scenario` struct of host/config/config.h is used (no function of the core
 * library), so the oracle can be checked on scenarios built in code. */
#ifndef CLNETSIM_FLOOD_ORACLE_H
#define CLNETSIM_FLOOD_ORACLE_H
#include <stdbool.h>
#include <stdint.h>

#include "models/flood/flood_values.h"
#include "common/wide.h"

/* Return codes of the oracle's functions. */
enum {
    ORACLE_OK = 0,
    ORACLE_ERR_INPUT = -1, /* the scenario is outside what the model defines */
    ORACLE_ERR_NOMEM = -2,
};

/* One traffic flow's results (docs/models.md, "Traffic"): over the packets of that flow. */
typedef struct oracle_flow_result {
    char name[GROUP_NAME_MAX];
    int64_t generated;        /* departures that happen */
    int64_t deliverable;      /* 1 per unicast packet, N - 1 per broadcast packet */
    int64_t delivered;        /* deliveries (a broadcast packet has up to N - 1) */
    wide_int hops_sum;        /* over the deliveries (128 bits: common/wide.h) */
    wide_int latency_sum_ns;  /* over the deliveries: reception time - creation time */
} oracle_flow_result;

/* The determinism-contract counters of docs/model.md "Outputs" (loss is derived when printing). */
typedef struct flood_oracle_result {
    uint64_t seed;
    int64_t nodes;
    int64_t generated;        /* without flows: = packets, always; with: departures that happen */
    int64_t delivered;
    int64_t transmissions;
    int64_t receptions;       /* duplicates included */
    int64_t first_receptions;
    wide_int hops_sum;        /* over delivered packets */
    wide_int latency_sum_ns;  /* over delivered packets */
    int64_t end_time_ns;      /* time of the last executed transmission, 0 if none */
    int64_t windows;          /* floor(end_time_ns / L) + 1 if anything executed, else 0 */
    /* with [connectivity] max_neighbors > 0 (CAPPED): window 0's links after the cap, and
     * those it cut (docs/models.md) */
    bool capped;
    int64_t links, links_cut;
    /* Node resources (docs/models.md, "Node resources"): with rx_capacity > 0 (HAS_CAPACITY)
     * the copies refused; with an energy budget (HAS_ENERGY) the nodes dead at the end, the
     * time of the first death (-1: none) and the energy spent by all nodes, in nJ. */
    bool has_capacity, has_energy;
    int64_t capacity_drops, dead_nodes, first_death_ns, energy_spent_nj;
    /* Traffic flows (docs/models.md, "Traffic"): N_FLOWS = sc->n_flows. DELIVERABLE sums the
     * flows' (without flows: = generated). FLOWS[f] holds flow f's results; without flows,
     * FLOWS[0] is the [traffic] source's, named "traffic", and N_FLOWS stays 0. */
    int n_flows;
    int64_t deliverable;
    oracle_flow_result flows[SCENARIO_MAX_FLOWS];
} flood_oracle_result;

/* One packet of a run (docs/models.md, the --packets CSV), indexed by its id k. */
typedef struct oracle_packet {
    int32_t flow;             /* index into flows[] (0 without flows) */
    int32_t source;
    int64_t created_ns;
    int64_t delivered;        /* its deliveries */
    int64_t latency_ns;       /* of its last delivery (the latest; ties: the largest hop count) */
    int64_t hops;             /* of its last delivery; 0: it has none (latency_ns is 0 then) */
} oracle_packet;

/* Runs the flood model of SC. Returns ORACLE_OK or ORACLE_ERR_*; OUT is zeroed first. */
int flood_oracle_run(const scenario *sc, flood_oracle_result *out);

/* Same, and when PACKETS is not NULL, *PACKETS gets a malloc'ed array of *N_PACKETS records,
 * record k for packet id k (free it with free()). With flows: one per departure that happens.
 * Without flows: one per packet k = 0 .. P - 1 of docs/model.md, including those that the duration
 * keeps from being created (delivered 0). On error *PACKETS is NULL and *N_PACKETS 0. */
int flood_oracle_run_packets(const scenario *sc, flood_oracle_result *out, oracle_packet **packets,
                             int64_t *n_packets);

/* ---- Pieces exposed so that other tests can compare intermediate state ---- */

/* Philox4x32-10 draw of docs/model.md: ctr {a, b, s, 0}, key (seed lo32, seed hi32). */
void oracle_philox(uint64_t seed, uint32_t a, uint32_t b, uint32_t s, uint32_t w[4]);

/* The raw block function, for the known-answer tests. */
void oracle_philox4x32_10(const uint32_t ctr[4], uint32_t key0, uint32_t key1, uint32_t out[4]);

/* lg(x) of docs/models.md ("Traffic"): log2(x) with 16 fraction bits by repeated squaring,
 * for 1 <= x <= 2^32 (0 outside). Exact for powers of two; otherwise at most a few units
 * below floor(log2(x) * 2^16). */
uint32_t oracle_lg_q16(uint64_t x);

/* The exponential interval of docs/models.md for mean MEAN_NS > 0 and draw W0:
 * (mean * ((32 << 16) - lg(w0 + 1)) * 744261118) >> 46 with an exact 128-bit product. Returns
 * -1 when the value exceeds 2^63 - 1 (no departure can follow such an interval). */
int64_t oracle_exponential_ns(int64_t mean_ns, uint32_t w0);

/* start(f, s) of flow F of SC for source S (the constant, or uniform(a, b) from w0 of
 * ctr {s, 0, 12, f}). */
int64_t oracle_flow_start(const scenario *sc, int f, int64_t s);

/* I(f, s, m) of flow F of SC for source S and its packet M (the time from departure m to
 * departure m + 1): the constant, or the uniform or exponential law from w0 of ctr {s, m, 6, f}
 * (m mod 2^32; m = 0 under interval_draw = node). -1 when it exceeds 2^63 - 1. If W0 is not
 * NULL it gets the draw's w0 (0 for a constant). */
int64_t oracle_flow_interval(const scenario *sc, int f, int64_t s, int64_t m, uint32_t *w0);

/* One departure: packet m of source s of flow f at time t_ns. */
typedef struct oracle_departure {
    int64_t t_ns;
    int32_t flow;
    int32_t source;
    int64_t m;
} oracle_departure;

/* Every departure of the flows of SC (sc->n_flows > 0) that happens, sorted by (t, f, s, m):
 * element k is packet id k. *OUT is malloc'ed (NULL when there is none). Returns ORACLE_OK or
 * ORACLE_ERR_* (ORACLE_ERR_INPUT for flows outside what the model defines, or departures that
 * would never stop). */
int oracle_flow_departures(const scenario *sc, oracle_departure **out, int64_t *n_out);

/* Node J's energy budget in nJ (docs/models.md, "Node resources"): the constant, or for
 * uniform(a, b) a + ((w0 * (b - a + 1)) >> 32) with w0 of ctr {j, 0, 15, 0}. */
int64_t oracle_energy_budget(const scenario *sc, int64_t j);

/* floor(sqrt(x)), exact for every 64-bit x. */
uint64_t oracle_isqrt_u64(uint64_t x);

/* Number of nodes of SC (rows * cols for grids, count * rows * cols for areas), or -1 when
 * it is not a valid count. */
int64_t oracle_node_count(const scenario *sc);

/* Initial positions (mm) of all nodes of SC: POS has oracle_node_count(sc) rows. */
int oracle_place(const scenario *sc, int64_t (*pos)[3]);

/* CSR neighbour lists under udg with range RANGE_MM: the neighbours of node i are
 * (*list)[(*offsets)[i] .. (*offsets)[i + 1] - 1], sorted ascending; *offsets has n + 1
 * entries. Brute force over all pairs. Both arrays are malloc'ed; free them with free(). */
int oracle_neighbours(const int64_t (*pos)[3], int64_t n, int64_t range_mm, int64_t **offsets,
                      int32_t **list);

/* Activity areas (docs/models.md, placement = areas): whether the border pair of row R
 * between areas A and A + 1 is linked (w0 of ctr {a, r, 14, 0} below sc->border_threshold). */
bool oracle_area_border_link(const scenario *sc, int64_t a, int64_t r);

/* Adds the links between activity areas (every chain link, the border links their draws
 * give) to the udg lists OFF/LST of the N nodes of SC (both reallocated, each list still
 * sorted; a link already there is not repeated). Nothing for other placements. Returns
 * ORACLE_OK or ORACLE_ERR_*. */
int oracle_area_links(const scenario *sc, int64_t n, int64_t **off, int32_t **lst);

/* The neighbour cap (docs/models.md, max_neighbors = K > 0) applied to the graph OFF/LST of
 * positions POS (each list sorted by id, as oracle_neighbours makes them): node i ranks its
 * links by (squared distance, id) and keeps the first K; a link stays when both ends keep it.
 * The lists are filtered in place (still sorted); *LINKS and *CUT (if not NULL) get the
 * unordered links kept and cut. Returns ORACLE_OK or ORACLE_ERR_NOMEM. */
int oracle_cap_filter(const int64_t (*pos)[3], int64_t n, int64_t k, int64_t *off, int32_t *lst,
                      int64_t *links, int64_t *cut);

/* Mobility state of every node, stepped one window at a time. */
typedef struct oracle_mobility {
    int64_t n;
    int64_t (*pos)[3];      /* current positions, mm */
    uint32_t *leg;          /* rwp leg counter m */
    int64_t *pause_end_ns;  /* the node moves in window w only if w * L >= pause_end_ns */
    int64_t (*dir)[3];      /* linear: each node's direction (docs/models.md) */
    int64_t *speed;         /* linear: each node's speed, mm/s */
    const mobility_params **params; /* what each node moves by (its group's or [mobility]'s) */
    bool mobile;            /* some node moves */
    int64_t window;         /* the window whose positions POS holds */
} oracle_mobility;

/* Places the nodes (window 0: no mobility step yet, every node on leg 0, not pausing). */
int oracle_mobility_init(oracle_mobility *m, const scenario *sc);
void oracle_mobility_free(oracle_mobility *m);

/* Applies the rwp step of the start of window W (>= 1, T_w = W * L) to every rwp node, whatever
 * M->window is, and sets M->window = W. Callers normally use oracle_mobility_advance. */
void oracle_move_rwp(const scenario *sc, oracle_mobility *m, int64_t w);

/* Brings M to window W (>= M->window) by applying the step of every window in between, in
 * order. A no-op on positions for static mobility. */
void oracle_mobility_advance(const scenario *sc, oracle_mobility *m, int64_t w);

#endif
